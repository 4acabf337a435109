// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the page blocks allocated before the page probes were attached.
 *
 * kmemprof sees the pages allocated since it loaded. A block allocated
 * before has no entry, so its free was an unpaired one, and nothing ever
 * showed the memory. So whenever the page probes are attached (at load,
 * enabled=1, events gaining page, a reset), every allocated block of RAM
 * that has no entry is entered on one of the before-load tags, by what its
 * struct page tells: slab, anonymous memory, page cache, page tables,
 * the hugetlb pool (its pages free or in use: a free one has no reference,
 * and is still the pool's), reserved (memblock's, the kernel image, the
 * memory map: kept apart, since the page allocator never handed them out),
 * kernel stacks and percpu's dynamic chunks (found from the tasks and the
 * chunks' mappings just before the walk: see kmp_prior_stack() and
 * kmp_prior_percpu()) and other (everything else the kernel allocated:
 * vmalloc, drivers' pages). Their frees then pair, and /proc/kmemprof adds up to
 * the memory in use.
 *
 * A block is a compound page (its head, of its order, or of the largest
 * order for a gigantic hugetlb folio above it, entered as blocks of that
 * order: account.c says why), a single page, or
 * a block of higher order that is not compound (alloc_pages() without
 * __GFP_COMP, __get_free_pages()). The last has a reference on its first
 * page only; its other pages, its tails, have none and no flag, as a page
 * on a per-CPU free list has, and no struct page holds its order
 * (page_owner's page_ext does, which a module cannot count on). So the
 * walk tells its tails from free pages by where free pages are: the first
 * page of a free block is PageBuddy() or on a list (a per-CPU free list;
 * compaction's on 6.9+), and every free page lies in a free block whose
 * first page lies between it and the allocated page before it (blocks are
 * aligned to their size, and no free block holds an allocated page).
 *
 * A page of kind other that is not compound takes as its tails the frames
 * after it that have no reference, none of the flags of a block of their
 * own (PageBuddy(), compound, reserved, slab, page table) and no entry (but
 * this tag's of order 0, from an earlier walk), as far as the largest block
 * aligned at it whose tails are all on no list. A frame is on a list if a
 * node its lru links name points back at it and is one that a free list
 * holds: the head of a per-CPU list of the frame's zone, or the node of a
 * struct page that may be free itself (no reference, no flag, not inside a
 * free buddy block). Nothing else is read: a stack (compaction's list
 * heads), the list poison and what a page's last user left there are no
 * link. Links between the frames of the block itself do not count either:
 * a free list runs through its head, outside the block, so a frame of the
 * block on one is linked to a node outside it, or to a frame of the block
 * that is.
 *
 * Such a block is entered a page at a time, an entry of order 0 a page, on
 * before_load:other: its free, of its order, takes every entry in its
 * range (account.c, "Split page blocks": a free of more than the block at
 * its PFN takes every block in its range), and a part freed alone (after
 * split_page(), or by __free_pages() while the head has another reference)
 * takes its own. It counts as 2^order objects, where a compound block
 * counts as one.
 *
 * Where that is inexact:
 *
 * - A tail whose links, left from its last use, name a node that still
 *   points back at it and may be free (5.10's free_pcppages_bulk() leaves
 *   the links of the pages it merges into buddies pointing at each other)
 *   ends the block early: the block is entered short, the rest of it is
 *   on no line, and its free takes what was entered (no unpaired free).
 * - A free page on no list that the walk can see, right after a page of
 *   kind other from before load, is taken as a tail: a page between a
 *   free list and its owner (its event settles it: an allocation's takes
 *   the entry as freed), alone on one of compaction's lists, on the
 *   zone's list of frees that could not take its lock (trylock_free_pages,
 *   6.15+), held by free page reporting, or a buddy being merged under the
 *   zone's lock. After the entries the walk looks at each tail again and
 *   takes the entry back from one that is PageBuddy() or listed by then.
 *   An entry left on a free frame counts on before_load:other until the
 *   frame is allocated as a block's first page (its event takes it as
 *   freed) or the next walk (it takes it out, as any free frame's); should
 *   the frame be allocated meanwhile inside a larger block that is later
 *   freed in parts, that part's free pairs with it instead of splitting
 *   its block.
 *
 * kmemprof's own tables, allocated at load before any probe, have a line
 * of their own too, kmemprof:tables: their pages are entered on it before
 * the scan, which then passes them over. A table's per-CPU copies are
 * entered with the pages they lie on, which other per-CPU data may share.
 *
 * Notes on locking: the scan runs under kmp_control_lock (control.c),
 * with the probes already attached, so a block allocated or freed during
 * the scan has its event. It reads each struct page without a lock, as
 * page_owner's and /proc/kpageflags' readers do; a block may be allocated
 * or freed under it:
 *
 * - allocated after the scan read its frame's entry: the entry is written
 *   with cmpxchg() from 0, so the allocation's entry, there first, wins;
 *   an allocation after ours finds ours (its probe's cmpxchg_relaxed()
 *   from 0 fails) and replaces it on the general path with xchg(), which
 *   takes a before-load entry found so as freed, not as a stale one;
 * - freed between the scan's read of the page and its entry: the free
 *   went before and found no entry (prior_freed, below); after the
 *   cmpxchg() (a full barrier) the scan reads the page again and, if it
 *   is free now, takes its own entry back with cmpxchg(), leaving the
 *   marker kmp_pfn_walked() (tables.h) in its place, unless the free's
 *   event took the entry already. A free whose event is still to come
 *   (its reference is dropped long before it: folios are freed in
 *   batches) consumes the marker and counts in prior_freed;
 * - freed as the scan reads it, its reference gone and its event still to
 *   come: the frame looks free, in no buddy block and on no free list by
 *   its links (kmp_prior_listed(): a page of a per-CPU list gets no
 *   marker, or its next allocation would leave the fast path), and the
 *   scan marks it so, from an empty entry only (an allocation writes over
 *   the marker as over an empty entry, and a free's event takes it). A
 *   page that 5.10-6.1's release_pages() has put on its own list to free
 *   looks listed, and its free counts unpaired if the scan has passed;
 * - freed before the scan reached its frame: its event finds no entry,
 *   and the walk's frontier (kmp_prior_next: the first frame it has not
 *   passed, set before the attach's first probe and ULONG_MAX after the
 *   walk) tells it from an unpaired free. At or above the frontier it is
 *   a block from before the attach, counted in prior_freed: every block
 *   allocated since has its event and an entry. The frontier moves past
 *   a block after its entries and markers are final. A free reads it
 *   after its lookup failed, in no order with the scan's writes, and
 *   needs none: a frame the frontier has passed has the scan's entry or
 *   its marker, unless an allocation has written over them since (and
 *   then its free finds the allocation's entry); before the frontier
 *   passes, no entry means the scan has not kept one, and the block is
 *   from before. An unpaired free is then one of a block allocated with
 *   no event (`Paths without events' in kmemprof.rst).
 *
 * The scan also takes out the entries of free frames (in the buddy
 * allocator's free blocks, or with no reference: on a per-CPU free list)
 * and of the tails of compound blocks: blocks freed while the probes were
 * detached left them, and a part of a block allocated there since would
 * pair with one instead of splitting its block. Such a frame may be
 * allocated again, or split off (a folio split), as the scan looks at it.
 * So the scan reads the entry, then (smp_rmb()) checks that the frame is
 * still free (PageBuddy() of its free block's head, or no reference) or
 * still a tail of the same head, and takes the entry out with cmpxchg()
 * only if it is still the one it read. An allocation clears PageBuddy()
 * under the zone's lock or takes its reference, and a split clears its
 * tails, before the entry of the block or part is written: the release
 * and the probe's own ordering make an entry read that is newer than the
 * free frame imply a page no longer free, so the scan never takes an
 * entry written since.
 *
 * The pages of a block that is not compound are entered one at a time,
 * its first page first, each with cmpxchg() from 0; then the first page is
 * read again, and if it is free by then, the walk takes back those of its
 * entries that are still there, as above. The block's free takes every
 * entry in its range: one whose event ran among the entries took those
 * made so far, and one whose event is still to come finds none and counts
 * as unpaired, as for a single page.
 *
 * The lru links that tell a tail from a free page (above) are read with
 * no lock either, while other CPUs add pages to their per-CPU lists and
 * take them off: a frame that moves as the walk reads its links may be
 * judged either way, and the look after its entry, then the frame's next
 * event, settle it as for a single page. The only nodes read
 * through the links are struct pages of the map and the per-CPU lists'
 * heads, which stay mapped, so a stale link is never followed.
 *
 * A block whose free is under way as the scan reads it (no reference
 * left, its event not yet run) looks like a per-CPU list's page, and loses
 * its entry: counted freed by the scan, its free then counts as unpaired.
 * The tag's counts stay right, and it is not marked: a frame with no
 * reference is free or about to be, and a block freed while the probes
 * were detached had its tag marked then (kmp_account_mark_live()).
 *
 * Every writer of an entry that may run beside the scan takes or replaces
 * it in one atomic step, so a racing scan and free never both count one
 * entry's free, and an allocation never writes over an entry the scan
 * just made: the general path (account.c) and nmi.c with cmpxchg() or
 * xchg(). The fast paths write their entries plainly, which costs less on
 * every event, so none runs beside the scan: for its length, kmp_opts_key
 * takes every event off the defaults' inline copy, and kmp_slow_key sends
 * it on to the general path (static_branch_inc() of both, under
 * kmp_control_lock, which every other change of the keys takes too), and
 * tracepoint_synchronize_unregister() waits for the probes and hooks
 * already past the key to finish, preemptible probes (7.x) included, the
 * fast paths' irq-off parts and the hooks' preempt-off ones included.
 *
 * Counts are written as the probes write them, with interrupts off.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "internal.h"
#include "options.h"
#include "owners.h"
#include "pfnmap.h"
#include "stat.h"
#include "tables.h"
#include "tags.h"

/* Frames looked at with interrupts off at a time. */
#define KMP_PRIOR_BATCH		512

/*
 * The largest block that is not compound the walk enters whole: the
 * largest of 4 KiB pages (larger ones, of larger pages, are entered
 * short), which keeps kmp_prior_nc()'s bitmap at 128 bytes.
 */
#if KMP_PAGE_ORDERS > 11
#define KMP_PRIOR_NC_ORDER	10
#else
#define KMP_PRIOR_NC_ORDER	(KMP_PAGE_ORDERS - 1)
#endif

static u32 kmp_prior_tags[KMP_PRIOR_NR + 1];
static bool kmp_prior_have_tags;

/*
 * What the block headed by @page is, or -1 if it is free (in the buddy
 * or per-CPU lists) or not a head.
 */
static int kmp_prior_kind(struct page *page)
{
	unsigned long mapping;

	if (PageTail(page) || PageBuddy(page))
		return -1;
	/* the hugetlb pool's, in use or free (no reference in the pool) */
	if (PageHead(page) && PageHuge(page))
		return KMP_PRIOR_HUGETLB;
	if (PageReserved(page))
		return KMP_PRIOR_RESERVED;
	/* before its reference: slab pages are frozen (no reference) on 7.x */
	if (PageSlab(page))
		return KMP_PRIOR_SLAB;
	if (PageTable(page))
		return KMP_PRIOR_PGTABLE;
	if (!page_ref_count(page))
		return -1;
	if (PageAnon(page))
		return KMP_PRIOR_ANON;
	/* a plain address_space: not anon, KSM or movable_ops flags */
	mapping = (unsigned long)READ_ONCE(page->mapping);
	if (mapping && !(mapping & 3))
		return KMP_PRIOR_FILE;
	return KMP_PRIOR_OTHER;
}

/*
 * The block at @page is free now (see the locking note): a hugetlb pool's
 * free page has no reference either, and is still the pool's.
 */
static bool kmp_prior_gone(struct page *page)
{
	return PageBuddy(page) ||
	       (!page_ref_count(page) && !PageSlab(page) && !PageTable(page) &&
		!(PageHead(page) && PageHuge(page)));
}

/* The tags, made once: the pool keeps them across resets. */
static bool kmp_prior_get_tags(void)
{
	unsigned long flags;
	struct kmp_tag *tag;
	unsigned int i;

	if (kmp_prior_have_tags)
		return true;
	for (i = 0; i <= KMP_PRIOR_NR; i++) {
		local_irq_save(flags);
		tag = kmp_tag_find_or_create(KMP_SITE_PRIOR +
					     (i << KMP_SITE_PRIOR_SHIFT),
					     KMP_KIND_PAGE, NULL, 0);
		local_irq_restore(flags);
		if (!tag)
			return false;
		set_bit(KMP_TAG_PRIOR, &tag->flags);
		kmp_prior_tags[i] = kmp_tag_index(tag);
	}
	kmp_prior_have_tags = true;
	return true;
}

/*
 * The pages of one of kmemprof's allocations (kmp_*_areas()), onto its
 * own tag: vmalloc()'s page by page, a block of the linear map whole, and
 * a slab object's not at all (its slab is the slab allocator's).
 */
static void kmp_self_area(const void *addr, size_t size, void *priv)
{
	unsigned long p = (unsigned long)addr & PAGE_MASK;
	unsigned long end = (unsigned long)addr + size, flags;
	u32 tag = kmp_prior_tags[KMP_PRIOR_NR];

	if (!addr)
		return;
	while (p < end) {
		struct page *page;
		unsigned int order = 0;

		if (is_vmalloc_addr((void *)p)) {
			page = vmalloc_to_page((void *)p);
		} else {
			page = virt_to_head_page((void *)p);
			if (PageSlab(page))
				return;
			order = compound_order(page);
			p = (unsigned long)page_address(page);
		}
		if (page) {
			local_irq_save(flags);
			kmp_account_prior(page_to_pfn(page), order, tag);
			local_irq_restore(flags);
		}
		p += PAGE_SIZE << order;
	}
	cond_resched();
}

/* Where the frame at @page is, for kmp_prior_drop(). */
enum kmp_prior_frame {
	KMP_PF_BUDDY,	/* in the free block headed by the page given */
	KMP_PF_TAIL,	/* a tail of the block headed by the page given */
	KMP_PF_UNREF,	/* no reference: a per-CPU free list's, or mid-free */
};

static bool kmp_prior_still(struct page *page, struct page *head,
			    enum kmp_prior_frame where)
{
	switch (where) {
	case KMP_PF_BUDDY:
		/* and the frame still in it: the head may be a smaller one's */
		return PageBuddy(head) &&
		       page - head < (1L << min_t(unsigned long,
						  READ_ONCE(head->private),
						  KMP_PAGE_ORDERS - 1));
	case KMP_PF_TAIL:
		return PageTail(page) && compound_head(page) == head;
	default:
		return !page_ref_count(page) && !PageBuddy(page) &&
		       !PageSlab(page) && !PageTable(page);
	}
}

/*
 * The entry at @pfn is stale where the frame is still as @where says
 * after the entry was read: take it out (see the locking note).
 */
static void kmp_prior_drop(unsigned long pfn, struct page *head,
			   enum kmp_prior_frame where)
{
	struct page *page = pfn_to_page(pfn);
	u32 v = kmp_account_pfn_peek(pfn);

	if (!(v & KMP_PFN_VALID))
		return;
	smp_rmb();	/* the entry before the page: pairs with the allocator */
	if (kmp_prior_still(page, head, where))
		kmp_account_pfn_drop(pfn, v, where == KMP_PF_UNREF);
}

/* Take out the stale entries of the free block at @pfn; its size. */
static unsigned long kmp_prior_free(unsigned long pfn, struct page *page)
{
	/* the buddy allocator's order (page_private()), racy: bounded */
	unsigned long order = READ_ONCE(page->private), i;

	if (order >= KMP_PAGE_ORDERS)
		order = 0;
	for (i = 0; i < 1UL << order; i++)
		kmp_prior_drop(pfn + i, page, KMP_PF_BUDDY);
	return 1UL << order;
}

/*
 * The frame @page has no reference and none of the flags of an allocated
 * block or of the buddy allocator's free one: a free page or a tail of a
 * block that is not compound.
 */
static bool kmp_prior_unref(struct page *page)
{
	return !PageTail(page) && !PageHead(page) && !PageBuddy(page) &&
	       !PageReserved(page) && !PageSlab(page) && !PageTable(page) &&
	       !page_ref_count(page);
}

/*
 * The frame @pfn (@page) may be on a free list: unreferenced, and not
 * inside a free buddy block, whose pages after its first are on none.
 */
static bool kmp_prior_maybe_listed(unsigned long pfn, struct page *page)
{
	unsigned int j;

	if (!kmp_prior_unref(page))
		return false;
	for (j = 1; j < KMP_PAGE_ORDERS; j++) {
		unsigned long h = round_down(pfn, 1UL << j);
		struct page *head = h == pfn ? NULL : pfn_to_online_page(h);

		/* the buddy allocator's order (page_private()), racy */
		if (head && !PageTail(head) && PageBuddy(head) &&
		    READ_ONCE(head->private) >= j)
			return false;
	}
	return true;
}

/* @x is the head of one of the per-CPU free lists of @page's zone. */
static bool kmp_prior_pcp_head(struct page *page, struct list_head *x)
{
	struct zone *zone = page_zone(page);
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct per_cpu_pages *pcp = kmp_zone_pcp(zone, cpu);
		unsigned long d = (unsigned long)x - (unsigned long)pcp->lists;

		if (d < sizeof(pcp->lists) && !(d % sizeof(*x)))
			return true;
	}
	return false;
}

/*
 * The frame whose struct page is @n, if @n is one of the memory map's
 * (in kmemprof's range, online), else -1UL. @n may be any address: with
 * a virtual memory map, or a flat one, that is arithmetic; with the
 * classic sparse one, page_to_pfn() would follow @n's flags to a section
 * that may not be there, so the section is looked up here, and @n read
 * only where the linear map holds it.
 */
static unsigned long kmp_prior_page_pfn(const struct page *n)
{
	unsigned long pfn;
#if defined(CONFIG_SPARSEMEM) && !defined(CONFIG_SPARSEMEM_VMEMMAP)
	struct mem_section *ms;

	if (!virt_addr_valid(n))
		return -1UL;
	ms = __nr_to_section(page_to_section(n));
	if (!ms || !valid_section(ms))
		return -1UL;
	pfn = n - __section_mem_map_addr(ms);
#else
	pfn = page_to_pfn(n);
#endif
	if (pfn - kmp_tab.pfn_base >= kmp_tab.pfn_span ||
	    pfn_to_online_page(pfn) != n)
		return -1UL;
	return pfn;
}

/*
 * The link @x of the node of @page (its next where @next, else its prev)
 * names a node that points back at it and that a free list holds: the
 * node of a struct page outside [@lo, @hi) that may be on a free list
 * itself, or the head of a per-CPU free list of its zone. Only those are
 * read: anything else (NULL, the list poison, a stack, garbage) is no
 * link.
 */
static bool kmp_prior_link(struct page *page, struct list_head *x,
			   bool next, unsigned long lo, unsigned long hi)
{
	struct list_head *lh = &page->lru, *back;
	struct page *n = container_of(x, struct page, lru);
	unsigned long pfn;

	if (x == lh)
		return false;
	pfn = kmp_prior_page_pfn(n);
	if (pfn != -1UL) {
		if ((pfn >= lo && pfn < hi) || !kmp_prior_maybe_listed(pfn, n))
			return false;
	} else if (!kmp_prior_pcp_head(page, x)) {
		return false;
	}
	back = next ? READ_ONCE(x->prev) : READ_ONCE(x->next);
	return back == lh;
}

/*
 * The unreferenced frame @page is on a free list (a per-CPU one, or
 * compaction's), by its links; those to frames in [@lo, @hi) not counted.
 */
static bool kmp_prior_listed(struct page *page, unsigned long lo,
			     unsigned long hi)
{
	return kmp_prior_link(page, READ_ONCE(page->lru.next), true, lo, hi) ||
	       kmp_prior_link(page, READ_ONCE(page->lru.prev), false, lo, hi);
}

/*
 * The frame @pfn may be a tail of a block that is not compound, headed
 * below it, by what it holds itself: unreferenced, and no entry but
 * @mine (a tail entered by an earlier walk).
 */
static bool kmp_prior_nc_tail(unsigned long pfn, u32 mine)
{
	struct page *page = pfn_to_online_page(pfn);
	u32 v;

	if (!page || !kmp_prior_unref(page))
		return false;
	v = kmp_account_pfn_peek(pfn);
	return !v || v == mine;
}

/*
 * The order of the block that is not compound at @pfn: the largest block
 * aligned at @pfn whose frames after the first may all be its tails and
 * none of them is on a free list. Links between frames of the block do
 * not count: a free list holds a node outside it (its head, at least),
 * so any frame of the block on one is linked to a node outside it, or to
 * one in it that is.
 */
static unsigned int kmp_prior_nc_order(unsigned long pfn, u32 mine)
{
	unsigned long end = kmp_tab.pfn_base + kmp_tab.pfn_span, n = 1, i;
	unsigned int max = KMP_PRIOR_NC_ORDER, k;

	if (pfn)
		max = min_t(unsigned int, max, __ffs(pfn));
	while (n < 1UL << max && pfn + n < end &&
	       kmp_prior_nc_tail(pfn + n, mine))
		n++;
	for (k = ilog2(n); k; k--) {
		for (i = 1; i < 1UL << k; i++)
			if (kmp_prior_listed(pfn_to_page(pfn + i), pfn,
					     pfn + (1UL << k)))
				break;
		if (i == 1UL << k)
			return k;
		/* the block ends before that frame */
		k = min_t(unsigned int, k, ilog2(i) + 1);
	}
	return 0;
}

/*
 * Enter the block of kind other at @pfn (@page, not compound, and no
 * entry or one this walk makes) a page at a time: its first page and the
 * frames after it that are its tails. Each frame entered is checked again
 * after its entry, as a single block is (kmp_prior_gone()). The block's
 * size.
 */
static unsigned long kmp_prior_nc(unsigned long pfn, struct page *page,
				  u32 tag, unsigned long *pages)
{
	DECLARE_BITMAP(in, 1UL << KMP_PRIOR_NC_ORDER);
	u32 mine = kmp_pfn_entry(tag, 0);
	unsigned long n = 1UL << kmp_prior_nc_order(pfn, mine), i;

	bitmap_zero(in, n);
	for (i = 0; i < n; i++) {
		if (kmp_account_prior(pfn + i, 0, tag)) {
			__set_bit(i, in);
			(*pages)++;
		}
	}
	/* after the entries (cmpxchg(): full barriers), the pages again */
	if (kmp_prior_gone(page)) {
		for_each_set_bit(i, in, n)
			kmp_account_prior_undo(pfn + i, 0, tag);
		return n;
	}
	for_each_set_bit(i, in, n) {
		struct page *tail = pfn_to_page(pfn + i);

		/* a free frame after all: on a free list now */
		if (i && !page_ref_count(tail) &&
		    (PageBuddy(tail) || kmp_prior_listed(tail, pfn, pfn + n)))
			kmp_account_prior_undo(pfn + i, 0, tag);
	}
	return n;
}

/*
 * Enter the block of @order at @pfn, a part of the compound block headed
 * by @head (itself, but for a gigantic one's), on @tag, and take out the
 * stale entries of its tails. The frame after it.
 */
static unsigned long kmp_prior_block(unsigned long pfn, struct page *head,
				     unsigned int order, u32 tag,
				     unsigned long *pages)
{
	unsigned long i;

	if (kmp_account_prior(pfn, order, tag)) {
		*pages += 1UL << order;
		if (kmp_prior_gone(head))
			kmp_account_prior_undo(pfn, order, tag);
	}
	for (i = 1; i < 1UL << order; i++)
		kmp_prior_drop(pfn + i, head, KMP_PF_TAIL);
	return pfn + (1UL << order);
}

/*
 * The head of the compound block above the largest order (a gigantic
 * hugetlb folio) that the tail @page at @pfn is a part of, where @pfn is
 * aligned to the largest order, or NULL. Such a block is entered as
 * blocks of the largest order, each aligned to its size, as account.c
 * takes it ("Blocks above the buddy allocator's largest order"): the head
 * one from the head, the others from their first frames, here.
 */
static struct page *kmp_prior_giant(unsigned long pfn, struct page *page)
{
	struct page *head;

	if (pfn & (BIT(KMP_PAGE_ORDERS - 1) - 1))
		return NULL;
	head = compound_head(page);
	/* racy: the block may be split or freed meanwhile; bounded */
	if (head == page || !PageHead(head) ||
	    compound_order(head) < KMP_PAGE_ORDERS ||
	    pfn - page_to_pfn(head) >= 1UL << compound_order(head))
		return NULL;
	return head;
}

/* Enter the blocks of [@pfn, @end) that need it. Interrupts off. */
static unsigned long kmp_prior_batch(unsigned long pfn, unsigned long end,
				     unsigned long *pages)
{
	while (pfn < end) {
		struct page *page = pfn_to_online_page(pfn), *head;
		unsigned int order = 0;
		int kind;

		/* the frames below are done: entered, passed over or free */
		WRITE_ONCE(kmp_prior_next, pfn);
		if (!page) {
			pfn++;
			continue;
		}
		if (PageBuddy(page)) {
			pfn += kmp_prior_free(pfn, page);
			continue;
		}
		/* a block of the largest order inside a gigantic one */
		head = PageTail(page) ? kmp_prior_giant(pfn, page) : NULL;
		if (head) {
			kind = kmp_prior_kind(head);
			if (kind >= 0)
				pfn = kmp_prior_block(pfn, head, KMP_PAGE_ORDERS - 1,
						      kmp_prior_tags[kind],
						      pages);
			else
				pfn++;
			continue;
		}
		kind = kmp_prior_kind(page);
		if (kind < 0) {
			if (!PageTail(page)) {
				kmp_prior_drop(pfn, page, KMP_PF_UNREF);
				/* on its way to or from a free list */
				if (kmp_prior_still(page, page, KMP_PF_UNREF) &&
				    !kmp_prior_listed(page, pfn, pfn + 1))
					kmp_account_prior_unref(pfn);
			}
			pfn++;
			continue;
		}
		if (kind == KMP_PRIOR_OTHER && !PageHead(page)) {
			u32 v = kmp_account_pfn_peek(pfn);
			u32 tag = kmp_prior_tags[kind];

			if (!v || v == kmp_pfn_entry(tag, 0)) {
				pfn += kmp_prior_nc(pfn, page, tag, pages);
				continue;
			}
		}
		/* a gigantic block's first part: see kmp_prior_giant() */
		if (PageHead(page))
			order = min_t(unsigned int, compound_order(page),
				      KMP_PAGE_ORDERS - 1);
		pfn = kmp_prior_block(pfn, page, order, kmp_prior_tags[kind],
				      pages);
	}
	return pfn;
}

/*
 * Kernel stacks and percpu chunks, entered before the walk on their own
 * tags (before_load:stack, before_load:percpu), so that the walk finds
 * their entries and passes them over. Both use the walk's rules: an entry
 * is written with cmpxchg() from 0 (an allocation's entry, there first,
 * wins), the frontier stays where kmp_prior_begin() set it, and after the
 * entries the owner is checked again; if it let the pages go, the entries
 * are taken back (kmp_account_prior_undo()).
 */

/* Tasks looked at with interrupts off at a time. */
#define KMP_PRIOR_TASKS		32

#define KMP_STACK_PAGES		DIV_ROUND_UP(THREAD_SIZE, PAGE_SIZE)

/*
 * Enter the stack of task @t on @tag, unless @t is exiting; the pages
 * entered. With interrupts off, under rcu_read_lock() (which keeps @t).
 *
 * A task frees its stack only after it has set PF_EXITING (do_exit()'s
 * exit_signals()), in any kernel and on any path: through the per-CPU
 * cache of VMAP stacks, vfree(), RCU or at once. So PF_EXITING clear when
 * read again after the entries (a full barrier between) means the stack
 * was the task's while it was read: what was entered is its pages, and
 * their frees are still to come, with their events. Set, the entries are
 * taken back, and the walk enters the pages as it finds them.
 */
static unsigned long kmp_prior_stack(struct task_struct *t, u32 tag)
{
#ifdef CONFIG_VMAP_STACK
	/* the frames entered: @vm is not read again once they are */
	unsigned long in[KMP_STACK_PAGES];
	struct vm_struct *vm;
	unsigned int i, n, k = 0;

	if (READ_ONCE(t->flags) & PF_EXITING)
		return 0;
	vm = READ_ONCE(t->stack_vm_area);
	if (!vm)
		return 0;
	/* vmalloc()'s pages, each a block of order 0 */
	n = min_t(unsigned int, READ_ONCE(vm->nr_pages), KMP_STACK_PAGES);
	for (i = 0; i < n; i++) {
		struct page *page = READ_ONCE(vm->pages[i]);

		if (page && kmp_account_prior(page_to_pfn(page), 0, tag))
			in[k++] = page_to_pfn(page);
	}
	smp_mb();	/* the entries before the task's flags */
	if (!(READ_ONCE(t->flags) & PF_EXITING))
		return k;
	for (i = 0; i < k; i++)
		kmp_account_prior_undo(in[i], 0, tag);
	return 0;
#elif THREAD_SIZE >= PAGE_SIZE
	/* one block of alloc_pages_node(), not compound: its head's entry */
	unsigned int order = get_order(THREAD_SIZE);
	struct page *page;
	void *stack;

	if (READ_ONCE(t->flags) & PF_EXITING)
		return 0;
	stack = READ_ONCE(t->stack);
	if (!stack || !virt_addr_valid(stack))
		return 0;
	page = virt_to_page(stack);
	if (PageReserved(page) || PageSlab(page) ||
	    !kmp_account_prior(page_to_pfn(page), order, tag))
		return 0;
	smp_mb();	/* the entry before the task's flags */
	if (!(READ_ONCE(t->flags) & PF_EXITING))
		return 1UL << order;
	kmp_account_prior_undo(page_to_pfn(page), order, tag);
	return 0;
#else
	/* stacks of a slab cache (THREAD_SIZE < PAGE_SIZE): on slab */
	return 0;
#endif
}

/*
 * Every task with a PID, by PID (find_ge_pid(), as /proc lists them), a
 * batch at a time with interrupts off. The idle tasks have none: their
 * stacks are the walk's.
 */
static void kmp_prior_stacks(unsigned long *pages)
{
	u32 tag = kmp_prior_tags[KMP_PRIOR_STACK];
	unsigned long flags;
	struct pid *pid;
	unsigned int i;
	int nr = 1;

	do {
		rcu_read_lock();
		local_irq_save(flags);
		for (i = 0; i < KMP_PRIOR_TASKS; i++) {
			struct task_struct *t;

			pid = kmp_find_ge_pid(nr, &init_pid_ns);
			if (!pid)
				break;
			nr = pid_nr(pid) + 1;
			t = pid_task(pid, PIDTYPE_PID);
			if (t)
				*pages += kmp_prior_stack(t, tag);
		}
		local_irq_restore(flags);
		rcu_read_unlock();
		cond_resched();
	} while (pid);
}

#ifdef CONFIG_SMP
/*
 * percpu's dynamic chunks (percpu-vm.c): each unit's populated pages are
 * pages of order 0 mapped at the chunk's base address, plus the unit's
 * offset, plus their index in the unit; pcpu_set_page_chunk() stores the
 * chunk's pointer in each (kmp_pcpu_page_chunk()). struct pcpu_chunk is
 * percpu's own, so the base address is found without its layout: a word
 * among the chunk's first KMP_PCPU_WORDS, read with
 * copy_from_kernel_nofault() (the pointer may be any value), that is a
 * page-aligned vmalloc address at which, plus a unit's offset and an
 * index in the unit, the page that pointed there is mapped. A chunk is
 * believed only so, and only the pages its mapping holds that point back
 * at it are entered: a page whose pointer is left from a chunk that let
 * it go is not at its place in the mapping. The units' offsets are
 * per_cpu_offset() less the lowest (the lowest unit is at offset 0 in the
 * layouts percpu makes on arm64), and a unit's size is the
 * smallest gap between two, so at most the gap between groups (NUMA) is
 * read past a unit: pages there point at another chunk, and are not
 * entered. The first chunk is memblock's (before_load:reserved), and a
 * chunk beyond the KMP_PCPU_CHUNKS found first, or after
 * KMP_PCPU_PROBES lookups of the mapping, is left to the walk
 * (before_load:other).
 */
#define KMP_PCPU_CHUNKS		64
#define KMP_PCPU_WORDS		32
#define KMP_PCPU_UNIT_MAX	1024
#define KMP_PCPU_PROBES		BIT(20)

static struct {
	unsigned long chunk;
	unsigned long base;
} kmp_pcpu[KMP_PCPU_CHUNKS];
static unsigned int kmp_pcpu_nr;
static unsigned long kmp_pcpu_off0, kmp_pcpu_unit_pages, kmp_pcpu_probes;

/* The units' offsets (their lowest) and the pages of a unit. */
static void kmp_pcpu_geometry(void)
{
	unsigned long lo = ULONG_MAX, gap = ULONG_MAX;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		lo = min(lo, per_cpu_offset(cpu));
	for_each_possible_cpu(cpu)
		if (per_cpu_offset(cpu) != lo)
			gap = min(gap, per_cpu_offset(cpu) - lo);
	kmp_pcpu_off0 = lo;
	kmp_pcpu_unit_pages = gap == ULONG_MAX ? KMP_PCPU_UNIT_MAX :
			      min(gap >> PAGE_SHIFT, (unsigned long)KMP_PCPU_UNIT_MAX);
	kmp_pcpu_nr = 0;
	kmp_pcpu_probes = KMP_PCPU_PROBES;
}

/* The page mapped at @va in the vmalloc area, or NULL. */
static struct page *kmp_pcpu_at(unsigned long va)
{
	return is_vmalloc_addr((void *)va) ? vmalloc_to_page((void *)va) :
					      NULL;
}

/* @page may be a page of a dynamic chunk, with no entry yet. */
static bool kmp_pcpu_candidate(unsigned long pfn, struct page *page)
{
	return !PageReserved(page) && !PageSlab(page) && !PageTable(page) &&
	       !PageBuddy(page) && !PageCompound(page) &&
	       page_ref_count(page) == 1 && !READ_ONCE(page->mapping) &&
	       !kmp_account_pfn_peek(pfn);
}

/* @page is mapped in a unit of the chunk whose base is @base. */
static bool kmp_pcpu_maps(unsigned long base, struct page *page)
{
	unsigned long i, va;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		va = base + per_cpu_offset(cpu) - kmp_pcpu_off0;
		for (i = 0; i < kmp_pcpu_unit_pages; i++, va += PAGE_SIZE) {
			if (!kmp_pcpu_probes)
				return false;
			kmp_pcpu_probes--;
			if (kmp_pcpu_at(va) == page)
				return true;
		}
	}
	return false;
}

/* The base address of the chunk at @chunk that @page says it is of, or 0. */
static unsigned long kmp_pcpu_base(unsigned long chunk, struct page *page)
{
	unsigned long w[KMP_PCPU_WORDS];
	unsigned int i;

	if (!chunk || (chunk & (sizeof(long) - 1)) ||
	    (!virt_addr_valid((void *)chunk) && !is_vmalloc_addr((void *)chunk)))
		return 0;
	if (copy_from_kernel_nofault(w, (void *)chunk, sizeof(w)))
		return 0;
	for (i = 0; i < KMP_PCPU_WORDS; i++)
		if (w[i] && !(w[i] & ~PAGE_MASK) &&
		    is_vmalloc_addr((void *)w[i]) && kmp_pcpu_maps(w[i], page))
			return w[i];
	return 0;
}

/*
 * Find the dynamic chunks: one read of every struct page, with interrupts
 * on (nothing is entered here), each chunk pointer tried once.
 */
static void kmp_pcpu_find(void)
{
	unsigned long pfn = kmp_tab.pfn_base, end = pfn + kmp_tab.pfn_span;
	unsigned long no[8] = { 0 };
	unsigned int i, nno = 0;

	for (; pfn < end; pfn++) {
		struct page *page;
		unsigned long chunk, base;

		if (!(pfn & (KMP_PRIOR_BATCH - 1)))
			cond_resched();
		page = pfn_to_online_page(pfn);
		if (!page || !kmp_pcpu_candidate(pfn, page))
			continue;
		chunk = kmp_pcpu_page_chunk(page);
		for (i = 0; i < kmp_pcpu_nr && kmp_pcpu[i].chunk != chunk; i++)
			;
		if (i < kmp_pcpu_nr)
			continue;
		for (i = 0; i < ARRAY_SIZE(no) && no[i] != chunk; i++)
			;
		if (i < ARRAY_SIZE(no))
			continue;
		if (kmp_pcpu_nr == KMP_PCPU_CHUNKS || !kmp_pcpu_probes)
			return;
		base = kmp_pcpu_base(chunk, page);
		if (!base) {
			no[nno++ % ARRAY_SIZE(no)] = chunk;
			continue;
		}
		kmp_pcpu[kmp_pcpu_nr].chunk = chunk;
		kmp_pcpu[kmp_pcpu_nr].base = base;
		kmp_pcpu_nr++;
	}
}

/*
 * Enter the page mapped at @va if it is one of @chunk's, on @tag; 1 if
 * entered. A chunk's page is unmapped before it is freed
 * (pcpu_depopulate_chunk()): still mapped after the entry (cmpxchg(), a
 * full barrier), its free and event are still to come. With interrupts
 * off.
 */
static unsigned long kmp_pcpu_enter(unsigned long va, unsigned long chunk,
				    u32 tag)
{
	struct page *page = kmp_pcpu_at(va);
	unsigned long pfn;

	if (!page)
		return 0;
	pfn = kmp_prior_page_pfn(page);
	if (pfn == -1UL || kmp_pcpu_page_chunk(page) != chunk ||
	    !kmp_pcpu_candidate(pfn, page) || !kmp_account_prior(pfn, 0, tag))
		return 0;
	if (kmp_pcpu_at(va) == page && kmp_pcpu_page_chunk(page) == chunk)
		return 1;
	kmp_account_prior_undo(pfn, 0, tag);
	return 0;
}

/* The dynamic chunks' pages on before_load:percpu, a unit at a time. */
static void kmp_prior_percpu(unsigned long *pages)
{
	u32 tag = kmp_prior_tags[KMP_PRIOR_PERCPU];
	unsigned long flags, va, i;
	unsigned int c, cpu;

	kmp_pcpu_geometry();
	kmp_pcpu_find();
	for (c = 0; c < kmp_pcpu_nr; c++) {
		for_each_possible_cpu(cpu) {
			va = kmp_pcpu[c].base + per_cpu_offset(cpu) -
			     kmp_pcpu_off0;
			local_irq_save(flags);
			for (i = 0; i < kmp_pcpu_unit_pages; i++, va += PAGE_SIZE)
				*pages += kmp_pcpu_enter(va, kmp_pcpu[c].chunk,
							 tag);
			local_irq_restore(flags);
		}
		cond_resched();
	}
}
#else
static void kmp_prior_percpu(unsigned long *pages)
{
}
#endif

/*
 * From here until the walk ends (kmp_prior_scan(), kmp_prior_end()), a
 * page block's free that finds no entry is of a block from before the
 * attach (tables.h, kmp_page_nofind()). Before the page probes attach,
 * with kmp_control_lock held.
 */
void kmp_prior_begin(void)
{
	WRITE_ONCE(kmp_prior_next, kmp_tab.pfn_base);
}

/* No walk follows (the attach failed), or the walk is done. */
void kmp_prior_end(void)
{
	WRITE_ONCE(kmp_prior_next, ULONG_MAX);
}

/*
 * Enter every allocated block that has no entry (see the top of the
 * file). With kmp_control_lock held and the page probes attached.
 */
void kmp_prior_scan(void)
{
	unsigned long pfn = kmp_tab.pfn_base, end = pfn + kmp_tab.pfn_span;
	unsigned long flags, pages = 0;

	if (!kmp_prior_get_tags()) {
		pr_warn("no tags left for the pages from before load\n");
		kmp_prior_end();
		return;
	}
	/* the fast paths' plain writes stop (see the locking note) */
	static_branch_inc(&kmp_opts_key);
	static_branch_inc(&kmp_slow_key);
	tracepoint_synchronize_unregister();
	/* ours first, or they would count as before_load:other */
	kmp_tags_areas(kmp_self_area, NULL);
	kmp_live_areas(kmp_self_area, NULL);
	kmp_hist_areas(kmp_self_area, NULL);
	kmp_stacks_areas(kmp_self_area, NULL);
	kmp_pfnmap_areas(kmp_self_area, NULL);
	kmp_owners_areas(kmp_self_area, NULL);
	/* then the stacks and percpu chunks, or they would be other too */
	kmp_prior_stacks(&pages);
	kmp_prior_percpu(&pages);
	while (pfn < end) {
		local_irq_save(flags);
		pfn = kmp_prior_batch(pfn, min(pfn + KMP_PRIOR_BATCH, end),
				      &pages);
		local_irq_restore(flags);
		cond_resched();
	}
	kmp_prior_end();
	local_irq_save(flags);
	kmp_stat_add(KMP_ST_PRIOR_PAGES, pages);
	local_irq_restore(flags);
	static_branch_dec(&kmp_slow_key);
	static_branch_dec(&kmp_opts_key);
}

