// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a page block freed in parts comes off its owner part by part,
 * exactly: after split_page(), freed page by page in any order; from
 * alloc_pages_exact(), which splits and frees its tail at once, to
 * free_pages_exact(); and by __free_pages() while another reference holds
 * the head, which frees the tail halves at lower orders.
 *
 * Live bytes and objects count a split block as allocinfo does: one object
 * until its first part is freed (kmemprof sees no event for the split
 * itself), then one per part. page_split counts each split, and none of
 * this marks the tag or counts a free unpaired.
 *
 * A page block that migrates keeps its owner: the destination takes the
 * source's entry, through hooks.c's entry point, and the source's free
 * is no owner's and not unpaired; page_moved counts the moves.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

#define SPLIT_ORDER	3
#define SPLIT_N		BIT(SPLIT_ORDER)
#define SPLIT_BLOCKS	64	/* blocks freed from two CPUs at once */
#define EXACT_PAGES	5	/* alloc_pages_exact(): an order-3 block */

/* The one call site of the split blocks: the tags inside this function. */
static noinline void split_alloc(struct page **page)
{
	*page = alloc_pages(GFP_KERNEL, SPLIT_ORDER);
}

/*
 * The call site of alloc_pages_exact(): its caller, since kmemprof walks
 * past alloc_pages*() as an allocator entry point.
 */
static noinline void exact_alloc(void **p)
{
	*p = alloc_pages_exact(EXACT_PAGES * PAGE_SIZE, GFP_KERNEL);
}

/* What the case started from: the tags' totals and the statistics. */
struct split_base {
	const void *fn;
	struct kmp_totals t;
	u64 splits;
	u64 unpaired;
	u64 moved;
	u64 returned;
};

static struct kmp_totals fn_totals(struct kunit *test, const void *fn,
				   bool *inaccurate)
{
	unsigned long start, end;
	struct kmp_totals t;

	kmp_test_fn_range(test, fn, &start, &end);
	kmemprof_sum_range(KMP_KIND_PAGE, start, end, &t, inaccurate);
	return t;
}

static void split_begin(struct kunit *test, const void *fn,
			struct split_base *b)
{
	b->fn = fn;
	b->t = fn_totals(test, fn, NULL);
	b->splits = kmemprof_stat(KMP_ST_PAGE_SPLIT);
	b->unpaired = kmemprof_stat(KMP_ST_UNPAIRED_PAGE);
	b->moved = kmemprof_stat(KMP_ST_PAGE_MOVED);
	b->returned = kmemprof_stat(KMP_ST_PAGE_RETURNED);
}

/*
 * The tags' totals since split_begin(): @allocs, @frees and @live pages
 * and objects, exactly, and no mark.
 */
static void split_expect(struct kunit *test, const struct split_base *b,
			 const char *what, int step, u64 allocs, u64 frees,
			 u64 live_pages, u64 live_objs)
{
	struct kmp_totals t;
	bool inacc;

	t = fn_totals(test, b->fn, &inacc);
	KMP_EXPECT_EQ_MSG(test, t.live_bytes - b->t.live_bytes,
			  live_pages * PAGE_SIZE, "live bytes: %s, step %d",
			  what, step);
	KMP_EXPECT_EQ_MSG(test, t.live_objs - b->t.live_objs, live_objs,
			  "live objects: %s, step %d", what, step);
	KMP_EXPECT_EQ_MSG(test, t.allocs - b->t.allocs, allocs,
			  "allocs: %s, step %d", what, step);
	KMP_EXPECT_EQ_MSG(test, t.frees - b->t.frees, frees,
			  "frees: %s, step %d", what, step);
	KMP_EXPECT_EQ_MSG(test, t.freed - b->t.freed,
			  t.bytes - b->t.bytes - live_pages * PAGE_SIZE,
			  "freed bytes: %s, step %d", what, step);
	KUNIT_EXPECT_FALSE_MSG(test, inacc, "marked accurate:no: %s, step %d",
			       what, step);
}

/*
 * The statistics are global: a background free of a page allocated before
 * load counts in unpaired.page, a background split in page_split. A case
 * that asserts their exact deltas runs again while they are off, up to
 * SPLIT_TRIES times, and only its last run reports them. A wrong count of
 * the case's own still fails every run.
 */
