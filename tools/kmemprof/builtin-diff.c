// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof diff: growth per site between two snapshots.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#endif

static int diff_machine(const struct kp_diff *d, const struct kp_opts *o)
{
	struct kp_profile g = { .source = KP_KMEMPROF, .version = "1.0",
				.delta = true };
	size_t i, n = kp_series(o) ? d->n : kp_machine_sites(o, d->n);
	int rc;

	/* The growth as a profile: each value is B - A. */
	g.sites = calloc(d->n + 1, sizeof(*g.sites));
	if (!g.sites)
		return 1;
	for (i = 0; i < n; i++) {
		struct kp_site *s = &g.sites[g.n++];

		*s = *kp_delta_site(&d->v[i]);
		s->srcline = NULL;
		s->srcfunc = NULL;
		s->bytes = d->v[i].bytes;
		s->objs = d->v[i].objs;
		s->allocs = d->v[i].allocs;
		s->frees = d->v[i].frees;
		s->total = d->v[i].total;
		s->req = -1;
	}
	rc = kp_emit(o, &g, kp_series(o) ? kp_machine_sites(o, g.n) : 0,
		     NULL);
	free(g.sites);
	return rc;
}

/* @v with its sign, as GROWTH shows it: "+3", "-3", and "0" unsigned. */
static const char *signed_cell(int64_t v, char *buf, size_t len)
{
	snprintf(buf, len, v ? "%+" PRId64 : "0", v);
	return buf;
}

/*
 * A diff read the wrong way round still prints B - A, and says so on
 * stderr rather than refusing: "diff B A" is a fair question (what the
 * older one held that the newer does not), and a script may ask it. With
 * the snapshots' times (kmemprof snapshot), it names the newer one; without
 * them, allocations counting back at matched sites are the sign (they
 * only grow, until a reload or kmemprof reset).
 */
static void diff_order(const struct kp_opts *o, const struct kp_profile *a,
		       const struct kp_profile *b, const struct kp_diff *d)
{
	size_t i, back = 0;

	if (a->time > 0 && b->time > 0 && a->time > b->time) {
		kp_err("%s is %.1f s newer than %s: each number is B minus A, so allocations count back; the growth since %s is 'kmemprof diff %s %s'",
		       o->args[0], a->time - b->time, o->args[1], o->args[1],
		       o->args[1], o->args[0]);
		return;
	}
	for (i = 0; i < d->n; i++)
		back += d->v[i].a && d->v[i].b && d->v[i].allocs < 0;
	if (back)
		kp_err("allocations went back at %zu site%s: %s is older than %s, or the counters were reset between them (a reload, kmemprof reset)",
		       back, back == 1 ? "" : "s", o->args[1], o->args[0]);
}

