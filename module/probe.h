/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: one event's way in, shared by the tracepoint probes (probes.c)
 * and the hooks on untraced functions (hooks.c): interrupts off, NMI to
 * nmi.c, then the inline fast path of internal.h or the general path of
 * account.c. See probes.c for the contexts an event runs in.
 */
#ifndef _KMEMPROF_PROBE_H
#define _KMEMPROF_PROBE_H

#include <linux/hardirq.h>
#include <linux/mm.h>
#include <linux/sched/clock.h>

#include "internal.h"

/* One event in KMP_TIME_EVERY has its probe timed, with self_timing on. */
#define KMP_TIME_EVERY	1024

struct kmp_cpu_events {
	u64 count[KMP_EV_NR];
	u64 all;	/* events of every kind while timing, to pick some */
	u64 timed;	/* probes timed */
	u64 ns;		/* their time in all */
};

DECLARE_PER_CPU(struct kmp_cpu_events, kmp_events);

/*
 * Every probe runs between kmp_enter() and kmp_leave(): interrupts off for
 * the whole event, so the accounting can use plain per-CPU adds (see
 * kmp_add()), and a 7.x probe stays on its CPU. Never in NMI: slab and
 * page events in NMI go to nmi.c instead, percpu ones are turned away.
 * *t0 is the start time of a timed probe. @ev KMP_EV_NR counts no event
 * (the hooks count their own).
 */
static __always_inline void kmp_enter(enum kmp_event ev, unsigned long *flags,
				      u64 *t0)
{
	struct kmp_cpu_events *c;

	local_irq_save(*flags);
	c = this_cpu_ptr(&kmp_events);
	if (ev < KMP_EV_NR)
		kmp_add(&c->count[ev], 1);
	*t0 = 0;
	if (kmp_slow() && (READ_ONCE(kmp_mode) & KMP_M_TIMING)) {
		kmp_add(&c->all, 1);
		if (!(c->all % KMP_TIME_EVERY))
			*t0 = local_clock();
	}
}

static __always_inline void kmp_leave(unsigned long flags, u64 t0)
{
	if (unlikely(t0)) {
		struct kmp_cpu_events *c = this_cpu_ptr(&kmp_events);

		kmp_add(&c->ns, local_clock() - t0);
		kmp_add(&c->timed, 1);
	}
	local_irq_restore(flags);
}

/*
 * The fast paths: each returns false, with nothing changed, where the
 * general path in account.c must take the event (see internal.h).
 */
static __always_inline bool kmp_slab_alloc_fast(unsigned long site,
						unsigned long key,
						size_t bytes, size_t req)
{
	const struct kmp_site *e;
	u32 size, r;

	e = kmp_site_find(kmp_site_key(site, KMP_KIND_SLAB));
	if (unlikely(!e || e->flags))
		return false;
	/* No slab object reaches 4 GiB (the static_assert below). */
	size = bytes;
	r = req;
	kmp_count_alloc_fast(e, size, r);
	if (unlikely(!kmp_live_add_fast(key, e->idx, size, r)))
		kmp_account_insert(key, e->idx, size, r);
	return true;
}

static __always_inline bool kmp_free_fast(unsigned long key)
{
	struct kmp_obj obj;

	if (unlikely(!kmp_live_take(key, &obj)))
		return false;
	kmp_count_free_fast(obj.tag, obj.size, obj.req);
	return true;
}

static __always_inline bool kmp_page_alloc_fast(unsigned long fp,
						unsigned long pfn,
						unsigned int order)
{
	const struct kmp_site *e = kmp_page_site_fast(fp);
	u32 bytes = PAGE_SIZE << order;
	u32 *slot;

	if (unlikely(!e))
		return false;
	slot = kmp_pfn_slot(pfn);
	if (unlikely(!slot || READ_ONCE(*slot) || READ_ONCE(kmp_pages_hashed)))
		return false;
	kmp_count_alloc_fast(e, bytes, bytes);
	WRITE_ONCE(*slot, kmp_pfn_entry(e->idx, order));
	return true;
}

