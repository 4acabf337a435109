// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the clock of lifetimes and ages, in ns since load.
 *
 * The cycle counter scaled by mult/shift where there is one (compat.h;
 * read inline where the kernel's read is the bare register, clock.h),
 * local_clock() elsewhere, or, in the test build alone (KMP_TEST_HOOKS), a
 * clock of the KUnit suites' own. Read only while histograms or lifetimes
 * are on (kmp_mode).
 *
 * Notes on locking: none. kmp_clock is set with WRITE_ONCE() by the test
 * hook and read with READ_ONCE(); the scale and the counter's keys are
 * set once at load, before any probe is attached.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/clocksource.h>
#include <linux/kallsyms.h>
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <linux/string.h>

#include "clock.h"

#if KMP_HAVE_CYCLES
u64 kmp_epoch;
u32 kmp_mult, kmp_shift;
DEFINE_STATIC_KEY_FALSE(kmp_cntvct_key);
DEFINE_STATIC_KEY_FALSE(kmp_cntpct_key);

/*
 * Whether the kernel reads the counter with nothing but the register read
 * (arch_counter_get_cntvct() or _cntpct(), which it picks where no
 * erratum needs a workaround): then the clock reads the register itself,
 * without the indirect call. Any other reader (the _stable ones of the
 * errata, the memory-mapped one), or no name to tell by, is called.
 */
static void kmp_counter_init(void)
{
	char name[KSYM_SYMBOL_LEN];

	sprint_symbol_no_offset(name, (unsigned long)arch_timer_read_counter);
	if (!strcmp(name, "arch_counter_get_cntvct"))
		static_branch_enable(&kmp_cntvct_key);
	else if (!strcmp(name, "arch_counter_get_cntpct"))
		static_branch_enable(&kmp_cntpct_key);
}
#endif

u64 kmp_now(void)
{
	return __kmp_now();
}

void kmp_clock_init(void)
{
#if KMP_HAVE_CYCLES
	u32 rate = kmp_cycles_rate();

	if (!rate)
		return;
	/* Scaled without overflow for ten years. */
	clocks_calc_mult_shift(&kmp_mult, &kmp_shift, rate, NSEC_PER_SEC,
			       10 * 365 * 24 * 3600);
	kmp_counter_init();
	kmp_epoch = kmp_counter();
#endif
}
