/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: what the module shares with its KUnit suites (tests/kunit/):
 * the events, kinds and statistics they name, the totals and histograms
 * they read, the state changes of control.c, and the test hooks of
 * testhooks.c (exported GPL-only, or for KUnit alone where the kernel
 * can). The module's own interfaces are in module/internal.h.
 */
#ifndef _KMEMPROF_KMEMPROF_H
#define _KMEMPROF_KMEMPROF_H

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/types.h>

/* The kmem events kmemprof attaches to, in the order stats prints them. */
enum kmp_event {
	KMP_EV_KMALLOC,
	KMP_EV_KMEM_CACHE_ALLOC,
	KMP_EV_KFREE,
	KMP_EV_KMEM_CACHE_FREE,
	KMP_EV_PAGE_ALLOC,
	KMP_EV_PAGE_FREE,
	KMP_EV_PERCPU_ALLOC,
	KMP_EV_PERCPU_FREE,
	KMP_EV_NR,
	/* no event: a hook's object, or one the KUnit suites enter */
	KMP_EV_NONE = KMP_EV_NR,
};

/* What a tag counts. Each kind is its own key space in every table. */
enum kmp_kind {
	KMP_KIND_SLAB,
	KMP_KIND_PAGE,
	KMP_KIND_PERCPU,
	KMP_KIND_NR,
};

#define KMP_KIND_ALL	((1U << KMP_KIND_NR) - 1)

/* A tag's totals over all CPUs, as the views and tests see them. */
struct kmp_totals {
	u64 allocs;
	u64 frees;
	u64 bytes;
	u64 freed;
	u64 req;
	u64 reqfreed;
	u64 live_bytes;
	u64 live_objs;
	u64 live_req;
	u64 sampled;	/* kmemprof_sum_range(): tags marked sampled:yes */
};

/* Self-statistics, per CPU; see Documentation/kmemprof.rst. */
enum kmp_stat {
	KMP_ST_DROP_TAGS,	/* events lost: the tag pool was full */
	KMP_ST_DROP_LIVE,	/* allocations not tracked: live table full */
	KMP_ST_UNPAIRED_SLAB,	/* frees that found no live entry */
	KMP_ST_UNPAIRED_PAGE,
	KMP_ST_UNPAIRED_PERCPU,
	KMP_ST_STALE,		/* entries replaced: their free was not seen */
	KMP_ST_LARGE_DUP,	/* repeated kmalloc events for one object */
	KMP_ST_PAGE_SPLIT,	/* page blocks split by a free of a part */
	KMP_ST_PAGE_MOVED,	/* page blocks whose owner followed a migration */
	KMP_ST_PAGE_RETURNED,	/* frees of free pages given back (contig) */
	KMP_ST_PRIOR_PAGES,	/* pages entered as allocated before load */
	KMP_ST_PRIOR_FREED,	/* frees of those before the walk reached them */
	KMP_ST_SKIP_NMI,	/* events skipped in NMI context */
	KMP_ST_DROP_HIST,	/* tags without histograms: pool full */
	KMP_ST_DROP_STACKS,	/* sampled stacks lost: stack store full */
	KMP_ST_FILTERED,	/* allocations outside min_size..max_size */
	KMP_ST_UNPAIRED_OLD,	/* of unpaired.slab: on a slab from before */
	KMP_ST_DROP_OWNERS,	/* allocations charged to no owner: pool full */
	KMP_ST_NR,
};

/* Size and lifetime histograms (hist.c), per tag and global. */
#define KMP_SIZE_BUCKETS	20	/* <=8, <=16, ... <=2M, >2M; pages: order */
#define KMP_LIFE_BUCKETS	36	/* <1us, <2us, ... >=2^34 us */

struct kmp_hist_totals {
	u64 size[KMP_SIZE_BUCKETS];
	u64 req[KMP_SIZE_BUCKETS];
	u64 life[KMP_LIFE_BUCKETS];
	u64 xcpu;	/* paired frees on another CPU than the allocation */
	u64 xcluster;	/* ... on another cluster */
};

/* The buckets: see the top of hist.c and Documentation/kmemprof.rst. */
static inline unsigned int kmp_size_bucket(enum kmp_kind kind, size_t bytes)
{
	unsigned int b;

	if (kind == KMP_KIND_PAGE)
		b = bytes > PAGE_SIZE ? order_base_2(bytes >> PAGE_SHIFT) : 0;
	else
		b = bytes <= 8 ? 0 : order_base_2(bytes) - 3;
	return min_t(unsigned int, b, KMP_SIZE_BUCKETS - 1);
}

static inline unsigned int kmp_life_bucket(u64 ns)
{
	return min_t(unsigned int, fls64(ns >> 10), KMP_LIFE_BUCKETS - 1);
}

/* The clock of lifetimes and ages, in ns: see clock.c. */
typedef u64 kmp_clock_t(void);

/* control.c: the state the knobs change, under one mutex. */
int kmemprof_set_enabled(bool on);
bool kmemprof_is_enabled(void);
int kmemprof_set_events(unsigned int kinds);
unsigned int kmemprof_events(void);
int kmemprof_reset(void);
int kmemprof_set_sample_rate(unsigned int rate);

/* probes.c and options.c, which the views and the KUnit suites use. */
u64 kmemprof_event_count(enum kmp_event ev);
const char *kmemprof_event_name(enum kmp_event ev);
int kmemprof_parse_events(const char *s, unsigned int *kinds);

#endif /* _KMEMPROF_KMEMPROF_H */
