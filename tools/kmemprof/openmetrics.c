// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the profile as metrics, one family per measure, one
 * series per site, in two formats that differ only in their metadata:
 *
 * - the Prometheus text format 0.0.4 (--prometheus, and serve's default),
 *   which node_exporter's textfile collector and promtool read: a
 *   counter's HELP and TYPE lines name its series, kmemprof_allocs_total;
 * - OpenMetrics 1.0 (--openmetrics, and serve when asked): a counter's
 *   family is kmemprof_allocs and its series kmemprof_allocs_total, with
 *   UNIT lines and "# EOF" last.
 *
 * Every series carries a source label, so that two profiles (kmemprof and
 * allocinfo, or two hosts' files) can sit in one textfile directory.
 * Metric names and labels: Documentation/kmemprof-output.rst.
 *
 * Series must be unique within a family, but allocinfo repeats a line for
 * code inlined in several places (a header's function): sites with the
 * same labels are summed into one series.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "meminfo.h"
#include "output.h"
#include "profile.h"

struct om_series {
	const struct kp_site *s;	/* the first site with these labels */
	size_t first;			/* its index, for a stable order */
	int64_t v[6];			/* summed, as in enum om_value */
};

enum om_value { OM_LIVE, OM_OBJS, OM_ALLOCS, OM_FREES, OM_TOTAL, OM_REQ };

struct om_family {
	const char *name, *type, *unit, *help;
	enum om_value v;
};

static const struct om_family families[] = {
	{ "kmemprof_live_bytes", "gauge", "bytes",
	  "Bytes allocated at the call site and not yet freed.", OM_LIVE },
	{ "kmemprof_live_objects", "gauge", NULL,
	  "Objects allocated at the call site and not yet freed.", OM_OBJS },
	{ "kmemprof_allocs", "counter", NULL,
	  "Allocations at the call site since load or reset.", OM_ALLOCS },
	{ "kmemprof_frees", "counter", NULL,
	  "Frees paired with allocations at the call site.", OM_FREES },
	{ "kmemprof_allocated_bytes", "counter", "bytes",
	  "Bytes allocated at the call site since load or reset.", OM_TOTAL },
	{ "kmemprof_requested_bytes", "counter", "bytes",
	  "Bytes requested at the call site since load or reset.", OM_REQ },
};

/* diff: B - A of each value, as gauges (a delta is not a counter). */
static const struct om_family deltas[] = {
	{ "kmemprof_live_bytes_delta", "gauge", "bytes",
	  "Growth of the live bytes at the call site between two profiles.",
	  OM_LIVE },
	{ "kmemprof_live_objects_delta", "gauge", NULL,
	  "Growth of the live objects at the call site between two profiles.",
	  OM_OBJS },
	{ "kmemprof_allocs_delta", "gauge", NULL,
	  "Allocations at the call site between two profiles.", OM_ALLOCS },
	{ "kmemprof_frees_delta", "gauge", NULL,
	  "Frees at the call site between two profiles.", OM_FREES },
	{ "kmemprof_allocated_bytes_delta", "gauge", "bytes",
	  "Bytes allocated at the call site between two profiles.", OM_TOTAL },
};

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return !!a - !!b;
	return strcmp(a, b);
}

static int cmp_labels(const struct kp_site *a, const struct kp_site *b)
{
	int c;

	if ((c = cmp_str(a->site, b->site)) || (c = cmp_str(a->func, b->func)) ||
	    (c = cmp_str(a->module, b->module)) ||
	    (c = cmp_str(a->kind, b->kind)))
		return c;
	return cmp_str(a->callers, b->callers);
}

static int cmp_series_labels(const void *a, const void *b)
{
	const struct om_series *x = a, *y = b;
	int c = cmp_labels(x->s, y->s);

	if (c)
		return c;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_series_first(const void *a, const void *b)
{
	const struct om_series *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* A label value: '\\', '"' and newline escaped (escape.c's policy). */
static void om_value(FILE *out, const char *str)
{
	if (str)
		kp_escape(out, str, strlen(str), &kp_gr_om);
}

static void om_labels(FILE *out, const char *source, const struct kp_site *s)
{
	fputs("{source=\"", out);
	om_value(out, source);
	fputs("\",site=\"", out);
	om_value(out, s->site);
	fputs("\",func=\"", out);
	om_value(out, s->func);
	fputs("\",module=\"", out);
	om_value(out, s->module);
	fputc('"', out);
	if (s->kind) {
		fputs(",kind=\"", out);
		om_value(out, s->kind);
		fputc('"', out);
	}
	if (s->callers) {
		fputs(",callers=\"", out);
		om_value(out, s->callers);
		fputc('"', out);
	}
	fputc('}', out);
}

static void add(int64_t *sum, int64_t v, bool first, bool delta)
{
	if (first)
		*sum = v;
	else if (delta)
		*sum += v;
	else if (v >= 0 && *sum >= 0)
		*sum += v;
	else if (v >= 0)
		*sum = v;
}

/* One series per distinct label set, in the order of first appearance. */
static struct om_series *om_series(const struct kp_profile *p, size_t np,
				    size_t *nr)
{
	struct om_series *sr = calloc(np ? np : 1, sizeof(*sr));
	size_t i, j, n = 0;

	if (!sr)
		return NULL;
	for (i = 0; i < np; i++) {
		sr[i].s = &p->sites[i];
		sr[i].first = i;
	}
	qsort(sr, np, sizeof(*sr), cmp_series_labels);
	for (i = 0; i < np; i = j) {
		struct om_series m = sr[i];

		for (j = i; j < np && !cmp_labels(sr[j].s, m.s); j++) {
			const struct kp_site *s = sr[j].s;
			bool first = j == i;

			/* Live values are always there, negative or not. */
			m.v[OM_LIVE] = (first ? 0 : m.v[OM_LIVE]) + s->bytes;
			m.v[OM_OBJS] = (first ? 0 : m.v[OM_OBJS]) + s->objs;
			/* Deltas are signed: no value is "absent" there. */
			add(&m.v[OM_ALLOCS], s->allocs, first, p->delta);
			add(&m.v[OM_FREES], s->frees, first, p->delta);
			add(&m.v[OM_TOTAL], s->total, first, p->delta);
			add(&m.v[OM_REQ], s->req, first, p->delta);
		}
		sr[n++] = m;
	}
	qsort(sr, n, sizeof(*sr), cmp_series_first);
	*nr = n;
	return sr;
}

/* A family's metadata: in the text format, under its series' name. */
static void om_meta(FILE *out, const struct om_family *fm, bool om)
{
	const char *total = !om && !strcmp(fm->type, "counter") ? "_total" :
			    "";

	fprintf(out, "# HELP %s%s %s\n", fm->name, total, fm->help);
	fprintf(out, "# TYPE %s%s %s\n", fm->name, total, fm->type);
	if (om && fm->unit)
		fprintf(out, "# UNIT %s %s\n", fm->name, fm->unit);
}

/*
 * The whole-RAM account (meminfo.c) as gauges: kmemprof_meminfo_bytes, one
 * series a line, adds up to kmemprof_meminfo_total_bytes (MemTotal).
 */
static void account_families(FILE *out, const struct kp_account *a,
			     const char *source, bool om)
{
	static const struct om_family fams[] = {
		{ "kmemprof_meminfo_total_bytes", "gauge", "bytes",
		  "MemTotal: all of RAM that the kernel manages.", OM_LIVE },
		{ "kmemprof_meminfo_bytes", "gauge", "bytes",
		  "All of RAM by where it is, kmemprof's whole-RAM account: "
		  "the series add up to MemTotal.", OM_LIVE },
		{ "kmemprof_meminfo_since_load_bytes", "gauge", "bytes",
		  "Of a line of the account, what is on call sites' lines.",
		  OM_LIVE },
		{ "kmemprof_meminfo_before_load_bytes", "gauge", "bytes",
		  "Of a line of the account, what is on before_load lines.",
		  OM_LIVE },
		{ "kmemprof_meminfo_reported_bytes", "gauge", "bytes",
		  "What /proc/meminfo says of a line's category.", OM_LIVE },
		{ "kmemprof_meminfo_reserved_bytes", "gauge", "bytes",
		  "Reserved pages (before_load:reserved), outside MemTotal.",
		  OM_LIVE },
	};
	size_t f, i;

	for (f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		om_meta(out, &fams[f], om);
		if (f == 0 || f == 5) {
			fprintf(out, "%s{source=\"", fams[f].name);
			om_value(out, source);
			fprintf(out, "\"} %" PRId64 "\n",
				f ? a->reserved : a->memtotal);
			continue;
		}
		for (i = 0; i < KP_ML_NR; i++) {
			const struct kp_mline_info *mi = kp_mline_info(i);
			const struct kp_account_line *l = &a->l[i];
			int64_t v = f == 1 ? l->bytes : f == 2 ? l->since :
				    f == 3 ? l->before : l->meminfo;

			/* without zoneinfo, the per-CPU lists are unknown */
			if (v == KP_NONE ||
			    (i == KP_ML_PCP && !a->have_zoneinfo))
				continue;
			fprintf(out, "%s{source=\"", fams[f].name);
			om_value(out, source);
			fprintf(out, "\",category=\"%s\"", mi->id);
			if (f == 4) {
				fputs(",field=\"", out);
				om_value(out, mi->field);
				fputc('"', out);
			}
			fprintf(out, "} %" PRId64 "\n", v);
		}
	}
}

/*
 * The owners view summed per owner: kmemprof_owners counts them, and
 * the largest @o->owners_max have a series each in the two gauges, the
 * rest summed in owner="other" (always there: a sum over the owners
 * stays one query). Bounded: a machine that starts many processes makes
 * a series of each only while it is among the largest.
 */
static void owner_families(FILE *out, const struct kp_metrics_opts *o,
			   const char *source, bool om)
{
	static const struct om_family fams[] = {
		{ "kmemprof_owner_live_bytes", "gauge", "bytes",
		  "Bytes allocated for the owner (a process, a cgroup, a "
		  "kernel thread) and not yet freed, over every call site; "
		  "the largest owners, the rest summed as owner other.",
		  OM_LIVE },
		{ "kmemprof_owner_live_objects", "gauge", NULL,
		  "Objects allocated for the owner and not yet freed, over "
		  "every call site; the largest owners, the rest summed as "
		  "owner other.", OM_OBJS },
	};
	static const struct om_family count = { "kmemprof_owners", "gauge",
		NULL, "Owners with live objects in the owners view.", OM_LIVE };
	size_t f, i, max = o->owners_max && o->owners_max < o->nowners ?
			   o->owners_max : o->nowners;
	int64_t rest;

	om_meta(out, &count, om);
	fputs("kmemprof_owners{source=\"", out);
	om_value(out, source);
	fprintf(out, "\"} %zu\n", o->nowners);
	for (f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		om_meta(out, &fams[f], om);
		for (i = 0, rest = 0; i < o->nowners; i++) {
			int64_t v = fams[f].v == OM_LIVE ? o->owners[i].bytes :
				    o->owners[i].objs;

			if (i >= max) {
				rest += v;
				continue;
			}
			fprintf(out, "%s{source=\"", fams[f].name);
			om_value(out, source);
			fputs("\",owner=\"", out);
			om_value(out, o->owners[i].owner);
			fprintf(out, "\"} %" PRId64 "\n", v);
		}
		fprintf(out, "%s{source=\"", fams[f].name);
		om_value(out, source);
		fprintf(out, "\",owner=\"other\"} %" PRId64 "\n", rest);
	}
}

int kp_out_metrics(FILE *out, const struct kp_profile *p,
		   const struct kp_metrics_opts *o)
{
	static const struct om_family sites = { "kmemprof_sites", "gauge", NULL,
		"Call sites (tags) in the profile.", OM_LIVE };
	static const struct om_family inacc = { "kmemprof_inaccurate_sites",
		"gauge", NULL, "Call sites whose counts a drop or a lost pairing "
		"touched (accurate:no).", OM_LIVE };
	const struct om_family *fams = p->delta ? deltas : families;
	size_t nfam = p->delta ? sizeof(deltas) / sizeof(deltas[0]) :
		      sizeof(families) / sizeof(families[0]);
	size_t np = o->max && o->max < p->n ? o->max : p->n;
	const char *source = o->source ? o->source :
			     p->source == KP_ALLOCINFO ? "allocinfo" : "kmemprof";
	struct om_series *sr;
	size_t i, f, n, inaccurate = 0;

	sr = om_series(p, np, &n);
	if (!sr)
		return -ENOMEM;
	for (i = 0; i < p->n; i++)
		inaccurate += p->sites[i].inaccurate;
	om_meta(out, &sites, o->openmetrics);
	fputs("kmemprof_sites{source=\"", out);
	om_value(out, source);
	fprintf(out, "\"} %zu\n", p->n);
	om_meta(out, &inacc, o->openmetrics);
	fputs("kmemprof_inaccurate_sites{source=\"", out);
	om_value(out, source);
	fprintf(out, "\"} %zu\n", inaccurate);
	for (f = 0; f < nfam; f++) {
		const struct om_family *fm = &fams[f];
		bool counter = !strcmp(fm->type, "counter");

		for (i = 0; i < n; i++)
			if (fm->v <= OM_OBJS || sr[i].v[fm->v] >= 0 || p->delta)
				break;
		if (i == n)
			continue;	/* not in this source */
		om_meta(out, fm, o->openmetrics);
		for (i = 0; i < n; i++) {
			int64_t v = sr[i].v[fm->v];

			if (v < 0 && fm->v > OM_OBJS && !p->delta)
				continue;
			fprintf(out, "%s%s", fm->name, counter ? "_total" : "");
			om_labels(out, source, sr[i].s);
			fprintf(out, " %" PRId64 "\n", v);
		}
	}
	if (o->owners_on)
		owner_families(out, o, source, o->openmetrics);
	if (o->account)
		account_families(out, o->account, source, o->openmetrics);
	if (o->openmetrics)
		fputs("# EOF\n", out);
	free(sr);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

int kp_out_account_metrics(FILE *out, const struct kp_account *a,
			   const struct kp_metrics_opts *o)
{
	account_families(out, a, o->source ? o->source : "kmemprof",
			 o->openmetrics);
	if (o->openmetrics)
		fputs("# EOF\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

int kp_out_owner_metrics(FILE *out, const struct kp_metrics_opts *o)
{
	owner_families(out, o, o->source ? o->source : "kmemprof",
		       o->openmetrics);
	if (o->openmetrics)
		fputs("# EOF\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
