// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: plots as standalone SVG 1.1 (xmlns, viewBox, no
 * scripts, no external references), which browsers and rsvg-convert open.
 *
 *   top:    the first N sites of the profile as horizontal bars of live
 *           bytes, coloured by kind, in the profile's order;
 *   hist:   one tag's size histogram and lifetime histogram, side by side;
 *   series: live bytes over time of the sites that held the most, from a
 *           watch --record file, one line each;
 *   meminfo: the whole-RAM account (meminfo.c) as two stacked bars, all of
 *           MemTotal and the part in use, with a legend of every line.
 *
 * Elements carry classes the tests look for: "bar", "line", "axis",
 * "label", "title". Text is escaped for XML (escape.c's kp_gr_xml): bytes
 * that are not valid UTF-8, and control characters XML 1.0 forbids,
 * become U+FFFD.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "meminfo.h"
#include "output.h"
#include "profile.h"

#define PLOT_MAX_BARS	50
#define SERIES_MAX	10
/*
 * The characters a label of @px pixels holds at @font px: DejaVu Sans'
 * widest run of site text (digits, "x", "_") averages 0.62 em.
 */
#define LABEL_CHARS(px, font)	((size_t)((px) / (0.62 * (font))))
/* The buddy's largest order (MAX_PAGE_ORDER, 4 MiB blocks of 4 KiB pages) */
#define PLOT_MAX_ORDER	10

static const char *const palette[SERIES_MAX] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};

/* @str, at most @max characters (UTF-8 sequences), escaped for XML. */
static void xml_text(FILE *out, const char *str, size_t max)
{
	size_t cut;

	if (!str)
		return;
	cut = kp_utf8_cut(str, max);
	kp_escape(out, str, cut, &kp_gr_xml);
	if (str[cut])
		fputs("\u2026", out);	/* an ellipsis */
}

static void svg_open(FILE *out, int w, int h, const char *title)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
		"font-size=\"12\">\n<title>", w, h, w, h);
	xml_text(out, title, 0);
	fprintf(out, "</title>\n<rect width=\"%d\" height=\"%d\" "
		"fill=\"#ffffff\"/>\n", w, h);
	fputs("<text class=\"title\" x=\"12\" y=\"22\" font-size=\"16\" "
	      "font-weight=\"bold\">", out);
	xml_text(out, title, 120);
	fputs("</text>\n", out);
}

