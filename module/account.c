// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: accounting an allocation or a free to its tag.
 *
 * This is the general path: what the inline fast path in probes.h leaves
 * to it (a site seen for the first time, a full group, a stale entry) and
 * every event while an option but sample_rate is on (kmp_mode). The tables
 * return what happened; every count is made here.
 *
 * An allocation is counted on its tag first, then entered in the live
 * table or the PFN map; a free is taken out of them, then counted on the
 * tag that allocated it. That order is what keeps live counts from ever
 * going negative (see the notes in tags.c).
 *
 * Notes on locking: the split locks of page frees that find no entry of
 * their order (see "Split page blocks" below, which argues the ordering
 * against the lock-free paths); else none here: see tags.c, live.c and
 * pfnmap.c. Everything here runs with interrupts off (the probes see to
 * it) and never in NMI: the probes turn NMI away, since the tables take
 * locks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/percpu.h>

#include "hist.h"
#include "internal.h"
#include "options.h"
#include "owners.h"
#include "paths.h"
#include "pfnmap.h"
#include "stacks.h"
#include "stat.h"
#include "tables.h"
#include "tags.h"
#include "testpoints.h"

/*
 * The unwind buffer: per CPU rather than on the stack, where the kernel's
 * stack initialisation (INIT_STACK_ALL_ZERO) would clear its 30 words on
 * every event. Safe: the probes run with interrupts off. Allocated at
 * load, as nmi.c's rings are, to leave the module per-CPU reserve alone.
 */
static struct kmp_frames __percpu *kmp_frames_buf;

int kmp_account_init(void)
{
	kmp_frames_buf = alloc_percpu(struct kmp_frames);
	return kmp_frames_buf ? 0 : -ENOMEM;
}

/* Every probe and hook detached. */
void kmp_account_exit(void)
{
	free_percpu(kmp_frames_buf);
	kmp_frames_buf = NULL;
}

size_t kmp_account_memory(void)
{
	return sizeof(struct kmp_frames) * num_possible_cpus();
}

static bool kmp_size_ok(size_t bytes)
{
	unsigned int max = READ_ONCE(kmp_max_size);

	return bytes >= READ_ONCE(kmp_min_size) && (!max || bytes <= max);
}

static void kmp_count_alloc(u32 idx, size_t bytes, size_t req, int d)
{
	kmp_ctr_allocs(kmp_ctr(idx), d, bytes, req);
}

/* @scale: with sample_rate N, a paired free stands for N frees. */
static void kmp_count_free(u32 idx, const struct kmp_obj *obj,
			   unsigned int scale)
{
	kmp_ctr_frees(kmp_ctr(idx), scale, obj->size, obj->req);
}

/* Histograms: an allocation's sizes, in @tag's slot (taken at first use). */
static void kmp_account_hist_sizes(struct kmp_tag *tag, u32 size, u32 req)
{
	u32 h = kmp_hist_claim(&tag->hist);

	if (h != KMP_NIL)
		kmp_hist_add_sizes(h, tag->kind, size, req, 1);
}

/* ... and the lifetime and CPUs of a free of timed @obj. */
static void kmp_account_hist_free(const struct kmp_obj *obj)
{
	u32 h = kmp_hist_claim(&kmp_tag_at(obj->tag)->hist);

	if (h != KMP_NIL)
		kmp_hist_add_free(h, obj->time, obj->cpu, kmp_now());
}

static void kmp_mark_inaccurate(u32 idx)
{
	kmp_tag_set_flag(kmp_tag_at(idx), KMP_TAG_INACCURATE);
}

/*
 * Owners: an object of line @obj->own (0: none) is no longer live, its
 * free seen or not. Only while owners are on: lines of an earlier period
 * of them are not charged back (live.c's notes).
 */
static void kmp_owner_freed(const struct kmp_obj *obj)
{
	if (obj->own && (READ_ONCE(kmp_mode) & KMP_M_OWNERS))
		kmp_owner_uncharge(obj->own, obj->size, 1);
}

/* An entry was still there: its free was never seen. */
static void kmp_account_stale(const struct kmp_obj *old)
{
	kmp_count_free(old->tag, old, 1);
	kmp_owner_freed(old);
	kmp_mark_inaccurate(old->tag);
	kmp_stat_inc(KMP_ST_STALE);
}

/* @spill: a new key goes to the spill (nmi.c's records), not the slots. */
static void kmp_account_table(unsigned long key, const struct kmp_obj *obj,
			      bool spill)
{
	struct kmp_obj old;
	enum kmp_insert ins = spill ? kmp_live_insert_spill(key, obj, &old) :
			      kmp_live_insert(key, obj, &old);

	switch (ins) {
	case KMP_INS_NEW:
		break;
	case KMP_INS_FULL:
		kmp_stat_inc(KMP_ST_DROP_LIVE);
		kmp_mark_inaccurate(obj->tag);
		kmp_owner_freed(obj);	/* not tracked: its line's charge back */
		break;
	case KMP_INS_STALE:
		kmp_account_stale(&old);
		kmp_path_note(KMP_PC_STALE);
		break;
	}
}

/*
 * A PFN map entry still there when its block is taken again. A
 * before-load entry (prior.c) is taken as freed, not as lost: the scan
 * may enter a block whose allocation's event comes just after, or one
 * freed just before, with no free to see.
 */
