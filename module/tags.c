// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: alloc tags, one per (call site, kind).
 *
 * Notes on locking:
 *
 * - Tags come from a pool of max_tags entries allocated at load. A tag,
 *   once handed out, keeps its index until the module is unloaded, so live
 *   entries refer to their tag by index and tags are never freed while
 *   probes may run.
 * - kmp_tag_hash is an array of hlist_head. Lookups walk it with
 *   hlist_for_each_entry_rcu() (kmp_tag_lookup(), tags.h) and take no
 *   lock: under rcu_read_lock() here, and with interrupts off, which is a
 *   read section too, on the fast paths with key_depth (probes.h), which
 *   only ever look. Inserts and removals take the bucket's lock, one of
 *   kmp_tag_locks chosen by the bucket number: a raw spinlock, always
 *   with interrupts off (inserts come from the probes' general path,
 *   which runs with them off; removals use raw_spin_lock_irqsave()).
 *   Nothing nests inside it. A tag's key (site, kind, callers) is written before
 *   hlist_add_head_rcu() publishes it, with a release that the lookup's
 *   rcu_dereference() pairs with, and never changes after; a tag taken
 *   out (hlist_del_rcu()) keeps its link, and its memory is the pool's,
 *   so a lookup that is on it meanwhile walks on safely. A tag is found
 *   by a lookup before KMP_TAG_READY is set: its counters are there
 *   already (see the counters below), which is all the paths need.
 * - A tag leaves the hash only when the module its call site is in goes
 *   away (KMP_TAG_GONE, from main.c's module notifier, which serialises
 *   these calls); it stays in the pool with its counters, and its later
 *   frees still pair.
 * - The site table (kmp_tab.sites) indexes the tags keyed by site alone, and
 *   the frames a page event's walk passes over, for the inline fast path:
 *   open addressing, looked up without a lock (kmp_site_find()). Entries
 *   are added under kmp_sites_lock (raw spinlock, interrupts off): index
 *   and flags first, then the key with smp_store_release(), which the
 *   lookup's smp_load_acquire() pairs with. An entry is never changed
 *   again but to be made a tomb (KMP_SITE_TOMB) when its code goes away,
 *   and a tomb is never reused: a lookup that read a key reads the index
 *   and flags that were published with it. The one exception is a
 *   kmem_cache_alloc() site's cache (kmp_site_set_cache()), set once
 *   after the key, by the first event there that can read its slot, under
 *   kmp_sites_lock: sizes first, then the cache with smp_store_release();
 *   kmp_site_slot() reads the cache with smp_load_acquire() and the
 *   sizes after it, so a reader that sees the cache sees its sizes. The
 *   cache is never changed again: a site that allocates from other
 *   caches too (a cache passed in) takes their slots from the per-CPU
 *   table (probes.c). A cache destroyed and another made at its address
 *   with the same object size is charged the old slot, as the table
 *   would: nothing sees a cache's destruction, and the error is bounded
 *   by the slot's slack; each pair stays exact, the free taking its
 *   bytes from the live slot.
 * - A tag's texts (->text, ->ctext) are set once, with cmpxchg_release(),
 *   by the first reader or the module notifier, and read with
 *   smp_load_acquire(); they are freed at unload.
 * - A tag is visible to the views once KMP_TAG_READY is set, after its
 *   fields are written (set_bit after smp_wmb, test_bit then smp_rmb).
 * - Counters are per CPU, in blocks of KMP_CTR_BLOCK tags. The first
 *   KMP_CTR_LOAD blocks are allocated at load, the others by
 *   kmp_ctr_work as tags are handed out, KMP_CTR_AHEAD blocks ahead of
 *   them (a probe cannot allocate per-CPU memory). The work stores a
 *   block's pointer, then kmp_ctr_ready with smp_store_release(); a new
 *   tag's index is bounded by kmp_ctr_ready read with smp_load_acquire(),
 *   so a tag's block is always there before the tag is. A tag that finds
 *   no block ready is dropped, as where the pool is full. Every other
 *   reader of the blocks (reset, kmp_tags_areas()) bounds them by
 *   kmp_ctr_ready read with smp_load_acquire() too: a plain read could
 *   see the new bound before the block's pointer (arm64 reorders two
 *   loads), and zero or walk per_cpu_ptr(NULL). kmp_ctr_work never runs
 *   twice at once (one work item), is flushed before a reset, and at
 *   unload.
 * - Counters are written with plain adds on this CPU with interrupts off
 *   (kmp_add()). Readers sum
 *   frees before allocations, with smp_rmb() between: an allocation is
 *   counted before its object enters the live table, so a free that a
 *   reader sees always has its allocation seen too, and live counts never
 *   go below zero.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <kmemprof/format.h>

