/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: what only the module's own files share, and the hot path.
 *
 * Data flows one way: tracepoint -> probes (probes.c) -> accounting
 * (account.c) -> tables (tags.c, live.c, pfnmap.c, hist.c, stacks.c) ->
 * views (procfs.c, debugfs.c). The leaves below the tables (options.c,
 * stat.c, clock.c, topology.c, callsite.c) call nothing of kmemprof's;
 * control.c changes state (and has prior.c enter the page blocks from
 * before the page probes), main.c alone owns lifetimes. No file calls a
 * file above it: tools/rig/callgraph.py checks the built objects.
 *
 * Notes on locking
 * ----------------
 *
 * Locks, what each protects, and who takes it:
 *
 * - kmp_control_lock (mutex, control.c): every change of state (enabled,
 *   events, reset, the options and kmp_mode with its static key, attaching
 *   and detaching probes), and the walks of the live table by the ages
 *   and leaks views (kmp_walk_views()), so a reset never empties the table
 *   under a walk. Process context only.
 * - kmp_gone_lock (mutex, main.c): one module notifier call at a time into
 *   the tables. Process context only.
 * - kmp_tag_locks[] (raw spinlocks, tags.c): the tag hash's buckets, for
 *   inserts (from the probes, interrupts already off) and removals (the
 *   notifier, irqsave). Lookups take none (RCU).
 * - kmp_sites_lock (raw spinlock, irqsave, tags.c): inserts into the site
 *   table and making tombs. Lookups take none.
 * - kmp_spill_locks[] and kmp_spill_free.lock (raw spinlocks, live.c): the
 *   live table's spill chains and its free list. The slots take none.
 * - kmp_split_locks[] (raw spinlocks, account.c): page frees that find no
 *   entry of their order at their PFN, one block of the largest order each.
 * - kmp_stack_locks[] (raw spinlocks, stacks.c): inserts into the stack
 *   store's chains. kmp_stack_text_lock (mutex, stacks.c): the texts of
 *   stacks through code that went away, against reset.
 * - kmp_names_lock (mutex, callsite.c): the cache of symbol names.
 *
 * The probes and hooks run in any context, with interrupts off; they take
 * only raw spinlocks, never a mutex, and never sleep. In NMI they take no
 * lock at all: nmi.c does the lock-free steps and leaves the rest to an
 * irq_work on the same CPU, through a per-CPU ring (its note says why
 * program order is enough there).
 * - The hooks (hooks.c) are registered and unregistered with ftrace under
 *   kmp_control_lock: kmp_control_lock -> ftrace_lock (the kernel's).
 *
 * Nesting, outermost first (nothing else nests):
 *
 *   kmp_control_lock -> tracepoints_mutex (attaching, detaching)
 *   kmp_control_lock -> cpus_read_lock, jump_label_mutex (the static key)
 *   kmp_control_lock -> kmp_spill_locks[] -> kmp_spill_free.lock
 *   kmp_split_locks[] -> kmp_spill_locks[] -> kmp_spill_free.lock
 *   kmp_control_lock -> kmp_stack_text_lock (reset)
 *   module_notify_list (the kernel's rwsem) -> kmp_gone_lock
 *     -> kmp_names_lock, kmp_tag_locks[], kmp_sites_lock,
 *        kmp_stack_text_lock (the notifier; module_mutex is not held)
 *   kmp_tag_locks[] -> kmp_sites_lock (a new tag enters the site table)
 *   kmp_names_lock -> module_kset's list_lock (the kernel's spinlock: a
 *     module found by address for its symbol index, callsite.c)
 *
 * Lifetimes:
 *
 * - Every table is allocated at load before the module notifier is
 *   registered and the probes attached, and freed at unload only after
 *   the probes are detached (tracepoint_synchronize_unregister()) and the
 *   notifier unregistered: no probe and no notifier call ever runs against
 *   a table that is not there (main.c says the order).
 * - A tag is never freed before unload: live entries, site table entries
 *   and stack records name it by index. Its texts are set once and freed
 *   at unload. A site table entry is never reused; when its code goes, it
 *   becomes a tomb.
 * - A live-table key or a PFN has one owner at a time (live.c, pfnmap.c).
 * - Stack records and their texts go only at reset, with the probes
 *   detached, after an RCU grace period (stacks.c).
 *
 * The hot path
 * ------------
 *
 * The common path of every probe is inline here, so that an event at the
 * defaults makes no call: find the tag from the site table (tags.c), add
 * to this CPU's counters, and enter or take the object in the PFN map
 * (pfnmap.c) or the live table (live.c). Anything else (a site seen for
 * the first time, a full group, a stale entry, any option on) returns
 * false before changing anything, and the probe takes the general path in
 * account.c.
 *
 * The options live in one word, kmp_mode, rebuilt under kmp_control_lock
 * whenever a knob changes (control.c), with the static keys of the
 * options that are on; kmp_opts_key, the probes' one test, is on with any
 * of them but sample_rate's. At the defaults it is a NOP, and the general
 * path, with its clock reads, histograms and unwinding, is never entered.
 * A probe that runs across a change sees the old mode or the new one for
 * that event; every table is shared by both paths.
 */
#ifndef _KMEMPROF_INTERNAL_H
#define _KMEMPROF_INTERNAL_H

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched/task_stack.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>

#define KMP_KEY_DEPTH_MAX	4	/* callers in a stack-keyed tag */
#define KMP_STACK_DEPTH_MAX	16	/* frames in a sampled stack */
#define KMP_SITE_SEARCH		12	/* frames searched for the call site */
#define KMP_SITE_QUICK		6	/* ... in a first, short walk */
#define KMP_MAX_FRAMES		(KMP_SITE_SEARCH + KMP_STACK_DEPTH_MAX)

/* Per-CPU counters of one tag; live values are derived at read time. */
struct kmp_counters {
	u64 allocs;
	u64 frees;
	u64 bytes;	/* bytes allocated, cumulative */
	u64 freed;	/* bytes freed, cumulative */
	u64 req;	/* bytes requested, cumulative */
	u64 reqfreed;	/* requested bytes of freed objects */
};

/* Tag flags (bit numbers in kmp_tag.flags). */
enum {
	KMP_TAG_READY,		/* fully initialised; views may read it */
	KMP_TAG_INACCURATE,	/* a drop or a lost pairing touched it */
	KMP_TAG_GONE,		/* code of its key was unloaded */
	KMP_TAG_SAMPLED,	/* its frees are estimated: sample_rate > 1 */
	KMP_TAG_RELAY,		/* its events are relays: see compat.h */
	KMP_TAG_PRIOR,		/* a before-load tag (prior.c) */
};

struct kmp_tag {
	struct hlist_node hnode;	/* in the tag hash, until GONE */
	unsigned long site;		/* call site address */
	unsigned long callers[KMP_KEY_DEPTH_MAX]; /* key_depth callers */
	unsigned long flags;
	u8 kind;
	u8 ncallers;
	u32 hist;			/* histogram slot, KMP_NIL, or unset */
	const struct kmp_text *text;	/* "sym+off/len [mod] func:sym" */
	const struct kmp_text *ctext;	/* " caller:..." */
};

/* A tag's text, kept with its length for the views. */
struct kmp_text {
	unsigned int len;
	char str[];
};

#define KMP_NIL		U32_MAX
#define KMP_HIST_UNSET	(U32_MAX - 1)	/* no slot asked for yet */

/*
 * An object as the live table keeps it. A slot stores it in 24 bytes with
 * its key, and its time apart, where the table keeps times; a spill entry
 * in 32; see live.c.
 */
struct kmp_obj {
	u64 time;	/* kmp_now() at allocation */
	u32 tag;
	u32 size;	/* bytes counted */
	u32 req;	/* bytes requested */
	u16 cpu;	/* allocating CPU */
};

/*
 * Live-table keys: the low two bits say the kind, so kinds never mix, and
 * none is 0 (empty: slab pointers are not NULL) or KMP_BUSY (3).
 */
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

/* account.c: what the probes call, with interrupts off; stat.c. */
void kmp_account_alloc(enum kmp_kind kind, unsigned long site,
		       unsigned long key, size_t bytes, size_t req,
		       unsigned long fp);
void kmp_account_free(unsigned long key, size_t bytes);
void kmp_account_freed(const struct kmp_obj *obj, size_t bytes);
void kmp_account_added(u32 tag, u32 size, u32 req);
void kmp_account_alloc_nmi(unsigned long site, unsigned long key, u32 size,
			   u32 req, const unsigned long *callers,
			   unsigned int n, const struct kmp_obj *stale);
void kmp_account_mark_live(unsigned int kinds);
void kmp_account_page_unfollowed(unsigned long pfn);
bool kmp_account_prior(unsigned long pfn, unsigned int order, u32 tag);
void kmp_account_prior_undo(unsigned long pfn, unsigned int order, u32 tag);
u32 kmp_account_pfn_peek(unsigned long pfn);
void kmp_account_pfn_drop(unsigned long pfn, u32 v, bool freed);

/*
 * prior.c: the page blocks allocated before the page probes were attached,
 * on tags of sites that are not code: KMP_SITE_PRIOR + (kind << shift), one
 * per enum kmp_prior, and kmemprof's own tables last (KMP_SITE_SELF).
 */
enum kmp_prior {
	KMP_PRIOR_SLAB,
	KMP_PRIOR_ANON,
	KMP_PRIOR_FILE,
	KMP_PRIOR_PGTABLE,
	KMP_PRIOR_OTHER,
	KMP_PRIOR_RESERVED,
	KMP_PRIOR_NR,
};

#define KMP_SITE_PRIOR		0x100UL
#define KMP_SITE_PRIOR_SHIFT	4
#define KMP_SITE_SELF		(KMP_SITE_PRIOR + \
				 (KMP_PRIOR_NR << KMP_SITE_PRIOR_SHIFT))

