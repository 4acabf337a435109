// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: attaching to the kmem and percpu tracepoints.
 *
 * Every event is found by name with for_each_kernel_tracepoint(): only the
 * four slab events are exported as symbols, the page and percpu events
 * never are. Each probe's prototype comes from compat.h and is checked
 * against the kernel's own declaration with check_trace_callback_type_*(),
 * so a mismatch is a compile error, not a corrupted stack.
 *
 * Notes on locking:
 *
 * - kmp_probes_set() is called with kmp_control_lock held (control.c); the
 *   registered state of each tracepoint only changes there. It attaches
 *   and detaches one class at a time, the frees or the allocations, in the
 *   order kmp_attach() gives.
 * - The probes run in any context the allocators run in (task, softirq,
 *   hardirq, interrupts off; NMI from 6.15, see KMP_NMI_EVENTS; and
 *   preemptible task context from 7.x). They turn NMI away to nmi.c,
 *   then turn interrupts off for the event:
 *   that makes plain per-CPU adds safe, keeps a 7.x probe on its CPU, and
 *   lets the tables' raw spinlocks be taken without saving flags. They
 *   never allocate and never sleep. At the defaults an event takes the
 *   inline fast path of probes.h and makes no call (the probes are
 *   __flatten, so that no kernel helper is left out of line: 6.1's arm64
 *   interrupt masking is plain inline). The probes are notrace: the
 *   function tracer's patch site at their entry would be two more
 *   instructions on every event, and tracing them is tracing the tracer.
 * - kmp_cache_slots (6.1+: a kmem_cache_alloc event has the cache, not
 *   its slot size) is per CPU and touched only with interrupts off, so
 *   no event on the CPU can see an entry half written; an event in NMI
 *   (KMP_NMI_EVENTS) never touches it and asks ksize() itself, which is
 *   read-only and takes no lock. An entry is {cache, kmem_cache_size(),
 *   ksize()}: a cache destroyed and its address reused by a cache of
 *   another object size misses. One reused with the same object size and
 *   another slot (other alignment or flags) is charged the old slot until
 *   the entry is replaced: nothing sees a cache's destruction, and the
 *   error is bounded by the slot's slack per object. The free takes the
 *   bytes from the live slot, so each pair stays exact whatever was
 *   charged. On 7.x a slab holding its obj_exts in the objects' padding
 *   has a smaller ksize() (s->inuse) than its cache's others: the table
 *   keeps the first seen, with the same bound.
 *
 * Detaching is followed by tracepoint_synchronize_unregister(), so once
 * kmp_probes_set() returns no detached probe is still running.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <trace/events/cma.h>
#include <trace/events/kmem.h>
#include <trace/events/percpu.h>

#include "internal.h"
#include "nmi.h"
#include "options.h"
#include "probes.h"
#include "stat.h"
#include "testpoints.h"

/* Before 6.1, struct kmem_cache is public: mm/slab.h includes these. */
#if !KMP_CACHE_ALLOC_HAS_CACHE && defined(CONFIG_SLUB)
#include <linux/slub_def.h>
#elif !KMP_CACHE_ALLOC_HAS_CACHE && defined(CONFIG_SLAB)
#include <linux/slab_def.h>
#endif

/*
 * The general path of probes.h's events: in NMI, with an option on, or
 * where a fast path's table missed. Called with interrupts on. Out of
 * NMI, what events in NMI left undone on the event's key is done first
 * (kmp_nmi_settle()), so that the tables see that key's events in order.
 */
noinline void kmp_slab_alloc_slow(enum kmp_event ev, unsigned long call_site,
			 const void *ptr, size_t bytes_req, size_t bytes_alloc)
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
		kmp_nmi_settle(key);
		kmp_account_alloc(KMP_KIND_SLAB, call_site, key, bytes_alloc,
				  bytes_req, 0);
	}
	kmp_leave(flags, t0);
}

noinline void kmp_slab_free_slow(enum kmp_event ev, const void *ptr)
{
	unsigned long key = ZERO_OR_NULL_PTR(ptr) ? 0 :
		kmp_key_addr(KMP_KIND_SLAB, (unsigned long)ptr);
	unsigned long flags;
	u64 t0;

	if (unlikely(in_nmi())) {
		kmp_nmi_free(ev, key, 0);
		return;
	}
	kmp_enter(ev, &flags, &t0);
	if (likely(key)) {
		kmp_nmi_settle(key);
		kmp_account_free_key(key, 0);
	}
	kmp_leave(flags, t0);
}

