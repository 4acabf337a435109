// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the live-object table, which pairs each free with its
 * allocation: slab objects and percpu areas by address, and page blocks by
 * PFN where the PFN map (pfnmap.c) does not hold them. The kind is in the
 * key's low bits (kmp_key_*()), so key spaces never mix. The table only
 * keeps objects; account.c does all the counting.
 *
 * Two parts:
 *
 * - The slots: open addressing in groups of KMP_GROUP slots of 24 bytes,
 *   a group to two cache lines (which it shares with its neighbours). A
 *   key lives in the group its hash picks, in any slot of it; there are
 *   no probe sequences and no tombstones. Inserting and removing take no
 *   lock (see below), so the common path costs a hash, a scan of four keys
 *   and one compare-and-swap.
 * - The times: an object's time and CPU (kmp_time_cpu()) is only kept
 *   while histograms or lifetimes are on (kmp_time_key_on()), so it is not in
 *   its slot but in kmp_tab.times, a u64 a slot at the slot's index,
 *   allocated the first time they go on (kmp_live_times_on()) and kept
 *   until unload. Without it a slot has no time (kmp_slot_time()).
 * - The spill: a chained hash over a pool of entries, under raw spinlocks,
 *   for keys whose group was full. Each group counts its spilled keys, so
 *   the spill is only looked at for groups that have some there. Nothing
 *   is ever lost to a full group: only a full spill drops (drop.live).
 *   Its entries keep their time: the spill is rare, and under its locks.
 * - The growth: a load that holds more objects than max_live (a full
 *   distribution kernel under stress-ng holds 60,000 at 1 GiB) would fill
 *   the table and drop. So the spill grows, by whole chunks of entries
 *   (kmp_live_grow times max_live in all, 0 for never): when an add
 *   leaves fewer free entries than a chunk holds, it queues an irq_work
 *   (the probes can run anywhere, even under the workqueue's own lock),
 *   which queues a work, which vmallocs a chunk and links it into the
 *   free list. A chunk is kept until unload: a reset relinks it.
 *
 * The slots hold kmp_max_live / 8 * 7 entries rounded down to a power of
 * two groups, the spill the rest, so max_live bounds the table at load.
 * The spill has a bucket head for two entries of its own, or for twelve
 * of what it may grow to, whichever is more (a power of two), so its
 * chains are about two long when it is full at load, and at most twelve
 * when it has grown all it may. An entry of max_live costs under 31
 * bytes, whatever max_live, with its share of the heads (those for the
 * growth too, at the default live_grow) and of the groups' spill counts,
 * and under 35 once the times are allocated (8 bytes a slot); an entry
 * the growth adds costs 36 bytes (an entry and its owner word):
 * Documentation/kmemprof.rst, "Memory".
 *
 * Notes on locking:
 *
 * - A slot's key is 0 (empty), KMP_BUSY (being written) or a live key.
 *   An insert claims an empty slot with a fully ordered cmpxchg 0 ->
 *   KMP_BUSY, writes the object and the next sequence number (seq + 1),
 *   then publishes the key with smp_store_release(). A remove finds the
 *   key with smp_load_acquire(), reads the object, then frees the slot
 *   with smp_store_release(key, 0): its reads of the object are ordered
 *   before the slot can be claimed again. The slot's time in
 *   kmp_tab.times is one of the object's fields for all of this: written
 *   between the claim and the publish, read between the acquire and the
 *   release.
 * - But the copies of the fast paths that carry no time (kmp_time_key_on() off:
 *   the defaults', and nmi.c's) write none (kmp_live_fill()), and their
 *   slot keeps the time of the last object that had one there. So each
 *   time histograms or lifetimes go from off to on, kmp_mode_update()
 *   zeroes the times (kmp_live_times_on()) before it publishes the mode
 *   and before kmp_time_key goes on: an object allocated while they were
 *   off has no time, and none left from an earlier period of them (one
 *   still live from that period loses its own: no lifetime, no age). While
 *   they are off, the walkers read no time (they hold kmp_control_lock,
 *   under which the mode changes), and the free paths take none into a
 *   histogram. Between that zeroing and the keys' change, though, the
 *   general path is timed and the defaults' copy not: an object the
 *   general path entered with a time and the defaults' copy freed leaves
 *   its time to the next untimed object in the slot. So kmp_mode_update()
 *   zeroes them again once the keys are on and every probe and hook that
 *   may have read them before has finished (kmp_live_times_zero(), after
 *   tracepoint_synchronize_unregister(), which waits for the probes and
 *   the hooks' preempt-off parts). From then on only timed copies and the
 *   general path enter objects in slots, and each stores the object's
 *   time or 0. An object entered in between loses its time (no lifetime,
 *   no age): none rather than a wrong one. An event on the general path
 *   that read a time before a zeroing and enters it again after (a split,
 *   a migration) keeps that object's own time.
 * - One key has one owner at a time: an object's free cannot run before
 *   its allocation's event has returned (the allocator hands the object
 *   out only after it), and an address is reused only after its free
 *   event. So an insert and a remove of the same key never race, and the
 *   allocator's own ordering makes the object's fields visible to the CPU
 *   that frees it. Two inserts of different keys race only for an empty
 *   slot, which the cmpxchg settles.
 * - A group's spill count is raised before its key enters the spill and
 *   lowered after it leaves, with atomics; a remove that misses in the
 *   slots looks in the spill when the count is not 0. nmi.c raises it too,
 *   to keep the fast paths off a group (its notes say why): the count is
 *   never taken for the length of a chain.
 * - kmp_spill_locks[bucket % KMP_SPILL_LOCKS] (raw spinlocks) protect a
 *   spill chain and its entries; kmp_spill_free.lock, taken inside one,
 *   the spill's free list. The probes take them with interrupts already
 *   off; the walkers with raw_spin_lock_irqsave().
 * - The walkers (views, and marking tags) and kmp_live_read() read a slot's
 *   sequence number, its key with acquire, its object, the key again with
 *   acquire, and the sequence number again (kmp_walk_slot()); an object whose
 *   key or sequence number changed meanwhile is read again, and skipped after
 *   KMP_WALK_TRIES readings. The key alone is not enough: SLUB hands a freed
 *   address out again at once, so between the walker's two reads
 *   of the key a slot can go from K through 0 and KMP_BUSY back to K with
 *   another allocation's object, and the walker would join the old
 *   object's tag with the new one's time. Why the sequence number is
 *   enough, P being the publish the walker's first key read returns:
 *   (a) Sequence numbers only grow: a writer reads seq after its claim,
 *   which is fully ordered and reads from (or after) the release that
 *   ended the previous owner's hold, whose seq store came before it.
 *   (b) The first seq read returns P's number or an older one: had it
 *   returned a later publish W's, then W's claim, ordered before W's seq
 *   store by the cmpxchg, would be seen by the key read after it
 *   (smp_rmb()), which would return KMP_BUSY or later, not P's key.
 *   (c) If any read of the object returned a later writer W's store, W's
 *   claim is ordered before that store, so the second key read (after
 *   smp_rmb()) returns W's KMP_BUSY or later. If it still equals the
 *   key, it was published at or after W, and after its acquire the last
 *   seq read returns that publish's number or a later one: above P's.
 *   So an object is taken only whole from P. The number wraps only after
 *   2^32 publishes of one slot within one reading of it. The time in
 *   kmp_tab.times is read between the two key reads as the slot's own
 *   fields are, and a writer stores it after its claim as it does them,
 *   so (c) holds for it too; a publish that stores no time (above) leaves
 *   the one of a publish before P, which (c) cannot see: the window the
 *   notes above allow for. kmp_mode_update()'s zeroing never runs beside
 *   a walker (kmp_control_lock), and beside kmp_live_read() it only turns
 *   a time into none.
 *   The walkers run under kmp_control_lock, so never against
 *   kmp_live_clear(), which runs with the probes detached.
 *
 * - The owner lines (kmp_live_owners, kmp_spill_owners: owners.c), while
 *   owners are on, are kept as the times are, one of the object's fields
 *   (written between the claim and the publish, read between the acquire
 *   and the release), with one difference: no fast path ever takes or
 *   fills a slot while owners are on, since kmp_mode_update() turns the
 *   fast paths off (kmp_slow_key) and waits for every probe that may have
 *   read the old keys (tracepoint_synchronize_unregister()) before it
 *   zeroes the lines and puts the owner bits in kmp_mode. From then on
 *   every entry is entered with its line or 0 by the general path, and
 *   every take (kmp_live_slots_remove(), the general path's and nmi.c's) reads
 *   the line and zeroes it before the release that frees the slot. So an
 *   object charged to a line is charged back by its free, wherever it
 *   runs, and no object is ever seen with a line it was not charged to.
 *   Objects still live when owners go off keep their lines, which nothing
 *   reads (the general path charges back only while the owner bits are
 *   in kmp_mode), until the next time owners go on zeroes them.
 *
 * - The growth: an entry's index is below kmp_spill_n (the pool made at
 *   load) or in chunk (index - kmp_spill_n) >> kmp_chunk_bits. The work
 *   (kmp_spill_grow_lock held) fills a new chunk's links, stores its
 *   pointer, and only then, under kmp_spill_free.lock, links its entries
 *   into the free list and raises kmp_chunks_n. Every index of a chunk is
 *   reached only through that lock (an add takes it from the free list)
 *   or a bucket lock whose holder took it so, so each acquire of one of
 *   them orders the chunk's pointer and links before the index is used.
 *   The walkers' and the stats' readings of kmp_chunks_n take the free
 *   list's lock, or the grow lock, which is held across a clear: a clear
 *   never relinks beside a chunk being added. kmp_spill_grow_queued is
 *   set, with xchg(), by the one add that queues the irq_work, and
 *   cleared by the work once it has done; the adds read it first, so
 *   that under a burst they do not all write one line.
 *
 * Lock order: spill bucket lock -> kmp_spill_free.lock; account.c's split
 * locks are taken outside them; kmp_control_lock -> kmp_spill_grow_lock
 * -> kmp_spill_free.lock (clears, the walkers of areas, and the work).
 * Nothing else nests.
 * NMI never gets here: the probes turn it away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "internal.h"