#define SPLIT_TRIES	3

/*
 * The statistics since split_begin(): @splits splits, and @unpaired
 * frees that found no owner. Whether they are exact; reported if @last.
 */
static bool split_stats(struct kunit *test, const struct split_base *b,
			const char *what, u64 splits, u64 unpaired, bool last)
{
	u64 ds = kmemprof_stat(KMP_ST_PAGE_SPLIT) - b->splits;
	u64 du = kmemprof_stat(KMP_ST_UNPAIRED_PAGE) - b->unpaired;

	if (ds == splits && du == unpaired)
		return true;
	if (!last) {
		kunit_info(test, "%s: page_split +%llu, unpaired.page +%llu: again\n",
			   what, ds, du);
		return false;
	}
	KMP_EXPECT_EQ_MSG(test, ds, splits, "page_split: %s", what);
	KMP_EXPECT_EQ_MSG(test, du, unpaired, "unpaired.page: %s", what);
	return false;
}

/* The same for page_moved and page_returned. */
static bool split_moves(struct kunit *test, const struct split_base *b,
			u64 moved, u64 returned, bool last)
{
	u64 dm = kmemprof_stat(KMP_ST_PAGE_MOVED) - b->moved;
	u64 dr = kmemprof_stat(KMP_ST_PAGE_RETURNED) - b->returned;

	if (dm == moved && dr == returned)
		return true;
	if (!last) {
		kunit_info(test, "page_moved +%llu, page_returned +%llu: again\n",
			   dm, dr);
		return false;
	}
	KMP_EXPECT_EQ_MSG(test, dm, moved, "page_moved");
	KMP_EXPECT_EQ_MSG(test, dr, returned, "page_returned");
	return false;
}

/* Run @once until its statistics are exact, up to SPLIT_TRIES times. */
static void split_tries(struct kunit *test,
			bool (*once)(struct kunit *test, bool last))
{
	int i;

	for (i = 1; i <= SPLIT_TRIES; i++)
		if (once(test, i == SPLIT_TRIES) || kmp_kunit_failed(test))
			return;
}

static int split_test_init(struct kunit *test)
{
	KMP_ASSERT_EQ(test, kmemprof_set_events(KMP_KIND_ALL), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	return 0;
}

static void split_test_exit(struct kunit *test)
{
	kmemprof_set_knob("lifetimes", 0);
}

/* The orders the pages of a split block are freed in. */
static const struct split_order {
	const char *name;
	u8 idx[SPLIT_N];
} split_orders[] = {
	{ "ascending", { 0, 1, 2, 3, 4, 5, 6, 7 } },
	{ "descending", { 7, 6, 5, 4, 3, 2, 1, 0 } },
	{ "interleaved", { 1, 6, 3, 0, 5, 2, 7, 4 } },
	{ "head last", { 5, 1, 7, 3, 2, 6, 4, 0 } },
};

/*
 * alloc_pages(order 3), split_page(), then each page freed in the order
 * @o: exact after every free.
 */
static bool split_free_order(struct kunit *test, const struct split_order *o,
			     bool check_split, bool last)
{
	struct split_base b;
	struct page *page;
	int n;

	split_begin(test, split_alloc, &b);
	split_alloc(&page);
	KMP_ASSERT_NOT_NULL(test, page);
	split_page(page, SPLIT_ORDER);
	if (check_split)
		split_expect(test, &b, o->name, 0, 1, 0, SPLIT_N, 1);
	for (n = 1; n <= SPLIT_N; n++) {
		__free_page(page + o->idx[n - 1]);
		/* one object per page once the first is freed */
		split_expect(test, &b, o->name, n, SPLIT_N, n, SPLIT_N - n,
			     SPLIT_N - n);
	}
	return split_stats(test, &b, o->name, 1, 0, last);
}

static void split_free_orders(struct kunit *test, bool check_split)
{
	const struct split_order *o;
	int i;

	for (o = split_orders; o < split_orders + ARRAY_SIZE(split_orders);
	     o++)
		for (i = 1; i <= SPLIT_TRIES; i++)
			if (split_free_order(test, o, check_split,
					     i == SPLIT_TRIES) ||
			    kmp_kunit_failed(test))
				break;
}

/* Each order, exact after every free. */
static void split_freed_in_order(struct kunit *test)
{
	split_free_orders(test, true);
}

/* The same with lifetimes on: page blocks go to the live table. */
static void split_freed_in_live_table(struct kunit *test)
{
	KMP_ASSERT_EQ(test, kmemprof_set_knob("lifetimes", 1), 0);
	split_free_orders(test, false);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("lifetimes", 0), 0);
}