noinline void kmp_page_alloc_slow(enum kmp_event ev, unsigned long fp,
			 const struct page *page, unsigned int order)
{
	unsigned long pfn = page_to_pfn(page);
	size_t bytes = PAGE_SIZE << order;
	unsigned long flags;
	u64 t0;

	if (unlikely(in_nmi())) {
		kmp_nmi_page_alloc(ev, fp, pfn, order);
		return;
	}
	kmp_enter(ev, &flags, &t0);
	kmp_nmi_settle(kmp_key_pfn(pfn));
	kmp_account_alloc(KMP_KIND_PAGE, 0, kmp_key_pfn(pfn), bytes, bytes, fp);
	kmp_leave(flags, t0);
}

/*
 * A free above the buddy allocator's largest order (a gigantic hugetlb
 * folio, 6.11+): every block in its range, a largest-order chunk at a
 * time (account.c, "Blocks above the buddy allocator's largest order"),
 * with interrupts off for one chunk only. Called with them on.
 */
static noinline void kmp_page_free_huge(unsigned long pfn, unsigned int order)
{
	unsigned int max = KMP_PAGE_ORDERS - 1;
	unsigned long i, n = 1UL << (order - max), flags;
	bool found = false;

	for (i = 0; i < n; i++) {
		unsigned long at = pfn + (i << max);

		local_irq_save(flags);
		kmp_nmi_settle(kmp_key_pfn(at));
		found |= kmp_account_page_free_chunk(at);
		local_irq_restore(flags);
	}
	if (!found) {
		local_irq_save(flags);
		kmp_stat_inc(kmp_page_nofind(pfn));
		local_irq_restore(flags);
	}
}

noinline void kmp_page_free_slow(enum kmp_event ev, const struct page *page,
			unsigned int order)
{
	unsigned long pfn = page_to_pfn(page);
	unsigned long flags;
	u64 t0;

	if (unlikely(in_nmi())) {
		kmp_nmi_free(ev, kmp_key_pfn(pfn), PAGE_SIZE << order);
		return;
	}
	kmp_enter(ev, &flags, &t0);
	if (unlikely(order >= KMP_PAGE_ORDERS)) {
		kmp_leave(flags, t0);
		kmp_page_free_huge(pfn, order);
		return;
	}
	kmp_nmi_settle(kmp_key_pfn(pfn));
	kmp_account_free_key(kmp_key_pfn(pfn), PAGE_SIZE << order);
	kmp_leave(flags, t0);
}

/*
 * A page block that migrated (hooks.c): process context, never NMI. What
 * events in NMI left undone on either frame is done first, as for any
 * event on them.
 */
void kmp_page_move(unsigned long dst, unsigned long src, unsigned int order)
{
	unsigned int max = KMP_PAGE_ORDERS - 1, step = min(order, max);
	unsigned long i, n = 1UL << (order - step), flags;
	struct kmp_path_sec ps;
	u64 t0;

	if (WARN_ON_ONCE(in_nmi()))
		return;
	kmp_path_begin(&ps, KMP_PR_MIGRATE);
	/*
	 * A block above the largest order (a gigantic hugetlb folio) was
	 * entered as largest-order blocks (account.c): each moves on its
	 * own, interrupts off for one at a time.
	 */
	for (i = 0; i < n; i++) {
		unsigned long off = i << step;

		kmp_enter(KMP_EV_NONE, &flags, &t0);
		kmp_nmi_settle(kmp_key_pfn(src + off));
		kmp_nmi_settle(kmp_key_pfn(dst + off));
		kmp_account_page_move(dst + off, src + off, step);
		kmp_leave(flags, t0);
	}
	kmp_path_end(&ps, KMP_PC_MOVE);
}

/*
 * A page block's free that found no entry in the PFN map while page blocks
 * are in the live table (pages_hashed): the live table's block of this
 * order, as the general path's first look takes it; a split or moved
 * block, or none, goes to the general path. Apart from the fast path,
 * whose frame would otherwise keep registers at every event.
 */
noinline void kmp_page_free_table(enum kmp_event ev, const struct page *page,
				  unsigned int order)
{
	u32 bytes = PAGE_SIZE << order, h;
	struct kmp_obj obj __uninitialized;
	unsigned long flags;
	bool done;

	local_irq_save(flags);
	/* with histograms off, h is KMP_NIL */
	done = __kmp_live_slots_remove(kmp_key_pfn(page_to_pfn(page)), &obj, bytes,
				       true, &h) == KMP_TAKE_DONE;
	if (done) {
		kmp_count_free_ev(ev, obj.tag, bytes, bytes, 1);
		kmp_time_freed(h, &obj);
	}
	local_irq_restore(flags);
	if (!done)
		kmp_page_free_slow(ev, page, order);
}

