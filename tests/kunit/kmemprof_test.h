/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the KUnit suites of kmemprof_test.ko. */
#ifndef _KMEMPROF_TEST_H
#define _KMEMPROF_TEST_H

struct kunit;

/* The kernel runs with slub_debug= (set by the rig): see core_test.c. */
extern bool kmp_test_slub_debug;

/* helpers.c */
void kmp_test_fn_range(struct kunit *test, const void *fn,
		       unsigned long *start, unsigned long *end);

#endif /* _KMEMPROF_TEST_H */