/* Two CPUs free the pages of the same split blocks at once. */
struct split_race {
	struct page **blocks;
	struct completion start;	/* the blocks are there */
	struct completion ready;
	struct completion done;
	atomic_t go;
	int first;		/* 0: the even pages, 1: the odd ones */
};

static int split_race_thread(void *arg)
{
	struct split_race *r = arg;
	int i, j;

	wait_for_completion(&r->start);
	complete(&r->ready);
	while (!atomic_read_acquire(&r->go))
		cpu_relax();
	for (i = 0; i < SPLIT_BLOCKS; i++)
		for (j = r->first; j < SPLIT_N; j += 2)
			__free_page(r->blocks[i] + j);
	complete(&r->done);
	return 0;
}

static bool split_two_cpus_once(struct kunit *test, bool last)
{
	struct split_race *r;
	struct split_base b;
	struct page **blocks;
	int i, cpu[2], ncpu = 0, c;

	for_each_online_cpu(c)
		if (ncpu < 2)
			cpu[ncpu++] = c;
	if (ncpu < 2) {
		kmp_kunit_skip(test, "needs two CPUs");
		return true;
	}
	r = kmp_kunit_kcalloc(test, 2, sizeof(*r), GFP_KERNEL);
	blocks = kmp_kunit_kcalloc(test, SPLIT_BLOCKS, sizeof(*blocks),
				   GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, r);
	KMP_ASSERT_NOT_NULL(test, blocks);
	/*
	 * The threads first: a new thread's stack may come from vmalloc,
	 * which splits its pages (7.x) and would count in page_split.
	 */
	for (i = 0; i < 2; i++) {
		struct task_struct *t;

		r[i].blocks = blocks;
		r[i].first = i;
		init_completion(&r[i].start);
		init_completion(&r[i].ready);
		init_completion(&r[i].done);
		t = kthread_create(split_race_thread, &r[i], "kmp_split/%d",
				   cpu[i]);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		kthread_bind(t, cpu[i]);
		wake_up_process(t);
	}
	split_begin(test, split_alloc, &b);
	for (i = 0; i < SPLIT_BLOCKS; i++) {
		split_alloc(&blocks[i]);
		KMP_ASSERT_NOT_NULL(test, blocks[i]);
		split_page(blocks[i], SPLIT_ORDER);
	}
	for (i = 0; i < 2; i++)
		complete(&r[i].start);
	for (i = 0; i < 2; i++)
		wait_for_completion(&r[i].ready);
	atomic_set_release(&r[0].go, 1);
	atomic_set_release(&r[1].go, 1);
	for (i = 0; i < 2; i++)
		wait_for_completion(&r[i].done);
	split_expect(test, &b, "two CPUs", 0, SPLIT_BLOCKS * SPLIT_N,
		     SPLIT_BLOCKS * SPLIT_N, 0, 0);
	/*
	 * The threads' own stacks, freed when they exit, are vmalloc's split
	 * pages on 7.x: a split each, whenever RCU gets to them, in this run
	 * or the next. So page_split is at least the blocks' here (the cases
	 * above check it exactly), and the tag's totals are exact.
	 */
	KMP_EXPECT_GE_MSG(test, kmemprof_stat(KMP_ST_PAGE_SPLIT) - b.splits,
			  SPLIT_BLOCKS, "page_split: two CPUs");
	return split_stats(test, &b, "two CPUs",
			   kmemprof_stat(KMP_ST_PAGE_SPLIT) - b.splits, 0,
			   last);
}

static void split_freed_from_two_cpus(struct kunit *test)
{
	split_tries(test, split_two_cpus_once);
}

