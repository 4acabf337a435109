// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof hist: size and lifetime histograms as ASCII bars.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonstr.h"
#include "viewcmd.h"

#define BAR 50

static void bars(const char *title, const uint64_t *v, size_t n,
		 enum kp_bucket kind)
{
	uint64_t max = 0, total = 0;
	size_t i, first = n, last = 0, w;
	char label[32];

	for (i = 0; i < n; i++) {
		total = total + v[i] < total ? UINT64_MAX : total + v[i];
		if (v[i] > max)
			max = v[i];
		if (v[i] && first == n)
			first = i;
		if (v[i])
			last = i;
	}
	printf("  %s: %" PRIu64 "\n", title, total);
	if (!max)
		return;
	for (i = first; i <= last; i++) {
		/* in doubles: counts near 2^64 would overflow the product */
		w = (size_t)ceil((double)v[i] * BAR / (double)max);
		if (w > BAR)
			w = BAR;
		kp_hist_label(kind, i, label, sizeof(label));
		printf("  %8s |%.*s%*s %" PRIu64 "\n", label, (int)w,
		       "##################################################",
		       (int)(BAR - w), "", v[i]);
	}
}

static bool same(const uint64_t *a, const uint64_t *b, size_t n)
{
	return !memcmp(a, b, n * sizeof(*a));
}

static void hist_one(const struct kp_hist *h, bool human)
{
	enum kp_bucket sz = !strcmp(h->kind, "page") ? KP_B_ORDER : KP_B_SIZE;
	char w[32];

	if (!strcmp(h->site, "all"))
		printf("all %s allocations", h->kind);
	else
		kp_print_tag(stdout, &h->tag), printf(" kind:%s", h->kind);
	kp_cell(h->waste, human, w, sizeof(w));
	printf(": xcpu %" PRIu64 ", xcluster %" PRIu64 ", frag %.1f%%, waste %s"
	       " bytes\n", h->xcpu, h->xcluster, h->frag, w);
	bars(sz == KP_B_ORDER ? "allocations by size (page order)" :
	     "allocations by size (each bucket: up to)", h->size, h->nsize,
	     sz);
	if (h->nreq == h->nsize && !same(h->size, h->req, h->nsize))
		bars("allocations by requested size", h->req, h->nreq, sz);
	bars("frees by lifetime (each bucket: from)", h->life, h->nlife,
	     KP_B_LIFE);
}

static int hist_run(struct kp_opts *o)
{
	const char *want = o->nargs ? o->args[0] : NULL;
	struct kp_view_in v;
	struct kp_hists h;
	size_t i, shown = 0;
	bool off;
	int rc = 0;

	if (kp_view_open(o, "hist", &v) ||
	    kp_view_close(&v, kp_parse_hist(v.in, v.path, &h, v.err,
					    sizeof(v.err))))
		return 1;
	if (kp_view_begin(o, "hist", h.n ? &h.v->tag : NULL, h.n,
			  sizeof(*h.v))) {
		kp_hists_free(&h);
		return 1;
	}
	if (o->json)
		fputs(",\"hists\":[", stdout);
	for (i = 0; i < h.n; i++) {
		const struct kp_hist *x = &h.v[i];
		bool all = !strcmp(x->site, "all");

		if (want ? all || !kp_tag_match(&x->tag, want) : !all)
			continue;
		if ((o->filter.kind && strcmp(x->kind, o->filter.kind)) ||
		    (!all && !kp_view_keep(o, &x->tag)))
			continue;
		if (o->n && shown >= (size_t)o->n)
			break;
		if (o->json) {
			printf("%s{", shown++ ? ",\n" : "\n");
			kp_view_json_tag(&x->tag);
			kp_view_json_counts("size", x->size, x->nsize);
			kp_view_json_counts("req", x->req, x->nreq);
			kp_view_json_counts("life", x->life, x->nlife);
			printf(",\"xcpu\":%" PRIu64 ",\"xcluster\":%" PRIu64
			       ",\"frag\":%.1f,\"waste\":%" PRId64 "}",
			       x->xcpu, x->xcluster, x->frag, x->waste);
			continue;
		}
		printf("%s", shown++ ? "\n" : "");
		hist_one(x, o->human);
	}
	off = h.off;
	kp_hists_free(&h);
	if (o->json) {
		fputs("\n]", stdout);
		rc = kp_view_json_end();
	}
	if (!shown) {
		char knob[8] = "";

		/* The module keeps none while /proc/sys/kmemprof/hist is 0. */
		if (off || (!o->input &&
			      !kp_knob_read("hist", knob, sizeof(knob)) &&
			      !strcmp(knob, "0")))
			snprintf(knob, sizeof(knob), "off");
		fprintf(stderr, "kmemprof: no histograms%s%s%s in %s%s\n",
			want ? " for '" : "", want ? want : "", want ? "'" : "",
			v.path, strcmp(knob, "off") ? "" :
			" (histograms are off: kmemprof set hist=1)");
		return 1;
	}
	return rc;
}

const struct kp_cmd kp_cmd_hist = {
	.name = "hist", .args = "[SITE]",
	.what = "size and lifetime histograms (all kinds, or SITE's)",
	.max_args = 1,
	.opts = kp_view_opts, .run = hist_run,
};