#include "internal.h"
#include "stat.h"
#include "tables.h"
#include "tags.h"

#define KMP_TAG_LOCKS		64

unsigned int kmp_max_tags = 16384;

/* Counter blocks allocated at load, and kept ready ahead of the tags. */
#define KMP_CTR_LOAD		2
#define KMP_CTR_AHEAD		2

struct kmp_tag *kmp_tag_pool;
static unsigned int kmp_ctr_nblocks;	/* room for max_tags */
static unsigned int kmp_ctr_ready;	/* allocated: see the notes */
struct hlist_head *kmp_tag_hash;	/* tags.h: the fast paths look too */
unsigned int kmp_tag_bits;
static raw_spinlock_t kmp_tag_locks[KMP_TAG_LOCKS];
static atomic_t kmp_ntags = ATOMIC_INIT(0);

/*
 * Naming in the background: a new tag kicks kmp_names_kick (an irq_work,
 * safe from the probes), which queues kmp_names_work, which names the tags
 * from kmp_names_next on. A read seldom has a name to look up.
 */
static u32 kmp_names_next;
static u64 kmp_names_ns;	/* time the work spent naming, in all */
static void kmp_names_fn(struct work_struct *work);
static DECLARE_WORK(kmp_names_work, kmp_names_fn);
static void kmp_ctr_fn(struct work_struct *work);
static DECLARE_WORK(kmp_ctr_work, kmp_ctr_fn);
static struct irq_work kmp_names_kick;

/* A tag's key: call site, kind, and with key_depth its callers. */
struct kmp_tag_key {
	unsigned long site;
	enum kmp_kind kind;
	const unsigned long *callers;
	unsigned int n;
};

/* The hash and the match are tags.h's, which the fast paths use too. */
static u32 kmp_tag_bucket(const struct kmp_tag_key *k)
{
	return kmp_tag_bucket_of_key(k->site, k->kind, k->callers, k->n);
}

static u32 kmp_tag_bucket_of(const struct kmp_tag *tag)
{
	struct kmp_tag_key k = {
		tag->site, tag->kind, tag->callers, tag->ncallers
	};

	return kmp_tag_bucket(&k);
}

static raw_spinlock_t *kmp_tag_lock(u32 bucket)
{
	return &kmp_tag_locks[bucket % KMP_TAG_LOCKS];
}

static DEFINE_RAW_SPINLOCK(kmp_sites_lock);
static unsigned int kmp_sites_used;

/* Add @key to the site table, unless it is there; full is not an error. */
void kmp_site_add(unsigned long key, u32 idx, u32 flags)
{
	unsigned long i = kmp_site_index(key), irq;
	unsigned int n;

	raw_spin_lock_irqsave(&kmp_sites_lock, irq);
	for (n = 0; n < KMP_SITE_PROBES; n++) {
		struct kmp_site *e = &kmp_tab.sites[i];

		if (e->key == key)
			break;
		if (!e->key) {
			e->ctr = kmp_tag_counters(idx);
			e->idx = idx;
			e->flags = flags;
			/* pairs with the acquire in kmp_site_find() */
			smp_store_release(&e->key, key);
			WRITE_ONCE(kmp_sites_used, kmp_sites_used + 1);
			break;
		}
		i = (i + 1) & kmp_tab.sites_mask;
	}
	raw_spin_unlock_irqrestore(&kmp_sites_lock, irq);
}

/*
 * The cache of a kmem_cache_alloc() site's entry @ce: @s, of @obj bytes
 * an object in slots of @slot, unless it has one (see the locking note).
 * Sizes that do not fit the entry leave it without: the table serves.
 */
void kmp_site_set_cache(const struct kmp_site *ce, const struct kmem_cache *s,
			unsigned int obj, unsigned int slot)
{
	struct kmp_site *e = (struct kmp_site *)ce;	/* the table's own */
	unsigned long irq;

	if (obj > U16_MAX || slot > U16_MAX)
		return;
	raw_spin_lock_irqsave(&kmp_sites_lock, irq);
	if (!e->cache) {
		e->obj = obj;
		e->slot = slot;
		/* pairs with the acquire in kmp_site_slot() */
		smp_store_release(&e->cache, s);
	}
	raw_spin_unlock_irqrestore(&kmp_sites_lock, irq);
}

