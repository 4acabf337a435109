// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the allocator's untraced paths are paired exactly (hooks.c), and
 * so are events in NMI (nmi.c).
 *
 * As in core_test.c, each allocating helper is its own noinline function,
 * so the tags inside its range are its own. A hook that this kernel does
 * not have, or could not attach, skips its case, saying which.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

#define NBULK	16	/* one bulk call, as the maple tree makes */
#define NOBJ	256
#define OBJ_SIZE 96

struct bulk_obj {
	struct rcu_head rcu;
	char data[OBJ_SIZE - sizeof(struct rcu_head)];
};

struct bulk_ctx {
	struct kmem_cache *cache;
	void *obj[NOBJ];
	struct page *page[NOBJ];
};

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

static noinline int bulk_alloc(struct bulk_ctx *c, int from, int n)
{
	return kmem_cache_alloc_bulk(c->cache, GFP_KERNEL, n, &c->obj[from]) ?
	       0 : -ENOMEM;
}

static noinline void single_alloc(struct bulk_ctx *c, int i)
{
	c->obj[i] = kmalloc(OBJ_SIZE, GFP_KERNEL);
}

/* NOBJ objects from single_alloc(), into c->obj. */
static void single_allocs(struct kunit *test, struct bulk_ctx *c)
{
	int i;

	for (i = 0; i < NOBJ; i++) {
		single_alloc(c, i);
		KMP_ASSERT_NOT_NULL(test, c->obj[i]);
	}
}

static noinline void nmi_site(void)
{
}