/*
 * With an option on (kmp_opts_key_on()): the fast path's copy for the options,
 * or the general path. Each key is tested once, as the copies need (see
 * __kmp_slab_alloc_fast()). The timed copy walks too where stacks or key_depth
 * are on; frees depend on neither. notrace, as the probes are.
 */
noinline notrace void kmp_slab_alloc_opts(enum kmp_event ev,
					  unsigned long call_site,
					  const void *ptr, size_t bytes_req,
					  size_t bytes_alloc,
					  const struct kmem_cache *s)
{
	bool done;

	if (kmp_time_key_on())
		done = __kmp_slab_alloc_fast(ev, call_site, ptr, bytes_alloc,
					     bytes_req, s, true, true, true);
	else if (kmp_stack_key_on())
		done = __kmp_slab_alloc_fast(ev, call_site, ptr, bytes_alloc,
					     bytes_req, s, false, true, true);
	else
		done = __kmp_slab_alloc_fast(ev, call_site, ptr, bytes_alloc,
					     bytes_req, s, false, false, true);
	if (done)
		return;
	if (s)
		bytes_alloc = kmp_cache_slot_of(NULL, s, ptr, bytes_req);
	kmp_slab_alloc_slow(ev, call_site, ptr, bytes_req, bytes_alloc);
}

noinline notrace void kmp_slab_free_opts(enum kmp_event ev, const void *ptr)
{
	bool done;

	if (kmp_time_key_on())
		done = __kmp_slab_free_fast(ev, ptr, true, true);
	else
		done = __kmp_slab_free_fast(ev, ptr, false, true);
	if (!done)
		kmp_slab_free_slow(ev, ptr);
}

noinline notrace void kmp_page_alloc_opts(enum kmp_event ev, unsigned long fp,
					  unsigned int skip,
					  const struct page *page,
					  unsigned int order)
{
	bool done;

	if (kmp_time_key_on())
		done = __kmp_page_alloc_fast(ev, fp, skip, page, order, true,
					     true, true);
	else if (kmp_stack_key_on())
		done = __kmp_page_alloc_fast(ev, fp, skip, page, order, false,
					     true, true);
	else
		done = __kmp_page_alloc_fast(ev, fp, skip, page, order, false,
					     false, true);
	if (!done)
		kmp_page_alloc_slow(ev, fp, page, order);
}

noinline notrace void kmp_page_free_opts(enum kmp_event ev,
					 const struct page *page,
					 unsigned int order)
{
	enum kmp_page_fast r;

	if (kmp_time_key_on())
		r = __kmp_page_free_fast(ev, page, order, true, true);
	else
		r = __kmp_page_free_fast(ev, page, order, false, true);
	if (r == KMP_PF_SLOW)
		kmp_page_free_slow(ev, page, order);
	else if (r == KMP_PF_TABLE)
		kmp_page_free_table(ev, page, order);
}

/* A page event with no page: a failed allocation, counted and no more. */
static noinline void kmp_page_alloc_failed(void)
{
	unsigned long flags;
	u64 t0;

	if (in_nmi())
		return;
	kmp_enter(KMP_EV_PAGE_ALLOC, &flags, &t0);
	kmp_leave(flags, t0);
}

static void notrace __flatten kmp_probe_kmalloc(KMP_KMALLOC_PROTO)
{
	kmp_slab_alloc(KMP_EV_KMALLOC, call_site, ptr, bytes_alloc, bytes_req);
}

#if KMP_CACHE_ALLOC_HAS_CACHE
/*
 * A cache's slot size (s->size, what allocinfo charges), from ksize() of
 * one of its objects. A kmem_cache_alloc() site keeps the first cache it
 * allocates from in its site entry (tables.h, kmp_site_slot()), which is
 * where the fast path finds it; a site's other caches, and the events the
 * fast path does not serve, find it in a small direct-mapped table per CPU
 * keyed by the cache and its object size. See the locking note at the
 * top, and tags.c's for the site entry.
 */
/*
 * Small: it is static per-CPU data, which comes from the kernel's module
 * reserve, 8 KiB on 6.1 for all modules; make lint holds kmemprof's
 * share to 1 KiB.
 */
#define KMP_CACHE_SLOTS_BITS	3

struct kmp_cache_slot {
	const struct kmem_cache *s;
	unsigned int obj;	/* kmem_cache_size(s) when filled */
	unsigned int size;	/* its slot: ksize() */
};

struct kmp_cache_slots {
	struct kmp_cache_slot e[1 << KMP_CACHE_SLOTS_BITS];
};

static DEFINE_PER_CPU(struct kmp_cache_slots, kmp_cache_slots);

