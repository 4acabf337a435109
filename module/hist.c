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
#include "tags.h"

static_assert(sizeof(struct kmp_hist_totals) == KMP_HIST_N * sizeof(u64));

unsigned int kmp_max_hist = 2048;

struct kmp_hist __percpu **kmp_hist_blocks;
static unsigned int kmp_hist_nblocks;
atomic64_t *kmp_hist_fold;
static atomic_t kmp_nhist = ATOMIC_INIT(0);

/* The tag's slot, taken from the pool at its first use; or KMP_NIL. */
static u32 kmp_hist_slot_of(struct kmp_tag *tag)
{
	u32 h = READ_ONCE(tag->hist), old;
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
	old = cmpxchg(&tag->hist, old, h);
	return old == KMP_HIST_UNSET ? h : old;
}

/* A tag's slot for the readers, or KMP_NIL. */
static u32 kmp_hist_read_slot(const struct kmp_tag *tag)
{
	u32 h = READ_ONCE(tag->hist);

	return h == KMP_HIST_UNSET ? KMP_NIL : h;
}

u32 kmp_hist_used(void)
{
	return min_t(u32, atomic_read(&kmp_nhist), kmp_max_hist);
}

/* Count an allocation (@d = 1), or take one back (@d = -1). */
void kmp_hist_alloc(struct kmp_tag *tag, size_t bytes, size_t req, int d)
{
	u32 h = kmp_hist_slot_of(tag);

	if (h == KMP_NIL)
		return;
	kmp_hist_add_sizes(h, tag->kind, bytes, req, d);
}

void kmp_hist_free(struct kmp_tag *tag, const struct kmp_obj *obj, u64 now)
{
	u32 h = kmp_hist_slot_of(tag);

	if (h != KMP_NIL)
		kmp_hist_add_free(h, obj->time, obj->cpu, now);
}

/* A tag's histograms into @t; false if the tag has none. */
bool kmp_hist_tag(const struct kmp_tag *tag, struct kmp_hist_totals *t)
{
	u32 h = kmp_hist_read_slot(tag);
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

/* The histograms of all the tags of @kind that have them, summed. */
void kmp_hist_global(enum kmp_kind kind, struct kmp_hist_totals *t)
{
	struct kmp_hist_totals *one = kmalloc(sizeof(*one), GFP_KERNEL);
	u64 *out = (u64 *)t, *in = (u64 *)one;
	u32 idx, used = kmp_tags_used();
	unsigned int f;

	memset(t, 0, sizeof(*t));
	if (!one)
		return;
	for (idx = 0; idx < used; idx++) {
		const struct kmp_tag *tag = kmp_tag_at(idx);

		if (!kmp_tag_ready(idx) || tag->kind != kind ||
		    !kmp_hist_tag(tag, one))
			continue;
		for (f = 0; f < KMP_HIST_N; f++)
			out[f] += in[f];
	}
	kfree(one);
}

/*
 * One CPU's share: allocations and frees from every tag's counters, and
 * frees across CPUs and clusters from the tags that have histograms (a
 * count folded at 2^30 keeps no CPU).
 */
void kmp_cpu_totals(int cpu, struct kmp_cpu_totals *t)
{
	u32 idx, used = kmp_tags_used();

	memset(t, 0, sizeof(*t));
	for (idx = 0; idx < used; idx++) {
		const struct kmp_tag *tag = kmp_tag_at(idx);
		const struct kmp_counters *c;
		const struct kmp_hist *h;
		u32 slot;

		if (!kmp_tag_ready(idx))
			continue;
		c = per_cpu_ptr(kmp_tag_counters(idx), cpu);
		t->allocs += READ_ONCE(c->allocs);
		t->frees += READ_ONCE(c->frees);
		slot = kmp_hist_read_slot(tag);
		if (slot == KMP_NIL)
			continue;
		h = per_cpu_ptr(kmp_hist_slot(slot), cpu);
		t->remote += (s32)READ_ONCE(h->xcpu);
		t->xcluster += (s32)READ_ONCE(h->xcluster);
	}
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
