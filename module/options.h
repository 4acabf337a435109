/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: options.c's own header, the options the probes read: the
 * knobs' variables, the mode word made from them and its static keys,
 * and the keys' tests. control.c writes them (kmp_mode_update()).
 */
#ifndef _KMEMPROF_OPTIONS_H
#define _KMEMPROF_OPTIONS_H

#include <linux/jump_label.h>
#include <linux/percpu.h>

#include "internal.h"

/* The knobs read on the allocation path; see sysctl.c. */
extern unsigned int kmp_stack_depth;
extern unsigned int kmp_stack_sample;
extern unsigned int kmp_key_depth;
extern unsigned int kmp_sample_rate;
extern unsigned int kmp_min_size;
extern unsigned int kmp_max_size;

extern unsigned int kmp_leak_age_ms;

/* sample_rate as the counts use it: 0 (never stored) reads as 1. */
static __always_inline unsigned int kmp_rate(void)
{
	return max(READ_ONCE(kmp_sample_rate), 1U);
}

/* key_depth, at most the callers a tag keeps. */
static __always_inline unsigned int kmp_key_callers(void)
{
	return min_t(unsigned int, READ_ONCE(kmp_key_depth),
		     KMP_KEY_DEPTH_MAX);
}

/* kmp_mode: the options; KMP_M_FAST those that the fast paths serve. */
#define KMP_M_HIST	BIT(0)	/* size, lifetime and cross-CPU histograms */
#define KMP_M_LIFE	BIT(1)	/* allocation times, for ages and leaks */
#define KMP_M_TIMING	BIT(2)	/* time one probe in KMP_TIME_EVERY */
#define KMP_M_STACKS	BIT(3)	/* stack_depth > 0 */
#define KMP_M_KEY	BIT(4)	/* key_depth > 0 */
#define KMP_M_SAMPLE	BIT(5)	/* sample_rate > 1 */
#define KMP_M_FILTER	BIT(6)	/* min_size or max_size set */
#define KMP_M_OWNERS	BIT(7)	/* owners on: charge (site, owner) lines */
#define KMP_M_CGROUP	BIT(8)	/* ... with cgroups for owners, not tasks */
#define KMP_M_FAST	(KMP_M_HIST | KMP_M_LIFE | KMP_M_SAMPLE | KMP_M_STACKS | \
			 KMP_M_KEY)

extern unsigned int kmp_mode;
DECLARE_STATIC_KEY_FALSE(kmp_slow_key);
DECLARE_STATIC_KEY_FALSE(kmp_sample_key);
DECLARE_STATIC_KEY_FALSE(kmp_time_key);
DECLARE_STATIC_KEY_FALSE(kmp_opts_key);
DECLARE_PER_CPU(u32, kmp_track_ctr);

/* Knobs of the options (sysctl.c). */
extern unsigned int kmp_hist_on;
extern unsigned int kmp_life_on;
extern unsigned int kmp_timing_on;

/* owners: 0 off, or one of these (options.c parses and names them). */
enum kmp_owners_kind {
	KMP_OWNERS_OFF,
	KMP_OWNERS_TASK,
	KMP_OWNERS_CGROUP,
	KMP_OWNERS_NR,
};

extern unsigned int kmp_owners;
extern unsigned int kmp_oom_report;	/* sites in the OOM report (oom.c) */
int kmp_parse_owners(const char *s, unsigned int *val);
const char *kmp_owners_name(unsigned int val);

/*
 * The general path takes every event while an option is on, but for
 * those that the fast paths take on: sample_rate (kmp_sample_key_on()), and
 * histograms and lifetimes (kmp_time_key_on()).
 */
static __always_inline bool kmp_slow_key_on(void)
{
	return static_branch_unlikely(&kmp_slow_key);
}

static __always_inline bool kmp_sample_key_on(void)
{
	return static_branch_unlikely(&kmp_sample_key);
}

/* Histograms or lifetimes on: objects carry their time and CPU. */
static __always_inline bool kmp_time_key_on(void)
{
	return static_branch_unlikely(&kmp_time_key);
}

/*
 * kmp_slow_key, kmp_time_key or kmp_stack_key on: the probes' one test at
 * the defaults (probes.h), whose copy of the fast paths tests none of them
 * (sample_rate it serves itself).
 */
static __always_inline bool kmp_opts_key_on(void)
{
	return static_branch_unlikely(&kmp_opts_key);
}

#endif /* _KMEMPROF_OPTIONS_H */
