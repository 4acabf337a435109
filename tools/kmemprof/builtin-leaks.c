// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof leaks: leak suspects, objects that live longer than leak_age_ms.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonstr.h"
#include "viewcmd.h"

/* Whether @k has an object of at least --older (all do without it). */
static bool old_enough(const struct kp_opts *o, const struct kp_leak *k)
{
	size_t j;

	if (!o->older_ms)
		return true;
	for (j = 0; j < k->nobj; j++)
		if (k->obj[j].age_ms >= o->older_ms)
			return true;
	return false;
}

static int leaks_run(struct kp_opts *o)
{
	char b[32], a[32], sz[32];
	struct kp_view_in v;
	struct kp_leaks l;
	size_t i, j, shown = 0;
	bool first = true, obj1;

	if (kp_view_open(o, "leaks", &v) ||
	    kp_view_close(&v, kp_parse_leaks(v.in, v.path, &l, v.err,
					     sizeof(v.err))))
		return 1;
	/* The view holds only what is older than leak_age_ms: say so. */
	if (o->older_ms && l.age_ms > o->older_ms) {
		kp_err("--older %" PRId64 "ms: %s lists objects live longer than %"
		       PRId64 " ms only (kmemprof set leak_age_ms=%" PRId64 ")",
		       o->older_ms, v.path, l.age_ms, o->older_ms);
		kp_leaks_free(&l);
		return 2;
	}
	if (kp_view_begin(o, "leaks", l.n ? &l.v->tag : NULL, l.n,
			  sizeof(*l.v))) {
		kp_leaks_free(&l);
		return 1;
	}
	if (o->json) {
		printf(",\"summary\":{\"age_ms\":%" PRId64 ",\"objects\":%"
		       PRId64 ",\"bytes\":%" PRId64 ",\"sites\":%" PRId64
		       "},\"sites\":[", l.age_ms, l.objs, l.bytes, l.sites);
	} else {
		kp_cell(l.bytes, o->human, b, sizeof(b));
		if (l.age_ms >= 0)
			printf("Leak suspects, live longer than %" PRId64 " ms: %"
			       PRId64 " objects, %s bytes, %" PRId64 " sites\n",
			       l.age_ms, l.objs, b, l.sites);
		printf("%12s %8s %8s %-6s %s\n", "LIVE", "OBJS", "OLDEST",
		       "KIND", "SITE");
	}
	for (i = 0; i < l.n; i++) {
		const struct kp_leak *k = &l.v[i];

		if (!kp_view_keep(o, &k->tag) || !old_enough(o, k))
			continue;
		if (o->n && shown >= (size_t)o->n)
			break;
		shown++;
		if (o->json) {
			printf("%s{", first ? "\n" : ",\n");
			first = false;
			kp_view_json_tag(&k->tag);
			printf(",\"live_bytes\":%" PRId64 ",\"live_objects\":%"
			       PRId64 ",\"objects\":[", k->bytes, k->objs);
			for (j = 0, obj1 = true; j < k->nobj; j++) {
				if (k->obj[j].age_ms < o->older_ms)
					continue;
				printf("%s{\"addr\":", obj1 ? "" : ",");
				kp_json_str(stdout, k->obj[j].addr);
				printf(",\"size\":%" PRId64 ",\"age_ms\":%"
				       PRId64 ",\"cpu\":%d}", k->obj[j].size,
				       k->obj[j].age_ms, k->obj[j].cpu);
				obj1 = false;
			}
			fputs("]}", stdout);
			continue;
		}
		kp_cell(k->bytes, o->human, b, sizeof(b));
		if (k->nobj)
			kp_view_age(k->obj[0].age_ms, a, sizeof(a));
		else
			snprintf(a, sizeof(a), "-");
		printf("%12s %8" PRId64 " %8s %-6s ", b, k->objs, a,
		       k->tag.kind);
		kp_print_tag(stdout, &k->tag);
		putchar('\n');
		/*
		 * Its oldest objects, a row each, as bcc's memleak lists
		 * them (addr, size): under LIVE its size, under OLDEST its
		 * age; OBJS (one) and KIND (the site's) cannot vary, and are
		 * left blank; under SITE, indented, the object's address and
		 * the CPU that allocated it.
		 */
		for (j = 0; j < k->nobj; j++) {
			if (k->obj[j].age_ms < o->older_ms)
				continue;
			kp_cell(k->obj[j].size, o->human, sz, sizeof(sz));
			kp_view_age(k->obj[j].age_ms, a, sizeof(a));
			printf("%12s %8s %8s %-6s   object %s on cpu%d\n", sz, "",
			       a, "", k->obj[j].addr, k->obj[j].cpu);
		}
	}
	if (o->json) {
		fputs("\n]", stdout);
		kp_leaks_free(&l);
		return kp_view_json_end();
	}
	if (l.n && o->older_ms && !shown)
		printf("(no leak suspects live at least %" PRId64 " ms)\n",
		       o->older_ms);
	else if (!l.n)
		printf("(no leak suspects%s)\n", l.off ?
		       ": lifetimes are off; kmemprof set lifetimes=1, and"
		       " objects allocated from then on have an age" : "");
	kp_leaks_free(&l);
	return 0;
}

/* A duration: "1500" (ms, as bcc's memleak -o), 1500ms, 1.5s, 2m, 1h. */
static int set_older(struct kp_opts *o, const char *arg)
{
	static const struct {
		const char *unit;
		double ms;
	} units[] = { { "", 1 }, { "ms", 1 }, { "s", 1e3 }, { "m", 6e4 },
		      { "h", 3.6e6 } };
	double v;
	char *end;
	size_t i;

	errno = 0;
	v = strtod(arg, &end);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			break;
	if (errno || end == arg || i == sizeof(units) / sizeof(units[0]) ||
	    !isfinite(v) || v <= 0 || v * units[i].ms >= 0x1p62) {
		kp_err("--older %s: expected a duration (1500 or 1500ms, 1.5s, 2m, 1h)",
		       arg);
		return 2;
	}
	o->older_ms = (int64_t)ceil(v * units[i].ms);
	return 0;
}

static const struct kp_option opt_older = {
	"older", 1, 0, "DURATION",
	"only objects live at least DURATION (ms, or 1.5s, 2m, 1h; as bcc's "
	"memleak --older), and the sites that have one", set_older,
};

const struct kp_cmd kp_cmd_leaks = {
	.name = "leaks", .args = "",
	.what = "leak suspects: objects live too long",
	.opts = (const struct kp_option *const[]){
		&kp_opt_view_input, &kp_opt_view_lines, &kp_opt_human,
		&kp_opt_kind, &kp_opt_module, &opt_older, &kp_opt_json,
		&kp_opt_resolve, &kp_opt_no_resolve, NULL,
	},
	.run = leaks_run,
};