/*
 * ksize() of @ptr, an object of @obj bytes just allocated, or 0 where
 * ksize() is not a plain report (6.1 with KASAN), where @ptr is none or
 * a KFENCE object (whose ksize() is the object size), or where it says
 * less than the object.
 */
static size_t kmp_ksize(const void *ptr, size_t obj)
{
	size_t size;

	if (!KMP_KSIZE_SAFE || !ptr || is_kfence_address(ptr))
		return 0;
	size = ksize(ptr);
	return size >= obj ? size : 0;
}

static size_t kmp_cache_slot(const struct kmem_cache *s, const void *ptr,
			     unsigned int obj)
{
	struct kmp_cache_slot *e;
	unsigned long flags;
	size_t size;

	/* NMI: never the table, which the NMI may have interrupted. */
	if (KMP_NMI_EVENTS && unlikely(in_nmi()))
		return kmp_ksize(ptr, obj) ?: obj;
	local_irq_save(flags);
	e = this_cpu_ptr(&kmp_cache_slots.e[hash_ptr(s, KMP_CACHE_SLOTS_BITS)]);
	if (likely(e->s == s && e->obj == obj)) {
		size = e->size;
	} else {
		size = kmp_ksize(ptr, obj);
		if (size) {
			e->s = s;
			e->obj = obj;
			e->size = size;
		} else {
			size = obj;
		}
	}
	local_irq_restore(flags);
	return size;
}

/*
 * The slot of @s's object @ptr, of @obj bytes, where the site entry @e
 * (NULL: none, or the fast path did not look) did not have it: the
 * entry takes it if it has no cache yet, else the table serves.
 */
noinline size_t kmp_cache_slot_of(const struct kmp_site *e,
				  const struct kmem_cache *s,
				  const void *ptr, unsigned int obj)
{
	u64 t = kmp_psub_begin();
	size_t size = 0;

	if (e && !READ_ONCE(e->cache)) {
		size = kmp_ksize(ptr, obj);
		if (size)
			kmp_site_set_cache(e, s, obj, size);
	}
	if (!size)
		size = kmp_cache_slot(s, ptr, obj);
	kmp_psub_end(t, KMP_PC_SLOT);
	return size;
}
#else
/* Before 6.1 the event has its slot: never called (tables.h). */
size_t kmp_cache_slot_of(const struct kmp_site *e, const struct kmem_cache *s,
			 const void *ptr, unsigned int obj)
{
	return obj;
}
#endif

/*
 * The slot of @s for the @n objects kmem_cache_alloc_bulk() put in @p
 * (hooks.c), as kmp_probe_kmem_cache_alloc() charges it: from the table,
 * filled from the first object that is not KFENCE's; any of the bulk's
 * KFENCE objects is charged that slot too, as the table charges one on
 * the probe's path. Before 6.1, the slot the event would carry.
 */
size_t kmp_cache_bulk_slot(struct kmem_cache *s, void **p, size_t n)
{
#if KMP_CACHE_ALLOC_HAS_CACHE
	const void *ptr = NULL;
	size_t i;

	for (i = 0; i < n && !ptr; i++) {
		ptr = READ_ONCE(p[i]);
		if (ptr && is_kfence_address(ptr))
			ptr = NULL;
	}
	return kmp_cache_slot(s, ptr, kmem_cache_size(s));
#elif defined(CONFIG_SLUB) || defined(CONFIG_SLAB)
	return s->size;		/* the event's bytes_alloc */
#else
	return kmem_cache_size(s);
#endif
}

/*
 * A cache's object is charged its slot, as a kmalloc() object is, and
 * the object size is the bytes requested: frag shows the slack.
 */
static void notrace __flatten kmp_probe_kmem_cache_alloc(KMP_CACHE_ALLOC_PROTO)
{
#if KMP_CACHE_ALLOC_HAS_CACHE
	kmp_cache_alloc(KMP_EV_KMEM_CACHE_ALLOC, call_site, ptr, s,
			kmem_cache_size(s));
#else
	kmp_slab_alloc(KMP_EV_KMEM_CACHE_ALLOC, call_site, ptr, bytes_alloc,
		       bytes_req);
#endif
}

#if KMP_HAVE_NODE_EVENTS
/* Counted as the events they became in 6.1. */
static void notrace __flatten kmp_probe_kmalloc_node(KMP_KMALLOC_NODE_PROTO)
{
	kmp_slab_alloc(KMP_EV_KMALLOC, call_site, ptr, bytes_alloc, bytes_req);
}

static void notrace __flatten
kmp_probe_kmem_cache_alloc_node(KMP_CACHE_ALLOC_NODE_PROTO)
{
	kmp_slab_alloc(KMP_EV_KMEM_CACHE_ALLOC, call_site, ptr, bytes_alloc,
		       bytes_req);
}

