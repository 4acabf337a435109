// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: histograms count each object in its exact bucket: sizes and
 * requested sizes, lifetimes (by a test clock), and frees that cross CPUs
 * and clusters.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

#define NOBJ	16

/* The bucket layout, written out again from the documentation. */
static unsigned int expect_size_bucket(size_t bytes)
{
	if (bytes <= 8)
		return 0;
	return min_t(unsigned int, order_base_2(bytes) - 3, 19);
}

static void hist_of(struct kunit *test, enum kmp_kind kind, const void *fn,
		    struct kmp_hist_totals *h)
{
	unsigned long start, end;

	kmp_test_fn_range(test, fn, &start, &end);
	kmemprof_hist_range(kind, start, end, h);
}

/* Histograms before and after, too big for the stack. */
struct hist_pair {
	struct kmp_hist_totals before, after;
};

static struct hist_pair *hist_pair(struct kunit *test)
{
	struct hist_pair *hp = kunit_kzalloc(test, sizeof(*hp), GFP_KERNEL);

	KMP_ASSERT_NOT_NULL(test, hp);
	return hp;
}

static noinline void *hist_kmalloc(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

static noinline struct page *hist_pages(unsigned int order)
{
	return alloc_pages(GFP_KERNEL, order);
}

/* Histograms are opt-in: the suite turns them on, and off again. */
static int hist_test_init(struct kunit *test)
{
	KMP_ASSERT_EQ(test, kmemprof_set_events(KMP_KIND_ALL), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("hist", 1), 0);
	return 0;
}

static void hist_test_exit(struct kunit *test)
{
	kmemprof_set_knob("hist", 0);
	kmemprof_set_clock(NULL);
}

/* Each object lands in the bucket of its size and of its request. */
static void hist_size_buckets(struct kunit *test)
{
	static const size_t sizes[] = { 1, 8, 9, 33, 100, 129, 1000, 4096,
					5000, 3 * PAGE_SIZE + 1 };
	u64 want_size[KMP_SIZE_BUCKETS] = { }, want_req[KMP_SIZE_BUCKETS] = { };
	struct hist_pair *hp = hist_pair(test);
	void *p[ARRAY_SIZE(sizes)];
	unsigned int i, b;

	hist_of(test, KMP_KIND_SLAB, hist_kmalloc, &hp->before);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		p[i] = hist_kmalloc(sizes[i]);
		KMP_ASSERT_NOT_NULL(test, p[i]);
		want_size[expect_size_bucket(ksize(p[i]))]++;
		want_req[expect_size_bucket(sizes[i])]++;
	}
	hist_of(test, KMP_KIND_SLAB, hist_kmalloc, &hp->after);
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		kfree(p[i]);
	for (b = 0; b < KMP_SIZE_BUCKETS; b++) {
		/* slub_debug makes objects larger than ksize() says. */
		if (!kmp_test_slub_debug)
			KMP_EXPECT_EQ_MSG(test,
					  hp->after.size[b] - hp->before.size[b],
					  want_size[b], "size bucket %u", b);
		KMP_EXPECT_EQ_MSG(test, hp->after.req[b] - hp->before.req[b],
				  want_req[b], "req bucket %u", b);
	}
}

/* Page tags bucket by order. */
static void hist_page_orders(struct kunit *test)
{
	static const unsigned int orders[] = { 0, 0, 1, 3, 3, 3 };
	struct hist_pair *hp = hist_pair(test);
	struct page *p[ARRAY_SIZE(orders)];
	unsigned int i;

	hist_of(test, KMP_KIND_PAGE, hist_pages, &hp->before);
	for (i = 0; i < ARRAY_SIZE(orders); i++) {
		p[i] = hist_pages(orders[i]);
		KMP_ASSERT_NOT_NULL(test, p[i]);
	}
	hist_of(test, KMP_KIND_PAGE, hist_pages, &hp->after);
	for (i = 0; i < ARRAY_SIZE(orders); i++)
		__free_pages(p[i], orders[i]);
	KMP_EXPECT_EQ(test, hp->after.size[0] - hp->before.size[0], 2);
	KMP_EXPECT_EQ(test, hp->after.size[1] - hp->before.size[1], 1);
	KMP_EXPECT_EQ(test, hp->after.size[2] - hp->before.size[2], 0);
	KMP_EXPECT_EQ(test, hp->after.size[3] - hp->before.size[3], 3);
}

