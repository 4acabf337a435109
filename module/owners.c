// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: owners, the answer to "who made the kernel hold it" (issue
 * 41). While the owners knob is on (owners=task or owners=cgroup), the
 * general path (account.c) charges each allocation that it enters in the
 * live table to a line of (tag, owner), and the free that takes the
 * object out charges it back to the same line, wherever and whenever it
 * runs: the line's index is kept in the object's live entry (live.c, 4
 * bytes a slot and a spill entry, allocated the first time owners go
 * on). Two tables, each a pool of entries handed out by index and a hash
 * of RCU hlists over it:
 *
 * - The owners. owners=task: the thread group of current (tgid, and the
 *   group leader's start time, so that a tgid used again is another
 *   owner), with its group leader's comm as of its last allocation (a
 *   fork's child is first seen with its parent's comm, and takes its
 *   program's at the first allocation after its exec or rename:
 *   kmp_owner_renamed()); owners=cgroup:
 *   current's cgroup v2 group (cgroup_id()), whose path a work item makes
 *   once, soon after (kernfs_path() takes a lock that the probes may not).
 *   In both, fixed owners for hard interrupt, softirq and NMI context,
 *   and one per kernel thread name, kworker/... folded into "kworker".
 * - The lines: live bytes, live objects and the allocations charged, as
 *   atomics. Exact under the rules of the tags' counts: a line is charged
 *   before its object is entered, and charged back after it is taken out.
 *
 * Entries are never given back before a clear (a reset, or owners going
 * on again): an owner whose process or cgroup is gone keeps its lines,
 * which the views show until they reach zero. A full pool (max_owners,
 * max_owner_lines) charges the allocation to no owner, counted in
 * drop.owners; the tags count it as ever.
 *
 * Notes on locking and ordering:
 *
 * - Inserts take kmp_owner_locks[bucket % KMP_OWNER_LOCKS] (raw
 *   spinlocks), from the general path with interrupts already off, never
 *   in NMI (nmi.c's records are charged when they are applied, to the NMI
 *   owner). They look again under the lock, reserve the pool's next index,
 *   write the entry, publish it for the index walkers with a release of
 *   its type (owners) or owner index (lines), and add it to its chain with
 *   hlist_add_head_rcu(), whose rcu_assign_pointer() is a release too.
 *   Nothing else nests inside or around these locks.
 * - Lookups take no lock: hlist_for_each_entry_rcu() in the general path,
 *   whose interrupts-off section is an RCU read-side critical section;
 *   the chain's pointers are read with dependency ordering, so an entry
 *   found is seen whole.
 * - The views walk the pools by index, up to the count read first, and
 *   skip an entry whose type or owner index, read with an acquire that
 *   pairs with the insert's release, is still 0 (reserved, not written).
 *   debugfs's owners view holds kmp_control_lock; the OOM report
 *   (oom.c) holds nothing but runs in a tracepoint probe, an RCU reader.
 * - A line's counters are atomics, changed with no ordering of their own:
 *   the charge is program-ordered before the release that publishes the
 *   object in the live table (live.c), and the free that takes it out
 *   reads the key with an acquire before it charges back, so the charge
 *   happens before the charge back and no line goes below zero.
 * - kmp_owners_clear() runs only when no charger can (every probe
 *   detached, or the owners bit out of kmp_mode and
 *   tracepoint_synchronize_unregister() since: control.c): it empties the
 *   chains, sets the counts back, waits out RCU readers (the OOM report)
 *   with synchronize_rcu(), and only then zeroes the pools for reuse.
 *   control.c then puts the owner bits back in kmp_mode with a release,
 *   and kmp_owner_charge() reads the mode again with an acquire before it
 *   reads a table: a charger sees the tables empty.
 * - The naming work (cgroup paths) runs from an irq_work that an insert
 *   raises (lock-free, any context), under kmp_owner_name_lock (a mutex,
 *   process context: the work, and a view that names what is pending
 *   before it prints, kmp_owners_name_pending()). It reads an owner's cgroup pointer
 *   after the acquire of its type, makes the path, and publishes it with
 *   a release; the views read it with an acquire. The insert took a
 *   reference to the cgroup (cgroup_tryget(), lock-free), which the work
 *   drops, or the clear for a path never made.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/hardirq.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "internal.h"
#include "options.h"
#include "owners.h"
#include "stat.h"

