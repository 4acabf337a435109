/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the interface between the module's files, and the part of it
 * that the KUnit suites use (exported GPL-only).
 *
 * Data flows one way: tracepoint -> probe (probes.c) -> accounting
 * (account.c) -> tables (tags.c, live.c) -> views (procfs.c, debugfs.c).
 */
#ifndef _KMEMPROF_KMEMPROF_H
#define _KMEMPROF_KMEMPROF_H

#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/percpu.h>

#define KMP_KEY_DEPTH_MAX	4	/* callers in a stack-keyed tag */
#define KMP_STACK_DEPTH_MAX	16	/* frames in a sampled stack */
#define KMP_SITE_SEARCH		12	/* frames searched for the call site */
#define KMP_SITE_QUICK		6	/* ... in a first, short walk */
#define KMP_MAX_FRAMES		(KMP_SITE_SEARCH + KMP_STACK_DEPTH_MAX)

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

/* Per-CPU counters of one tag; live values are derived at read time. */
struct kmp_counters {
	u64 allocs;
	u64 frees;
	u64 bytes;	/* bytes allocated, cumulative */
	u64 freed;	/* bytes freed, cumulative */
	u64 req;	/* bytes requested, cumulative */
	u64 reqfreed;	/* requested bytes of freed objects */
};

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
};

/* Tag flags (bit numbers in kmp_tag.flags). */
enum {
	KMP_TAG_READY,		/* fully initialised; views may read it */
	KMP_TAG_INACCURATE,	/* a drop or a lost pairing touched it */
	KMP_TAG_GONE,		/* code of its key was unloaded */
	KMP_TAG_SAMPLED,	/* its frees are estimated: sample_rate > 1 */
	KMP_TAG_RELAY,		/* its events are relays: see compat.h */
};

struct kmp_tag {
	struct hlist_node hnode;	/* in the tag hash, until GONE */
	unsigned long site;		/* call site address */
	unsigned long callers[KMP_KEY_DEPTH_MAX]; /* key_depth callers */
	unsigned long flags;
	u8 kind;
	u8 ncallers;
	u32 hist;			/* histogram slot, KMP_NIL, or unset */
	const char *text;		/* "sym+off/len [mod] func:sym" */
	const char *ctext;		/* " caller:..." */
};

#define KMP_NIL		U32_MAX
#define KMP_HIST_UNSET	(U32_MAX - 1)	/* no slot asked for yet */

/* Self-statistics, per CPU; see Documentation/kmemprof.rst. */
enum kmp_stat {
	KMP_ST_DROP_TAGS,	/* events lost: the tag pool was full */
	KMP_ST_DROP_LIVE,	/* allocations not tracked: live table full */
	KMP_ST_UNPAIRED_SLAB,	/* frees that found no live entry */
	KMP_ST_UNPAIRED_PAGE,
	KMP_ST_UNPAIRED_PERCPU,
	KMP_ST_STALE,		/* entries replaced: their free was not seen */
	KMP_ST_LARGE_DUP,	/* repeated kmalloc events for one object */
	KMP_ST_PAGE_SPLIT,	/* page frees of another order than allocated */
	KMP_ST_SKIP_NMI,	/* events skipped in NMI context */
	KMP_ST_DROP_HIST,	/* tags without histograms: pool full */
	KMP_ST_DROP_STACKS,	/* sampled stacks lost: stack store full */
	KMP_ST_FILTERED,	/* allocations outside min_size..max_size */
	KMP_ST_NR,
};

/*
 * An object as the live table keeps it. The table stores it in 32 bytes
 * with its key; see live.c.
 */
struct kmp_obj {
	u64 time;	/* kmp_now() at allocation */
	u32 tag;
	u32 size;	/* bytes counted */
	u32 req;	/* bytes requested */
	u16 cpu;	/* allocating CPU */
};

/* Live-table keys: the low two bits say the kind, so kinds never mix. */
static inline unsigned long kmp_key_addr(enum kmp_kind kind, unsigned long a)
{
	return a | kind;	/* slab and percpu pointers are 4-aligned */
}

static inline unsigned long kmp_key_pfn(unsigned long pfn)
{
	return pfn << 2 | KMP_KIND_PAGE;
}

static inline enum kmp_kind kmp_key_kind(unsigned long key)
{
	return key & 3;
}

/* What kmp_live_insert() found. */
enum kmp_insert {
	KMP_INS_NEW,	/* a new entry */
	KMP_INS_FULL,	/* no room: not tracked */
	KMP_INS_STALE,	/* the key was live: its free was never seen */
};

/*
 * The allocation path runs with interrupts off: each probe turns them off
 * once, for the whole event. So it updates this CPU's counters with plain
 * loads and stores, no atomics: nothing else runs on this CPU meanwhile
 * (NMI is turned away first), and readers on other CPUs read whole,
 * aligned words.
 */
#define kmp_add(ptr, v)							\
	do {								\
		typeof(ptr) __p = (ptr);				\
									\
		WRITE_ONCE(*__p, *__p + (v));				\
	} while (0)

