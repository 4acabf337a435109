/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the types, limits and prototypes the module's own files
 * share. Inline code and the data it reads are in the header of the file
 * that owns them (foo.h is foo.c's: tables.h, tags.h, live.h, pfnmap.h,
 * stacks.h, hist.h, nmi.h, probes.h, ...); this header holds none.
 *
 * The files are in layers, and each uses only its own layer and those
 * below it, from the bottom:
 *
 *   base:       this header, options, stat, clock, topology, tables
 *               (kmp_tab, the site table, the frame walker), paths
 *   services:   callsite.c (unwinding, the symbols of call sites)
 *   tables:     tags, live, pfnmap, hist, stacks (none uses another)
 *   accounting: account.c, then nmi.c (events in NMI, settled later)
 *   events:     probes.c, hooks.c
 *   control:    prior.c, control.c, of.c, knobs.c
 *   views:      procfs.c, debugfs.c, sysctl.c
 *   main.c, which alone owns lifetimes.
 *
 * tools/rig/callgraph.py checks it on the files with their headers (its
 * KNOWN, the edges still to remove, is empty). Documentation/kmemprof.rst
 * (Design) follows one event through them.
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
 *   kmp_spill_grow_lock (mutex, live.c): the spill's growth by chunks,
 *   against a clear. Process context only.
 * - kmp_split_locks[] (raw spinlocks, account.c): page frees that find no
 *   entry of their order at their PFN, one block of the largest order each.
 * - kmp_stack_locks[] (raw spinlocks, stacks.c): inserts into the stack
 *   store's chains. kmp_stack_text_lock (mutex, stacks.c): the texts of
 *   stacks through code that went away, against reset.
 * - kmp_names_lock (mutex, names.c): the cache of symbol names.
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
 *   kmp_control_lock -> kmp_spill_grow_lock -> kmp_spill_free.lock
 *   kmp_split_locks[] -> kmp_spill_locks[] -> kmp_spill_free.lock
 *   kmp_control_lock -> kmp_stack_text_lock (reset)
 *   module_notify_list (the kernel's rwsem) -> kmp_gone_lock
 *     -> kmp_names_lock, kmp_tag_locks[], kmp_sites_lock,
 *        kmp_stack_text_lock (the notifier; module_mutex is not held)
 *   kmp_tag_locks[] -> kmp_sites_lock (a new tag enters the site table)
 *   kmp_names_lock -> module_kset's list_lock (the kernel's spinlock: a
 *     module found by address for its symbol index, names.c)
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
 */
#ifndef _KMEMPROF_INTERNAL_H
#define _KMEMPROF_INTERNAL_H

#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/percpu.h>

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
	u32 own;	/* its (site, owner) line while owners are on, or 0 */
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
void kmp_account_free_key(unsigned long key, size_t bytes);
void kmp_account_count_free(const struct kmp_obj *obj, size_t bytes);
void kmp_account_count_alloc(u32 tag, u32 size, u32 req);
void kmp_account_alloc_nmi(unsigned long site, unsigned long key, u32 size,
			   u32 req, const unsigned long *callers,
			   unsigned int n, const struct kmp_obj *stale);
void kmp_account_mark_live(unsigned int kinds);
void kmp_account_page_unfollowed(unsigned long pfn);
bool kmp_account_prior(unsigned long pfn, unsigned int order, u32 tag);
void kmp_account_prior_undo(unsigned long pfn, unsigned int order, u32 tag);
void kmp_account_prior_unref(unsigned long pfn);
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
	KMP_PRIOR_HUGETLB,
	KMP_PRIOR_RESERVED,
	KMP_PRIOR_STACK,	/* the stacks of the tasks alive at the walk */
	KMP_PRIOR_PERCPU,	/* the pages of percpu's dynamic chunks */
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

void kmp_prior_begin(void);
void kmp_prior_end(void);
void kmp_prior_scan(void);

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
/* hooks.c: the untraced functions it hooks. */
enum kmp_hook_id {
	KMP_HOOK_CACHE_ALLOC_BULK,
	KMP_HOOK_CACHE_FREE_BULK,
	KMP_HOOK_PAGES_BULK,
	KMP_HOOK_KMALLOC_NOLOCK,
	KMP_HOOK_KFREE_NOLOCK,
	KMP_HOOK_KFREE_RCU_SHEAF,
	KMP_HOOK_MIGRATE,
	KMP_HOOK_ZS_MIGRATE,
	KMP_HOOK_NR,
};

/* tags.c */
extern unsigned int kmp_max_tags;
int kmp_tags_init(void);
void kmp_tags_exit(void);
struct kmp_tag *kmp_tag_find_or_create(unsigned long site, enum kmp_kind kind,
				       const unsigned long *callers, unsigned int n);
u32 kmp_tags_used(void);
bool kmp_tag_ready(u32 idx);
void kmp_site_add(unsigned long key, u32 idx, u32 flags);
struct kmp_site;
void kmp_site_set_cache(const struct kmp_site *ce, const struct kmem_cache *s,
			unsigned int obj, unsigned int slot);
u32 kmp_sites_count(void);
u32 kmp_tags_unnamed(void);
u64 kmp_tags_naming_ns(void);

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
extern unsigned int kmp_live_grow;
unsigned int kmp_default_max_live(unsigned long mib);
int kmp_live_init(void);
void kmp_live_exit(void);
void kmp_live_walk(void (*fn)(unsigned long key, const struct kmp_obj *obj,
			      void *priv), void *priv);
