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

/* A frame's file:line and the inlined function it is in, or NULLs. */
struct frame_src {
	char *line, *func;
};

/*
 * file:line of every frame of every stack, in order, one array for all
 * (one read of the debug files); NULL where nothing resolved. A frame is
 * "sym+0x38/0x48" or "sym+0x38/0x48 [module]".
 */
static struct frame_src *frame_lines(const struct kp_opts *o,
				     const struct kp_stacks *s)
{
	struct frame_src *lines = NULL;
	struct kp_site *t;
	char *c;
	size_t i, f, k, n = 0;
	bool any = false;

	for (i = 0; i < s->n; i++)
		n += s->v[i].nframes;
	t = n ? calloc(n, sizeof(*t)) : NULL;
	if (!t)
		return NULL;
	for (i = 0, k = 0; i < s->n; i++) {
		for (f = 0; f < s->v[i].nframes; f++, k++) {
			t[k].site = strdup(s->v[i].frames[f]);
			if (!t[k].site)
				goto out;
			c = strstr(t[k].site, " [");
			if (c) {
				*c = '\0';
				t[k].module = c + 2;
				t[k].module[strcspn(t[k].module, "]")] = '\0';
			}
		}
	}
	(void)kp_view_resolve(o, t, n, sizeof(*t));	/* said above */
	for (k = 0; k < n; k++)
		any |= t[k].srcline != NULL;
	lines = any ? calloc(n, sizeof(*lines)) : NULL;
out:
	for (k = 0; k < n; k++) {
		if (lines) {
			lines[k].line = t[k].srcline;
			lines[k].func = t[k].srcfunc;
		} else {
			free(t[k].srcline);
			free(t[k].srcfunc);
		}
		free(t[k].site);
	}
	free(t);
	return lines;
}

static int stacks_run(struct kp_opts *o)
{
	const char *want = o->nargs ? o->args[0] : NULL;
	char b[32], key[1024], prev[1024] = "";
	struct kp_view_in v;
	struct kp_stacks s;
	struct frame_src *lines;
	size_t i, f, k, tags = 0;
	bool skip = false, any = false, first = true;
	int rc = 0;

	if (kp_view_open(o, "stacks", &v) ||
	    kp_view_close(&v, kp_parse_stacks(v.in, v.path, &s, v.err,
					      sizeof(v.err))))
		return 1;
	if (kp_view_begin(o, "stacks", s.n ? &s.v->tag : NULL, s.n,
			  sizeof(*s.v))) {
		kp_stacks_free(&s);
		return 1;
	}
	lines = frame_lines(o, &s);
	/* Stacks sampled before stack_depth went back to 0 are still shown. */
	if (o->json) {
		printf(",\"stack_depth\":%d,\"stack_sample\":%d,\"tags\":[",
		       s.depth, s.sample);
	} else if (s.depth == 0 && !s.n) {
		printf("(no stacks: stack_depth is 0; try 'kmemprof set stack_depth=8')\n");
	}
	for (i = 0, k = 0; i < s.n; k += s.v[i].nframes, i++) {
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
			putchar(']');
			/*
			 * each frame's file:line, or null, and the inlined
			 * function it is in, or null
			 */
			if (lines) {
				fputs(",\"srclines\":[", stdout);
				for (f = 0; f < st->nframes; f++) {
					if (f)
						putchar(',');
					kp_json_str(stdout, lines[k + f].line);
				}
				fputs("],\"srcfuncs\":[", stdout);
				for (f = 0; f < st->nframes; f++) {
					if (f)
						putchar(',');
					kp_json_str(stdout, lines[k + f].func);
				}
				putchar(']');
			}
			putchar('}');
			first = false;
			continue;
		}
		kp_cell(st->bytes, o->human, b, sizeof(b));
		printf("  %5.1f%% %10s bytes %8" PRId64 " allocs\n",
		       st->tag_bytes > 0 ? 100.0 * st->bytes / st->tag_bytes : 0,
		       b, st->allocs);
		for (f = 0; f < st->nframes; f++) {
			printf("        %s", st->frames[f]);
			if (lines)
				kp_print_srcline(stdout, lines[k + f].line,
						 lines[k + f].func);
			putchar('\n');
		}
	}
	if (lines) {
		/* k: the frames of all stacks */
		while (k--) {
			free(lines[k].line);
			free(lines[k].func);
		}
		free(lines);
	}
	kp_stacks_free(&s);
	if (o->json) {
		fputs(any ? "]}\n]" : "]", stdout);
		rc = kp_view_json_end();
	}
	if (want && !any) {
		fprintf(stderr, "kmemprof: no stacks for '%s' in %s\n", want,
			v.path);
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
