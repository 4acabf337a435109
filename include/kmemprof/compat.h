/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: every difference between the kernels kmemprof builds on.
 *
 * Nothing else in kmemprof tests LINUX_VERSION_CODE. Each difference is
 * folded into a macro or an inline here, so the rest of the code reads the
 * same on every kernel.
 *
 * Tracepoint prototypes (all probes take void *data first):
 *
 *   event             5.10                       5.12..6.0         6.1+
 *   kmalloc           site,ptr,req,alloc,gfp     same              +node
 *   kmalloc_node      site,ptr,req,alloc,gfp,nd  same              (gone)
 *   kmem_cache_alloc_node  as kmalloc_node       same              (gone)
 *   kmem_cache_alloc  site,ptr,req,alloc,gfp     same              site,ptr,s,gfp,node
 *   kmem_cache_free   site,ptr                   site,ptr,name     site,ptr,s
 *   kfree             site,ptr                   everywhere
 *   mm_page_alloc     page,order,gfp,migratetype everywhere
 *   mm_page_free      page,order                 everywhere
 */
#ifndef _KMEMPROF_COMPAT_H
#define _KMEMPROF_COMPAT_H

#include <linux/version.h>
#include <linux/types.h>
#include <linux/slab.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 10, 0)
#error "kmemprof needs Linux 5.10 or later"
#endif

/* kmalloc: the node argument arrived in 6.1, when kmalloc_node merged in. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define KMP_KMALLOC_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags, int node
#define KMP_HAVE_NODE_EVENTS	0
#else
#define KMP_KMALLOC_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags
#define KMP_HAVE_NODE_EVENTS	1
/* Before 6.1, the _node allocations have events of their own. */
#define KMP_KMALLOC_NODE_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags, int node
#define KMP_CACHE_ALLOC_NODE_PROTO	KMP_KMALLOC_NODE_PROTO
#endif

/*
 * Before 6.1, a large kmalloc() of a size known only at run time goes
 * __kmalloc() -> kmalloc_order_trace(), whose event names __kmalloc() as
 * the call site: such sites are found by unwinding (callsite.c).
 */
#define KMP_KMALLOC_SITE_MAY_BE_SLAB	KMP_HAVE_NODE_EVENTS

/*
 * kmem_cache_alloc: from 6.1 the event carries the cache, not the sizes.
 * struct kmem_cache is private from 6.12, so the size comes from the
 * exported kmem_cache_size() on every version that has the cache.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define KMP_CACHE_ALLOC_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	struct kmem_cache *s, gfp_t gfp_flags, int node
#define KMP_CACHE_ALLOC_SIZE()	((size_t)kmem_cache_size(s))
#else
#define KMP_CACHE_ALLOC_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags
#define KMP_CACHE_ALLOC_SIZE()	(bytes_alloc)
#endif

/* kmem_cache_free: no cache before 5.12, its name until 6.0, then the cache. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define KMP_CACHE_FREE_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	const struct kmem_cache *s
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(5, 12, 0)
#define KMP_CACHE_FREE_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	const char *name
#else
#define KMP_CACHE_FREE_PROTO						\
	void *data, unsigned long call_site, const void *ptr
#endif

#define KMP_KFREE_PROTO							\
	void *data, unsigned long call_site, const void *ptr
#define KMP_PAGE_ALLOC_PROTO						\
	void *data, struct page *page, unsigned int order,		\
	gfp_t gfp_flags, int migratetype
#define KMP_PAGE_FREE_PROTO						\
	void *data, struct page *page, unsigned int order

/*
 * percpu_alloc_percpu: 6.1 added the call site, the full size and the gfp
 * flags. Before that the call site comes from unwinding (0 asks for it) and
 * the size is the per-CPU size times the possible CPUs.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define KMP_PERCPU_ALLOC_PROTO						\
	void *data, unsigned long call_site, bool reserved,		\
	bool is_atomic, size_t size, size_t align, void *base_addr,	\
	int off, void __percpu *ptr, size_t bytes_alloc, gfp_t gfp_flags
#define KMP_PERCPU_CALL_SITE()	(call_site)
#define KMP_PERCPU_BYTES()	(bytes_alloc)
#else
#define KMP_PERCPU_ALLOC_PROTO						\
	void *data, bool reserved, bool is_atomic, size_t size,		\
	size_t align, void *base_addr, int off, void __percpu *ptr
#define KMP_PERCPU_CALL_SITE()	(0UL)
#define KMP_PERCPU_BYTES()	(size * num_possible_cpus())
#endif
#define KMP_PERCPU_FREE_PROTO						\
	void *data, void *base_addr, int off, void __percpu *ptr

/*
 * sysctl: handlers take a const table from 6.11. From 6.6 a table is
 * registered with its size (and from 6.12 an empty terminator is an
 * error); before, it ends at an empty entry, which the caller leaves
 * after the @n it fills.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define KMP_CTL_TABLE		const struct ctl_table
#else
#define KMP_CTL_TABLE		struct ctl_table
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define kmp_register_sysctl(path, table, n)				\
	register_sysctl_sz(path, table, n)
#else
#define kmp_register_sysctl(path, table, n)				\
	((void)(n), register_sysctl(path, table))
#endif

/* get_random_u32_below() arrived in 6.2 (6.1.y has it backported). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#include <linux/prandom.h>
#define get_random_u32_below(ceil)	prandom_u32_max(ceil)
#endif

/* from_timer() became timer_container_of() in 6.16. */
#include <linux/timer.h>
#ifndef from_timer
#define from_timer(var, timer, field)	timer_container_of(var, timer, field)
#endif