#define KMP_OWNER_LOCKS	64

unsigned int kmp_max_owners = 2048;
unsigned int kmp_max_olines = 16384;

static struct kmp_owner *kmp_owner_pool;
static struct hlist_head *kmp_owner_hash;
static unsigned int kmp_owner_bits;
static atomic_t kmp_owners_n = ATOMIC_INIT(1);	/* index 0 is no owner */
static struct kmp_oline *kmp_oline_pool;
static struct hlist_head *kmp_oline_hash;
static unsigned int kmp_oline_bits;
static atomic_t kmp_olines_n = ATOMIC_INIT(1);	/* index 0 is no line */
static raw_spinlock_t kmp_owner_locks[KMP_OWNER_LOCKS];
static raw_spinlock_t kmp_oline_locks[KMP_OWNER_LOCKS];

/*
 * For the KUnit suites (testhooks.c): the pools' counts capped, 0: not.
 * Only the test build's hooks set them.
 */
unsigned int kmp_test_owner_cap, kmp_test_oline_cap;

static unsigned int kmp_owners_cap(unsigned int max, unsigned int *cap)
{
	unsigned int c = READ_ONCE(*cap);

	return c ? min(max, c) : max;
}

static void kmp_owner_name_fn(struct work_struct *work);
static DEFINE_MUTEX(kmp_owner_name_lock);
static DECLARE_WORK(kmp_owner_work, kmp_owner_name_fn);

static void kmp_owner_kick_fn(struct irq_work *work)
{
	schedule_work(&kmp_owner_work);
}

static struct irq_work kmp_owner_kick;

/* Who current is, as an owner's key. */
struct kmp_okey {
	u64 id;
	u64 start;
	u8 type;
	char comm[TASK_COMM_LEN];
};

/*
 * current's comm, copied without its task lock: set_task_comm() writes
 * it in place under that lock, so a read beside it may mix two names, but
 * it never leaves the array, and the last byte is made NUL whatever was
 * read (the copy get_task_comm() makes from 6.14 on, without the lock).
 */
static void kmp_comm_copy(char *dst)
{
	unsigned int i;

	for (i = 0; i < TASK_COMM_LEN - 1; i++) {
		dst[i] = READ_ONCE(current->comm[i]);
		if (!dst[i])
			break;
	}
	for (; i < TASK_COMM_LEN; i++)
		dst[i] = '\0';
}

/*
 * @leader's comm, copied without its task lock, as kmp_comm_copy() copies
 * current's: a read beside set_task_comm() may mix two names, but never
 * leaves the array, and the last byte is NUL whatever was read.
 */
static void kmp_leader_comm(const struct task_struct *leader, char *dst)
{
	unsigned int i;

	for (i = 0; i < TASK_COMM_LEN - 1; i++) {
		dst[i] = READ_ONCE(leader->comm[i]);
		if (!dst[i])
			break;
	}
	for (; i < TASK_COMM_LEN; i++)
		dst[i] = '\0';
}

static void kmp_owner_key(unsigned int mode, bool nmi, struct kmp_okey *k)
{
	k->start = 0;
	k->id = 0;
	if (nmi) {
		k->type = KMP_OWN_NMI;
		return;
	}
	if (hardirq_count()) {
		k->type = KMP_OWN_IRQ;
		return;
	}
	if (softirq_count() & SOFTIRQ_OFFSET) {
		k->type = KMP_OWN_SOFTIRQ;
		return;
	}
	if (current->flags & PF_KTHREAD) {
		k->type = KMP_OWN_KTHREAD;
		kmp_comm_copy(k->comm);
		/* "kworker/0:1H", "kworker/u8:2-events": one owner */
		if (!strncmp(k->comm, "kworker/", 8))
			memset(k->comm + 7, 0, TASK_COMM_LEN - 7);
		k->id = jhash(k->comm, TASK_COMM_LEN, 0);
		return;
	}
#ifdef CONFIG_CGROUPS
	if (mode & KMP_M_CGROUP) {
		k->type = KMP_OWN_CGROUP;
		rcu_read_lock();
		k->id = cgroup_id(task_dfl_cgroup(current));
		rcu_read_unlock();
		return;
	}
#endif
	k->type = KMP_OWN_TASK;
	k->id = task_tgid_nr(current);
	k->start = READ_ONCE(current->group_leader)->start_time;
}