#include "live.h"
#include "options.h"
#include "tables.h"
#include "testpoints.h"

#define KMP_SPILL_LOCKS		256
#define KMP_WALK_TRIES		4	/* readings of a slot that keeps changing */
#define KMP_CHUNK_MIN_BITS	6	/* entries of a chunk of growth, log2 */
#define KMP_CHUNK_MAX_BITS	12
#define KMP_GROW_MAX		BIT(28)	/* entries grown, so indexes fit a u32 */
#define KMP_GROW_RETRY		HZ	/* after a chunk could not be made */

unsigned int kmp_max_live = 1U << 19;
unsigned int kmp_live_grow = 3;

unsigned int kmp_group_bits;
u32 *kmp_live_owners;		/* a slot's owner line: live.h */
static u32 *kmp_spill_owners;	/* a spill entry's, under its bucket lock */

/*
 * The spill: 32-byte entries in a pool, chained by u32 index, with one
 * free list.
 */
struct kmp_spill {
	unsigned long key;
	u64 time_cpu;
	u32 next;
	u32 tag;
	u32 size;
	u32 req;
};

static_assert(sizeof(struct kmp_spill) <= 32);

static struct kmp_spill *kmp_spill_pool;
static u32 *kmp_spill_heads;
static unsigned int kmp_spill_n;
static unsigned int kmp_spill_bits;
static raw_spinlock_t kmp_spill_locks[KMP_SPILL_LOCKS];