void kmp_live_clear(void);
int kmp_live_times_on(void);	/* with kmp_control_lock held */
int kmp_live_owners_on(void);	/* the same */
void kmp_live_owners_zero(void);
void kmp_live_times_zero(void);	/* the same */
u32 kmp_live_used(void);
u32 kmp_live_grown(void);
u32 kmp_live_grow_max(void);
size_t kmp_live_memory(void);
enum kmp_insert kmp_live_insert(unsigned long key, const struct kmp_obj *obj,
				struct kmp_obj *old);
enum kmp_insert kmp_live_insert_spill(unsigned long key,
				      const struct kmp_obj *obj,
				      struct kmp_obj *old);
bool kmp_live_remove(unsigned long key, struct kmp_obj *obj);
bool kmp_live_read(unsigned long key, struct kmp_obj *obj);

/* pfnmap.c */
int kmp_pfnmap_init(void);
void kmp_pfnmap_exit(void);
void kmp_pfnmap_clear(void);
void kmp_pfnmap_walk(void (*fn)(unsigned long pfn, u32 entry, void *priv),
		     void *priv);
size_t kmp_pfnmap_memory(void);

extern unsigned int kmp_max_hist;
int kmp_hist_init(void);
void kmp_hist_exit(void);
u32 kmp_hist_claim(u32 *word);
bool kmp_hist_sum(u32 h, struct kmp_hist_totals *t);
void kmp_hist_reset(void);
size_t kmp_hist_memory(void);
u32 kmp_hist_used(void);

/* topology.c */
int kmp_topology_init(void);
void kmp_topology_exit(void);
int kmp_cpu_cluster(int cpu);

u64 kmp_now(void);
void kmp_clock_init(void);

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

/* names.c: the views' names of sites and callers, in process context. */
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
/* the slot of @s's object @ptr of @obj bytes: @e's, or the table's */
size_t kmp_cache_slot_of(const struct kmp_site *e, const struct kmem_cache *s,
			 const void *ptr, unsigned int obj);
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
u64 kmp_probe_samples(void);
u64 kmp_probe_ns(void);

void kmp_control_exit(void);
size_t kmp_self_memory(void);
size_t kmp_cpu_bufs_memory(void);
int kmemprof_set_option(unsigned int *var, unsigned int val);
int kmemprof_set_owners(unsigned int val);	/* enum kmp_owners_kind */
int kmp_set_option_if(unsigned int *var, unsigned int val,
		      bool (*ok)(unsigned int val));
int kmp_walk_views(void (*fn)(unsigned long key, const struct kmp_obj *obj,
			      void *priv), void *priv);
int kmp_walk_owner_lines(void (*fn)(u32 idx, void *priv), void *priv);

/* oom.c: the OOM report, up to this many sites (oom_report). */
#define KMP_OOM_REPORT_MAX	64
int kmp_oom_init(void);
void kmp_oom_exit(void);

/* procfs.c, sysctl.c, debugfs.c */
struct kmp_proc_line {		/* a line of /proc/kmemprof, in parts */
	const char *site, *callers, *kind;
	size_t site_len, callers_len, kind_len;
	unsigned long flags;	/* the tag's: KMP_TAG_* */
	const struct kmp_totals *t;
};

void kmp_proc_put(struct seq_file *m, const struct kmp_proc_line *l);
/* debugfs.c: " frag:<percent> waste:<bytes>", and "<percent>%" (tests) */
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
int kmp_of_owners(struct device_node *np, unsigned int *val);
void kmp_of_knobs(struct device_node *np);

/* Longest "slab,page,percpu" list, with room to spare (options.c). */
#define KMP_KINDS_MAX	32
void kmp_format_kinds(char *buf, size_t len, unsigned int kinds);

int kmp_mode_update(void);	/* with kmp_control_lock held */

/* nmi.c: slab and page events in NMI (cold: the probes' rare path). */
void __cold kmp_nmi_slab_alloc(enum kmp_event ev, unsigned long site,
			       const void *ptr, size_t req, size_t bytes);
void __cold kmp_nmi_page_alloc(enum kmp_event ev, unsigned long fp,
			       unsigned long pfn, unsigned int order);
void __cold kmp_nmi_free(enum kmp_event ev, unsigned long key, size_t bytes);
void kmp_nmi_sync(bool count);
int kmp_nmi_init(void);
void kmp_nmi_exit(void);
size_t kmp_nmi_memory(void);
void kmp_nmi_flush_work(void);

/* hooks.c: the untraced allocator paths. */
void kmp_hooks_init(void);
void kmp_hooks_set(unsigned int kinds, bool frees, bool attach);
#if KMP_TEST_HOOKS
/* hooks.c: refused attaches, for the suites. */
void kmp_test_hook_refuse(const char *name, unsigned int n);
int kmp_control_rescan(void);	/* control.c */
#endif
void kmp_hooks_moves(unsigned int kinds);
void kmp_hooks_show(struct seq_file *m);
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

/* callsite.c and names.c: at load, and from the module notifier. */
int kmp_fn_size(unsigned long addr, unsigned long *size);
void kmp_frame_own_init(unsigned long wrapper);
void kmp_names_flush(void);
void kmp_modtext_update(struct module *mod, unsigned long state);
void kmp_modtext_init(void);
void kmp_modtext_exit(void);

/* account.c: the general path, with interrupts off. */
void kmp_account_page_move(unsigned long dst, unsigned long src,
			   unsigned int order);
bool kmp_account_page_free_chunk(unsigned long pfn);
bool kmp_page_free_returns(void);
unsigned long kmp_page_site(unsigned long fp, struct kmp_frames *f,
			    unsigned int after);
void kmp_page_frames(struct kmp_frames *f);	/* callsite.c */

#endif /* _KMEMPROF_INTERNAL_H */