static u32 kmp_owner_bucket(const struct kmp_okey *k)
{
	return hash_64(k->id ^ k->start ^ ((u64)k->type << 56),
		       kmp_owner_bits);
}

static bool kmp_owner_is(const struct kmp_owner *o, const struct kmp_okey *k)
{
	return o->type == k->type && o->id == k->id && o->start == k->start &&
	       (k->type != KMP_OWN_KTHREAD ||
		!memcmp(o->comm, k->comm, TASK_COMM_LEN));
}

static struct kmp_owner *kmp_owner_find(u32 b, const struct kmp_okey *k)
{
	struct kmp_owner *o;

	hlist_for_each_entry_rcu(o, &kmp_owner_hash[b], hnode)
		if (kmp_owner_is(o, k))
			return o;
	return NULL;
}

/* A new owner for @k in bucket @b: its index, 0 when the pool is full. */
static u32 kmp_owner_add(u32 b, const struct kmp_okey *k)
{
	raw_spinlock_t *lock = &kmp_owner_locks[b % KMP_OWNER_LOCKS];
	struct kmp_owner *o;
	bool kick = false;
	int i;

	raw_spin_lock(lock);
	o = kmp_owner_find(b, k);
	if (o) {
		i = o - kmp_owner_pool;
		goto out;
	}
	i = kmp_pool_reserve(&kmp_owners_n,
			     kmp_owners_cap(kmp_max_owners + 1,
					    &kmp_test_owner_cap));
	if (i < 0) {
		i = 0;
		goto out;
	}
	o = &kmp_owner_pool[i];
	o->id = k->id;
	o->start = k->start;
	o->path = NULL;
	o->cgrp = NULL;
	if (k->type == KMP_OWN_TASK || k->type == KMP_OWN_KTHREAD) {
		if (k->type == KMP_OWN_TASK)
			kmp_leader_comm(READ_ONCE(current->group_leader),
					o->comm);
		else
			memcpy(o->comm, k->comm, TASK_COMM_LEN);
	}
#ifdef CONFIG_CGROUPS
	if (k->type == KMP_OWN_CGROUP) {
		struct cgroup *cgrp;

		rcu_read_lock();
		cgrp = task_dfl_cgroup(current);
		/* a group being removed: no path, only its id */
		if (cgroup_id(cgrp) == k->id && cgroup_tryget(cgrp)) {
			o->cgrp = cgrp;
			kick = true;
		}
		rcu_read_unlock();
	}
#endif
	/* the entry before its type: pairs with the walkers' acquire */
	smp_store_release(&o->type, k->type);
	hlist_add_head_rcu(&o->hnode, &kmp_owner_hash[b]);
out:
	raw_spin_unlock(lock);
	if (kick)
		irq_work_queue(&kmp_owner_kick);
	return i;
}

/*
 * A task owner whose group leader's comm is no longer the one it has (a
 * fork's child first seen before its exec, a process that renamed
 * itself): the new one. A view's read beside this write, or another
 * thread's write of the same name, may see two names mixed for that
 * moment; the last byte stays NUL.
 */
static void kmp_owner_renamed(struct kmp_owner *o,
			      const struct task_struct *leader)
{
	char comm[TASK_COMM_LEN];
	unsigned int i;

	kmp_leader_comm(leader, comm);
	for (i = 0; i < TASK_COMM_LEN - 1; i++)
		WRITE_ONCE(o->comm[i], comm[i]);
}

static u32 kmp_owner_now(unsigned int mode, bool nmi)
{
	struct kmp_okey k;
	struct kmp_owner *o;
	u32 b;

	kmp_owner_key(mode, nmi, &k);
	b = kmp_owner_bucket(&k);
	o = kmp_owner_find(b, &k);
	if (likely(o)) {
		const struct task_struct *leader;

		if (k.type != KMP_OWN_TASK)
			return o - kmp_owner_pool;
		leader = READ_ONCE(current->group_leader);
		if (unlikely(memcmp(o->comm, leader->comm, TASK_COMM_LEN - 1)))
			kmp_owner_renamed(o, leader);
		return o - kmp_owner_pool;
	}
	return kmp_owner_add(b, &k);
}

static u32 kmp_oline_bucket(u32 tag, u32 owner)
{
	return hash_64((u64)tag << 32 | owner, kmp_oline_bits);
}

