/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the tables as every event reaches them, inline: the site
 * table (tags.c), the tags' counters and the page walk to a call site;
 * the live table's slots are live.h's, the PFN map's pfnmap.h's. Both
 * paths use these, and nothing here calls out of line.
 *
 * The hot path
 * ------------
 *
 * The common path of every probe is inline (probes.h, on what is here), so
 * that an event at the defaults makes no call: find the tag from the site
 * table (tags.c), add to this CPU's counters, and enter or take the object
 * in the PFN map (pfnmap.c) or the live table (live.c). Anything else (a
 * site seen for the first time, a full group, a stale entry, any option
 * on) returns false before changing anything, and the probe takes the
 * general path in account.c.
 *
 * The options live in one word, kmp_mode, rebuilt under kmp_control_lock
 * whenever a knob changes (control.c), with the static keys of the
 * options that are on; kmp_opts_key, the probes' one test, is on with any
 * of them but sample_rate's. At the defaults it is a NOP, and the general
 * path, with its clock reads, histograms and unwinding, is never entered.
 * A probe that runs across a change sees the old mode or the new one for
 * that event; every table is shared by both paths.
 */
#ifndef _KMEMPROF_TABLES_H
#define _KMEMPROF_TABLES_H

#include <linux/hash.h>
#include <linux/sched/task_stack.h>

#include "internal.h"

/*
 * The words every event reads, side by side, so that the fast paths reach
 * them all from one address (tables.c). Each is set where its table is
 * made, while no probe is attached, and only read while one is; but
 * pages_hashed (account.c), which page blocks set until the next reset,
 * and times (live.c), set once while the probes may be attached.
 */
struct kmem_cache;
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

/* Counters are allocated per block of tags: alloc_percpu() caps a size. */
#define KMP_CTR_BLOCK		256

static inline struct kmp_counters __percpu *kmp_tag_counters(u32 idx)
{
	return kmp_tab.ctr_blocks[idx / KMP_CTR_BLOCK] + idx % KMP_CTR_BLOCK;
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
	/*
	 * A kmem_cache_alloc() site's cache (6.1+, whose event has the
	 * cache, not its slot), with its object size and slot: set once,
	 * after the entry is published (kmp_site_set_cache(), tags.c), and
	 * read with kmp_site_slot(). NULL until then, and for other sites.
	 */
	const struct kmem_cache *cache;
	u32 idx:24;	/* tag index: KMP_MAX_TAGS is 2^24 */
	u32 flags:8;	/* KMP_SITE_* */
	u16 obj;	/* kmem_cache_size(cache) */
	u16 slot;	/* its slot: ksize() of one of its objects */
};

static_assert(sizeof(struct kmp_site) == 32);

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
static __always_inline bool kmp_site_lookup(unsigned long key,
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

/*
 * The slot of a kmem_cache_alloc() object of @obj bytes from @s at the
 * site of @e, into *@bytes; false if the entry holds no cache, or another
 * (one cache destroyed and another made at its address with another
 * object size is another). See tags.c.
 */
static __always_inline bool kmp_site_slot(const struct kmp_site *e,
					  const struct kmem_cache *s,
					  unsigned int obj, size_t *bytes)
{
	/* pairs with the release in kmp_site_set_cache() */
	if (smp_load_acquire(&e->cache) != s || READ_ONCE(e->obj) != obj)
		return false;
	*bytes = READ_ONCE(e->slot);
	return true;
}

/* The entry of @key, or NULL. */
static __always_inline const struct kmp_site *
kmp_site_find(unsigned long key)
{
	const struct kmp_site *e;

	return kmp_site_lookup(key, &e) ? e : NULL;
}

/* This CPU's counters of tag @idx. */
static __always_inline struct kmp_counters *kmp_ctr(u32 idx)
{
	return this_cpu_ptr(kmp_tag_counters(idx));
}

/*
 * The counter helpers of both paths (probes.h, account.c): on this CPU's
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
 * wholly on that stack (kmp_fp_up()). A chain that goes on to another
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

/*
 * A walk of the frame records: the one walker of every path (the page
 * event's site here, stacks.h's stacks, callsite.c's site search), at
 * record @rec, bounded by @last (kmp_fp_last()).
 */
struct kmp_fp_walk {
	const unsigned long *rec;
	unsigned long last;
};

static __always_inline void kmp_fp_start(struct kmp_fp_walk *w,
					 unsigned long fp)
{
	w->rec = (const unsigned long *)fp;
	w->last = kmp_fp_last(fp);
}

/* The return address in the record the walk is at. */
static __always_inline unsigned long kmp_fp_ret(const struct kmp_fp_walk *w)
{
	return kmp_strip_pac(READ_ONCE(w->rec[1]));
}

/*
 * Up to the caller's record: false, with the walk where it was, at a link
 * that is not strictly above this record, not 8-aligned, or not wholly on
 * the walk's stack (kmp_fp_last()).
 */
static __always_inline bool kmp_fp_up(struct kmp_fp_walk *w)
{
	unsigned long next = READ_ONCE(w->rec[0]);

	if (next <= (unsigned long)w->rec || next > w->last || (next & 7))
		return false;
	w->rec = (const unsigned long *)next;
	return true;
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
 * @keyed (key_depth, probes.h): the first return address that is not a
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
	struct kmp_fp_walk w;
	unsigned int i;

	kmp_fp_start(&w, fp);
	for (i = 0; i < skip; i++)
		if (!kmp_fp_up(&w))
			return false;
	for (i = 0; i < KMP_FP_FRAMES; i++) {
		unsigned long lr = kmp_fp_ret(&w);
		const struct kmp_site *e;

		*lrp = lr;
		*recp = (unsigned long)w.rec;
		*passed = skip + i;
		if (!kmp_site_lookup(kmp_site_key(lr, KMP_KIND_PAGE), &e)) {
			*ep = NULL;
			return keyed;
		}
		if (!(e->flags & KMP_SITE_FRAME)) {
			*ep = e;
			return keyed || !e->flags;
		}
		if (!kmp_fp_up(&w))
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

#endif /* _KMEMPROF_TABLES_H */