#define KMP_TP_NODE	2
#else
#define KMP_TP_NODE	0
#endif

static void notrace __flatten kmp_probe_kfree(KMP_KFREE_PROTO)
{
	kmp_slab_free(KMP_EV_KFREE, ptr);
}

static void notrace __flatten kmp_probe_kmem_cache_free(KMP_CACHE_FREE_PROTO)
{
	kmp_slab_free(KMP_EV_KMEM_CACHE_FREE, ptr);
}

bool kmp_moves_unfollowed;

/*
 * A movable block entered while migration is not followed: its tag is
 * marked (kmemprof.rst, "Migration"). Not in NMI, whose entry is settled
 * later: a movable allocation there would be a bug of its own.
 */
static noinline void kmp_page_alloc_unfollowed(const struct page *page)
{
	if (!in_nmi())
		kmp_account_page_unfollowed(page_to_pfn(page));
}

static void notrace __flatten kmp_probe_page_alloc(KMP_PAGE_ALLOC_PROTO)
{
	if (unlikely(!page)) {
		kmp_page_alloc_failed();
		return;
	}
	/* This probe's frame record: the walk to the call site. */
	kmp_page_alloc(KMP_EV_PAGE_ALLOC,
		       (unsigned long)__builtin_frame_address(0), KMP_PROBE_SKIP,
		       page, order);
	if (unlikely(READ_ONCE(kmp_moves_unfollowed)) &&
	    migratetype == MIGRATE_MOVABLE)
		kmp_page_alloc_unfollowed(page);
}

static void notrace __flatten kmp_probe_page_free(KMP_PAGE_FREE_PROTO)
{
	kmp_page_free(KMP_EV_PAGE_FREE, page, order);
}

static void notrace kmp_probe_percpu_alloc(KMP_PERCPU_ALLOC_PROTO)
{
	unsigned long flags;
	struct kmp_path_sec ps;
	u64 t0;

	if (unlikely(in_nmi())) {
		kmp_stat_nmi();
		return;
	}
	kmp_path_begin(&ps, KMP_EV_PERCPU_ALLOC);
	kmp_enter(KMP_EV_PERCPU_ALLOC, &flags, &t0);

	if (ptr)
		kmp_account_alloc(KMP_KIND_PERCPU,
				  KMP_PERCPU_CALL_SITE(call_site),
				  kmp_key_addr(KMP_KIND_PERCPU,
					       (__force unsigned long)ptr),
				  KMP_PERCPU_BYTES(bytes_alloc, size),
				  size * num_possible_cpus(), 0);
	kmp_leave(flags, t0);
	kmp_path_end(&ps, KMP_PC_GENERAL);
}

static void notrace kmp_probe_percpu_free(KMP_PERCPU_FREE_PROTO)
{
	unsigned long flags;
	struct kmp_path_sec ps;
	u64 t0;

	if (unlikely(in_nmi())) {
		kmp_stat_nmi();
		return;
	}
	kmp_path_begin(&ps, KMP_EV_PERCPU_FREE);
	kmp_enter(KMP_EV_PERCPU_FREE, &flags, &t0);

	if (ptr)
		kmp_account_free_key(kmp_key_addr(KMP_KIND_PERCPU,
						  (__force unsigned long)ptr), 0);
	kmp_leave(flags, t0);
	kmp_path_end(&ps, KMP_PC_GENERAL);
}

/*
 * CMA: cma_alloc() takes its range off the free lists through
 * alloc_contig_range(), with no mm_page_alloc. The range is entered at
 * the end of cma_alloc(), on cma_alloc_finish (5.13-; mainline 5.10 has
 * cma_alloc, with no name), as the naturally aligned blocks that
 * alloc_contig_range() hands to post_alloc_hook(), each one allocation as
 * allocinfo counts them, on the site past the CMA and DMA internals
 * (callsite.c). cma_release() frees the range a page at a time, through
 * mm_page_free, and those frees pair part by part (account.c's split).
 */
static __always_inline void kmp_cma_enter(unsigned long fp,
					  const struct page *page,
					  unsigned long count)
{
	unsigned long pfn, end;
	unsigned int order;

	if (!page)
		return;
	pfn = page_to_pfn(page);
	end = pfn + (u32)count;	/* an unsigned int before 6.1 */
	while (pfn < end) {
		order = min_t(unsigned int, ilog2(end - pfn),
			      KMP_PAGE_ORDERS - 1);
		if (pfn & (BIT(order) - 1))
			order = __ffs(pfn);
		kmp_page_alloc(KMP_EV_NONE, fp, KMP_PROBE_SKIP, pfn_to_page(pfn),
			       order);
		pfn += BIT(order);
	}
}

