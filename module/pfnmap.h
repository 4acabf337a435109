/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: pfnmap.c's inline half, the PFN map as every page event
 * reaches it (probes.h, account.c, nmi.c, prior.c): an entry's encoding,
 * the lookup of a frame's slot and the take of its entry. See pfnmap.c
 * for the map and its notes on locking.
 */
#ifndef _KMEMPROF_PFNMAP_H
#define _KMEMPROF_PFNMAP_H

#include "internal.h"
#include "tables.h"

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

/*
 * The marker of a frame that prior.c's walk found unreferenced and outside
 * the buddy allocator's free blocks, with no entry kept (kmp_account_prior_unref()):
 * a free page on a per-CPU list, one the allocator is handing out, or a
 * block whose free is under way, its event still to come. That event
 * consumes the marker (prior_freed); an allocation writes over it, as
 * over a migration's. Not VALID, and no kmp_pfn_moved() (tag 0) is it.
 */
static __always_inline u32 kmp_pfn_walked(void)
{
	return KMP_PFN_MOVED | 1;
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

/*
 * The walk's frontier (prior.c), from the page probes' attach to the end
 * of the walk that follows: the first frame of the map that the walk has
 * not passed yet; ULONG_MAX otherwise. pfnmap.c's, written by prior.c.
 */
extern unsigned long kmp_prior_next;

/*
 * The count of a page block's free at @pfn that found no entry: where the
 * walk has not reached its frame yet, a block allocated before the page
 * probes were attached (an allocation since has its event and its entry),
 * neither entered nor unpaired; else an unpaired free. prior.c's locking
 * note says why no ordering against the lookup is needed.
 */
static inline enum kmp_stat kmp_page_nofind(unsigned long pfn)
{
	return pfn - kmp_tab.pfn_base < kmp_tab.pfn_span &&
	       pfn >= READ_ONCE(kmp_prior_next) ? KMP_ST_PRIOR_FREED :
						  KMP_ST_UNPAIRED_PAGE;
}

/* The map's entry of @pfn, or NULL if the map does not cover it. */
static __always_inline u32 *kmp_pfn_slot(unsigned long pfn)
{
	u32 *slot;

	return kmp_pfn_get(pfn, &slot) ? slot : NULL;
}

/* The object of map entry @v: a block of its order, with no time. */
static __always_inline void kmp_pfn_obj(u32 v, struct kmp_obj *obj)
{
	*obj = (struct kmp_obj) {
		.tag = kmp_pfn_tag(v),
		.size = PAGE_SIZE << kmp_pfn_order(v),
		.cpu = U16_MAX,
	};
	obj->req = obj->size;
}

/*
 * Take entry @v, read at @slot, if it is a block of @order: the one step
 * that every path takes a block out of the map with. Taken whole or not
 * at all: with cmpxchg(), so that of the writers that take or replace an
 * entry (the general path, nmi.c, prior.c's scan) exactly one has it; or,
 * @alone, with a plain store, by the fast path, which no scan runs beside
 * (prior.c raises kmp_opts_key first) and which takes only its own
 * block's entry, as an allocation writes only its own.
 */
static __always_inline bool kmp_pfnmap_remove(u32 *slot, u32 v, unsigned int order,
					      const bool alone)
{
	if (!(v & KMP_PFN_VALID) || kmp_pfn_order(v) != order)
		return false;
	if (alone) {
		WRITE_ONCE(*slot, 0);
		return true;
	}
	return cmpxchg(slot, v, 0) == v;
}

/*
 * Whether frame @pfn, which has no entry, lies inside a live block of the
 * map entered at an aligned head below it (blocks are aligned to their
 * size): a part of a block that the kernel split with no event
 * (split_page(), a THP split), whose free splits the block (account.c,
 * "Split page blocks"). Lock-free, a word per order.
 */
static inline bool kmp_pfn_held(unsigned long pfn)
{
	unsigned int k;
	u32 *slot, v;

	for (k = 1; k < KMP_PAGE_ORDERS; k++) {
		unsigned long head = round_down(pfn, 1UL << k);

		if (head == pfn || !kmp_pfn_get(head, &slot))
			continue;
		v = READ_ONCE(*slot);
		if ((v & KMP_PFN_VALID) && kmp_pfn_order(v) >= k)
			return true;
	}
	return false;
}

#endif /* _KMEMPROF_PFNMAP_H */
