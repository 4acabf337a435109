// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof top: call sites by live memory, the default command; its rows
 * through the tables' one printer (kp_obuf, cli.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "jsonstr.h"
#include "util.h"
#include "viewcmd.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#include "redact.h"
#endif

/*
 * The oldest live object of each site, from the ages view: each tag's
 * oldest age bucket, joined to the sites by numbered key (kp_tagkey(), as
 * diff matches them). The view lists the tags with live objects only:
 * match it against those, so that repeated tags (a module loaded again)
 * pair in order.
 */
static int add_ages(struct kp_profile *p, const struct kp_opts *o)
{
	char path[512], err[512], key[KP_KEY_LEN + 24];
	struct kp_tagkeys ta, tp;
	struct kp_keymap m;
	struct kp_ages a;
	int64_t *age;
	size_t i, b;
	bool added;
	FILE *in;
	long k;
	int rc;

	if (o->ages)
		snprintf(path, sizeof(path), "%s", o->ages);
	else
		kp_path(DEBUGFS "/ages", path, sizeof(path));
	in = kp_open(path);
	if (!in)
		return -1;
	rc = kp_parse_ages(in, path, &a, err, sizeof(err));
	fclose(in);
	if (rc) {
		fprintf(stderr, "kmemprof: %s\n", err);
		return -1;
	}
	rc = -1;
	age = calloc(a.n + 1, sizeof(*age));
	if (!age || kp_keymap_init(&m, a.n))
		goto out_age;
	if (kp_tagkeys_init(&ta, a.n))
		goto out_m;
	if (kp_tagkeys_init(&tp, p->n))
		goto out_ta;
	for (i = 0; i < a.n; i++) {
		if (!kp_tagkey(&ta, &a.v[i].tag, key, sizeof(key)))
			goto out;
		k = kp_keymap_get(&m, key, true, &added);
		if (k < 0)
			goto out;
		for (b = a.v[i].nage; b > 0; b--)
			if (a.v[i].age[b - 1])
				break;
		age[k] = b ? (int64_t)(kp_hist_lower(KP_B_LIFE, b - 1) /
				       1000000) : 0;
	}
	for (i = 0; i < p->n; i++) {
		if (p->sites[i].objs <= 0)
			continue;
		if (!kp_tagkey(&tp, &p->sites[i], key, sizeof(key)))
			goto out;
		k = kp_keymap_get(&m, key, false, &added);
		if (k >= 0)
			p->sites[i].age_ms = age[k];
	}
	rc = 0;
out:
	kp_tagkeys_free(&tp);
out_ta:
	kp_tagkeys_free(&ta);
out_m:
	kp_keymap_free(&m);
out_age:
	free(age);
	kp_ages_free(&a);
	return rc;
}

/* Live bytes an object, rounded, or -1 for none. */
static int64_t avg(const struct kp_site *s)
{
	if (s->objs <= 0 || s->bytes < 0)
		return -1;
	/* A 32-bit division is the faster, where it does. */
	if (!(((uint64_t)s->bytes | (uint64_t)s->objs) >> 31))
		return ((uint32_t)s->bytes + (uint32_t)s->objs / 2) /
		       (uint32_t)s->objs;
	return kp_avg(s);
}

/* Sites ahead whose text top fetches before it prints them. */
#define PREFETCH 8