static int bulk_test_init(struct kunit *test)
{
	struct bulk_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KMP_ASSERT_NOT_NULL(test, c);
	c->cache = kmem_cache_create("kmemprof_bulk_test", OBJ_SIZE, 0, 0,
				     NULL);
	KMP_ASSERT_NOT_NULL(test, c->cache);
	test->priv = c;
	KMP_ASSERT_EQ(test, kmemprof_set_events(KMP_KIND_ALL), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	return 0;
}

static void bulk_test_exit(struct kunit *test)
{
	struct bulk_ctx *c = test->priv;

	kmem_cache_destroy(c->cache);
}

static bool need_hooks(struct kunit *test, const char *a, const char *b)
{
	if (!kmemprof_hooked(a) || (b && !kmemprof_hooked(b))) {
		kmp_kunit_skip(test, "%s%s%s not hooked on this kernel", a,
			       b ? ", " : "", b ?: "");
		return false;
	}
	return true;
}

/* Check @t against @allocs allocations and @frees frees of @size bytes. */
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

/*
 * kmem_cache_alloc_bulk() of NOBJ, NBULK at a time, then either
 * kmem_cache_free_bulk() of them all or one kmem_cache_free() each: NOBJ
 * allocations and frees on the test's own site, live back to 0.
 */
static void bulk_alloc_then_free(struct kunit *test, bool bulk_free)
{
	struct bulk_ctx *c = test->priv;
	u64 size = kmem_cache_size(c->cache);
	struct kmp_totals t, base;
	bool inacc;
	int i;

	base = totals(test, KMP_KIND_SLAB, bulk_alloc, NULL);
	for (i = 0; i < NOBJ; i += NBULK)
		KMP_ASSERT_EQ(test, bulk_alloc(c, i, NBULK), 0);
	t = since(test, KMP_KIND_SLAB, bulk_alloc, &base, &inacc);
	expect_counts(test, "allocated", t, inacc, NOBJ, 0, size);
	if (bulk_free) {
		for (i = 0; i < NOBJ; i += NBULK)
			kmem_cache_free_bulk(c->cache, NBULK, &c->obj[i]);
	} else {
		for (i = 0; i < NOBJ; i++)
			kmem_cache_free(c->cache, c->obj[i]);
	}
	t = since(test, KMP_KIND_SLAB, bulk_alloc, &base, &inacc);
	expect_counts(test, "freed", t, inacc, NOBJ, NOBJ, size);
}

static void bulk_alloc_bulk_free(struct kunit *test)
{
	if (need_hooks(test, "kmem_cache_alloc_bulk", "kmem_cache_free_bulk"))
		bulk_alloc_then_free(test, true);
}

static void bulk_alloc_single_free(struct kunit *test)
{
	if (need_hooks(test, "kmem_cache_alloc_bulk", NULL))
		bulk_alloc_then_free(test, false);
}

/*
 * With stack_depth on, a bulk allocation's objects walk the frame records
 * on the fast path as a probe's events do (probes.h, kmp_walk_fast()):
 * the first call makes the stack's record on the general path, every
 * object of the calls after it is counted on that record by the fast
 * path (kmemprof_test_watch() counts those the general path took: at
 * most a few, whose group of the live table was full, which the general
 * path spills), and the counts are exact. Before, each hook's object
 * took the general path's unwind (240 of the 240 watched here): make
 * bench's macro load has about 720 a round, most of stack_depth=8's cost
 * over the defaults there.
 */
static void bulk_stacks_fast(struct kunit *test)
{
	struct bulk_ctx *c = test->priv;
	u64 size = kmem_cache_size(c->cache);
	unsigned long start, end;
	struct kmp_totals t, base;
	bool inacc;
	int i;

	if (!need_hooks(test, "kmem_cache_alloc_bulk", "kmem_cache_free_bulk"))
		return;
	if (!KMP_HAVE_FP_WALK) {
		kmp_kunit_skip(test, "no frame-record walk");
		return;
	}
	/* fprobe's exit handlers run under function_graph's return */
	if (KMP_HAVE_EXIT_HOOKS) {
		kmp_kunit_skip(test, "exit handlers: their objects take the general path");
		return;
	}
	KMP_ASSERT_EQ(test, kmemprof_set_knob("stack_sample", 1), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("stack_depth", 4), 0);
	kmp_test_fn_range(test, bulk_alloc, &start, &end);
	base = totals(test, KMP_KIND_SLAB, bulk_alloc, NULL);
	/* one call site and stack for all: the first call's makes the record */
	for (i = 0; i < NOBJ; i += NBULK) {
		KMP_ASSERT_EQ(test, bulk_alloc(c, i, NBULK), 0);
		if (!i)
			kmemprof_test_watch(KMP_KIND_SLAB, start, end);
	}
	KMP_EXPECT_GE_MSG(test, (unsigned int)NBULK / 4, kmemprof_test_watched(),
			  "bulk objects the fast path gave back (at most)");
	kmemprof_test_watch(KMP_KIND_SLAB, 0, 0);
	t = since(test, KMP_KIND_SLAB, bulk_alloc, &base, &inacc);
	expect_counts(test, "allocated", t, inacc, NOBJ, 0, size);
	for (i = 0; i < NOBJ; i += NBULK)
		kmem_cache_free_bulk(c->cache, NBULK, &c->obj[i]);
	t = since(test, KMP_KIND_SLAB, bulk_alloc, &base, &inacc);
	expect_counts(test, "freed", t, inacc, NOBJ, NOBJ, size);
	KMP_EXPECT_EQ(test, kmemprof_set_knob("stack_depth", 0), 0);
}

#define SLOT_OBJ	100	/* in a slot of 128: aligned to 64 */
#define SLOT_ALIGN	64
#if KMP_CACHE_ALLOC_HAS_CACHE	/* <linux/kfence.h>, by compat.h */
#define slot_kfence(p)	is_kfence_address(p)
#else
#define slot_kfence(p)	((void)(p), false)	/* no KFENCE before 5.12 */
#endif

static noinline void *slot_single(struct kmem_cache *s)
{
	return kmem_cache_alloc(s, GFP_KERNEL);
}

static noinline int slot_bulk(struct kmem_cache *s, void **p)
{
	return kmem_cache_alloc_bulk(s, GFP_KERNEL, NBULK, p) ? 0 : -ENOMEM;
}

/*
 * kmem_cache_alloc_bulk() charges each object its slot, as one
 * kmem_cache_alloc() of the same cache is charged (its ksize(), s->size
 * where no debugging option keeps the object apart: 128 here), not the
 * object size.
 */
static void bulk_alloc_slot(struct kunit *test)
{
	struct kmem_cache *s;
	struct kmp_totals t, base;
	void *one = NULL, *p[NBULK];
	bool inacc;
	u64 slot;
	int i;

	if (!need_hooks(test, "kmem_cache_alloc_bulk", NULL))
		return;
	s = kmem_cache_create("kmemprof_bulk_slot", SLOT_OBJ, SLOT_ALIGN, 0,
			      NULL);
	KMP_ASSERT_NOT_NULL(test, s);
	/* one object's slot, from one that is not KFENCE's (its own size) */
	for (i = 0; i < 8; i++) {
		base = totals(test, KMP_KIND_SLAB, slot_single, NULL);
		one = slot_single(s);
		KMP_ASSERT_NOT_NULL(test, one);
		t = since(test, KMP_KIND_SLAB, slot_single, &base, &inacc);
		if (!slot_kfence(one))
			break;
		kmem_cache_free(s, one);
		one = NULL;
	}
	KMP_ASSERT_NOT_NULL(test, one);
	slot = t.live_bytes;
	KMP_EXPECT_EQ(test, t.live_objs, 1);
	KMP_EXPECT_GE(test, slot, SLOT_OBJ);
	kmem_cache_free(s, one);

	base = totals(test, KMP_KIND_SLAB, slot_bulk, NULL);
	KMP_ASSERT_EQ(test, slot_bulk(s, p), 0);
	t = since(test, KMP_KIND_SLAB, slot_bulk, &base, &inacc);
	expect_counts(test, "bulk slot", t, inacc, NBULK, 0, slot);
	kmem_cache_free_bulk(s, NBULK, p);
	t = since(test, KMP_KIND_SLAB, slot_bulk, &base, &inacc);
	expect_counts(test, "bulk slot freed", t, inacc, NBULK, NBULK, slot);
	kmem_cache_destroy(s);
}

/* kmalloc() one at a time, then kfree_bulk(): paired with each. */
static void bulk_single_alloc_kfree_bulk(struct kunit *test)
{
	struct bulk_ctx *c = test->priv;
	struct kmp_totals t, base;
	bool inacc;
	int i;

	if (!need_hooks(test, "kmem_cache_free_bulk", NULL))
		return;
	base = totals(test, KMP_KIND_SLAB, single_alloc, NULL);
	single_allocs(test, c);
	for (i = 0; i < NOBJ; i += NBULK)
		kfree_bulk(NBULK, &c->obj[i]);
	t = since(test, KMP_KIND_SLAB, single_alloc, &base, &inacc);
	expect_counts(test, "kfree_bulk", t, inacc, NOBJ, NOBJ,
		      OBJ_SIZE);
}

/*
 * kfree_rcu() of NOBJ objects: once RCU and the kfree_rcu() batches are
 * flushed, every object is freed on its site, and none is stale: a stale
 * entry marks the tag it was allocated on inaccurate. (Not the global
 * stale count: the wait for the batches is long enough for any other
 * subsystem's pairing loss to show there.)
 */
static void bulk_kfree_rcu(struct kunit *test)
{
	struct bulk_ctx *c = test->priv;
	unsigned long deadline;
	struct kmp_totals t, base;
	bool inacc;
	int i;

	if (!need_hooks(test, "kmem_cache_free_bulk", NULL))
		return;
	base = totals(test, KMP_KIND_SLAB, single_alloc, NULL);
	single_allocs(test, c);
	for (i = 0; i < NOBJ; i++) {
		struct bulk_obj *o = c->obj[i];

		kfree_rcu(o, rcu);
	}
	/* Before 6.12 nothing waits for the batches: they drain in seconds. */
	deadline = jiffies + 30 * HZ;
	do {
		rcu_barrier();
#if KMP_HAVE_KVFREE_RCU_BARRIER
		kvfree_rcu_barrier();
#endif
		t = since(test, KMP_KIND_SLAB, single_alloc, &base, &inacc);
		if (t.frees >= NOBJ)
			break;
		msleep(100);
	} while (time_before(jiffies, deadline));
	expect_counts(test, "kfree_rcu", t, inacc, NOBJ, NOBJ,
		      OBJ_SIZE);
}

#ifdef kmp_pages_bulk_array
static noinline unsigned long pages_bulk(struct bulk_ctx *c, int n)
{
	return kmp_pages_bulk_array(GFP_KERNEL, n, c->page);
}
#endif

/*
 * A bulk allocation of pages, freed one at a time: paired with each. With
 * the defaults, and with stack_depth on, where sites are found by
 * unwinding through the hook's wrapper.
 */
#ifdef kmp_pages_bulk_array
static void bulk_pages_one(struct kunit *test, const char *what)
{
	struct bulk_ctx *c = test->priv;
	struct kmp_totals t, base;
	bool inacc;
	int i;

	memset(c->page, 0, sizeof(c->page));
	base = totals(test, KMP_KIND_PAGE, pages_bulk, NULL);
	KMP_ASSERT_EQ(test, pages_bulk(c, NBULK * 4), NBULK * 4);
	t = since(test, KMP_KIND_PAGE, pages_bulk, &base, &inacc);
	expect_counts(test, what, t, inacc, NBULK * 4, 0, PAGE_SIZE);
	for (i = 0; i < NBULK * 4; i++)
		__free_page(c->page[i]);
	t = since(test, KMP_KIND_PAGE, pages_bulk, &base, &inacc);
	expect_counts(test, what, t, inacc, NBULK * 4, NBULK * 4, PAGE_SIZE);
}
#endif

static void bulk_pages(struct kunit *test)
{
#ifdef kmp_pages_bulk_array
	if (!need_hooks(test, "alloc_pages_bulk", NULL))
		return;
	bulk_pages_one(test, "defaults");
	KMP_ASSERT_EQ(test, kmemprof_set_knob("stack_depth", 4), 0);
	bulk_pages_one(test, "stack_depth=4");
	KMP_ASSERT_EQ(test, kmemprof_set_knob("stack_depth", 0), 0);
#else
	kmp_kunit_skip(test, "no alloc_pages_bulk() before 5.13");
#endif
}

/*
 * Pages whose free was never seen (freed while kmemprof was detached) keep
 * their entries in the PFN map. A bulk allocation that gets them back
 * enters them on its own site all the same; the old entries count as
 * stale. (The page allocator hands freed pages out again from this CPU's
 * lists, last in first out, so most come back.)
 */
#ifdef kmp_pages_bulk_array
static noinline struct page *single_page(void)
{
	return alloc_page(GFP_KERNEL);
}
#endif

static void bulk_pages_over_stale(struct kunit *test)
{
#ifdef kmp_pages_bulk_array
	struct bulk_ctx *c = test->priv;
	struct kmp_totals t, base;
	bool inacc;
	int i;

	if (!need_hooks(test, "alloc_pages_bulk", NULL))
		return;
	for (i = 0; i < NBULK; i++) {
		c->page[i] = single_page();
		KMP_ASSERT_NOT_NULL(test, c->page[i]);
	}
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	for (i = NBULK - 1; i >= 0; i--)
		__free_page(c->page[i]);
	memset(c->page, 0, sizeof(c->page));
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	base = totals(test, KMP_KIND_PAGE, pages_bulk, NULL);
	KMP_ASSERT_EQ(test, pages_bulk(c, NBULK), NBULK);
	t = since(test, KMP_KIND_PAGE, pages_bulk, &base, &inacc);
	expect_counts(test, "over stale", t, inacc, NBULK, 0, PAGE_SIZE);
	for (i = 0; i < NBULK; i++)
		__free_page(c->page[i]);
	t = since(test, KMP_KIND_PAGE, pages_bulk, &base, &inacc);
	expect_counts(test, "freed", t, inacc, NBULK, NBULK, PAGE_SIZE);
#else
	kmp_kunit_skip(test, "no alloc_pages_bulk() before 5.13");
#endif
}

/*
 * Frees and allocations in NMI, through nmi.c's entry points: a free
 * taken in NMI is counted on its site once drained; an allocation in NMI
 * is entered and paired with its later free.
 */
static void bulk_nmi_paired(struct kunit *test)
{
	struct bulk_ctx *c = test->priv;
	u64 skip = kmemprof_stat(KMP_ST_SKIP_NMI);
	u64 unpaired = kmemprof_stat(KMP_ST_UNPAIRED_SLAB);
	u64 size = OBJ_SIZE;
	struct kmp_totals a0, b0, t;
	bool inacc;
	int i;

	a0 = totals(test, KMP_KIND_SLAB, single_alloc, NULL);
	b0 = totals(test, KMP_KIND_SLAB, nmi_site, NULL);
	single_allocs(test, c);
	for (i = 0; i < NOBJ; i++)
		kmemprof_test_nmi_free(c->obj[i]);
	kmemprof_test_nmi_flush();
	t = totals(test, KMP_KIND_SLAB, single_alloc, &inacc);
	KMP_EXPECT_EQ(test, t.allocs - a0.allocs, NOBJ);
	KMP_EXPECT_EQ(test, t.frees - a0.frees, NOBJ);
	KMP_EXPECT_EQ(test, t.live_objs - a0.live_objs, 0);

	for (i = 0; i < NOBJ; i++)
		kmemprof_test_nmi_alloc((unsigned long)nmi_site, c->obj[i],
					size);
	kmemprof_test_nmi_flush();
	t = totals(test, KMP_KIND_SLAB, nmi_site, &inacc);
	KMP_EXPECT_EQ(test, t.allocs - b0.allocs, NOBJ);
	KMP_EXPECT_EQ(test, t.live_objs - b0.live_objs, NOBJ);
	KMP_EXPECT_EQ(test, t.live_bytes - b0.live_bytes, NOBJ * size);

	for (i = 0; i < NOBJ; i++)
		kfree(c->obj[i]);
	t = totals(test, KMP_KIND_SLAB, nmi_site, &inacc);
	KMP_EXPECT_EQ(test, t.frees - b0.frees, NOBJ);
	KMP_EXPECT_EQ(test, t.live_objs - b0.live_objs, 0);
	KMP_EXPECT_EQ(test, kmemprof_stat(KMP_ST_SKIP_NMI) - skip, 0);
	KMP_EXPECT_EQ(test, kmemprof_stat(KMP_ST_UNPAIRED_SLAB) - unpaired, 0);
}

/*
 * More NMI frees than a CPU's ring holds before its drain can run: the
 * ring takes what it has room for, the rest is counted in skip.nmi and
 * left in the table, where its real free pairs with it. Nothing is lost.
 */
static void bulk_nmi_ring_full(struct kunit *test)
{
	struct bulk_ctx *c = test->priv;
	u64 skip = kmemprof_stat(KMP_ST_SKIP_NMI);
	u64 unpaired = kmemprof_stat(KMP_ST_UNPAIRED_SLAB);
	struct kmp_totals a0, t;
	unsigned long flags;
	u64 taken;
	int i;

	a0 = totals(test, KMP_KIND_SLAB, single_alloc, NULL);
	single_allocs(test, c);
	/* The drain is an irq_work: with interrupts off, it waits. */
	local_irq_save(flags);
	for (i = 0; i < NOBJ; i++)
		kmemprof_test_nmi_free(c->obj[i]);
	local_irq_restore(flags);
	kmemprof_test_nmi_flush();
	taken = NOBJ - (kmemprof_stat(KMP_ST_SKIP_NMI) - skip);
	KMP_EXPECT_LT(test, taken, NOBJ);
	KMP_EXPECT_GT(test, taken, 0);
	t = totals(test, KMP_KIND_SLAB, single_alloc, NULL);
	KMP_EXPECT_EQ(test, t.frees - a0.frees, taken);
	KMP_EXPECT_EQ(test, t.live_objs - a0.live_objs, NOBJ - taken);
	/* The real frees: those taken find nothing, the rest pair. */
	for (i = 0; i < NOBJ; i++)
		kfree(c->obj[i]);
	t = totals(test, KMP_KIND_SLAB, single_alloc, NULL);
	KMP_EXPECT_EQ(test, t.frees - a0.frees, NOBJ);
	KMP_EXPECT_EQ(test, t.live_objs - a0.live_objs, 0);
	KMP_EXPECT_EQ(test, kmemprof_stat(KMP_ST_UNPAIRED_SLAB) - unpaired,
		      taken);
}

static struct kunit_case bulk_cases[] = {
	KUNIT_CASE(bulk_alloc_bulk_free),
	KUNIT_CASE(bulk_alloc_single_free),
	KUNIT_CASE(bulk_stacks_fast),
	KUNIT_CASE(bulk_alloc_slot),
	KUNIT_CASE(bulk_single_alloc_kfree_bulk),
	KUNIT_CASE(bulk_kfree_rcu),
	KUNIT_CASE(bulk_pages),
	KUNIT_CASE(bulk_pages_over_stale),
	KUNIT_CASE(bulk_nmi_paired),
	KUNIT_CASE(bulk_nmi_ring_full),
	{}
};

struct kunit_suite kmp_bulk_suite = {
	.name = "kmemprof_bulk",
	.init = bulk_test_init,
	.exit = bulk_test_exit,
	.test_cases = bulk_cases,
};