static struct kmp_oline *kmp_oline_find(u32 b, u32 tag, u32 owner)
{
	struct kmp_oline *l;

	hlist_for_each_entry_rcu(l, &kmp_oline_hash[b], hnode)
		if (l->tag == tag && l->owner == owner)
			return l;
	return NULL;
}

static u32 kmp_oline_add(u32 b, u32 tag, u32 owner)
{
	raw_spinlock_t *lock = &kmp_oline_locks[b % KMP_OWNER_LOCKS];
	struct kmp_oline *l;
	int i;

	raw_spin_lock(lock);
	l = kmp_oline_find(b, tag, owner);
	if (l) {
		i = l - kmp_oline_pool;
		goto out;
	}
	i = kmp_pool_reserve(&kmp_olines_n,
			     kmp_owners_cap(kmp_max_olines + 1,
					    &kmp_test_oline_cap));
	if (i < 0) {
		i = 0;
		goto out;
	}
	l = &kmp_oline_pool[i];
	l->tag = tag;
	atomic64_set(&l->bytes, 0);
	atomic64_set(&l->objs, 0);
	atomic64_set(&l->allocs, 0);
	/* the entry before its owner: pairs with the walkers' acquire */
	smp_store_release(&l->owner, owner);
	hlist_add_head_rcu(&l->hnode, &kmp_oline_hash[b]);
out:
	raw_spin_unlock(lock);
	return i;
}

/*
 * Charge @n objects of @bytes of tag @tag to current's owner (@mode:
 * kmp_mode's owner bits; @nmi: an event that ran in NMI): the line's
 * index for the object's live entry, or 0 where a pool is full
 * (drop.owners). With interrupts off, never in NMI.
 */
u32 kmp_owner_charge(u32 tag, unsigned int mode, bool nmi, u32 bytes, u32 n)
{
	struct kmp_oline *l;
	u32 owner, b, i;

	/*
	 * The tables were emptied before the owner bits went into the mode
	 * (control.c): read again with an acquire that pairs with that
	 * release, before the tables are.
	 */
	mode = smp_load_acquire(&kmp_mode);
	if (unlikely(!(mode & KMP_M_OWNERS)))
		return 0;
	owner = kmp_owner_now(mode, nmi);
	if (unlikely(!owner))
		goto drop;
	b = kmp_oline_bucket(tag, owner);
	l = kmp_oline_find(b, tag, owner);
	if (likely(l)) {
		i = l - kmp_oline_pool;
	} else {
		i = kmp_oline_add(b, tag, owner);
		if (!i)
			goto drop;
		l = &kmp_oline_pool[i];
	}
	atomic64_add((u64)bytes * n, &l->bytes);
	atomic64_add(n, &l->objs);
	atomic64_add(n, &l->allocs);
	return i;
drop:
	/* drop.owners: apart from count[], at the end of kmp_stats (stat.h) */
	kmp_add(this_cpu_ptr(&kmp_stats.owner_drops), 1);
	return 0;
}

/* An object of line @line (not 0) freed, standing for @n. */
void kmp_owner_uncharge(u32 line, u32 bytes, u32 n)
{
	struct kmp_oline *l = &kmp_oline_pool[line];

	atomic64_sub((u64)bytes * n, &l->bytes);
	atomic64_sub(n, &l->objs);
}

/* A page block of line @line split into @n more parts (account.c). */
void kmp_owner_split(u32 line, u32 n)
{
	atomic64_add(n, &kmp_oline_pool[line].objs);
	atomic64_add(n, &kmp_oline_pool[line].allocs);
}

u32 kmp_olines_used(void)
{
	return kmp_oline_pool ? atomic_read(&kmp_olines_n) : 0;
}

u32 kmp_owners_used(void)
{
	return kmp_owner_pool ? atomic_read(&kmp_owners_n) : 0;
}

const struct kmp_oline *kmp_oline_at(u32 idx)
{
	const struct kmp_oline *l;

	if (!idx || idx >= kmp_olines_used())
		return NULL;
	l = &kmp_oline_pool[idx];
	/* pairs with the release in kmp_oline_add() */
	return smp_load_acquire(&l->owner) ? l : NULL;
}