/*
 * alloc_pages_exact() of 5 pages takes an order-3 block, splits it and
 * frees the last 3 pages at once; free_pages_exact() frees the rest page
 * by page.
 */
static bool split_pages_exact_once(struct kunit *test, bool last)
{
	struct split_base b;
	void *p;

	split_begin(test, exact_alloc, &b);
	exact_alloc(&p);
	KMP_ASSERT_NOT_NULL(test, p);
	split_expect(test, &b, "alloc_pages_exact", 0, SPLIT_N,
		     SPLIT_N - EXACT_PAGES, EXACT_PAGES, EXACT_PAGES);
	free_pages_exact(p, EXACT_PAGES * PAGE_SIZE);
	split_expect(test, &b, "free_pages_exact", 1, SPLIT_N, SPLIT_N, 0, 0);
	return split_stats(test, &b, "alloc_pages_exact", 1, 0, last);
}

static void split_pages_exact(struct kunit *test)
{
	split_tries(test, split_pages_exact_once);
}

/*
 * __free_pages() of a block whose head has another reference frees the
 * tail halves at once, at orders 2, 1 and 0; the head page goes when the
 * last reference does. One object throughout, as allocinfo counts it.
 */
static bool split_head_held_once(struct kunit *test, bool last)
{
	struct split_base b;
	struct page *page;

	split_begin(test, split_alloc, &b);
	split_alloc(&page);
	KMP_ASSERT_NOT_NULL(test, page);
	get_page(page);
	__free_pages(page, SPLIT_ORDER);
	split_expect(test, &b, "head held", 0, 1 + SPLIT_ORDER, SPLIT_ORDER,
		     1, 1);
	put_page(page);
	split_expect(test, &b, "head put", 1, 1 + SPLIT_ORDER,
		     1 + SPLIT_ORDER, 0, 0);
	return split_stats(test, &b, "head held", SPLIT_ORDER, 0, last);
}

static void split_free_pages_head_held(struct kunit *test)
{
	split_tries(test, split_head_held_once);
}

/*
 * A part freed in NMI (7.x: pages for BPF) is left to the irq_work, which
 * splits the block, through nmi.c's entry point: the part at @idx. The
 * kernel has not freed the page, so its real free afterwards finds
 * nothing: one unpaired free, and the tag exact throughout.
 */
static bool split_nmi_part(struct kunit *test, bool last, int idx,
			   const char *what)
{
	struct split_base b;
	struct page *page;
	int i;

	split_begin(test, split_alloc, &b);
	split_alloc(&page);
	KMP_ASSERT_NOT_NULL(test, page);
	split_page(page, SPLIT_ORDER);
	kmemprof_test_nmi_page_free(page + idx, 0);
	kmemprof_test_nmi_flush();
	split_expect(test, &b, what, 0, SPLIT_N, 1, SPLIT_N - 1, SPLIT_N - 1);
	for (i = 0; i < SPLIT_N; i++)
		if (i != idx)
			__free_page(page + i);
	split_expect(test, &b, what, 1, SPLIT_N, SPLIT_N, 0, 0);
	__free_page(page + idx);
	return split_stats(test, &b, what, 1, 1, last);
}

/* The head page: its entry has the block's order, the irq_work splits it. */
static bool split_nmi_once(struct kunit *test, bool last)
{
	return split_nmi_part(test, last, 0, "NMI");
}

static void split_nmi_part_free(struct kunit *test)
{
	split_tries(test, split_nmi_once);
}

/*
 * Migration (hooks.c's hook on folio_migrate_flags(), through its entry
 * point): the destination takes the source's entry, and the owner's
 * numbers do not move. The destination's own site, as
 * alloc_migration_target()'s, allocates it here.
 */
static noinline void move_target(struct page **page, unsigned int order)
{
	*page = alloc_pages(GFP_KERNEL, order);
}