static void kmp_site_drop(unsigned long key)
{
	unsigned long i = kmp_site_index(key), irq;
	unsigned int n;

	raw_spin_lock_irqsave(&kmp_sites_lock, irq);
	for (n = 0; n < KMP_SITE_PROBES && kmp_tab.sites[i].key; n++) {
		if (kmp_tab.sites[i].key == key) {
			WRITE_ONCE(kmp_tab.sites[i].key, KMP_SITE_TOMB);
			break;
		}
		i = (i + 1) & kmp_tab.sites_mask;
	}
	raw_spin_unlock_irqrestore(&kmp_sites_lock, irq);
}

/* Entries of the site table in use, tombs included. */
u32 kmp_sites_count(void)
{
	return READ_ONCE(kmp_sites_used);
}

u32 kmp_tags_used(void)
{
	return min_t(u32, atomic_read(&kmp_ntags), kmp_max_tags);
}

static struct kmp_tag *kmp_tag_find(u32 bucket, const struct kmp_tag_key *k)
{
	struct kmp_tag *tag;

	return kmp_tag_lookup(bucket, k->site, k->kind, k->callers, k->n,
			      &tag) ? tag : NULL;
}

/*
 * The tag of (site, kind, the first @n @callers), created on first use.
 * Runs in any context but NMI. Returns NULL, and counts a drop, when the
 * pool is full or its counters are not ready yet (see the notes).
 */
struct kmp_tag *kmp_tag_find_or_create(unsigned long site, enum kmp_kind kind,
				       const unsigned long *callers, unsigned int n)
{
	struct kmp_tag_key k = { site, kind, callers, n };
	u32 bucket = kmp_tag_bucket(&k);
	struct hlist_head *head = &kmp_tag_hash[bucket];
	struct kmp_tag *tag;
	bool relay = false;
	unsigned int ready;
	int idx;

	if (!n) {
		const struct kmp_site *e = kmp_site_find(kmp_site_key(site, kind));

		if (e && !(e->flags & KMP_SITE_FRAME))
			return &kmp_tag_pool[e->idx];
		relay = kind == KMP_KIND_SLAB && kmp_site_is_relay(site);
	}
	rcu_read_lock();
	tag = kmp_tag_find(bucket, &k);
	rcu_read_unlock();
	if (likely(tag))
		return tag;

	raw_spin_lock(kmp_tag_lock(bucket));
	tag = kmp_tag_find(bucket, &k);
	if (tag)
		goto out;
	/* bounded by the counters ready: pairs with kmp_ctr_grow()'s release */
	ready = smp_load_acquire(&kmp_ctr_ready);
	idx = kmp_pool_reserve(&kmp_ntags,
			       min(kmp_max_tags, ready * KMP_CTR_BLOCK));
	if (idx < 0) {
		kmp_stat_inc(KMP_ST_DROP_TAGS);
		goto out;
	}
	tag = &kmp_tag_pool[idx];
	tag->site = site;
	tag->kind = kind;
	tag->ncallers = n;
	memcpy(tag->callers, callers, n * sizeof(*callers));
	tag->text = NULL;
	tag->ctext = NULL;
	tag->hist = KMP_HIST_UNSET;
	if (relay)
		set_bit(KMP_TAG_RELAY, &tag->flags);
	hlist_add_head_rcu(&tag->hnode, head);
	smp_wmb();	/* fields before READY; pairs with kmp_tag_ready() */
	set_bit(KMP_TAG_READY, &tag->flags);
	if (!n)
		kmp_site_add(kmp_site_key(site, kind), idx,
			     relay ? KMP_SITE_SLOW : 0);
	irq_work_queue(&kmp_names_kick);
out:
	raw_spin_unlock(kmp_tag_lock(bucket));
	return tag;
}

/* Whether the views may read the tag at idx. */
bool kmp_tag_ready(u32 idx)
{
	if (!test_bit(KMP_TAG_READY, &kmp_tag_pool[idx].flags))
		return false;
	smp_rmb();	/* pairs with kmp_tag_find_or_create() */
	return true;
}

/*
 * Sums in locals, and @t written once at the end: /proc/kmemprof calls this
 * for every tag of a read.
 */