static int run(struct kp_opts *o)
{
	struct kp_profile a, b;
	char g[32], la[32], lb[32];
	int64_t sum = 0;
	size_t i, grew = 0, born = 0, gone = 0, shown = 0;
	struct kp_diff d;
	int rc = 1;

	if (o->nargs != 2) {
		kp_err("two snapshots: kmemprof diff A B");
		return 2;
	}
	if (kp_load(o->args[0], &a, NULL, NULL))
		return 1;
	if (kp_load(o->args[1], &b, NULL, NULL))
		goto out_a;
	if (kp_keys_check(o, &a, o->args[0]) ||
	    kp_keys_check(o, &b, o->args[1])) {
		rc = 2;
		goto out_b;
	}
	if (a.source != b.source) {
		fprintf(stderr, "kmemprof: diff: %s is %s profile and %s %s one; their sites cannot match\n",
			o->args[0], a.source == KP_ALLOCINFO ? "an allocinfo" :
			"a kmemprof", o->args[1], b.source == KP_ALLOCINFO ?
			"an allocinfo" : "a kmemprof");
		goto out_b;
	}
	{
		/* --min-bytes is about growth here, not live bytes. */
		struct kp_opts fo = *o;

		fo.filter.min_bytes = 0;
		if (kp_filter(&a, &fo) || kp_filter(&b, &fo) || kp_resolve_opt(o, &b))
			goto out_b;
	}
	if (kp_diff(&a, &b, &d)) {
		fprintf(stderr, "kmemprof: out of memory\n");
		goto out_b;
	}
	diff_order(o, &a, &b, &d);
	/* kp_diff() ordered them by growth, diff's default. */
	if (o->key_set)
		kp_sort_deltas(d.v, d.n, &o->keys, false);
	if (o->filter.min_bytes) {
		size_t k = 0;

		for (i = 0; i < d.n; i++)
			if (d.v[i].bytes >= o->filter.min_bytes)
				d.v[k++] = d.v[i];
		d.n = k;
	}
	if (kp_machine(o)) {
		rc = diff_machine(&d, o);
		goto out_d;
	}
	for (i = 0; i < d.n; i++) {
		sum += d.v[i].bytes;
		grew += d.v[i].bytes > 0;
		born += !d.v[i].a;
		gone += !d.v[i].b;
	}
	kp_cell(sum < 0 ? -sum : sum, o->human, g, sizeof(g));
	printf("%s -> %s", o->args[0], o->args[1]);
	if (d.dt > 0)
		printf(" (%.1f s)", d.dt);
	printf(": live %s%s bytes; %zu site%s grew, %zu new, %zu gone\n",
	       sum < 0 ? "-" : sum ? "+" : "", g, grew, grew == 1 ? "" : "s",
	       born, gone);
	printf("%12s %12s %12s %9s %9s %-6s %s\n", "GROWTH", "LIVE A",
	       "LIVE B", "OBJS", "ALLOCS", "KIND", "SITE");
	for (i = 0; i < d.n && (!o->n || shown < (size_t)o->n); i++) {
		const struct kp_delta *x = &d.v[i];
		const struct kp_site *s = kp_delta_site(x);
		char gb[40], ob[24], al[24];

		if (!x->bytes && !x->allocs && !x->objs)
			continue;	/* nothing happened here */
		shown++;
		kp_cell(x->bytes < 0 ? -x->bytes : x->bytes, o->human, g,
			sizeof(g));
		snprintf(gb, sizeof(gb), "%s%s", x->bytes < 0 ? "-" :
			 x->bytes ? "+" : "", g);
		kp_cell(x->a ? x->a->bytes : 0, o->human, la, sizeof(la));
		kp_cell(x->b ? x->b->bytes : 0, o->human, lb, sizeof(lb));
		printf("%12s %12s %12s %9s %9s %-6s ", gb,
		       x->a ? la : "(new)", x->b ? lb : "(gone)",
		       signed_cell(x->objs, ob, sizeof(ob)),
		       signed_cell(x->allocs, al, sizeof(al)),
		       s->kind ? s->kind : "-");
		kp_print_site_name(stdout, s->site, s->module, s->func,
				s->callers);
		kp_print_srcline(stdout, s->srcline, s->srcfunc);
		putchar('\n');
	}
	rc = 0;
out_d:
	kp_diff_free(&d);
out_b:
	kp_free(&b);
out_a:
	kp_free(&a);
	return rc;
}


const struct kp_cmd kp_cmd_diff = {
	.name = "diff", .args = "A B", .what = "growth per site between two snapshots",
	.max_args = 2,
	.opts = (const struct kp_option *const[]){
		&kp_opt_sort, &kp_opt_lines, &kp_opt_human, &kp_opt_kind,
		&kp_opt_module, &kp_opt_func, &kp_opt_min_growth, &kp_opt_json,
		&kp_opt_csv, &kp_opt_prometheus, &kp_opt_openmetrics,
		&kp_opt_source, &kp_opt_resolve, NULL,
	},
	.run = run,
};