/* A destination with an entry of its own: it goes to the source. */
static bool split_move_once(struct kunit *test, bool last)
{
	struct split_base a, b;
	struct page *src, *dst;

	split_begin(test, split_alloc, &a);
	split_begin(test, move_target, &b);
	split_alloc(&src);
	move_target(&dst, SPLIT_ORDER);
	KMP_ASSERT_NOT_NULL(test, src);
	KMP_ASSERT_NOT_NULL(test, dst);
	kmemprof_test_page_move(dst, src, SPLIT_ORDER);
	split_expect(test, &a, "moved: owner", 0, 1, 0, SPLIT_N, 1);
	split_expect(test, &b, "moved: target", 0, 1, 0, SPLIT_N, 1);
	__free_pages(src, SPLIT_ORDER);
	split_expect(test, &a, "source freed: owner", 1, 1, 0, SPLIT_N, 1);
	split_expect(test, &b, "source freed: target", 1, 1, 1, 0, 0);
	__free_pages(dst, SPLIT_ORDER);
	split_expect(test, &a, "destination freed: owner", 2, 1, 1, 0, 0);
	return split_stats(test, &a, "moved", 0, 0, last) &&
	       split_moves(test, &a, 1, 0, last);
}

static void split_move_to_allocated(struct kunit *test)
{
	split_tries(test, split_move_once);
}

/*
 * A destination with no entry (compaction's isolated free pages; here,
 * allocated while kmemprof was off): the source's own free finds a
 * marker, and is neither an owner's free nor unpaired.
 */
static bool split_move_free_once(struct kunit *test, bool last)
{
	struct split_base a;
	struct page *src, *dst;
	int i;

	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	move_target(&dst, SPLIT_ORDER);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	KMP_ASSERT_NOT_NULL(test, dst);
	/*
	 * the re-attach entered it on before_load, a page at a time (it is
	 * not compound): no entry, as compaction's
	 */
	for (i = 0; i < SPLIT_N; i++)
		kmemprof_test_page_forget(dst + i);
	split_begin(test, split_alloc, &a);
	split_alloc(&src);
	KMP_ASSERT_NOT_NULL(test, src);
	kmemprof_test_page_move(dst, src, SPLIT_ORDER);
	__free_pages(src, SPLIT_ORDER);
	split_expect(test, &a, "source freed", 0, 1, 0, SPLIT_N, 1);
	__free_pages(dst, SPLIT_ORDER);
	split_expect(test, &a, "destination freed", 1, 1, 1, 0, 0);
	return split_stats(test, &a, "moved to a free page", 0, 0, last) &&
	       split_moves(test, &a, 1, 0, last);
}

static void split_move_to_free_page(struct kunit *test)
{
	split_tries(test, split_move_free_once);
}

/* One page of a split block moves: the block's owner keeps it. */
static bool split_move_part_once(struct kunit *test, bool last)
{
	struct split_base a;
	struct page *src, *dst;
	int i;

	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	move_target(&dst, 0);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	KMP_ASSERT_NOT_NULL(test, dst);
	kmemprof_test_page_forget(dst);
	split_begin(test, split_alloc, &a);
	split_alloc(&src);
	KMP_ASSERT_NOT_NULL(test, src);
	split_page(src, SPLIT_ORDER);
	kmemprof_test_page_move(dst, src + 2, 0);
	/* the move splits the block: one object per page from here */
	split_expect(test, &a, "part moved", 0, SPLIT_N, 0, SPLIT_N, SPLIT_N);
	for (i = 0; i < SPLIT_N; i++)
		__free_page(src + i);
	split_expect(test, &a, "block freed", 1, SPLIT_N, SPLIT_N - 1, 1, 1);
	__free_page(dst);
	split_expect(test, &a, "destination freed", 2, SPLIT_N, SPLIT_N, 0, 0);
	return split_stats(test, &a, "part moved", 1, 0, last) &&
	       split_moves(test, &a, 1, 0, last);
}

static void split_move_part(struct kunit *test)
{
	split_tries(test, split_move_part_once);
}

/*
 * A free above the buddy allocator's largest order (6.11+: folio_put() of
 * a gigantic hugetlb folio) takes every largest-order block in its range
 * (account.c, "Blocks above the buddy allocator's largest order"). The
 * range: 2^KMP_PAGE_ORDERS pages from alloc_contig_range(), which makes
 * no event, entered as largest-order blocks as CMA's event enters a
 * gigantic folio. After that free, the blocks are entered again and the
 * range freed a page at a time, as free_contig_range() frees a gigantic
 * folio up to 6.10: each block splits at its first page's free.
 */