/* The bucket functions themselves, against the documented layout. */
static const struct size_bucket_case {
	enum kmp_kind kind;
	size_t bytes;
	unsigned int bucket;
} size_bucket_cases[] = {
	{ KMP_KIND_SLAB, 0, 0 },	{ KMP_KIND_SLAB, 1, 0 },
	{ KMP_KIND_SLAB, 8, 0 },	{ KMP_KIND_SLAB, 9, 1 },
	{ KMP_KIND_SLAB, 16, 1 },	{ KMP_KIND_SLAB, 17, 2 },
	{ KMP_KIND_SLAB, 4096, 9 },	{ KMP_KIND_SLAB, 4097, 10 },
	{ KMP_KIND_SLAB, SZ_2M, 18 },	{ KMP_KIND_SLAB, SZ_2M + 1, 19 },
	{ KMP_KIND_SLAB, SZ_1G, 19 },	/* the last bucket holds the rest */
	{ KMP_KIND_PERCPU, 24, 2 },
	{ KMP_KIND_PAGE, PAGE_SIZE, 0 },	/* pages: by order */
	{ KMP_KIND_PAGE, 2 * PAGE_SIZE, 1 },
	{ KMP_KIND_PAGE, 3 * PAGE_SIZE, 2 },	/* rounded up */
	{ KMP_KIND_PAGE, PAGE_SIZE << 10, 10 },
};

static void hist_size_bucket_fn(struct kunit *test)
{
	const struct size_bucket_case *c;

	for (c = size_bucket_cases;
	     c < size_bucket_cases + ARRAY_SIZE(size_bucket_cases); c++)
		KMP_EXPECT_EQ_MSG(test, kmp_size_bucket(c->kind, c->bytes),
				  c->bucket, "kind %d, %zu bytes", c->kind,
				  c->bytes);
}

/* Lifetime buckets are powers of two of 1024 ns units: [2^(b-1), 2^b). */
static const struct life_bucket_case {
	u64 ns;
	unsigned int bucket;
} life_bucket_cases[] = {
	{ 0, 0 }, { 1023, 0 }, { 1024, 1 }, { 2047, 1 }, { 2048, 2 },
	{ 1000000, 10 }, { 1ULL << 43, 34 }, { (1ULL << 44) - 1, 34 },
	{ 1ULL << 44, 35 }, { U64_MAX, 35 },
};

static void hist_life_bucket_fn(struct kunit *test)
{
	const struct life_bucket_case *c;

	for (c = life_bucket_cases;
	     c < life_bucket_cases + ARRAY_SIZE(life_bucket_cases); c++)
		KMP_EXPECT_EQ_MSG(test, kmp_life_bucket(c->ns), c->bucket,
				  "%llu ns", c->ns);
}

static atomic64_t fake_now = ATOMIC64_INIT(1000000000ULL);

static u64 fake_clock(void)
{
	return atomic64_read(&fake_now);
}

struct life_case {
	const char *name;
	u64 held_ns;
	unsigned int bucket;
};

static const struct life_case life_cases[] = {
	{ "under_1us", 500, 0 },
	{ "5us", 5000, 3 },		/* 4 units of 1024 ns: [4, 8) */
	{ "1ms", 1000000, 10 },		/* 976 units: [512, 1024) */
	{ "1s", 1000000000, 20 },	/* 976562 units: [2^19, 2^20) */
	{ "2h", 7200ULL * 1000000000, 33 },
	{ "100h", 360000ULL * 1000000000, 35 },	/* the last bucket */
};

/* Objects held a known time (by the test clock) land in one bucket. */
static void hist_lifetime_bucket(struct kunit *test, const struct life_case *c)
{
	struct hist_pair *hp = hist_pair(test);
	void *p[NOBJ];
	unsigned int i, b;

	hist_of(test, KMP_KIND_SLAB, hist_kmalloc, &hp->before);
	kmemprof_set_clock(fake_clock);
	for (i = 0; i < NOBJ; i++)
		p[i] = hist_kmalloc(64);
	atomic64_add(c->held_ns, &fake_now);
	for (i = 0; i < NOBJ; i++)
		kfree(p[i]);
	kmemprof_set_clock(NULL);
	hist_of(test, KMP_KIND_SLAB, hist_kmalloc, &hp->after);
	for (b = 0; b < KMP_LIFE_BUCKETS; b++)
		KMP_EXPECT_EQ_MSG(test, hp->after.life[b] - hp->before.life[b],
				  b == c->bucket ? NOBJ : 0,
				  "%s: lifetime bucket %u", c->name, b);
}

static void hist_lifetime_buckets(struct kunit *test)
{
	const struct life_case *c;

	for (c = life_cases; c < life_cases + ARRAY_SIZE(life_cases); c++)
		hist_lifetime_bucket(test, c);
}