static void kmp_pfn_stale(u32 v)
{
	struct kmp_obj old;

	if (v & KMP_PFN_VALID) {
		kmp_pfn_obj(v, &old);
		if (test_bit(KMP_TAG_PRIOR, &kmp_tag_at(old.tag)->flags)) {
			kmp_count_free(old.tag, &old, 1);
			kmp_path_note(KMP_PC_PRIOR);
		} else {
			kmp_account_stale(&old);
			kmp_path_note(KMP_PC_STALE);
		}
	}
}

/*
 * Enter a page block in the PFN map, or in the live table where the map
 * does not cover it or while objects carry times or owner lines (a map
 * entry has room for neither).
 */
static void kmp_account_page(unsigned long pfn, const struct kmp_obj *obj,
			     unsigned int order)
{
	u32 *slot = kmp_pfn_slot(pfn);
	struct kmp_obj old;
	u32 v;

	if (slot && (obj->time || obj->own)) {
		WRITE_ONCE(kmp_tab.pages_hashed, true);
		v = xchg(slot, 0);
		kmp_pfn_stale(v);
		slot = NULL;
	}
	if (!slot) {
		kmp_account_table(kmp_key_pfn(pfn), obj, false);
		return;
	}
	/* A block that went into the live table before: its free was lost. */
	if (unlikely(READ_ONCE(kmp_tab.pages_hashed)) &&
	    kmp_live_remove(kmp_key_pfn(pfn), &old))
		kmp_account_stale(&old);
	/* one step: the re-attach scan may take or enter this frame's entry */
	kmp_pfn_stale(xchg(slot, kmp_pfn_entry(obj->tag, order)));
}

/* The frames a page event's fast walk passes, into the site table. */
static void kmp_site_add_frames(const struct kmp_frames *f)
{
	unsigned int i;

	for (i = 0; i < f->nskip; i++)
		kmp_site_add(kmp_site_key(f->skip[i], KMP_KIND_PAGE), 0,
			     KMP_SITE_FRAME);
}

/*
 * Find the call site and, with key_depth or a sampled stack, its callers:
 * one unwind serves all three. Page events start from the probe's frame
 * record @fp. Where it unwinds, a page event's frames below its site go
 * to the site table as the walk's at the defaults do, so that the fast
 * path's walk (probes.h) finds the site, unless the frame just below it is
 * there already.
 */
static unsigned long kmp_find_site(enum kmp_kind kind, unsigned long call_site,
				   unsigned int kd, unsigned int sd,
				   struct kmp_frames *f, unsigned long fp)
{
	unsigned long site;
	unsigned int i;

	if (!kd && !sd) {
		if (kind == KMP_KIND_PAGE && fp) {
			site = kmp_page_site(fp, f, 0);
			kmp_site_add_frames(f);
			return site;
		}
		if (!kmp_site_needs_unwind(kind, call_site))
			return call_site;
	}
	site = kmp_unwind(f, kind, call_site, max(kd + 1, sd));
	if (kind == KMP_KIND_PAGE && fp && f->site > 0 &&
	    !kmp_site_find(kmp_site_key(f->e[f->site - 1], KMP_KIND_PAGE))) {
		kmp_page_frames(f);
		kmp_site_add_frames(f);
	}
	for (i = 0; i < kd; i++)
		f->callers[i] = f->site >= 0 && f->site + 1 + i < f->n ?
				f->e[f->site + 1 + i] : 0;
	return site;
}

/*
 * The tag an allocation at @site with @n @callers counts on, or NULL for
 * none: the pool is full, or the event is the first of 6.10's two for a
 * large kmalloc() (compat.h), whose real caller's event follows. That one
 * is known by its site at any key_depth: with callers, before a tag is
 * made for it (the tag of a site alone carries KMP_TAG_RELAY instead, so
 * that the fast path sends its events here).
 */
static struct kmp_tag *kmp_alloc_tag(unsigned long site, enum kmp_kind kind,
				     const unsigned long *callers,
				     unsigned int n)
{
	struct kmp_tag *tag;

	if (unlikely(n && kind == KMP_KIND_SLAB && kmp_site_is_relay(site))) {
		kmp_stat_inc(KMP_ST_LARGE_DUP);
		return NULL;
	}
	tag = kmp_tag_find_or_create(site, kind, callers, n);
	if (unlikely(tag && test_bit(KMP_TAG_RELAY, &tag->flags))) {
		kmp_stat_inc(KMP_ST_LARGE_DUP);
		return NULL;
	}
	return tag;
}

/*
 * An allocation on the general path. @fp: the probe's frame record, for
 * page events. @callers: where the call site is @call_site itself and
 * these are its @ncallers callers, found already (nmi.c's records, which
 * also go to the spill: see nmi.c); NULL to find them here.
 */