static void print_top(const struct kp_profile *p, const struct kp_opts *o)
{
	static char buf[1 << 16];
	struct kp_obuf ob = KP_OBUF(stdout, buf);
	char x[3 * 16] = "", a[24];
	enum kp_key col[3];	/* the columns of the keys: rate, age, frag */
	size_t i, j, k, ncol = 0, n = p->n;
	const char *t;
	char *q;

	for (i = 0; i < o->keys.n; i++) {
		enum kp_key c = o->keys.k[i];

		if (c != KP_RATE && c != KP_AGE && c != KP_FRAG)
			continue;
		for (j = 0; j < ncol && col[j] != c; j++)
			;
		if (j == ncol)
			col[ncol++] = c;
	}
	printf("%12s %8s %9s %9s ", "LIVE", "OBJS", "AVG", "ALLOCS");
	for (j = 0; j < ncol; j++)
		printf("%9s ", col[j] == KP_RATE ? "ALLOCS/S" :
		       col[j] == KP_AGE ? "AGE>=" : "FRAG");
	printf("%-6s %s\n", "KIND", "SITE");
	if (o->n && (size_t)o->n < n)
		n = (size_t)o->n;
	for (i = 0; i < n; i++) {
		const struct kp_site *s = &p->sites[i];

		if (i + PREFETCH < n) {
			__builtin_prefetch(s[PREFETCH].site);
			__builtin_prefetch(s[PREFETCH].kind);
		}
		for (j = 0, k = 0; j < ncol; j++) {
			char *c = x + k;
			size_t room = sizeof(x) - k;

			if (col[j] == KP_RATE) {
				snprintf(c, room, "%9.1f ", s->rate);
			} else if (col[j] == KP_AGE) {
				/* As the ages view: 850ms, 4.3s, 12.5m, 3.1h */
				kp_view_age(s->age_ms, a, sizeof(a));
				snprintf(c, room, "%9s ", a);
			} else {
				int64_t f = kp_frag(s);

				if (f < 0)
					snprintf(c, room, "%9s ", "-");
				else
					snprintf(c, room, "%6" PRId64 ".%" PRId64
						 "%% ", f / 10, f % 10);
			}
			k += strlen(c);
		}
		/*
		 * As printf("%12s %8s %9s %9s %s%-6s %s" and the optional
		 * parts, "\n") would: four cells of up to 31 bytes and x.
		 */
		kp_ob_room(&ob, 4 * 32 + sizeof(x));
		q = kp_put_cell(ob.p, s->bytes, false, o->human, 12);
		*q++ = ' ';
		q = kp_put_cell(q, s->objs, true, false, 8);
		*q++ = ' ';
		q = kp_put_cell(q, avg(s), true, o->human, 9);
		*q++ = ' ';
		q = kp_put_cell(q, s->allocs, true, false, 9);
		*q++ = ' ';
		k = strlen(x);
		memcpy(q, x, k);
		ob.p = q + k;
		t = s->kind ? s->kind : "-";
		k = strlen(t);
		kp_ob_put(&ob, t, k);
		kp_ob_put(&ob, "       ", k < 6 ? 7 - k : 1);
		kp_ob_tag(&ob, s);
		if (s->inaccurate)
			kp_ob_put(&ob, " (inaccurate)", 13);
		if (s->unloaded)
			kp_ob_put(&ob, " (unloaded)", 11);
		kp_ob_put(&ob, "\n", 1);
	}
	kp_ob_flush(&ob);
}

/*
 * top --by owner|cgroup: the owners view's lines summed per owner, over
 * the sites that pass --kind, --module and --func; --min-bytes is the
 * owner's.
 */
static void print_owners(const struct kp_owner_data *d, size_t n,
			 const struct kp_opts *o)
{
	char b[32], avg[32];
	size_t i;

	printf("%12s %8s %9s %9s %6s %s\n", "LIVE", "OBJS", "AVG", "ALLOCS",
	       "SITES", o->by == KP_BY_CGROUP ? "CGROUP" : "OWNER");
	for (i = 0; i < n; i++) {
		const struct kp_osum *s = &d->sums[i];

		kp_cell(s->bytes, o->human, b, sizeof(b));
		kp_cell(s->objs > 0 ? kp_ratio_round(s->bytes, s->objs, 1) : -1,
			o->human, avg, sizeof(avg));
		printf("%12s %8" PRId64 " %9s %9" PRId64 " %6zu %s\n", b,
		       s->objs, avg, s->allocs, s->lines, s->owner);
	}
}

static int owners_json(const struct kp_owner_data *d, size_t n,
		       const struct kp_opts *o)
{
	int64_t live = 0, objs = 0;
	size_t i;

	for (i = 0; i < d->nsums; i++) {
		live += d->sums[i].bytes;
		objs += d->sums[i].objs;
	}
	kp_view_json_begin("owners");
	printf(",\"by\":\"%s\",\"off\":%s,\"totals\":{\"owners\":%zu,"
	       "\"live_bytes\":%" PRId64 ",\"live_objects\":%" PRId64
	       "},\"owners\":[", o->by == KP_BY_CGROUP ? "cgroup" : "owner",
	       d->on ? "false" : "true", d->nsums, live, objs);
	for (i = 0; i < n; i++) {
		const struct kp_osum *s = &d->sums[i];

		fputs(i ? ",\n{\"owner\":" : "\n{\"owner\":", stdout);
		kp_json_str(stdout, s->owner);
		printf(",\"type\":\"%s\",\"live_bytes\":%" PRId64
		       ",\"live_objects\":%" PRId64 ",\"allocs\":%" PRId64
		       ",\"sites\":%zu}", kp_owner_type_name(s->type), s->bytes,
		       s->objs, s->allocs, s->lines);
	}
	fputs(n ? "\n]" : "]", stdout);
	return kp_view_json_end();
}