#if KMP_HAVE_CMA_FINISH
/* Its prototype by kernel: errorno from 6.x, count unsigned long from 6.1. */
#define KMP_CMA_FINISH_IS(args...)					\
	__builtin_types_compatible_p(					\
		typeof(check_trace_callback_type_cma_alloc_finish),	\
		void (void (*)(void *, args)))
#define KMP_CMA_ARGS	const char *name, unsigned long pfn, const struct page *page

static void notrace __flatten __maybe_unused
kmp_probe_cma_err(void *data, KMP_CMA_ARGS, unsigned long count,
		  unsigned int align, int errorno)
{
	kmp_cma_enter((unsigned long)__builtin_frame_address(0), page, count);
}

static void notrace __flatten __maybe_unused
kmp_probe_cma_long(void *data, KMP_CMA_ARGS, unsigned long count,
		   unsigned int align)
{
	kmp_cma_enter((unsigned long)__builtin_frame_address(0), page, count);
}

static void notrace __flatten __maybe_unused
kmp_probe_cma_int(void *data, KMP_CMA_ARGS, unsigned int count,
		  unsigned int align)
{
	kmp_cma_enter((unsigned long)__builtin_frame_address(0), page, count);
}

#define KMP_CMA_ERR	KMP_CMA_FINISH_IS(const char *, unsigned long,	\
					  const struct page *, unsigned long, \
					  unsigned int, int)
#define KMP_CMA_LONG	KMP_CMA_FINISH_IS(const char *, unsigned long,	\
					  const struct page *, unsigned long, \
					  unsigned int)
#define KMP_CMA_INT	KMP_CMA_FINISH_IS(const char *, unsigned long,	\
					  const struct page *, unsigned int, \
					  unsigned int)
static_assert(KMP_CMA_ERR || KMP_CMA_LONG || KMP_CMA_INT,
	      "cma_alloc_finish has a prototype kmemprof does not know");
#define KMP_CMA_TP	"cma_alloc_finish"
#define KMP_CMA_PROBE							\
	__builtin_choose_expr(KMP_CMA_ERR, kmp_probe_cma_err,		\
		__builtin_choose_expr(KMP_CMA_LONG, kmp_probe_cma_long,	\
				      kmp_probe_cma_int))
#else
/*
 * Mainline 5.10's cma_alloc(pfn, page, count, align). Not checked against
 * the header: a vendor 5.10 with the 5.13 events backported has no such
 * event, and the tracepoint is found by name or not at all.
 */
static void notrace __flatten
kmp_probe_cma(void *data, unsigned long pfn, const struct page *page,
	      unsigned int count, unsigned int align)
{
	kmp_cma_enter((unsigned long)__builtin_frame_address(0), page, count);
}

#define KMP_CMA_TP	"cma_alloc"
#define KMP_CMA_PROBE	kmp_probe_cma
#endif

#define KMP_TP_CMA	(KMP_EV_NR + KMP_TP_NODE)
#define KMP_TP_NR	(KMP_TP_CMA + 1)

struct kmp_tp {
	const char *name;
	void *probe;
	enum kmp_kind kind;
	struct tracepoint *tp;
	bool attached;
	bool optional;	/* its kind works without it (CONFIG_CMA) */
	bool frees;	/* ends an object's life (kmp_probes_set()) */
};

/* Indexed by enum kmp_event; older kernels' extra events come last. */
static struct kmp_tp kmp_tps[KMP_TP_NR] = {
	[KMP_EV_KMALLOC] = {
		"kmalloc", kmp_probe_kmalloc, KMP_KIND_SLAB },
	[KMP_EV_KMEM_CACHE_ALLOC] = {
		"kmem_cache_alloc", kmp_probe_kmem_cache_alloc, KMP_KIND_SLAB },
	[KMP_EV_KFREE] = {
		"kfree", kmp_probe_kfree, KMP_KIND_SLAB, .frees = true },
	[KMP_EV_KMEM_CACHE_FREE] = {
		"kmem_cache_free", kmp_probe_kmem_cache_free, KMP_KIND_SLAB,
		.frees = true },
	[KMP_EV_PAGE_ALLOC] = {
		"mm_page_alloc", kmp_probe_page_alloc, KMP_KIND_PAGE },
	[KMP_EV_PAGE_FREE] = {
		"mm_page_free", kmp_probe_page_free, KMP_KIND_PAGE,
		.frees = true },
	[KMP_EV_PERCPU_ALLOC] = {
		"percpu_alloc_percpu", kmp_probe_percpu_alloc, KMP_KIND_PERCPU },
	[KMP_EV_PERCPU_FREE] = {
		"percpu_free_percpu", kmp_probe_percpu_free, KMP_KIND_PERCPU,
		.frees = true },
#if KMP_HAVE_NODE_EVENTS
	[KMP_EV_NR] = {
		"kmalloc_node", kmp_probe_kmalloc_node, KMP_KIND_SLAB },
	[KMP_EV_NR + 1] = {
		"kmem_cache_alloc_node", kmp_probe_kmem_cache_alloc_node,
		KMP_KIND_SLAB },
#endif
	[KMP_TP_CMA] = {
		KMP_CMA_TP, KMP_CMA_PROBE, KMP_KIND_PAGE, .optional = true },
};