#define GIANT_ORDER	KMP_PAGE_ORDERS
#define GIANT_N		BIT(GIANT_ORDER)
#define GIANT_PARTS	BIT(GIANT_ORDER - (KMP_PAGE_ORDERS - 1))
#define GIANT_TRIES	64	/* ranges tried for alloc_contig_range() */

/* The call site of the gigantic range's blocks. */
static noinline void giant_enter(struct page *page)
{
	int i;

	for (i = 0; i < GIANT_PARTS; i++)
		kmemprof_test_page_alloc(page + (i << (KMP_PAGE_ORDERS - 1)),
					 KMP_PAGE_ORDERS - 1);
}

/* 6.16 gave alloc_contig_range() flags for its migrate type. */
#ifdef ACR_FLAGS_NONE
#define GIANT_HOW	ACR_FLAGS_NONE
#else
#define GIANT_HOW	MIGRATE_MOVABLE
#endif

/*
 * An aligned range of GIANT_N free pages taken off the free lists, or 0
 * with alloc_contig_range()'s last error in *@err.
 */
static unsigned long giant_range(int *err)
{
#ifdef CONFIG_CONTIG_ALLOC
	struct page *hint = alloc_page(GFP_HIGHUSER_MOVABLE);
	unsigned long start, pfn;
	int i;

	*err = -ENOMEM;
	if (!hint)
		return 0;
	pfn = page_to_pfn(hint);
	__free_page(hint);
	start = round_down(pfn, GIANT_N);
	for (i = 0; i < GIANT_TRIES; i++, start -= GIANT_N) {
		if (start < GIANT_N || !pfn_valid(start) ||
		    !pfn_valid(start + GIANT_N - 1))
			break;
		*err = alloc_contig_range(start, start + GIANT_N, GIANT_HOW,
					  GFP_KERNEL | __GFP_NOWARN);
		if (!*err)
			return start;
	}
#else
	*err = -EOPNOTSUPP;
#endif
	return 0;
}

static bool split_giant_once(struct kunit *test, bool last)
{
	struct split_base b;
	struct page *page;
	unsigned long pfn;
	int err;

	pfn = giant_range(&err);
	if (!pfn) {
		kmp_kunit_skip(test, "no free range of %lu pages: %d", GIANT_N,
			       err);
		return true;
	}
	page = pfn_to_page(pfn);
	split_begin(test, giant_enter, &b);
	giant_enter(page);
	split_expect(test, &b, "gigantic", 0, GIANT_PARTS, 0, GIANT_N,
		     GIANT_PARTS);
	kmemprof_test_page_free_event(page, GIANT_ORDER);
	split_expect(test, &b, "gigantic freed whole", 1, GIANT_PARTS,
		     GIANT_PARTS, 0, 0);
	giant_enter(page);
	free_contig_range(pfn, GIANT_N);
	split_expect(test, &b, "gigantic freed page by page", 2,
		     GIANT_PARTS * (1 + (GIANT_N / GIANT_PARTS)),
		     GIANT_PARTS * (1 + (GIANT_N / GIANT_PARTS)), 0, 0);
	return split_stats(test, &b, "gigantic", GIANT_PARTS, 0, last);
}

static void split_gigantic(struct kunit *test)
{
	split_tries(test, split_giant_once);
}

/*
 * A tail page, at a frame with no entry of its own: left to the irq_work
 * too (kmp_pfn_held()), not counted unpaired then and there while the
 * block stays live on its owner and is later entered again as a part.
 */
static bool split_nmi_tail_once(struct kunit *test, bool last)
{
	return split_nmi_part(test, last, 1, "NMI tail");
}

static void split_nmi_tail_free(struct kunit *test)
{
	/* blocks in the map alone, as at the defaults: no pages_hashed */
	KMP_ASSERT_EQ(test, kmemprof_reset(), 0);
	split_tries(test, split_nmi_tail_once);
}

/*
 * With sample_rate above 1, a migration's source keeps a marker that its
 * free consumes: the fast path leaves it to the general path, and the
 * free is neither unpaired nor left to consume a later one.
 */
