// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the subcommands that format a debugfs view: leaks,
 * stacks, hist (ASCII bars), stats, cpus and ages, as a table or, with
 * --json, as one JSON document whose "view" names it (its schema is in
 * Documentation/kmemprof-output.rst).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonstr.h"

/* The JSON views' schema; bumped on an incompatible change. */
#define VIEW_SCHEMA 1

static void json_begin(const char *view)
{
	printf("{\"schema\":%d,\"view\":\"%s\"", VIEW_SCHEMA, view);
}

static int json_end(void)
{
	fputs("}\n", stdout);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

/* A tag's fields, "site" to "callers", after the object's '{'. */
static void json_tag(const struct kp_site *t)
{
	const char *c = t->callers, *comma;

	fputs("\"site\":", stdout);
	kp_json_str(stdout, t->site);
	fputs(",\"module\":", stdout);
	kp_json_str(stdout, t->module);
	fputs(",\"func\":", stdout);
	kp_json_str(stdout, t->func);
	fputs(",\"kind\":", stdout);
	kp_json_str(stdout, t->kind);
	fputs(",\"callers\":[", stdout);
	for (; c && *c; c = comma ? comma + 1 : NULL) {
		comma = strchr(c, ',');
		if (c != t->callers)
			putchar(',');
		kp_json_strn(stdout, c, comma ? (size_t)(comma - c) : strlen(c));
	}
	putchar(']');
}

static void json_counts(const char *key, const uint64_t *v, size_t n)
{
	size_t i;

	printf(",\"%s\":[", key);
	for (i = 0; i < n; i++)
		printf("%s%" PRIu64, i ? "," : "", v[i]);
	putchar(']');
}

static int parsed(int rc, const char *err)
{
	if (rc)
		fprintf(stderr, "kmemprof: %s\n", err);
	return rc;
}

/* An age in ms as "850ms", "4.3s", "12.5m", "3.1h". */
static void age(int64_t ms, char *buf, size_t len)
{
	if (ms < 1000)
		snprintf(buf, len, "%" PRId64 "ms", ms);
	else if (ms < 60000)
		snprintf(buf, len, "%.1fs", ms / 1000.0);
	else if (ms < 3600000)
		snprintf(buf, len, "%.1fm", ms / 60000.0);
	else
		snprintf(buf, len, "%.1fh", ms / 3600000.0);
}

/* leaks */

static int leaks_run(struct kp_opts *o)
{
	char path[512], err[512], b[32], a[32], sz[32];
	struct kp_leaks l;
	size_t i, j, shown = 0;
	bool first = true;
	FILE *in;
	int rc;

	in = kp_open(kp_view_path(o, "leaks", path, sizeof(path)));
	if (!in)
		return 1;
	rc = parsed(kp_parse_leaks(in, path, &l, err, sizeof(err)), err);
	fclose(in);
	if (rc)
		return 1;
	if (o->json) {
		json_begin("leaks");
		printf(",\"summary\":{\"age_ms\":%" PRId64 ",\"objects\":%"
		       PRId64 ",\"bytes\":%" PRId64 ",\"sites\":%" PRId64
		       "},\"sites\":[", l.age_ms, l.objs, l.bytes, l.sites);
	} else {
		kp_cell(l.bytes, o->human, b, sizeof(b));
		if (l.age_ms >= 0)
			printf("Leak suspects, live longer than %" PRId64 " ms: %"
			       PRId64 " objects, %s bytes, %" PRId64 " sites\n",
			       l.age_ms, l.objs, b, l.sites);
		printf("%12s %8s %8s %-6s %s\n", "LIVE", "OBJS", "OLDEST",
		       "KIND", "SITE");
	}
	for (i = 0; i < l.n; i++) {
		const struct kp_leak *k = &l.v[i];

		if (o->filter.kind && strcmp(k->tag.kind, o->filter.kind))
			continue;
		if (o->filter.module && (!k->tag.module ||
					 strcmp(k->tag.module, o->filter.module)))
			continue;
		if (o->n && shown++ >= (size_t)o->n)
			break;
		if (o->json) {
			printf("%s{", first ? "\n" : ",\n");
			first = false;
			json_tag(&k->tag);
			printf(",\"live_bytes\":%" PRId64 ",\"live_objects\":%"
			       PRId64 ",\"objects\":[", k->bytes, k->objs);
			for (j = 0; j < k->nobj; j++)
				printf("%s{\"addr\":\"%s\",\"size\":%" PRId64
				       ",\"age_ms\":%" PRId64 ",\"cpu\":%d}",
				       j ? "," : "", k->obj[j].addr,
				       k->obj[j].size, k->obj[j].age_ms,
				       k->obj[j].cpu);
			fputs("]}", stdout);
			continue;
		}
		kp_cell(k->bytes, o->human, b, sizeof(b));
		if (k->nobj)
			age(k->obj[0].age_ms, a, sizeof(a));
		else
			snprintf(a, sizeof(a), "-");
		printf("%12s %8" PRId64 " %8s %-6s ", b, k->objs, a,
		       k->tag.kind);
		kp_print_tag(stdout, &k->tag);
		putchar('\n');
		for (j = 0; j < k->nobj; j++) {
			kp_cell(k->obj[j].size, o->human, sz, sizeof(sz));
			age(k->obj[j].age_ms, a, sizeof(a));
			printf("%12s %8s %8s cpu%-3d %s\n", sz, "", a,
			       k->obj[j].cpu, k->obj[j].addr);
		}
	}
	if (o->json) {
		fputs("\n]", stdout);
		kp_leaks_free(&l);
		return json_end();
	}
	if (!l.n)
		printf("(no leak suspects)\n");
	kp_leaks_free(&l);
	return 0;
}

/* stacks */

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
	rc = parsed(kp_parse_stacks(in, path, &s, err, sizeof(err)), err);
	fclose(in);
	if (rc)
		return 1;
	/* Stacks sampled before stack_depth went back to 0 are still shown. */
	if (o->json) {
		json_begin("stacks");
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
			       (o->filter.kind &&
				strcmp(st->tag.kind, o->filter.kind)) ||
			       (o->n && tags >= (size_t)o->n);
			if (skip)
				continue;
			tags++;
			any = true;
			if (o->json) {
				printf("%s{", tags > 1 ? "]},\n" : "\n");
				json_tag(&st->tag);
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
		rc = json_end();
	}
	if (want && !any) {
		fprintf(stderr, "kmemprof: no stacks for '%s' in %s\n", want,
			path);
		return 1;
	}
	return rc;
}

/* hist */

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

static void hist_one(const struct kp_hist *h)
{
	enum kp_bucket sz = !strcmp(h->kind, "page") ? KP_B_ORDER : KP_B_SIZE;

	if (!strcmp(h->site, "all"))
		printf("all %s allocations", h->kind);
	else
		kp_print_tag(stdout, &h->tag), printf(" kind:%s", h->kind);
	printf(": xcpu %" PRIu64 ", xcluster %" PRIu64 ", frag %.1f%%, waste %"
	       PRId64 " bytes\n", h->xcpu, h->xcluster, h->frag, h->waste);
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
	char path[512], err[512];
	struct kp_hists h;
	size_t i, shown = 0;
	FILE *in;
	int rc;

	in = kp_open(kp_view_path(o, "hist", path, sizeof(path)));
	if (!in)
		return 1;
	rc = parsed(kp_parse_hist(in, path, &h, err, sizeof(err)), err);
	fclose(in);
	if (rc)
		return 1;
	if (o->json) {
		json_begin("hist");
		fputs(",\"hists\":[", stdout);
	}
	for (i = 0; i < h.n; i++) {
		const struct kp_hist *x = &h.v[i];
		bool all = !strcmp(x->site, "all");

		if (want ? all || !kp_tag_match(&x->tag, want) : !all)
			continue;
		if (o->filter.kind && strcmp(x->kind, o->filter.kind))
			continue;
		if (o->n && shown >= (size_t)o->n)
			break;
		if (o->json) {
			printf("%s{", shown++ ? ",\n" : "\n");
			json_tag(&x->tag);
			json_counts("size", x->size, x->nsize);
			json_counts("req", x->req, x->nreq);
			json_counts("life", x->life, x->nlife);
			printf(",\"xcpu\":%" PRIu64 ",\"xcluster\":%" PRIu64
			       ",\"frag\":%.1f,\"waste\":%" PRId64 "}",
			       x->xcpu, x->xcluster, x->frag, x->waste);
			continue;
		}
		printf("%s", shown++ ? "\n" : "");
		hist_one(x);
	}
	kp_hists_free(&h);
	if (o->json) {
		fputs("\n]", stdout);
		rc = json_end();
	}
	if (!shown) {
		char knob[8] = "";

		/* The module keeps none while /proc/sys/kmemprof/hist is 0. */
		if (!o->input && !kp_knob_read("hist", knob, sizeof(knob)) &&
		    !strcmp(knob, "0"))
			snprintf(knob, sizeof(knob), "off");
		fprintf(stderr, "kmemprof: no histograms%s%s%s in %s%s\n",
			want ? " for '" : "", want ? want : "", want ? "'" : "",
			path, strcmp(knob, "off") ? "" :
			" (histograms are off: kmemprof set hist=1)");
		return 1;
	}
	return rc;
}

/* stats */

static int64_t num(const struct kp_stats *s, const char *key)
{
	const char *v = kp_stat(s, key);

	return v ? strtoll(v, NULL, 10) : -1;
}

static void pool(const struct kp_stats *s, const char *name, bool human)
{
	char key[64], mem[32];
	int64_t used, max, bytes;

	snprintf(key, sizeof(key), "%s.used", name);
	used = num(s, key);
	snprintf(key, sizeof(key), "%s.max", name);
	max = num(s, key);
	snprintf(key, sizeof(key), "%s.bytes", name);
	bytes = num(s, key);
	if (used < 0 && max < 0)
		return;
	kp_cell(bytes, human, mem, sizeof(mem));
	printf("  %-8s %10" PRId64 " %10" PRId64 " %6.1f%% %12s\n", name,
	       used, max, max > 0 ? 100.0 * used / max : 0, mem);
}

static int stats_run(struct kp_opts *o)
{
	static const char *const pools[] = { "tags", "live", "hist", "stacks" };
	char path[512], err[512];
	struct kp_stats s;
	const char *v, *u;
	size_t i;
	FILE *in;
	int rc;

	in = kp_open(kp_view_path(o, "stats", path, sizeof(path)));
	if (!in)
		return 1;
	rc = parsed(kp_parse_stats(in, path, &s, err, sizeof(err)), err);
	fclose(in);
	if (rc)
		return 1;
	if (o->json) {
		json_begin("stats");
		fputs(",\"stats\":{", stdout);
		for (i = 0; i < s.n; i++) {
			printf("%s\n", i ? "," : "");
			kp_json_str(stdout, s.v[i].key);
			putchar(':');
			kp_json_str(stdout, s.v[i].val);
		}
		fputs("\n}", stdout);
		kp_stats_free(&s);
		return json_end();
	}
	v = kp_stat(&s, "events");
	u = kp_stat(&s, "unavailable");
	printf("kmemprof is %s; events %s; unavailable %s\n",
	       strcmp(kp_stat(&s, "enabled"), "0") ? "enabled" : "disabled",
	       v ? v : "-", u ? u : "-");
	printf("\nevents:\n");
	for (i = 0; i < s.n; i++)
		if (!strncmp(s.v[i].key, "events.", 7))
			printf("  %-24s %12s\n", s.v[i].key + 7, s.v[i].val);
	printf("\naccuracy:\n");
	for (i = 0; i < s.n; i++) {
		const char *k = s.v[i].key, *dot = strchr(k, '.');
		size_t pl = dot ? (size_t)(dot - k) : 0;
		bool is_pool = false, is_probe = !strncmp(k, "probe.", 6);
		size_t p;

		for (p = 0; dot && p < sizeof(pools) / sizeof(pools[0]); p++)
			if (strlen(pools[p]) == pl && !strncmp(k, pools[p], pl))
				is_pool = true;
		if (!strcmp(k, "enabled") || !strcmp(k, "events") ||
		    !strcmp(k, "unavailable") || !strncmp(k, "events.", 7) ||
		    is_pool || is_probe)
			continue;
		printf("  %-24s %12s\n", k, s.v[i].val);
	}
	printf("\n  %-8s %10s %10s %7s %12s\n", "pool", "used", "max", "fill",
	       "memory");
	for (i = 0; i < sizeof(pools) / sizeof(pools[0]); i++)
		pool(&s, pools[i], o->human);
	if (num(&s, "probe.samples") >= 0)
		printf("\nprobe cost: %" PRId64 " ns per event (%" PRId64
		       " events timed)\n", num(&s, "probe.ns_per_event"),
		       num(&s, "probe.samples"));
	kp_stats_free(&s);
	return 0;
}

/* cpus */

static int cpus_run(struct kp_opts *o)
{
	char path[512], err[512];
	struct kp_cpus c;
	size_t i;
	FILE *in;
	int rc;

	in = kp_open(kp_view_path(o, "cpus", path, sizeof(path)));
	if (!in)
		return 1;
	rc = parsed(kp_parse_cpus(in, path, &c, err, sizeof(err)), err);
	fclose(in);
	if (rc)
		return 1;
	if (o->json) {
		json_begin("cpus");
		fputs(",\"cpus\":[", stdout);
		for (i = 0; i < c.n; i++)
			printf("%s\n{\"cpu\":%d,\"cluster\":%d,\"allocs\":%"
			       PRId64 ",\"frees\":%" PRId64 ",\"remote\":%"
			       PRId64 ",\"xcluster\":%" PRId64 "}",
			       i ? "," : "", c.v[i].cpu, c.v[i].cluster,
			       c.v[i].allocs, c.v[i].frees, c.v[i].remote,
			       c.v[i].xcluster);
		fputs("\n]", stdout);
		kp_cpus_free(&c);
		return json_end();
	}
	printf("%4s %8s %12s %12s %12s %7s %12s %7s\n", "CPU", "CLUSTER",
	       "ALLOCS", "FREES", "REMOTE", "%", "XCLUSTER", "%");
	for (i = 0; i < c.n; i++) {
		const struct kp_cpu *x = &c.v[i];

		printf("%4d %8d %12" PRId64 " %12" PRId64 " %12" PRId64
		       " %6.1f%% %12" PRId64 " %6.1f%%\n", x->cpu, x->cluster,
		       x->allocs, x->frees, x->remote,
		       x->frees ? 100.0 * x->remote / x->frees : 0,
		       x->xcluster,
		       x->frees ? 100.0 * x->xcluster / x->frees : 0);
	}
	kp_cpus_free(&c);
	return 0;
}

/* ages: the sites whose live objects are oldest */

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
	char path[512], err[512], b[32], old[32], med[32];
	struct age_row *rows;
	struct kp_ages a;
	size_t i, j, n = 0, shown = 0;
	FILE *in;
	int rc;

	in = kp_open(kp_view_path(o, "ages", path, sizeof(path)));
	if (!in)
		return 1;
	rc = parsed(kp_parse_ages(in, path, &a, err, sizeof(err)), err);
	fclose(in);
	if (rc)
		return 1;
	rows = calloc(a.n + 1, sizeof(*rows));
	if (!rows) {
		kp_ages_free(&a);
		return 1;
	}
	for (i = 0; i < a.n; i++) {
		uint64_t total = 0, half = 0;

		if (o->filter.kind && strcmp(a.v[i].tag.kind, o->filter.kind))
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
		json_begin("ages");
		fputs(",\"sites\":[", stdout);
		for (i = 0; i < n && (!o->n || i < (size_t)o->n); i++) {
			const struct kp_age *x = rows[i].a;

			printf("%s\n{", i ? "," : "");
			json_tag(&x->tag);
			printf(",\"live_bytes\":%" PRId64 ",\"live_objects\":%"
			       PRId64 ",\"oldest_ns\":%" PRIu64
			       ",\"median_ns\":%" PRIu64, x->bytes, x->objs,
			       kp_hist_lower(KP_B_LIFE, rows[i].oldest),
			       kp_hist_lower(KP_B_LIFE, rows[i].median));
			json_counts("age", x->age, x->nage);
			putchar('}');
		}
		fputs("\n]", stdout);
		free(rows);
		kp_ages_free(&a);
		return json_end();
	}
	printf("%12s %8s %8s %8s %-6s %s\n", "LIVE", "OBJS", "OLDEST>=",
	       "MEDIAN>=", "KIND", "SITE");
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

static const struct kp_option *const view_opts[] = {
	&kp_opt_input, &kp_opt_lines, &kp_opt_human, &kp_opt_kind,
	&kp_opt_json, NULL,
};

static const struct kp_option *const leaks_opts[] = {
	&kp_opt_input, &kp_opt_lines, &kp_opt_human, &kp_opt_kind,
	&kp_opt_module, &kp_opt_json, NULL,
};

const struct kp_cmd kp_cmd_leaks = {
	.name = "leaks", .args = "",
	.what = "leak suspects: objects live too long",
	.opts = leaks_opts, .run = leaks_run,
};

const struct kp_cmd kp_cmd_stacks = {
	.name = "stacks", .args = "[SITE]",
	.what = "sampled stacks of each site",
	.max_args = 1,
	.opts = view_opts, .run = stacks_run,
};

const struct kp_cmd kp_cmd_hist = {
	.name = "hist", .args = "[SITE]",
	.what = "size and lifetime histograms (all kinds, or SITE's)",
	.max_args = 1,
	.opts = view_opts, .run = hist_run,
};

const struct kp_cmd kp_cmd_stats = {
	.name = "stats", .args = "",
	.what = "the module's counters and pools",
	.opts = view_opts, .run = stats_run,
};

const struct kp_cmd kp_cmd_ages = {
	.name = "ages", .args = "",
	.what = "the sites whose live objects are oldest",
	.opts = view_opts, .run = ages_run,
};

const struct kp_cmd kp_cmd_cpus = {
	.name = "cpus", .args = "",
	.what = "allocations and frees per CPU, remote frees",
	.opts = view_opts, .run = cpus_run,
};