/* --prometheus, --openmetrics: the owners' gauges alone. */
static int owner_series(const struct kp_opts *o,
			const struct kp_owner_data *d)
{
#ifdef KP_HAVE_OUTPUTS
	struct kp_metrics_opts mo = {
		.source = o->source, .openmetrics = o->openmetrics,
		.owners_on = d->on, .owners = d->sums, .nowners = d->nsums,
		.owners_max = kp_owner_series(o),
	};

	return kp_out_owner_metrics(stdout, &mo) ? 1 : 0;
#else
	(void)o;
	(void)d;
	return kp_no_outputs();
#endif
}

static int by_owner(struct kp_opts *o)
{
	struct kp_opts vo = *o;
	struct kp_owner_data d;
	char path[512];
	size_t i, kept, n;
	int rc = 1;

	if (!vo.owners)
		vo.owners = kp_path(DEBUGFS "/owners", path, sizeof(path));
	if (kp_owner_data_load(&vo, false, &d))
		return 1;
	if (o->by == KP_BY_CGROUP && d.ow.task) {
		kp_err("--by cgroup: %s charges processes (owners=task): kmemprof set owners=cgroup, or --by owner",
		       vo.owners);
		rc = 2;
		goto out;
	}
	if (kp_owner_data_sum(o, &d))
		goto out;
	for (i = 0, kept = 0; i < d.nsums; i++)
		if (d.sums[i].bytes >= o->filter.min_bytes)
			d.sums[kept++] = d.sums[i];
	d.nsums = kept;
	kp_osums_sort(d.sums, d.nsums, &o->keys);
	n = d.nsums;
	if (kp_series(o)) {
		/* The series are of the owners with the most live bytes. */
		kp_osums_sort(d.sums, d.nsums, NULL);
		rc = owner_series(o, &d);
		goto out;
	}
	/* Tables: -n (20); the other outputs: all, unless -n is given. */
	if ((!kp_machine(o) || o->n_set) && o->n && (size_t)o->n < n)
		n = (size_t)o->n;
	if (o->json) {
		rc = owners_json(&d, n, o);
		goto out;
	}
	if (o->csv) {
#ifdef KP_HAVE_OUTPUTS
		fputs("owner,type,live_bytes,live_objects,allocs,sites\r\n",
		      stdout);
		for (i = 0; i < n; i++) {
			kp_csv_str(stdout, d.sums[i].owner);
			printf(",%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%zu\r\n",
			       kp_owner_type_name(d.sums[i].type),
			       d.sums[i].bytes, d.sums[i].objs,
			       d.sums[i].allocs, d.sums[i].lines);
		}
		rc = fflush(stdout) || ferror(stdout) ? 1 : 0;
#else
		rc = kp_no_outputs();
#endif
		goto out;
	}
	rc = 0;
	if (!n)
		fputs(kp_owners_none(&d.ow), stdout);
	else
		print_owners(&d, n, o);
out:
	kp_owner_data_free(&d);
	return rc;
}

