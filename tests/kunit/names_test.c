// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a module's addresses are named from callsite.c's index of the
 * module's symbols (a binary search), exactly as the kernel's own lookup,
 * sprint_symbol() (a linear search of them), names them: the first
 * instruction, the second and the last of every function in this module's
 * text, the first function and the last among them, and a function before
 * a gap (the padding before an aligned function, which the kernel counts
 * into the size of the function before it). The kernel's own text is
 * named as before, by sprint_symbol().
 */
#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/string.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

#define NAMES_GAP	256

/* A function and, past some padding, the next one. */
static noinline void names_before_gap(void)
{
	asm volatile("");
}

static noinline __aligned(NAMES_GAP) void names_after_gap(void)
{
	asm volatile("");
}

/*
 * Two char arrays, as pointers: 5.10's KUNIT_EXPECT_STREQ() copies its
 * operands by typeof(), which an array cannot be initialized from.
 */
#define NAMES_STREQ(test, a, b) \
	KUNIT_EXPECT_STREQ(test, (const char *)(a), (const char *)(b))

struct names_buf {
	char buf[KSYM_SYMBOL_LEN];
	char kernel[KSYM_SYMBOL_LEN];
};

/*
 * Whether callsite.c can index this module's symbols: it finds modules
 * through module_kset, which the module joins at mod_sysfs_setup(). KUnit
 * runs a module's suites from the module notifier: at COMING on 6.1,
 * before that (the names then come from the kernel's own lookup, exact
 * but not indexed), at LIVE on 6.12.
 */
static bool names_indexable(void)
{
	return THIS_MODULE->mkobj.kobj.state_in_sysfs;
}

/* @addr named through the index, and the same as the kernel names it. */
static void names_expect(struct kunit *test, struct names_buf *b,
			 unsigned long addr)
{
	bool indexed;
	int len;

	len = kmemprof_sym_text(addr, b->buf, b->kernel, &indexed);
	if (names_indexable())
		KUNIT_EXPECT_TRUE(test, indexed);
	NAMES_STREQ(test, b->buf, b->kernel);
	KMP_EXPECT_EQ(test, len, (int)strlen(b->kernel));
}

/* Every function of this module's text, from the first to the last. */
static void names_every_function(struct kunit *test)
{
	unsigned long base = KMP_MOD_TEXT_BASE(THIS_MODULE);
	unsigned long end = base + KMP_MOD_TEXT_SIZE(THIS_MODULE);
	unsigned long addr, off, size, first = 0, last = 0;
	struct names_buf *b;
	unsigned int n = 0;
	char *plus;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, b);
	for (addr = base; addr < end; addr += size) {
		sprint_symbol(b->kernel, addr);
		plus = strchr(b->kernel, '+');
		if (!plus || sscanf(plus, "+%lx/%lx", &off, &size) != 2 ||
		    off) {
			/* no symbol here, or not at its start: the next word */
			size = 4;
			continue;
		}
		if (!first)
			first = addr;
		last = addr;
		names_expect(test, b, addr);
		if (size > 4)
			names_expect(test, b, addr + 4);
		names_expect(test, b, addr + size - 4);
		n++;
		if (kmp_kunit_failed(test))
			return;
	}
	kunit_info(test, "%u functions, %lu bytes of text\n", n, end - base);
	KMP_ASSERT_GT(test, n, 2U);
	/* the walk went from the first function to the end of the text */
	KMP_EXPECT_EQ(test, addr, end);
	sprint_symbol(b->kernel, first);
	kunit_info(test, "first: %s\n", b->kernel);
	sprint_symbol(b->kernel, last);
	kunit_info(test, "last: %s\n", b->kernel);
}

/* The size of the function before a gap runs to the next symbol. */
static void names_gap(struct kunit *test)
{
	unsigned long fn = (unsigned long)names_before_gap;
	unsigned long next = (unsigned long)names_after_gap;
	char want[KSYM_SYMBOL_LEN];
	struct names_buf *b;
	bool indexed;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, b);
	names_before_gap();
	names_after_gap();
	/* the compiler put nothing between them, and left a gap */
	if (next < fn || next - fn > 2 * NAMES_GAP) {
		kmp_kunit_skip(test, "the functions are apart");
		return;
	}
	scnprintf(want, sizeof(want), "names_before_gap+0x0/%#lx [%s]",
		  next - fn, THIS_MODULE->name);
	kmemprof_sym_text(fn, b->buf, b->kernel, &indexed);
	if (names_indexable())
		KUNIT_EXPECT_TRUE(test, indexed);
	NAMES_STREQ(test, b->buf, want);
	NAMES_STREQ(test, b->kernel, want);
	scnprintf(want, sizeof(want), "names_before_gap+%#lx/%#lx [%s]",
		  next - fn - 4, next - fn, THIS_MODULE->name);
	kmemprof_sym_text(next - 4, b->buf, b->kernel, &indexed);
	NAMES_STREQ(test, b->buf, want);
	NAMES_STREQ(test, b->kernel, want);
}

/* The kernel's own text: not a module's, named by sprint_symbol(). */
static void names_kernel_text(struct kunit *test)
{
	unsigned long addr = (unsigned long)kfree + 4;
	struct names_buf *b;
	bool indexed;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, b);
	kmemprof_sym_text(addr, b->buf, b->kernel, &indexed);
	KUNIT_EXPECT_FALSE(test, indexed);
	NAMES_STREQ(test, b->buf, b->kernel);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(b->buf, "kfree+0x4/"));
}

static struct kunit_case names_cases[] = {
	KUNIT_CASE(names_every_function),
	KUNIT_CASE(names_gap),
	KUNIT_CASE(names_kernel_text),
	{}
};

struct kunit_suite kmp_names_suite = {
	.name = "kmemprof_names",
	.test_cases = names_cases,
};
