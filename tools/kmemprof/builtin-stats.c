// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof stats: the module's counters and pools.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonstr.h"
#include "viewcmd.h"

static int64_t num(const struct kp_stats *s, const char *key)
{
	const char *v = kp_stat(s, key);

	return v ? strtoll(v, NULL, 10) : -1;
}

/* The pools, in the order of their table; a pool may lack any column. */
static const char *const pools[] = {
	"tags", "sites", "live", "hist", "stacks", "pfnmap",
};

#define NPOOLS (sizeof(pools) / sizeof(pools[0]))

/* "hook.NAME.calls" or "hook.NAME.objects": NAME's length, else 0. */
static size_t hook_name(const char *k)
{
	const char *dot;

	if (strncmp(k, "hook.", 5))
		return 0;
	dot = strrchr(k + 5, '.');
	if (!dot || dot == k + 5 || (strcmp(dot, ".calls") &&
				     strcmp(dot, ".objects")))
		return 0;
	return (size_t)(dot - (k + 5));
}

/* "POOL.used", "POOL.max" or "POOL.bytes" of a pool of the table. */
static bool is_pool(const char *k)
{
	const char *dot = strrchr(k, '.');
	size_t p;

	if (!dot || (strcmp(dot, ".used") && strcmp(dot, ".max") &&
		     strcmp(dot, ".bytes")))
		return false;
	for (p = 0; p < NPOOLS; p++)
		if (strlen(pools[p]) == (size_t)(dot - k) &&
		    !strncmp(k, pools[p], (size_t)(dot - k)))
			return true;
	return false;
}

/* The keys of the first line, the pools and probe.*: not listed alone. */
static bool elsewhere(const char *k)
{
	return !strcmp(k, "enabled") || !strcmp(k, "events") ||
	       !strcmp(k, "unavailable") || !strcmp(k, "hooks") ||
	       !strcmp(k, "untraced") || !strcmp(k, "hooks.alloc") ||
	       !strncmp(k, "events.", 7) || hook_name(k) || is_pool(k) ||
	       !strncmp(k, "probe.", 6);
}

static void pool(const struct kp_stats *s, const char *name, bool human)
{
	char key[64], used[24], max[24], fill[24], mem[32];
	int64_t u, m, bytes;

	snprintf(key, sizeof(key), "%s.used", name);
	u = num(s, key);
	snprintf(key, sizeof(key), "%s.max", name);
	m = num(s, key);
	snprintf(key, sizeof(key), "%s.bytes", name);
	bytes = num(s, key);
	if (u < 0 && m < 0 && bytes < 0)
		return;
	/* the live table holds what it has grown by too (live_grow) */
	snprintf(key, sizeof(key), "%s.grown", name);
	if (m >= 0 && num(s, key) > 0)
		m += num(s, key);
	kp_cell(u, false, used, sizeof(used));
	kp_cell(m, false, max, sizeof(max));
	kp_cell(bytes, human, mem, sizeof(mem));
	if (u >= 0 && m > 0)
		snprintf(fill, sizeof(fill), "%.1f%%", 100.0 * u / m);
	else
		snprintf(fill, sizeof(fill), "-");
	printf("  %-8s %10s %10s %7s %12s\n", name, used, max, fill, mem);
}

static int stats_run(struct kp_opts *o)
{
	char name[128], c[160];
	struct kp_view_in vi;
	struct kp_stats s;
	const char *v, *u;
	size_t i, j, kw = 24, len;

	if (kp_view_open(o, "stats", &vi) ||
	    kp_view_close(&vi, kp_parse_stats(vi.in, vi.path, &s, vi.err,
					      sizeof(vi.err))))
		return 1;
	kp_view_begin(o, "stats", NULL, 0, 0);	/* no tags */
	if (o->json) {
		fputs(",\"stats\":{", stdout);
		for (i = 0; i < s.n; i++) {
			printf("%s\n", i ? "," : "");
			kp_json_str(stdout, s.v[i].key);
			putchar(':');
			kp_json_str(stdout, s.v[i].val);
		}
		fputs("\n}", stdout);
		kp_stats_free(&s);
		return kp_view_json_end();
	}
	/* One key column for every section: as wide as the widest key. */
	for (i = 0; i < s.n; i++) {
		const char *k = s.v[i].key;

		len = !strncmp(k, "events.", 7) ? strlen(k) - 7 :
		      hook_name(k) ? hook_name(k) :
		      elsewhere(k) ? 0 : strlen(k);
		if (len > kw)
			kw = len;
	}
	v = kp_stat(&s, "events");
	u = kp_stat(&s, "unavailable");
	printf("kmemprof is %s; events %s; unavailable %s\n",
	       !kp_stat(&s, "enabled") || strcmp(kp_stat(&s, "enabled"), "0") ?
	       "enabled" : "disabled", v ? v : "-", u ? u : "-");
	v = kp_stat(&s, "hooks");
	if (v) {
		u = kp_stat(&s, "hooks.alloc");
		printf("hooks %s%s%s%s; untraced %s\n", v, u ? " (allocation hooks: " : "",
		       u ? u : "", u ? ")" : "",
		       kp_stat(&s, "untraced") ? kp_stat(&s, "untraced") : "-");
	}
	printf("\nevents:\n");
	for (i = 0; i < s.n; i++)
		if (!strncmp(s.v[i].key, "events.", 7))
			printf("  %-*s %12s\n", (int)kw, s.v[i].key + 7,
			       s.v[i].val);
	/* The paths without events: calls and objects, a line each. */
	for (i = 0, j = 0; i < s.n; i++) {
		const char *k = s.v[i].key;
		int64_t calls, objs;

		len = hook_name(k);
		if (!len || strcmp(k + 5 + len, ".calls"))
			continue;
		if (!j++)
			printf("\nhooks:%*s %12s %12s\n", (int)kw - 4, "",
			       "calls", "objects");
		snprintf(name, sizeof(name), "%.*s", (int)len, k + 5);
		calls = num(&s, k);
		snprintf(c, sizeof(c), "hook.%.*s.objects", (int)len, k + 5);
		objs = num(&s, c);
		kp_cell(objs, false, c, sizeof(c));
		printf("  %-*s %12" PRId64 " %12s\n", (int)kw, name, calls, c);
	}
	printf("\ncounters:\n");
	for (i = 0; i < s.n; i++)
		if (!elsewhere(s.v[i].key))
			printf("  %-*s %12s\n", (int)kw, s.v[i].key,
			       s.v[i].val);
	printf("\n  %-8s %10s %10s %7s %12s\n", "pool", "used", "max", "fill",
	       "memory");
	for (i = 0; i < NPOOLS; i++)
		pool(&s, pools[i], o->human);
	if (num(&s, "probe.samples") >= 0)
		printf("\nprobe cost: %" PRId64 " ns per event (%" PRId64
		       " events timed)\n", num(&s, "probe.ns_per_event"),
		       num(&s, "probe.samples"));
	kp_stats_free(&s);
	return 0;
}

const struct kp_cmd kp_cmd_stats = {
	.name = "stats", .args = "",
	.what = "the module's counters and pools",
	.opts = (const struct kp_option *const[]){
		&kp_opt_view_input, &kp_opt_human, &kp_opt_json, NULL,
	}, .run = stats_run,
};