void kmp_tag_totals(u32 idx, struct kmp_totals *t)
{
	struct kmp_counters __percpu *ctr = kmp_tag_counters(idx);
	u64 allocs = 0, frees = 0, bytes = 0, freed = 0, req = 0, reqfreed = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct kmp_counters *c = per_cpu_ptr(ctr, cpu);

		frees += READ_ONCE(c->frees);
		freed += READ_ONCE(c->freed);
		reqfreed += READ_ONCE(c->reqfreed);
	}
	smp_rmb();	/* frees before allocs: see the notes on locking */
	for_each_possible_cpu(cpu) {
		const struct kmp_counters *c = per_cpu_ptr(ctr, cpu);

		allocs += READ_ONCE(c->allocs);
		bytes += READ_ONCE(c->bytes);
		req += READ_ONCE(c->req);
	}
	t->allocs = allocs;
	t->frees = frees;
	t->bytes = bytes;
	t->freed = freed;
	t->req = req;
	t->reqfreed = reqfreed;
	t->live_objs = max_t(s64, allocs - frees, 0);
	t->live_bytes = max_t(s64, bytes - freed, 0);
	t->live_req = max_t(s64, req - reqfreed, 0);
}

/*
 * A tag's texts are made once, at the first read that needs them (or when
 * its code goes away), and kept with their lengths: a symbol lookup per
 * line per read would make a read of 10k tags take seconds, and /proc's
 * lines copy the texts without a strlen(). Process context only. *@len,
 * unless @len is NULL, gets the text's length.
 */
static const char *kmp_tag_text(struct kmp_tag *tag,
				const struct kmp_text **slot, char *buf,
				bool callers, size_t *len)
{
	/* pairs with cmpxchg below */
	const struct kmp_text *t = smp_load_acquire(slot);
	struct kmp_text *dup;
	size_t n;

	if (t)
		goto out;
	/* kmp_sym() (names.c) looks symbols up under RCU itself. */
	if (callers)
		kmp_callers_text(tag, buf);
	else
		kmp_site_text(buf, tag->site);
	n = strlen(buf);
	dup = kmalloc(struct_size(dup, str, n + 1), GFP_KERNEL);
	if (!dup) {
		if (len)
			*len = n;
		return buf;
	}
	dup->len = n;
	memcpy(dup->str, buf, n + 1);
	t = cmpxchg_release(slot, NULL, dup);
	if (t)
		kfree(dup);	/* another reader, or the module notifier */
	else
		t = dup;
out:
	if (len)
		*len = t->len;
	return t->str;
}

/* "sym+0xoff/0xlen [mod] func:sym"; @buf: KMP_SITE_TEXT_LEN of scratch. */
const char *kmp_tag_site(struct kmp_tag *tag, char *buf, size_t *len)
{
	return kmp_tag_text(tag, &tag->text, buf, false, len);
}

/*
 * A stack-keyed tag's callers as " caller:<frame>" tokens, nearest first;
 * "" for tags keyed by site alone. @buf: KMP_CALLERS_TEXT_LEN of scratch.
 */
const char *kmp_tag_callers(struct kmp_tag *tag, char *buf, size_t *len)
{
	if (!tag->ncallers) {
		if (len)
			*len = 0;
		return "";
	}
	return kmp_tag_text(tag, &tag->ctext, buf, true, len);
}

static void kmp_names_fn(struct work_struct *work)
{
	static char buf[KMP_TAG_TEXT_LEN];	/* the work never runs twice at once */
	u32 idx = READ_ONCE(kmp_names_next), used = kmp_tags_used();
	u64 t0 = local_clock();

	for (; idx < used && kmp_tag_ready(idx); idx++) {
		kmp_tag_site(&kmp_tag_pool[idx], buf, NULL);
		kmp_tag_callers(&kmp_tag_pool[idx], buf, NULL);
		WRITE_ONCE(kmp_names_next, idx + 1);
		cond_resched();
	}
	WRITE_ONCE(kmp_names_ns, kmp_names_ns + local_clock() - t0);
}

u64 kmp_tags_naming_ns(void)
{
	return READ_ONCE(kmp_names_ns);
}

static void kmp_names_kick_fn(struct irq_work *work)
{
	schedule_work(&kmp_names_work);
	schedule_work(&kmp_ctr_work);
}