/*
 * Take the next entry of a pool of @max whose use count is @n: its index,
 * or -ENOSPC once the pool is used up. Entries are never given back
 * before a reset, so a counter is all a pool needs.
 */
static inline int kmp_pool_reserve(atomic_t *n, unsigned int max)
{
	int old = atomic_read(n);

	do {
		if (old >= max)
			return -ENOSPC;
	} while (!atomic_try_cmpxchg(n, &old, old + 1));
	return old;
}

/* account.c: what the probes call, with interrupts off. */
void kmp_account_alloc(enum kmp_kind kind, unsigned long site,
		       unsigned long key, size_t bytes, size_t req,
		       unsigned long fp);
void kmp_account_free(unsigned long key, size_t bytes);
void kmp_account_mark_live(unsigned int kinds);
void kmp_account_clear(void);
void kmp_stat_inc(enum kmp_stat st);
void kmp_stat_nmi(void);
u64 kmp_stat_read(enum kmp_stat st);
const char *kmp_stat_name(enum kmp_stat st);
void kmp_stats_reset(void);

/* tags.c */
extern unsigned int kmp_max_tags;
extern struct kmp_tag *kmp_tag_pool;
extern struct kmp_counters __percpu **kmp_ctr_blocks;

/* Counters are allocated per block of tags: alloc_percpu() caps a size. */
#define KMP_CTR_BLOCK		256

static inline struct kmp_tag *kmp_tag_at(u32 idx)
{
	return &kmp_tag_pool[idx];
}

static inline u32 kmp_tag_index(const struct kmp_tag *tag)
{
	return tag - kmp_tag_pool;
}

static inline struct kmp_counters __percpu *kmp_tag_counters(u32 idx)
{
	return kmp_ctr_blocks[idx / KMP_CTR_BLOCK] + idx % KMP_CTR_BLOCK;
}

int kmp_tags_init(void);
void kmp_tags_exit(void);
struct kmp_tag *kmp_tag_get(unsigned long site, enum kmp_kind kind,
			    const unsigned long *callers, unsigned int n);
u32 kmp_tags_used(void);
bool kmp_tag_ready(u32 idx);

void kmp_tag_totals(u32 idx, struct kmp_totals *t);
const char *kmp_tag_site(struct kmp_tag *tag, char *buf);
const char *kmp_tag_callers(struct kmp_tag *tag, char *buf);
struct seq_file;
void kmp_seq_tag_name(struct seq_file *m, struct kmp_tag *tag, char *buf);
void kmp_tags_reset(void);
const char *kmp_kind_name(enum kmp_kind kind);
size_t kmp_tags_memory(void);
struct module;
void kmp_tags_code_going(bool (*within)(unsigned long, const struct module *),
			 const struct module *mod);

/* live.c */
extern unsigned int kmp_max_live;
int kmp_live_init(void);
void kmp_live_exit(void);
void kmp_live_walk(void (*fn)(unsigned long key, const struct kmp_obj *obj,
			      void *priv), void *priv);
void kmp_live_clear(void);
u32 kmp_live_used(void);
size_t kmp_live_memory(void);

/* hist.c: size and lifetime histograms, per tag and global. */
#define KMP_SIZE_BUCKETS	20	/* <=8, <=16, ... <=2M, >2M; pages: order */
#define KMP_LIFE_BUCKETS	36	/* <1us, <2us, ... >=2^34 us */

struct kmp_hist_totals {
	u64 size[KMP_SIZE_BUCKETS];
	u64 req[KMP_SIZE_BUCKETS];
	u64 life[KMP_LIFE_BUCKETS];
	u64 xcpu;	/* paired frees on another CPU than the allocation */
	u64 xcluster;	/* ... on another cluster */
};

extern unsigned int kmp_max_hist;
int kmp_hist_init(void);
void kmp_hist_exit(void);
void kmp_hist_alloc(struct kmp_tag *tag, size_t bytes, size_t req, int d);
void kmp_hist_free(struct kmp_tag *tag, const struct kmp_obj *obj, u64 now);
bool kmp_hist_tag(const struct kmp_tag *tag, struct kmp_hist_totals *t);
void kmp_hist_global(enum kmp_kind kind, struct kmp_hist_totals *t);
void kmp_hist_reset(void);
size_t kmp_hist_memory(void);
u32 kmp_hist_used(void);
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

int kmp_cpu_cluster(int cpu);

/* Per-CPU breakdown, by the CPU the event ran on. */
struct kmp_cpu_totals {
	u64 allocs;
	u64 frees;
	u64 remote;	/* paired frees of objects allocated on another CPU */
	u64 xcluster;	/* ... on another cluster */
};

void kmp_cpu_totals(int cpu, struct kmp_cpu_totals *t);

/* The clock of lifetimes and ages, in ns: see kmp_now() in hist.c. */
typedef u64 kmp_clock_t(void);
u64 kmp_now(void);