static bool split_move_sampled_once(struct kunit *test, bool last)
{
	struct split_base a;
	struct page *src, *dst;
	bool tracked = false;
	int i, j;

	KMP_ASSERT_EQ(test, kmemprof_set_sample_rate(2), 0);
	/* one block in two is tracked: the first whose move is counted */
	for (i = 0; i < 8 && !tracked; i++) {
		KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
		move_target(&dst, SPLIT_ORDER);
		KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
		KMP_ASSERT_NOT_NULL(test, dst);
		/* no entry, as compaction's free pages (see above) */
		for (j = 0; j < SPLIT_N; j++)
			kmemprof_test_page_forget(dst + j);
		split_begin(test, split_alloc, &a);
		split_alloc(&src);
		KMP_ASSERT_NOT_NULL(test, src);
		kmemprof_test_page_move(dst, src, SPLIT_ORDER);
		tracked = kmemprof_stat(KMP_ST_PAGE_MOVED) != a.moved;
		__free_pages(src, SPLIT_ORDER);
		__free_pages(dst, SPLIT_ORDER);
	}
	KMP_ASSERT_EQ(test, kmemprof_set_sample_rate(1), 0);
	KUNIT_ASSERT_TRUE_MSG(test, tracked, "no block tracked in 8");
	return split_stats(test, &a, "moved, sampled", 0, 0, last) &&
	       split_moves(test, &a, 1, 0, last);
}

static void split_move_sampled(struct kunit *test)
{
	/* blocks in the map alone, as at the defaults: no pages_hashed */
	KMP_ASSERT_EQ(test, kmemprof_reset(), 0);
	split_tries(test, split_move_sampled_once);
}

/*
 * The re-attach scan passes over the parts of a block the kernel split:
 * they have no entry of their own, and the block's entry at its head holds
 * them (kmp_pfn_held()). Entered on before_load, a part freed first would
 * pay that entry off, and the head's free would then split the block and
 * enter the part again on the owner, live for good: 83-attach's stale.
 */
/* The rescan case's own site: no other case's block is ever on it. */
static noinline void rescan_alloc(struct page **page)
{
	*page = alloc_pages(GFP_KERNEL, SPLIT_ORDER);
}

static bool split_rescan_once(struct kunit *test, bool last)
{
	struct split_base b;
	struct page *page;
	int i;

	split_begin(test, rescan_alloc, &b);
	rescan_alloc(&page);
	KMP_ASSERT_NOT_NULL(test, page);
	split_page(page, SPLIT_ORDER);
	KMP_ASSERT_EQ(test, kmemprof_test_rescan(), 0);
	__free_page(page + 1);
	split_expect(test, &b, "rescanned", 0, SPLIT_N, 1, SPLIT_N - 1,
		     SPLIT_N - 1);
	__free_page(page);
	for (i = 2; i < SPLIT_N; i++)
		__free_page(page + i);
	split_expect(test, &b, "rescanned", 1, SPLIT_N, SPLIT_N, 0, 0);
	return split_stats(test, &b, "rescanned", 1, 0, last);
}

static void split_rescan(struct kunit *test)
{
	split_tries(test, split_rescan_once);
}

/*
 * A block from before the page probes' attach, freed while the walk that
 * follows the attach has not reached it yet, is counted in prior_freed,
 * not as an unpaired free; one the walk has passed, that has no entry, is
 * unpaired. (Before: a reset under load counted such frees unpaired, 1.6%
 * of the page events that followed it, in 69-stress-ng.) The blocks'
 * entries are forgotten, as for blocks allocated with no event.
 */
/*
 * The unwalked case's own site: compound blocks, which the walk enters
 * whole at their heads. (A block that is not compound is entered a page
 * at a time, as far as its tails look like tails: forgetting its head
 * would then leave its tails' entries, or not, by what its frames held.)
 */
static noinline void unwalked_alloc(struct page **page)
{
	*page = alloc_pages(GFP_KERNEL | __GFP_COMP, SPLIT_ORDER);
}

