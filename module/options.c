// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the options the probes read: the knobs' variables, the mode
 * word made from them, and its static key; and the names of the kinds,
 * with the parser of the events knob. A leaf, so that everything that
 * reads them (probes.c, account.c, the views) depends on it and not on
 * control.c, which changes them.
 *
 * Notes on locking: written only by control.c under kmp_control_lock
 * (kmp_mode_update(), kmemprof_set_option()), or by the load before any
 * probe is attached; read anywhere with READ_ONCE(). See tables.h for
 * what a probe sees across a change.
 */
#include <linux/string.h>

#include <kmemprof/format.h>

#include "internal.h"
#include "options.h"

unsigned int kmp_leak_age_ms = 10000;
unsigned int kmp_stack_depth;
unsigned int kmp_stack_sample = 1;
unsigned int kmp_key_depth;
unsigned int kmp_sample_rate = 1;
unsigned int kmp_min_size;
unsigned int kmp_max_size;
unsigned int kmp_hist_on;
unsigned int kmp_life_on;
unsigned int kmp_timing_on;
unsigned int kmp_owners;
unsigned int kmp_oom_report = 10;

unsigned int kmp_mode;
DEFINE_STATIC_KEY_FALSE(kmp_slow_key);
DEFINE_STATIC_KEY_FALSE(kmp_sample_key);
DEFINE_STATIC_KEY_FALSE(kmp_time_key);
DEFINE_STATIC_KEY_FALSE(kmp_opts_key);
DEFINE_PER_CPU(u32, kmp_track_ctr);	/* sample_rate's count (account.c) */

static const char * const kmp_kind_names[] = KMP_KIND_NAMES;

const char *kmp_kind_name(enum kmp_kind kind)
{
	return kind < KMP_KIND_NR ? kmp_kind_names[kind] : "?";
}

/* "slab,page,percpu", any subset in any order, or "none". */
static int kmp_parse_kinds(char *s, unsigned int *kinds)
{
	char *tok;
	int k;

	*kinds = 0;
	s = strim(s);
	if (!strcmp(s, "none"))
		return 0;
	while ((tok = strsep(&s, ","))) {
		for (k = 0; k < KMP_KIND_NR; k++)
			if (!strcmp(tok, kmp_kind_name(k)))
				break;
		if (k == KMP_KIND_NR || (*kinds & BIT(k)))
			return -EINVAL;
		*kinds |= BIT(k);
	}
	return 0;
}

void kmp_format_kinds(char *buf, size_t len, unsigned int kinds)
{
	size_t n = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < KMP_KIND_NR; k++)
		if (kinds & BIT(k))
			n += scnprintf(buf + n, len - n, "%s%s", n ? "," : "",
				       kmp_kind_name(k));
	if (!n)
		strscpy(buf, "none", len);
}

/* The parser behind the events knob and parameter (and the KUnit suites). */
int kmemprof_parse_events(const char *s, unsigned int *kinds)
{
	char buf[KMP_KINDS_MAX];

	if (strscpy(buf, s, sizeof(buf)) < 0)
		return -EINVAL;
	return kmp_parse_kinds(buf, kinds);
}

kmp_export_test_hook(kmemprof_parse_events);

static const char * const kmp_owners_names[KMP_OWNERS_NR] = {
	[KMP_OWNERS_OFF] = "0",
	[KMP_OWNERS_TASK] = "task",
	[KMP_OWNERS_CGROUP] = "cgroup",
};

const char *kmp_owners_name(unsigned int val)
{
	return val < KMP_OWNERS_NR ? kmp_owners_names[val] : "?";
}

/* The owners knob's words: "task", "cgroup" or "0", a newline after. */
int kmp_parse_owners(const char *s, unsigned int *val)
{
	unsigned int i;

	for (i = 0; i < KMP_OWNERS_NR; i++)
		if (sysfs_streq(s, kmp_owners_names[i])) {
			*val = i;
			return 0;
		}
	return -EINVAL;
}