/* One more block of counters; false if there is no memory for it. */
static bool kmp_ctr_grow(void)
{
	unsigned int b = kmp_ctr_ready;
	struct kmp_counters __percpu *c;

	c = __alloc_percpu(sizeof(struct kmp_counters) * KMP_CTR_BLOCK,
			   __alignof__(u64));
	if (!c)
		return false;
	kmp_tab.ctr_blocks[b] = c;
	/*
	 * the block before the bound: pairs with the acquire in
	 * kmp_tag_find_or_create()
	 */
	smp_store_release(&kmp_ctr_ready, b + 1);
	return true;
}

/* Keep KMP_CTR_AHEAD blocks of counters ready past the tags handed out. */
static void kmp_ctr_fn(struct work_struct *work)
{
	u32 want = DIV_ROUND_UP(atomic_read(&kmp_ntags), KMP_CTR_BLOCK) +
		   KMP_CTR_AHEAD;

	while (kmp_ctr_ready < min(want, kmp_ctr_nblocks) && kmp_ctr_grow())
		;
}

/* Tags not named yet by the background work. */
u32 kmp_tags_unnamed(void)
{
	return kmp_tags_used() - READ_ONCE(kmp_names_next);
}

/*
 * A tag as the debugfs views name it, "<site> [<module>] func:<function>
 * kind:<kind>" and its callers, if any; @buf has KMP_TAG_TEXT_LEN bytes.
 */
void kmp_seq_tag_name(struct seq_file *m, struct kmp_tag *tag, char *buf)
{
	seq_printf(m, "%s kind:%s", kmp_tag_site(tag, buf, NULL),
		   kmp_kind_name(tag->kind));
	seq_puts(m, kmp_tag_callers(tag, buf + KMP_SITE_TEXT_LEN, NULL));
}

/*
 * Zero every counter and accuracy mark. Only with the probes detached,
 * from process context: kmp_ctr_work is let finish first, and the blocks
 * are bounded by kmp_ctr_ready read with acquire, so that each block
 * zeroed is one the work published (its pointer before the bound).
 */
void kmp_tags_reset(void)
{
	unsigned int b, ready;
	u32 idx;
	int cpu;

	flush_work(&kmp_ctr_work);
	/* pairs with kmp_ctr_grow()'s release */
	ready = smp_load_acquire(&kmp_ctr_ready);
	for (b = 0; b < ready; b++)
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(kmp_tab.ctr_blocks[b], cpu), 0,
			       sizeof(struct kmp_counters) * KMP_CTR_BLOCK);
	for (idx = 0; idx < kmp_tags_used(); idx++) {
		clear_bit(KMP_TAG_INACCURATE, &kmp_tag_pool[idx].flags);
		clear_bit(KMP_TAG_SAMPLED, &kmp_tag_pool[idx].flags);
	}
}

size_t kmp_tags_memory(void)
{
	return (size_t)kmp_max_tags * sizeof(struct kmp_tag) +
	       (sizeof(struct hlist_head) << kmp_tag_bits) +
	       (size_t)READ_ONCE(kmp_ctr_ready) * KMP_CTR_BLOCK *
	       sizeof(struct kmp_counters) * num_possible_cpus() +
	       array_size(kmp_tab.sites_mask + 1, sizeof(*kmp_tab.sites));
}

void kmp_tags_areas(kmp_area_fn fn, void *priv)
{
	/* pairs with kmp_ctr_grow()'s release: the blocks below are there */
	unsigned int i, ready = smp_load_acquire(&kmp_ctr_ready);
	int cpu;

	fn(kmp_tag_pool, array_size(kmp_max_tags, sizeof(*kmp_tag_pool)), priv);
	fn(kmp_tag_hash, sizeof(*kmp_tag_hash) << kmp_tag_bits, priv);
	fn(kmp_tab.sites, array_size(kmp_tab.sites_mask + 1,
				     sizeof(*kmp_tab.sites)), priv);
	for (i = 0; i < ready; i++)
		for_each_possible_cpu(cpu)
			fn(per_cpu_ptr(kmp_tab.ctr_blocks[i], cpu),
			   sizeof(struct kmp_counters) * KMP_CTR_BLOCK, priv);
}

/*
 * A module is going, or its init text is: those call sites' addresses will
 * mean something else soon. Give each such tag a name of its own, and take
 * it out of the hash, so that code loaded at the same address later gets
 * new tags. The module's text is still there while this runs.
 */
static bool kmp_tag_within(const struct kmp_tag *tag,
			   bool (*within)(unsigned long, const struct module *),
			   const struct module *mod)
{
	unsigned int i;

	if (within(tag->site, mod))
		return true;
	for (i = 0; i < tag->ncallers; i++)
		if (within(tag->callers[i], mod))
			return true;
	return false;
}

