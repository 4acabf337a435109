/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differences between the KUnits the suites build with, as kmp_
 * wrappers. 5.10's KUnit lacks kunit_skip() (5.16), kunit_kcalloc() and
 * KUNIT_ASSERT_NOT_NULL() (5.17), and its comparisons insist that both
 * sides have the same type (u64 against 1 fails to build): KMP_EXPECT_*
 * compare the values as the later KUnit does, each side evaluated once.
 *
 * Parameterised cases (5.11) are not used: a case loops over its table,
 * as lib/overflow_kunit.c does, and names the entry in its messages.
 */
#ifndef _KMP_KUNIT_H
#define _KMP_KUNIT_H

#include <kunit/test.h>
#include <linux/overflow.h>

#ifdef KUNIT_ASSERT_NOT_NULL
#define KMP_ASSERT_NOT_NULL(test, ptr)	KUNIT_ASSERT_NOT_NULL(test, ptr)
#else
#define KMP_ASSERT_NOT_NULL(test, ptr)					\
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ptr)
#endif

/*
 * No skipping in 5.10: the case says why and passes (callers return).
 * kmp_kunit_failed(): whether the case has failed so far; a bool until
 * the status that came with skipping.
 */
#ifdef kunit_skip
#define kmp_kunit_skip(test, fmt, ...)					\
	kunit_skip(test, fmt, ##__VA_ARGS__)
#define kmp_kunit_failed(test)	((test)->status == KUNIT_FAILURE)
#else
#define kmp_kunit_failed(test)	(!(test)->success)
#define kmp_kunit_skip(test, fmt, ...)					\
	kunit_info(test, "skipped: " fmt, ##__VA_ARGS__)
#endif

/* KUNIT_CASE_PARAM came with the KUnit that compares any two types. */
#ifdef KUNIT_CASE_PARAM
#define kmp_kunit_kcalloc(test, n, size, gfp)				\
	kunit_kcalloc(test, n, size, gfp)
#define KMP_EXPECT_EQ(t, l, r)		KUNIT_EXPECT_EQ(t, l, r)
#define KMP_EXPECT_EQ_MSG(t, l, r, fmt, ...)				\
	KUNIT_EXPECT_EQ_MSG(t, l, r, fmt, ##__VA_ARGS__)
#define KMP_EXPECT_GE(t, l, r)		KUNIT_EXPECT_GE(t, l, r)
#define KMP_EXPECT_GE_MSG(t, l, r, fmt, ...)				\
	KUNIT_EXPECT_GE_MSG(t, l, r, fmt, ##__VA_ARGS__)
#define KMP_EXPECT_GT(t, l, r)		KUNIT_EXPECT_GT(t, l, r)
#define KMP_EXPECT_LT(t, l, r)		KUNIT_EXPECT_LT(t, l, r)
#define KMP_ASSERT_EQ(t, l, r)		KUNIT_ASSERT_EQ(t, l, r)
#define KMP_ASSERT_GT(t, l, r)		KUNIT_ASSERT_GT(t, l, r)
#else
static inline void *kmp_kunit_kcalloc(struct kunit *test, size_t n,
				      size_t size, gfp_t gfp)
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
#define KMP_EXPECT_EQ(t, l, r)		KMP_KUNIT_CMP(EXPECT, t, ==, l, r, "")
#define KMP_EXPECT_EQ_MSG(t, l, r, fmt, ...)				\
	KMP_KUNIT_CMP(EXPECT, t, ==, l, r, fmt, ##__VA_ARGS__)
#define KMP_EXPECT_GE(t, l, r)		KMP_KUNIT_CMP(EXPECT, t, >=, l, r, "")
#define KMP_EXPECT_GE_MSG(t, l, r, fmt, ...)				\
	KMP_KUNIT_CMP(EXPECT, t, >=, l, r, fmt, ##__VA_ARGS__)
#define KMP_EXPECT_GT(t, l, r)		KMP_KUNIT_CMP(EXPECT, t, >, l, r, "")
#define KMP_EXPECT_LT(t, l, r)		KMP_KUNIT_CMP(EXPECT, t, <, l, r, "")
#define KMP_ASSERT_EQ(t, l, r)		KMP_KUNIT_CMP(ASSERT, t, ==, l, r, "")
#define KMP_ASSERT_GT(t, l, r)		KMP_KUNIT_CMP(ASSERT, t, >, l, r, "")
#endif

#endif /* _KMP_KUNIT_H */