static __always_inline void
__kmp_account_alloc(enum kmp_kind kind, unsigned long call_site,
		    unsigned long key, size_t bytes, size_t req,
		    unsigned long fp, const unsigned long *callers,
		    unsigned int ncallers)
{
	bool nmi = callers;
	unsigned int mode = READ_ONCE(kmp_mode);
	unsigned int kd = 0, rate = 1, sd = 0;
	struct kmp_frames *f = this_cpu_ptr(kmp_frames_buf);
	struct kmp_obj obj;
	struct kmp_tag *tag;
	unsigned long site;
	bool track = true;

	if (unlikely(mode)) {
		if ((mode & KMP_M_FILTER) && kind == KMP_KIND_SLAB &&
		    !kmp_size_ok(bytes)) {
			kmp_stat_inc(KMP_ST_FILTERED);
			return;
		}
		kd = kmp_key_callers();
		rate = kmp_rate();
		track = kmp_one_in(&kmp_track_ctr, rate);
		/*
		 * From the mode, not the knob: the knob is set before the
		 * stack store is made (kmp_mode_update()), and making it
		 * allocates, which comes here.
		 */
		sd = (mode & KMP_M_STACKS) ?
		     min_t(unsigned int, READ_ONCE(kmp_stack_depth),
			   KMP_STACK_DEPTH_MAX) : 0;
		if (!track || (sd && !kmp_one_in(&kmp_stack_ctr,
						 READ_ONCE(kmp_stack_sample))))
			sd = 0;
	}

	f->site = -1;
	if (callers) {
		/* No stack to sample: the one it was on is gone. */
		kd = ncallers;
		sd = 0;
		site = call_site;
	} else {
		site = kmp_find_site(kind, call_site, kd, sd, f, fp);
		if (unlikely(site == KMP_SITE_BULK))
			return;
		callers = f->callers;
	}
	kmp_test_watch_site(kind, site);
	tag = kmp_alloc_tag(site, kind, callers, kd);
	if (unlikely(!tag))
		return;
	obj.tag = kmp_tag_index(tag);
	obj.size = min_t(size_t, bytes, U32_MAX);
	obj.req = min_t(size_t, req, U32_MAX);
	obj.cpu = raw_smp_processor_id();
	obj.time = mode & (KMP_M_LIFE | KMP_M_HIST) ? kmp_now() : 0;
	obj.own = 0;
	kmp_count_alloc(obj.tag, obj.size, obj.req, 1);
	if (mode & KMP_M_HIST)
		kmp_account_hist_sizes(tag, obj.size, obj.req);
	if (sd && f->site >= 0)
		kmp_stack_record(obj.tag, &f->e[f->site],
				 min_t(unsigned int, sd, f->n - f->site),
				 obj.size);
	if (rate > 1)
		kmp_tag_set_flag(tag, KMP_TAG_SAMPLED);
	if (!track)
		return;
	/*
	 * Owners: charged before the object is entered, as its tag is, and
	 * only for an object that is (a tracked one). With sample_rate, a
	 * line counts the tracked objects alone, each once.
	 */
	if (mode & KMP_M_OWNERS)
		obj.own = kmp_owner_charge(obj.tag, mode, nmi, obj.size, 1);
	if (kind == KMP_KIND_PAGE)
		kmp_account_page(key >> 2, &obj, get_order(obj.size));
	else
		kmp_account_table(key, &obj, nmi);
}

void kmp_account_alloc(enum kmp_kind kind, unsigned long call_site,
		       unsigned long key, size_t bytes, size_t req,
		       unsigned long fp)
{
	__kmp_account_alloc(kind, call_site, key, bytes, req, fp, NULL, 0);
}

/*
 * A slab allocation that an event in NMI left for later (nmi.c), at
 * @site with the @n @callers it found then. @stale: an entry of @key
 * that it took out of the slots then (its free was never seen), or NULL.
 */
void kmp_account_alloc_nmi(unsigned long site, unsigned long key, u32 size,
			   u32 req, const unsigned long *callers,
			   unsigned int n, const struct kmp_obj *stale)
{
	if (stale)
		kmp_account_stale(stale);
	__kmp_account_alloc(KMP_KIND_SLAB, site, key, size, req, 0, callers,
			    n);
}

/*
 * A free whose object was taken out of the tables, into @obj. @bytes is
 * what the free event says was freed (page blocks), or 0 where it says
 * nothing (slab, percpu).
 */
static __always_inline void __kmp_account_count_free(const struct kmp_obj *obj,
						     size_t bytes)
{
	unsigned int mode = READ_ONCE(kmp_mode);
	unsigned int rate = 1;

	if (mode & KMP_M_SAMPLE)
		rate = kmp_rate();
	kmp_count_free(obj->tag, obj, rate);
	if ((mode & KMP_M_OWNERS) && obj->own)
		kmp_owner_uncharge(obj->own, obj->size, 1);
	if (rate > 1)
		kmp_tag_set_flag(kmp_tag_at(obj->tag), KMP_TAG_SAMPLED);
	if ((mode & KMP_M_HIST) && obj->time)
		kmp_account_hist_free(obj);
	/*
	 * A page block taken whole by a free of another order. The general
	 * path splits blocks instead (kmp_account_page_free()) and nmi.c takes only
	 * an entry of the free's order, so this is only ever a safeguard.
	 */
	if (unlikely(bytes && bytes != obj->size))
		kmp_mark_inaccurate(obj->tag);
}

void kmp_account_count_free(const struct kmp_obj *obj, size_t bytes)
{
	__kmp_account_count_free(obj, bytes);
}