/* NOBJ objects of @size bytes from hist_kmalloc(), for work_on_cpu(). */
struct hist_objs {
	size_t size;
	void *p[NOBJ];
};

static long hist_objs_alloc(void *arg)
{
	struct hist_objs *o = arg;
	int i;

	for (i = 0; i < NOBJ; i++)
		o->p[i] = hist_kmalloc(o->size);
	return 0;
}

static long hist_objs_free(void *arg)
{
	struct hist_objs *o = arg;
	int i;

	for (i = 0; i < NOBJ; i++)
		kfree(o->p[i]);
	return 0;
}

/* Lifetimes recorded at hist_kmalloc()'s frees, in all, and in bucket @b. */
static u64 life_of(struct kunit *test, unsigned int b, u64 *in_b)
{
	struct kmp_hist_totals *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	u64 n = 0;
	unsigned int i;

	KMP_ASSERT_NOT_NULL(test, h);
	hist_of(test, KMP_KIND_SLAB, hist_kmalloc, h);
	for (i = 0; i < KMP_LIFE_BUCKETS; i++)
		n += h->life[i];
	*in_b = h->life[b];
	kunit_kfree(test, h);
	return n;
}

/*
 * Objects keep their time apart from their slot, only while histograms or
 * lifetimes are on; the copies of the probes that keep no time store
 * none, so a slot keeps the time of the last timed object in it. An
 * object allocated and freed with times on has its lifetime recorded; one
 * allocated with them off, in a slot a timed object left, has none once
 * they are on again (kmp_mode_update() zeroes the times), and its free
 * records no lifetime. On one CPU, so that SLUB hands the first objects'
 * addresses, and so their slots, out again.
 */
static void hist_lifetime_needs_time_on(struct kunit *test)
{
	struct hist_objs *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct hist_objs *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	int cpu = cpumask_first(cpu_online_mask);
	u64 all0, all1, in0, in1;
	unsigned int life, reused = 0, i, j;

	KMP_ASSERT_NOT_NULL(test, a);
	KMP_ASSERT_NOT_NULL(test, b);
	a->size = 64;
	b->size = 64;
	KMP_ASSERT_EQ(test, kmemprof_get_knob("lifetimes", &life), 0);
	KMP_ASSERT_EQ(test, life, 0);
	kmemprof_set_clock(fake_clock);

	/* Times on at both ends: 5 us each, bucket 3. */
	all0 = life_of(test, 3, &in0);
	KMP_ASSERT_EQ(test, work_on_cpu(cpu, hist_objs_alloc, a), 0);
	atomic64_add(5000, &fake_now);
	KMP_ASSERT_EQ(test, work_on_cpu(cpu, hist_objs_free, a), 0);
	all1 = life_of(test, 3, &in1);
	KMP_EXPECT_EQ(test, in1 - in0, NOBJ);
	KMP_EXPECT_EQ(test, all1 - all0, NOBJ);

	/* Off at the allocation, on at the free: no lifetime. */
	KMP_ASSERT_EQ(test, kmemprof_set_knob("hist", 0), 0);
	KMP_ASSERT_EQ(test, work_on_cpu(cpu, hist_objs_alloc, b), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("hist", 1), 0);
	all0 = life_of(test, 3, &in0);
	atomic64_add(5000, &fake_now);
	KMP_ASSERT_EQ(test, work_on_cpu(cpu, hist_objs_free, b), 0);
	all1 = life_of(test, 3, &in1);
	for (i = 0; i < NOBJ; i++)
		for (j = 0; j < NOBJ; j++)
			if (b->p[i] && b->p[i] == a->p[j])
				reused++;
	KMP_EXPECT_EQ_MSG(test, all1 - all0, 0,
			  "lifetimes of objects allocated with times off (%u of %u at a timed object's address)",
			  reused, NOBJ);

	/* And on again at both ends. */
	KMP_ASSERT_EQ(test, work_on_cpu(cpu, hist_objs_alloc, a), 0);
	atomic64_add(5000, &fake_now);
	KMP_ASSERT_EQ(test, work_on_cpu(cpu, hist_objs_free, a), 0);
	all0 = all1;
	in0 = in1;
	all1 = life_of(test, 3, &in1);
	kmemprof_set_clock(NULL);
	KMP_EXPECT_EQ(test, in1 - in0, NOBJ);
	KMP_EXPECT_EQ(test, all1 - all0, NOBJ);
	if (!reused && !kmp_kunit_failed(test))
		kmp_kunit_skip(test, "no address given out again: no old time to find");
}