/* Compile-time only: each probe must match the kernel's TP_PROTO. */
static inline void kmp_check_protos(void)
{
	check_trace_callback_type_kmalloc(kmp_probe_kmalloc);
	check_trace_callback_type_kmem_cache_alloc(kmp_probe_kmem_cache_alloc);
	check_trace_callback_type_kfree(kmp_probe_kfree);
	check_trace_callback_type_kmem_cache_free(kmp_probe_kmem_cache_free);
	check_trace_callback_type_mm_page_alloc(kmp_probe_page_alloc);
	check_trace_callback_type_mm_page_free(kmp_probe_page_free);
	check_trace_callback_type_percpu_alloc_percpu(kmp_probe_percpu_alloc);
	check_trace_callback_type_percpu_free_percpu(kmp_probe_percpu_free);
#if KMP_HAVE_NODE_EVENTS
	check_trace_callback_type_kmalloc_node(kmp_probe_kmalloc_node);
	check_trace_callback_type_kmem_cache_alloc_node(kmp_probe_kmem_cache_alloc_node);
#endif
}

const char *kmemprof_event_name(enum kmp_event ev)
{
	return ev < KMP_EV_NR ? kmp_tps[ev].name : "?";
}

kmp_export_test_hook(kmemprof_event_name);

u64 kmemprof_event_count(enum kmp_event ev)
{
	if (ev >= KMP_EV_NR)
		return 0;
	return kmp_stat_sum(&kmp_stats.events[ev]) +
	       kmp_stat_sum(&kmp_stats.nmi_events[ev]);
}

kmp_export_test_hook(kmemprof_event_count);

u64 kmp_probe_samples(void)
{
	return kmp_stat_sum(&kmp_stats.timed);
}

/* Mean time in a probe, in ns, over the probes timed. */
u64 kmp_probe_ns(void)
{
	u64 n = kmp_probe_samples();

	return n ? div64_u64(kmp_stat_sum(&kmp_stats.ns), n) : 0;
}

/* The kinds whose tracepoints were all found at load. */
static unsigned int kmp_avail;

static bool kmp_tp_wanted(int i, unsigned int kinds)
{
	return kmp_tps[i].tp && (kinds & kmp_avail & BIT(kmp_tps[i].kind));
}

#if KMP_TEST_HOOKS
/*
 * The probes and hooks attached and detached, in order, for the KUnit
 * suites.
 */
static struct {
	enum kmp_kind kind;
	bool frees;
	bool attach;
} kmp_tp_log[4 * (KMP_TP_NR + KMP_HOOK_NR)];
static unsigned int kmp_tp_log_n;

/*
 * A probe or a hook (hooks.c) of @kind that ends objects (@frees) went on
 * or off.
 */
void kmp_attach_logged(enum kmp_kind kind, bool frees, bool attach)
{
	if (kmp_tp_log_n < ARRAY_SIZE(kmp_tp_log)) {
		kmp_tp_log[kmp_tp_log_n].kind = kind;
		kmp_tp_log[kmp_tp_log_n].frees = frees;
		kmp_tp_log[kmp_tp_log_n++].attach = attach;
	}
}

static void kmp_tp_logged(int i, bool attach)
{
	kmp_attach_logged(kmp_tps[i].kind, kmp_tps[i].frees, attach);
}

/*
 * Whether the probes and hooks attached since the last call went on frees
 * first, and those detached came off frees last, kind by kind (a kind's
 * objects pair within it): 0, or -EINVAL. @n: how many were logged. Under
 * kmp_control_lock's callers' order (the suites').
 */