/*
 * Split page blocks
 * -----------------
 *
 * A page block is not always freed as it was allocated. split_page() makes
 * a block of order K into 2^K pages, each freed on its own (vmalloc's
 * high-order pages, IOMMU DMA's, drivers'); alloc_pages_exact() splits its
 * block and frees the tail it does not need at once; a split THP's folios
 * are freed at their new order; and __free_pages() of a block whose head
 * has another reference frees the tail halves at orders K-1 down to 0 and
 * leaves the head page for the last put_page(). None of these has an
 * event of its own: kmemprof sees the split when a free of order k finds
 * no entry of order k at its PFN. It then looks for the live block that
 * holds the PFN (the entry at the PFN itself, or at the PFN's aligned head
 * of each higher order: a buddy block is aligned to its size), enters the
 * block's 2^(K-k) parts of order k on the block's tag, and pairs the free
 * with its own part. The other parts' frees then take the fast path, as
 * any block's do. A part freed later at a still lower order is split
 * again the same way.
 *
 * Objects are counted as allocinfo counts them. pgalloc_tag_split() gives
 * each part of a split block a reference to the tag and a call of its own,
 * so allocinfo's calls count the parts; it never splits the __free_pages()
 * case, which stays one call until the head goes. Here a split adds its
 * 2^(K-k) - 1 parts beyond the first to the tag's allocs (and no bytes:
 * the block's were counted), before the parts are entered, as an
 * allocation is counted before it is entered. So a split_page() block
 * freed page by page is 2^K - n live objects after n frees, and
 * __free_pages()'s halving, which splits one part in two and frees the
 * other each time, leaves the block one live object throughout. The only
 * difference from allocinfo is before the first free, where kmemprof has
 * not seen the split yet and counts one object. page_split counts splits.
 *
 * kmemprof cannot tell a split from a free inside a block that was never
 * split, since a split has no event. So such a free is taken as a split:
 * the part freed comes off the owner, the rest stays live on it. (The
 * kernel's own paths never free inside a block they did not split: the
 * tail pages of an unsplit block have no reference to drop.) A free of
 * more than the block at its PFN, which no kernel path makes either,
 * takes every block of the map in its range.
 *
 * Notes on locking: a free that finds no entry of its order at its PFN
 * takes the split lock of the block of the largest order that holds the
 * PFN (every block that could hold the PFN lies within that one), looks
 * for its entry again, and only then for a block to split. So every split
 * and every search of one block's frames are serialised, and a search sees
 * the entries of every split made before it (the lock's release and
 * acquire). Without the lock run:
 *
 * - The fast path and nmi.c, which take an entry only if it has the free's
 *   order, and allocations, which write the entry of the block they were
 *   given. A split writes its parts' entries while their pages are still
 *   allocated to the block's owner, so no allocation writes them
 *   meanwhile. The CPU that frees a part either reads its entry, and takes
 *   it as any block's, or reads none yet and misses; it then takes the
 *   lock, by which time the split is done and the entry is there. An entry
 *   is one word, written whole, and all that a part's free needs is in
 *   it; its tag's allocs were counted first.
 * - The head's entry keeps order K until the split writes the head part's
 *   entry there: a free of order k at the head misses on the fast path and
 *   waits for the lock, or finds its part.
 * - In the live table (lifetimes or histograms on, frames outside the
 *   map) a split inserts its parts before it drops the lock, and a free
 *   takes its key without the lock only if the size is the free's
 *   (kmp_live_read(), then kmp_live_remove()). A block's key changes only
 *   by its own free or by a split under the lock, and a split only
 *   changes a block that holds the PFN of its free: a page of that block's
 *   own owner.
 * - NMI never splits: nmi.c leaves a free whose entry has another order to
 *   its irq_work, which comes here.
 *
 * Two things break "still allocated". A part freed in NMI whose page is
 * allocated again on another CPU before the irq_work runs: the late free
 * takes the new block's entry. And with sample_rate above 1, a part freed
 * on the fast path before the split is seen: the fast path counts a free
 * that finds no entry as one of an untracked block, without a search, and
 * the split enters the part anyway (an entry found there counts as stale,
 * as where an allocation finds one). So a split with sample_rate above 1
 * marks its tag.
 */
#define KMP_SPLIT_LOCKS		64

static raw_spinlock_t kmp_split_locks[KMP_SPLIT_LOCKS] = {
	[0 ... KMP_SPLIT_LOCKS - 1] =
		__RAW_SPIN_LOCK_INITIALIZER(kmp_split_locks)
};

/* A block lies in one chunk of the map, whose entries are one array. */
static_assert(KMP_PAGE_ORDERS - 1 <= KMP_PFN_CHUNK_SHIFT);

static raw_spinlock_t *kmp_split_lock(unsigned long pfn)
{
	return &kmp_split_locks[(pfn >> (KMP_PAGE_ORDERS - 1)) %
				KMP_SPLIT_LOCKS];
}

/*
 * A live page block: in the map (its entry @v, read at @slot) or the live
 * table (slot NULL).
 */
struct kmp_block {
	unsigned long head;
	u32 *slot;
	u32 v;
	unsigned int order;
	struct kmp_obj obj;
};

/*
 * The block at @head, if any: in the map, or where @table, in the live
 * table (a block is never in both).
 */
