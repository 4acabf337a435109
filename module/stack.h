/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the stack store's inline half, for the fast paths (probes.h)
 * and stacks.c alike: the hash and the lock-free lookup of a record, and
 * the bounded frame-record walk that takes a sampled stack, and key_depth's
 * callers, on the fast path. See stacks.c for the store and its notes on
 * locking, and tags.c for the tag hash's.
 *
 * With stack_depth or key_depth on (and sample_rate not), a fast path
 * walks the frame records itself (kmp_walk_fast()): up from the probe's
 * own to the one that returns to the call site, then on outwards, one
 * walk for both. With key_depth it takes the site's key_depth callers
 * and counts the allocation on the tag of (site, callers) if the tag
 * hash has it; with a stack due, it takes stack_depth return addresses
 * from the site and counts on the record of (tag, stack) if the store has
 * it. Anything else returns the event to the general path, with nothing
 * changed: a tag or a stack not made yet (the general path makes them,
 * and drop.tags and drop.stacks count a full pool), a walk that would
 * leave its stack, a stack shorter than it needs, a call site not among
 * the first KMP_STACK_SEARCH records, and a task with function graph or
 * kretprobe returns pending. So a tag or a record is only ever made by
 * the general path, from stack_trace_save(), and the fast path only
 * counts on one whose frames are the ones the walk found: the same return
 * addresses the kernel's unwinder reports, which on arm64 is this walk,
 * but for what the cases above leave out (other stacks, and the return
 * trampolines it puts the real addresses back for).
 *
 * A stack shorter than the walk needs is taken only where it ends at the
 * task's final frame record, which the unwinder stops at too: a sampled
 * stack then has the frames there are, and key_depth's callers past the
 * end are 0, as the general path's (account.c, kmp_find_site()).
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
#ifndef _KMEMPROF_STACK_H
#define _KMEMPROF_STACK_H

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

/* tags.c: the tag hash, set at load before any probe is attached. */
extern struct hlist_head *kmp_tag_hash;
extern unsigned int kmp_tag_bits;

/*
 * The tag hash's bucket of (@site, @kind, the first @n @callers), for
 * tags.c and the fast paths alike.
 */
static __always_inline u32 kmp_tag_bucket_of_key(unsigned long site,
						 enum kmp_kind kind,
						 const unsigned long *callers,
						 unsigned int n)
{
	unsigned long h = site + kind;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = h * 31 + callers[i];
	return hash_long(h, kmp_tag_bits);
}

/*
 * The tag of that key in @bucket's chain, into *@tp. Lock-free, in an
 * RCU read section or with interrupts off: see tags.c. (A bool, as
 * kmp_site_get() is, so that a tag found is known not to be NULL.)
 */
static __always_inline bool kmp_tag_lookup(u32 bucket, unsigned long site,
					   enum kmp_kind kind,
					   const unsigned long *callers,
					   unsigned int n,
					   struct kmp_tag **tp)
{
	struct kmp_tag *tag;
	unsigned int i;

	hlist_for_each_entry_rcu(tag, &kmp_tag_hash[bucket], hnode) {
		if (tag->site != site || tag->kind != kind ||
		    tag->ncallers != n)
			continue;
		for (i = 0; i < n && tag->callers[i] == callers[i]; i++)
			;
		if (i == n) {
			*tp = tag;
			return true;
		}
	}
	return false;
}

/*
 * The fast paths walk the frame records (kmp_walk_fast()): stack_depth or
 * key_depth on, sample_rate off.
 */
#if KMP_TEST_HOOKS
extern int kmp_stacked_test;		/* stacks.c */
bool kmp_stacked_test_off(void);
#endif

static __always_inline bool kmp_stacked(void)
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
 * give the event back (see the top of the file). Nothing outside the
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

/* key_depth, for a fast path that walks (kmp_stacked()). */
static __always_inline unsigned int kmp_key_depth_fast(void)
{
	return min_t(unsigned int, READ_ONCE(kmp_key_depth),
		     KMP_KEY_DEPTH_MAX);
}

/*
 * A fast path's walk for an allocation of @kind at @site, from the frame
 * record @fp, @first records above the first the walk may start from
 * (the bound on the site's index: see the top of the file), with @kd
 * (kmp_key_depth_fast()) callers: with @kd, the tag
 * of (site, callers) in *@idx and *@ctr, else the caller's there already
 * (the site's own); with a stack due, the record to count it on in *@sp
 * (else NULL), and *@ctr_s the sample counter's value to store once the
 * event is done (KMP_STACK_NO_CTR: none). False, with nothing changed,
 * where the general path must take the event. @ev KMP_EV_NR: a hook's
 * event, whose frames the walk does not know (hooks.c): always false.
 * With interrupts off.
 *
 * The stack store is read only once kmp_mode has KMP_M_STACKS, with an
 * acquire that pairs with the release in kmp_mode_update(): with
 * key_depth on, this copy may run before the store is made.
 */
static __always_inline bool
kmp_walk_fast(enum kmp_event ev, unsigned long fp, unsigned int first,
	      unsigned long site, enum kmp_kind kind, unsigned int kd, u32 *idx,
	      struct kmp_counters __percpu **ctr, struct kmp_stack **sp,
	      u64 *ctr_s)
{
	unsigned int sd = 0, n, got, i;
	unsigned long *frames;
	struct kmp_tag *tag;
	u32 hash;

	*sp = NULL;
	*ctr_s = KMP_STACK_NO_CTR;
	if (ev >= KMP_EV_NR)
		return false;
	/* pairs with the release in kmp_mode_update() */
	if (smp_load_acquire(&kmp_mode) & KMP_M_STACKS) {
		unsigned int every = READ_ONCE(kmp_stack_sample);

		sd = min_t(unsigned int, READ_ONCE(kmp_stack_depth),
			   KMP_STACK_DEPTH_MAX);
		/* kmp_one_in(), but stored only once the event is done */
		if (sd && every > 1) {
			u32 c = __this_cpu_read(kmp_stack_ctr) + 1;

			*ctr_s = c;
			if (c % every)
				sd = 0;
		}
	}
	n = kd ? max(sd, kd + 1) : sd;
	if (!n)
		return true;
	if (first > KMP_STACK_SEARCH)
		return false;
	frames = this_cpu_ptr(kmp_stack_buf.e);
	got = kmp_stack_walk(fp, site, frames, n);
	if (!got)
		return false;
	if (kd) {
		/*
		 * Callers past the task's final record: 0, as account.c's
		 * (volatile stores, which the compiler makes no memset() of).
		 */
		for (i = got; i <= kd; i++)
			WRITE_ONCE(frames[i], 0);
		if (!kmp_tag_lookup(kmp_tag_bucket_of_key(site, kind,
							  frames + 1, kd),
				    site, kind, frames + 1, kd, &tag))
			return false;
		*idx = kmp_tag_index(tag);
		*ctr = kmp_tag_counters(*idx);
	}
	if (sd) {
		n = min(sd, got);
		hash = kmp_stack_hash(*idx, frames, n);
		*sp = kmp_stack_find(kmp_stack_bucket(hash), hash, *idx,
				     frames, n);
		return *sp;
	}
	return true;
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

#endif /* _KMEMPROF_STACK_H */
