/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the histograms' and the clock's inline half, for the fast
 * paths (probe.h) and hist.c alike. See hist.c for the buckets and the
 * notes on locking, clock.c for the clock.
 */
#ifndef _KMEMPROF_HIST_H
#define _KMEMPROF_HIST_H

#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>

#include "internal.h"

#define KMP_HIST_BLOCK	64
#define KMP_FOLD	BIT(30)

struct kmp_hist {
	u32 size[KMP_SIZE_BUCKETS];
	u32 req[KMP_SIZE_BUCKETS];
	u32 life[KMP_LIFE_BUCKETS];
	u32 xcpu;
	u32 xcluster;
};

#define KMP_HIST_N	(sizeof(struct kmp_hist) / sizeof(u32))
#define KMP_F(member)	(offsetof(struct kmp_hist, member) / sizeof(u32))

extern struct kmp_hist __percpu **kmp_hist_blocks;
extern atomic64_t *kmp_hist_fold;	/* max_hist * KMP_HIST_N */
extern int *kmp_cluster;		/* topology.c */

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
#if KMP_TEST_HOOKS
extern kmp_clock_t *kmp_clock;
#endif

/* kmp_now() inline: the counter read and scaled, a multiply and a shift. */
static __always_inline u64 __kmp_now(void)
{
#if KMP_TEST_HOOKS
	kmp_clock_t *clock = READ_ONCE(kmp_clock);

	if (unlikely(clock))
		return clock();
#endif
#if KMP_HAVE_CYCLES
	if (likely(kmp_mult))
		return mul_u64_u32_shr(kmp_counter() - kmp_epoch, kmp_mult,
				       kmp_shift);
#endif
	return local_clock();
}

static __always_inline struct kmp_hist __percpu *kmp_hist_slot(u32 slot)
{
	return kmp_hist_blocks[slot / KMP_HIST_BLOCK] + slot % KMP_HIST_BLOCK;
}

/*
 * Add @d to field @f (a u32 index into struct kmp_hist) of @slot, on this
 * CPU with interrupts off; a counter that reaches KMP_FOLD goes into the
 * shared one.
 */
static __always_inline void kmp_hist_add(u32 slot, unsigned int f, int d)
{
	u32 *c = (u32 *)this_cpu_ptr(kmp_hist_slot(slot)) + f;
	u32 v = *c + d;

	if (unlikely(v >= KMP_FOLD && v < 2 * KMP_FOLD)) {
		atomic64_add(v, &kmp_hist_fold[slot * KMP_HIST_N + f]);
		v = 0;
	}
	WRITE_ONCE(*c, v);
}

/* An allocation's sizes into histogram slot @h. */
static __always_inline void kmp_hist_add_sizes(u32 h, enum kmp_kind kind,
					       size_t bytes, size_t req, int d)
{
	kmp_hist_add(h, KMP_F(size) + kmp_size_bucket(kind, bytes), d);
	kmp_hist_add(h, KMP_F(req) + kmp_size_bucket(kind, req), d);
}

/*
 * A paired free into histogram slot @h: the object's lifetime (allocated
 * at @time, ns, on @cpu) and whether it crossed CPUs or clusters.
 */
static __always_inline void kmp_hist_add_free(u32 h, u64 time, int cpu,
					      u64 now)
{
	int here = raw_smp_processor_id();

	kmp_hist_add(h, KMP_F(life) +
		     kmp_life_bucket(now > time ? now - time : 0), 1);
	if (here != cpu) {
		kmp_hist_add(h, KMP_F(xcpu), 1);
		if (cpu >= nr_cpu_ids || kmp_cluster[here] != kmp_cluster[cpu])
			kmp_hist_add(h, KMP_F(xcluster), 1);
	}
}

#endif /* _KMEMPROF_HIST_H */
