/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the KUnit suites of kmemprof_test.ko. */
#ifndef _KMEMPROF_TEST_H
#define _KMEMPROF_TEST_H

struct kunit;
struct kunit_suite;

/* The kernel runs with slub_debug= (set by the rig): see core_test.c. */
extern bool kmp_test_slub_debug;

/* The suites, registered together in suites.c. */
extern struct kunit_suite kmp_probe_suite;
extern struct kunit_suite kmp_core_suite;
extern struct kunit_suite kmp_hist_suite;
extern struct kunit_suite kmp_knobs_suite;
extern struct kunit_suite kmp_bulk_suite;
extern struct kunit_suite kmp_procfs_suite;
extern struct kunit_suite kmp_walk_suite;
extern struct kunit_suite kmp_keys_suite;
extern struct kunit_suite kmp_nmi_suite;
extern struct kunit_suite kmp_split_suite;
extern struct kunit_suite kmp_names_suite;
extern struct kunit_suite kmp_owners_suite;

/* helpers.c */
void kmp_test_fn_range(struct kunit *test, const void *fn,
		       unsigned long *start, unsigned long *end);

#endif /* _KMEMPROF_TEST_H */
