// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the clock of lifetimes and ages, in ns since load.
 *
 * The cycle counter scaled by mult/shift where there is one (compat.h),
 * local_clock() elsewhere, or, in the test build alone (KMP_TEST_HOOKS), a
 * clock of the KUnit suites' own. Read only while histograms or lifetimes
 * are on (kmp_mode).
 *
 * Notes on locking: none. kmp_clock is set with WRITE_ONCE() by the test
 * hook and read with READ_ONCE(); the scale is set once at load, before
 * any probe is attached.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/clocksource.h>
#include <linux/math64.h>
#include <linux/sched/clock.h>

#include "hist.h"

#if KMP_TEST_HOOKS
kmp_clock_t *kmp_clock;
#endif

#if KMP_HAVE_CYCLES
u64 kmp_epoch;
u32 kmp_mult, kmp_shift;
#endif

u64 kmp_now(void)
{
	return __kmp_now();
}

#if KMP_TEST_HOOKS
/* For the KUnit suites (testhooks.c): a clock of their own; NULL resets. */
void kmp_clock_set(kmp_clock_t *clock)
{
	WRITE_ONCE(kmp_clock, clock);
}
#endif

void kmp_clock_init(void)
{
#if KMP_HAVE_CYCLES
	u32 rate = kmp_cycles_rate();

	if (!rate)
		return;
	/* Scaled without overflow for ten years. */
	clocks_calc_mult_shift(&kmp_mult, &kmp_shift, rate, NSEC_PER_SEC,
			       10 * 365 * 24 * 3600);
	kmp_epoch = kmp_cycles();
#endif
}