static int run(struct kp_opts *o)
{
	bool rate = kp_keys_has(&o->keys, KP_RATE);
	struct kp_profile p, a;
	char path[512];
	double t0 = 0;
	int rc = 1;

	if (o->by != KP_BY_SITE)
		return by_owner(o);
	if (rate && !o->since && o->input) {
		kp_err("--sort rate needs two reads: the live file, or --since A.snap -i B.snap");
		return 2;
	}
	if (rate) {
		/* The earlier read: --since, or the live file now. */
		if (kp_load(o->since ? o->since : kp_live_path(path, sizeof(path)),
			 &a, NULL, NULL))
			return 1;
		if (!o->since) {
			double d = o->interval > 0 ? o->interval : 1;

			kp_busy("-s rate: the second read in %.1f s", d);
			t0 = kp_now(CLOCK_MONOTONIC);
			kp_sleep(d);
		}
	}
	rc = kp_load(o->input ? o->input : kp_live_path(path, sizeof(path)), &p,
		     NULL, NULL);
	kp_busy_end();
	if (rc) {
		rc = 1;
		goto out_a;
	}
	rc = 1;
	if (kp_keys_check(o, &p, o->input ? o->input : path)) {
		rc = 2;
		goto out;
	}
	if (rate) {
		double dt = o->since ? (p.time > 0 ? p.time : kp_now(CLOCK_REALTIME))
				       - a.time : kp_now(CLOCK_MONOTONIC) - t0;

		if (o->since && (a.time <= 0 || dt <= 0)) {
			kp_err("--since %s: no snapshot time before %s's",
			       o->since, o->input ? o->input : "now");
			goto out;
		}
		kp_rates(&p, &a, dt);
	}
	if (kp_keys_has(&o->keys, KP_AGE) && add_ages(&p, o))
		goto out;
	if (kp_filter(&p, o) || kp_resolve_opt(o, &p))
		goto out;
	kp_sort_keys(&p, &o->keys);
#ifdef KP_HAVE_OUTPUTS
	/*
	 * The live read: file:line by build id, unless --resolve said where
	 * or --no-resolve not to; for the sites shown only.
	 */
	if (!o->input && !o->do_resolve && !o->no_resolve) {
		size_t all = p.n;

		if (o->n > 0 && (size_t)o->n < p.n)
			p.n = (size_t)o->n;
		kp_resolve_auto_busy(&p);
		p.n = all;
	}
#endif
	/* Sites with no ratio rank last; say so when that is all of them. */
	if ((o->key == KP_FRAG || o->key == KP_AVG) && p.n &&
	    (o->key == KP_FRAG ? kp_frag(&p.sites[0]) : kp_avg(&p.sites[0])) < 0)
		kp_err("-s %s: no site has live objects: in site order",
		       o->key == KP_FRAG ? "frag" : "avg");
	if (!kp_machine(o) && !o->pprof) {
		print_top(&p, o);
		rc = 0;
		goto out;
	}
	/* Every site, unless -n says otherwise; series have a guard. */
	if (kp_series(o)) {
		struct kp_owner_data od;

		if (kp_owner_data_load(o, !o->input, &od) ||
		    (od.on && kp_owner_data_sum(o, &od))) {
			kp_owner_data_free(&od);
			goto out;
		}
		rc = kp_emit(o, &p, kp_machine_sites(o, p.n), &od);
		kp_owner_data_free(&od);
		goto out;
	}
	if (kp_machine_sites(o, p.n) < p.n) {
		size_t i;

		for (i = (size_t)o->n; i < p.n; i++)
			kp_site_release(&p.sites[i]);
		p.n = (size_t)o->n;
	}
	if (!o->pprof) {
		rc = kp_emit(o, &p, 0, NULL);
		goto out;
	}
#ifdef KP_HAVE_OUTPUTS
	{
		struct kp_stacks st, *stp = NULL;
		struct kp_owner_data od;
		struct kp_redactor red;
		char err[512], sp[512];
		FILE *in;

		/* Stacks: --stacks FILE, else the live view if it reads. */
		if (o->stacks)
			snprintf(sp, sizeof(sp), "%s", o->stacks);
		else
			kp_path(DEBUGFS "/stacks", sp, sizeof(sp));
		in = o->stacks ? kp_open(sp) : o->input ? NULL : fopen(sp, "r");
		if (in && !kp_parse_stacks(in, sp, &st, err, sizeof(err)))
			stp = &st;
		if (in)
			fclose(in);
		if (o->stacks && !stp) {
			if (in)
				fprintf(stderr, "kmemprof: %s\n", err);
			goto out;
		}
		/* The owners view, for the samples' owner labels. */
		if (kp_owner_data_load(o, !o->input, &od)) {
			if (stp)
				kp_stacks_free(stp);
			goto out;
		}
		/* A profile leaves the machine: no address in it. */
		kp_redactor_init(&red);
		kp_redact_profile(&red, &p);
		if (stp)
			kp_redact_stacks(&red, stp);
		if (od.on)
			kp_redact_owners(&red, &od.ow);
		kp_redactor_destroy(&red);
		rc = kp_out_pprof(o->pprof, &p, stp, od.on ? &od.ow : NULL,
				  kp_mode(o), err, sizeof(err));
		kp_owner_data_free(&od);
		if (rc)
			fprintf(stderr, "kmemprof: --pprof %s: %s\n", o->pprof,
				err);
		rc = rc ? 1 : 0;
		if (stp)
			kp_stacks_free(stp);
	}
#else
	rc = kp_no_outputs();
#endif
out:
	kp_free(&p);
out_a:
	if (rate)
		kp_free(&a);
	return rc;
}