/*
 * topology_cluster_id() arrived in 5.16. Before it, arm64 gave a device
 * tree cluster's id to package_id, so that is the cluster there.
 */
#include <linux/topology.h>
#ifndef topology_cluster_id
#define topology_cluster_id(cpu)	topology_physical_package_id(cpu)
#endif

/*
 * CPU capacity (big.LITTLE) comes from the per-CPU cpu_scale, which 5.10
 * does not export to modules (6.1 does). Without it every CPU counts as
 * the same size and the clusters come from the topology alone.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#include <linux/sched/topology.h>
#define kmp_cpu_capacity(cpu)		arch_scale_cpu_capacity(cpu)
#else
#define kmp_cpu_capacity(cpu)		((void)(cpu), 1024UL)
#endif

/*
 * A cheap clock for lifetimes: the arm64 generic timer's counter, read
 * directly (about a fifth of local_clock()'s cost), scaled to ns by the
 * caller. Elsewhere, local_clock() itself.
 */
#if IS_ENABLED(CONFIG_ARM64) && IS_ENABLED(CONFIG_ARM_ARCH_TIMER)
#include <asm/arch_timer.h>
#include <clocksource/arm_arch_timer.h>
#define KMP_HAVE_CYCLES		1
static inline u64 kmp_cycles(void)
{
	return arch_timer_read_counter();
}

static inline u32 kmp_cycles_rate(void)
{
	return arch_timer_get_cntfrq();
}
#else
#define KMP_HAVE_CYCLES		0
#endif

#endif /* _KMEMPROF_COMPAT_H */

/*
 * KUnit, for the test suites only: this part is read when <kunit/test.h>
 * was included first. 5.10's KUnit lacks parameterised cases (5.11),
 * kunit_skip() (5.16) and KUNIT_ASSERT_NOT_NULL() (5.17). The suites write
 *
 *	static void fn(struct kunit *test) { ... KMP_TEST_PARAM(test) ... }
 *	KMP_PARAM_RUNNER(fn, gen);
 *	...	KMP_CASE_PARAM(fn, gen),
 *
 * which is KUnit's own parameterised case where there is one, and else a
 * case that runs fn once per parameter, naming in the log the first that
 * fails (5.10 keeps only 512 bytes of log per case).
 */
#if defined(_KUNIT_TEST_H) && !defined(_KMEMPROF_COMPAT_KUNIT)
#define _KMEMPROF_COMPAT_KUNIT

#ifndef KUNIT_ASSERT_NOT_NULL
#define KUNIT_ASSERT_NOT_NULL(test, ptr)				\
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ptr)
#endif

