// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the KUnit suites of kmemprof_test.ko. */
#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/string.h>

#include <kmemprof/compat.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

/* The [start, end) range of the function at @fn, from kallsyms. */
void kmp_test_fn_range(struct kunit *test, const void *fn,
		       unsigned long *start, unsigned long *end)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long off, size;
	const char *plus;
	int n;

	sprint_symbol(buf, (unsigned long)fn);
	plus = strchr(buf, '+');
	KMP_ASSERT_NOT_NULL(test, plus);
	n = sscanf(plus, "+%lx/%lx", &off, &size);
	KMP_ASSERT_EQ(test, n, 2);
	*start = (unsigned long)fn - off;
	*end = *start + size;
}