static int set_since(struct kp_opts *o, const char *arg)
{
	o->since = arg;
	return 0;
}

static int set_ages(struct kp_opts *o, const char *arg)
{
	o->ages = arg;
	return 0;
}

static int set_pprof(struct kp_opts *o, const char *arg)
{
	o->pprof = arg;
	return 0;
}

static int set_by(struct kp_opts *o, const char *arg)
{
	if (!strcmp(arg, "site")) {
		o->by = KP_BY_SITE;
	} else if (!strcmp(arg, "owner")) {
		o->by = KP_BY_OWNER;
	} else if (!strcmp(arg, "cgroup")) {
		o->by = KP_BY_CGROUP;
	} else {
		kp_err("--by %s: expected site, owner or cgroup", arg);
		return 2;
	}
	return 0;
}

static const struct kp_option opt_by = {
	"by", 1, 0, "WHAT",
	"site (the default); owner or cgroup: the owners view's lines summed "
	"per owner (a process, or a cgroup with owners=cgroup) over the sites "
	"(--owners FILE: a saved view), by live bytes",
	set_by,
};

static const struct kp_option opt_since = {
	"since", 1, 0, "FILE",
	"--sort rate: the earlier snapshot (rates to -i FILE or now)",
	set_since,
};

static const struct kp_option opt_ages = {
	"ages", 1, 0, "FILE",
	"--sort age: the ages view to use (default: debugfs)", set_ages,
};

static const struct kp_option opt_pprof = {
	"pprof", 1, 0, "FILE",
	"write a gzipped pprof profile (with stacks when they exist), its "
	"unnamed addresses redacted (unknown#N)",
	set_pprof,
};

/* After the options: what --since, --ages and --stacks imply or need. */
static int check(struct kp_opts *o)
{
	/* --since and --ages say which sort they are for. */
	if (!o->key_set && (o->since || o->ages)) {
		o->key = o->since ? KP_RATE : KP_AGE;
		o->keys = (struct kp_keys){ { o->key }, 1 };
	}
	if (o->stacks && !o->pprof) {
		kp_err("--stacks is for --pprof");
		return 2;
	}
	if (o->by != KP_BY_SITE) {
		const char *by = o->by == KP_BY_CGROUP ? "cgroup" : "owner";
		size_t i;

		if (o->input || o->since || o->ages || o->pprof) {
			kp_err("--by %s reads the owners view alone (--owners FILE for a saved one): not with %s",
			       by, o->input ? "-i" : o->since ? "--since" :
			       o->ages ? "--ages" : "--pprof");
			return 2;
		}
		for (i = 0; i < o->keys.n; i++)
			if (o->keys.k[i] != KP_BYTES && o->keys.k[i] != KP_OBJS &&
			    o->keys.k[i] != KP_AVG && o->keys.k[i] != KP_ALLOCS) {
				kp_err("-s %s: --by %s sorts by bytes, objs, avg or allocs",
				       kp_key_name(o->keys.k[i]), by);
				return 2;
			}
	}
	return 0;
}

const struct kp_cmd kp_cmd_top = {
	.name = "top", .args = "", .what = "call sites by live memory (the default)",
	.opts = (const struct kp_option *const[]){
		&kp_opt_input, &kp_opt_sort, &kp_opt_delay, &opt_since, &opt_ages,
		&kp_opt_lines, &kp_opt_human, &kp_opt_kind, &kp_opt_module,
		&kp_opt_func, &kp_opt_min_bytes, &kp_opt_json, &kp_opt_csv,
		&kp_opt_prometheus, &kp_opt_openmetrics, &kp_opt_source,
		&opt_pprof, &kp_opt_stacks, &opt_by, &kp_opt_owners,
		&kp_opt_owner_series, &kp_opt_file_mode, &kp_opt_resolve,
		&kp_opt_no_resolve, NULL,
	},
	.check = check, .run = run,
};