static bool kmp_block_at(unsigned long head, bool table, struct kmp_block *b)
{
	u32 *slot = kmp_pfn_slot(head);
	u32 v = slot ? READ_ONCE(*slot) : 0;

	b->head = head;
	b->slot = NULL;
	if (v & KMP_PFN_VALID) {
		b->slot = slot;
		b->v = v;
		b->order = kmp_pfn_order(v);
		kmp_pfn_obj(v, &b->obj);
		return true;
	}
	if (!table || !kmp_live_read(kmp_key_pfn(head), &b->obj))
		return false;
	b->order = get_order(b->obj.size);
	return true;
}

/*
 * Take block @b out of the tables, into @obj: false if it is no longer
 * there. From the map only if its entry is still the one read, in one
 * step: the re-attach scan may take it meanwhile (prior.c), and then it
 * has counted the free.
 */
static bool kmp_block_remove(const struct kmp_block *b, struct kmp_obj *obj)
{
	*obj = b->obj;
	if (b->slot)
		return cmpxchg(b->slot, b->v, 0) == b->v;
	return kmp_live_remove(kmp_key_pfn(b->head), obj);
}

/*
 * The block of @order at @pfn, taken into @obj if it is there: the map's
 * entry, else (@table) the live table's, each only with the free's order.
 */
static bool kmp_page_remove(unsigned long pfn, unsigned int order, u32 *slot,
			    bool table, struct kmp_obj *obj)
{
	u32 v = slot ? READ_ONCE(*slot) : 0;

	if (v & KMP_PFN_VALID) {
		if (!kmp_pfnmap_remove(slot, v, order, false))
			return false;
		kmp_pfn_obj(v, obj);
		return true;
	}
	return table && kmp_live_read(kmp_key_pfn(pfn), obj) &&
	       obj->size == PAGE_SIZE << order &&
	       kmp_live_remove(kmp_key_pfn(pfn), obj);
}

/*
 * Split block @b into its parts of @order, on its tag, and take the part
 * at @pfn into @obj: false, with nothing changed, if the block is no
 * longer there. The block's own entry goes first, in one step, as
 * kmp_block_remove() takes it; the other parts are entered after their
 * allocations are counted, as an allocation is (kmp_account_page()). With
 * @pfn's split lock held.
 */
static bool kmp_block_split(const struct kmp_block *b, unsigned long pfn,
			    unsigned int order, struct kmp_obj *obj)
{
	unsigned long i, n = 1UL << (b->order - order);
	struct kmp_obj part = b->obj, old;
	unsigned int rate = 1;
	u32 e = kmp_pfn_entry(part.tag, order);

	if (b->slot) {
		if (cmpxchg(b->slot, b->v, b->head == pfn ? 0 : e) != b->v)
			return false;
	} else if (!kmp_live_remove(kmp_key_pfn(b->head), &old)) {
		return false;
	}
	part.size = PAGE_SIZE << order;
	part.req = part.size;
	/* A tracked block stands for sample_rate blocks, as its frees do. */
	if (READ_ONCE(kmp_mode) & KMP_M_SAMPLE)
		rate = kmp_rate();
	kmp_add(&kmp_ctr(part.tag)->allocs, (u64)(n - 1) * rate);
	/* its owner's line: n parts for the one block, the same bytes */
	if (part.own && (READ_ONCE(kmp_mode) & KMP_M_OWNERS))
		kmp_owner_split(part.own, n - 1);
	if (rate > 1)
		kmp_mark_inaccurate(part.tag);	/* parts freed untracked */
	kmp_stat_inc(KMP_ST_PAGE_SPLIT);
	for (i = b->slot ? 1 : 0; i < n; i++) {
		unsigned long at = b->head + (i << order);

		if (!b->slot) {
			if (at != pfn)
				kmp_account_table(kmp_key_pfn(at), &part, false);
			continue;
		}
		/*
		 * An entry there is older than the block (the scan's, which
		 * the split pays off, or a stale one): xchg(), as an
		 * allocation takes it.
		 */
		kmp_pfn_stale(xchg(&b->slot[i << order], at == pfn ? 0 : e));
	}
	*obj = part;
	return true;
}

/*
 * A free of @order at @pfn that found no block of its order there: split
 * the block that holds it, into @obj. False if no block holds it. With
 * @pfn's split lock held.
 */
static bool kmp_page_remove_part(unsigned long pfn, unsigned int order,
				 bool table, struct kmp_obj *obj)
{
	unsigned long head, i;
	struct kmp_block b;
	struct kmp_obj o;
	unsigned int k;
	bool found;
	u32 v;

	for (k = order; k < KMP_PAGE_ORDERS; k++) {
		head = round_down(pfn, 1UL << k);
		/* the block at @pfn itself was looked at first */
		if ((k > order && head == pfn) || !kmp_block_at(head, table, &b))
			continue;
		if (b.order > order && b.order >= k)
			return kmp_block_split(&b, pfn, order, obj);
		if (k > order || b.order == order)
			return false;	/* a block that ends before @pfn */
		/* More than the block at @pfn: every block in the range. */
		found = kmp_block_remove(&b, obj);
		for (i = 1; b.slot && i < (1UL << order); i++) {
			v = READ_ONCE(b.slot[i]);
			/* whatever its order */
			if (!kmp_pfnmap_remove(&b.slot[i], v, kmp_pfn_order(v),
					       false))
				continue;
			kmp_pfn_obj(v, &o);
			__kmp_account_count_free(&o, 0);
		}
		return found;
	}
	return false;
}

