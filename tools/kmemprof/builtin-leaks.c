// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof leaks: leak suspects, objects that live longer than leak_age_ms.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonstr.h"
#include "viewcmd.h"

static int leaks_run(struct kp_opts *o)
{
	char path[512], err[512], b[32], a[32], sz[32];
	struct kp_leaks l;
	size_t i, j, shown = 0;
	bool first = true;
	FILE *in;
	int rc;

	in = kp_open(kp_view_path(o, "leaks", path, sizeof(path)));
	if (!in)
		return 1;
	rc = kp_view_parsed(kp_parse_leaks(in, path, &l, err, sizeof(err)), err);
	fclose(in);
	if (rc)
		return 1;
	if (l.n)
		kp_view_resolve(o, &l.v[0].tag, l.n, sizeof(l.v[0]));
	if (o->json) {
		kp_view_json_begin("leaks");
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

		if (!kp_view_keep(o, &k->tag))
			continue;
		if (o->n && shown++ >= (size_t)o->n)
			break;
		if (o->json) {
			printf("%s{", first ? "\n" : ",\n");
			first = false;
			kp_view_json_tag(&k->tag);
			printf(",\"live_bytes\":%" PRId64 ",\"live_objects\":%"
			       PRId64 ",\"objects\":[", k->bytes, k->objs);
			for (j = 0; j < k->nobj; j++)
				printf("%s{\"addr\":\"%s\",\"size\":%" PRId64
				       ",\"age_ms\":%" PRId64 ",\"cpu\":%d}",
				       j ? "," : "", k->obj[j].addr,
				       k->obj[j].size, k->obj[j].age_ms,
				       k->obj[j].cpu);
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
		 * Its oldest objects, each a row of the same columns: its
		 * size, one object, its age, the kind; under SITE, indented,
		 * the object's address and the CPU that allocated it.
		 */
		for (j = 0; j < k->nobj; j++) {
			kp_cell(k->obj[j].size, o->human, sz, sizeof(sz));
			kp_view_age(k->obj[j].age_ms, a, sizeof(a));
			printf("%12s %8d %8s %-6s   object %s on cpu%d\n", sz, 1,
			       a, k->tag.kind, k->obj[j].addr, k->obj[j].cpu);
		}
	}
	if (o->json) {
		fputs("\n]", stdout);
		kp_leaks_free(&l);
		return kp_view_json_end();
	}
	if (!l.n)
		printf("(no leak suspects%s)\n", l.off ?
		       ": lifetimes are off; kmemprof set lifetimes=1, and"
		       " objects allocated from then on have an age" : "");
	kp_leaks_free(&l);
	return 0;
}

const struct kp_cmd kp_cmd_leaks = {
	.name = "leaks", .args = "",
	.what = "leak suspects: objects live too long",
	.opts = kp_view_opts, .run = leaks_run,
};