/*
 * The chunks grown: each 1 << kmp_chunk_bits entries, then as many owner
 * words (so a grown entry always has one), in one vmalloc.
 */
static struct kmp_spill **kmp_spill_chunks;
static unsigned int kmp_chunk_bits;
static unsigned int kmp_chunks_max;
static unsigned int kmp_chunks_n;	/* under kmp_spill_free.lock */
static bool kmp_spill_grow_queued;
static unsigned long kmp_spill_grow_after;	/* jiffies, after a failure */
static DEFINE_MUTEX(kmp_spill_grow_lock);
static struct irq_work kmp_spill_grow_iw;
static void kmp_spill_grow_fn(struct work_struct *work);
static DECLARE_WORK(kmp_spill_grow_work, kmp_spill_grow_fn);

static struct {
	raw_spinlock_t lock;
	u32 head;
	u32 count;
} kmp_spill_free;

static u32 kmp_spill_bucket(unsigned long key)
{
	return hash_long(key, kmp_spill_bits);
}

static raw_spinlock_t *kmp_spill_lock(u32 bucket)
{
	return &kmp_spill_locks[bucket % KMP_SPILL_LOCKS];
}

static unsigned int kmp_chunk_size(void)
{
	return 1U << kmp_chunk_bits;
}

/* Spill entry @i: the pool's, or a chunk's (see the notes). */
static struct kmp_spill *kmp_spill_entry(u32 i)
{
	if (likely(i < kmp_spill_n))
		return &kmp_spill_pool[i];
	i -= kmp_spill_n;
	return &READ_ONCE(kmp_spill_chunks[i >> kmp_chunk_bits])
		[i & (kmp_chunk_size() - 1)];
}

/*
 * Entry @i's owner word, or NULL while owners have never been on: the
 * pool's are made then (kmp_live_owners_on()), a chunk's with it.
 */
static u32 *kmp_spill_owner(u32 i)
{
	u32 *owners = READ_ONCE(kmp_spill_owners);
	struct kmp_spill *c;

	if (!owners || i < kmp_spill_n)
		return owners ? &owners[i] : NULL;
	i -= kmp_spill_n;
	c = READ_ONCE(kmp_spill_chunks[i >> kmp_chunk_bits]);
	return (u32 *)(c + kmp_chunk_size()) + (i & (kmp_chunk_size() - 1));
}

/* The index of @key's entry in @bucket's chain, or KMP_NIL. */
static u32 kmp_spill_find(u32 bucket, unsigned long key, u32 **linkp)
{
	struct kmp_spill *e;
	u32 *link;

	for (link = &kmp_spill_heads[bucket]; *link != KMP_NIL;
	     link = &e->next) {
		e = kmp_spill_entry(*link);
		if (e->key == key) {
			if (linkp)
				*linkp = link;
			return *link;
		}
	}
	return KMP_NIL;
}

static void kmp_spill_set(u32 i, const struct kmp_obj *obj)
{
	struct kmp_spill *e = kmp_spill_entry(i);
	u32 *own = kmp_spill_owner(i);

	e->tag = obj->tag;
	e->size = obj->size;
	e->req = obj->req;
	e->time_cpu = kmp_time_cpu(obj);
	if (own)
		*own = obj->own;
}