/*
 * Blocks above the buddy allocator's largest order
 * ------------------------------------------------
 *
 * A gigantic hugetlb folio (1 GiB with 4 KiB pages: order 18) comes from
 * memblock at boot, from CMA or from alloc_contig_pages(), never from the
 * buddy allocator, and no entry has its order: the re-attach scan
 * (prior.c) and CMA's event (kmp_cma_enter()) enter it as blocks of the
 * largest order, each aligned to its size. Up to 6.10 it is freed a page
 * at a time, each free a split of one of those blocks; from 6.11
 * folio_put() frees it whole, in one event of its own order. Such a free
 * takes every block in its range: one largest-order chunk at a time,
 * each with interrupts off for its own length only, and in each chunk
 * every entry, whatever its order, and the marker of a chunk that
 * migrated (kmp_account_page_move()).
 */
#define KMP_MAX_ORDER	(KMP_PAGE_ORDERS - 1)

/*
 * Take every block in the chunk of the largest order at @pfn, aligned to
 * it. Whether anything was there. With interrupts off: the probe
 * (probes.c, kmp_page_free_huge()) turns them off for one chunk at a
 * time, and settles the chunk's NMI records first.
 */
bool kmp_account_page_free_chunk(unsigned long pfn)
{
	unsigned long i, n = 1UL << KMP_MAX_ORDER;
	u32 *slot = kmp_pfn_slot(pfn), v;
	bool table = !slot || READ_ONCE(kmp_tab.pages_hashed);
	raw_spinlock_t *lock = kmp_split_lock(pfn);
	struct kmp_obj obj;
	bool found = false;

	raw_spin_lock(lock);
	for (i = 0; i < n; i++) {
		v = slot ? READ_ONCE(slot[i]) : 0;
		if (slot && kmp_pfnmap_remove(&slot[i], v, kmp_pfn_order(v), false)) {
			kmp_pfn_obj(v, &obj);
			__kmp_account_count_free(&obj, 0);
			found = true;
		} else if (slot && !i && v == kmp_pfn_moved(KMP_MAX_ORDER) &&
			   cmpxchg(slot, v, 0) == v) {
			found = true;
		}
		if (table && kmp_live_remove(kmp_key_pfn(pfn + i), &obj)) {
			__kmp_account_count_free(&obj, 0);
			found = true;
		}
	}
	raw_spin_unlock(lock);
	return found;
}

/*
 * A free of @order above the largest at @pfn, from nmi.c's drain, with
 * interrupts off throughout: no gigantic folio is freed in NMI today.
 */
static void kmp_account_page_free_huge(unsigned long pfn, unsigned int order)
{
	unsigned long i, n = 1UL << (order - KMP_MAX_ORDER);
	bool found = false;

	for (i = 0; i < n; i++)
		found |= kmp_account_page_free_chunk(pfn + (i << KMP_MAX_ORDER));
	if (!found)
		kmp_stat_inc(kmp_page_nofind(pfn));
}

/* A page block's free on the general path: @bytes is the free's size. */
static void kmp_account_page_free(unsigned long pfn, size_t bytes)
{
	unsigned int order = get_order(bytes);
	u32 *slot;
	bool table;
	raw_spinlock_t *lock;
	struct kmp_obj obj;
	bool found, moved = false;

	if (unlikely(order > KMP_MAX_ORDER)) {
		kmp_account_page_free_huge(pfn, order);
		return;
	}
	slot = kmp_pfn_slot(pfn);
	table = !slot || READ_ONCE(kmp_tab.pages_hashed);
	found = kmp_page_remove(pfn, order, slot, table, &obj);
	if (!found) {
		u64 t = kmp_psub_begin();

		lock = kmp_split_lock(pfn);
		raw_spin_lock(lock);
		found = kmp_page_remove(pfn, order, slot, table, &obj) ||
			kmp_page_remove_part(pfn, order, table, &obj);
		/* the source of a migration: its entry went with its data */
		if (!found && slot)
			moved = cmpxchg(slot, kmp_pfn_moved(order), 0) ==
				kmp_pfn_moved(order);
		raw_spin_unlock(lock);
		kmp_psub_end(t, KMP_PC_SPLIT);
	}
	if (found)
		__kmp_account_count_free(&obj, 0);
	else if (moved)
		return;
	else if (kmp_page_free_returns())
		kmp_stat_inc(KMP_ST_PAGE_RETURNED);
	/* a block the walk found on its way back (kmp_pfn_walked()) */
	else if (slot && cmpxchg(slot, kmp_pfn_walked(), 0) == kmp_pfn_walked())
		kmp_stat_inc(KMP_ST_PRIOR_FREED);
	else
		kmp_stat_inc(kmp_page_nofind(pfn));
}

/*
 * Take the block of @order at @pfn, or the part of a block that holds it,
 * into @obj, as a free would. With @pfn's split lock held.
 */
static bool kmp_page_remove_any(unsigned long pfn, unsigned int order,
				struct kmp_obj *obj)
{
	u32 *slot = kmp_pfn_slot(pfn);
	bool table = !slot || READ_ONCE(kmp_tab.pages_hashed);

