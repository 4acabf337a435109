// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the PFN map, which pairs page frees with their allocations.
 *
 * One u32 per page frame of RAM (kmp_pfn_entry()): valid bit, order, and
 * the index of the allocating tag, in chunks of KMP_PFN_CHUNK frames, one
 * chunk per 128 MiB of the physical range that has memory at load. That is
 * 4 bytes per 4 KiB page, 0.1% of RAM, whatever the number of live pages,
 * and an allocation or a free is one load and one store, in any context.
 * A page block outside the map (memory added later, a gap) goes to the
 * live table instead (live.c), as page blocks do while lifetimes are on.
 *
 * Notes on locking: none here. A block has one owner at a time: its free
 * event runs in free_pages_prepare(), before the block goes back to the
 * buddy lists, and its next allocation's event after the allocator took it
 * off them under the zone's own locks. So the entry of a block is written
 * by one CPU at a time, in the order the allocator's locks give, and plain
 * READ_ONCE()/WRITE_ONCE() suffice. A block freed in parts (split_page()
 * and the like) is split into an entry per part by the first free that
 * finds no entry of its order, under a split lock, while the other parts
 * are still allocated; account.c ("Split page blocks") argues that split
 * against the lock-free readers and writers of the entries (the fast path,
 * nmi.c). Walkers (marking tags) read entries with READ_ONCE() and may see
 * a block come or go meanwhile, which only ever marks a tag too many.
 * kmp_pfnmap_clear() runs with the probes detached.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "internal.h"
#include "pfnmap.h"
#include "tables.h"

/* See tables.h: written by prior.c's walk, read by a free with no entry. */
unsigned long kmp_prior_next ____cacheline_aligned_in_smp = ULONG_MAX;

static unsigned long kmp_pfn_nchunks;
static unsigned long kmp_pfn_present;

/* Whether any frame of chunk @c has a struct page. */
static bool kmp_chunk_present(unsigned long c)
{
	unsigned long pfn = kmp_tab.pfn_base + (c << KMP_PFN_CHUNK_SHIFT);
	unsigned long end = min(pfn + KMP_PFN_CHUNK, kmp_tab.pfn_base + kmp_tab.pfn_span);

	for (; pfn < end; pfn += KMP_PFN_STEP)
		if (pfn_valid(pfn))
			return true;
	return false;
}

int kmp_pfnmap_init(void)
{
	unsigned long c, first = ULONG_MAX, end = 0;
	int nid;

	/* The frames the nodes span, holes and all. */
	for_each_online_node(nid) {
		first = min(first, NODE_DATA(nid)->node_start_pfn);
		end = max(end, pgdat_end_pfn(NODE_DATA(nid)));
	}
	if (first >= end)
		return -ENODEV;
	kmp_tab.pfn_base = first & ~(KMP_PFN_CHUNK - 1);
	kmp_tab.pfn_span = end - kmp_tab.pfn_base;
#ifdef CONFIG_SPARSEMEM_VMEMMAP
	kmp_tab.pfn_page = pfn_to_page(kmp_tab.pfn_base);
#endif
	kmp_pfn_nchunks = DIV_ROUND_UP(kmp_tab.pfn_span, KMP_PFN_CHUNK);
	kmp_tab.pfn_chunks = kvcalloc(kmp_pfn_nchunks,
				      sizeof(*kmp_tab.pfn_chunks), GFP_KERNEL);
	if (!kmp_tab.pfn_chunks)
		return -ENOMEM;
	for (c = 0; c < kmp_pfn_nchunks; c++) {
		if (!kmp_chunk_present(c))
			continue;
		kmp_tab.pfn_chunks[c] = vzalloc(KMP_PFN_CHUNK * sizeof(u32));
		if (!kmp_tab.pfn_chunks[c]) {
			kmp_pfnmap_exit();
			return -ENOMEM;
		}
		kmp_pfn_present++;
	}
	return 0;
}

void kmp_pfnmap_exit(void)
{
	unsigned long c;

	if (kmp_tab.pfn_chunks)
		for (c = 0; c < kmp_pfn_nchunks; c++)
			vfree(kmp_tab.pfn_chunks[c]);
	kvfree(kmp_tab.pfn_chunks);
	kmp_tab.pfn_chunks = NULL;
	kmp_tab.pfn_span = 0;
	kmp_pfn_present = 0;
}

/* Only with the probes detached. */
void kmp_pfnmap_clear(void)
{
	unsigned long c;

	for (c = 0; c < kmp_pfn_nchunks; c++) {
		if (kmp_tab.pfn_chunks[c])
			memset(kmp_tab.pfn_chunks[c], 0, KMP_PFN_CHUNK * sizeof(u32));
		cond_resched();
	}
}

/* Call @fn on each live block in the map: its PFN and its entry. */
void kmp_pfnmap_walk(void (*fn)(unsigned long pfn, u32 entry, void *priv),
		     void *priv)
{
	unsigned long c, i;

	for (c = 0; c < kmp_pfn_nchunks; c++) {
		const u32 *chunk = kmp_tab.pfn_chunks[c];

		if (!chunk)
			continue;
		for (i = 0; i < KMP_PFN_CHUNK; i++) {
			u32 e = READ_ONCE(chunk[i]);

			if (e & KMP_PFN_VALID)
				fn(kmp_tab.pfn_base + (c << KMP_PFN_CHUNK_SHIFT) + i,
				   e, priv);
		}
		cond_resched();
	}
}

void kmp_pfnmap_areas(kmp_area_fn fn, void *priv)
{
	unsigned long c;

	fn(kmp_tab.pfn_chunks, kmp_pfn_nchunks * sizeof(*kmp_tab.pfn_chunks),
	   priv);
	for (c = 0; c < kmp_pfn_nchunks; c++)
		fn(kmp_tab.pfn_chunks[c], KMP_PFN_CHUNK * sizeof(u32), priv);
}

size_t kmp_pfnmap_memory(void)
{
	return kmp_pfn_present * KMP_PFN_CHUNK * sizeof(u32) +
	       kmp_pfn_nchunks * sizeof(*kmp_tab.pfn_chunks);
}