/* Whether @site is one of prior.c's, not code. */
static inline bool kmp_site_synthetic(unsigned long site)
{
	return site >= KMP_SITE_PRIOR && site <= KMP_SITE_SELF;
}

void kmp_prior_scan(void);
size_t kmp_self_memory(void);
size_t kmp_cpu_bufs_memory(void);

/*
 * The memory of each table, area by area, for prior.c: @fn is called with
 * the address and size of each allocation (per CPU: each CPU's copy).
 */
typedef void (*kmp_area_fn)(const void *addr, size_t size, void *priv);
void kmp_tags_areas(kmp_area_fn fn, void *priv);
void kmp_live_areas(kmp_area_fn fn, void *priv);
void kmp_hist_areas(kmp_area_fn fn, void *priv);
void kmp_stacks_areas(kmp_area_fn fn, void *priv);
void kmp_pfnmap_areas(kmp_area_fn fn, void *priv);
void kmp_account_clear(void);
int kmp_account_init(void);
void kmp_account_exit(void);
size_t kmp_account_memory(void);
struct kmp_stats {
	u64 count[KMP_ST_NR];
	u64 nmi;	/* KMP_ST_SKIP_NMI, counted apart: see kmp_stat_nmi() */
};

DECLARE_PER_CPU(struct kmp_stats, kmp_stats);

/* With interrupts off, from the allocation path (inline: the fast paths). */
static __always_inline void kmp_stat_inc(enum kmp_stat st)
{
	lockdep_assert_irqs_disabled();
	kmp_add(this_cpu_ptr(&kmp_stats.count[st]), 1);
}

