// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof owners: who holds the memory of each site, from the owners
 * view: a line per (site, owner), by live bytes. top --by owner sums
 * them per owner (builtin-top.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonstr.h"
#include "viewcmd.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#endif

/* By live bytes, then live objects, largest first; then as the view. */
static int line_cmp(const void *x, const void *y)
{
	const struct kp_oline *a = *(const struct kp_oline *const *)x;
	const struct kp_oline *b = *(const struct kp_oline *const *)y;

	if (a->tag.bytes != b->tag.bytes)
		return a->tag.bytes < b->tag.bytes ? 1 : -1;
	if (a->tag.objs != b->tag.objs)
		return a->tag.objs < b->tag.objs ? 1 : -1;
	return a < b ? -1 : a > b;
}

static void json_line(const struct kp_oline *l, bool first)
{
	printf("%s{", first ? "\n" : ",\n");
	kp_view_json_tag(&l->tag);
	fputs(",\"owner\":", stdout);
	kp_json_str(stdout, l->owner);
	printf(",\"type\":\"%s\",\"name\":", kp_owner_type_name(l->type));
	kp_json_str(stdout, l->name);
	if (l->id >= 0)
		printf(",\"id\":%" PRId64, l->id);
	else
		fputs(",\"id\":null", stdout);
	printf(",\"live_bytes\":%" PRId64 ",\"live_objects\":%" PRId64
	       ",\"allocs\":%" PRId64 "}", l->tag.bytes, l->tag.objs,
	       l->tag.allocs);
}

#ifdef KP_HAVE_OUTPUTS
static void csv_line(const struct kp_oline *l)
{
	char id[24] = "";

	kp_csv_str(stdout, l->tag.site);
	fputc(',', stdout);
	kp_csv_str(stdout, l->tag.module);
	fputc(',', stdout);
	kp_csv_str(stdout, l->tag.func);
	fputc(',', stdout);
	kp_csv_str(stdout, l->tag.kind);
	fputc(',', stdout);
	kp_csv_str(stdout, l->tag.callers);
	fputc(',', stdout);
	kp_csv_str(stdout, l->owner);
	printf(",%s,", kp_owner_type_name(l->type));
	kp_csv_str(stdout, l->name);
	if (l->id >= 0)
		snprintf(id, sizeof(id), "%" PRId64, l->id);
	printf(",%s,%" PRId64 ",%" PRId64 ",%" PRId64 "\r\n", id,
	       l->tag.bytes, l->tag.objs, l->tag.allocs);
}
#endif

/* What the view says without lines, as the tables say it. */
const char *kp_owners_none(const struct kp_owners *ow)
{
	return ow->off ? "(no owners: owners are off; kmemprof set owners=task,"
			 " or owners=cgroup)\n" :
			 "(no owners: no line has live objects)\n";
}

static int owners_run(struct kp_opts *o)
{
	const char *want = o->nargs ? o->args[0] : NULL;
	const struct kp_oline **v;
	char b[32], al[32];
	struct kp_view_in in;
	struct kp_owners ow;
	size_t i, n = 0;
	int rc = 0;

#ifndef KP_HAVE_OUTPUTS
	if (o->csv)
		return kp_no_outputs();
#endif
	if (kp_view_open(o, "owners", &in) ||
	    kp_view_close(&in, kp_parse_owners(in.in, in.path, &ow, in.err,
					       sizeof(in.err))))
		return 1;
	v = calloc(ow.n + 1, sizeof(*v));
	if (!v) {
		fprintf(stderr, "kmemprof: out of memory\n");
		kp_owners_free(&ow);
		return 1;
	}
	for (i = 0; i < ow.n; i++)
		if ((!want || kp_tag_match(&ow.v[i].tag, want)) &&
		    kp_view_keep(o, &ow.v[i].tag))
			v[n++] = &ow.v[i];
	qsort(v, n, sizeof(*v), line_cmp);
	if (o->n && (size_t)o->n < n)
		n = (size_t)o->n;
	if (want && !n) {
		fprintf(stderr, "kmemprof: no owners for '%s' in %s\n", want,
			in.path);
		rc = 1;
		goto out;
	}
	if (kp_view_begin(o, "owners", ow.n ? &ow.v->tag : NULL, ow.n,
			  sizeof(*ow.v))) {
		rc = 1;
		goto out;
	}
	if (o->json) {
		printf(",\"off\":%s,\"lines\":[", ow.off ? "true" : "false");
		for (i = 0; i < n; i++)
			json_line(v[i], !i);
		fputs(n ? "\n]" : "]", stdout);
		rc = kp_view_json_end();
		goto out;
	}
#ifdef KP_HAVE_OUTPUTS
	if (o->csv) {
		fputs("site,module,func,kind,callers,owner,type,name,id,"
		      "live_bytes,live_objects,allocs\r\n", stdout);
		for (i = 0; i < n; i++)
			csv_line(v[i]);
		rc = fflush(stdout) || ferror(stdout) ? 1 : 0;
		goto out;
	}
#endif
	if (!n) {
		fputs(kp_owners_none(&ow), stdout);
		goto out;
	}
	printf("%12s %8s %9s %-6s %-20s %s\n", "LIVE", "OBJS", "ALLOCS",
	       "KIND", "OWNER", "SITE");
	for (i = 0; i < n; i++) {
		kp_cell(v[i]->tag.bytes, o->human, b, sizeof(b));
		kp_cell(v[i]->tag.allocs, false, al, sizeof(al));
		printf("%12s %8" PRId64 " %9s %-6s %-20s ", b, v[i]->tag.objs,
		       al, v[i]->tag.kind, v[i]->owner);
		kp_print_tag(stdout, &v[i]->tag);
		putchar('\n');
	}
out:
	free(v);
	kp_owners_free(&ow);
	return rc;
}

const struct kp_cmd kp_cmd_owners = {
	.name = "owners", .args = "[SITE]",
	.what = "who holds each site's memory: live bytes per (site, owner), "
		"while owners are on",
	.max_args = 1,
	.opts = (const struct kp_option *const[]){
		&kp_opt_view_input, &kp_opt_view_lines, &kp_opt_human,
		&kp_opt_kind, &kp_opt_module, &kp_opt_json, &kp_opt_csv,
		&kp_opt_resolve, &kp_opt_no_resolve, NULL,
	},
	.run = owners_run,
};
