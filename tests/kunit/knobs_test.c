// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the knobs that change what a tag is and what is tracked:
 * key_depth splits a wrapper's tag by caller, sample_rate keeps the basic
 * counters exact, min_size/max_size filter slab sizes, and every knob
 * refuses values out of range.
 */
#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

#define NA	30
#define NB	70

/*
 * A wrapper such as kmemdup(): every allocation's call site is inside it.
 * The writes after each call keep the compiler from turning the calls into
 * tail calls, which would take the caller's frame off the stack.
 */
static noinline void *wrapper_alloc(size_t size)
{
	char *p = kmalloc(size, GFP_KERNEL);

	if (p)
		memset(p, 0, size);
	return p;
}

static noinline void *caller_a(void)
{
	char *p = wrapper_alloc(96);

	if (p)
		p[0] = 'a';
	return p;
}

static noinline void *caller_b(void)
{
	char *p = wrapper_alloc(96);

	if (p)
		p[0] = 'b';
	return p;
}

static int knobs_test_init(struct kunit *test)
{
	KMP_ASSERT_EQ(test, kmemprof_set_events(KMP_KIND_ALL), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	return 0;
}

static void knobs_test_exit(struct kunit *test)
{
	kmemprof_set_knob("key_depth", 0);
	kmemprof_set_knob("stack_depth", 0);
	kmemprof_set_knob("sample_rate", 1);
	kmemprof_set_knob("min_size", 0);
	kmemprof_set_knob("max_size", 0);
}

static void alloc_from_both(void **p)
{
	int i;

	for (i = 0; i < NA; i++)
		p[i] = caller_a();
	for (i = NA; i < NA + NB; i++)
		p[i] = caller_b();
}

/*
 * key_depth=0: one tag for the wrapper. key_depth=1: one tag per caller,
 * each with its exact count.
 */
static void knobs_key_depth_splits_wrapper(struct kunit *test)
{
	unsigned long ws, we, as, ae, bs, be;
	struct kmp_totals base, t, ta, tb;
	void **p;
	int i;

	p = kmp_kunit_kcalloc(test, NA + NB, sizeof(*p), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, p);
	kmp_test_fn_range(test, wrapper_alloc, &ws, &we);
	kmp_test_fn_range(test, caller_a, &as, &ae);
	kmp_test_fn_range(test, caller_b, &bs, &be);

	KMP_ASSERT_EQ(test, kmemprof_set_knob("key_depth", 0), 0);
	kmemprof_sum_range(KMP_KIND_SLAB, ws, we, &base, NULL);
	alloc_from_both(p);
	KMP_EXPECT_EQ(test, kmemprof_sum_range(KMP_KIND_SLAB, ws, we, &t,
					       NULL), 1);
	KMP_EXPECT_EQ(test, t.live_objs - base.live_objs, NA + NB);
	for (i = 0; i < NA + NB; i++)
		kfree(p[i]);

	KMP_ASSERT_EQ(test, kmemprof_set_knob("key_depth", 1), 0);
	alloc_from_both(p);
	KMP_EXPECT_EQ(test, kmemprof_sum_callers(KMP_KIND_SLAB, ws, we,
						 as, ae, &ta), 1);
	KMP_EXPECT_EQ(test, kmemprof_sum_callers(KMP_KIND_SLAB, ws, we,
						 bs, be, &tb), 1);
	KMP_EXPECT_EQ(test, ta.allocs, NA);
	KMP_EXPECT_EQ(test, ta.live_objs, NA);
	KMP_EXPECT_EQ(test, tb.allocs, NB);
	KMP_EXPECT_EQ(test, tb.live_objs, NB);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("key_depth", 0), 0);
	/* Frees pair with the tags that allocated, whatever key_depth is. */
	for (i = 0; i < NA + NB; i++)
		kfree(p[i]);
	kmemprof_sum_callers(KMP_KIND_SLAB, ws, we, as, ae, &ta);
	kmemprof_sum_callers(KMP_KIND_SLAB, ws, we, bs, be, &tb);
	KMP_EXPECT_EQ(test, ta.frees, NA);
	KMP_EXPECT_EQ(test, ta.live_objs, 0);
	KMP_EXPECT_EQ(test, tb.frees, NB);
	KMP_EXPECT_EQ(test, tb.live_objs, 0);
}

#define NSAMPLED	400

static noinline void *sampled_alloc(void)
{
	return kmalloc(200, GFP_KERNEL);
}

struct sampled_ctx {
	void *p[NSAMPLED];
};

static long sampled_run(void *arg)
{
	struct sampled_ctx *c = arg;
	int i;

	for (i = 0; i < NSAMPLED; i++)
		c->p[i] = sampled_alloc();
	for (i = 0; i < NSAMPLED; i++)
		kfree(c->p[i]);
	return 0;
}

/*
 * sample_rate=4, on one CPU: all 400 allocations are counted; some are
 * tracked (one in four of all the CPU's allocations, which share the
 * count), and each tracked free, which has its lifetime recorded (with
 * histograms on), counts as four frees.
 */