static __always_inline void kmp_stat_add(enum kmp_stat st, u64 n)
{
	lockdep_assert_irqs_disabled();
	kmp_add(this_cpu_ptr(&kmp_stats.count[st]), n);
}

void kmp_stat_nmi(void);
u64 kmp_stat_read(enum kmp_stat st);
const char *kmp_stat_name(enum kmp_stat st);
void kmp_stats_reset(void);

/*
 * The words every event reads, side by side, so that the fast paths reach
 * them all from one address (options.c). Each is set where its table is
 * made, while no probe is attached, and only read while one is; but
 * pages_hashed (account.c), which page blocks set until the next reset,
 * and times (live.c), set once while the probes may be attached.
 */
struct kmp_site;
struct kmp_slot;

struct kmp_tables {
	/* the site table (tags.c) */
	struct kmp_site *sites;
	unsigned long sites_mask;
	unsigned int sites_shift;	/* 32 - log2(entries) */
	/* the live table's slots (live.c) */
	unsigned int group_shift;	/* 32 - kmp_group_bits */
	struct kmp_slot *slots;
	atomic_t *group_spill;
	/* the tags' counters (tags.c) */
	struct kmp_counters __percpu **ctr_blocks;
	/* the PFN map (pfnmap.c) */
	unsigned long pfn_base;
	unsigned long pfn_span;
	u32 **pfn_chunks;
	const struct page *pfn_page;	/* pfn_to_page(pfn_base) */
	/*
	 * Page blocks live in the live table rather than the PFN map while
	 * lifetimes or histograms are on, since the map keeps no time; set
	 * from then until the next reset, so a free looks in both.
	 */
	bool pages_hashed;
	/*
	 * The slots' times (live.c), one a slot: NULL until lifetimes or
	 * histograms first go on, then set before kmp_time_key and kept.
	 */
	u64 *times;
};

extern struct kmp_tables kmp_tab;

/* tags.c */
extern unsigned int kmp_max_tags;
extern struct kmp_tag *kmp_tag_pool;

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
	return kmp_tab.ctr_blocks[idx / KMP_CTR_BLOCK] + idx % KMP_CTR_BLOCK;
}

int kmp_tags_init(void);
void kmp_tags_exit(void);
struct kmp_tag *kmp_tag_get(unsigned long site, enum kmp_kind kind,
			    const unsigned long *callers, unsigned int n);
u32 kmp_tags_used(void);
bool kmp_tag_ready(u32 idx);

void kmp_tag_totals(u32 idx, struct kmp_totals *t);
const char *kmp_tag_site(struct kmp_tag *tag, char *buf, size_t *len);
const char *kmp_tag_callers(struct kmp_tag *tag, char *buf, size_t *len);
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
unsigned int kmp_default_max_live(unsigned long mib);
int kmp_live_init(void);
void kmp_live_exit(void);
void kmp_live_walk(void (*fn)(unsigned long key, const struct kmp_obj *obj,
			      void *priv), void *priv);
void kmp_live_clear(void);
int kmp_live_times_on(void);	/* with kmp_control_lock held */
void kmp_live_times_zero(void);	/* the same */
u32 kmp_live_used(void);
extern void (*kmp_live_test_point)(unsigned long key);	/* KMP_TEST_HOOKS */
extern unsigned long kmp_test_watch[2];		/* KMP_TEST_HOOKS, account.c */
extern enum kmp_kind kmp_test_watch_kind;
extern atomic_t kmp_test_watched;
size_t kmp_live_memory(void);

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

/* topology.c */
int kmp_topology_init(void);
void kmp_topology_exit(void);
int kmp_cpu_cluster(int cpu);

/* Per-CPU breakdown, by the CPU the event ran on. */
struct kmp_cpu_totals {
	u64 allocs;
	u64 frees;
	u64 remote;	/* paired frees of objects allocated on another CPU */
	u64 xcluster;	/* ... on another cluster */
};

void kmp_cpu_totals(int cpu, struct kmp_cpu_totals *t);

u64 kmp_now(void);
void kmp_clock_init(void);
void kmp_clock_set(kmp_clock_t *clock);	/* KMP_TEST_HOOKS only */

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
	/* Return addresses a page event's walk passed over (kmp_page_site()) */
	unsigned long skip[KMP_SITE_SEARCH];
	unsigned int nskip;
};

DECLARE_PER_CPU(unsigned long, kmp_exit_ret);
int kmp_callsite_init(void);
void kmp_callsite_exit(void);
size_t kmp_callsite_memory(void);
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

int kmp_probes_set(unsigned int kinds, bool frees);
/* hooks.c's kmem_cache_alloc_bulk(): the slot of @s, as the probe charges */
size_t kmp_cache_bulk_slot(struct kmem_cache *s, void **p, size_t n);
int kmp_probes_log_order(unsigned int *n);	/* KMP_TEST_HOOKS only */
unsigned int kmp_probes_avail(void);
#ifdef KMEMPROF_TEST_BUILD
bool kmp_test_missing(const char *name);
#else
/* test_missing is a parameter of the rig's test build alone. */
static inline bool kmp_test_missing(const char *name)
{
	return false;
}
#endif
void kmp_events_reset(void);
u64 kmp_probe_samples(void);
u64 kmp_probe_ns(void);

void kmp_control_exit(void);
int kmemprof_set_option(unsigned int *var, unsigned int val);
int kmp_set_option_if(unsigned int *var, unsigned int val,
		      bool (*ok)(unsigned int val));
int kmp_walk_views(void (*fn)(unsigned long key, const struct kmp_obj *obj,
			      void *priv), void *priv);
