// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: kmemprof's probes see the kmem and percpu events, and stop seeing
 * them once detached.
 *
 * Other CPUs allocate too while these cases run, so counts that are
 * attached can only be checked from below; counts that are detached must
 * not move at all.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

#define NOBJ	100

struct probe_ctx {
	void *obj[NOBJ];
	struct page *page[NOBJ];
	struct kmem_cache *cache;
};

static void counts(u64 *c)
{
	enum kmp_event ev;

	for (ev = 0; ev < KMP_EV_NR; ev++)
		c[ev] = kmemprof_event_count(ev);
}

static void expect_moved(struct kunit *test, const u64 *before,
			 enum kmp_event ev, u64 n)
{
	u64 now = kmemprof_event_count(ev);

	KMP_EXPECT_GE_MSG(test, now - before[ev], n,
			  "%s moved by %llu, expected at least %llu",
			  kmemprof_event_name(ev), now - before[ev], n);
}

static int probe_test_init(struct kunit *test)
{
	struct probe_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KMP_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	return 0;
}

static void kmalloc_one(struct probe_ctx *c, int i)
{
	c->obj[i] = kmalloc(64 + i, GFP_KERNEL);
}

static void kfree_one(struct probe_ctx *c, int i)
{
	kfree(c->obj[i]);
}

static void cache_alloc_one(struct probe_ctx *c, int i)
{
	c->obj[i] = kmem_cache_alloc(c->cache, GFP_KERNEL);
}

static void cache_free_one(struct probe_ctx *c, int i)
{
	kmem_cache_free(c->cache, c->obj[i]);
}

static void pages_alloc_one(struct probe_ctx *c, int i)
{
	c->obj[i] = alloc_pages(GFP_KERNEL, i % 3);
}

static void pages_free_one(struct probe_ctx *c, int i)
{
	__free_pages(c->obj[i], i % 3);
}

static void percpu_alloc_one(struct probe_ctx *c, int i)
{
	c->obj[i] = (__force void *)alloc_percpu(u64);
}

static void percpu_free_one(struct probe_ctx *c, int i)
{
	free_percpu((__force u64 __percpu *)c->obj[i]);
}

/* Each kind of allocation, and the pair of events its probes count. */
static const struct probe_case {
	const char *name;
	void (*alloc)(struct probe_ctx *c, int i);
	void (*free)(struct probe_ctx *c, int i);
	enum kmp_event alloc_ev, free_ev;
} probe_kinds[] = {
	{ "kmalloc", kmalloc_one, kfree_one, KMP_EV_KMALLOC, KMP_EV_KFREE },
	{ "kmem_cache", cache_alloc_one, cache_free_one,
	  KMP_EV_KMEM_CACHE_ALLOC, KMP_EV_KMEM_CACHE_FREE },
	{ "pages", pages_alloc_one, pages_free_one, KMP_EV_PAGE_ALLOC,
	  KMP_EV_PAGE_FREE },
	{ "percpu", percpu_alloc_one, percpu_free_one, KMP_EV_PERCPU_ALLOC,
	  KMP_EV_PERCPU_FREE },
};

/* NOBJ allocations and frees of each kind move its two counts by NOBJ. */
static void probe_events_counted(struct kunit *test)
{
	struct probe_ctx *ctx = test->priv;
	const struct probe_case *p;
	u64 before[KMP_EV_NR];
	int i;

	ctx->cache = kmem_cache_create("kmemprof_probe_test", 96, 0, 0, NULL);
	KMP_ASSERT_NOT_NULL(test, ctx->cache);
	for (p = probe_kinds; p < probe_kinds + ARRAY_SIZE(probe_kinds); p++) {
		counts(before);
		for (i = 0; i < NOBJ; i++) {
			p->alloc(ctx, i);
			KMP_ASSERT_NOT_NULL(test, ctx->obj[i]);
		}
		for (i = 0; i < NOBJ; i++)
			p->free(ctx, i);
		expect_moved(test, before, p->alloc_ev, NOBJ);
		expect_moved(test, before, p->free_ev, NOBJ);
	}
	kmem_cache_destroy(ctx->cache);
}

/* Detached probes must not count a single event, from any CPU. */
static void probe_detach_stops_counting(struct kunit *test)
{
	struct probe_ctx *ctx = test->priv;
	u64 before[KMP_EV_NR], after[KMP_EV_NR];
	enum kmp_event ev;
	int i;

	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	KUNIT_EXPECT_FALSE(test, kmemprof_is_enabled());
	counts(before);
	for (i = 0; i < NOBJ; i++) {
		ctx->obj[i] = kmalloc(128, GFP_KERNEL);
		ctx->page[i] = alloc_page(GFP_KERNEL);
	}
	for (i = 0; i < NOBJ; i++) {
		kfree(ctx->obj[i]);
		if (ctx->page[i])
			__free_page(ctx->page[i]);
	}
	counts(after);
	for (ev = 0; ev < KMP_EV_NR; ev++)
		KMP_EXPECT_EQ_MSG(test, after[ev], before[ev],
				  "%s counted while detached",
				  kmemprof_event_name(ev));

	/* And attaching again resumes counting. */
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	counts(before);
	for (i = 0; i < NOBJ; i++)
		kfree(kmalloc(128, GFP_KERNEL));
	expect_moved(test, before, KMP_EV_KMALLOC, NOBJ);
}