static void kmp_spill_get(u32 i, struct kmp_obj *obj)
{
	const struct kmp_spill *e = kmp_spill_entry(i);
	u32 *own = kmp_spill_owner(i);

	obj->tag = e->tag;
	obj->size = e->size;
	obj->req = e->req;
	kmp_time_cpu_split(e->time_cpu, obj);
	obj->own = own ? *own : 0;
}

/* Entries the spill has now: the pool and the chunks grown. */
static unsigned int kmp_spill_total(void)
{
	return kmp_spill_n + (kmp_chunks_n << kmp_chunk_bits);
}

/*
 * An add left fewer than a chunk's worth of free entries (@free): have a
 * chunk made, if the table may grow and none is on its way. Any context
 * but NMI, interrupts off.
 */
static void kmp_spill_want_grow(u32 free)
{
	if (free >= kmp_chunk_size() ||
	    READ_ONCE(kmp_chunks_n) >= kmp_chunks_max ||
	    READ_ONCE(kmp_spill_grow_queued) ||
	    time_before(jiffies, READ_ONCE(kmp_spill_grow_after)))
		return;
	if (!xchg(&kmp_spill_grow_queued, true))
		irq_work_queue(&kmp_spill_grow_iw);
}

/* In hard interrupt context: the work may sleep, so it is queued here. */
static void kmp_spill_grow_irq(struct irq_work *iw)
{
	queue_work(system_unbound_wq, &kmp_spill_grow_work);
}

/*
 * Link a new chunk's entries into the free list (see the notes): false if
 * the table may not grow more or the chunk cannot be made. With
 * kmp_spill_grow_lock held.
 */
