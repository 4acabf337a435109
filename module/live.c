// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the live-object table, which pairs each free with its
 * allocation: slab objects and percpu areas by address, page blocks by PFN.
 * The kind is in the key's low bits (kmp_key_*()), so key spaces never mix.
 * The table only keeps objects; account.c does all the counting.
 *
 * The table is a chained hash over a pool of max_live entries of 32 bytes,
 * linked by u32 index, allocated at load. Free entries sit in small per-CPU
 * caches, refilled from and spilled to a shared depot a batch at a time.
 *
 * Notes on locking:
 *
 * - kmp_live_locks[bucket % KMP_LIVE_LOCKS] (raw spinlocks, interrupts off)
 *   protect a bucket's chain and its entries. Inserts and removals, which
 *   run with interrupts already off, take the one lock of their bucket, so
 *   a free on another CPU than the allocation takes no global lock. The
 *   walkers, in process context, take it with raw_spin_lock_irqsave().
 * - The per-CPU caches are only touched by their own CPU with interrupts
 *   off, which the bucket lock already guarantees.
 * - kmp_depot.lock (raw spinlock) protects the depot. It is taken inside a
 *   bucket lock, once per batch of entries.
 *
 * Lock order: bucket lock -> kmp_depot.lock. Nothing else nests.
 *
 * NMI never gets here: the accounting skips NMI (see account.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include <kmemprof/kmemprof.h>

#define KMP_LIVE_LOCKS		1024
#define KMP_LIVE_BATCH_MAX	32
/* Two trace_kmalloc() calls for one large kmalloc come this close. */
#define KMP_LARGE_DUP_NS	(10 * NSEC_PER_MSEC)

unsigned int kmp_max_live = 1U << 19;

/*
 * One entry: 32 bytes. The allocating CPU rides in the top bits of the
 * time, which is kept in units of 16 ns: 52 bits of those last 2 years.
 */
#define KMP_TIME_SHIFT		4
#define KMP_CPU_SHIFT		52

struct kmp_live {
	unsigned long key;	/* kmp_key_*() */
	u64 time_cpu;		/* (time >> 4) | cpu << 52 */
	u32 next;		/* next in bucket or free list */
	u32 tag;		/* index of the allocating tag */
	u32 size;		/* bytes counted at allocation */
	u32 req;		/* bytes requested */
};

struct kmp_live_cache {
	u32 head;
	u32 count;
};

static struct kmp_live *kmp_live_pool;
static u32 *kmp_live_heads;
static unsigned int kmp_live_bits;
static unsigned int kmp_live_batch;
static raw_spinlock_t kmp_live_locks[KMP_LIVE_LOCKS];
static DEFINE_PER_CPU(struct kmp_live_cache, kmp_live_cache);

static struct {
	raw_spinlock_t lock;
	u32 head;
	u32 count;
} kmp_depot;

static_assert(sizeof(struct kmp_live) <= 32);

static u32 kmp_live_bucket(unsigned long key)
{
	return hash_long(key, kmp_live_bits);
}

static raw_spinlock_t *kmp_live_lock(u32 bucket)
{
	return &kmp_live_locks[bucket % KMP_LIVE_LOCKS];
}

/* Move up to n entries from the depot into the cache. */
static void kmp_live_refill(struct kmp_live_cache *c, u32 n)
{
	raw_spin_lock(&kmp_depot.lock);
	while (n-- && kmp_depot.head != KMP_NIL) {
		u32 i = kmp_depot.head;

		kmp_depot.head = kmp_live_pool[i].next;
		kmp_depot.count--;
		kmp_live_pool[i].next = c->head;
		c->head = i;
		c->count++;
	}
	raw_spin_unlock(&kmp_depot.lock);
}

static void kmp_live_spill(struct kmp_live_cache *c, u32 n)
{
	raw_spin_lock(&kmp_depot.lock);
	while (n-- && c->head != KMP_NIL) {
		u32 i = c->head;

		c->head = kmp_live_pool[i].next;
		c->count--;
		kmp_live_pool[i].next = kmp_depot.head;
		kmp_depot.head = i;
		kmp_depot.count++;
	}
	raw_spin_unlock(&kmp_depot.lock);
}

/* With interrupts off. */
static u32 kmp_live_get(void)
{
	struct kmp_live_cache *c = this_cpu_ptr(&kmp_live_cache);
	u32 i;

	if (!c->count)
		kmp_live_refill(c, kmp_live_batch);
	if (!c->count)
		return KMP_NIL;
	i = c->head;
	c->head = kmp_live_pool[i].next;
	c->count--;
	return i;
}

/* With interrupts off. */
static void kmp_live_put(u32 i)
{
	struct kmp_live_cache *c = this_cpu_ptr(&kmp_live_cache);

	kmp_live_pool[i].next = c->head;
	c->head = i;
	c->count++;
	if (c->count >= 2 * kmp_live_batch)
		kmp_live_spill(c, kmp_live_batch);
}

static void kmp_live_set(struct kmp_live *e, const struct kmp_obj *obj)
{
	e->tag = obj->tag;
	e->size = obj->size;
	e->req = obj->req;
	e->time_cpu = (obj->time >> KMP_TIME_SHIFT) |
		      (u64)obj->cpu << KMP_CPU_SHIFT;
}

static void kmp_live_get_obj(const struct kmp_live *e, struct kmp_obj *obj)
{
	obj->tag = e->tag;
	obj->size = e->size;
	obj->req = e->req;
	obj->time = (e->time_cpu & (BIT_ULL(KMP_CPU_SHIFT) - 1)) <<
		    KMP_TIME_SHIFT;
	obj->cpu = e->time_cpu >> KMP_CPU_SHIFT;
}

static struct kmp_live *kmp_live_find(u32 bucket, unsigned long key,
				      u32 **linkp)
{
	struct kmp_live *e;
	u32 *link;

	for (link = &kmp_live_heads[bucket]; *link != KMP_NIL;
	     link = &e->next) {
		e = &kmp_live_pool[*link];
		if (e->key == key) {
			if (linkp)
				*linkp = link;
			return e;
		}
	}
	return NULL;
}

/*
 * Record a new object. If its key is live already, the old object was
 * freed without an event (kfree_bulk(), kfree_rcu() batches and other
 * untraced paths): STALE, with the old object in @old. Or this is the
 * second event 6.10+ emits for one large kmalloc, from the real caller:
 * DUP, which takes the object over.
 */
enum kmp_insert kmp_live_insert(unsigned long key, const struct kmp_obj *obj,
				struct kmp_obj *old)
{
	u32 bucket = kmp_live_bucket(key);
	enum kmp_insert ret = KMP_INS_NEW;
	struct kmp_live *e;
	u32 i;

	raw_spin_lock(kmp_live_lock(bucket));
	e = kmp_live_find(bucket, key, NULL);
	if (e) {
		kmp_live_get_obj(e, old);
		if (kmp_key_kind(key) == KMP_KIND_SLAB &&
		    old->size == obj->size &&
		    obj->size > KMALLOC_MAX_CACHE_SIZE &&
		    obj->time - old->time < KMP_LARGE_DUP_NS)
			ret = KMP_INS_DUP;
		else
			ret = KMP_INS_STALE;
		kmp_live_set(e, obj);
		goto out;
	}
	i = kmp_live_get();
	if (i == KMP_NIL) {
		ret = KMP_INS_FULL;
		goto out;
	}
	e = &kmp_live_pool[i];
	e->key = key;
	kmp_live_set(e, obj);
	e->next = kmp_live_heads[bucket];
	kmp_live_heads[bucket] = i;
out:
	raw_spin_unlock(kmp_live_lock(bucket));
	return ret;
}

/* Take the object of @key out of the table, or return false. */
bool kmp_live_remove(unsigned long key, struct kmp_obj *obj)
{
	u32 bucket = kmp_live_bucket(key);
	struct kmp_live *e;
	u32 i, *link;

	raw_spin_lock(kmp_live_lock(bucket));
	e = kmp_live_find(bucket, key, &link);
	if (e) {
		kmp_live_get_obj(e, obj);
		i = *link;
		*link = e->next;
		kmp_live_put(i);
	}
	raw_spin_unlock(kmp_live_lock(bucket));
	return e;
}

/*
 * Call @fn on every live object, one bucket at a time under its lock, with
 * interrupts off: @fn must be short and must not sleep.
 */
void kmp_live_walk(void (*fn)(unsigned long key, const struct kmp_obj *obj,
			      void *priv), void *priv)
{
	struct kmp_obj obj;
	unsigned long flags;
	u32 b, i;

	for (b = 0; b < (1U << kmp_live_bits); b++) {
		if (READ_ONCE(kmp_live_heads[b]) == KMP_NIL)
			continue;
		raw_spin_lock_irqsave(kmp_live_lock(b), flags);
		for (i = kmp_live_heads[b]; i != KMP_NIL;
		     i = kmp_live_pool[i].next) {
			kmp_live_get_obj(&kmp_live_pool[i], &obj);
			fn(kmp_live_pool[i].key, &obj, priv);
		}
		raw_spin_unlock_irqrestore(kmp_live_lock(b), flags);
		cond_resched();
	}
}

static void kmp_mark_one(unsigned long key, const struct kmp_obj *obj,
			 void *priv)
{
	if (*(unsigned int *)priv & BIT(kmp_key_kind(key)))
		kmp_tag_mark_inaccurate(obj->tag);
}

/*
 * Pairing is about to be lost for @kinds (their probes are detached): mark
 * every tag that has live objects of those kinds.
 */
void kmp_live_mark_tags(unsigned int kinds)
{
	kmp_live_walk(kmp_mark_one, &kinds);
}

/* Empty the table. Only with every probe detached. */
void kmp_live_clear(void)
{
	u32 i;
	int cpu;

	for (i = 0; i < (1U << kmp_live_bits); i++)
		kmp_live_heads[i] = KMP_NIL;
	for (i = 0; i < kmp_max_live; i++)
		kmp_live_pool[i].next = i + 1 < kmp_max_live ? i + 1 : KMP_NIL;
	kmp_depot.head = 0;
	kmp_depot.count = kmp_max_live;
	for_each_possible_cpu(cpu) {
		struct kmp_live_cache *c = per_cpu_ptr(&kmp_live_cache, cpu);

		c->head = KMP_NIL;
		c->count = 0;
	}
}

u32 kmp_live_used(void)
{
	u32 free = READ_ONCE(kmp_depot.count);
	int cpu;

	for_each_possible_cpu(cpu)
		free += READ_ONCE(per_cpu_ptr(&kmp_live_cache, cpu)->count);
	return free < kmp_max_live ? kmp_max_live - free : 0;
}

size_t kmp_live_memory(void)
{
	return (size_t)kmp_max_live * sizeof(struct kmp_live) +
	       (sizeof(u32) << kmp_live_bits);
}

int kmp_live_init(void)
{
	unsigned int i;

	kmp_live_bits = ilog2(roundup_pow_of_two(kmp_max_live));
	kmp_live_pool = vmalloc(array_size(kmp_max_live,
					   sizeof(*kmp_live_pool)));
	kmp_live_heads = vmalloc(array_size(1U << kmp_live_bits,
					    sizeof(*kmp_live_heads)));
	if (!kmp_live_pool || !kmp_live_heads) {
		kmp_live_exit();
		return -ENOMEM;
	}
	/* Small tables keep small caches, so few entries sit idle per CPU. */
	kmp_live_batch = clamp_t(unsigned int,
				 kmp_max_live / (4 * num_possible_cpus()),
				 1, KMP_LIVE_BATCH_MAX);
	for (i = 0; i < KMP_LIVE_LOCKS; i++)
		raw_spin_lock_init(&kmp_live_locks[i]);
	raw_spin_lock_init(&kmp_depot.lock);
	kmp_live_clear();
	return 0;
}

void kmp_live_exit(void)
{
	vfree(kmp_live_heads);
	vfree(kmp_live_pool);
	kmp_live_heads = NULL;
	kmp_live_pool = NULL;
}
