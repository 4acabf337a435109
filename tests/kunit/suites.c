// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof_test.ko: its KUnit suites, registered in one place. Before 5.12
 * kunit_test_suites() defines the module's init and exit, so a module can
 * call it only once.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include <kmemprof/compat.h>

#include "kmemprof_test.h"

/* kmemprof's hooks for its tests are in KUnit's namespace (compat.h). */
KMP_IMPORT_TEST_HOOKS();

kunit_test_suites(&kmp_probe_suite, &kmp_core_suite, &kmp_hist_suite,
		  &kmp_knobs_suite, &kmp_bulk_suite, &kmp_procfs_suite,
		  &kmp_walk_suite, &kmp_keys_suite, &kmp_nmi_suite,
		  &kmp_split_suite, &kmp_names_suite, &kmp_owners_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for kmemprof");
