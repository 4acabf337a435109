/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: clock.c's inline half, the clock of lifetimes and ages read
 * where the fast paths need it (probes.h). See clock.c for the clock and
 * its notes on locking.
 */
#ifndef _KMEMPROF_CLOCK_H
#define _KMEMPROF_CLOCK_H

#include <linux/math64.h>
#include <linux/sched/clock.h>

#include "internal.h"
#include "testpoints.h"

#if KMP_HAVE_CYCLES
extern u64 kmp_epoch;
extern u32 kmp_mult, kmp_shift;
DECLARE_STATIC_KEY_FALSE(kmp_cntvct_key);
DECLARE_STATIC_KEY_FALSE(kmp_cntpct_key);

/*
 * The counter, as the kernel's arch_timer_read_counter() reads it, but
 * inline where that is the plain register read (clock.c). No ISB: the
 * read may be taken a few instructions early, which a lifetime does not
 * see.
 */
static __always_inline u64 kmp_counter(void)
{
	if (static_branch_likely(&kmp_cntvct_key))
		return read_sysreg(cntvct_el0);
	if (static_branch_unlikely(&kmp_cntpct_key))
		return read_sysreg(cntpct_el0);
	return kmp_cycles();
}
#endif

/* kmp_now() inline: the counter read and scaled, a multiply and a shift. */
static __always_inline u64 __kmp_now(void)
{
	kmp_clock_t *clock = kmp_test_clock();

	if (unlikely(clock))
		return clock();
#if KMP_HAVE_CYCLES
	if (likely(kmp_mult))
		return mul_u64_u32_shr(kmp_counter() - kmp_epoch, kmp_mult,
				       kmp_shift);
#endif
	return local_clock();
}

#endif /* _KMEMPROF_CLOCK_H */
