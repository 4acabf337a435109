// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: no key a real event makes is one of the tables' sentinels.
 *
 * The site table's keys are made from a call site and a kind, its empty
 * entry is 0 and a tomb (a site whose code went away) has a key of its
 * own; the live table's keys are made from an address or a PFN and a
 * kind, and a slot being written holds KMP_BUSY. Each case feeds the
 * events whose keys were once those sentinels through the probes' own
 * entry points (the test hooks) and counts them: call site 0, which the
 * walk and the unwinder give when they find none, for a slab object and
 * for a page block, and PFN 0, which is memory on boards whose RAM starts
 * at 0.
 *
 * kmemprof is detached while these run, so that no other event moves the
 * counts or the tables: the hooks still account what they are given.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

#define NEV		100
#define OBJ_SIZE	64

#define KEYS_PAGE_LR	((unsigned long)KMP_PAGE_ALLOC_FN + 4)

struct keys_stats {
	u64 unpaired_slab, unpaired_page, stale, drop_tags, drop_live;
};

static void stats_get(struct keys_stats *s)
{
	s->unpaired_slab = kmemprof_stat(KMP_ST_UNPAIRED_SLAB);
	s->unpaired_page = kmemprof_stat(KMP_ST_UNPAIRED_PAGE);
	s->stale = kmemprof_stat(KMP_ST_STALE);
	s->drop_tags = kmemprof_stat(KMP_ST_DROP_TAGS);
	s->drop_live = kmemprof_stat(KMP_ST_DROP_LIVE);
}

/* Nothing dropped, nothing unpaired, nothing found stale since @s0. */
static void expect_nothing_lost(struct kunit *test,
				const struct keys_stats *s0)
{
	struct keys_stats s;

	stats_get(&s);
	KMP_EXPECT_EQ(test, s.unpaired_slab - s0->unpaired_slab, 0);
	KMP_EXPECT_EQ(test, s.unpaired_page - s0->unpaired_page, 0);
	KMP_EXPECT_EQ(test, s.stale - s0->stale, 0);
	KMP_EXPECT_EQ(test, s.drop_tags - s0->drop_tags, 0);
	KMP_EXPECT_EQ(test, s.drop_live - s0->drop_live, 0);
}

/* The totals of the tags of @kind at call site 0 (gone ones left out). */
static struct kmp_totals site0(enum kmp_kind kind)
{
	struct kmp_totals t;

	kmemprof_sum_range(kind, 0, 1, &t, NULL);
	return t;
}

static int keys_test_init(struct kunit *test)
{
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	return 0;
}

static void keys_test_exit(struct kunit *test)
{
	kmemprof_set_enabled(true);
}

/*
 * Slab objects allocated at call site 0, whose key in the site table was
 * 0, the empty entry's: the general path took the empty entry for the
 * site's and counted on tag 0, whichever that was, and the fast path
 * would have added to the empty entry's counters, NULL. Now site 0 is a
 * key like any other: the general path makes its tag, the fast path
 * finds it, and every event is counted on it.
 *
 * The objects are addresses inside a buffer of the test's, which no
 * allocator hands out while it is allocated.
 */
static void keys_slab_site_zero(struct kunit *test)
{
	char *buf = kunit_kzalloc(test, NEV * OBJ_SIZE, GFP_KERNEL);
	struct kmp_totals t0, t;
	struct keys_stats s0;
	int i;

	KMP_ASSERT_NOT_NULL(test, buf);
	stats_get(&s0);
	t0 = site0(KMP_KIND_SLAB);

	/* The general path: with an option on, every event takes it. */
	KMP_ASSERT_EQ(test, kmemprof_set_knob("hist", 1), 0);
	for (i = 0; i < NEV; i++)
		kmemprof_test_slab_event(0, buf + i * OBJ_SIZE, OBJ_SIZE);
	for (i = 0; i < NEV; i++)
		kmemprof_test_slab_free_event(buf + i * OBJ_SIZE);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("hist", 0), 0);
	t = site0(KMP_KIND_SLAB);
	/* Not on: the fast path below would write through NULL. */
	KMP_ASSERT_EQ(test, t.allocs - t0.allocs, NEV);
	KMP_EXPECT_EQ(test, t.frees - t0.frees, NEV);

	/* The fast path, from site 0's entry in the site table. */
	for (i = 0; i < NEV; i++)
		kmemprof_test_slab_event(0, buf + i * OBJ_SIZE, OBJ_SIZE);
	t = site0(KMP_KIND_SLAB);
	KMP_EXPECT_EQ(test, t.allocs - t0.allocs, 2 * NEV);
	KMP_EXPECT_EQ(test, t.live_objs - t0.live_objs, NEV);
	KMP_EXPECT_EQ(test, t.live_bytes - t0.live_bytes, NEV * OBJ_SIZE);
	for (i = 0; i < NEV; i++)
		kmemprof_test_slab_free_event(buf + i * OBJ_SIZE);
	t = site0(KMP_KIND_SLAB);
	KMP_EXPECT_EQ(test, t.frees - t0.frees, 2 * NEV);
	KMP_EXPECT_EQ(test, t.live_objs - t0.live_objs, 0);
	KMP_EXPECT_EQ(test, t.bytes - t0.bytes, 2 * NEV * OBJ_SIZE);
	KMP_EXPECT_EQ(test, t.freed - t0.freed, 2 * NEV * OBJ_SIZE);
	expect_nothing_lost(test, &s0);
}