/*
 * Code is going away: @within(addr, @mod) says which. Called from main.c's
 * module notifier, one call at a time, in process context.
 */
void kmp_tags_code_going(bool (*within)(unsigned long, const struct module *),
			 const struct module *mod)
{
	static char buf[KMP_TAG_TEXT_LEN];	/* one call at a time */
	unsigned long flags;
	u32 idx, used;

	used = kmp_tags_used();
	for (idx = 0; idx < used; idx++) {
		struct kmp_tag *tag = &kmp_tag_pool[idx];
		u32 bucket;

		if (!kmp_tag_ready(idx) || test_bit(KMP_TAG_GONE, &tag->flags) ||
		    !kmp_tag_within(tag, within, mod))
			continue;
		/* Name it while the symbols are there. */
		kmp_tag_site(tag, buf, NULL);
		kmp_tag_callers(tag, buf, NULL);
		if (!tag->ncallers)
			kmp_site_drop(kmp_site_key(tag->site, tag->kind));
		bucket = kmp_tag_bucket_of(tag);
		raw_spin_lock_irqsave(kmp_tag_lock(bucket), flags);
		hlist_del_rcu(&tag->hnode);
		raw_spin_unlock_irqrestore(kmp_tag_lock(bucket), flags);
		set_bit(KMP_TAG_GONE, &tag->flags);
	}
}

int kmp_tags_init(void)
{
	unsigned int i;
	int ret = -ENOMEM;

	kmp_tag_bits = ilog2(roundup_pow_of_two(kmp_max_tags));
	kmp_tag_pool = vzalloc(array_size(kmp_max_tags, sizeof(*kmp_tag_pool)));
	kmp_tag_hash = vzalloc(array_size(1U << kmp_tag_bits,
					  sizeof(*kmp_tag_hash)));
	kmp_ctr_nblocks = DIV_ROUND_UP(kmp_max_tags, KMP_CTR_BLOCK);
	kmp_tab.ctr_blocks = kcalloc(kmp_ctr_nblocks,
				     sizeof(*kmp_tab.ctr_blocks), GFP_KERNEL);
	if (!kmp_tag_pool || !kmp_tag_hash || !kmp_tab.ctr_blocks)
		goto fail;
	kmp_ctr_ready = 0;
	for (i = 0; i < min(kmp_ctr_nblocks, KMP_CTR_LOAD); i++)
		if (!kmp_ctr_grow())
			goto fail;
	/* Twice the tags, and room for the frames that page walks pass. */
	kmp_tab.sites_mask = roundup_pow_of_two(2 * kmp_max_tags + 1024) - 1;
	kmp_tab.sites_shift = 32 - ilog2(kmp_tab.sites_mask + 1);
	kmp_tab.sites = vzalloc(array_size(kmp_tab.sites_mask + 1, sizeof(*kmp_tab.sites)));
	if (!kmp_tab.sites)
		goto fail;
	for (i = 0; i < KMP_TAG_LOCKS; i++)
		raw_spin_lock_init(&kmp_tag_locks[i]);
	init_irq_work(&kmp_names_kick, kmp_names_kick_fn);
	kmp_names_next = 0;
	return 0;
fail:
	kmp_tags_exit();
	return ret;
}

/* Only after the probes are detached for good. */
void kmp_tags_exit(void)
{
	unsigned int i;
	u32 idx;

	irq_work_sync(&kmp_names_kick);
	cancel_work_sync(&kmp_names_work);
	cancel_work_sync(&kmp_ctr_work);
	if (kmp_tag_pool)
		for (idx = 0; idx < kmp_tags_used(); idx++) {
			kfree(kmp_tag_pool[idx].text);
			kfree(kmp_tag_pool[idx].ctext);
		}
	if (kmp_tab.ctr_blocks)
		for (i = 0; i < kmp_ctr_ready; i++)
			free_percpu(kmp_tab.ctr_blocks[i]);
	kmp_ctr_ready = 0;
	kfree(kmp_tab.ctr_blocks);
	vfree(kmp_tab.sites);
	vfree(kmp_tag_hash);
	vfree(kmp_tag_pool);
	kmp_tab.sites = NULL;
	kmp_sites_used = 0;
	kmp_tab.ctr_blocks = NULL;
	kmp_tag_hash = NULL;
	kmp_tag_pool = NULL;
	atomic_set(&kmp_ntags, 0);
}