extern unsigned int kmp_leak_age_ms;

/* procfs.c, sysctl.c, debugfs.c */
struct kmp_proc_line {		/* a line of /proc/kmemprof, in parts */
	const char *site, *callers, *kind;
	size_t site_len, callers_len, kind_len;
	unsigned long flags;	/* the tag's: KMP_TAG_* */
	const struct kmp_totals *t;
};

void kmp_proc_put(struct seq_file *m, const struct kmp_proc_line *l); /* tests */
/* debugfs.c: " frag:<percent> waste:<bytes>", and "<percent>%" (tests) */
void kmp_put_frag(struct seq_file *m, u64 live_bytes, u64 live_req);
void kmp_put_permille(struct seq_file *m, u64 part, u64 whole);
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

/* kmp_mode: the options; KMP_M_FAST those that the fast paths serve. */
#define KMP_M_HIST	BIT(0)	/* size, lifetime and cross-CPU histograms */
#define KMP_M_LIFE	BIT(1)	/* allocation times, for ages and leaks */
#define KMP_M_TIMING	BIT(2)	/* time one probe in KMP_TIME_EVERY */
#define KMP_M_STACKS	BIT(3)	/* stack_depth > 0 */
#define KMP_M_KEY	BIT(4)	/* key_depth > 0 */
#define KMP_M_SAMPLE	BIT(5)	/* sample_rate > 1 */
#define KMP_M_FILTER	BIT(6)	/* min_size or max_size set */
#define KMP_M_FAST	(KMP_M_HIST | KMP_M_LIFE | KMP_M_SAMPLE | KMP_M_STACKS | \
			 KMP_M_KEY)

/* Longest "slab,page,percpu" list, with room to spare (options.c). */
#define KMP_KINDS_MAX	32
void kmp_format_kinds(char *buf, size_t len, unsigned int kinds);

extern unsigned int kmp_mode;
DECLARE_STATIC_KEY_FALSE(kmp_slow_key);
DECLARE_STATIC_KEY_FALSE(kmp_sample_key);
DECLARE_STATIC_KEY_FALSE(kmp_time_key);
DECLARE_STATIC_KEY_FALSE(kmp_opts_key);
DECLARE_PER_CPU(u32, kmp_track_ctr);
int kmp_mode_update(void);	/* with kmp_control_lock held */

/* Knobs of the options (sysctl.c). */
extern unsigned int kmp_hist_on;
extern unsigned int kmp_life_on;
extern unsigned int kmp_timing_on;

/*
 * The general path takes every event while an option is on, but for
 * those that the fast paths take on: sample_rate (kmp_sampling()), and
 * histograms and lifetimes (kmp_timed()).
 */
static __always_inline bool kmp_slow(void)
{
	return static_branch_unlikely(&kmp_slow_key);
}

static __always_inline bool kmp_sampling(void)
{
	return static_branch_unlikely(&kmp_sample_key);
}

/* Histograms or lifetimes on: objects carry their time and CPU. */
static __always_inline bool kmp_timed(void)
{
	return static_branch_unlikely(&kmp_time_key);
}

/*
 * kmp_slow_key, kmp_time_key or kmp_stack_key on: the probes' one test at
 * the defaults (probe.h), whose copy of the fast paths tests none of them
 * (sample_rate it serves itself).
 */
static __always_inline bool kmp_opts(void)
{
	return static_branch_unlikely(&kmp_opts_key);
}

/* True once in @n calls on this CPU (always, for n <= 1); irqs off. */
static __always_inline bool kmp_one_in(u32 __percpu *ctr, unsigned int n)
{
	u32 *c = this_cpu_ptr(ctr);

	if (n <= 1)
		return true;
	*c += 1;
	return !(*c % n);
}

/*
 * The hash of the site table and the live table, on every event: a key's
 * two halves folded into 32 bits, times the 32-bit golden ratio; a table
 * of 2^bits entries takes the top bits. Cheaper than hash_long() (a
 * 32-bit multiply by a constant two instructions long, not four), and no
 * table reaches 2^32 entries. Keys are compared whole, so keys that fold
 * alike only share a bucket.
 */
static __always_inline u32 kmp_hash(unsigned long key)
{
	return (u32)(key ^ (key >> 32)) * GOLDEN_RATIO_32;
}

/* --- The site table (tags.c) --- */

/*
 * One entry per call site of a tag keyed by its site alone, and per
 * return address of a frame that a page event's walk passes over. Keys
 * are (address << 2) | (kind + 1): kernel addresses have their top bits
 * set, so no two differ in those alone, and the low two bits are never 0,
 * not even for site 0 (a site the unwinder could not find): so no key is
 * 0, which is empty, or KMP_SITE_TOMB, a site whose code went away
 * (lookups go on past it).
 */
struct kmp_site {
	unsigned long key;
	struct kmp_counters __percpu *ctr;	/* the tag's counters */
	u32 idx;	/* tag index */
	u32 flags;	/* KMP_SITE_* */
};

#define KMP_SITE_TOMB	4UL	/* low bits 0: no kind */
#define KMP_SITE_FRAME	BIT(0)	/* a frame to pass over: go up one */
#define KMP_SITE_SLOW	BIT(1)	/* the general path: unwind, relay */
#define KMP_SITE_PROBES	8	/* entries looked at before giving up */

static __always_inline unsigned long kmp_site_key(unsigned long addr,
						  enum kmp_kind kind)
{
	BUILD_BUG_ON(KMP_KIND_NR > 3);
	return addr << 2 | (kind + 1);
}

/* Where the site table starts to look for @key. */
static __always_inline unsigned long kmp_site_index(unsigned long key)
{
	return kmp_hash(key) >> kmp_tab.sites_shift;
}