static int svg_close(FILE *out)
{
	fputs("</svg>\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/*
 * A tick step up to @max. Bytes: a power of 2, 2 to 4 ticks, so that every
 * tick prints exactly in IEC units with one decimal (512K, 1.5M); counts:
 * 1, 2 or 5 times a power of 10, up to 10 ticks.
 */
static uint64_t tick_step(uint64_t max, bool bytes)
{
	uint64_t step = 1;

	if (max < 4)
		return 1;
	if (bytes) {
		while (max / step > 4)
			step *= 2;
		return step;
	}
	for (;;) {
		if (max / step <= 10)
			return step;
		if (max / (step * 2) <= 10)
			return step * 2;
		if (max / (step * 5) <= 10)
			return step * 5;
		step *= 10;
	}
}

static void value_label(char *buf, size_t len, uint64_t v, bool bytes)
{
	if (bytes)
		kp_iec((int64_t)v, buf, len);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static const char *kind_colour(const char *kind)
{
	if (!kind)
		return "#9c9c9c";
	if (!strcmp(kind, "slab"))
		return palette[0];
	if (!strcmp(kind, "page"))
		return palette[1];
	if (!strcmp(kind, "percpu"))
		return palette[2];
	return "#9c9c9c";
}

/* "site [module] <- first caller" */
static void site_label(char *buf, size_t len, const struct kp_site *s)
{
	size_t nc = s->callers ? strcspn(s->callers, ",") : 0;

	snprintf(buf, len, "%s%s%s%s%s%.*s", s->site, s->module ? " [" : "",
		 s->module ? s->module : "", s->module ? "]" : "",
		 s->callers ? " <- " : "", (int)nc, s->callers ? s->callers : "");
}

int kp_plot_top(FILE *out, const struct kp_profile *p, size_t n)
{
	const int left = 380, right = 90, top = 64, row = 22, width = 1000;
	uint64_t max = 1, step, t;
	int height, plotw = width - left - right;
	char label[512], v[32];
	size_t i;

	if (!n || n > PLOT_MAX_BARS)
		n = PLOT_MAX_BARS;
	if (n > p->n)
		n = p->n;
	for (i = 0; i < n; i++)
		if (p->sites[i].bytes > 0 && (uint64_t)p->sites[i].bytes > max)
			max = p->sites[i].bytes;
	step = tick_step(max, true);
	max = (max + step - 1) / step * step;
	height = top + (int)n * row + 50;
	snprintf(label, sizeof(label), "kmemprof: live bytes, top %zu of %zu "
		 "call sites (%s)", n, p->n,
		 p->source == KP_ALLOCINFO ? "allocinfo" : "kmemprof");
	svg_open(out, width, height, label);

	/* The x axis, at the bottom, and its grid. */
	fprintf(out, "<g class=\"axis\" id=\"x-axis\" font-size=\"11\" "
		"fill=\"#333333\">\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
		"y2=\"%d\" stroke=\"#333333\"/>\n", left, top + (int)n * row,
		left + plotw, top + (int)n * row);
	for (t = 0; t <= max; t += step) {
		double x = left + (double)plotw * t / max;

		value_label(v, sizeof(v), t, true);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#dddddd\"/>\n<text class=\"tick\" x=\"%.1f\" "
			"y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, top - 4, x, top + (int)n * row, x,
			top + (int)n * row + 16, v);
	}
	fprintf(out, "<text class=\"axis-title\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"middle\">live bytes</text>\n</g>\n",
		left + plotw / 2, top + (int)n * row + 36);

	/* Legend: the kinds. */
	fprintf(out, "<g class=\"legend\" font-size=\"11\">\n");
	for (i = 0; i < 3; i++) {
		static const char *const kinds[] = { "slab", "page", "percpu" };

		fprintf(out, "<rect x=\"%zu\" y=\"34\" width=\"10\" height=\"10\" "
			"fill=\"%s\"/><text x=\"%zu\" y=\"43\">%s</text>\n",
			left + i * 80, kind_colour(kinds[i]), left + i * 80 + 14,
			kinds[i]);
	}
	fputs("</g>\n", out);

	for (i = 0; i < n; i++) {
		const struct kp_site *s = &p->sites[i];
		uint64_t b = s->bytes > 0 ? (uint64_t)s->bytes : 0;
		double w = (double)plotw * b / max;
		int y = top + (int)i * row;

		site_label(label, sizeof(label), s);
		value_label(v, sizeof(v), b, true);
		fprintf(out, "<g class=\"site\">\n<text class=\"label\" x=\"%d\" "
			"y=\"%d\" text-anchor=\"end\">", left - 6, y + 15);
		/* within the margin, 6 px from the bar and 4 from the edge */
		xml_text(out, label, LABEL_CHARS(left - 10, 12));
		fprintf(out, "</text>\n<rect class=\"bar\" x=\"%d\" y=\"%d\" "
			"width=\"%.1f\" height=\"%d\" fill=\"%s\" "
			"data-bytes=\"%" PRIu64 "\"><title>", left, y + 3, w,
			row - 6, kind_colour(s->kind), b);
		xml_text(out, label, 0);
		if (s->srcline) {
			fputs(" (", out);
			xml_text(out, s->srcline, 0);
			fputs(")", out);
			if (s->srcfunc) {
				fputs(" inlined:", out);
				xml_text(out, s->srcfunc, 0);
			}
		}
		if (s->kind) {
			fputs(" kind:", out);
			xml_text(out, s->kind, 0);
		}
		if (s->callers) {
			fputs(" callers:", out);
			xml_text(out, s->callers, 0);
		}
		fprintf(out, ": %" PRIu64 " bytes, %" PRId64 " objects</title>"
			"</rect>\n<text class=\"value\" x=\"%.1f\" y=\"%d\" "
			"font-size=\"11\">%s</text>\n</g>\n", b, s->objs,
			left + w + 4, y + 15, v);
	}
	return svg_close(out);
}

/* One histogram panel at (@x0, @y0), @w x @h; bars of the nonzero buckets. */
static void hist_panel(FILE *out, int x0, int y0, int w, int h,
		       const char *title, const char *xtitle,
		       const uint64_t *v, size_t nb, enum kp_bucket kind)
{
	uint64_t max = 1, step, t;
	double bw = (double)w / (nb ? nb : 1);
	char label[32];
	size_t i;

	for (i = 0; i < nb; i++)
		if (v[i] > max)
			max = v[i];
	step = tick_step(max, false);
	max = (max + step - 1) / step * step;
	fprintf(out, "<g class=\"panel\">\n<text class=\"panel-title\" "
		"x=\"%d\" y=\"%d\" font-weight=\"bold\">", x0, y0 - 10);
	xml_text(out, title, 0);
	fprintf(out, "</text>\n<g class=\"axis\" font-size=\"10\" "
		"fill=\"#333333\">\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"#333333\"/>\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
		"y2=\"%d\" stroke=\"#333333\"/>\n", x0, y0 + h, x0 + w, y0 + h,
		x0, y0, x0, y0 + h);
	for (t = 0; t <= max; t += step) {
		double y = y0 + h - (double)h * t / max;

		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#e5e5e5\"/>\n<text class=\"tick\" x=\"%d\" "
			"y=\"%.1f\" text-anchor=\"end\">%" PRIu64 "</text>\n",
			x0, y, x0 + w, y, x0 - 4, y + 4, t);
	}
	for (i = 0; i < nb; i++) {
		double x = x0 + bw * i + bw / 2;

		kp_hist_label(kind, i, label, sizeof(label));
		fprintf(out, "<text class=\"bucket\" x=\"%.1f\" y=\"%d\" "
			"text-anchor=\"end\" transform=\"rotate(-60 %.1f %d)\">",
			x + 3, y0 + h + 10, x + 3, y0 + h + 10);
		xml_text(out, label, 0);
		fputs("</text>\n", out);
	}
	fprintf(out, "<text class=\"axis-title\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"middle\">%s</text>\n</g>\n", x0 + w / 2,
		y0 + h + 62, xtitle);
	for (i = 0; i < nb && !v[i]; i++)
		;
	if (i == nb)
		fprintf(out, "<text class=\"empty\" x=\"%d\" y=\"%d\" "
			"text-anchor=\"middle\" fill=\"#888888\">none "
			"counted</text>\n", x0 + w / 2, y0 + h / 2);
	for (i = 0; i < nb; i++) {
		double bh = (double)h * v[i] / max;

		if (!v[i])
			continue;
		kp_hist_label(kind, i, label, sizeof(label));
		fprintf(out, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			"data-count=\"%" PRIu64 "\"><title>", x0 + bw * i + 1,
			y0 + h - bh, bw > 3 ? bw - 2 : bw, bh,
			kind == KP_B_LIFE ? palette[1] : palette[0], v[i]);
		xml_text(out, label, 0);
		fprintf(out, ": %" PRIu64 "</title></rect>\n", v[i]);
	}
	fputs("</g>\n", out);
}

int kp_plot_hist(FILE *out, const struct kp_hist *h)
{
	const int width = 1100, height = 420, pw = 460, ph = 250, y0 = 70;
	bool page = h->kind && !strcmp(h->kind, "page");
	char title[512], sub[128];
	size_t nsize = h->nsize < KP_HIST_MAX ? h->nsize : KP_HIST_MAX;
	size_t nlife = h->nlife < KP_HIST_MAX ? h->nlife : KP_HIST_MAX;
	size_t last;

	/*
	 * Page orders: to the buddy's largest order, or to the largest
	 * counted (a gigantic hugetlb folio), not to the view's 20th.
	 */
	if (page) {
		for (last = nsize; last > 0 && !h->size[last - 1]; last--)
			;
		if (last < PLOT_MAX_ORDER + 1)
			last = PLOT_MAX_ORDER + 1;
		if (last < nsize)
			nsize = last;
	}

	snprintf(title, sizeof(title), "kmemprof: %s%s%s%s kind:%s%s%s",
		 h->site, h->tag.module ? " [" : "",
		 h->tag.module ? h->tag.module : "", h->tag.module ? "]" : "",
		 h->kind ? h->kind : "?", h->tag.callers ? " callers:" : "",
		 h->tag.callers ? h->tag.callers : "");
	svg_open(out, width, height, title);
	snprintf(sub, sizeof(sub), "xcpu %" PRIu64 ", xcluster %" PRIu64
		 ", frag %.1f%%, waste %" PRId64 " bytes", h->xcpu, h->xcluster,
		 h->frag, h->waste);
	fputs("<text class=\"subtitle\" x=\"12\" y=\"42\" fill=\"#555555\">",
	      out);
	xml_text(out, sub, 0);
	fputs("</text>\n", out);
	hist_panel(out, 70, y0, pw, ph, page ?
		   "allocations by order (block size)" :
		   "allocations by size", page ? "block size" : "size (bytes)",
		   h->size, nsize, page ? KP_B_ORDER : KP_B_SIZE);
	hist_panel(out, 70 + pw + 90, y0, pw, ph, "paired frees by lifetime",
		   "lifetime", h->life, nlife, KP_B_LIFE);
	return svg_close(out);
}

struct rank {
	size_t i;
	int64_t max;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;

	if (x->max != y->max)
		return x->max < y->max ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int kp_plot_series(FILE *out, const struct kp_series *s)
{
	const int width = 1100, height = 520, left = 80, top = 50, pw = 600,
		  ph = 400;
	uint64_t max = 1, step, t;
	double t0, span, tstep, x, y;
	struct rank *r;
	size_t i, j, n;
	char v[32], title[160];

	r = calloc(s->nsite ? s->nsite : 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 0; i < s->nsite; i++) {
		r[i].i = i;
		for (j = 0; j < s->nt; j++)
			if (s->live[i * s->nt + j] > r[i].max)
				r[i].max = s->live[i * s->nt + j];
	}
	qsort(r, s->nsite, sizeof(*r), cmp_rank);
	for (n = 0; n < s->nsite && n < SERIES_MAX && r[n].max > 0; n++)
		if ((uint64_t)r[n].max > max)
			max = r[n].max;
	step = tick_step(max, true);
	max = (max + step - 1) / step * step;
	t0 = s->nt ? s->t[0] : 0;
	span = s->nt > 1 ? s->t[s->nt - 1] - t0 : 1;
	if (span <= 0)
		span = 1;

	snprintf(title, sizeof(title), "kmemprof: live bytes over %.0f s, "
		 "top %zu of %zu call sites", s->nt > 1 ? span : 0.0, n,
		 s->nsite);
	svg_open(out, width, height, title);
	fprintf(out, "<g class=\"axis\" font-size=\"11\" fill=\"#333333\">\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"#333333\"/>\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
		"y2=\"%d\" stroke=\"#333333\"/>\n", left, top + ph, left + pw,
		top + ph, left, top, left, top + ph);
	for (t = 0; t <= max; t += step) {
		y = top + ph - (double)ph * t / max;
		value_label(v, sizeof(v), t, true);
		fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#e5e5e5\"/>\n<text class=\"tick\" x=\"%d\" "
			"y=\"%.1f\" text-anchor=\"end\">%s</text>\n", left, y,
			left + pw, y, left - 4, y + 4, v);
	}
	tstep = tick_step((uint64_t)(span + 0.5), false);
	for (x = 0; x <= span + 1e-9; x += tstep) {
		double px = left + pw * x / span;

		fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" "
			"text-anchor=\"middle\">%.0f</text>\n", px, top + ph + 16,
			x);
	}
	fprintf(out, "<text class=\"axis-title\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"middle\">seconds</text>\n<text "
		"class=\"axis-title\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 %d %d)\">live bytes</text>\n</g>\n",
		left + pw / 2, top + ph + 36, left - 58, top + ph / 2,
		left - 58, top + ph / 2);

	for (i = 0; i < n; i++) {
		const int64_t *l = &s->live[r[i].i * s->nt];

		fprintf(out, "<polyline class=\"line\" fill=\"none\" "
			"stroke=\"%s\" stroke-width=\"2\" points=\"",
			palette[i]);
		for (j = 0; j < s->nt; j++) {
			x = left + pw * (s->t[j] - t0) / span;
			y = top + ph - (double)ph * (l[j] > 0 ? l[j] : 0) / max;
			fprintf(out, "%s%.1f,%.1f", j ? " " : "", x, y);
		}
		fputs("\"><title>", out);
		xml_text(out, s->site[r[i].i], 0);
		fputs("</title></polyline>\n", out);
		/* The points read, where there are few enough to see. */
		for (j = 0; s->nt <= 60 && j < s->nt; j++) {
			x = left + pw * (s->t[j] - t0) / span;
			y = top + ph - (double)ph * (l[j] > 0 ? l[j] : 0) / max;
			fprintf(out, "<circle class=\"point\" cx=\"%.1f\" "
				"cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", x, y,
				palette[i]);
		}
		/* Legend. */
		fprintf(out, "<g class=\"legend\"><rect x=\"%d\" y=\"%zu\" "
			"width=\"14\" height=\"4\" fill=\"%s\"/><text "
			"class=\"label\" x=\"%d\" y=\"%zu\" font-size=\"11\">",
			left + pw + 20, top + 6 + i * 20, palette[i],
			left + pw + 40, top + 12 + i * 20);
		xml_text(out, s->site[r[i].i], 52);
		fputs("</text></g>\n", out);
	}
	free(r);
	return svg_close(out);
}

