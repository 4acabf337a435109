// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: kmemprof's probes see the kmem events, and stop seeing them once
 * detached.
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

#include "kmemprof_test.h"

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

	KUNIT_EXPECT_GE_MSG(test, now - before[ev], n,
			    "%s moved by %llu, expected at least %llu",
			    kmemprof_event_name(ev), now - before[ev], n);
}

static int probe_test_init(struct kunit *test)
{
	struct probe_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	test->priv = ctx;
	KUNIT_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	return 0;
}

static void probe_kmalloc_counted(struct kunit *test)
{
	struct probe_ctx *ctx = test->priv;
	u64 before[KMP_EV_NR];
	int i;

	counts(before);
	for (i = 0; i < NOBJ; i++) {
		ctx->obj[i] = kmalloc(64 + i, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ctx->obj[i]);
	}
	for (i = 0; i < NOBJ; i++)
		kfree(ctx->obj[i]);
	expect_moved(test, before, KMP_EV_KMALLOC, NOBJ);
	expect_moved(test, before, KMP_EV_KFREE, NOBJ);
}

static void probe_kmem_cache_counted(struct kunit *test)
{
	struct probe_ctx *ctx = test->priv;
	u64 before[KMP_EV_NR];
	int i;

	ctx->cache = kmem_cache_create("kmemprof_probe_test", 96, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->cache);
	counts(before);
	for (i = 0; i < NOBJ; i++) {
		ctx->obj[i] = kmem_cache_alloc(ctx->cache, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ctx->obj[i]);
	}
	for (i = 0; i < NOBJ; i++)
		kmem_cache_free(ctx->cache, ctx->obj[i]);
	expect_moved(test, before, KMP_EV_KMEM_CACHE_ALLOC, NOBJ);
	expect_moved(test, before, KMP_EV_KMEM_CACHE_FREE, NOBJ);
	kmem_cache_destroy(ctx->cache);
}

static void probe_pages_counted(struct kunit *test)
{
	struct probe_ctx *ctx = test->priv;
	u64 before[KMP_EV_NR];
	int i;

	counts(before);
	for (i = 0; i < NOBJ; i++) {
		ctx->page[i] = alloc_pages(GFP_KERNEL, i % 3);
		KUNIT_ASSERT_NOT_NULL(test, ctx->page[i]);
	}
	for (i = 0; i < NOBJ; i++)
		__free_pages(ctx->page[i], i % 3);
	expect_moved(test, before, KMP_EV_PAGE_ALLOC, NOBJ);
	expect_moved(test, before, KMP_EV_PAGE_FREE, NOBJ);
}

/* Detached probes must not count a single event, from any CPU. */
static void probe_detach_stops_counting(struct kunit *test)
{
	struct probe_ctx *ctx = test->priv;
	u64 before[KMP_EV_NR], after[KMP_EV_NR];
	enum kmp_event ev;
	int i;

	KUNIT_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
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
		KUNIT_EXPECT_EQ_MSG(test, after[ev], before[ev],
				    "%s counted while detached",
				    kmemprof_event_name(ev));

	/* And attaching again resumes counting. */
	KUNIT_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	counts(before);
	for (i = 0; i < NOBJ; i++)
		kfree(kmalloc(128, GFP_KERNEL));
	expect_moved(test, before, KMP_EV_KMALLOC, NOBJ);
}

static struct kunit_case probe_cases[] = {
	KUNIT_CASE(probe_kmalloc_counted),
	KUNIT_CASE(probe_kmem_cache_counted),
	KUNIT_CASE(probe_pages_counted),
	KUNIT_CASE(probe_detach_stops_counting),
	{}
};

struct kunit_suite kmp_probe_suite = {
	.name = "kmemprof_probe",
	.init = probe_test_init,
	.test_cases = probe_cases,
};