/*
 * Whether @key has an entry, into *@ep. Lock-free: see tags.c. (A bool
 * rather than the entry or NULL: the compiler then knows that an entry
 * found is not NULL, and tests nothing more.)
 */
static __always_inline bool kmp_site_get(unsigned long key,
					 const struct kmp_site **ep)
{
	unsigned long i = kmp_site_index(key);
	unsigned int n;

	for (n = 0; n < KMP_SITE_PROBES; n++) {
		/* pairs with the release in kmp_site_add() */
		unsigned long k = smp_load_acquire(&kmp_tab.sites[i].key);

		if (k == key) {
			*ep = &kmp_tab.sites[i];
			return true;
		}
		if (!k)
			return false;
		i = (i + 1) & kmp_tab.sites_mask;
	}
	return false;
}

/* The entry of @key, or NULL. */
static __always_inline const struct kmp_site *
kmp_site_find(unsigned long key)
{
	const struct kmp_site *e;

	return kmp_site_get(key, &e) ? e : NULL;
}

void kmp_site_add(unsigned long key, u32 idx, u32 flags);
u32 kmp_sites_count(void);
u32 kmp_tags_unnamed(void);
u64 kmp_tags_naming_ns(void);

/* This CPU's counters of tag @idx. */
static __always_inline struct kmp_counters *kmp_ctr(u32 idx)
{
	return this_cpu_ptr(kmp_tag_counters(idx));
}

/*
 * The counter helpers of both paths (probe.h, account.c): on this CPU's
 * counters @c of a tag, with interrupts off, @n allocations of @bytes
 * (@req requested) each, or @n frees. A negative @n takes allocations
 * back; the counters wrap as u64.
 */
static __always_inline void kmp_ctr_allocs(struct kmp_counters *c, s64 n,
					   u64 bytes, u64 req)
{
	kmp_add(&c->allocs, n);
	kmp_add(&c->bytes, n * bytes);
	kmp_add(&c->req, n * req);
}

static __always_inline void kmp_ctr_frees(struct kmp_counters *c, u64 n,
					  u64 bytes, u64 req)
{
	kmp_add(&c->frees, n);
	kmp_add(&c->freed, n * bytes);
	kmp_add(&c->reqfreed, n * req);
}

/* --- The live table (live.c) --- */

#define KMP_GROUP	4
/*
 * A slot being written. Live keys have their kind in the low two bits
 * (kmp_key_addr(), kmp_key_pfn()) and no kind is 3, so no key is
 * KMP_BUSY, not even PFN 0's (1) or a NULL percpu pointer's (2).
 */
#define KMP_BUSY	3UL

/* Its time is apart, in kmp_tab.times (kmp_slot_time()). */
struct kmp_slot {
	unsigned long key;
	u32 tag;
	u32 size;
	u32 req;
	u32 seq;	/* publishes of the slot, for the walkers: see live.c */
};

static_assert(sizeof(struct kmp_slot) == 24);

extern unsigned int kmp_group_bits;

/*
 * An object's time and CPU in one word: the time in units of 16 ns in the
 * low 52 bits (two years), the CPU above.
 */
#define KMP_TIME_SHIFT		4
#define KMP_CPU_SHIFT		52

static __always_inline u64 kmp_time_cpu(const struct kmp_obj *obj)
{
	return (obj->time >> KMP_TIME_SHIFT) | (u64)obj->cpu << KMP_CPU_SHIFT;
}

static __always_inline void kmp_time_cpu_split(u64 tc, struct kmp_obj *obj)
{
	obj->time = (tc & (BIT_ULL(KMP_CPU_SHIFT) - 1)) << KMP_TIME_SHIFT;
	obj->cpu = tc >> KMP_CPU_SHIFT;
}

static __always_inline u32 kmp_live_group(unsigned long key)
{
	return kmp_hash(key) >> kmp_tab.group_shift;
}

/*
 * The time of slot @s (kmp_time_cpu()), 0 for none: also where the times
 * are not allocated. Only right while the slot is held, as its other
 * fields: live.c's notes say what a slot filled with no time keeps.
 */
static __always_inline u64 kmp_slot_time(const struct kmp_slot *s)
{
	u64 *times = READ_ONCE(kmp_tab.times);

	return times ? READ_ONCE(times[s - kmp_tab.slots]) : 0;
}

static __always_inline void kmp_slot_set_time(struct kmp_slot *s,
					      u64 time_cpu)
{
	u64 *times = READ_ONCE(kmp_tab.times);

	if (times)
		WRITE_ONCE(times[s - kmp_tab.slots], time_cpu);
}

/*
 * The slots of group @g, 96 bytes a group. Written as (g * 3) << 5, which
 * the compiler makes two shifted adds, where g * 96 comes out as a
 * constant, a shift and a multiply; and hidden from it once made, so
 * that a scan of the group ends at the pointer plus 96, rather than at
 * the offset added again (a shift more at every event than the groups of
 * 128 bytes took).
 */
static __always_inline struct kmp_slot *kmp_live_slots(u32 g)
{
	unsigned long off = (unsigned long)(g * 3) << 5;
	struct kmp_slot *s;

	BUILD_BUG_ON(KMP_GROUP * sizeof(struct kmp_slot) != 3 << 5);
	s = (void *)kmp_tab.slots + off;
	OPTIMIZER_HIDE_VAR(s);
	return s;
}

static __always_inline void kmp_slot_get(const struct kmp_slot *s,
					 struct kmp_obj *obj)
{
	obj->tag = READ_ONCE(s->tag);
	obj->size = READ_ONCE(s->size);
	obj->req = READ_ONCE(s->req);
	kmp_time_cpu_split(kmp_slot_time(s), obj);
}