/* @n allocations and frees of @page, walked from the records at @rec. */
static void page_events(struct page *page, const unsigned long *rec, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		kmemprof_test_page_event((unsigned long)rec, page, 0);
		kmemprof_test_page_free_event(page, 0);
	}
}

/*
 * Page blocks allocated at call site 0 (a walk that reaches a record with
 * no return address), whose key in the site table was KMP_SITE_TOMB's:
 * once the site's tag was gone and its entry a tomb, the walk still found
 * the tomb as site 0's entry, and counted on the gone tag, out of every
 * view. Now the tomb is passed over and site 0 gets a new tag.
 */
static void keys_page_site_zero(struct kunit *test)
{
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long rec[4];
	struct kmp_totals t0, t;
	struct keys_stats s0;

	KMP_ASSERT_NOT_NULL(test, page);
	/* An allocator's record, then one with no return address. */
	rec[0] = (unsigned long)&rec[2];
	rec[1] = KEYS_PAGE_LR;
	rec[2] = 0;
	rec[3] = 0;
	stats_get(&s0);
	t0 = site0(KMP_KIND_PAGE);

	page_events(page, rec, NEV);
	t = site0(KMP_KIND_PAGE);
	KMP_EXPECT_EQ(test, t.allocs - t0.allocs, NEV);
	KMP_EXPECT_EQ(test, t.frees - t0.frees, NEV);

	/* Site 0's code goes: its tags are gone, its entries tombs. */
	kmemprof_test_code_going(0, 1);
	t = site0(KMP_KIND_PAGE);
	KMP_EXPECT_EQ(test, t.allocs, 0);

	page_events(page, rec, NEV);
	t = site0(KMP_KIND_PAGE);
	KMP_EXPECT_EQ(test, t.allocs, NEV);
	KMP_EXPECT_EQ(test, t.frees, NEV);
	KMP_EXPECT_EQ(test, t.bytes, NEV * PAGE_SIZE);
	KMP_EXPECT_EQ(test, t.live_objs, 0);
	expect_nothing_lost(test, &s0);
	__free_page(page);
}

/*
 * A page block allocated over a marker, a migration's here: the source's,
 * which waits for that block's own free (tables.h), an event never to
 * come when the block went with no event seen. The walk leaves a marker
 * of the same kind on free pages of the per-CPU lists (prior.c). The
 * general path writes over a marker; the fast path gave each such
 * allocation back to it, so after every attach the pages the walk had
 * marked went the general way (walk_key_depth_fast saw 10 on 6.12).
 * Now the fast path writes over it too, and the frees pair: with page
 * blocks in the live table too (pages_hashed, once an object had a time)
 * as without.
 */
static void page_over_marker(struct kunit *test, struct page *src,
			     struct page *dst, const unsigned long *rec,
			     const char *what)
{
	struct kmp_totals t0, t;
	struct keys_stats s0;

	stats_get(&s0);
	/* site 0's tag and its entry in the site table */
	page_events(src, rec, 1);
	t0 = site0(KMP_KIND_PAGE);
	kmemprof_test_page_event((unsigned long)rec, src, 0);
	kmemprof_test_page_move(dst, src, 0);

	kmemprof_test_watch(KMP_KIND_PAGE, 0, 1);
	kmemprof_test_page_event((unsigned long)rec, src, 0);
	KMP_EXPECT_EQ_MSG(test, kmemprof_test_watched(), 0U,
			  "%s: an allocation over a marker went the general way",
			  what);
	kmemprof_test_watch(KMP_KIND_PAGE, 0, 0);
	t = site0(KMP_KIND_PAGE);
	KMP_EXPECT_EQ_MSG(test, t.allocs - t0.allocs, 2, "%s", what);
	KMP_EXPECT_EQ_MSG(test, t.live_objs - t0.live_objs, 2, "%s", what);
	KMP_EXPECT_EQ_MSG(test, t.live_bytes - t0.live_bytes, 2 * PAGE_SIZE,
			  "%s", what);

	kmemprof_test_page_free_event(src, 0);
	kmemprof_test_page_free_event(dst, 0);
	t = site0(KMP_KIND_PAGE);
	KMP_EXPECT_EQ_MSG(test, t.frees - t0.frees, 2, "%s", what);
	KMP_EXPECT_EQ_MSG(test, t.live_objs - t0.live_objs, 0, "%s", what);
	expect_nothing_lost(test, &s0);
}