	return kmp_page_remove(pfn, order, slot, table, obj) ||
	       kmp_page_remove_part(pfn, order, table, obj);
}

/*
 * A page block of @order migrated from @src to @dst (hooks.c, at
 * folio_migrate_flags(), once the move is committed): the destination
 * takes the source's entry, as allocinfo's pgalloc_tag_copy() moves the
 * tag. A destination with an entry of its own gives it to the source:
 * one that alloc_migration_target() allocated has its site's entry, which
 * the source's free then pays off (that site shows the pages it passed
 * on, none live); a hugetlb page from the pool has the pool's, and the
 * source goes back to the pool with it. A destination with none
 * (compaction's free pages) leaves the source a marker that consumes its
 * own free (kmp_account_page_free()); where the map does not cover the
 * source, that free counts as unpaired. A source with no entry
 * (allocated before load) leaves both as they were. Each block is changed
 * under its own split lock, one at a time: neither block can be freed
 * while it migrates (both are locked and referenced), so between the
 * steps only a split of a neighbour in the source's block can run, and
 * that takes the source's lock and never writes a part already taken.
 */
void kmp_account_page_move(unsigned long dst, unsigned long src,
			   unsigned int order)
{
	raw_spinlock_t *ls = kmp_split_lock(src), *ld = kmp_split_lock(dst);
	u32 *slot = kmp_pfn_slot(src);
	struct kmp_obj obj, mine;
	bool found, had;

	raw_spin_lock(ls);
	found = kmp_page_remove_any(src, order, &obj);
	/*
	 * From 0 only: the re-attach scan may have entered the source since
	 * the take (it is still allocated), and then its free pays that
	 * entry off instead of consuming a marker.
	 */
	if (found && slot)
		cmpxchg(slot, 0, kmp_pfn_moved(order));
	raw_spin_unlock(ls);
	if (!found)
		return;
	raw_spin_lock(ld);
	had = kmp_page_remove_any(dst, order, &mine);
	kmp_account_page(dst, &obj, order);
	raw_spin_unlock(ld);
	if (had) {
		/* over the marker, which was never seen: not VALID */
		raw_spin_lock(ls);
		kmp_account_page(src, &mine, order);
		raw_spin_unlock(ls);
	}
	kmp_stat_inc(KMP_ST_PAGE_MOVED);
}

/* A free on the general path: see kmp_account_count_free() for @bytes. */
/*
 * An unpaired free of the slab object at @addr: whether its slab's page
 * block is on a before-load tag (prior.c), so that the object may have
 * been allocated before the probes were attached (unpaired.slab_old).
 * One that is not was allocated since, and its event was missed. The
 * slab cannot go while its object's free is under way.
 */
static bool kmp_slab_old(unsigned long addr)
{
	struct page *page;
	u32 v;

	if (!virt_addr_valid((void *)addr))
		return false;
	page = compound_head(virt_to_page((void *)addr));
	if (!PageSlab(page))
		return false;
	v = kmp_account_pfn_peek(page_to_pfn(page));
	return (v & KMP_PFN_VALID) &&
	       test_bit(KMP_TAG_PRIOR, &kmp_tag_at(kmp_pfn_tag(v))->flags);
}

void kmp_account_free_key(unsigned long key, size_t bytes)
{
	enum kmp_kind kind = kmp_key_kind(key);
	struct kmp_obj obj;

	if (kind == KMP_KIND_PAGE) {
		kmp_account_page_free(key >> 2, bytes);
		return;
	}
	if (!kmp_live_remove(key, &obj)) {
		kmp_stat_inc(KMP_ST_UNPAIRED_SLAB + kind);
		if (kind == KMP_KIND_SLAB && kmp_slab_old(key & ~3UL))
			kmp_stat_inc(KMP_ST_UNPAIRED_OLD);
		kmp_path_note(KMP_PC_UNPAIRED);
		return;
	}
	__kmp_account_count_free(&obj, bytes);
}

/* An allocation entered by nmi.c at the defaults: count it. */
void kmp_account_count_alloc(u32 tag, u32 size, u32 req)
{
	kmp_count_alloc(tag, size, req, 1);
}

static void kmp_mark_one(unsigned long key, const struct kmp_obj *obj,
			 void *priv)
{
	if (*(unsigned int *)priv & BIT(kmp_key_kind(key)))
		kmp_mark_inaccurate(obj->tag);
}

static void kmp_mark_pfn(unsigned long pfn, u32 entry, void *priv)
{
	kmp_mark_inaccurate(kmp_pfn_tag(entry));
}

/*
 * A movable page block was just entered while no migration is followed
 * (kmp_moves_unfollowed): it may move with no word to us, so its tag's
 * live bytes may go wrong. Mark it. In the page allocation's probe.
 */
void kmp_account_page_unfollowed(unsigned long pfn)
{
	u32 *slot = kmp_pfn_slot(pfn);
	u32 v = slot ? READ_ONCE(*slot) : 0;
	struct kmp_obj obj;
	unsigned long flags;

	if (v & KMP_PFN_VALID) {
		kmp_mark_inaccurate(kmp_pfn_tag(v));
		return;
	}
	local_irq_save(flags);
	if (kmp_live_read(kmp_key_pfn(pfn), &obj))
		kmp_mark_inaccurate(obj.tag);
	local_irq_restore(flags);
}