static const char *const mline_colour[KP_ML_NR] = {
	[KP_ML_FREE] = "#e3e3e3",
	[KP_ML_PCP] = "#c8c8c8",
	[KP_ML_SLAB] = "#4e79a7",
	[KP_ML_PGTABLE] = "#f28e2b",
	[KP_ML_ANON] = "#59a14f",
	[KP_ML_FILE] = "#76b7b2",
	[KP_ML_STACK] = "#edc948",
	[KP_ML_PERCPU] = "#ff9da7",
	[KP_ML_HUGETLB] = "#bab0ac",
	[KP_ML_OTHER] = "#9c755f",
	[KP_ML_SELF] = "#b07aa1",
	[KP_ML_UNTRACKED] = "#e15759",
};

/*
 * One stacked bar at @y of the lines [@from, KP_ML_NR), each as wide as
 * its share of @total (a line below zero: no width).
 */
static void account_bar(FILE *out, const struct kp_account *a, int y,
			const char *title, size_t from, int64_t total)
{
	const int left = 170, width = 800, h = 34;
	double x = left;
	char v[32];
	size_t i;

	value_label(v, sizeof(v), total > 0 ? (uint64_t)total : 0, true);
	fprintf(out, "<g class=\"account-bar\">\n<text class=\"label\" "
		"x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 15);
	xml_text(out, title, 0);
	fprintf(out, "</text>\n<text class=\"label\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\" fill=\"#555555\">%s</text>\n", left - 8,
		y + 30, v);
	for (i = from; i < KP_ML_NR; i++) {
		const struct kp_mline_info *mi = kp_mline_info(i);
		int64_t b = a->l[i].bytes;
		double w = b > 0 && total > 0 ? (double)width * b / total : 0;

		fprintf(out, "<rect class=\"segment\" x=\"%.2f\" y=\"%d\" "
			"width=\"%.2f\" height=\"%d\" fill=\"%s\" "
			"data-category=\"%s\" data-bytes=\"%" PRId64 "\"><title>",
			x, y, w, h, mline_colour[i], mi->id, b);
		xml_text(out, mi->label, 0);
		value_label(v, sizeof(v), b > 0 ? (uint64_t)b : 0, true);
		fprintf(out, ": %s%s (%" PRId64 " bytes)</title></rect>\n",
			b < 0 ? "-" : "", b < 0 ? "below zero" : v, b);
		x += w;
	}
	fputs("</g>\n", out);
}

int kp_plot_meminfo(FILE *out, const struct kp_account *a)
{
	const int width = 1000, top = 60, legend = 190, row = 20;
	int64_t used = 0;
	char title[160], v[32], since[32], before[32], mi[32], share[16];
	double pct;
	size_t i;

	for (i = KP_ML_SLAB; i < KP_ML_NR; i++)
		if (a->l[i].bytes > 0)
			used += a->l[i].bytes;
	value_label(v, sizeof(v), a->memtotal > 0 ? a->memtotal : 0, true);
	snprintf(title, sizeof(title), "kmemprof: where all of RAM is "
		 "(MemTotal %s)", v);
	svg_open(out, width, legend + (KP_ML_NR + 3) * row, title);
	account_bar(out, a, top, "all of RAM", 0, a->memtotal);
	account_bar(out, a, top + 60, "in use (not free)", KP_ML_SLAB, used);

	fprintf(out, "<g class=\"legend\" font-size=\"11\">\n<text x=\"36\" "
		"y=\"%d\" font-weight=\"bold\">line</text><text x=\"330\" "
		"y=\"%d\" text-anchor=\"end\" font-weight=\"bold\">bytes"
		"</text><text x=\"390\" y=\"%d\" text-anchor=\"end\" "
		"font-weight=\"bold\">of RAM</text><text x=\"480\" y=\"%d\" "
		"text-anchor=\"end\" font-weight=\"bold\">since load</text>"
		"<text x=\"570\" y=\"%d\" text-anchor=\"end\" "
		"font-weight=\"bold\">before load</text><text x=\"660\" "
		"y=\"%d\" text-anchor=\"end\" font-weight=\"bold\">meminfo"
		"</text>\n", legend, legend, legend, legend, legend, legend);
	for (i = 0; i < KP_ML_NR; i++) {
		const struct kp_mline_info *m = kp_mline_info(i);
		const struct kp_account_line *l = &a->l[i];
		int y = legend + (int)(i + 1) * row;

		kp_iec(l->bytes, v, sizeof(v));
		pct = a->memtotal > 0 ? 100.0 * l->bytes / a->memtotal : 0;
		if (pct > 0 && pct < 0.05)
			snprintf(share, sizeof(share), "&lt;0.1%%");
		else
			snprintf(share, sizeof(share), "%.1f%%", pct);
		if (l->since == KP_NONE)
			snprintf(since, sizeof(since), "-");
		else
			kp_iec(l->since, since, sizeof(since));
		if (l->before == KP_NONE)
			snprintf(before, sizeof(before), "-");
		else
			kp_iec(l->before, before, sizeof(before));
		if (l->meminfo == KP_NONE)
			snprintf(mi, sizeof(mi), "-");
		else
			kp_iec(l->meminfo, mi, sizeof(mi));
		fprintf(out, "<g class=\"legend-line\" data-category=\"%s\">"
			"<rect x=\"16\" y=\"%d\" width=\"12\" height=\"12\" "
			"fill=\"%s\"/><text class=\"label\" x=\"36\" y=\"%d\">",
			m->id, y - 10, mline_colour[i], y);
		xml_text(out, m->label, 0);
		fprintf(out, "</text><text x=\"330\" y=\"%d\" "
			"text-anchor=\"end\">%s</text><text x=\"390\" y=\"%d\" "
			"text-anchor=\"end\">%s</text><text x=\"480\" "
			"y=\"%d\" text-anchor=\"end\">%s</text><text x=\"570\" "
			"y=\"%d\" text-anchor=\"end\">%s</text><text x=\"660\" "
			"y=\"%d\" text-anchor=\"end\">%s</text><text x=\"670\" "
			"y=\"%d\" fill=\"#555555\">", y, v, y, share, y,
			since, y, before, y, mi, y);
		xml_text(out, m->field ? m->field : "", 0);
		fputs("</text></g>\n", out);
	}
	kp_iec(a->reserved, v, sizeof(v));
	fprintf(out, "<text class=\"note\" x=\"16\" y=\"%d\" "
		"fill=\"#555555\">The lines add up to MemTotal. Reserved pages "
		"(memblock, kernel image, memory map), outside MemTotal: %s."
		"</text>\n</g>\n", legend + (KP_ML_NR + 2) * row, v);
	return svg_close(out);
}