/*
 * Every free probe goes on before any allocation's, and comes off after
 * them all: an allocation seen between the two would have its free unseen,
 * and stay live (83-attach's churn showed it on 6.12, stale at load).
 */
static void probe_attach_frees_first(struct kunit *test)
{
	unsigned int n;

	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	kmemprof_test_attach_order(&n);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	KMP_EXPECT_EQ_MSG(test, kmemprof_test_attach_order(&n), 0,
			  "an allocation's probe went on before a free's");
	/* slab, page and percpu: eight events, each attached or detached */
	KUNIT_EXPECT_GE(test, n, 8U);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	KMP_EXPECT_EQ_MSG(test, kmemprof_test_attach_order(&n), 0,
			  "a free's probe came off before an allocation's");
	KUNIT_EXPECT_GE(test, n, 8U);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
}

/*
 * A free's hook that ftrace refuses at attach (another user holds its
 * function) is not tried again once the allocations' probes are on: it
 * would go on after them, and an object allocated between the two and
 * freed through it would stay live. It goes on at the next attach.
 */
static void probe_refused_free_hook(struct kunit *test)
{
	const char *hook = "kmem_cache_free_bulk";
	unsigned int n;

	if (!kmemprof_hooked(hook)) {
		kmp_kunit_skip(test, "%s is not hooked on this kernel", hook);
		return;
	}
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	kmemprof_test_attach_order(&n);
	kmemprof_test_hook_refuse(hook, 1);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	kmemprof_test_hook_refuse(NULL, 0);
	KMP_EXPECT_EQ_MSG(test, kmemprof_test_attach_order(&n), 0,
			  "a free's hook went on after an allocation's probe");
	KUNIT_EXPECT_FALSE_MSG(test, kmemprof_hooked(hook),
			       "%s tried again after the allocations", hook);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	KUNIT_EXPECT_TRUE_MSG(test, kmemprof_hooked(hook),
			      "%s not attached again at the next attach", hook);
	KMP_EXPECT_EQ(test, kmemprof_test_attach_order(&n), 0);
}

/* A constructor keeps the caches below from merging with any other. */
static void probe_old_ctor(void *obj)
{
}

/*
 * One unpaired free of an object of @c, @old from before the attach:
 * whether unpaired.slab and unpaired.slab_old grew by exactly @slab and
 * @in_old; false where a background free moved them too (to try again).
 */
static bool probe_unpaired_once(struct kunit *test, struct kmem_cache *c,
				void *obj, u64 slab, u64 in_old, bool last)
{
	u64 u = kmemprof_stat(KMP_ST_UNPAIRED_SLAB);
	u64 o = kmemprof_stat(KMP_ST_UNPAIRED_OLD);

	kmem_cache_free(c, obj);
	u = kmemprof_stat(KMP_ST_UNPAIRED_SLAB) - u;
	o = kmemprof_stat(KMP_ST_UNPAIRED_OLD) - o;
	if (u == slab && o == in_old)
		return true;
	if (last) {
		KMP_EXPECT_EQ_MSG(test, u, slab, "unpaired.slab");
		KMP_EXPECT_EQ_MSG(test, o, in_old, "unpaired.slab_old");
	}
	return false;
}

/*
 * An unpaired free names where its object may be from: on a slab whose
 * page is from before the attach (a before-load tag), unpaired.slab_old
 * counts it too; on a slab allocated since, unpaired.slab alone, as its
 * object was allocated since and its event missed.
 */
static void probe_unpaired_old(struct kunit *test)
{
	struct kmem_cache *before, *since;
	void *obj;
	int i;

	KMP_ASSERT_EQ(test, kmemprof_set_events(KMP_KIND_ALL), 0);
	for (i = 1; i <= 3; i++) {
		KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
		before = kmem_cache_create("kmp_test_before", 512, 0, 0,
					   probe_old_ctor);
		obj = before ? kmem_cache_alloc(before, GFP_KERNEL) : NULL;
		KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
		KMP_ASSERT_NOT_NULL(test, obj);
		if (!probe_unpaired_once(test, before, obj, 1, 1, i == 3)) {
			kmem_cache_destroy(before);
			continue;
		}
		kmem_cache_destroy(before);
		since = kmem_cache_create("kmp_test_since", 512, 0, 0,
					  probe_old_ctor);
		KMP_ASSERT_NOT_NULL(test, since);
		obj = kmem_cache_alloc(since, GFP_KERNEL);
		KMP_ASSERT_NOT_NULL(test, obj);
		/* its entry taken, as a free kmemprof saw would */
		kmemprof_test_slab_free_event(obj);
		if (probe_unpaired_once(test, since, obj, 1, 0, i == 3)) {
			kmem_cache_destroy(since);
			return;
		}
		kmem_cache_destroy(since);
	}
}

static struct kunit_case probe_cases[] = {
	KUNIT_CASE(probe_events_counted),
	KUNIT_CASE(probe_detach_stops_counting),
	KUNIT_CASE(probe_attach_frees_first),
	KUNIT_CASE(probe_refused_free_hook),
	KUNIT_CASE(probe_unpaired_old),
	{}
};

struct kunit_suite kmp_probe_suite = {
	.name = "kmemprof_probe",
	.init = probe_test_init,
	.test_cases = probe_cases,
};