static bool kmp_spill_grow_one(void)
{
	unsigned int j, n = kmp_chunks_n, size = kmp_chunk_size();
	struct kmp_spill *c;
	unsigned long flags;
	u32 base, free;

	if (n >= kmp_chunks_max)
		return false;
	c = __vmalloc(array_size(size, sizeof(*c) + sizeof(u32)),
		      GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (!c) {
		WRITE_ONCE(kmp_spill_grow_after, jiffies + KMP_GROW_RETRY);
		return false;
	}
	base = kmp_spill_n + (n << kmp_chunk_bits);
	for (j = 0; j + 1 < size; j++)
		c[j].next = base + j + 1;
	WRITE_ONCE(kmp_spill_chunks[n], c);
	raw_spin_lock_irqsave(&kmp_spill_free.lock, flags);
	c[size - 1].next = kmp_spill_free.head;
	kmp_spill_free.head = base;
	kmp_spill_free.count += size;
	free = kmp_spill_free.count;
	WRITE_ONCE(kmp_chunks_n, n + 1);
	raw_spin_unlock_irqrestore(&kmp_spill_free.lock, flags);
	/* a chunk ahead of the adds, if they took this one meanwhile */
	return free < size;
}

/* The work: chunks until a chunk's worth of entries is free. */
static void kmp_spill_grow_fn(struct work_struct *work)
{
	mutex_lock(&kmp_spill_grow_lock);
	while (kmp_spill_grow_one())
		cond_resched();
	/* the next add below the mark queues again */
	WRITE_ONCE(kmp_spill_grow_queued, false);
	mutex_unlock(&kmp_spill_grow_lock);
}

/* Replace the object of @key in the spill, the old one into @old. */
static bool kmp_spill_replace(unsigned long key, const struct kmp_obj *obj,
			      struct kmp_obj *old)
{
	u32 i, bucket = kmp_spill_bucket(key);

	raw_spin_lock(kmp_spill_lock(bucket));
	i = kmp_spill_find(bucket, key, NULL);
	if (i != KMP_NIL) {
		kmp_spill_get(i, old);
		kmp_spill_set(i, obj);
	}
	raw_spin_unlock(kmp_spill_lock(bucket));
	return i != KMP_NIL;
}

/* Add @key, which is not there, to the spill; false when it is full. */
static bool kmp_spill_add(unsigned long key, const struct kmp_obj *obj)
{
	u32 bucket = kmp_spill_bucket(key);
	struct kmp_spill *e;
	u32 i, free;

	raw_spin_lock(kmp_spill_lock(bucket));
	raw_spin_lock(&kmp_spill_free.lock);
	i = kmp_spill_free.head;
	if (i != KMP_NIL) {
		kmp_spill_free.head = kmp_spill_entry(i)->next;
		kmp_spill_free.count--;
	}
	free = kmp_spill_free.count;
	raw_spin_unlock(&kmp_spill_free.lock);
	if (i != KMP_NIL) {
		e = kmp_spill_entry(i);
		e->key = key;
		kmp_spill_set(i, obj);
		e->next = kmp_spill_heads[bucket];
		kmp_spill_heads[bucket] = i;
	}
	raw_spin_unlock(kmp_spill_lock(bucket));
	kmp_spill_want_grow(free);
	return i != KMP_NIL;
}

static bool kmp_spill_remove(unsigned long key, struct kmp_obj *obj)
{
	u32 bucket = kmp_spill_bucket(key);
	struct kmp_spill *e;
	u32 i, *link;

	raw_spin_lock(kmp_spill_lock(bucket));
	i = kmp_spill_find(bucket, key, &link);
	if (i != KMP_NIL) {
		kmp_spill_get(i, obj);
		e = kmp_spill_entry(i);
		*link = e->next;
		raw_spin_lock(&kmp_spill_free.lock);
		e->next = kmp_spill_free.head;
		kmp_spill_free.head = i;
		kmp_spill_free.count++;
		raw_spin_unlock(&kmp_spill_free.lock);
	}
	raw_spin_unlock(kmp_spill_lock(bucket));
	return i != KMP_NIL;
}

/*
 * Record a new object; with interrupts off. If its key is live already,
 * the old object was freed without an event (kfree_bulk(), kfree_rcu()
 * batches and other untraced paths): KMP_INS_STALE, with the old object
 * in @old. KMP_INS_FULL when neither its group nor the spill has room.
 * @slots: whether a new key may take a slot, or goes to the spill.
 */
static __always_inline enum kmp_insert
__kmp_live_insert(unsigned long key, const struct kmp_obj *obj,
		  struct kmp_obj *old, bool slots)
{
	u32 g = kmp_live_group(key);
	struct kmp_slot *s = kmp_live_slots(g);
	unsigned int i;
	int empty;

retry:
	empty = -1;
	for (i = 0; i < KMP_GROUP; i++) {
		unsigned long k = READ_ONCE(s[i].key);

		if (k == key) {
			/* Ours alone (see the notes): take it over. */
			if (cmpxchg(&s[i].key, key, KMP_BUSY) != key)
				goto retry;
			kmp_slot_get(&s[i], old);
			kmp_slot_publish(&s[i], key, obj);
			return KMP_INS_STALE;
		}
		if (!k && empty < 0)
			empty = i;
	}
	if (atomic_read(&kmp_tab.group_spill[g]) &&
	    kmp_spill_replace(key, obj, old))
		return KMP_INS_STALE;
	if (slots && empty >= 0) {
		if (cmpxchg(&s[empty].key, 0, KMP_BUSY) != 0)
			goto retry;
		kmp_slot_publish(&s[empty], key, obj);
		return KMP_INS_NEW;
	}
	atomic_inc(&kmp_tab.group_spill[g]);
	if (kmp_spill_add(key, obj))
		return KMP_INS_NEW;
	atomic_dec(&kmp_tab.group_spill[g]);
	return KMP_INS_FULL;
}

enum kmp_insert kmp_live_insert(unsigned long key, const struct kmp_obj *obj,
				struct kmp_obj *old)
{
	return __kmp_live_insert(key, obj, old, true);
}

/*
 * The same, but a new key goes to the spill, where the fast paths never
 * look: for the allocations that events in NMI left for later (nmi.c).
 */
enum kmp_insert kmp_live_insert_spill(unsigned long key,
				      const struct kmp_obj *obj,
				      struct kmp_obj *old)
{
	return __kmp_live_insert(key, obj, old, false);
}

/* Take the object of @key out of the table, or return false. */
bool kmp_live_remove(unsigned long key, struct kmp_obj *obj)
{
	u32 g = kmp_live_group(key);

	if (kmp_live_slots_remove(key, obj))
		return true;
	if (!atomic_read(&kmp_tab.group_spill[g]) || !kmp_spill_remove(key, obj))
		return false;
	atomic_dec(&kmp_tab.group_spill[g]);
	return true;
}

/*
 * A walk's read of a slot's object (kmp_slot_get()'s reads), its time
 * from @times, or none where @times is NULL.
 */
static void kmp_walk_read(const struct kmp_slot *s, const u64 *times,
			  unsigned long key, struct kmp_obj *obj)
{
	obj->tag = READ_ONCE(s->tag);
	obj->size = READ_ONCE(s->size);
	obj->req = READ_ONCE(s->req);
	kmp_walk_test_point(key);
	kmp_time_cpu_split(times ? READ_ONCE(times[s - kmp_tab.slots]) : 0,
			   obj);
	obj->own = kmp_slot_owner(s);
}

/*
 * A walk's reading of slot @s: true, with its key in *@keyp and its object
 * in @obj, all from one publish of the slot; false if the slot is empty or
 * being written, or changed under each of KMP_WALK_TRIES readings. The
 * notes say why the sequence number read first and last, with the key
 * read twice between, is enough.
 */
static bool kmp_walk_slot(const struct kmp_slot *s, const u64 *times,
			  unsigned long *keyp, struct kmp_obj *obj)
{
	unsigned int tries;
	unsigned long key;
	u32 seq;

	for (tries = 0; tries < KMP_WALK_TRIES; tries++) {
		seq = READ_ONCE(s->seq);
		smp_rmb();	/* the sequence number before the key */
		/* pairs with kmp_slot_publish()'s release */
		key = smp_load_acquire(&s->key);
		if (!key || key == KMP_BUSY)
			return false;
		kmp_walk_read(s, times, key, obj);
		smp_rmb();	/* the object before the key again */
		if (smp_load_acquire(&s->key) == key &&
		    READ_ONCE(s->seq) == seq) {
			*keyp = key;
			return true;
		}
	}
	return false;
}

/*
 * Whether @key is live, with its object in @obj; the table is left as it
 * is. A slot is read as the walkers read it (kmp_walk_slot()): an object
 * whose key or sequence number changed meanwhile is not returned. With
 * interrupts off.
 */
bool kmp_live_read(unsigned long key, struct kmp_obj *obj)
{
	u32 i, bucket, g = kmp_live_group(key);
	struct kmp_slot *s;
	unsigned long k;

	/* One publish of the slot, as a walker takes it, and of @key. */
	if (kmp_live_find(key, &s))
		return kmp_walk_slot(s, READ_ONCE(kmp_tab.times), &k, obj) &&
		       k == key;
	if (!atomic_read(&kmp_tab.group_spill[g]))
		return false;
	bucket = kmp_spill_bucket(key);
	raw_spin_lock(kmp_spill_lock(bucket));
	i = kmp_spill_find(bucket, key, NULL);
	if (i != KMP_NIL)
		kmp_spill_get(i, obj);
	raw_spin_unlock(kmp_spill_lock(bucket));
	return i != KMP_NIL;
}

/*
 * Call @fn on every live object. Slots are read without a lock (see the
 * notes), with no time while histograms and lifetimes are off; spill
 * chains one at a time under their lock, with interrupts off: @fn must be
 * short and must not sleep. Caller holds kmp_control_lock, so the mode
 * stays as it is.
 */
void kmp_live_walk(void (*fn)(unsigned long key, const struct kmp_obj *obj,
			      void *priv), void *priv)
{
	unsigned long nslots = (unsigned long)KMP_GROUP << kmp_group_bits;
	unsigned long i, key, flags;
	const u64 *times = NULL;
	struct kmp_obj obj;
	u32 b, e;

	if (READ_ONCE(kmp_mode) & (KMP_M_HIST | KMP_M_LIFE))
		times = kmp_tab.times;
	for (i = 0; i < nslots; i++) {
		if (kmp_walk_slot(&kmp_tab.slots[i], times, &key, &obj))
			fn(key, &obj, priv);
		if (!(i & 4095))
			cond_resched();
	}
	for (b = 0; b < (1U << kmp_spill_bits); b++) {
		if (READ_ONCE(kmp_spill_heads[b]) == KMP_NIL)
			continue;
		raw_spin_lock_irqsave(kmp_spill_lock(b), flags);
		for (e = kmp_spill_heads[b]; e != KMP_NIL;
		     e = kmp_spill_entry(e)->next) {
			kmp_spill_get(e, &obj);
			fn(kmp_spill_entry(e)->key, &obj, priv);
		}
		raw_spin_unlock_irqrestore(kmp_spill_lock(b), flags);
		cond_resched();
	}
}

/*
 * Empty the table, its chunks kept. Only with every probe detached and no
 * walker; in process context.
 */
void kmp_live_clear(void)
{
	unsigned long ngroups = 1UL << kmp_group_bits;
	unsigned int total, size = kmp_chunk_size();
	u32 i;

	memset(kmp_tab.slots, 0,
	       array_size(ngroups * KMP_GROUP, sizeof(*kmp_tab.slots)));
	memset(kmp_tab.group_spill, 0,
	       array_size(ngroups, sizeof(*kmp_tab.group_spill)));
	if (kmp_tab.times)
		memset(kmp_tab.times, 0,
		       array_size(ngroups * KMP_GROUP, sizeof(*kmp_tab.times)));
	kmp_live_owners_zero();
	for (i = 0; i < (1U << kmp_spill_bits); i++)
		kmp_spill_heads[i] = KMP_NIL;
	/* no chunk comes in meanwhile (see the notes) */
	mutex_lock(&kmp_spill_grow_lock);
	total = kmp_spill_total();
	for (i = 0; i < total; i++) {
		kmp_spill_entry(i)->next = i + 1 < total ? i + 1 : KMP_NIL;
		if (i >= kmp_spill_n && !((i - kmp_spill_n) & (size - 1)))
			cond_resched();
	}
	kmp_spill_free.head = total ? 0 : KMP_NIL;
	kmp_spill_free.count = total;
	mutex_unlock(&kmp_spill_grow_lock);
}

/* Entries in use: a scan of the keys, for the stats view. */
u32 kmp_live_used(void)
{
	unsigned long nslots = (unsigned long)KMP_GROUP << kmp_group_bits;
	unsigned long i, flags;
	u32 used;

	raw_spin_lock_irqsave(&kmp_spill_free.lock, flags);
	used = kmp_spill_total() - kmp_spill_free.count;
	raw_spin_unlock_irqrestore(&kmp_spill_free.lock, flags);

	for (i = 0; i < nslots; i++) {
		unsigned long key = READ_ONCE(kmp_tab.slots[i].key);

		if (key && key != KMP_BUSY)
			used++;
		if (!(i & 65535))
			cond_resched();
	}
	return used;
}

/*
 * Histograms or lifetimes go from off to on, with kmp_control_lock held
 * (kmp_mode_update()), before the mode and kmp_time_key: the times,
 * allocated the first time and zeroed each time after (see the notes).
 * -ENOMEM, with nothing changed, if they cannot be allocated.
 */
/* Zero the times, if there are any: with kmp_control_lock held. */
void kmp_live_times_zero(void)
{
	u64 *times = kmp_tab.times;

	if (times)
		memset(times, 0, array_size((size_t)KMP_GROUP << kmp_group_bits,
					    sizeof(*times)));
}

int kmp_live_times_on(void)
{
	size_t bytes = array_size((size_t)KMP_GROUP << kmp_group_bits,
				  sizeof(*kmp_tab.times));
	u64 *times = kmp_tab.times;

	if (times) {
		memset(times, 0, bytes);
		return 0;
	}
	times = vzalloc(bytes);
	if (!times)
		return -ENOMEM;
	/* zeroed before it is seen: pairs with kmp_slot_time()'s READ_ONCE */
	smp_store_release(&kmp_tab.times, times);
	return 0;
}

/*
 * Zero the owner lines of slots and spill entries, if there are any: with
 * kmp_control_lock held and no charger running (owners.c's notes), or at
 * a clear.
 */
void kmp_live_owners_zero(void)
{
	size_t nslots = (size_t)KMP_GROUP << kmp_group_bits;
	unsigned int c, size = kmp_chunk_size();

	if (kmp_live_owners)
		memset(kmp_live_owners, 0, array_size(nslots, sizeof(u32)));
	if (!kmp_spill_owners)
		return;
	memset(kmp_spill_owners, 0,
	       array_size(max(kmp_spill_n, 1U), sizeof(u32)));
	mutex_lock(&kmp_spill_grow_lock);
	for (c = 0; c < kmp_chunks_n; c++)
		memset(kmp_spill_chunks[c] + size, 0,
		       array_size(size, sizeof(u32)));
	mutex_unlock(&kmp_spill_grow_lock);
}

/*
 * Owners go on, with kmp_control_lock held (kmp_mode_update()): the
 * owner lines of slots and spill entries, allocated the first time, 4
 * bytes an entry, and zeroed each time. -ENOMEM, with nothing changed,
 * if they cannot be allocated.
 */
int kmp_live_owners_on(void)
{
	size_t nslots = (size_t)KMP_GROUP << kmp_group_bits;
	u32 *slots, *spill;

	if (kmp_live_owners) {
		kmp_live_owners_zero();
		return 0;
	}
	slots = vzalloc(array_size(nslots, sizeof(u32)));
	spill = vzalloc(array_size(max(kmp_spill_n, 1U), sizeof(u32)));
	if (!slots || !spill) {
		vfree(slots);
		vfree(spill);
		return -ENOMEM;
	}
	/* zeroed before they are seen: pairs with the READ_ONCE()s */
	smp_store_release(&kmp_spill_owners, spill);
	/* the same, for the slots' */
	smp_store_release(&kmp_live_owners, slots);
	return 0;
}

size_t kmp_live_memory(void)
{
	unsigned long ngroups = 1UL << kmp_group_bits;
	size_t times = 0;

	if (READ_ONCE(kmp_tab.times))
		times = ngroups * KMP_GROUP * sizeof(*kmp_tab.times);
	if (READ_ONCE(kmp_live_owners))
		times += ngroups * KMP_GROUP * sizeof(u32) +
			 (size_t)max(kmp_spill_n, 1U) * sizeof(u32);
	return ngroups * (KMP_GROUP * sizeof(struct kmp_slot) +
			  sizeof(atomic_t)) + times +
	       (size_t)max(kmp_spill_n, 1U) * sizeof(struct kmp_spill) +
	       (sizeof(u32) << kmp_spill_bits) +
	       (size_t)max(kmp_chunks_max, 1U) * sizeof(*kmp_spill_chunks) +
	       ((size_t)READ_ONCE(kmp_chunks_n) << kmp_chunk_bits) *
	       (sizeof(struct kmp_spill) + sizeof(u32));
}

/* Entries the table has grown by, and may grow by in all. */
u32 kmp_live_grown(void)
{
	return READ_ONCE(kmp_chunks_n) << kmp_chunk_bits;
}

u32 kmp_live_grow_max(void)
{
	return kmp_chunks_max << kmp_chunk_bits;
}

void kmp_live_areas(kmp_area_fn fn, void *priv)
{
	unsigned long ngroups = 1UL << kmp_group_bits;
	unsigned int c;

	fn(kmp_tab.slots, array_size(ngroups * KMP_GROUP,
				     sizeof(*kmp_tab.slots)), priv);
	fn(kmp_tab.group_spill, array_size(ngroups,
					   sizeof(*kmp_tab.group_spill)), priv);
	fn(kmp_spill_pool, array_size(max(kmp_spill_n, 1U),
				      sizeof(*kmp_spill_pool)), priv);
	fn(kmp_spill_heads, array_size(1U << kmp_spill_bits,
				       sizeof(*kmp_spill_heads)), priv);
	if (kmp_tab.times)
		fn(kmp_tab.times, array_size(ngroups * KMP_GROUP,
					     sizeof(*kmp_tab.times)), priv);
	if (kmp_live_owners) {
		fn(kmp_live_owners, array_size(ngroups * KMP_GROUP,
					       sizeof(u32)), priv);
		fn(kmp_spill_owners, array_size(max(kmp_spill_n, 1U),
						sizeof(u32)), priv);
	}
	fn(kmp_spill_chunks, array_size(max(kmp_chunks_max, 1U),
					sizeof(*kmp_spill_chunks)), priv);
	mutex_lock(&kmp_spill_grow_lock);
	for (c = 0; c < kmp_chunks_n; c++)
		fn(kmp_spill_chunks[c],
		   array_size(kmp_chunk_size(),
			      sizeof(struct kmp_spill) + sizeof(u32)), priv);
	mutex_unlock(&kmp_spill_grow_lock);
}

int kmp_live_init(void)
{
	unsigned int i, groups, heads;
	u64 grow;

	init_irq_work(&kmp_spill_grow_iw, kmp_spill_grow_irq);
	WRITE_ONCE(kmp_spill_grow_queued, false);
	/* An eighth for the spill, the rest in whole groups, a power of 2. */
	groups = rounddown_pow_of_two(max(kmp_max_live / 8 * 7 / KMP_GROUP,
					  1U));
	kmp_group_bits = ilog2(groups);
	kmp_tab.group_shift = 32 - kmp_group_bits;
	kmp_spill_n = kmp_max_live - groups * KMP_GROUP;
	/* chunks of about an eighth of max_live, whole ones up to the cap */
	kmp_chunk_bits = clamp_t(unsigned int, ilog2(max(kmp_max_live / 8, 1U)),
				 KMP_CHUNK_MIN_BITS, KMP_CHUNK_MAX_BITS);
	grow = min_t(u64, (u64)kmp_live_grow * kmp_max_live, KMP_GROW_MAX);
	kmp_chunks_max = DIV_ROUND_UP_ULL(grow, kmp_chunk_size());
	kmp_chunks_n = 0;
	/* a bucket for two entries, or twelve of the grown, at least two */
	heads = max3(kmp_spill_n / 2,
		     (kmp_spill_n + (kmp_chunks_max << kmp_chunk_bits)) / 12,
		     2U);
	kmp_spill_bits = ilog2(roundup_pow_of_two(heads));
	kmp_tab.slots = vmalloc(array_size(groups * KMP_GROUP, sizeof(*kmp_tab.slots)));
	kmp_tab.group_spill = vmalloc(array_size(groups, sizeof(*kmp_tab.group_spill)));
	kmp_spill_pool = vmalloc(array_size(max(kmp_spill_n, 1U),
					    sizeof(*kmp_spill_pool)));
	kmp_spill_heads = vmalloc(array_size(1U << kmp_spill_bits,
					     sizeof(*kmp_spill_heads)));
	kmp_spill_chunks = vzalloc(array_size(max(kmp_chunks_max, 1U),
					      sizeof(*kmp_spill_chunks)));
	if (!kmp_tab.slots || !kmp_tab.group_spill || !kmp_spill_pool ||
	    !kmp_spill_heads || !kmp_spill_chunks) {
		kmp_live_exit();
		return -ENOMEM;
	}
	for (i = 0; i < KMP_SPILL_LOCKS; i++)
		raw_spin_lock_init(&kmp_spill_locks[i]);
	raw_spin_lock_init(&kmp_spill_free.lock);
	kmp_live_clear();
	return 0;
}

void kmp_live_exit(void)
{
	unsigned int c;

	/* no add queues a chunk any more: the probes are detached */
	WRITE_ONCE(kmp_spill_grow_queued, true);
	irq_work_sync(&kmp_spill_grow_iw);
	cancel_work_sync(&kmp_spill_grow_work);
	if (kmp_spill_chunks)
		for (c = 0; c < kmp_chunks_n; c++)
			vfree(kmp_spill_chunks[c]);
	vfree(kmp_spill_chunks);
	kmp_spill_chunks = NULL;
	kmp_chunks_n = 0;
	vfree(kmp_tab.times);
	kmp_tab.times = NULL;
	vfree(kmp_live_owners);
	vfree(kmp_spill_owners);
	kmp_live_owners = NULL;
	kmp_spill_owners = NULL;
	vfree(kmp_spill_heads);
	vfree(kmp_spill_pool);
	vfree(kmp_tab.group_spill);
	vfree(kmp_tab.slots);
	kmp_spill_heads = NULL;
	kmp_spill_pool = NULL;
	kmp_tab.group_spill = NULL;
	kmp_tab.slots = NULL;
}
