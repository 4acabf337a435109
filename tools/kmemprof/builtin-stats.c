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
	rc = kp_view_parsed(kp_parse_stats(in, path, &s, err, sizeof(err)), err);
	fclose(in);
	if (rc)
		return 1;
	if (o->json) {
		kp_view_json_begin("stats");
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

const struct kp_cmd kp_cmd_stats = {
	.name = "stats", .args = "",
	.what = "the module's counters and pools",
	.opts = kp_view_opts, .run = stats_run,
};
