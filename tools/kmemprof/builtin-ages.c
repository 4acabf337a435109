// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof ages: the sites whose live objects are oldest.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonstr.h"
#include "viewcmd.h"

struct age_row {
	const struct kp_age *a;
	size_t oldest, median;	/* buckets */
};

static int age_cmp(const void *x, const void *y)
{
	const struct age_row *a = x, *b = y;

	if (a->oldest != b->oldest)
		return a->oldest < b->oldest ? 1 : -1;
	if (a->a->bytes != b->a->bytes)
		return a->a->bytes < b->a->bytes ? 1 : -1;
	return strcmp(a->a->tag.site, b->a->tag.site);
}

static int ages_run(struct kp_opts *o)
{
	char b[32], old[32], med[32];
	struct kp_view_in v;
	struct age_row *rows;
	struct kp_ages a;
	size_t i, j, n = 0, shown = 0;

	if (kp_view_open(o, "ages", &v) ||
	    kp_view_close(&v, kp_parse_ages(v.in, v.path, &a, v.err,
					    sizeof(v.err))))
		return 1;
	rows = calloc(a.n + 1, sizeof(*rows));
	if (rows && kp_view_begin(o, "ages", a.n ? &a.v->tag : NULL, a.n,
				  sizeof(*a.v))) {
		free(rows);
		rows = NULL;
	}
	if (!rows) {
		kp_ages_free(&a);
		return 1;
	}
	for (i = 0; i < a.n; i++) {
		uint64_t total = 0, half = 0;

		if (!kp_view_keep(o, &a.v[i].tag))
			continue;
		rows[n].a = &a.v[i];
		for (j = 0; j < a.v[i].nage; j++) {
			total += a.v[i].age[j];
			if (a.v[i].age[j])
				rows[n].oldest = j;
		}
		for (j = 0; j < a.v[i].nage && total; j++) {
			half += a.v[i].age[j];
			if (2 * half >= total) {
				rows[n].median = j;
				break;
			}
		}
		n++;
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), age_cmp);
	if (o->json) {
		fputs(",\"sites\":[", stdout);
		for (i = 0; i < n && (!o->n || i < (size_t)o->n); i++) {
			const struct kp_age *x = rows[i].a;

			printf("%s\n{", i ? "," : "");
			kp_view_json_tag(&x->tag);
			printf(",\"live_bytes\":%" PRId64 ",\"live_objects\":%"
			       PRId64 ",\"oldest_ns\":%" PRIu64
			       ",\"median_ns\":%" PRIu64, x->bytes, x->objs,
			       kp_hist_lower(KP_B_LIFE, rows[i].oldest),
			       kp_hist_lower(KP_B_LIFE, rows[i].median));
			kp_view_json_counts("age", x->age, x->nage);
			putchar('}');
		}
		fputs("\n]", stdout);
		free(rows);
		kp_ages_free(&a);
		return kp_view_json_end();
	}
	printf("%12s %8s %8s %8s %-6s %s\n", "LIVE", "OBJS", "OLDEST>=",
	       "MEDIAN>=", "KIND", "SITE");
	if (!n)
		printf("(no live objects with an age%s)\n", a.off ?
		       ": lifetimes are off; kmemprof set lifetimes=1, and"
		       " objects allocated from then on have an age" : "");
	for (i = 0; i < n && (!o->n || shown < (size_t)o->n); i++, shown++) {
		kp_cell(rows[i].a->bytes, o->human, b, sizeof(b));
		kp_hist_label(KP_B_LIFE, rows[i].oldest, old, sizeof(old));
		kp_hist_label(KP_B_LIFE, rows[i].median, med, sizeof(med));
		printf("%12s %8" PRId64 " %8s %8s %-6s ", b, rows[i].a->objs,
		       old, med, rows[i].a->tag.kind);
		kp_print_tag(stdout, &rows[i].a->tag);
		putchar('\n');
	}
	free(rows);
	kp_ages_free(&a);
	return 0;
}

const struct kp_cmd kp_cmd_ages = {
	.name = "ages", .args = "",
	.what = "the sites whose live objects are oldest",
	.opts = kp_view_opts, .run = ages_run,
};