static void keys_page_over_marker(struct kunit *test)
{
	struct page *src = alloc_page(GFP_KERNEL);
	struct page *dst = alloc_page(GFP_KERNEL);
	unsigned long rec[4];

	if (!dst && src)
		__free_page(src);
	KMP_ASSERT_NOT_NULL(test, dst);
	if (!src)
		__free_page(dst);
	KMP_ASSERT_NOT_NULL(test, src);
	rec[0] = (unsigned long)&rec[2];
	rec[1] = KEYS_PAGE_LR;
	rec[2] = 0;
	rec[3] = 0;
	page_over_marker(test, src, dst, rec, "the map alone");
	/* a block with a time goes into the live table: pages_hashed */
	KMP_EXPECT_EQ(test, kmemprof_set_knob("lifetimes", 1), 0);
	page_events(src, rec, 1);
	KMP_EXPECT_EQ(test, kmemprof_set_knob("lifetimes", 0), 0);
	page_over_marker(test, src, dst, rec, "blocks in the table too");
	/* kmemprof is off (keys_test_init()): no events */
	__free_page(src);
	__free_page(dst);
}

/* A page block at @pfn, from this function's call site. */
static noinline int pfn_alloc(unsigned long pfn)
{
	return kmemprof_test_pfn_event(pfn, 0, false);
}

/*
 * A page block at PFN 0 in the live table, whose key was KMP_BUSY's: its
 * slot looked like one being written, so the views' walks and the marking
 * of tags passed it by, and an insert into its group while another was
 * being written took that slot for its own. Now it is a key like any
 * other: the walk sees it, and its free pairs.
 */
static void keys_pfn_zero(struct kunit *test)
{
	unsigned long start, end;
	struct kmp_totals t0, t;
	struct keys_stats s0;
	s64 n0, n;
	int ret;

	kmp_test_fn_range(test, pfn_alloc, &start, &end);
	kmemprof_sum_range(KMP_KIND_PAGE, start, end, &t0, NULL);
	stats_get(&s0);
	n0 = kmemprof_test_walk(NULL, NULL);
	KMP_ASSERT_GT(test, n0, -1);

	ret = pfn_alloc(0);
	if (ret == -EEXIST) {
		kmp_kunit_skip(test, "PFN 0 is memory here: the PFN map holds it");
		return;
	}
	KMP_ASSERT_EQ(test, ret, 0);
	n = kmemprof_test_walk(NULL, NULL);
	KMP_EXPECT_EQ_MSG(test, n - n0, 1, "live objects the views see");
	kmemprof_sum_range(KMP_KIND_PAGE, start, end, &t, NULL);
	KMP_EXPECT_EQ(test, t.allocs - t0.allocs, 1);
	KMP_EXPECT_EQ(test, t.live_objs - t0.live_objs, 1);

	KMP_ASSERT_EQ(test, kmemprof_test_pfn_event(0, 0, true), 0);
	n = kmemprof_test_walk(NULL, NULL);
	KMP_EXPECT_EQ(test, n - n0, 0);
	kmemprof_sum_range(KMP_KIND_PAGE, start, end, &t, NULL);
	KMP_EXPECT_EQ(test, t.frees - t0.frees, 1);
	KMP_EXPECT_EQ(test, t.freed - t0.freed, PAGE_SIZE);
	KMP_EXPECT_EQ(test, t.live_objs - t0.live_objs, 0);
	expect_nothing_lost(test, &s0);
}

static struct kunit_case keys_cases[] = {
	KUNIT_CASE(keys_slab_site_zero),
	KUNIT_CASE(keys_page_site_zero),
	KUNIT_CASE(keys_page_over_marker),
	KUNIT_CASE(keys_pfn_zero),
	{}
};

struct kunit_suite kmp_keys_suite = {
	.name = "kmemprof_keys",
	.init = keys_test_init,
	.exit = keys_test_exit,
	.test_cases = keys_cases,
};