/*
 * Fill a slot this CPU holds as KMP_BUSY (claimed with a fully ordered
 * cmpxchg), and publish it as @key with the next sequence number.
 */
static __always_inline void kmp_slot_publish(struct kmp_slot *s,
					     unsigned long key,
					     const struct kmp_obj *obj)
{
	WRITE_ONCE(s->tag, obj->tag);
	WRITE_ONCE(s->size, obj->size);
	WRITE_ONCE(s->req, obj->req);
	kmp_slot_set_time(s, kmp_time_cpu(obj));
	WRITE_ONCE(s->seq, s->seq + 1);
	smp_store_release(&s->key, key);	/* pairs with the acquires */
}

/* Whether live @key is in its group's slots, with its slot in *@sp. */
static __always_inline bool kmp_live_find(unsigned long key,
					  struct kmp_slot **sp)
{
	struct kmp_slot *s = kmp_live_slots(kmp_live_group(key));
	unsigned int i;

	for (i = 0; i < KMP_GROUP; i++) {
		/* pairs with kmp_slot_publish()'s release */
		if (smp_load_acquire(&s[i].key) == key) {
			*sp = &s[i];
			return true;
		}
	}
	return false;
}

/* Take @key out of its group's slots, into @obj; false if not there. */
static __always_inline bool kmp_live_take(unsigned long key,
					  struct kmp_obj *obj)
{
	struct kmp_slot *s;

	if (!kmp_live_find(key, &s))
		return false;
	kmp_slot_get(s, obj);
	/* the reads above before the slot is free again */
	smp_store_release(&s->key, 0);
	return true;
}

/*
 * Claim a slot of @key's group for it, as KMP_BUSY: NULL, with nothing
 * changed, if the group has spilled, holds the key already, or has no
 * room. The four keys are read at once rather than in a loop, so the test
 * for the key and the pick of the first empty slot are compares with no
 * branch back.
 */
static __always_inline struct kmp_slot *kmp_live_claim(unsigned long key)
{
	u32 g = kmp_live_group(key);
	struct kmp_slot *s = kmp_live_slots(g), *empty;
	unsigned long k0, k1, k2, k3;

	BUILD_BUG_ON(KMP_GROUP != 4);
	if (atomic_read(&kmp_tab.group_spill[g]))
		return NULL;
	k0 = READ_ONCE(s[0].key);
	k1 = READ_ONCE(s[1].key);
	k2 = READ_ONCE(s[2].key);
	k3 = READ_ONCE(s[3].key);
	if (k0 == key || k1 == key || k2 == key || k3 == key)
		return NULL;
	if (!k0)
		empty = &s[0];
	else if (!k1)
		empty = &s[1];
	else if (!k2)
		empty = &s[2];
	else if (!k3)
		empty = &s[3];
	else
		return NULL;
	/* fully ordered: the walkers' sequence check needs it (live.c) */
	if (cmpxchg(&empty->key, 0, KMP_BUSY) != 0)
		return NULL;
	return empty;
}

/*
 * Fill a claimed slot, and publish it. A copy of the fast paths that
 * carries no time (kmp_timed() off) passes @time_cpu as a constant 0 and
 * stores none, so that the defaults' copy does no more than before the
 * times were apart: live.c's notes say what the slot keeps then. Only the
 * instruction count rests on the constant; a 0 the compiler cannot see
 * as one is stored.
 */
static __always_inline void kmp_live_fill(struct kmp_slot *s,
					  unsigned long key, u32 tag,
					  u32 size, u32 req, u64 time_cpu)
{
	WRITE_ONCE(s->tag, tag);
	WRITE_ONCE(s->size, size);
	WRITE_ONCE(s->req, req);
	if (!__builtin_constant_p(time_cpu) || time_cpu)
		kmp_slot_set_time(s, time_cpu);
	WRITE_ONCE(s->seq, s->seq + 1);
	/* the object before the key: pairs with the walkers' acquire */
	smp_store_release(&s->key, key);
}

/*
 * Enter a new object with no time (none stored: see kmp_live_fill()):
 * false, with nothing changed, if its group has spilled, holds the key
 * already, or has no room.
 */
static __always_inline bool kmp_live_add_fast(unsigned long key, u32 tag,
					      u32 size, u32 req)
{
	struct kmp_slot *s = kmp_live_claim(key);

	if (!s)
		return false;
	kmp_live_fill(s, key, tag, size, req, 0);
	return true;
}

enum kmp_insert kmp_live_insert(unsigned long key, const struct kmp_obj *obj,
				struct kmp_obj *old);
enum kmp_insert kmp_live_insert_spill(unsigned long key,
				      const struct kmp_obj *obj,
				      struct kmp_obj *old);
bool kmp_live_remove(unsigned long key, struct kmp_obj *obj);
bool kmp_live_get(unsigned long key, struct kmp_obj *obj);

/* --- The PFN map (pfnmap.c) --- */

#define KMP_PFN_CHUNK_SHIFT	15	/* 128 MiB of 4 KiB pages */
#define KMP_PFN_CHUNK		BIT(KMP_PFN_CHUNK_SHIFT)
#define KMP_PFN_STEP		512	/* frames between pfn_valid() tests */
#define KMP_PFN_VALID		BIT(31)
#define KMP_PFN_ORDER_SHIFT	24
#define KMP_PFN_TAG_MASK	(BIT(KMP_PFN_ORDER_SHIFT) - 1)

static __always_inline u32 kmp_pfn_entry(u32 tag, unsigned int order)
{
	return KMP_PFN_VALID | order << KMP_PFN_ORDER_SHIFT | tag;
}