/* Allocate on @a, free on @b: check the cross-CPU and cluster counts. */
static void xfer_between(struct kunit *test, int a, int b)
{
	struct hist_pair *hp = hist_pair(test);
	struct hist_objs x = { .size = 128 };
	bool xcluster = kmemprof_cpu_cluster(a) != kmemprof_cpu_cluster(b);

	hist_of(test, KMP_KIND_SLAB, hist_kmalloc, &hp->before);
	KMP_ASSERT_EQ(test, work_on_cpu(a, hist_objs_alloc, &x), 0);
	KMP_ASSERT_EQ(test, work_on_cpu(b, hist_objs_free, &x), 0);
	hist_of(test, KMP_KIND_SLAB, hist_kmalloc, &hp->after);
	KMP_EXPECT_EQ_MSG(test, hp->after.xcpu - hp->before.xcpu,
			  a != b ? NOBJ : 0, "CPU %d to %d", a, b);
	KMP_EXPECT_EQ_MSG(test, hp->after.xcluster - hp->before.xcluster,
			  xcluster ? NOBJ : 0, "CPU %d (cluster %d) to %d (%d)",
			  a, kmemprof_cpu_cluster(a), b,
			  kmemprof_cpu_cluster(b));
}

static void hist_cross_cpu_and_cluster(struct kunit *test)
{
	int last = cpumask_last(cpu_online_mask), cpu;

	xfer_between(test, 0, 0);
	if (last == 0) {
		kmp_kunit_skip(test, "needs two CPUs");
		return;
	}
	for_each_online_cpu(cpu)
		xfer_between(test, 0, cpu);
}

/* The guest has two clusters of two: the cluster map must say so. */
static void hist_cluster_map(struct kunit *test)
{
	int cpu, n = 0;

	for_each_possible_cpu(cpu) {
		KMP_EXPECT_GE(test, kmemprof_cpu_cluster(cpu), 0);
		n = max(n, kmemprof_cpu_cluster(cpu) + 1);
	}
	/*
	 * Unless the kernel itself sees no clusters: 5.10 reads only
	 * cluster nodes at the top of cpu-map, and QEMU puts a socket there.
	 */
	if (num_possible_cpus() == 4 &&
	    kmp_cluster_id(2) != kmp_cluster_id(0))
		KMP_EXPECT_EQ(test, n, 2);
	KMP_EXPECT_EQ(test, kmemprof_cpu_cluster(0), 0);
}

/*
 * The lifetimes' clock is the kernel's counter, read in order between two
 * of the kernel's own reads; inline wherever the kernel's read is the bare
 * register (arch_counter_get_cntvct() or _cntpct(): every machine without
 * a timer erratum, the rig's QEMU virt among them), else through the
 * kernel's read.
 */
static void hist_clock_counter(struct kunit *test)
{
	u64 before, ours, after;
	bool inl;

	if (kmemprof_test_counter(&before, &ours, &after, &inl)) {
		kmp_kunit_skip(test, "lifetimes use local_clock() here");
		return;
	}
	KMP_EXPECT_GE(test, ours, before);
	KMP_EXPECT_GE(test, after, ours);
#if IS_ENABLED(CONFIG_ARM64) && IS_ENABLED(CONFIG_ARM_ARCH_TIMER)
	{
		char name[KSYM_SYMBOL_LEN];
		bool bare;

		sprint_symbol_no_offset(name,
					(unsigned long)arch_timer_read_counter);
		bare = !strcmp(name, "arch_counter_get_cntvct") ||
		       !strcmp(name, "arch_counter_get_cntpct");
		KMP_EXPECT_EQ_MSG(test, inl, bare, "the kernel reads it with %s",
				  name);
	}
#endif
}

static struct kunit_case hist_cases[] = {
	KUNIT_CASE(hist_clock_counter),
	KUNIT_CASE(hist_size_bucket_fn),
	KUNIT_CASE(hist_life_bucket_fn),
	KUNIT_CASE(hist_size_buckets),
	KUNIT_CASE(hist_page_orders),
	KUNIT_CASE(hist_lifetime_buckets),
	KUNIT_CASE(hist_lifetime_needs_time_on),
	KUNIT_CASE(hist_cross_cpu_and_cluster),
	KUNIT_CASE(hist_cluster_map),
	{}
};

struct kunit_suite kmp_hist_suite = {
	.name = "kmemprof_hist",
	.init = hist_test_init,
	.exit = hist_test_exit,
	.test_cases = hist_cases,
};

