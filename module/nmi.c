// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: slab and page events in NMI.
 *
 * From 7.x some allocator paths run in NMI: kmalloc_nolock(),
 * kfree_nolock(), and page allocations and frees from BPF programs. The
 * general path takes raw spinlocks and the counters are plain per-CPU
 * adds, neither of which an NMI may touch. So an event in NMI does only
 * what is lock-free:
 *
 * - A free takes its object out of the live table's slots or the PFN map
 *   at once, as the fast path does, before the allocator can hand the
 *   object out again; its counting is left for later. A page block's entry
 *   is taken only by a free of its order: a free of a part of a block is a
 *   split (account.c), which takes a lock, and is left whole.
 * - An allocation at the defaults, whose site is known and whose group
 *   has room, is entered the same way; again the counting waits.
 * - Anything else (a free whose object is in a spill chain, or in the
 *   live table while page blocks go there; a new site, a spilled group,
 *   an option on) leaves its table work for later too: the key, the site,
 *   the sizes and, with key_depth, the callers, found from this stack
 *   while it is still there (the stack the record is applied on is not
 *   the allocation's).
 *
 * "Later" is a record in this CPU's ring, drained by an irq_work that the
 * NMI raises and that runs on the same CPU as soon as interrupts are on:
 * it counts what was taken and entered, and applies what was left whole.
 * A page allocation in NMI whose call site is not in the site table yet
 * cannot be left for later (the frame records it was found from are gone
 * by then): it is counted in skip.nmi, as is any event that finds the ring
 * full. A full ring is seen before anything is taken, so nothing is taken
 * and left uncounted.
 *
 * A record left whole (ALLOC, FREE) is an event on its key that the tables
 * have not seen yet, and the allocator may meanwhile hand the object out
 * again, or free it, on any CPU, or on this one with interrupts still
 * off: a free applied at the drain would take the new owner's entry, an
 * allocation applied there would enter an object already freed. So such a
 * record is applied before any later event on its key, wherever that
 * event runs:
 *
 * - Each has a sequence number from one counter (kmp_nmi_seq), and two
 *   counts are raised for it until it is applied: its key's bucket in
 *   kmp_nmi_keys[], and its live-table group's spill count. The second
 *   is a pin: a group whose spill count is not 0 is never entered by the
 *   fast paths (kmp_live_claim() gives nothing) nor in NMI, and a free
 *   that misses in its slots goes on to the general path.
 * - The general path, before it takes an event on a key whose bucket
 *   count is not 0, applies that key's pending records, lowest sequence
 *   first (kmp_nmi_settle()). The drain applies a record after those of
 *   its key with a lower sequence, on any CPU.
 * - Whoever applies a record claims it first (the drain, or a general
 *   path on any CPU): the claim is a compare-and-swap of its sequence
 *   number to the same with KMP_NMI_BUSY. Anyone else who needs it waits
 *   until its sequence is 0 (applied).
 * - While a record of a slab key is pending, the key is in no slot, so
 *   that no fast path can see it and go past the record: a free is left
 *   whole only if its key is not in the slots; an allocation left whole
 *   takes its key out of them (an entry whose free was never seen, which
 *   the record counts as stale); an applied allocation goes to the spill
 *   (kmp_live_insert_spill()), never the slots, since later records of
 *   its key may be pending; and nothing else can enter the key meanwhile,
 *   its group being pinned. Page blocks: the fast paths go by the PFN map
 *   alone, and a free is left whole where the map does not hold the block
 *   (it is not covered, or pages_hashed is set), where neither fast path
 *   nor an NMI enters one, or where its frame is a part of a block entered
 *   at an aligned head below it (kmp_pfn_held(): a block the kernel split),
 *   which the general path splits when it applies the record. Should the
 *   part's page be allocated again on another CPU before that, the record
 *   takes the new block's entry (account.c, "Split page blocks"). A free the
 *   map covers and has no entry for, in no such block, with pages_hashed
 *   clear, is unpaired then and there (UNPAIRED).
 *
 * Notes on locking:
 *
 * - Each ring has one producer, an NMI on its CPU, and one consumer, the
 *   irq_work on the same CPU (or, with every probe and hook detached and
 *   synchronised, kmp_nmi_sync() from process context). NMIs do not nest,
 *   and the consumer can be interrupted by the producer but never the
 *   other way round, so the producer sees the consumer's tail stable for
 *   the whole NMI, and the consumer sees a record whole once it sees the
 *   head past it: on one CPU, program order is all that is needed, and
 *   barrier() keeps the compiler to it. kmp_nmi_sync() reads other CPUs'
 *   rings only once the probes are detached and their irq_works synced;
 *   irq_work_sync() orders the last run before it.
 * - Other CPUs read a record left whole (kmp_nmi_first()) without the
 *   head: by its sequence number, which the NMI publishes with a release
 *   after the record's fields and the two counts, and they read with an
 *   acquire. A record's slot is reused only once the consumer has passed
 *   it, and the consumer passes a record left whole only once its
 *   sequence is 0, which whoever applied it stores with a release after
 *   its last read of the record. A reader that meets a slot being reused
 *   may read a key that is not the record's; its claim then fails, as
 *   sequence numbers are never reused, and it looks again.
 * - Ordering between events of one key: an event on a key is seen by the
 *   tables in the allocator's order, which the allocator's own ordering
 *   makes visible across CPUs (live.c's notes): a record left whole, with
 *   its counts, is published before the NMI's event returns, so every
 *   later event of its key, anywhere, finds it. Records of one key so get
 *   increasing sequence numbers in that order, and applying them lowest
 *   first is applying them in it.
 * - No deadlock: no one waits while holding a claim or a lock (the general
 *   path settles before it takes any; the drain settles a record's key
 *   before it claims the record), and a drain settling for a record waits
 *   only on records of lower sequence. Applying a record is the general
 *   path's work, with interrupts off; in the drain, in hard interrupt
 *   context, as before.
 * - Whoever applies a record lowers its counts after the table work, with
 *   a full barrier before, and a general path reads its key's count with
 *   an acquire: one that finds the count 0 sees the work done.
 *   kmp_nmi_sync() applies or drops every record before a reset clears the
 *   spill counts (kmp_live_clear()), so no pin outlives its record.
 * - In NMI only lock-free operations, atomics and this_cpu_inc() (atomic
 *   against the interrupted context) touch shared state; the slot and PFN
 *   map operations are the fast path's, whose ordering tables.h and
 *   live.c argue, and which do not depend on the context. The callers are
 *   found with stack_trace_save() as on the general path: on arm64 the
 *   frame-record unwinder, which stays on the stacks it knows
 *   (on_accessible_stack()) and which perf runs in NMI; only slab events
 *   need callers, and from 6.1 their call site is the event's own, so no
 *   symbol is looked up.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/stacktrace.h>

#include "internal.h"
#include "live.h"
#include "nmi.h"
#include "options.h"
#include "pfnmap.h"
#include "stat.h"
#include "tables.h"

#define KMP_NMI_RING	64	/* records per CPU; a power of two */
#define KMP_NMI_BUSY	1UL	/* in a record's seq: claimed */

enum kmp_nmi_op {
	KMP_NMI_ADDED,	/* entered: count the allocation */
	KMP_NMI_FREED,	/* taken: count the free */
	KMP_NMI_ALLOC,	/* an allocation, for the general path */
	KMP_NMI_FREE,	/* a free, for the general path */
	KMP_NMI_UNPAIRED, /* a free with nothing to take: count it */
};

struct kmp_nmi_rec {
	unsigned long seq;	/* ALLOC, FREE: not 0 until applied */
	unsigned long key;
	unsigned long site;
	unsigned long callers[KMP_KEY_DEPTH_MAX];	/* ALLOC: key_depth's */
	struct kmp_obj obj;	/* ADDED, FREED; ALLOC: a stale one taken */
	u32 size;		/* ALLOC */
	u32 req;
	u32 bytes;		/* FREE, FREED: what the free event says */
	u8 op;
	u8 ncallers;		/* ALLOC */
	bool stale;		/* ALLOC: @obj was taken */
};

struct kmp_nmi_ring {
	unsigned int head;	/* written by the NMI */
	unsigned int tail;	/* written by the consumer */
	struct irq_work work;
	struct kmp_nmi_rec rec[KMP_NMI_RING];
};

/*
 * Allocated at load, not static: a module's static per-CPU data comes from
 * the kernel's small module reserve (8 KiB on 6.1), which other modules
 * need too.
 */
static struct kmp_nmi_ring __percpu *kmp_nmi_rings;

/* The last sequence number handed out; they go up by 2 (KMP_NMI_BUSY). */
static atomic_long_t kmp_nmi_seq = ATOMIC_LONG_INIT(0);

atomic_t kmp_nmi_keys[1 << KMP_NMI_KEY_BITS];

/* In NMI: the next free record of this CPU's ring, or NULL if it is full. */
static struct kmp_nmi_rec *kmp_nmi_reserve(struct kmp_nmi_ring *r)
{
	if (r->head - READ_ONCE(r->tail) >= KMP_NMI_RING) {
		kmp_stat_nmi();
		return NULL;
	}
	return &r->rec[r->head % KMP_NMI_RING];
}

/* In NMI: publish the record kmp_nmi_reserve() gave, and kick the drain. */
static void kmp_nmi_commit(struct kmp_nmi_ring *r, struct kmp_nmi_rec *rec,
			   enum kmp_nmi_op op)
{
	rec->op = op;
	barrier();		/* the record before the head */
	WRITE_ONCE(r->head, r->head + 1);
	irq_work_queue(&r->work);
}

/*
 * In NMI: publish @rec, whose table work on @key is left whole, for every
 * CPU (see the notes at the top).
 */
static void kmp_nmi_defer(struct kmp_nmi_ring *r, struct kmp_nmi_rec *rec,
			  enum kmp_nmi_op op, unsigned long key)
{
	WRITE_ONCE(rec->key, key);	/* read by kmp_nmi_first() */
	atomic_inc(&kmp_tab.group_spill[kmp_live_group(key)]);
	atomic_inc(kmp_nmi_key_count(key));
	/* the record and the counts before it: pairs with kmp_nmi_first() */
	smp_store_release(&rec->seq, atomic_long_add_return(2, &kmp_nmi_seq));
	kmp_nmi_commit(r, rec, op);
}

static struct kmp_nmi_ring *kmp_nmi_ring(enum kmp_event ev)
{
	struct kmp_nmi_ring *r = this_cpu_ptr(kmp_nmi_rings);

	if (ev < KMP_EV_NR)
		this_cpu_inc(kmp_stats.nmi_events[ev]);
	return r;
}

/*
 * In NMI: the @kd callers of @site from this stack, as kmp_unwind() finds
 * them (0 past the stack's end, or all 0 where @site is not on it).
 */
static noinline void kmp_nmi_callers(struct kmp_nmi_rec *rec,
				     unsigned long site, unsigned int kd)
{
	unsigned long e[KMP_SITE_SEARCH + KMP_KEY_DEPTH_MAX + 1];
	unsigned int n, i, j;

	n = stack_trace_save(e, KMP_SITE_SEARCH + kd + 1, 0);
	for (i = 0; i < n && e[i] != site; i++)
		;
	for (j = 0; j < kd; j++)
		rec->callers[j] = i + 1 + j < n ? e[i + 1 + j] : 0;
}

/* The arguments in the kmalloc event's order: the probe passes them on. */
void kmp_nmi_slab_alloc(enum kmp_event ev, unsigned long site,
			const void *ptr, size_t req, size_t bytes)
{
	struct kmp_nmi_ring *r = kmp_nmi_ring(ev);
	unsigned long key = kmp_key_addr(KMP_KIND_SLAB, (unsigned long)ptr);
	unsigned int mode = READ_ONCE(kmp_mode), kd = 0;
	const struct kmp_site *e;
	struct kmp_nmi_rec *rec;

	if (ZERO_OR_NULL_PTR(ptr))
		return;
	rec = kmp_nmi_reserve(r);
	if (!rec)
		return;
	if (!mode) {
		e = kmp_site_find(kmp_site_key(site, KMP_KIND_SLAB));
		if (e && !e->flags &&
		    kmp_live_add_fast(key, e->idx, bytes, req)) {
			rec->obj = (struct kmp_obj) { .tag = e->idx,
						      .size = bytes,
						      .req = req };
			kmp_nmi_commit(r, rec, KMP_NMI_ADDED);
			return;
		}
	}
	rec->site = site;
	rec->size = bytes;
	rec->req = req;
	rec->stale = kmp_live_slots_remove(key, &rec->obj);
	if (mode & KMP_M_KEY)
		kd = min_t(unsigned int, READ_ONCE(kmp_key_depth),
			   KMP_KEY_DEPTH_MAX);
	rec->ncallers = kd;
	if (kd)
		kmp_nmi_callers(rec, site, kd);
	kmp_nmi_defer(r, rec, KMP_NMI_ALLOC, key);
}

void kmp_nmi_page_alloc(enum kmp_event ev, unsigned long fp,
			unsigned long pfn, unsigned int order)
{
	struct kmp_nmi_ring *r = kmp_nmi_ring(ev);
	u32 bytes = PAGE_SIZE << order, *slot = kmp_pfn_slot(pfn);
	const struct kmp_site *e;
	struct kmp_nmi_rec *rec;

	if (READ_ONCE(kmp_mode) || READ_ONCE(kmp_tab.pages_hashed) || !slot ||
	    READ_ONCE(*slot)) {
		kmp_stat_nmi();
		return;
	}
	if (!kmp_page_site_fast(fp, 0, &e)) {
		kmp_stat_nmi();
		return;
	}
	rec = kmp_nmi_reserve(r);
	if (!rec)
		return;
	/* from 0 in one step: the re-attach scan may enter it (prior.c) */
	if (cmpxchg_relaxed(slot, 0, kmp_pfn_entry(e->idx, order))) {
		kmp_stat_nmi();		/* the record is left unpublished */
		return;
	}
	rec->obj = (struct kmp_obj) { .tag = e->idx, .size = bytes,
				      .req = bytes };
	kmp_nmi_commit(r, rec, KMP_NMI_ADDED);
}

/* @key 0: a free of NULL, only an event. */
void kmp_nmi_free(enum kmp_event ev, unsigned long key, size_t bytes)
{
	struct kmp_nmi_ring *r = kmp_nmi_ring(ev);
	struct kmp_nmi_rec *rec;
	u32 *slot, v;

	if (!key)
		return;
	rec = kmp_nmi_reserve(r);
	if (!rec)
		return;
	rec->bytes = bytes;
	if (kmp_key_kind(key) == KMP_KIND_PAGE) {
		slot = kmp_pfn_slot(key >> 2);
		v = slot ? READ_ONCE(*slot) : 0;
		if (slot && !READ_ONCE(kmp_tab.pages_hashed) &&
		    !(v & KMP_PFN_VALID) && !kmp_pfn_held(key >> 2)) {
			/* In neither table: the fast path's miss. */
			WRITE_ONCE(rec->key, key);
			kmp_nmi_commit(r, rec, KMP_NMI_UNPAIRED);
			return;
		}
		/* another order: a split, which the general path makes */
		if (slot && !READ_ONCE(kmp_tab.pages_hashed) &&
		    kmp_pfnmap_remove(slot, v, get_order(bytes), false)) {
			kmp_pfn_obj(v, &rec->obj);
			kmp_nmi_commit(r, rec, KMP_NMI_FREED);
			return;
		}
	} else if (kmp_live_slots_remove(key, &rec->obj)) {
		kmp_nmi_commit(r, rec, KMP_NMI_FREED);
		return;
	}
	kmp_nmi_defer(r, rec, KMP_NMI_FREE, key);
}

/* Count a record whose table work is done. With interrupts off. */
static void kmp_nmi_count(const struct kmp_nmi_rec *rec)
{
	switch (rec->op) {
	case KMP_NMI_ADDED:
		kmp_account_count_alloc(rec->obj.tag, rec->obj.size, rec->obj.req);
		break;
	case KMP_NMI_FREED:
		kmp_account_count_free(&rec->obj, rec->bytes);
		break;
	case KMP_NMI_UNPAIRED:
		kmp_stat_inc(KMP_ST_UNPAIRED_SLAB + kmp_key_kind(rec->key));
		break;
	}
}

/*
 * Apply (@count) or drop a record left whole that the caller has claimed,
 * and free it. With interrupts off.
 */
static void kmp_nmi_finish(struct kmp_nmi_rec *rec, bool count)
{
	unsigned long key = rec->key;

	if (count && rec->op == KMP_NMI_ALLOC)
		kmp_account_alloc_nmi(rec->site, key, rec->size, rec->req,
				      rec->callers, rec->ncallers,
				      rec->stale ? &rec->obj : NULL);
	else if (count)
		kmp_account_free_key(key, rec->bytes);
	/* the table work before the counts: pairs with kmp_nmi_settle() */
	smp_mb__before_atomic();
	atomic_dec(&kmp_tab.group_spill[kmp_live_group(key)]);
	atomic_dec(kmp_nmi_key_count(key));
	/* the reads of the record before its slot can be reused */
	smp_store_release(&rec->seq, 0);
}

/* Wait until the record claimed as @seq is applied. */
static void kmp_nmi_wait(struct kmp_nmi_rec *rec, unsigned long seq)
{
	/* the acquire: its table work before ours */
	while (smp_load_acquire(&rec->seq) == seq)
		cpu_relax();
}

/*
 * The pending record of @key with the lowest sequence below @below, on
 * any CPU, or NULL; its sequence as read (claimed or not) in *@seqp.
 */
static struct kmp_nmi_rec *kmp_nmi_first(unsigned long key,
					 unsigned long below,
					 unsigned long *seqp)
{
	struct kmp_nmi_rec *first = NULL;
	unsigned long s;
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kmp_nmi_ring *r = per_cpu_ptr(kmp_nmi_rings, cpu);

		for (i = 0; i < KMP_NMI_RING; i++) {
			/* pairs with the release in kmp_nmi_defer() */
			s = smp_load_acquire(&r->rec[i].seq);
			if (!s || (s & ~KMP_NMI_BUSY) >= below ||
			    READ_ONCE(r->rec[i].key) != key)
				continue;
			below = s & ~KMP_NMI_BUSY;
			first = &r->rec[i];
			*seqp = s;
		}
	}
	return first;
}

/*
 * Apply every record of @key left whole with a sequence below @below, in
 * their order, on whichever CPU they are: before an event on @key on the
 * general path (@below ULONG_MAX), or before the drain applies a record
 * of @key (@below its own). With interrupts off, holding no lock.
 */
void __kmp_nmi_settle(unsigned long key, unsigned long below)
{
	struct kmp_nmi_rec *rec;
	unsigned long s;

	while ((rec = kmp_nmi_first(key, below, &s))) {
		if (!(s & KMP_NMI_BUSY) &&
		    cmpxchg(&rec->seq, s, s | KMP_NMI_BUSY) == s)
			kmp_nmi_finish(rec, true);
		else
			kmp_nmi_wait(rec, s | KMP_NMI_BUSY);
	}
}

/*
 * The drain's turn at a record left whole: apply (@count) or drop it,
 * unless an event on its key applied it first.
 */
static void kmp_nmi_take(struct kmp_nmi_rec *rec, bool count)
{
	/* this CPU's NMI wrote it: program order (see the notes) */
	unsigned long s = READ_ONCE(rec->seq);

	if (count && s && !(s & KMP_NMI_BUSY))
		__kmp_nmi_settle(rec->key, s);
	for (;;) {
		/* 0 from another CPU: its reads of the record before our reuse */
		s = smp_load_acquire(&rec->seq);
		if (!s)
			return;
		if (!(s & KMP_NMI_BUSY) &&
		    cmpxchg(&rec->seq, s, s | KMP_NMI_BUSY) == s)
			break;
		kmp_nmi_wait(rec, s | KMP_NMI_BUSY);
	}
	kmp_nmi_finish(rec, count);
}

/* Apply (@count) or drop every record of @r. With interrupts off. */
static void kmp_nmi_drain(struct kmp_nmi_ring *r, bool count)
{
	unsigned int t = r->tail, h = READ_ONCE(r->head);
	struct kmp_nmi_rec *rec;

	barrier();		/* the head before the records */
	for (; t != h; t++) {
		rec = &r->rec[t % KMP_NMI_RING];
		if (rec->op == KMP_NMI_ALLOC || rec->op == KMP_NMI_FREE)
			kmp_nmi_take(rec, count);
		else if (count)
			kmp_nmi_count(rec);
		barrier();	/* the record read before its reuse */
		WRITE_ONCE(r->tail, t + 1);
	}
}

/*
 * In hard interrupt context, or in the irq_work thread of PREEMPT_RT (a
 * plain irq_work: IRQ_WORK_INIT_HARD is not in 5.10); the ring is this
 * CPU's either way.
 */
static void kmp_nmi_work(struct irq_work *work)
{
	unsigned long flags;

	local_irq_save(flags);
	kmp_nmi_drain(container_of(work, struct kmp_nmi_ring, work), true);
	local_irq_restore(flags);
}

/*
 * With every probe and hook detached and synchronised, and
 * kmp_control_lock held: wait for each CPU's drain, then apply (@count) or
 * drop what is left, so that no record outlives a detach or a reset.
 */
void kmp_nmi_sync(bool count)
{
	unsigned long flags;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kmp_nmi_ring *r = per_cpu_ptr(kmp_nmi_rings, cpu);

		irq_work_sync(&r->work);
		local_irq_save(flags);
		kmp_nmi_drain(r, count);
		local_irq_restore(flags);
	}
}

/* Wait for every CPU's drain that is queued (for the tests). */
void kmp_nmi_flush_work(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(kmp_nmi_rings, cpu)->work);
}

int kmp_nmi_init(void)
{
	int cpu;

	kmp_nmi_rings = alloc_percpu(struct kmp_nmi_ring);
	if (!kmp_nmi_rings)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu_ptr(kmp_nmi_rings, cpu)->work,
			      kmp_nmi_work);
	return 0;
}

/* Every probe and hook detached, and kmp_nmi_sync() done. */
void kmp_nmi_exit(void)
{
	free_percpu(kmp_nmi_rings);
	kmp_nmi_rings = NULL;
}

size_t kmp_nmi_memory(void)
{
	return sizeof(struct kmp_nmi_ring) * num_possible_cpus();
}
