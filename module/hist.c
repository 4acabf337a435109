// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: size and lifetime histograms, cross-CPU and cross-cluster
 * frees, per tag and per CPU. The clock is clock.c's, the clusters
 * topology.c's.
 *
 * Buckets are log2:
 * - sizes: bucket 0 holds <= 8 bytes, bucket b holds (2^(b+2), 2^(b+3)]
 *   bytes, and the last one everything over 2 MiB. Page tags use the
 *   order as the bucket.
 * - lifetimes, in units of 1024 ns (about a microsecond): bucket 0 holds
 *   < 1 unit, bucket b holds [2^(b-1), 2^b) units, and the last one
 *   everything from 2^34 units (about 4.9 hours) on.
 *
 * Histograms are kept only while the hist knob is on (kmp_mode). Per-tag
 * histograms come from a pool of max_hist slots allocated the first time
 * histograms are turned on (kmp_hist_init()), handed
 * out to each tag at its first event with histograms on (cmpxchg on
 * ->hist: a slot lost to a race stays unused); a tag that finds the pool
 * used up has none, and drop.hist counts it. Each slot is per CPU, in u32 counters:
 * a counter that reaches 2^30 is folded into the slot's shared u64
 * (atomic64) counter, so per-CPU memory stays small and no count is lost.
 *
 * Notes on locking: none. Per-CPU counters change with plain adds on this
 * CPU, with interrupts off (see kmp_add()); the fold is atomic. A counter
 * read while it is being folded may be off by the folded amount for that
 * instant, never for good. Readers sum each CPU's counter as s32, since a
 * take-back (d = -1) may briefly leave one below zero.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hist.h"
#include "stat.h"
#include "tables.h"

static_assert(sizeof(struct kmp_hist_totals) == KMP_HIST_N * sizeof(u64));

unsigned int kmp_max_hist = 2048;

struct kmp_hist __percpu **kmp_hist_blocks;
static unsigned int kmp_hist_nblocks;
atomic64_t *kmp_hist_fold;
static atomic_t kmp_nhist = ATOMIC_INIT(0);

/*
 * The histogram slot in *@word (a tag's ->hist), taken from the pool at its
 * first use; or KMP_NIL.
 */
u32 kmp_hist_claim(u32 *word)
{
	u32 h = READ_ONCE(*word), old;
	int idx;

	if (likely(h != KMP_HIST_UNSET))
		return h;
	idx = kmp_pool_reserve(&kmp_nhist, kmp_max_hist);
	if (idx < 0)
		kmp_stat_inc(KMP_ST_DROP_HIST);
	h = idx < 0 ? KMP_NIL : idx;
	/*
	 * cmpxchg(): try_cmpxchg() of a plain word is not in 5.10. Its
	 * expected value in a variable, or sparse warns of the macro's casts.
	 */
	old = KMP_HIST_UNSET;
	old = cmpxchg(word, old, h);
	return old == KMP_HIST_UNSET ? h : old;
}

u32 kmp_hist_used(void)
{
	return min_t(u32, atomic_read(&kmp_nhist), kmp_max_hist);
}

/* Slot @h's histograms, summed over the CPUs, into @t; false for KMP_NIL. */
bool kmp_hist_sum(u32 h, struct kmp_hist_totals *t)
{
	u64 *out = (u64 *)t;
	unsigned int f;
	int cpu;

	if (h == KMP_NIL)
		return false;
	for (f = 0; f < KMP_HIST_N; f++) {
		s64 sum = atomic64_read(&kmp_hist_fold[h * KMP_HIST_N + f]);

		for_each_possible_cpu(cpu) {
			const u32 *c = (const u32 *)per_cpu_ptr(kmp_hist_slot(h),
								cpu);

			sum += (s32)READ_ONCE(c[f]);
		}
		out[f] = sum > 0 ? sum : 0;
	}
	return true;
}

/* Only with the probes detached. */
void kmp_hist_reset(void)
{
	unsigned int b;
	int cpu;

	for (b = 0; b < kmp_hist_nblocks; b++)
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(kmp_hist_blocks[b], cpu), 0,
			       sizeof(struct kmp_hist) * KMP_HIST_BLOCK);
	if (kmp_hist_fold)
		memset(kmp_hist_fold, 0,
		       array_size(kmp_max_hist,
				  KMP_HIST_N * sizeof(atomic64_t)));
}

size_t kmp_hist_memory(void)
{
	if (!kmp_hist_fold)
		return 0;
	return (size_t)kmp_hist_nblocks * KMP_HIST_BLOCK *
	       sizeof(struct kmp_hist) * num_possible_cpus() +
	       (size_t)kmp_max_hist * KMP_HIST_N * sizeof(atomic64_t);
}

void kmp_hist_areas(kmp_area_fn fn, void *priv)
{
	unsigned int i;
	int cpu;

	if (!kmp_hist_fold)
		return;
	fn(kmp_hist_fold, array_size(kmp_max_hist,
				     KMP_HIST_N * sizeof(atomic64_t)), priv);
	for (i = 0; i < kmp_hist_nblocks; i++)
		for_each_possible_cpu(cpu)
			fn(per_cpu_ptr(kmp_hist_blocks[i], cpu),
			   sizeof(struct kmp_hist) * KMP_HIST_BLOCK, priv);
}

/*
 * The pool, at the first time histograms are turned on (with
 * kmp_control_lock held), and kept until unload. Probes read the pool
 * only once they see KMP_M_HIST in kmp_mode, which is set after this
 * returns: the grace period orders the pool's stores before it. A probe
 * is an RCU reader (interrupts off); one that sees the new mode did not
 * end before the grace period did, so it began after it started, and
 * sees what was stored before.
 */
int kmp_hist_init(void)
{
	unsigned int i;

	if (kmp_hist_fold)
		return 0;
	kmp_hist_nblocks = DIV_ROUND_UP(kmp_max_hist, KMP_HIST_BLOCK);
	kmp_hist_blocks = kcalloc(kmp_hist_nblocks, sizeof(*kmp_hist_blocks),
				  GFP_KERNEL);
	kmp_hist_fold = vzalloc(array_size(kmp_max_hist,
					   KMP_HIST_N * sizeof(atomic64_t)));
	if (!kmp_hist_blocks || !kmp_hist_fold)
		goto fail;
	for (i = 0; i < kmp_hist_nblocks; i++) {
		kmp_hist_blocks[i] = __alloc_percpu(sizeof(struct kmp_hist) *
						    KMP_HIST_BLOCK,
						    __alignof__(u32));
		if (!kmp_hist_blocks[i])
			goto fail;
	}
	synchronize_rcu();
	return 0;
fail:
	kmp_hist_exit();
	return -ENOMEM;
}

void kmp_hist_exit(void)
{
	unsigned int i;

	if (kmp_hist_blocks)
		for (i = 0; i < kmp_hist_nblocks; i++)
			free_percpu(kmp_hist_blocks[i]);
	kfree(kmp_hist_blocks);
	vfree(kmp_hist_fold);
	kmp_hist_blocks = NULL;
	kmp_hist_fold = NULL;
	kmp_hist_nblocks = 0;
	atomic_set(&kmp_nhist, 0);
}