static __always_inline bool kmp_page_free_fast(unsigned long pfn,
					       unsigned int order)
{
	u32 *slot = kmp_pfn_slot(pfn), v, bytes = PAGE_SIZE << order;

	if (unlikely(!slot))
		return false;
	v = READ_ONCE(*slot);
	if (unlikely(!(v & KMP_PFN_VALID) || kmp_pfn_order(v) != order))
		return false;
	WRITE_ONCE(*slot, 0);
	kmp_count_free_fast(kmp_pfn_tag(v), bytes, bytes);
	return true;
}

static_assert(KMALLOC_MAX_SIZE <= U32_MAX);

/* A slab allocation of @ptr at @call_site. */
static __always_inline void kmp_slab_alloc(enum kmp_event ev,
					   unsigned long call_site,
					   const void *ptr, size_t bytes_alloc,
					   size_t bytes_req)
{
	unsigned long flags, key;
	u64 t0;

	if (unlikely(in_nmi())) {
		kmp_nmi_slab_alloc(ev, call_site, ptr, bytes_req, bytes_alloc);
		return;
	}
	kmp_enter(ev, &flags, &t0);
	if (likely(!ZERO_OR_NULL_PTR(ptr))) {
		key = kmp_key_addr(KMP_KIND_SLAB, (unsigned long)ptr);
		if (kmp_slow() ||
		    !kmp_slab_alloc_fast(call_site, key, bytes_alloc, bytes_req))
			kmp_account_alloc(KMP_KIND_SLAB, call_site, key,
					  bytes_alloc, bytes_req, 0);
	}
	kmp_leave(flags, t0);
}

static __always_inline void kmp_slab_free(enum kmp_event ev, const void *ptr)
{
	unsigned long flags, key;
	u64 t0;

	if (unlikely(in_nmi())) {
		kmp_nmi_free(ev, ZERO_OR_NULL_PTR(ptr) ? 0 :
			     kmp_key_addr(KMP_KIND_SLAB, (unsigned long)ptr), 0);
		return;
	}
	kmp_enter(ev, &flags, &t0);
	if (likely(!ZERO_OR_NULL_PTR(ptr))) {
		key = kmp_key_addr(KMP_KIND_SLAB, (unsigned long)ptr);
		if (kmp_slow() || !kmp_free_fast(key))
			kmp_account_free(key, 0);
	}
	kmp_leave(flags, t0);
}

/*
 * A page block of @order at @pfn. @fp: the frame record the walk to the
 * call site starts from (the probe's own, or a hook wrapper's).
 */
static __always_inline void kmp_page_alloc(enum kmp_event ev,
					   unsigned long fp, unsigned long pfn,
					   unsigned int order)
{
	size_t bytes = PAGE_SIZE << order;
	unsigned long flags;
	u64 t0;

	if (unlikely(in_nmi())) {
		kmp_nmi_page_alloc(ev, fp, pfn, order);
		return;
	}
	kmp_enter(ev, &flags, &t0);
	if (kmp_slow() || !kmp_page_alloc_fast(fp, pfn, order))
		kmp_account_alloc(KMP_KIND_PAGE, 0, kmp_key_pfn(pfn), bytes,
				  bytes, fp);
	kmp_leave(flags, t0);
}

static __always_inline void kmp_page_free(enum kmp_event ev, unsigned long pfn,
					  unsigned int order)
{
	unsigned long flags;
	u64 t0;

	if (unlikely(in_nmi())) {
		kmp_nmi_free(ev, kmp_key_pfn(pfn), PAGE_SIZE << order);
		return;
	}
	kmp_enter(ev, &flags, &t0);
	if (kmp_slow() || !kmp_page_free_fast(pfn, order))
		kmp_account_free(kmp_key_pfn(pfn), PAGE_SIZE << order);
	kmp_leave(flags, t0);
}

#endif /* _KMEMPROF_PROBE_H */