/* No skipping in 5.10: the case says why and passes (callers return). */
#ifndef kunit_skip
#define kunit_skip(test, fmt, ...)					\
	kunit_info(test, "skipped: " fmt, ##__VA_ARGS__)
#endif

#ifdef KUNIT_CASE_PARAM
#define KMP_TEST_PARAM(test)		((test)->param_value)
#define KMP_CASE_PARAM(fn, gen)		KUNIT_CASE_PARAM(fn, gen)
#define KMP_PARAM_RUNNER(fn, gen)	struct kmp_param_runner_##fn
#else
/*
 * KUnit before 5.11 (5.10): besides parameterised cases, it has no
 * kunit_kcalloc(), and its comparisons insist that both sides have the
 * same type (u64 against 1 fails to build). These compare the values
 * as the later KUnit does, each side evaluated once.
 */
static inline void *kunit_kcalloc(struct kunit *test, size_t n, size_t size,
				  gfp_t gfp)
{
	return kunit_kzalloc(test, array_size(n, size), gfp);
}

#define KMP_KUNIT_CMP(how, test, op, l, r, fmt, ...)			\
	do {								\
		typeof(l) __kl = (l);					\
		typeof(r) __kr = (r);					\
									\
		KUNIT_##how##_TRUE_MSG(test, __kl op __kr,		\
			"%s " #op " %s: %lld vs %lld " fmt, #l, #r,	\
			(long long)__kl, (long long)__kr, ##__VA_ARGS__); \
	} while (0)
#undef KUNIT_EXPECT_EQ
#undef KUNIT_EXPECT_EQ_MSG
#undef KUNIT_EXPECT_GE
#undef KUNIT_EXPECT_GE_MSG
#undef KUNIT_EXPECT_GT
#undef KUNIT_EXPECT_LT
#undef KUNIT_ASSERT_EQ
#undef KUNIT_ASSERT_GT
#define KUNIT_EXPECT_EQ(t, l, r)	KMP_KUNIT_CMP(EXPECT, t, ==, l, r, "")
#define KUNIT_EXPECT_EQ_MSG(t, l, r, fmt, ...)				\
	KMP_KUNIT_CMP(EXPECT, t, ==, l, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_GE(t, l, r)	KMP_KUNIT_CMP(EXPECT, t, >=, l, r, "")
#define KUNIT_EXPECT_GE_MSG(t, l, r, fmt, ...)				\
	KMP_KUNIT_CMP(EXPECT, t, >=, l, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_GT(t, l, r)	KMP_KUNIT_CMP(EXPECT, t, >, l, r, "")
#define KUNIT_EXPECT_LT(t, l, r)	KMP_KUNIT_CMP(EXPECT, t, <, l, r, "")
#define KUNIT_ASSERT_EQ(t, l, r)	KMP_KUNIT_CMP(ASSERT, t, ==, l, r, "")
#define KUNIT_ASSERT_GT(t, l, r)	KMP_KUNIT_CMP(ASSERT, t, >, l, r, "")

static const void *kmp_test_param __maybe_unused;
#define KUNIT_PARAM_DESC_SIZE		128
#define KUNIT_ARRAY_PARAM(name, array, get_desc)			\
	static const void *name##_gen_params(const void *prev, char *desc) \
	{								\
		typeof(&(array)[0]) next = prev ?			\
			((typeof(next))prev) + 1 : (array);		\
		void (*describe)(typeof(next), char *) = get_desc;	\
									\
		if (next - (array) >= ARRAY_SIZE(array))		\
			return NULL;					\
		if (describe)						\
			describe(next, desc);				\
		return next;						\
	}
#define KMP_TEST_PARAM(test)		((void)(test), kmp_test_param)
#define KMP_CASE_PARAM(fn, gen)		KUNIT_CASE(fn##_all)
#define KMP_PARAM_RUNNER(fn, gen)					\
	static void fn##_all(struct kunit *test)			\
	{								\
		char desc[KUNIT_PARAM_DESC_SIZE] = "";			\
		const void *p = NULL;					\
									\
		while ((p = gen(p, desc))) {				\
			bool ok = test->success;			\
									\
			kmp_test_param = p;				\
			fn(test);					\
			if (ok && !test->success)			\
				kunit_info(test, "failed with %s", desc); \
		}							\
	}								\
	struct kmp_param_runner_##fn
#endif
#endif /* _KUNIT_TEST_H */