const struct kmp_owner *kmp_owner_at(u32 idx)
{
	const struct kmp_owner *o;

	if (!idx || idx >= kmp_owners_used())
		return NULL;
	o = &kmp_owner_pool[idx];
	/* pairs with the release in kmp_owner_add() */
	return smp_load_acquire(&o->type) ? o : NULL;
}

/*
 * @src into @dst as one token of a view's line: a byte that would end or
 * split the token (a space, a control byte, '\\') as \xHH. Up to @len
 * bytes with the NUL; returns the length.
 */
static size_t kmp_owner_escape(char *dst, size_t len, const char *src,
			       size_t max)
{
	size_t n = 0, i;

	for (i = 0; i < max && src[i] && n + 5 < len; i++) {
		unsigned char c = src[i];

		if (c <= ' ' || c == '\\' || c >= 0x7f)
			n += scnprintf(dst + n, len - n, "\\x%02x", c);
		else
			dst[n++] = c;
	}
	dst[n] = '\0';
	return n;
}

/*
 * The owner's fields of a line, after the site's: " owner:<comm>
 * tgid:<n>" (a task), " cgroup:<path> cgroup_id:<n>" (a cgroup, its path
 * "?" until made), " owner:[<name>]" (a kernel thread, or [irq],
 * [softirq], [nmi]). Into @buf of @len (KMP_OWNER_TEXT_LEN); returns the
 * length. Takes no lock: the views' and the OOM report's.
 */
size_t kmp_owner_text(const struct kmp_owner *o, char *buf, size_t len)
{
	char name[KMP_OWNER_TEXT_LEN / 2];
	const char *path;

	switch (o->type) {
	case KMP_OWN_TASK:
		kmp_owner_escape(name, sizeof(name), o->comm, TASK_COMM_LEN);
		return scnprintf(buf, len, " owner:%s tgid:%llu", name, o->id);
	case KMP_OWN_CGROUP:
		/* pairs with the release in kmp_owner_name_fn() */
		path = smp_load_acquire(&o->path);
		kmp_owner_escape(name, sizeof(name), path ?: "?", SIZE_MAX);
		return scnprintf(buf, len, " cgroup:%s cgroup_id:%llu", name,
				 o->id);
	case KMP_OWN_KTHREAD:
		kmp_owner_escape(name, sizeof(name), o->comm, TASK_COMM_LEN);
		return scnprintf(buf, len, " owner:[%s]", name);
	case KMP_OWN_IRQ:
		return scnprintf(buf, len, " owner:[irq]");
	case KMP_OWN_SOFTIRQ:
		return scnprintf(buf, len, " owner:[softirq]");
	case KMP_OWN_NMI:
		return scnprintf(buf, len, " owner:[nmi]");
	}
	return scnprintf(buf, len, " owner:?");
}

/* The paths of the cgroups seen since the last run. */
static void kmp_owner_name_fn(struct work_struct *work)
{
	static char buf[KMP_CGROUP_PATH];	/* under kmp_owner_name_lock */
	u32 i, used = kmp_owners_used();

	mutex_lock(&kmp_owner_name_lock);
	for (i = 1; i < used; i++) {
		struct kmp_owner *o = &kmp_owner_pool[i];
		struct cgroup *cgrp;
		const char *path;

		/* pairs with the release in kmp_owner_add() */
		if (smp_load_acquire(&o->type) != KMP_OWN_CGROUP || !o->cgrp)
			continue;
		cgrp = o->cgrp;
		o->cgrp = NULL;
#ifdef CONFIG_CGROUPS
		if (cgroup_path(cgrp, buf, sizeof(buf)) >= 0) {
			path = kstrdup(buf, GFP_KERNEL);
			if (path)	/* the text, then the pointer: the views */
				smp_store_release(&o->path, path);
		}
		cgroup_put(cgrp);
#endif
	}
	mutex_unlock(&kmp_owner_name_lock);
}

/* Process context: make the paths still to be made, now. */
void kmp_owners_name_pending(void)
{
	if (!kmp_owner_pool)
		return;
	irq_work_sync(&kmp_owner_kick);
	flush_work(&kmp_owner_work);
	kmp_owner_name_fn(NULL);
}

/*
 * Empty both tables: see the notes for when. The paths made are freed,
 * and the references of those still to be made dropped.
 */