static bool split_unwalked_once(struct kunit *test, bool last)
{
	struct page *ahead, *behind;
	struct split_base b;
	u64 unwalked, dw;

	/* two blocks from before the attach, which the walk entered */
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	unwalked_alloc(&ahead);
	unwalked_alloc(&behind);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	if (!ahead || !behind) {
		if (ahead)
			__free_pages(ahead, SPLIT_ORDER);
		if (behind)
			__free_pages(behind, SPLIT_ORDER);
		KUNIT_FAIL(test, "no order-%d blocks", SPLIT_ORDER);
		return true;
	}
	/* and as if it had not reached them yet */
	kmemprof_test_page_forget(ahead);
	kmemprof_test_page_forget(behind);
	if (page_to_pfn(behind) > page_to_pfn(ahead))
		swap(ahead, behind);
	split_begin(test, unwalked_alloc, &b);
	unwalked = kmemprof_stat(KMP_ST_PRIOR_FREED);
	/* the walk is at @ahead's frame: it has passed @behind's */
	kmemprof_test_frontier(page_to_pfn(ahead));
	__free_pages(ahead, SPLIT_ORDER);
	__free_pages(behind, SPLIT_ORDER);
	kmemprof_test_frontier(ULONG_MAX);
	dw = kmemprof_stat(KMP_ST_PRIOR_FREED) - unwalked;
	if (!split_stats(test, &b, "unwalked", 0, 1, last) || dw != 1) {
		if (last)
			KMP_EXPECT_EQ_MSG(test, dw, 1, "prior_freed");
		return false;
	}
	return true;
}

static void split_unwalked(struct kunit *test)
{
	split_tries(test, split_unwalked_once);
}

/*
 * A block on its way back to the allocator as the walk reads it: its
 * last reference dropped, its free's event still to come (folios are
 * freed in batches). The walk marks the frame, and the event counts in
 * prior_freed, not as an unpaired free. (Before: unpaired.page +1; in
 * 69-stress-ng, 18 such frees in the seconds after a reset.)
 */
/*
 * The walked case's own site: a compound block, which no walk takes for a
 * tail of the block before it.
 */
static noinline void walked_alloc(struct page **page)
{
	*page = alloc_pages(GFP_KERNEL | __GFP_COMP, 1);
}

static bool split_walked_once(struct kunit *test, bool last)
{
	struct split_base b;
	struct page *page;
	u64 freed, df;

	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	walked_alloc(&page);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	KMP_ASSERT_NOT_NULL(test, page);
	/* from before the attach, and its free under way as the walk reads */
	kmemprof_test_page_forget(page);
	split_begin(test, walked_alloc, &b);
	freed = kmemprof_stat(KMP_ST_PRIOR_FREED);
	KUNIT_ASSERT_TRUE(test, put_page_testzero(page));
	KMP_ASSERT_EQ(test, kmemprof_test_rescan(), 0);
	page_ref_inc(page);
	__free_pages(page, 1);
	df = kmemprof_stat(KMP_ST_PRIOR_FREED) - freed;
	if (!split_stats(test, &b, "walked", 0, 0, last) || df != 1) {
		if (last)
			KMP_EXPECT_EQ_MSG(test, df, 1, "prior_freed");
		return false;
	}
	return true;
}

static void split_walked(struct kunit *test)
{
	split_tries(test, split_walked_once);
}

static struct kunit_case split_cases[] = {
	KUNIT_CASE(split_freed_in_order),
	KUNIT_CASE(split_freed_in_live_table),
	KUNIT_CASE(split_freed_from_two_cpus),
	KUNIT_CASE(split_pages_exact),
	KUNIT_CASE(split_free_pages_head_held),
	KUNIT_CASE(split_nmi_part_free),
	KUNIT_CASE(split_move_to_allocated),
	KUNIT_CASE(split_move_to_free_page),
	KUNIT_CASE(split_move_part),
	KUNIT_CASE(split_gigantic),
	KUNIT_CASE(split_nmi_tail_free),
	KUNIT_CASE(split_move_sampled),
	KUNIT_CASE(split_rescan),
	KUNIT_CASE(split_unwalked),
	KUNIT_CASE(split_walked),
	{}
};

struct kunit_suite kmp_split_suite = {
	.name = "kmemprof_split",
	.init = split_test_init,
	.exit = split_test_exit,
	.test_cases = split_cases,
};
