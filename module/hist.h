/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the histograms' inline half, for the fast paths (probes.h) and
 * hist.c alike. See hist.c for the buckets and the notes on locking.
 */
#ifndef _KMEMPROF_HIST_H
#define _KMEMPROF_HIST_H

#include <linux/percpu.h>

#include "internal.h"
#include "topology.h"

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
