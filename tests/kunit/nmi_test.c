// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: an event in NMI pairs with the entry it meant (nmi.c), however
 * the events of its object fall around the drain that applies it.
 *
 * The cases call nmi.c's entry points as an NMI would
 * (kmemprof_test_nmi_*()), and the normal path's as a probe would
 * (kmemprof_test_slab_*(), kmemprof_test_page_alloc()), with interrupts
 * off in between: the drain is an irq_work on this CPU, so it runs only
 * once they are back on, after the events it must not be confused by, as
 * when the interrupted code, or another CPU, gets at the object first.
 * Slab objects are addresses in this module's data, which the allocator
 * never hands out; the page is a real one. As in core_test.c, each site
 * is a noinline function of its own.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/module.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

#define OBJ_SIZE	64

/* Stand-ins for slab objects, one per case. */
static unsigned long nmi_objs[4][OBJ_SIZE / sizeof(unsigned long)];
static int nmi_sink;

static struct kmp_totals totals(struct kunit *test, enum kmp_kind kind,
				const void *fn, bool *inaccurate)
{
	unsigned long start, end;
	struct kmp_totals t;

	kmp_test_fn_range(test, fn, &start, &end);
	kmemprof_sum_range(kind, start, end, &t, inaccurate);
	return t;
}

/* What moved on the tags of @fn since @base. */
static struct kmp_totals since(struct kunit *test, enum kmp_kind kind,
			       const void *fn, const struct kmp_totals *base,
			       bool *inaccurate)
{
	struct kmp_totals t = totals(test, kind, fn, inaccurate);

	return (struct kmp_totals) {
		.allocs = t.allocs - base->allocs,
		.frees = t.frees - base->frees,
		.live_objs = t.live_objs - base->live_objs,
		.live_bytes = t.live_bytes - base->live_bytes,
	};
}

static void expect_counts(struct kunit *test, const char *what,
			  struct kmp_totals t, bool inaccurate, u64 allocs,
			  u64 frees, u64 size)
{
	KMP_EXPECT_EQ_MSG(test, t.allocs, allocs, "%s: allocs", what);
	KMP_EXPECT_EQ_MSG(test, t.frees, frees, "%s: frees", what);
	KMP_EXPECT_EQ_MSG(test, t.live_objs, allocs - frees, "%s: live", what);
	KMP_EXPECT_EQ_MSG(test, t.live_bytes, (allocs - frees) * size,
			  "%s: live bytes", what);
	KUNIT_EXPECT_FALSE_MSG(test, inaccurate, "%s: marked inaccurate",
			       what);
}

/* The sites. The writes after the calls keep them from being tail calls. */
static noinline void page_owner(struct page **page)
{
	*page = alloc_page(GFP_KERNEL);
}

static noinline void page_reuser(struct page *page)
{
	kmemprof_test_page_alloc(page, 0);
	WRITE_ONCE(nmi_sink, 1);
}

static noinline void slab_reuser(void *obj)
{
	kmemprof_test_slab_alloc(obj, OBJ_SIZE);
	WRITE_ONCE(nmi_sink, 2);
}

static noinline void nmi_alloc_site(void)
{
}

