// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof stacks: the sampled stacks of each site.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonstr.h"
#include "viewcmd.h"

static int stacks_run(struct kp_opts *o)
{
	const char *want = o->nargs ? o->args[0] : NULL;
	char path[512], err[512], b[32], key[1024], prev[1024] = "";
	struct kp_stacks s;
	size_t i, f, tags = 0;
	bool skip = false, any = false, first = true;
	FILE *in;
	int rc;

	in = kp_open(kp_view_path(o, "stacks", path, sizeof(path)));
	if (!in)
		return 1;
	rc = kp_view_parsed(kp_parse_stacks(in, path, &s, err, sizeof(err)), err);
	fclose(in);
	if (rc)
		return 1;
	/* Stacks sampled before stack_depth went back to 0 are still shown. */
	if (o->json) {
		kp_view_json_begin("stacks");
		printf(",\"stack_depth\":%d,\"stack_sample\":%d,\"tags\":[",
		       s.depth, s.sample);
	} else if (s.depth == 0 && !s.n) {
		printf("(no stacks: stack_depth is 0; try 'kmemprof set stack_depth=8')\n");
	}
	for (i = 0; i < s.n; i++) {
		const struct kp_stack *st = &s.v[i];

		kp_site_key(&st->tag, key, sizeof(key));
		if (strcmp(key, prev)) {
			snprintf(prev, sizeof(prev), "%s", key);
			skip = (want && !kp_tag_match(&st->tag, want)) ||
			       !kp_view_keep(o, &st->tag) ||
			       (o->n && tags >= (size_t)o->n);
			if (skip)
				continue;
			tags++;
			any = true;
			if (o->json) {
				printf("%s{", tags > 1 ? "]},\n" : "\n");
				kp_view_json_tag(&st->tag);
				printf(",\"allocs\":%" PRId64 ",\"bytes\":%"
				       PRId64 ",\"stacks\":[", st->tag_allocs,
				       st->tag_bytes);
				first = true;
			} else {
				kp_cell(st->tag_bytes, o->human, b, sizeof(b));
				printf("%s", tags > 1 ? "\n" : "");
				kp_print_tag(stdout, &st->tag);
				printf(" kind:%s: %" PRId64
				       " allocs, %s bytes sampled\n",
				       st->tag.kind, st->tag_allocs, b);
			}
		}
		if (skip)
			continue;
		if (o->json) {
			printf("%s{\"allocs\":%" PRId64 ",\"bytes\":%" PRId64
			       ",\"frames\":[", first ? "" : ",", st->allocs,
			       st->bytes);
			for (f = 0; f < st->nframes; f++) {
				if (f)
					putchar(',');
				kp_json_str(stdout, st->frames[f]);
			}
			fputs("]}", stdout);
			first = false;
			continue;
		}
		kp_cell(st->bytes, o->human, b, sizeof(b));
		printf("  %5.1f%% %10s bytes %8" PRId64 " allocs\n",
		       st->tag_bytes > 0 ? 100.0 * st->bytes / st->tag_bytes : 0,
		       b, st->allocs);
		for (f = 0; f < st->nframes; f++)
			printf("        %s\n", st->frames[f]);
	}
	kp_stacks_free(&s);
	if (o->json) {
		fputs(any ? "]}\n]" : "]", stdout);
		rc = kp_view_json_end();
	}
	if (want && !any) {
		fprintf(stderr, "kmemprof: no stacks for '%s' in %s\n", want,
			path);
		return 1;
	}
	return rc;
}

const struct kp_cmd kp_cmd_stacks = {
	.name = "stacks", .args = "[SITE]",
	.what = "sampled stacks of each site",
	.max_args = 1,
	.opts = kp_view_opts, .run = stacks_run,
};
