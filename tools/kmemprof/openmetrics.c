// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the profile in the OpenMetrics 1.0 text format, one
 * family per measure, one series per site, "# EOF" last. Metric names and
 * labels: Documentation/kmemprof-output.rst.
 *
 * Series must be unique within a family, but allocinfo repeats a line for
 * code inlined in several places (a header's function): sites with the
 * same labels are summed into one series.
 *
 * node_exporter's textfile collector reads the older Prometheus text
 * format, to which "# UNIT" and "# EOF" are comments; it takes the
 * counters' "_total" series as untyped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "profile.h"

struct om_series {
	const struct kp_site *s;	/* the first site with these labels */
	size_t first;			/* its index, for a stable order */
	int64_t v[6];			/* summed, as in enum om_value */
};

enum om_value { OM_LIVE, OM_OBJS, OM_ALLOCS, OM_FREES, OM_TOTAL, OM_REQ };

static const struct om_family {
	const char *name, *type, *unit, *help;
	enum om_value v;
} families[] = {
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

/* A label value: '\\', '"' and newline escaped, invalid UTF-8 as '?'. */
static void om_value(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t n;

	while (*s) {
		const unsigned char *run = s;

		while (*s && *s < 0x80 && *s != '\\' && *s != '"' && *s != '\n')
			s++;
		if (s > run)
			fwrite(run, 1, s - run, out);
		if (!*s)
			break;
		if (*s == '\\' || *s == '"') {
			fprintf(out, "\\%c", *s++);
		} else if (*s == '\n') {
			fputs("\\n", out);
			s++;
		} else if ((n = kp_utf8_len(s))) {
			fwrite(s, 1, n, out);
			s += n;
		} else {
			fputc('?', out);
			s++;
		}
	}
}

static void om_labels(FILE *out, const struct kp_site *s)
{
	fputs("{site=\"", out);
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

static void add(int64_t *sum, int64_t v, bool first)
{
	if (first)
		*sum = v;
	else if (v >= 0 && *sum >= 0)
		*sum += v;
	else if (v >= 0)
		*sum = v;
}

/* One series per distinct label set, in the order of first appearance. */
static struct om_series *om_series(const struct kp_profile *p, size_t *nr)
{
	struct om_series *sr = calloc(p->n ? p->n : 1, sizeof(*sr));
	size_t i, j, n = 0;

	if (!sr)
		return NULL;
	for (i = 0; i < p->n; i++) {
		sr[i].s = &p->sites[i];
		sr[i].first = i;
	}
	qsort(sr, p->n, sizeof(*sr), cmp_series_labels);
	for (i = 0; i < p->n; i = j) {
		struct om_series m = sr[i];

		for (j = i; j < p->n && !cmp_labels(sr[j].s, m.s); j++) {
			const struct kp_site *s = sr[j].s;
			bool first = j == i;

			/* Live values are always there, negative or not. */
			m.v[OM_LIVE] = (first ? 0 : m.v[OM_LIVE]) + s->bytes;
			m.v[OM_OBJS] = (first ? 0 : m.v[OM_OBJS]) + s->objs;
			add(&m.v[OM_ALLOCS], s->allocs, first);
			add(&m.v[OM_FREES], s->frees, first);
			add(&m.v[OM_TOTAL], s->total, first);
			add(&m.v[OM_REQ], s->req, first);
		}
		sr[n++] = m;
	}
	qsort(sr, n, sizeof(*sr), cmp_series_first);
	*nr = n;
	return sr;
}

int kp_out_openmetrics(FILE *out, const struct kp_profile *p)
{
	struct om_series *sr;
	size_t i, f, n, inaccurate = 0;

	sr = om_series(p, &n);
	if (!sr)
		return -ENOMEM;
	for (i = 0; i < p->n; i++)
		inaccurate += p->sites[i].inaccurate;
	fputs("# TYPE kmemprof_sites gauge\n"
	      "# HELP kmemprof_sites Call sites (tags) in the profile.\n",
	      out);
	fprintf(out, "kmemprof_sites %zu\n", p->n);
	fputs("# TYPE kmemprof_inaccurate_sites gauge\n"
	      "# HELP kmemprof_inaccurate_sites Call sites whose counts a drop "
	      "or a lost pairing touched (accurate:no).\n", out);
	fprintf(out, "kmemprof_inaccurate_sites %zu\n", inaccurate);
	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		const struct om_family *fm = &families[f];
		bool counter = !strcmp(fm->type, "counter");

		for (i = 0; i < n; i++)
			if (fm->v <= OM_OBJS || sr[i].v[fm->v] >= 0)
				break;
		if (i == n)
			continue;	/* not in this source */
		fprintf(out, "# TYPE %s %s\n", fm->name, fm->type);
		if (fm->unit)
			fprintf(out, "# UNIT %s %s\n", fm->name, fm->unit);
		fprintf(out, "# HELP %s %s\n", fm->name, fm->help);
		for (i = 0; i < n; i++) {
			int64_t v = sr[i].v[fm->v];

			if (v < 0 && fm->v > OM_OBJS)
				continue;
			fprintf(out, "%s%s", fm->name, counter ? "_total" : "");
			om_labels(out, sr[i].s);
			fprintf(out, " %" PRId64 "\n", v);
		}
	}
	fputs("# EOF\n", out);
	free(sr);
	return fflush(out) || ferror(out) ? -EIO : 0;
}
