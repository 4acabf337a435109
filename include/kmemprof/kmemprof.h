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

/* For the KUnit suites. */
u64 kmemprof_event_count(enum kmp_event ev);
const char *kmemprof_event_name(enum kmp_event ev);
u64 kmemprof_stat(enum kmp_stat st);
int kmemprof_parse_events(const char *s, unsigned int *kinds);
int kmemprof_set_knob(const char *name, unsigned int val);
int kmemprof_get_knob(const char *name, unsigned int *val);
void kmemprof_test_knob_point(void (*fn)(const char *name, unsigned int val));
unsigned int kmemprof_test_default_max_live(unsigned long mib);
int kmemprof_sum_callers(enum kmp_kind kind, unsigned long start,
			 unsigned long end, unsigned long cstart,
			 unsigned long cend, struct kmp_totals *t);
int kmemprof_sum_range(enum kmp_kind kind, unsigned long start,
		       unsigned long end, struct kmp_totals *t,
		       bool *inaccurate);
int kmemprof_hist_range(enum kmp_kind kind, unsigned long start,
			unsigned long end, struct kmp_hist_totals *t);
void kmemprof_set_clock(kmp_clock_t *clock);
int kmemprof_test_counter(u64 *before, u64 *ours, u64 *after, bool *inl);
int kmemprof_test_attach_order(unsigned int *n);
int kmemprof_cpu_cluster(int cpu);
s64 kmemprof_test_walk(void (*mid)(void *arg), void *arg);

/* An object of the live table, as kmemprof_test_walk_reuse() reports it. */
struct kmp_test_obj {
	u64 time;
	u32 tag;
	u32 size;
	u32 req;
	u32 cpu;
};

int kmemprof_test_walk_reuse(const void *a, const void *b,
			     struct kmp_test_obj *was, struct kmp_test_obj *now,
			     struct kmp_test_obj *seen, int n);
int kmemprof_test_get_reuse(const void *a, const void *b,
			    struct kmp_test_obj *was, struct kmp_test_obj *now,
			    struct kmp_test_obj *seen);
bool kmemprof_hooked(const char *name);
void kmemprof_test_hook_refuse(const char *name, unsigned int n);
int kmemprof_test_rescan(void);
void kmemprof_test_frontier(unsigned long pfn);
void kmemprof_test_nmi_alloc(unsigned long site, const void *ptr,
			     size_t size);
void kmemprof_test_nmi_free(const void *ptr);
void kmemprof_test_nmi_page_free(const struct page *page, unsigned int order);
void kmemprof_test_nmi_flush(void);
void kmemprof_test_page_forget(const struct page *page);
void kmemprof_test_page_move(const struct page *dst, const struct page *src,
			     unsigned int order);
struct seq_file;
int kmemprof_test_proc_line(struct seq_file *m, const char *site,
			    const char *callers, enum kmp_kind kind,
			    bool marks, const struct kmp_totals *t);
void kmemprof_test_frag(struct seq_file *m, u64 live_bytes, u64 live_req);
int kmemprof_sym_text(unsigned long addr, char *buf, char *kernel,
		      bool *indexed);
unsigned long kmemprof_test_frame_fn_kind(const char *name);
unsigned long kmemprof_test_frame_kind(unsigned long addr, int *named);
void kmemprof_test_percent(struct seq_file *m, u64 part, u64 whole);
unsigned long kmemprof_test_page_walk(unsigned long fp, unsigned int *passed,
				      unsigned long *fast);
unsigned int kmemprof_test_stack_walk(unsigned long fp, unsigned long site,
				      unsigned long *frames, unsigned int n);
void kmemprof_test_watch(enum kmp_kind kind, unsigned long start,
			 unsigned long end);
unsigned int kmemprof_test_watched(void);
void kmemprof_test_stacked_off(unsigned int n);
void kmemprof_test_slab_event(unsigned long site, const void *ptr,
			      size_t size);
void kmemprof_test_slab_free_event(const void *ptr);
void kmemprof_test_page_event(unsigned long fp, const struct page *page,
			      unsigned int order);
void kmemprof_test_page_free_event(const struct page *page,
				   unsigned int order);
int kmemprof_test_pfn_event(unsigned long pfn, unsigned int order, bool free);
void kmemprof_test_code_going(unsigned long start, unsigned long end);
void kmemprof_test_slab_alloc(const void *ptr, size_t size);
void kmemprof_test_slab_free(const void *ptr);
void kmemprof_test_page_alloc(struct page *page, unsigned int order);

#endif /* _KMEMPROF_KMEMPROF_H */
