/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: stacks.c's inline half, for the fast paths (probes.h) and
 * stacks.c alike: the hash and the lock-free lookup of a record, and the
 * bounded frame-record walk that takes a sampled stack, and key_depth's
 * callers, on the fast path (kmp_walk_fast(), probes.h, says when it
 * does). See stacks.c for the store and its notes on locking.
 *
 * KMP_STACK_SEARCH: the general path unwinds KMP_SITE_SEARCH (12) +
 * max(stack_depth, key_depth + 1) frames, so a call site at an index
 * above 12 there gets a stack or callers cut short. Its own frames come
 * first: stack_trace_save(), kmp_unwind(), kmp_account_alloc()
 * (kmp_find_site() inlined, else one more), kmp_*_alloc_slow(), the copy
 * of the fast path that called it (in kmp_*_alloc_opts()) and the probe,
 * whose return address is at index 6 (7); the slab walk starts
 * at the copy's record, whose return address is at index 5 (6), the page
 * walk at the probe's. So a site within KMP_STACK_SEARCH (5) records of
 * the walk's first is at index 12 at most there, and its stack and
 * callers there have all the frames asked for, or end where the walk's do.
 */
#ifndef _KMEMPROF_STACKS_H
#define _KMEMPROF_STACKS_H

#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/sched.h>

#include "internal.h"
#include "tables.h"

#define KMP_STACK_SEARCH	5
#define KMP_STACK_NO_CTR	U64_MAX

extern struct kmp_stack *kmp_stack_pool;
extern u32 *kmp_stack_heads;
extern unsigned int kmp_stack_bits;
DECLARE_STATIC_KEY_FALSE(kmp_stack_key);
DECLARE_PER_CPU(u32, kmp_stack_ctr);

struct kmp_stack_buf {
	unsigned long e[KMP_STACK_DEPTH_MAX];
};

DECLARE_PER_CPU(struct kmp_stack_buf, kmp_stack_buf);

/*
 * The fast paths walk the frame records (kmp_walk_fast()): stack_depth or
 * key_depth on, sample_rate off.
 */
#if KMP_TEST_HOOKS
extern int kmp_stacked_test;		/* stacks.c */
bool kmp_stacked_test_off(void);
#endif

static __always_inline bool kmp_stack_key_on(void)
{
	if (!static_branch_unlikely(&kmp_stack_key))
		return false;
#if KMP_TEST_HOOKS
	/* the key turned off from a test's chosen test of it on */
	if (unlikely(READ_ONCE(kmp_stacked_test)) && kmp_stacked_test_off())
		return false;
#endif
	return true;
}

/*
 * The hash of a (tag, stack): each frame's halves folded into the hash,
 * times the 32-bit golden ratio; buckets take the top bits.
 */
static __always_inline u32 kmp_stack_hash(u32 tag, const unsigned long *frames,
					  unsigned int n)
{
	u32 h = tag * GOLDEN_RATIO_32;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = (h ^ (u32)(frames[i] ^ (frames[i] >> 32))) *
		    GOLDEN_RATIO_32;
	return h;
}

static __always_inline u32 kmp_stack_bucket(u32 hash)
{
	return hash >> (32 - kmp_stack_bits);
}

/* The record of (@tag, @frames) in @bucket's chain, or NULL. Lock-free. */
static __always_inline struct kmp_stack *
kmp_stack_find(u32 bucket, u32 hash, u32 tag, const unsigned long *frames,
	       unsigned int n)
{
	/* pairs with the releases in kmp_stack_record() */
	u32 i = smp_load_acquire(&kmp_stack_heads[bucket]);
	unsigned int f;

	while (i != KMP_NIL) {
		struct kmp_stack *s = &kmp_stack_pool[i];

		if (s->hash == hash && s->tag == tag && s->depth == n) {
			for (f = 0; f < n && s->frames[f] == frames[f]; f++)
				;
			if (f == n)
				return s;
		}
		i = smp_load_acquire(&s->next);	/* as above */
	}
	return NULL;
}

static __always_inline void kmp_stack_count(struct kmp_stack *s, size_t bytes)
{
	atomic64_inc(&s->allocs);
	atomic64_add(bytes, &s->bytes);
}

/*
 * Whether the task has return addresses swapped for a trampoline's
 * (function graph, kretprobes), which the kernel's unwinder puts back and
 * the walk would not.
 */
static __always_inline bool kmp_stack_tramps(void)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	if (READ_ONCE(current->curr_ret_depth) >= 0)
		return true;
#endif
#if KMP_HAVE_KRETPROBE_INSTANCES
	if (READ_ONCE(current->kretprobe_instances.first))
		return true;
#endif
#ifdef CONFIG_RETHOOK
	if (READ_ONCE(current->rethooks.first))
		return true;
#endif
	return false;
}

/*
 * From the frame record @fp (the probe's own), the record that returns to
 * @site, within KMP_STACK_SEARCH records, and up to @n return addresses
 * from it outwards into @frames: how many, or 0 where the fast path must
 * give the event back (kmp_walk_fast(), probes.h). Nothing outside the
 * stack the walk started on is read (kmp_fp_last()). A stack shorter
 * than @n is taken only where it ends at the task's final frame record
 * (in its pt_regs: no return address, which the kernel's unwinder stops
 * at without reporting); any other record with no return address (7.x's
 * exception boundaries, or a broken chain) gives the event back.
 */
static __always_inline unsigned int kmp_stack_walk(unsigned long fp,
						   unsigned long site,
						   unsigned long *frames,
						   unsigned int n)
{
#if KMP_HAVE_FP_WALK
	struct kmp_fp_walk w;
	unsigned long lr;
	unsigned int i;

	if (kmp_stack_tramps())
		return 0;
	kmp_fp_start(&w, fp);
	for (i = 0;; i++) {
		lr = kmp_fp_ret(&w);
		if (lr == site)
			break;
		if (i == KMP_STACK_SEARCH || !kmp_fp_up(&w))
			return 0;
	}
	for (i = 0;;) {
		frames[i++] = lr;
		if (i == n)
			return n;
		if (!kmp_fp_up(&w))
			return 0;
		lr = kmp_fp_ret(&w);
		if (!lr)
			return (unsigned long)w.rec ==
			       (unsigned long)&task_pt_regs(current)->stackframe ?
			       i : 0;
	}
#endif
	return 0;
}

/* The event is done: count it on its stack, if any. */
static __always_inline void kmp_stack_done(struct kmp_stack *s, u64 ctr,
					   size_t bytes)
{
	if (ctr != KMP_STACK_NO_CTR)
		__this_cpu_write(kmp_stack_ctr, ctr);
	if (s)
		kmp_stack_count(s, bytes);
}

#endif /* _KMEMPROF_STACKS_H */
