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
 * - Anything else (a new site, a spilled group, an option on) is left
 *   whole for later: the key, the site and the sizes.
 *
 * "Later" is a record in this CPU's ring, drained by an irq_work that the
 * NMI raises and that runs on the same CPU as soon as interrupts are on:
 * it counts what was taken and entered, and sends what was left whole
 * through the general path. A free left whole (its object was in a spill
 * chain, or in the live table while page blocks go there) is taken only
 * then; if the allocator hands the object out again on another CPU in
 * between, the new allocation's entry replaces it and the old one counts
 * as stale, which marks its tag. A page allocation in NMI whose call site
 * is not in the site table yet cannot be left for later (the frame
 * records it was found from are gone by then): it is counted in
 * skip.nmi, as is any event that finds the ring full. A full ring is
 * seen before anything is taken, so nothing is taken and left uncounted.
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
 * - In NMI only lock-free operations and this_cpu_inc() (atomic against
 *   the interrupted context) touch shared state; the slot and PFN map
 *   operations are the fast path's, whose ordering internal.h and live.c
 *   argue, and which do not depend on the context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/percpu.h>

#include "internal.h"

#define KMP_NMI_RING	64	/* records per CPU; a power of two */

enum kmp_nmi_op {
	KMP_NMI_ADDED,	/* entered: count the allocation */
	KMP_NMI_FREED,	/* taken: count the free */
	KMP_NMI_ALLOC,	/* an allocation, for the general path */
	KMP_NMI_FREE,	/* a free, for the general path */
};

struct kmp_nmi_rec {
	unsigned long key;
	unsigned long site;
	struct kmp_obj obj;	/* ADDED, FREED; size and req for ALLOC */
	u32 bytes;		/* FREE, FREED: what the free event says */
	u8 op;
};

struct kmp_nmi_ring {
	unsigned int head;	/* written by the NMI */
	unsigned int tail;	/* written by the consumer */
	struct irq_work work;
	u64 events[KMP_EV_NR];
	struct kmp_nmi_rec rec[KMP_NMI_RING];
};

static DEFINE_PER_CPU(struct kmp_nmi_ring, kmp_nmi_rings);

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

static struct kmp_nmi_ring *kmp_nmi_ring(enum kmp_event ev)
{
	struct kmp_nmi_ring *r = this_cpu_ptr(&kmp_nmi_rings);

	if (ev < KMP_EV_NR)
		this_cpu_inc(kmp_nmi_rings.events[ev]);
	return r;
}

/* The arguments in the kmalloc event's order: the probe passes them on. */
void kmp_nmi_slab_alloc(enum kmp_event ev, unsigned long site,
			const void *ptr, size_t req, size_t bytes)
{
	struct kmp_nmi_ring *r = kmp_nmi_ring(ev);
	unsigned long key = kmp_key_addr(KMP_KIND_SLAB, (unsigned long)ptr);
	const struct kmp_site *e;
	struct kmp_nmi_rec *rec;

	if (ZERO_OR_NULL_PTR(ptr))
		return;
	rec = kmp_nmi_reserve(r);
	if (!rec)
		return;
	rec->obj = (struct kmp_obj) { .size = bytes, .req = req };
	if (!READ_ONCE(kmp_mode)) {
		e = kmp_site_find(kmp_site_key(site, KMP_KIND_SLAB));
		if (e && !e->flags &&
		    kmp_live_add_fast(key, e->idx, bytes, req)) {
			rec->obj.tag = e->idx;
			kmp_nmi_commit(r, rec, KMP_NMI_ADDED);
			return;
		}
	}
	rec->key = key;
	rec->site = site;
	kmp_nmi_commit(r, rec, KMP_NMI_ALLOC);
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
	WRITE_ONCE(*slot, kmp_pfn_entry(e->idx, order));
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
		/* another order: a split, which the general path makes */
		if ((v & KMP_PFN_VALID) && !READ_ONCE(kmp_tab.pages_hashed) &&
		    PAGE_SIZE << kmp_pfn_order(v) == bytes) {
			WRITE_ONCE(*slot, 0);
			rec->obj = (struct kmp_obj) {
				.tag = kmp_pfn_tag(v),
				.size = PAGE_SIZE << kmp_pfn_order(v),
				.req = PAGE_SIZE << kmp_pfn_order(v),
				.cpu = U16_MAX,
			};
			kmp_nmi_commit(r, rec, KMP_NMI_FREED);
			return;
		}
	} else if (kmp_live_take(key, &rec->obj)) {
		kmp_nmi_commit(r, rec, KMP_NMI_FREED);
		return;
	}
	rec->key = key;
	kmp_nmi_commit(r, rec, KMP_NMI_FREE);
}

/* With interrupts off. */
static void kmp_nmi_apply(const struct kmp_nmi_rec *rec)
{
	switch (rec->op) {
	case KMP_NMI_ADDED:
		kmp_account_added(rec->obj.tag, rec->obj.size, rec->obj.req);
		break;
	case KMP_NMI_FREED:
		kmp_account_freed(&rec->obj, rec->bytes);
		break;
	case KMP_NMI_ALLOC:
		kmp_account_alloc(KMP_KIND_SLAB, rec->site, rec->key,
				  rec->obj.size, rec->obj.req, 0);
		break;
	case KMP_NMI_FREE:
		kmp_account_free(rec->key, rec->bytes);
		break;
	}
}

/* Apply (@count) or drop every record of @r. With interrupts off. */
static void kmp_nmi_drain(struct kmp_nmi_ring *r, bool count)
{
	unsigned int t = r->tail, h = READ_ONCE(r->head);

	barrier();		/* the head before the records */
	for (; t != h; t++) {
		if (count)
			kmp_nmi_apply(&r->rec[t % KMP_NMI_RING]);
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
		struct kmp_nmi_ring *r = per_cpu_ptr(&kmp_nmi_rings, cpu);

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
		irq_work_sync(&per_cpu_ptr(&kmp_nmi_rings, cpu)->work);
}

/* Events seen in NMI, for events.* in stats. */
u64 kmp_nmi_events(enum kmp_event ev)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&kmp_nmi_rings, cpu)->events[ev]);
	return sum;
}

void kmp_nmi_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&kmp_nmi_rings, cpu)->events, 0,
		       sizeof(((struct kmp_nmi_ring *)NULL)->events));
}

void kmp_nmi_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu_ptr(&kmp_nmi_rings, cpu)->work,
			      kmp_nmi_work);
}