int kmp_probes_log_order(unsigned int *n)
{
	bool alloc_on[KMP_KIND_NR] = { }, free_off[KMP_KIND_NR] = { };
	int ret = 0;
	unsigned int i;

	for (i = 0; i < kmp_tp_log_n; i++) {
		enum kmp_kind k = kmp_tp_log[i].kind;

		if (kmp_tp_log[i].attach && !kmp_tp_log[i].frees)
			alloc_on[k] = true;
		else if (kmp_tp_log[i].attach && alloc_on[k])
			ret = -EINVAL;
		if (!kmp_tp_log[i].attach && kmp_tp_log[i].frees)
			free_off[k] = true;
		else if (!kmp_tp_log[i].attach && free_off[k])
			ret = -EINVAL;
	}
	*n = kmp_tp_log_n;
	kmp_tp_log_n = 0;
	return ret;
}
#else
static inline void kmp_tp_logged(int i, bool attach)
{
}
#endif

static void kmp_tp_detach(int i)
{
	WARN_ON_ONCE(tracepoint_probe_unregister(kmp_tps[i].tp,
						 kmp_tps[i].probe, NULL));
	kmp_tps[i].attached = false;
	kmp_tp_logged(i, false);
}

/*
 * Attach the probes of @kinds, detach the others, of one class: the frees
 * (@frees) or the allocations. kmp_attach() orders the classes. On error
 * the class is as it was. Caller holds kmp_control_lock.
 */
int kmp_probes_set(unsigned int kinds, bool frees)
{
	bool fresh[KMP_TP_NR] = { }, detached = false;
	int i, ret;

	for (i = 0; i < KMP_TP_NR; i++) {
		if (kmp_tps[i].frees != frees || !kmp_tp_wanted(i, kinds) ||
		    kmp_tps[i].attached)
			continue;
		ret = tracepoint_probe_register(kmp_tps[i].tp,
						kmp_tps[i].probe, NULL);
		if (ret) {
			pr_err("cannot attach to %s: %d\n", kmp_tps[i].name,
			       ret);
			goto undo;
		}
		kmp_tps[i].attached = true;
		kmp_tp_logged(i, true);
		fresh[i] = true;
	}
	for (i = 0; i < KMP_TP_NR; i++) {
		if (kmp_tps[i].frees == frees && kmp_tps[i].attached &&
		    !kmp_tp_wanted(i, kinds)) {
			kmp_tp_detach(i);
			detached = true;
		}
	}
	if (detached)
		tracepoint_synchronize_unregister();
	return 0;
undo:
	while (i--) {
		if (fresh[i]) {
			kmp_tp_detach(i);
			detached = true;
		}
	}
	if (detached)
		tracepoint_synchronize_unregister();
	return ret;
}

#ifdef KMEMPROF_TEST_BUILD
/*
 * For the guest tests only (tests/integration/55-degraded.sh), in the
 * rig's test build alone (module/Kbuild): tracepoints and hooks to treat
 * as missing. The module that is installed has no such parameter.
 */
static char *test_missing;
module_param(test_missing, charp, 0444);
MODULE_PARM_DESC(test_missing,
		 "Tests only: tracepoints and hooks to treat as missing at load");

bool kmp_test_missing(const char *name)
{
	const char *p = test_missing;
	size_t len = strlen(name);

	while (p && (p = strstr(p, name))) {
		if ((p == test_missing || p[-1] == ',') &&
		    (p[len] == ',' || !p[len]))
			return true;
		p += len;
	}
	return false;
}
#endif

static void kmp_find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < KMP_TP_NR; i++)
		if (!kmp_tps[i].tp && !strcmp(tp->name, kmp_tps[i].name) &&
		    !kmp_test_missing(tp->name))
			kmp_tps[i].tp = tp;
}

unsigned int kmp_probes_avail(void)
{
	return kmp_avail;
}

/*
 * A kind is traced only if all its tracepoints exist. A missing one (a
 * kernel built without them, or a name changed) takes its kind out, with
 * a word in dmesg and in stats; the other kinds work on. None at all is
 * an error.
 */
int kmp_probes_init(void)
{
	int i;

	kmp_check_protos();
	for_each_kernel_tracepoint(kmp_find_tp, NULL);
	kmp_avail = KMP_KIND_ALL;
	for (i = 0; i < KMP_TP_NR; i++) {
		if (kmp_tps[i].tp)
			continue;
		if (kmp_tps[i].optional) {
			if (IS_ENABLED(CONFIG_CMA))
				pr_warn("tracepoint %s not found: CMA allocations are not paired\n",
					kmp_tps[i].name);
			continue;
		}
		pr_warn("tracepoint %s not found: %s allocations are not traced\n",
			kmp_tps[i].name, kmp_kind_name(kmp_tps[i].kind));
		kmp_avail &= ~BIT(kmp_tps[i].kind);
	}
	if (!kmp_avail) {
		pr_err("no kmem tracepoint found (CONFIG_TRACEPOINTS?)\n");
		return -ENOENT;
	}
	return 0;
}