/*
 * A block that migrated away (kmp_account_page_move()): its entry went
 * with its data to the destination, and this marker waits for the
 * source's own free, which it consumes. It is not VALID, so everything
 * else takes it for an empty slot, and an allocation writes over it.
 */
#define KMP_PFN_MOVED		BIT(30)

static __always_inline u32 kmp_pfn_moved(unsigned int order)
{
	return KMP_PFN_MOVED | order << KMP_PFN_ORDER_SHIFT;
}

static __always_inline u32 kmp_pfn_tag(u32 e)
{
	return e & KMP_PFN_TAG_MASK;
}

static __always_inline unsigned int kmp_pfn_order(u32 e)
{
	return (e >> KMP_PFN_ORDER_SHIFT) & 0x7f;
}

/* Whether the map covers frame @i from its base, with its entry in *@slotp. */
static __always_inline bool kmp_map_get(unsigned long i, u32 **slotp)
{
	u32 *chunk;

	if (unlikely(i >= kmp_tab.pfn_span))
		return false;
	chunk = kmp_tab.pfn_chunks[i >> KMP_PFN_CHUNK_SHIFT];
	if (unlikely(!chunk))
		return false;
	*slotp = &chunk[i & (KMP_PFN_CHUNK - 1)];
	return true;
}

/* Whether the map covers @pfn, with its entry in *@slotp. */
static __always_inline bool kmp_pfn_get(unsigned long pfn, u32 **slotp)
{
	return kmp_map_get(pfn - kmp_tab.pfn_base, slotp);
}

/*
 * The same from the page: with a virtual memory map (SPARSEMEM_VMEMMAP,
 * which arm64 and x86-64 always have), struct pages are one array, and a
 * page's index from the map's first frame is a subtraction rather than
 * page_to_pfn()'s.
 */
static __always_inline bool kmp_page_get(const struct page *page,
					 u32 **slotp)
{
#ifdef CONFIG_SPARSEMEM_VMEMMAP
	return kmp_map_get(page - kmp_tab.pfn_page, slotp);
#else
	return kmp_pfn_get(page_to_pfn(page), slotp);
#endif
}

/* The map's entry of @pfn, or NULL if the map does not cover it. */
static __always_inline u32 *kmp_pfn_slot(unsigned long pfn)
{
	u32 *slot;

	return kmp_pfn_get(pfn, &slot) ? slot : NULL;
}

int kmp_pfnmap_init(void);
void kmp_pfnmap_exit(void);
void kmp_pfnmap_clear(void);
void kmp_pfnmap_walk(void (*fn)(unsigned long pfn, u32 entry, void *priv),
		     void *priv);
size_t kmp_pfnmap_memory(void);

/* --- The call site of a page event: a walk of the frame records --- */

#define KMP_FP_FRAMES	6

/*
 * The records a page probe's walk passes without a lookup. The probe's
 * own returns into the tracepoint's iterator, whose own returns into the
 * function that holds trace_mm_page_alloc() (__alloc_pages() and, from
 * 6.15, alloc_pages_nolock()): neither is ever a call site. With static
 * calls a tracepoint with one probe calls it directly, without the
 * iterator, so there only the first is passed.
 */
#define KMP_PROBE_SKIP	(IS_ENABLED(CONFIG_HAVE_STATIC_CALL) ? 1 : 2)

#if KMP_HAVE_FP_WALK
/*
 * The bounds of the walks (here and in callsite.c): the last address a
 * frame record may start at on the stack that @fp, the walk's first
 * record, is on. The walk never leaves that stack: it stops at a link to
 * a record that is not strictly above the last one, not 8-aligned, or not
 * wholly on that stack (kmp_fp_stop()). A chain that goes on to another
 * stack (from the IRQ stack to the task's, which is the one move the
 * kernel's unwinder makes), or a corrupt x29, ends the walk there, and
 * the page event takes the general path, whose unwinder
 * (stack_trace_save()) knows the other stacks.
 *
 * The kernel's unwinder finds the IRQ stack from irq_stack_ptr, which no
 * kernel exports to modules. With VMAP_STACK it need not: every stack the
 * kernel runs on, the task's, the per-CPU IRQ stack and the SDEI and EFI
 * runtime stacks, is THREAD_SIZE long and aligned to THREAD_ALIGN (at
 * least THREAD_SIZE; arch_alloc_vmap_stack(), and the entry code's test
 * for an overflow relies on it), so the stack's end is @fp rounded up to
 * THREAD_SIZE: one OR, and no per-CPU read. The one exception is the
 * per-CPU overflow stack (4 KiB, on the way to a panic), whose walk may
 * read per-CPU data past its end, mapped memory all the same. Without
 * VMAP_STACK the IRQ stack is a per-CPU array of no known alignment: the
 * walk then goes only on the task's own stack (task_stack_page(), which
 * is THREAD_SIZE-aligned there too), and from any other reads the first
 * record alone (0: no record is next).
 */
static __always_inline unsigned long kmp_fp_last(unsigned long fp)
{
#ifdef CONFIG_VMAP_STACK
	BUILD_BUG_ON(IRQ_STACK_SIZE != THREAD_SIZE);
#else
	if ((fp & ~(THREAD_SIZE - 1)) != (unsigned long)task_stack_page(current))
		return 0;
#endif
	return (fp | (THREAD_SIZE - 1)) - 15;
}

/* Whether the walk stops at @next, read from the record at @rec. */
static __always_inline bool kmp_fp_stop(unsigned long next,
					const unsigned long *rec,
					unsigned long last)
{
	return next <= (unsigned long)rec || next > last || (next & 7);
}
#endif