static void knobs_sample_rate_keeps_counts(struct kunit *test)
{
	struct sampled_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct kmp_hist_totals *h0, *h1;
	struct kmp_totals base, t;
	unsigned long s, e;
	u64 lives = 0;
	unsigned int b;

	h0 = kunit_kzalloc(test, sizeof(*h0), GFP_KERNEL);
	h1 = kunit_kzalloc(test, sizeof(*h1), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, c);
	KMP_ASSERT_NOT_NULL(test, h0);
	KMP_ASSERT_NOT_NULL(test, h1);
	kmp_test_fn_range(test, sampled_alloc, &s, &e);
	kmemprof_sum_range(KMP_KIND_SLAB, s, e, &base, NULL);
	kmemprof_hist_range(KMP_KIND_SLAB, s, e, h0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("hist", 1), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("sample_rate", 4), 0);
	KMP_ASSERT_EQ(test, work_on_cpu(0, sampled_run, c), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("sample_rate", 1), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("hist", 0), 0);
	kmemprof_sum_range(KMP_KIND_SLAB, s, e, &t, NULL);
	kmemprof_hist_range(KMP_KIND_SLAB, s, e, h1);
	KMP_EXPECT_EQ(test, t.allocs - base.allocs, NSAMPLED);
	for (b = 0; b < KMP_LIFE_BUCKETS; b++)
		lives += h1->life[b] - h0->life[b];
	KMP_EXPECT_GT(test, lives, 0);
	KMP_EXPECT_LT(test, lives, NSAMPLED);
	KMP_EXPECT_EQ(test, t.frees - base.frees, 4 * lives);
}

static noinline void *sized_alloc(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

/*
 * Slab allocations outside [min_size, max_size] are not traced. The bounds
 * are the bytes one middle-sized object counts, measured first: slub_debug
 * makes objects larger than their kmalloc size.
 */
static void knobs_size_filter(struct kunit *test)
{
	struct kmp_totals base, t;
	unsigned long s, e;
	u64 mid;
	void *p[3];
	int i;

	kmp_test_fn_range(test, sized_alloc, &s, &e);
	kmemprof_sum_range(KMP_KIND_SLAB, s, e, &base, NULL);
	kfree(sized_alloc(2048));
	kmemprof_sum_range(KMP_KIND_SLAB, s, e, &t, NULL);
	mid = t.bytes - base.bytes;
	KMP_ASSERT_GT(test, mid, 0);
	base = t;
	KMP_ASSERT_EQ(test, kmemprof_set_knob("min_size", mid), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("max_size", mid), 0);
	p[0] = sized_alloc(100);	/* under */
	p[1] = sized_alloc(2048);	/* in */
	p[2] = sized_alloc(3500);	/* over */
	KMP_ASSERT_EQ(test, kmemprof_set_knob("min_size", 0), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("max_size", 0), 0);
	kmemprof_sum_range(KMP_KIND_SLAB, s, e, &t, NULL);
	KMP_EXPECT_EQ(test, t.allocs - base.allocs, 1);
	KMP_EXPECT_EQ(test, t.live_objs - base.live_objs, 1);
	for (i = 0; i < 3; i++)
		kfree(p[i]);
}

struct knob_case {
	const char *name;
	unsigned int val;
	int ret;
};

static const struct knob_case knob_cases[] = {
	{ "stack_depth", 16, 0 }, { "stack_depth", 17, -EINVAL },
	{ "stack_depth", 0, 0 },
	{ "key_depth", 4, 0 }, { "key_depth", 5, -EINVAL },
	{ "key_depth", 0, 0 },
	{ "stack_sample", 0, -EINVAL }, { "stack_sample", 1, 0 },
	{ "sample_rate", 0, -EINVAL }, { "sample_rate", 1, 0 },
	{ "sample_rate", 1U << 31, -EINVAL },
	{ "leak_age_ms", 1U << 31, -EINVAL }, { "leak_age_ms", 10000, 0 },
	{ "max_size", 100, 0 }, { "min_size", 100, 0 },
	{ "no_such_knob", 1, -ENOENT },
};

/* Each knob takes its range and refuses anything outside it. */
static void knobs_ranges(struct kunit *test)
{
	const struct knob_case *c;

	for (c = knob_cases; c < knob_cases + ARRAY_SIZE(knob_cases); c++)
		KMP_EXPECT_EQ_MSG(test, kmemprof_set_knob(c->name, c->val),
				  c->ret, "%s=%u", c->name, c->val);
}

/* min_size never goes above a set max_size, nor max_size below min_size. */
static void knobs_size_bounds_consistent(struct kunit *test)
{
	KMP_EXPECT_EQ(test, kmemprof_set_knob("max_size", 100), 0);
	KMP_EXPECT_EQ(test, kmemprof_set_knob("min_size", 101), -EINVAL);
	KMP_EXPECT_EQ(test, kmemprof_set_knob("min_size", 100), 0);
	KMP_EXPECT_EQ(test, kmemprof_set_knob("max_size", 99), -EINVAL);
	KMP_EXPECT_EQ(test, kmemprof_set_knob("max_size", 0), 0);
	KMP_EXPECT_EQ(test, kmemprof_set_knob("min_size", 5000), 0);
	KMP_EXPECT_EQ(test, kmemprof_set_knob("max_size", 4999), -EINVAL);
}

static struct kunit_case knobs_cases[] = {
	KUNIT_CASE(knobs_key_depth_splits_wrapper),
	KUNIT_CASE(knobs_sample_rate_keeps_counts),
	KUNIT_CASE(knobs_size_filter),
	KUNIT_CASE(knobs_ranges),
	KUNIT_CASE(knobs_size_bounds_consistent),
	{}
};

struct kunit_suite kmp_knobs_suite = {
	.name = "kmemprof_knobs",
	.init = knobs_test_init,
	.exit = knobs_test_exit,
	.test_cases = knobs_cases,
};

