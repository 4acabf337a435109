// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the knobs that change what a tag is and what is tracked:
 * key_depth splits a wrapper's tag by caller, sample_rate keeps the basic
 * counters exact, min_size/max_size filter slab sizes, and every knob
 * refuses values out of range.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

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
	kmemprof_test_knob_point(NULL);
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

/*
 * Objects allocated at sample_rate=1 and freed at 4 on the fast path: each
 * free counts as four, so the tag must say its counts are estimates
 * (sampled:yes), as the general path's frees do. Before, its frees went
 * past its allocations unmarked (80-stress on Debian's 6.1: before_load
 * pages, entered once by the scan, freed while sampling).
 */
/* A site of its own: knobs_sample_rate_keeps_counts marks sampled_alloc's. */
static noinline void *unsampled_alloc(void)
{
	return kmalloc(200, GFP_KERNEL);
}

static long sampled_free_run(void *arg)
{
	struct sampled_ctx *c = arg;
	int i;

	for (i = 0; i < NSAMPLED; i++)
		kfree(c->p[i]);
	return 0;
}

static void knobs_sample_rate_marks_frees(struct kunit *test)
{
	struct sampled_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct kmp_totals base, t;
	unsigned long s, e;
	int i;

	KMP_ASSERT_NOT_NULL(test, c);
	kmp_test_fn_range(test, unsampled_alloc, &s, &e);
	kmemprof_sum_range(KMP_KIND_SLAB, s, e, &base, NULL);
	for (i = 0; i < NSAMPLED; i++)
		c->p[i] = unsampled_alloc();
	KMP_ASSERT_EQ(test, kmemprof_set_knob("sample_rate", 4), 0);
	KMP_ASSERT_EQ(test, work_on_cpu(0, sampled_free_run, c), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("sample_rate", 1), 0);
	kmemprof_sum_range(KMP_KIND_SLAB, s, e, &t, NULL);
	KMP_EXPECT_EQ(test, t.allocs - base.allocs, NSAMPLED);
	KMP_EXPECT_EQ(test, base.sampled, 0ULL);
	KMP_EXPECT_EQ(test, t.frees - base.frees, 4 * NSAMPLED);
	KMP_EXPECT_EQ_MSG(test, t.sampled, 1ULL,
			  "frees counted four times, tag not sampled:yes");
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

/* The bounds as they are now: min <= max, or max not set. */
static bool size_bounds_hold(struct kunit *test, unsigned int *min,
			     unsigned int *max)
{
	KMP_EXPECT_EQ(test, kmemprof_get_knob("min_size", min), 0);
	KMP_EXPECT_EQ(test, kmemprof_get_knob("max_size", max), 0);
	return !*max || *min <= *max;
}

/*
 * Two writers, each setting one bound so that both together would cross
 * (min 200, max 100), start at once, round after round, taking turns at
 * which bound they set. Whichever stores second must see the other's
 * value, so the bounds never cross. The window between a write's check
 * and its store is a few instructions, which two writers seldom hit at
 * once; the test point there (kmemprof_test_knob_point()) sleeps 2 ms to
 * widen it, so that every round in which both writers run at once hits
 * it. Each round starts from min_size 1, max_size 0, so that the filter
 * stays on and no round waits for the static key.
 */
#define RACE_ROUNDS	50

struct size_race {
	atomic_t go;		/* the last round the writers may start */
	atomic_t done;		/* sets made, by both writers */
	int ret[2][RACE_ROUNDS + 1];
};

/* Writer @w sets min_size in odd rounds and max_size in even ones, or back. */
static int size_race_writer(struct size_race *r, int w)
{
	int round;
	bool min;

	for (round = 1; round <= RACE_ROUNDS; round++) {
		while (atomic_read_acquire(&r->go) < round)
			cond_resched();
		min = (w + round) & 1;
		r->ret[w][round] = kmemprof_set_knob(min ? "min_size" : "max_size",
						     min ? 200 : 100);
		atomic_inc(&r->done);
	}
	return 0;
}

static void size_race_point(const char *name, unsigned int val)
{
	usleep_range(2000, 2500);
}

static int size_race_a(void *arg)
{
	return size_race_writer(arg, 0);
}

static int size_race_b(void *arg)
{
	return size_race_writer(arg, 1);
}

/* Let the writers run out their rounds, and wait for them. */
static void size_race_finish(struct size_race *r, int writers)
{
	atomic_set_release(&r->go, RACE_ROUNDS);
	while (atomic_read(&r->done) < writers * RACE_ROUNDS)
		usleep_range(1000, 2000);
}

static void knobs_size_bounds_race(struct kunit *test)
{
	struct size_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned int min, max, crossed = 0, first = 0, fmin = 0, fmax = 0;
	unsigned int both = 0;
	int round;

	KMP_ASSERT_NOT_NULL(test, r);
	if (num_online_cpus() < 2) {
		kmp_kunit_skip(test, "one CPU: the writers cannot run at once");
		return;
	}
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(size_race_a, r,
						    "kmp_size_race_a")));
	if (IS_ERR(kthread_run(size_race_b, r, "kmp_size_race_b"))) {
		size_race_finish(r, 1);
		KUNIT_FAIL(test, "cannot start the second writer");
		return;
	}
	kmemprof_test_knob_point(size_race_point);
	for (round = 1; round <= RACE_ROUNDS; round++) {
		kmemprof_set_knob("max_size", 0);
		kmemprof_set_knob("min_size", 1);
		atomic_set_release(&r->go, round);
		while (atomic_read(&r->done) < 2 * round)
			usleep_range(1000, 2000);
		if (!size_bounds_hold(test, &min, &max) && !crossed++) {
			first = round;
			fmin = min;
			fmax = max;
		}
		/* One of the two writes took, the other was refused. */
		if (!r->ret[0][round] && !r->ret[1][round])
			both++;
	}
	size_race_finish(r, 2);
	kmemprof_test_knob_point(NULL);
	KMP_EXPECT_EQ_MSG(test, crossed, 0,
			  "min_size above max_size after %u of %d rounds, first in round %u: min %u, max %u",
			  crossed, RACE_ROUNDS, first, fmin, fmax);
	KMP_EXPECT_EQ_MSG(test, both, 0,
			  "both writes took in %u of %d rounds", both,
			  RACE_ROUNDS);
}