/*
 * kmp_pfn_held() in the live table, where page blocks go while times are
 * on (pages_hashed): a block of an order that holds @pfn, at an aligned
 * head below it.
 */
static bool kmp_table_held(unsigned long pfn)
{
	struct kmp_obj obj;
	unsigned int k;

	if (!READ_ONCE(kmp_tab.pages_hashed))
		return false;
	for (k = 1; k < KMP_PAGE_ORDERS; k++) {
		unsigned long head = round_down(pfn, 1UL << k);

		if (head != pfn && kmp_live_read(kmp_key_pfn(head), &obj) &&
		    obj.size >= PAGE_SIZE << k)
			return true;
	}
	return false;
}

/*
 * A block of @order at @pfn that was allocated before the page probes
 * were attached (prior.c), entered on @tag unless its frame has an entry
 * or is a part of a live block entered at an aligned head below it: a
 * block the kernel split with no event, whose parts' frees split it
 * ("Split page blocks"), and which an entry of the part's own would pay
 * off twice (kmp_pfn_held(), kmp_table_held()). Counted first, as any
 * allocation, then entered with cmpxchg() from 0, so that an event's
 * entry, there first, wins (and the count is taken back). Whether it was
 * entered. With interrupts off.
 */
bool kmp_account_prior(unsigned long pfn, unsigned int order, u32 tag)
{
	u32 *slot = kmp_pfn_slot(pfn);
	size_t bytes = PAGE_SIZE << order;

	if (!slot || READ_ONCE(*slot) || kmp_pfn_held(pfn) ||
	    kmp_table_held(pfn))
		return false;
	kmp_count_alloc(tag, bytes, bytes, 1);
	if (cmpxchg(slot, 0, kmp_pfn_entry(tag, order))) {
		kmp_count_alloc(tag, bytes, bytes, -1);
		return false;
	}
	return true;
}

/* The entry at frame @pfn, 0 if none. */
u32 kmp_account_pfn_peek(unsigned long pfn)
{
	u32 *slot = kmp_pfn_slot(pfn);

	return slot ? READ_ONCE(*slot) : 0;
}

/*
 * The frame @pfn holds a free page or a tail (prior.c), and @v is the
 * entry read there (kmp_account_pfn_peek()): one whose free was not seen
 * (freed while the page probes were detached), or, at a tail of a block
 * allocated since, older than the block. Take it out as an allocation
 * that finds it would (kmp_pfn_stale()), before a part's free pairs with
 * it instead of splitting its block; unless it is gone or replaced.
 * @freed: the frame has no reference, and may be a block whose free is
 * under way, its event still to come: counted freed, as that event would,
 * not stale (the tags of blocks freed while detached were marked then).
 * Every other writer that takes or replaces an entry does so in one
 * atomic step too (cmpxchg() or xchg()), so exactly one of them has @v,
 * and it is counted once. With interrupts off.
 */
void kmp_account_pfn_drop(unsigned long pfn, u32 v, bool freed)
{
	u32 *slot = kmp_pfn_slot(pfn);
	struct kmp_obj old;

	if (!slot || !kmp_pfnmap_remove(slot, v, kmp_pfn_order(v), false))
		return;
	if (freed) {
		/* its free's event, if it is still to come: prior_freed */
		cmpxchg(slot, 0, kmp_pfn_walked());
		kmp_pfn_obj(v, &old);
		kmp_count_free(old.tag, &old, 1);
	} else {
		kmp_pfn_stale(v);
	}
}

/*
 * Take back the entry kmp_account_prior() made, if it is still there: the
 * block was freed meanwhile, and its free's event may be still to come
 * (kmp_pfn_walked()). With interrupts off.
 */
void kmp_account_prior_undo(unsigned long pfn, unsigned int order, u32 tag)
{
	u32 *slot = kmp_pfn_slot(pfn), e = kmp_pfn_entry(tag, order);
	size_t bytes = PAGE_SIZE << order;

	if (slot && cmpxchg(slot, e, kmp_pfn_walked()) == e)
		kmp_count_alloc(tag, bytes, bytes, -1);
}

/*
 * The walk found the frame at @pfn unreferenced, in no free block of the
 * buddy allocator (kmp_pfn_walked()): marked, from an empty entry only, an
 * allocation's entry there first wins. With interrupts off.
 */
void kmp_account_prior_unref(unsigned long pfn)
{
	u32 *slot = kmp_pfn_slot(pfn);

	if (slot && !READ_ONCE(*slot))
		cmpxchg(slot, 0, kmp_pfn_walked());
}

/*
 * Pairing is about to be lost for @kinds (their probes are detached): mark
 * every tag that has live objects of those kinds. With kmp_control_lock.
 */
void kmp_account_mark_live(unsigned int kinds)
{
	kmp_live_walk(kmp_mark_one, &kinds);
	if (kinds & BIT(KMP_KIND_PAGE))
		kmp_pfnmap_walk(kmp_mark_pfn, NULL);
}

/* Empty the tables. With the probes detached and kmp_control_lock. */
void kmp_account_clear(void)
{
	kmp_live_clear();
	kmp_pfnmap_clear();
	WRITE_ONCE(kmp_tab.pages_hashed, false);
}