/*
 * From the probe's own frame record @fp, up the callers' records to the
 * first return address that is not an allocator's or the tracepoint's:
 * true with its site entry in *@ep, or false where a return address is
 * not in the site table yet or a record looks wrong. Nothing outside the
 * stack the walk started on is ever read (kmp_fp_last()).
 *
 * @skip records are passed without a lookup of their return addresses
 * (KMP_PROBE_SKIP). The general path still looks at them (callsite.c).
 *
 * @keyed (key_depth, stack.h): the first return address that is not a
 * frame to pass is the site whether or not it has an entry (*@ep NULL
 * where not), since the tag the fast path looks for is the one of (site,
 * callers), which only the general path makes; its address goes to
 * *@lrp, its record to *@recp and the records before it to *@passed.
 */
static __always_inline bool
__kmp_page_site_fast(unsigned long fp, unsigned int skip,
		     const struct kmp_site **ep, const bool keyed,
		     unsigned long *lrp, unsigned long *recp,
		     unsigned int *passed)
{
#if KMP_HAVE_FP_WALK
	unsigned long last = kmp_fp_last(fp);
	unsigned int i;

	for (i = 0; i < skip; i++) {
		const unsigned long *rec = (const unsigned long *)fp;

		fp = READ_ONCE(rec[0]);
		if (kmp_fp_stop(fp, rec, last))
			return false;
	}
	for (i = 0; i < KMP_FP_FRAMES; i++) {
		const unsigned long *rec = (const unsigned long *)fp;
		unsigned long lr = kmp_strip_pac(READ_ONCE(rec[1]));
		const struct kmp_site *e;

		*lrp = lr;
		*recp = fp;
		*passed = skip + i;
		if (!kmp_site_get(kmp_site_key(lr, KMP_KIND_PAGE), &e)) {
			*ep = NULL;
			return keyed;
		}
		if (!(e->flags & KMP_SITE_FRAME)) {
			*ep = e;
			return keyed || !e->flags;
		}
		fp = READ_ONCE(rec[0]);
		if (kmp_fp_stop(fp, rec, last))
			return false;
	}
#endif
	return false;
}

static __always_inline bool
kmp_page_site_fast(unsigned long fp, unsigned int skip,
		   const struct kmp_site **ep)
{
	unsigned long lr, rec;
	unsigned int passed;

	return __kmp_page_site_fast(fp, skip, ep, false, &lr, &rec, &passed);
}

/* nmi.c: slab and page events in NMI (cold: the probes' rare path). */
void __cold kmp_nmi_slab_alloc(enum kmp_event ev, unsigned long site,
			       const void *ptr, size_t req, size_t bytes);
void __cold kmp_nmi_page_alloc(enum kmp_event ev, unsigned long fp,
			       unsigned long pfn, unsigned int order);
void __cold kmp_nmi_free(enum kmp_event ev, unsigned long key, size_t bytes);
void kmp_nmi_sync(bool count);
u64 kmp_nmi_events(enum kmp_event ev);
void kmp_nmi_reset(void);
int kmp_nmi_init(void);
void kmp_nmi_exit(void);
size_t kmp_nmi_memory(void);
void kmp_nmi_flush_work(void);

/*
 * Records of events in NMI whose table work is still to do, counted by
 * the hash of their key. The general path settles those of its event's
 * key before it takes the event (nmi.c says why and in what order).
 */
#define KMP_NMI_KEY_BITS	8
extern atomic_t kmp_nmi_keys[1 << KMP_NMI_KEY_BITS];

static __always_inline atomic_t *kmp_nmi_key_count(unsigned long key)
{
	return &kmp_nmi_keys[kmp_hash(key) >> (32 - KMP_NMI_KEY_BITS)];
}

void __kmp_nmi_settle(unsigned long key, unsigned long below);

/* On the general path, with interrupts off, before an event on @key. */
static __always_inline void kmp_nmi_settle(unsigned long key)
{
	/* pairs with the release in kmp_nmi_finish() */
	if (unlikely(atomic_read_acquire(kmp_nmi_key_count(key))))
		__kmp_nmi_settle(key, ULONG_MAX);
}

/* hooks.c: the untraced allocator paths. */
void kmp_hooks_init(void);
void kmp_hooks_set(unsigned int kinds, bool frees);
void kmp_hooks_moves(unsigned int kinds);
void kmp_hooks_show(struct seq_file *m);
void kmp_hooks_reset(void);
void kmp_hooks_exit(void);
bool kmp_hook_attached(const char *name);
extern bool kmp_pages_bulk_exits;	/* callsite.c, set by hooks.c */
/* probes.c, set by hooks.c: pages can migrate with no hook to follow them */
extern bool kmp_moves_unfollowed;

/*
 * The "site" of a page event inside hooks.c's wrapper of the bulk page
 * allocator (its fallback to __alloc_pages()): the wrapper enters the page
 * itself, with every other it returns, so the event is not accounted.
 */
#define KMP_SITE_BULK	1UL

/* main.c: code is going (the module notifier). */
void kmp_code_going(bool (*within)(unsigned long, const struct module *),
		    const struct module *mod);

/* callsite.c: at load, and from the module notifier. */
int kmp_fn_size(unsigned long addr, unsigned long *size);
void kmp_names_flush(void);
void kmp_modtext_update(struct module *mod, unsigned long state);
void kmp_modtext_init(void);
void kmp_modtext_exit(void);

/* account.c: the general path, with interrupts off. */
void kmp_account_page_alloc(unsigned long fp, unsigned long pfn,
			    unsigned int order);
void kmp_account_page_move(unsigned long dst, unsigned long src,
			   unsigned int order);
bool kmp_page_free_returns(void);
unsigned long kmp_page_site(unsigned long fp, struct kmp_frames *f,
			    unsigned int after);
void kmp_page_frames(struct kmp_frames *f);	/* callsite.c */

#endif /* _KMEMPROF_INTERNAL_H */