/*
 * The same, made to happen every time: while one write of min_size is
 * between its check against max_size and its store, a write of max_size
 * that min_size would cross runs. It cannot finish while the first is
 * there, and once that has stored, it is refused.
 */
struct size_interleave {
	struct completion done;
	bool fired;
	bool done_inside;
	int ret;
};

static struct size_interleave *size_interleave;

static int size_interleave_max(void *arg)
{
	struct size_interleave *c = arg;

	c->ret = kmemprof_set_knob("max_size", 100);
	complete_all(&c->done);	/* waited for twice */
	return 0;
}

static void size_interleave_point(const char *name, unsigned int val)
{
	struct size_interleave *c = size_interleave;

	if (c->fired || strcmp(name, "min_size") || val != 200)
		return;
	c->fired = true;
	if (IS_ERR(kthread_run(size_interleave_max, c, "kmp_size_max")))
		return;
	c->done_inside = wait_for_completion_timeout(&c->done, HZ / 5) != 0;
}

static void knobs_size_bounds_checked_with_store(struct kunit *test)
{
	struct size_interleave *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int min, max;
	int ret;

	KMP_ASSERT_NOT_NULL(test, c);
	init_completion(&c->done);
	size_interleave = c;
	kmemprof_test_knob_point(size_interleave_point);
	ret = kmemprof_set_knob("min_size", 200);
	kmemprof_test_knob_point(NULL);
	KUNIT_ASSERT_TRUE(test, c->fired);
	wait_for_completion(&c->done);
	KMP_EXPECT_EQ(test, ret, 0);
	KMP_EXPECT_EQ(test, c->ret, -EINVAL);
	KUNIT_EXPECT_FALSE_MSG(test, c->done_inside,
			       "max_size was set between min_size's check and its store");
	KUNIT_EXPECT_TRUE(test, size_bounds_hold(test, &min, &max));
	KMP_EXPECT_EQ(test, min, 200);
	KMP_EXPECT_EQ(test, max, 0);
}

/*
 * max_live's default is one entry per 16 KiB of RAM, at least 32768, at
 * most 2^28, and nothing more: rounded up to a power of two, it took up to
 * twice that just above each power of two (0.63% of the RAM at 1100 MiB
 * with the other pools), over kmemprof.rst's 0.5%.
 */
static void knobs_max_live_default(struct kunit *test)
{
	static const unsigned long mibs[] = {
		0, 1, 511, 512, 513, 997, 1024, 1025, 1100, 1536, 2047, 2049,
		7800, 8192, 16001, 32768, 65537, 1UL << 22, 1UL << 30,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mibs); i++) {
		unsigned long want = clamp(mibs[i] * 64, 32768UL, 1UL << 28);

		KMP_EXPECT_EQ_MSG(test,
				  (unsigned long)kmemprof_test_default_max_live(mibs[i]),
				  want, "max_live for %lu MiB", mibs[i]);
	}
}

static struct kunit_case knobs_cases[] = {
	KUNIT_CASE(knobs_max_live_default),
	KUNIT_CASE(knobs_key_depth_splits_wrapper),
	KUNIT_CASE(knobs_sample_rate_keeps_counts),
	KUNIT_CASE(knobs_sample_rate_marks_frees),
	KUNIT_CASE(knobs_size_filter),
	KUNIT_CASE(knobs_ranges),
	KUNIT_CASE(knobs_size_bounds_consistent),
	KUNIT_CASE(knobs_size_bounds_race),
	KUNIT_CASE(knobs_size_bounds_checked_with_store),
	{}
};

struct kunit_suite kmp_knobs_suite = {
	.name = "kmemprof_knobs",
	.init = knobs_test_init,
	.exit = knobs_test_exit,
	.test_cases = knobs_cases,
};

