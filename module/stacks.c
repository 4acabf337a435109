// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the stack store. With stack_depth > 0, one allocation in
 * stack_sample has its stack saved, from its call site outwards; each
 * distinct (tag, stack) is one record, counting the sampled allocations
 * and bytes that came through it.
 *
 * Records come from a pool of max_stacks allocated the first time
 * stack_depth is set (kmp_stacks_init(), ordered before the probes use it
 * as kmp_hist_init() orders the histograms') and are never freed before a
 * reset; a stack that finds the pool full counts in
 * drop.stacks. Records hash into chains of u32 indices.
 *
 * Notes on locking:
 *
 * - Lookups walk a chain without a lock (kmp_stack_find(), stacks.h),
 *   from the general path and the fast paths alike: a record is written
 *   in full before it is published at the chain's head with
 *   smp_store_release(), and readers load heads and links with
 *   smp_load_acquire(). A record's frames, tag and depth never change
 *   once published (until a reset, which runs with the probes detached).
 * - Inserts take kmp_stack_locks[bucket % KMP_STACK_LOCKS], a raw spinlock,
 *   from the general path only, with interrupts off. Nothing nests inside
 *   it. The fast paths never insert: a stack they do not find goes to the
 *   general path (kmp_walk_fast(), probes.h).
 * - Counts are atomic64, added from either path: only sampled
 *   allocations touch them.
 * - The pool, the heads and kmp_stack_bits are set by kmp_stacks_init()
 *   before kmp_mode_update() turns on KMP_M_STACKS, with the release of
 *   kmp_mode that the fast paths' acquire pairs with (kmp_walk_fast(),
 *   which reads the store only once it sees KMP_M_STACKS: kmp_stack_key
 *   may be on before, for key_depth), and stay until unload;
 *   kmp_stack_key is off whenever stack_depth and key_depth are both 0 or
 *   sample_rate is above 1, and at unload before the pool is freed.
 * - kmp_stack_ctr (stack_sample's per-CPU count) and kmp_stack_buf (the
 *   fast path's frames) are this CPU's, with interrupts off. The fast path
 *   stores the count only once its event is done, so that an event it
 *   gives to the general path is counted once, there.
 * - kmp_stacks_reset() runs with every probe detached.
 * - ->gone_text is set once, with smp_store_release(), from the module
 *   notifier; the views read it with smp_load_acquire() inside an RCU
 *   read section that also checks ->depth, and print it instead of the
 *   frames. kmp_stacks_reset() clears every ->depth, waits for an RCU
 *   grace period, and only then frees the texts. kmp_stack_text_lock
 *   keeps the notifier and the reset apart.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include <kmemprof/test.h>

#include "internal.h"
#include "stacks.h"
#include "stat.h"

#define KMP_STACK_LOCKS	64

unsigned int kmp_max_stacks = 4096;

struct kmp_stack *kmp_stack_pool;
u32 *kmp_stack_heads;
unsigned int kmp_stack_bits;
DEFINE_STATIC_KEY_FALSE(kmp_stack_key);
DEFINE_PER_CPU(u32, kmp_stack_ctr);
DEFINE_PER_CPU(struct kmp_stack_buf, kmp_stack_buf);
static raw_spinlock_t kmp_stack_locks[KMP_STACK_LOCKS];
static atomic_t kmp_nstacks = ATOMIC_INIT(0);
static DEFINE_MUTEX(kmp_stack_text_lock);

/* Count a sampled allocation of @bytes on @tag through @frames. */
void kmp_stack_record(u32 tag, const unsigned long *frames, unsigned int n,
		      size_t bytes)
{
	u32 hash = kmp_stack_hash(tag, frames, n);
	u32 bucket = kmp_stack_bucket(hash);
	struct kmp_stack *s;
	int idx;

	s = kmp_stack_find(bucket, hash, tag, frames, n);
	if (!s) {
		raw_spin_lock(&kmp_stack_locks[bucket % KMP_STACK_LOCKS]);
		s = kmp_stack_find(bucket, hash, tag, frames, n);
		idx = s ? 0 : kmp_pool_reserve(&kmp_nstacks, kmp_max_stacks);
		if (idx < 0) {
			kmp_stat_inc(KMP_ST_DROP_STACKS);
		} else if (!s) {
			s = &kmp_stack_pool[idx];
			s->hash = hash;
			s->tag = tag;
			memcpy(s->frames, frames, n * sizeof(*frames));
			atomic64_set(&s->allocs, 0);
			atomic64_set(&s->bytes, 0);
			s->next = kmp_stack_heads[bucket];
			/* depth last: the views skip records without one */
			smp_store_release(&s->depth, n);
			/* publish the record whole; see kmp_stack_find() */
			smp_store_release(&kmp_stack_heads[bucket], idx);
		}
		raw_spin_unlock(&kmp_stack_locks[bucket % KMP_STACK_LOCKS]);
		if (!s)
			return;
	}
	kmp_stack_count(s, bytes);
}

u32 kmp_stacks_used(void)
{
	return min_t(u32, atomic_read(&kmp_nstacks), kmp_max_stacks);
}

/* The record at @idx, or NULL while it is still being written. */
struct kmp_stack *kmp_stack_at(u32 idx)
{
	struct kmp_stack *s = &kmp_stack_pool[idx];

	/* pairs with the release of ->depth in kmp_stack_record() */
	return smp_load_acquire(&s->depth) ? s : NULL;
}

size_t kmp_stacks_memory(void)
{
	if (!kmp_stack_pool)
		return 0;
	return (size_t)kmp_max_stacks * sizeof(struct kmp_stack) +
	       (sizeof(u32) << kmp_stack_bits);
}

/*
 * Code is going away (a module, or its init text): stacks through it get
 * their frames written out as text while the symbols are still there.
 * Called from the module notifier, in process context.
 */
void kmp_stacks_code_going(bool (*within)(unsigned long,
					  const struct module *),
			   const struct module *mod)
{
	u32 i, f, n = kmp_stacks_used();
	char *text, *buf;
	size_t len;

	buf = kmalloc(KMP_STACK_DEPTH_MAX * (KSYM_SYMBOL_LEN + 6), GFP_KERNEL);
	if (!buf)
		return;
	mutex_lock(&kmp_stack_text_lock);
	for (i = 0; i < n; i++) {
		struct kmp_stack *s = kmp_stack_at(i);

		if (!s || s->gone_text)
			continue;
		for (f = 0; f < s->depth && !within(s->frames[f], mod); f++)
			;
		if (f == s->depth)
			continue;
		for (len = 0, f = 0; f < s->depth; f++)
			len += sprintf(buf + len, "    %pS\n",
				       (void *)s->frames[f]);
		text = kstrdup(buf, GFP_KERNEL);
		if (text)
			/* pairs with the acquire in the stacks view */
			smp_store_release(&s->gone_text, text);
	}
	mutex_unlock(&kmp_stack_text_lock);
	kfree(buf);
}

/*
 * Only with the probes detached. Views may still be reading: hide every
 * record from them first, and free the texts once they are done.
 */
void kmp_stacks_reset(void)
{
	u32 i, n = kmp_stacks_used();

	if (!kmp_stack_pool)
		return;
	mutex_lock(&kmp_stack_text_lock);
	for (i = 0; i < n; i++)	/* pairs with kmp_stack_at()'s acquire */
		smp_store_release(&kmp_stack_pool[i].depth, 0);
	synchronize_rcu();
	for (i = 0; i < n; i++)
		kfree(kmp_stack_pool[i].gone_text);
	memset(kmp_stack_heads, 0xff, sizeof(u32) << kmp_stack_bits);
	memset(kmp_stack_pool, 0,
	       array_size(kmp_max_stacks ?: 1, sizeof(*kmp_stack_pool)));
	atomic_set(&kmp_nstacks, 0);
	mutex_unlock(&kmp_stack_text_lock);
}

void kmp_stacks_areas(kmp_area_fn fn, void *priv)
{
	if (!kmp_stack_pool)
		return;
	fn(kmp_stack_pool, array_size(kmp_max_stacks ?: 1,
				      sizeof(*kmp_stack_pool)), priv);
	fn(kmp_stack_heads, sizeof(u32) << kmp_stack_bits, priv);
}

#if KMP_TEST_HOOKS
/*
 * The fast path's walk (stacks.h) from the frame record @fp to @site and
 * up to @n frames on: how many, in @frames, or 0 where the fast path
 * would give the event to the general path.
 */
unsigned int kmemprof_test_stack_walk(unsigned long fp, unsigned long site,
				      unsigned long *frames, unsigned int n)
{
	unsigned long flags;

	if (!n || n > KMP_STACK_DEPTH_MAX)
		return 0;
	local_irq_save(flags);
	n = kmp_stack_walk(fp, site, frames, n);
	local_irq_restore(flags);
	return n;
}

kmp_export_test_hook(kmemprof_test_stack_walk);

/*
 * kmp_stack_key_on() (stacks.h) as when the stacks' key turns off between two
 * tests of it: the jump labels are patched one site at a time, and a CPU
 * may run one site old and the next new. kmemprof_test_stacked_off(n)
 * makes the n-th test of the key by this task, and every later one,
 * read it off; 0 ends it. Other tasks and interrupts see the key as it is.
 */
int kmp_stacked_test;
static struct task_struct *kmp_stacked_task;
static unsigned int kmp_stacked_left;

bool kmp_stacked_test_off(void)
{
	if (!in_task() || current != READ_ONCE(kmp_stacked_task))
		return false;
	if (kmp_stacked_left) {
		kmp_stacked_left--;
		return false;
	}
	return true;
}

void kmemprof_test_stacked_off(unsigned int n)
{
	WRITE_ONCE(kmp_stacked_test, 0);
	WRITE_ONCE(kmp_stacked_task, NULL);
	if (!n)
		return;
	kmp_stacked_left = n - 1;
	WRITE_ONCE(kmp_stacked_task, current);
	WRITE_ONCE(kmp_stacked_test, 1);
}

kmp_export_test_hook(kmemprof_test_stacked_off);
#endif

int kmp_stacks_init(void)
{
	unsigned int i;

	if (kmp_stack_pool)
		return 0;
	kmp_stack_bits = max(ilog2(roundup_pow_of_two(kmp_max_stacks ?: 1)), 1);
	kmp_stack_pool = vzalloc(array_size(kmp_max_stacks ?: 1,
					    sizeof(*kmp_stack_pool)));
	kmp_stack_heads = vmalloc(sizeof(u32) << kmp_stack_bits);
	if (!kmp_stack_pool || !kmp_stack_heads) {
		kmp_stacks_exit();
		return -ENOMEM;
	}
	for (i = 0; i < KMP_STACK_LOCKS; i++)
		raw_spin_lock_init(&kmp_stack_locks[i]);
	kmp_stacks_reset();
	synchronize_rcu();	/* see kmp_hist_init() */
	return 0;
}

void kmp_stacks_exit(void)
{
	u32 i;

	if (kmp_stack_pool)
		for (i = 0; i < kmp_stacks_used(); i++)
			kfree(kmp_stack_pool[i].gone_text);
	vfree(kmp_stack_heads);
	vfree(kmp_stack_pool);
	kmp_stack_heads = NULL;
	kmp_stack_pool = NULL;
}