void kmp_owners_clear(void)
{
	u32 i, used;

	if (!kmp_owner_pool)
		return;
	irq_work_sync(&kmp_owner_kick);
	cancel_work_sync(&kmp_owner_work);
	used = atomic_read(&kmp_owners_n);
	for (i = 0; i < (1U << kmp_owner_bits); i++)
		WRITE_ONCE(kmp_owner_hash[i].first, NULL);
	for (i = 0; i < (1U << kmp_oline_bits); i++)
		WRITE_ONCE(kmp_oline_hash[i].first, NULL);
	atomic_set(&kmp_owners_n, 1);
	atomic_set(&kmp_olines_n, 1);
	/* no reader of the old entries left (the OOM report: RCU) */
	synchronize_rcu();
	for (i = 1; i < used; i++) {
		struct kmp_owner *o = &kmp_owner_pool[i];

		kfree(o->path);
#ifdef CONFIG_CGROUPS
		if (o->cgrp)
			cgroup_put(o->cgrp);
#endif
	}
	memset(kmp_owner_pool, 0,
	       array_size(kmp_max_owners + 1, sizeof(*kmp_owner_pool)));
	memset(kmp_oline_pool, 0,
	       array_size(kmp_max_olines + 1, sizeof(*kmp_oline_pool)));
}

static void kmp_owners_free(void)
{
	vfree(kmp_owner_hash);
	vfree(kmp_oline_hash);
	vfree(kmp_owner_pool);
	vfree(kmp_oline_pool);
	kmp_owner_hash = NULL;
	kmp_oline_hash = NULL;
	kmp_owner_pool = NULL;
	kmp_oline_pool = NULL;
}

/*
 * The tables, made at the first owners=task or owners=cgroup, before the
 * owner bits enter kmp_mode, and kept until unload. With kmp_control_lock.
 */
int kmp_owners_init(void)
{
	u32 i;

	if (kmp_owner_pool)
		return 0;
	kmp_owner_bits = ilog2(roundup_pow_of_two(max(kmp_max_owners * 2, 2U)));
	kmp_oline_bits = ilog2(roundup_pow_of_two(max(kmp_max_olines * 2, 2U)));
	kmp_owner_hash = vzalloc(array_size(1U << kmp_owner_bits,
					    sizeof(*kmp_owner_hash)));
	kmp_oline_hash = vzalloc(array_size(1U << kmp_oline_bits,
					    sizeof(*kmp_oline_hash)));
	kmp_owner_pool = vzalloc(array_size(kmp_max_owners + 1,
					    sizeof(*kmp_owner_pool)));
	kmp_oline_pool = vzalloc(array_size(kmp_max_olines + 1,
					    sizeof(*kmp_oline_pool)));
	if (!kmp_owner_hash || !kmp_oline_hash || !kmp_owner_pool ||
	    !kmp_oline_pool) {
		kmp_owners_free();
		return -ENOMEM;
	}
	for (i = 0; i < KMP_OWNER_LOCKS; i++) {
		raw_spin_lock_init(&kmp_owner_locks[i]);
		raw_spin_lock_init(&kmp_oline_locks[i]);
	}
	init_irq_work(&kmp_owner_kick, kmp_owner_kick_fn);
	atomic_set(&kmp_owners_n, 1);
	atomic_set(&kmp_olines_n, 1);
	return 0;
}

/* At unload, every probe detached. */
void kmp_owners_exit(void)
{
	kmp_owners_clear();
	kmp_owners_free();
}

size_t kmp_owners_memory(void)
{
	if (!kmp_owner_pool)
		return 0;
	return (sizeof(struct hlist_head) << kmp_owner_bits) +
	       (sizeof(struct hlist_head) << kmp_oline_bits) +
	       (size_t)(kmp_max_owners + 1) * sizeof(struct kmp_owner) +
	       (size_t)(kmp_max_olines + 1) * sizeof(struct kmp_oline);
}

void kmp_owners_areas(kmp_area_fn fn, void *priv)
{
	if (!kmp_owner_pool)
		return;
	fn(kmp_owner_hash, sizeof(struct hlist_head) << kmp_owner_bits, priv);
	fn(kmp_oline_hash, sizeof(struct hlist_head) << kmp_oline_bits, priv);
	fn(kmp_owner_pool, (size_t)(kmp_max_owners + 1) *
	   sizeof(struct kmp_owner), priv);
	fn(kmp_oline_pool, (size_t)(kmp_max_olines + 1) *
	   sizeof(struct kmp_oline), priv);
}