/* stacks.c: sampled stacks, one record per (tag, stack). */
struct kmp_stack {
	u32 next;		/* in its hash chain */
	u32 tag;
	u32 hash;
	u32 depth;		/* frames; 0 while being written */
	atomic64_t allocs;	/* sampled allocations through this stack */
	atomic64_t bytes;
	const char *gone_text;	/* the frames, once some code went away */
	unsigned long frames[KMP_STACK_DEPTH_MAX];
};

extern unsigned int kmp_max_stacks;
int kmp_stacks_init(void);
void kmp_stacks_exit(void);
void kmp_stack_record(u32 tag, const unsigned long *frames, unsigned int n,
		      size_t bytes);
u32 kmp_stacks_used(void);
struct kmp_stack *kmp_stack_at(u32 idx);
size_t kmp_stacks_memory(void);
void kmp_stacks_reset(void);
void kmp_stacks_code_going(bool (*within)(unsigned long,
					  const struct module *),
			   const struct module *mod);

/* The knobs read on the allocation path; see sysctl.c. */
extern unsigned int kmp_stack_depth;
extern unsigned int kmp_stack_sample;
extern unsigned int kmp_key_depth;
extern unsigned int kmp_sample_rate;
extern unsigned int kmp_min_size;
extern unsigned int kmp_max_size;

/* callsite.c */
struct kmp_frames {
	unsigned long e[KMP_MAX_FRAMES];
	unsigned long callers[KMP_KEY_DEPTH_MAX];
	unsigned int n;
	int site;	/* index of the call site in e[], or -1 */
};

bool kmp_site_needs_unwind(enum kmp_kind kind, unsigned long call_site);
bool kmp_site_is_relay(unsigned long site);
unsigned long kmp_unwind(struct kmp_frames *f, enum kmp_kind kind,
			 unsigned long call_site, unsigned int after);
int kmp_frame_text(char *buf, unsigned long addr);
void kmp_callers_text(const struct kmp_tag *tag, char *buf);
/* sprint_symbol()'s room, plus " func:" and the symbol again. */
#define KMP_SITE_TEXT_LEN	(2 * KSYM_SYMBOL_LEN)
/* " caller:<frame>" for each of KMP_KEY_DEPTH_MAX callers. */
#define KMP_CALLERS_TEXT_LEN	(KMP_KEY_DEPTH_MAX * (KSYM_SYMBOL_LEN + 8))
#define KMP_TAG_TEXT_LEN	(KMP_SITE_TEXT_LEN + KMP_CALLERS_TEXT_LEN)
int kmp_site_text(char *buf, unsigned long site);

/* probes.c */
int kmp_probes_init(void);

int kmp_probes_set(bool enabled, unsigned int kinds);
unsigned int kmp_probes_avail(void);
void kmp_events_reset(void);
u64 kmp_probe_samples(void);
u64 kmp_probe_ns(void);

/* control.c: the state the knobs change, under one mutex. */
int kmemprof_set_enabled(bool on);
bool kmemprof_is_enabled(void);
int kmemprof_set_events(unsigned int kinds);
unsigned int kmemprof_events(void);
int kmemprof_reset(void);
int kmemprof_set_sample_rate(unsigned int rate);
void kmp_control_exit(void);
int kmemprof_set_option(unsigned int *var, unsigned int val);
int kmp_views_lock(void);
void kmp_views_unlock(void);
extern unsigned int kmp_leak_age_ms;

/* procfs.c, sysctl.c, debugfs.c */
int kmp_procfs_init(void);
void kmp_procfs_exit(void);
int kmp_sysctl_init(void);
void kmp_sysctl_exit(void);
int kmp_debugfs_init(void);
void kmp_debugfs_exit(void);

/* of.c: boot-time defaults from a device-tree node. */
struct device_node;
struct device_node *kmp_of_node(void);
void kmp_of_put(struct device_node *np);
int kmp_of_u32(struct device_node *np, const char *name, u32 min, u32 max,
	       u32 *val);
int kmp_of_events(struct device_node *np, unsigned int *kinds);
void kmp_of_knobs(struct device_node *np);

/* For the KUnit suites. */
u64 kmemprof_event_count(enum kmp_event ev);
const char *kmemprof_event_name(enum kmp_event ev);
u64 kmemprof_stat(enum kmp_stat st);
int kmemprof_parse_events(const char *s, unsigned int *kinds);
int kmemprof_set_knob(const char *name, unsigned int val);
int kmemprof_sum_callers(enum kmp_kind kind, unsigned long start,
			 unsigned long end, unsigned long cstart,
			 unsigned long cend, struct kmp_totals *t);
int kmemprof_sum_range(enum kmp_kind kind, unsigned long start,
		       unsigned long end, struct kmp_totals *t,
		       bool *inaccurate);
int kmemprof_hist_range(enum kmp_kind kind, unsigned long start,
			unsigned long end, struct kmp_hist_totals *t);
void kmemprof_set_clock(kmp_clock_t *clock);
int kmemprof_cpu_cluster(int cpu);

#endif /* _KMEMPROF_KMEMPROF_H */