static int nmi_test_init(struct kunit *test)
{
	KMP_ASSERT_EQ(test, kmemprof_set_events(KMP_KIND_ALL), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	return 0;
}

static void nmi_test_exit(struct kunit *test)
{
	kmemprof_set_knob("lifetimes", 0);
	kmemprof_set_knob("key_depth", 0);
}

/*
 * A page block freed in NMI while page blocks are in the live table
 * (lifetimes on), so that its free is left whole, then handed out again
 * before the drain: the old owner's entry is the one its free takes, the
 * new owner's survives, and neither tag is marked. Before, the new
 * allocation found the old entry still there and counted it stale, and the
 * drain then took the new owner's entry.
 */
static void nmi_free_then_reuse_page(struct kunit *test)
{
	struct kmp_totals a0, b0, t;
	struct page *page = NULL;
	unsigned long flags;
	bool inacc;

	KMP_ASSERT_EQ(test, kmemprof_set_knob("lifetimes", 1), 0);
	a0 = totals(test, KMP_KIND_PAGE, page_owner, NULL);
	b0 = totals(test, KMP_KIND_PAGE, page_reuser, NULL);
	page_owner(&page);
	KMP_ASSERT_NOT_NULL(test, page);

	local_irq_save(flags);
	kmemprof_test_nmi_page_free(page, 0);
	page_reuser(page);
	local_irq_restore(flags);
	kmemprof_test_nmi_flush();

	t = since(test, KMP_KIND_PAGE, page_owner, &a0, &inacc);
	expect_counts(test, "old owner", t, inacc, 1, 1, PAGE_SIZE);
	t = since(test, KMP_KIND_PAGE, page_reuser, &b0, &inacc);
	expect_counts(test, "new owner", t, inacc, 1, 0, PAGE_SIZE);
	/* Its real free pairs with the new owner's entry. */
	__free_page(page);
	t = since(test, KMP_KIND_PAGE, page_reuser, &b0, &inacc);
	expect_counts(test, "new owner freed", t, inacc, 1, 1, PAGE_SIZE);
}

/*
 * The same for a slab object, at the defaults: its free in NMI finds no
 * entry (it was allocated unseen), so it is left whole; the address is
 * handed out again, on the fast path of a site seen before, before the
 * drain. The new owner's entry survives the drain.
 */
static void nmi_free_then_reuse_slab(struct kunit *test)
{
	void *obj = nmi_objs[0], *warm = nmi_objs[1];
	struct kmp_totals b0, t;
	unsigned long flags;
	bool inacc;

	/* The site once, so that its next allocation takes the fast path. */
	slab_reuser(warm);
	kmemprof_test_slab_free(warm);
	b0 = totals(test, KMP_KIND_SLAB, slab_reuser, NULL);

	local_irq_save(flags);
	kmemprof_test_nmi_free(obj);
	slab_reuser(obj);
	local_irq_restore(flags);
	kmemprof_test_nmi_flush();

	t = since(test, KMP_KIND_SLAB, slab_reuser, &b0, &inacc);
	expect_counts(test, "new owner", t, inacc, 1, 0, OBJ_SIZE);
	kmemprof_test_slab_free(obj);
	t = since(test, KMP_KIND_SLAB, slab_reuser, &b0, &inacc);
	expect_counts(test, "new owner freed", t, inacc, 1, 1, OBJ_SIZE);
}

/*
 * An allocation in NMI left whole (an option is on), whose object is freed
 * before the drain: the free pairs with it, and the drain leaves no live
 * object behind. Before, the free was unpaired and the drain entered an
 * object that was gone.
 */
static void nmi_alloc_then_free(struct kunit *test)
{
	void *obj = nmi_objs[2];
	struct kmp_totals a0, t;
	unsigned long flags;
	bool inacc;

	KMP_ASSERT_EQ(test, kmemprof_set_knob("lifetimes", 1), 0);
	a0 = totals(test, KMP_KIND_SLAB, nmi_alloc_site, NULL);

	local_irq_save(flags);
	kmemprof_test_nmi_alloc((unsigned long)nmi_alloc_site, obj, OBJ_SIZE);
	kmemprof_test_slab_free(obj);
	local_irq_restore(flags);
	kmemprof_test_nmi_flush();

	t = since(test, KMP_KIND_SLAB, nmi_alloc_site, &a0, &inacc);
	expect_counts(test, "freed before the drain", t, inacc, 1, 1,
		      OBJ_SIZE);
	/* Nothing of it is left in the table: a second free finds nothing. */
	kmemprof_test_slab_free(obj);
	t = since(test, KMP_KIND_SLAB, nmi_alloc_site, &a0, &inacc);
	expect_counts(test, "freed again", t, inacc, 1, 1, OBJ_SIZE);
}

/*
 * key_depth's callers of an allocation in NMI are those of the stack it
 * was on: nmi_kd_outer() is its call site (the return address into it, as
 * an allocator's _RET_IP_ is), this case the caller. The drain runs on
 * another stack, where the site is not.
 */
static noinline void nmi_kd_inner(void *obj)
{
	kmemprof_test_nmi_alloc((unsigned long)__builtin_return_address(0),
				obj, OBJ_SIZE);
	WRITE_ONCE(nmi_sink, 3);
}

static noinline void nmi_kd_outer(void *obj)
{
	nmi_kd_inner(obj);
	WRITE_ONCE(nmi_sink, 4);
}

static void nmi_key_depth_callers(struct kunit *test)
{
	unsigned long os, oe, cs, ce;
	void *obj = nmi_objs[3];
	struct kmp_totals base, t;
	unsigned long flags;

	kmp_test_fn_range(test, nmi_kd_outer, &os, &oe);
	kmp_test_fn_range(test, nmi_key_depth_callers, &cs, &ce);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("key_depth", 1), 0);
	kmemprof_sum_callers(KMP_KIND_SLAB, os, oe, cs, ce, &base);

	local_irq_save(flags);
	nmi_kd_outer(obj);
	local_irq_restore(flags);
	kmemprof_test_nmi_flush();

	KMP_EXPECT_EQ(test, kmemprof_sum_callers(KMP_KIND_SLAB, os, oe, cs, ce,
						 &t), 1);
	KMP_EXPECT_EQ(test, t.allocs - base.allocs, 1);
	KMP_EXPECT_EQ(test, t.live_objs - base.live_objs, 1);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("key_depth", 0), 0);
	kmemprof_test_slab_free(obj);
	kmemprof_sum_callers(KMP_KIND_SLAB, os, oe, cs, ce, &t);
	KMP_EXPECT_EQ(test, t.frees - base.frees, 1);
	KMP_EXPECT_EQ(test, t.live_objs - base.live_objs, 0);
}

static struct kunit_case nmi_cases[] = {
	KUNIT_CASE(nmi_free_then_reuse_page),
	KUNIT_CASE(nmi_free_then_reuse_slab),
	KUNIT_CASE(nmi_alloc_then_free),
	KUNIT_CASE(nmi_key_depth_callers),
	{}
};

struct kunit_suite kmp_nmi_suite = {
	.name = "kmemprof_nmi",
	.init = nmi_test_init,
	.exit = nmi_test_exit,
	.test_cases = nmi_cases,
};
