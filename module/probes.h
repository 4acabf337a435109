/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: one event's way in, shared by the tracepoint probes (probes.c)
 * and the hooks on untraced functions (hooks.c): the inline fast path
 * below, or else the general path (kmp_*_slow() in probes.c: NMI to
 * nmi.c, the rest to account.c). See probes.c for the contexts an event
 * runs in.
 */
#ifndef _KMEMPROF_PROBES_H
#define _KMEMPROF_PROBES_H

#include <linux/hardirq.h>
#include <linux/mm.h>
#include <linux/sched/clock.h>

#include "clock.h"
#include "hist.h"
#include "internal.h"
#include "live.h"
#include "options.h"
#include "paths.h"
#include "pfnmap.h"
#include "stacks.h"
#include "stat.h"
#include "tables.h"
#include "tags.h"

/* One event in KMP_TIME_EVERY has its probe timed, with self_timing on. */
#define KMP_TIME_EVERY	1024

/*
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
 */

/*
 * A fast path's walk for an allocation of @kind at @site, from the frame
 * record @fp, @first records above the first the walk may start from
 * (the bound on the site's index: see stacks.h), with @kd
 * (kmp_key_callers()) callers: with @kd, the tag
 * of (site, callers) in *@idx and *@ctr, else the caller's there already
 * (the site's own); with a stack due, the record to count it on in *@sp
 * (else NULL), and *@ctr_s the sample counter's value to store once the
 * event is done (KMP_STACK_NO_CTR: none). False, with nothing changed,
 * where the general path must take the event. A hook's event (hooks.c)
 * walks as a probe's does: its wrapper's frame record returns to the
 * site, a few records up from the fast path's copy, and a walk that does
 * not find it there (an exit handler's, under its return trampoline)
 * gives the event to the general path. With interrupts off.
 *
 * The stack store is read only once kmp_mode has KMP_M_STACKS, with an
 * acquire that pairs with the release in kmp_mode_update(): with
 * key_depth on, this copy may run before the store is made.
 */
static __always_inline bool
kmp_walk_fast(unsigned long fp, unsigned int first,
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

/*
 * The general path runs between kmp_enter() and kmp_leave(), and a fast
 * path turns interrupts off itself: off for the whole event, so the
 * accounting can use plain per-CPU adds (see kmp_add()), and a 7.x probe
 * stays on its CPU. Never in NMI: slab and page events in NMI go to nmi.c
 * instead, percpu ones are turned away.
 * *t0 is the start time of a timed probe. @ev KMP_EV_NONE counts no event
 * (the hooks count their own).
 */
static __always_inline void kmp_enter(enum kmp_event ev, unsigned long *flags,
				      u64 *t0)
{
	struct kmp_stats *c;

	local_irq_save(*flags);
	c = this_cpu_ptr(&kmp_stats);
	if (ev < KMP_EV_NR)
		kmp_add(&c->events[ev], 1);
	*t0 = 0;
	if (kmp_slow_key_on() && (READ_ONCE(kmp_mode) & KMP_M_TIMING)) {
		kmp_add(&c->all, 1);
		if (!(c->all % KMP_TIME_EVERY))
			*t0 = local_clock();
	}
}

static __always_inline void kmp_leave(unsigned long flags, u64 t0)
{
	if (unlikely(t0)) {
		struct kmp_stats *c = this_cpu_ptr(&kmp_stats);

		kmp_add(&c->ns, local_clock() - t0);
		kmp_add(&c->timed, 1);
	}
	local_irq_restore(flags);
}

/* This CPU's count of event @ev, with interrupts off. */
static __always_inline void kmp_count_event(enum kmp_event ev)
{
	if (ev < KMP_EV_NR)
		kmp_add(this_cpu_ptr(&kmp_stats.events[ev]), 1);
}

/*
 * An event and its tag's counters @ctr (a site entry's, or
 * kmp_tag_counters()), with interrupts off. Both pointers are taken
 * before the first store, so that the compiler reads this CPU's offset
 * once.
 */
static __always_inline void
kmp_count_alloc_ev(enum kmp_event ev, struct kmp_counters __percpu *ctr,
		   u32 bytes, u32 req)
{
	struct kmp_stats *ce = this_cpu_ptr(&kmp_stats);
	struct kmp_counters *c = this_cpu_ptr(ctr);

	if (ev < KMP_EV_NR)
		kmp_add(&ce->events[ev], 1);
	kmp_ctr_allocs(c, 1, bytes, req);
}

/* The same for a free that stands for @n (sample_rate's, or 1). */
static __always_inline void kmp_count_free_ev(enum kmp_event ev, u32 idx,
					      u32 bytes, u32 req, u64 n)
{
	struct kmp_stats *ce = this_cpu_ptr(&kmp_stats);
	struct kmp_counters *c = kmp_ctr(idx);

	if (ev < KMP_EV_NR)
		kmp_add(&ce->events[ev], 1);
	kmp_ctr_frees(c, n, bytes, req);
}

/*
 * sample_rate N > 1 on the fast paths, as account.c does it: every
 * allocation is counted and its tag marked sampled, one in N per CPU is
 * tracked, and a tracked object's free stands for N. A free that finds
 * nothing was not tracked: unpaired, as on the general path.
 */
static __always_inline bool kmp_sample_track(u32 idx)
{
	struct kmp_tag *tag = kmp_tag_at(idx);

	kmp_tag_set_flag(tag, KMP_TAG_SAMPLED);
	return kmp_one_in(&kmp_track_ctr, READ_ONCE(kmp_sample_rate));
}

/*
 * A free that the fast path's table has no object for, with sample_rate
 * on: mostly one of the objects not tracked. Counted as the general path
 * would count it, an unpaired free of its kind; but where @key's group
 * has spilled, the general path looks there. @key 0: a page block whose
 * PFN map entry is empty.
 */
static __always_inline bool kmp_sampled_out(enum kmp_event ev,
					    unsigned long key)
{
	if (key && atomic_read(&kmp_tab.group_spill[kmp_live_group(key)]))
		return false;
	kmp_count_event(ev);
	kmp_stat_inc(key ? KMP_ST_UNPAIRED_SLAB : KMP_ST_UNPAIRED_PAGE);
	return true;
}

static __always_inline void kmp_count_free_sampled(enum kmp_event ev,
						   u32 idx, u32 bytes, u32 req)
{
	u64 n = kmp_rate();

	kmp_count_free_ev(ev, idx, bytes, req, n);
	/*
	 * Its allocation may have been counted once (before sampling, or by
	 * the re-attach scan): the tag's counts are estimates now, as the
	 * general path's __kmp_account_count_free() says too.
	 */
	/* kmp_tag_set_flag() but for its hint, which moves the free probes' code */
	if (n > 1 && !test_bit(KMP_TAG_SAMPLED, &kmp_tag_at(idx)->flags))
		set_bit(KMP_TAG_SAMPLED, &kmp_tag_at(idx)->flags);
}

/*
 * The fast paths serve an event: at the defaults or with an option they
 * take on, and not in NMI (which only kernels with KMP_NMI_EVENTS can be
 * in; the general path tests for it on all). @opts: the copy that tests
 * the options' keys; the defaults' copy (kmp_opts_key_on() off) tests only
 * sample_rate's, which it serves too.
 */
static __always_inline bool kmp_fast_ok(const bool timed, const bool opts)
{
	if (opts && (kmp_slow_key_on() || (timed && kmp_sample_key_on())))
		return false;
	return likely(!(KMP_NMI_EVENTS && in_nmi()));
}

/*
 * The tag's histogram slot for the lifetime of an object of tag @idx with
 * @time (0: none), into *@h: KMP_NIL for none (histograms off, or no
 * time). False where the tag has not asked for one yet: the general path
 * takes it from the pool.
 */
static __always_inline bool kmp_hist_life_slot(u32 idx, u64 time, u32 *h)
{
	*h = KMP_NIL;
	if (time && (READ_ONCE(kmp_mode) & KMP_M_HIST)) {
		*h = READ_ONCE(kmp_tag_at(idx)->hist);
		if (unlikely(*h == KMP_HIST_UNSET))
			return false;
	}
	return true;
}

/* What __kmp_live_slots_remove() did. */
enum kmp_take {
	KMP_TAKE_NONE,	/* the key is not in its group's slots */
	KMP_TAKE_DONE,
	KMP_TAKE_LEFT,	/* there, but left where it is (see below) */
};

/*
 * Take live @key out of its group's slots into @obj, with its time where
 * @timed: the fast paths' take (the others take with
 * kmp_live_slots_remove(), live.h, which reads the owner line too). It is
 * here, not in live.h, for the tag it reads. The object is left in its slot
 * where @size is not 0 and is not its size (a page block of another
 * order), or where @h is given (the fast paths, times on) and its tag has
 * no histogram slot yet (kmp_hist_life_slot(), into *@h).
 */
static __always_inline enum kmp_take
__kmp_live_slots_remove(unsigned long key, struct kmp_obj *obj, u32 size,
			const bool timed, u32 *h)
{
	struct kmp_slot *s;

	if (!kmp_live_find(key, &s))
		return KMP_TAKE_NONE;
	__kmp_slot_get(s, obj, timed);
	if ((size && obj->size != size) ||
	    (h && !kmp_hist_life_slot(obj->tag, obj->time, h)))
		return KMP_TAKE_LEFT;
	/* the reads above before the slot is free again */
	smp_store_release(&s->key, 0);
	return KMP_TAKE_DONE;
}

/*
 * Histograms and lifetimes on the fast paths (kmp_time_key_on()), as account.c
 * keeps them: an allocation's time and CPU in one word for its slot, and
 * with histograms on, its tag's histogram slot in *@h (KMP_NIL: the pool
 * ran out) for its sizes. False, with nothing changed, if the tag has not
 * asked for a histogram slot yet: the general path takes it from the pool.
 */
static __always_inline bool kmp_time_alloc(u32 idx, u32 *h, u64 *time_cpu)
{
	*h = KMP_NIL;
	if (READ_ONCE(kmp_mode) & KMP_M_HIST) {
		*h = READ_ONCE(kmp_tag_at(idx)->hist);
		if (unlikely(*h == KMP_HIST_UNSET))
			return false;
	}
	*time_cpu = (__kmp_now() >> KMP_TIME_SHIFT) |
		    (u64)raw_smp_processor_id() << KMP_CPU_SHIFT;
	return true;
}

/*
 * The same at a free, of @obj taken out with its histogram slot @h
 * (kmp_hist_life_slot(): KMP_NIL for none).
 */
static __always_inline void kmp_time_freed(u32 h, const struct kmp_obj *obj)
{
	if (h != KMP_NIL)
		kmp_hist_add_free(h, obj->time, obj->cpu, __kmp_now());
}

/*
 * The fast paths: each does its whole event, interrupts off, and makes no
 * call; or it returns false with nothing changed, and the probe calls the
 * general path (kmp_*_slow(), below). So a probe at the defaults saves
 * no register but its frame record, and the general path is one call at
 * its end (not a tail call: the kernel builds with frame pointers and
 * -fno-optimize-sibling-calls). Each is made from one body in copies,
 * with @timed, @stacks and @opts constants: the defaults' copy (none of
 * them) has none of the options' code and tests no option's key but
 * sample_rate's; kmp_*_opts() holds the others.
 */
static_assert(KMALLOC_MAX_SIZE <= U32_MAX);

static __always_inline bool __kmp_slab_alloc_fast(enum kmp_event ev,
						  unsigned long site,
						  const void *ptr, size_t bytes,
						  size_t req,
						  const struct kmem_cache *s,
						  const bool timed,
						  const bool stacks,
						  const bool opts)
{
	u64 time_cpu = 0, sctr = KMP_STACK_NO_CTR;
	struct kmp_counters __percpu *ctr;
	struct kmp_stack *st = NULL;
	const struct kmp_site *e;
	struct kmp_slot *slot;
	unsigned long flags, key;
	unsigned int kd = 0;
	bool done = false;
	u32 h = KMP_NIL, idx;
	bool walk;

	if (!kmp_fast_ok(timed, opts))
		return false;
	local_irq_save(flags);
	if (unlikely(ZERO_OR_NULL_PTR(ptr))) {
		/* a failed allocation: an event, nothing to account */
		kmp_count_event(ev);
		done = true;
		goto out;
	}
	/*
	 * The key tested once: it can turn off between two tests (jump
	 * labels are patched one site at a time, and this CPU may run one
	 * site old and the next new), and then idx and ctr would come from
	 * neither the walk nor the site table.
	 */
	walk = stacks && kmp_stack_key_on();
	if (walk)
		kd = kmp_key_callers();
	/* with key_depth, the tag of (site, callers): kmp_walk_fast() */
	if (!kd) {
		if (unlikely(!kmp_site_lookup(kmp_site_key(site, KMP_KIND_SLAB),
					      &e) || e->flags))
			goto out;
		idx = e->idx;
		ctr = e->ctr;
	}
	/* from this function's own record: the probe's, or a copy's below */
	if (walk &&
	    !kmp_walk_fast((unsigned long)__builtin_frame_address(0), 0,
			   site, KMP_KIND_SLAB, kd, &idx, &ctr, &st, &sctr))
		goto out;
	/* a kmem_cache_alloc(): its slot from the site's entry, or else */
	if (s && (kd || !kmp_site_slot(e, s, req, &bytes)))
		bytes = kmp_cache_slot_of(kd ? NULL : e, s, ptr, req);
	if (kmp_sample_key_on() && !kmp_sample_track(idx)) {
		kmp_count_alloc_ev(ev, ctr, bytes, req);
		done = true;
		goto out;
	}
	if (timed && !kmp_time_alloc(idx, &h, &time_cpu))
		goto out;
	key = kmp_key_addr(KMP_KIND_SLAB, (unsigned long)ptr);
	slot = kmp_live_claim(key);
	if (unlikely(!slot))
		goto out;
	/* No slab object reaches 4 GiB (the static_assert above). */
	kmp_count_alloc_ev(ev, ctr, bytes, req);
	if (timed && h != KMP_NIL)
		kmp_hist_add_sizes(h, KMP_KIND_SLAB, bytes, req, 1);
	/* counted before it is published: see account.c */
	kmp_live_fill(slot, key, idx, bytes, req, time_cpu);
	if (stacks)
		kmp_stack_done(st, sctr, bytes);
	done = true;
out:
	local_irq_restore(flags);
	return done;
}

static __always_inline bool __kmp_slab_free_fast(enum kmp_event ev,
						 const void *ptr,
						 const bool timed,
						 const bool opts)
{
	unsigned long flags;
	/* every field written before it is read: no zeroing at each event */
	struct kmp_obj obj __uninitialized;
	enum kmp_take took;
	bool done = true;
	u32 h = KMP_NIL;

	if (!kmp_fast_ok(timed, opts))
		return false;
	local_irq_save(flags);
	if (likely(!ZERO_OR_NULL_PTR(ptr))) {
		unsigned long key = kmp_key_addr(KMP_KIND_SLAB,
						 (unsigned long)ptr);

		took = __kmp_live_slots_remove(key, &obj, 0, timed, timed ? &h : NULL);
		if (unlikely(took != KMP_TAKE_DONE)) {
			done = took == KMP_TAKE_NONE && kmp_sample_key_on() &&
			       kmp_sampled_out(ev, key);
			goto out;
		}
		if (kmp_sample_key_on())
			kmp_count_free_sampled(ev, obj.tag, obj.size, obj.req);
		else
			kmp_count_free_ev(ev, obj.tag, obj.size, obj.req, 1);
		if (timed)
			kmp_time_freed(h, &obj);
	} else {
		kmp_count_event(ev);
	}
out:
	local_irq_restore(flags);
	return done;
}

static __always_inline bool
__kmp_page_alloc_fast(enum kmp_event ev, unsigned long fp, unsigned int skip,
		      const struct page *page, unsigned int order,
		      const bool timed, const bool stacks, const bool opts)
{
	u32 bytes = PAGE_SIZE << order, *slot, v, h = KMP_NIL, idx;
	u64 time_cpu = 0, sctr = KMP_STACK_NO_CTR;
	unsigned long flags, key, site, rec;
	struct kmp_counters __percpu *ctr;
	struct kmp_stack *st = NULL;
	const struct kmp_site *e;
	unsigned int kd = 0, passed;
	struct kmp_slot *s;
	bool done = false, walk;

	if (!kmp_fast_ok(timed, opts))
		return false;
	local_irq_save(flags);
	/* the key tested once: see __kmp_slab_alloc_fast() */
	walk = stacks && kmp_stack_key_on();
	if (walk)
		kd = kmp_key_callers();
	/*
	 * With key_depth, the site whatever its entry: kmp_walk_fast(). An
	 * entry at the frame is the general path's (a lost free); a marker
	 * (a migration's, or the walk's: tables.h) is written over, as the
	 * general path does, where the block goes into the map.
	 */
	if (unlikely(!__kmp_page_site_fast(fp, skip, &e, stacks && kd, &site,
					   &rec, &passed) ||
		     !kmp_page_get(page, &slot)))
		goto out;
	v = READ_ONCE(*slot);
	if (unlikely(v & KMP_PFN_VALID))
		goto out;
	if (!kd) {
		idx = e->idx;
		ctr = e->ctr;
	}
	/* the walk goes on from the site's record */
	if (walk &&
	    !kmp_walk_fast(rec, passed, site, KMP_KIND_PAGE, kd, &idx, &ctr,
			   &st, &sctr))
		goto out;
	/*
	 * Page blocks have been entered in the live table (pages_hashed):
	 * one may still be there at this PFN, its free lost, which the
	 * general path accounts. With times on, the block goes there too,
	 * once the general path has set pages_hashed.
	 */
	if (unlikely(READ_ONCE(kmp_tab.pages_hashed) || timed)) {
		/* a timed block's marker: the general path takes it off */
		if (!READ_ONCE(kmp_tab.pages_hashed) || (timed && v))
			goto out;
		key = kmp_key_pfn(page_to_pfn(page));
		if (timed) {
			if (!kmp_time_alloc(idx, &h, &time_cpu))
				goto out;
			/* NULL where the key is there already */
			s = kmp_live_claim(key);
			if (!s)
				goto out;
			kmp_count_alloc_ev(ev, ctr, bytes, bytes);
			if (h != KMP_NIL)
				kmp_hist_add_sizes(h, KMP_KIND_PAGE, bytes,
						   bytes, 1);
			kmp_live_fill(s, key, idx, bytes, bytes, time_cpu);
			if (stacks)
				kmp_stack_done(st, sctr, bytes);
			done = true;
			goto out;
		}
		if (kmp_live_find(key, &s))
			goto out;
	}
	if (kmp_sample_key_on() && !kmp_sample_track(idx)) {
		kmp_count_alloc_ev(ev, ctr, bytes, bytes);
		done = true;
		goto out;
	}
	kmp_count_alloc_ev(ev, ctr, bytes, bytes);
	WRITE_ONCE(*slot, kmp_pfn_entry(idx, order));
	if (stacks)
		kmp_stack_done(st, sctr, bytes);
	done = true;
out:
	local_irq_restore(flags);
	return done;
}

/* What a page free's fast path did, or left to be done. */
enum kmp_page_fast {
	KMP_PF_SLOW,	/* nothing: the general path */
	KMP_PF_DONE,
	KMP_PF_TABLE,	/* nothing: the live table's look (pages_hashed) */
};

static __always_inline enum kmp_page_fast
__kmp_page_free_fast(enum kmp_event ev, const struct page *page,
		     unsigned int order, const bool timed, const bool opts)
{
	u32 *slot, v, bytes = PAGE_SIZE << order;
	enum kmp_page_fast ret = KMP_PF_SLOW;
	unsigned long flags;

	if (!kmp_fast_ok(timed, opts))
		return KMP_PF_SLOW;
	local_irq_save(flags);
	if (unlikely(!kmp_page_get(page, &slot)))
		goto out;
	v = READ_ONCE(*slot);
	if (unlikely(!(v & KMP_PFN_VALID))) {
		/*
		 * An empty entry: one of the blocks not tracked. Not a
		 * migration's marker, which the general path consumes.
		 */
		if (!READ_ONCE(kmp_tab.pages_hashed)) {
			if (!v && kmp_sample_key_on() && kmp_sampled_out(ev, 0))
				ret = KMP_PF_DONE;
		} else if (!kmp_sample_key_on()) {
			ret = KMP_PF_TABLE;
		}
		goto out;
	}
	if (unlikely(!kmp_pfnmap_remove(slot, v, order, true)))
		goto out;
	if (kmp_sample_key_on())
		kmp_count_free_sampled(ev, kmp_pfn_tag(v), bytes, bytes);
	else
		kmp_count_free_ev(ev, kmp_pfn_tag(v), bytes, bytes, 1);
	ret = KMP_PF_DONE;
out:
	local_irq_restore(flags);
	return ret;
}

/*
 * probes.c: the general path, with NMI, options and the tables' misses.
 * A slab allocation's sizes are in the tracepoint's order (requested,
 * then allocated), so that a probe passes its arguments on unmoved.
 */
void kmp_slab_alloc_slow(enum kmp_event ev, unsigned long call_site,
			 const void *ptr, size_t bytes_req, size_t bytes_alloc);
void kmp_slab_free_slow(enum kmp_event ev, const void *ptr);
void kmp_page_alloc_slow(enum kmp_event ev, unsigned long fp,
			 const struct page *page, unsigned int order);
void kmp_page_free_slow(enum kmp_event ev, const struct page *page,
			unsigned int order);
void kmp_page_move(unsigned long dst, unsigned long src, unsigned int order);
void kmp_page_free_table(enum kmp_event ev, const struct page *page,
			 unsigned int order);

void kmp_slab_alloc_opts(enum kmp_event ev, unsigned long call_site,
			 const void *ptr, size_t bytes_req, size_t bytes_alloc,
			 const struct kmem_cache *s);
void kmp_slab_free_opts(enum kmp_event ev, const void *ptr);
void kmp_page_alloc_opts(enum kmp_event ev, unsigned long fp,
			 unsigned int skip, const struct page *page,
			 unsigned int order);
void kmp_page_free_opts(enum kmp_event ev, const struct page *page,
			unsigned int order);

/*
 * The events, as the probes take them. At the defaults and with sample_rate
 * alone (kmp_opts_key_on() off), the fast path's copy that tests no other
 * option, inline. With any other option on, one call (kmp_*_opts(), probes.c),
 * which picks the copy for the options (kmp_time_key_on(), kmp_stack_key_on())
 * or the general path: inlined here, their registers would be saved and
 * restored at every event, and their tests run at the defaults too.
 */

/*
 * The path build's reasons (paths.h): why the defaults' fast path gave
 * an event up, read again before the general path changes anything,
 * with interrupts still off. Never run in the other builds.
 */
static __always_inline unsigned int kmp_why_slab_alloc(unsigned long site)
{
	const struct kmp_site *e;

	if (!kmp_site_lookup(kmp_site_key(site, KMP_KIND_SLAB), &e))
		return KMP_PC_W_NOSITE;
	return e->flags ? KMP_PC_W_SLOWSITE : KMP_PC_W_FULL;
}

static __always_inline unsigned int kmp_why_slab_free(const void *ptr)
{
	struct kmp_slot *s;

	return kmp_live_find(kmp_key_addr(KMP_KIND_SLAB, (unsigned long)ptr),
			     &s) ? KMP_PC_W_OTHER : KMP_PC_W_NOENTRY;
}

/* __kmp_page_site_fast()'s walk, and where it gave up. */
static __always_inline unsigned int kmp_why_page_walk(unsigned long fp,
						      unsigned int skip)
{
#if KMP_HAVE_FP_WALK
	const struct kmp_site *e;
	struct kmp_fp_walk w;
	unsigned int i;

	kmp_fp_start(&w, fp);
	for (i = 0; i < skip; i++)
		if (!kmp_fp_up(&w))
			return KMP_PC_W_WALK;
	for (i = 0; i < KMP_FP_FRAMES; i++) {
		if (!kmp_site_lookup(kmp_site_key(kmp_fp_ret(&w), KMP_KIND_PAGE),
				     &e))
			return KMP_PC_W_NOSITE;
		if (!(e->flags & KMP_SITE_FRAME))
			return e->flags ? KMP_PC_W_SLOWSITE : 0;
		if (!kmp_fp_up(&w))
			return KMP_PC_W_WALK;
	}
#endif
	return KMP_PC_W_WALK;
}

static __always_inline unsigned int
kmp_why_page_alloc(unsigned long fp, unsigned int skip, const struct page *page)
{
	unsigned int why = kmp_why_page_walk(fp, skip);
	u32 *slot;

	if (why)
		return why;
	if (!kmp_page_get(page, &slot))
		return KMP_PC_W_NOMAP;
	return READ_ONCE(*slot) ? KMP_PC_W_TAKEN : KMP_PC_W_OTHER;
}

static __always_inline unsigned int kmp_why_page_free(const struct page *page)
{
	u32 *slot, v;

	if (!kmp_page_get(page, &slot))
		return KMP_PC_W_NOMAP;
	v = READ_ONCE(*slot);
	if (!(v & KMP_PFN_VALID))
		return v ? KMP_PC_W_MARKER : KMP_PC_W_NOENTRY;
	return KMP_PC_W_ORDER;
}

/*
 * In the path build, each of the four below is an outer section
 * (paths.h) of the event's row: the fast path, or the general path with
 * the fast path's try (and, with an option on, every event: the bench's
 * path mode runs at the defaults).
 */

/* A slab allocation of @ptr at @call_site. */
/*
 * @s: a kmem_cache_alloc() from @s (6.1+, whose event has no slot size),
 * whose slot the fast path takes from the site's entry (tables.h) and
 * the other paths from kmp_cache_slot_of(); @bytes_alloc is unused then.
 * NULL for every other event, which has its sizes.
 */
static __always_inline void __kmp_slab_alloc(enum kmp_event ev,
					     unsigned long call_site,
					     const void *ptr,
					     size_t bytes_alloc,
					     size_t bytes_req,
					     const struct kmem_cache *s)
{
	struct kmp_path_sec ps;

	kmp_path_begin(&ps, kmp_path_row(ev, KMP_PR_HOOK_SLAB_ALLOC));
	if (kmp_opts_key_on()) {
		kmp_slab_alloc_opts(ev, call_site, ptr, bytes_req, bytes_alloc,
				    s);
		kmp_path_end(&ps, KMP_PC_GENERAL);
	} else if (!__kmp_slab_alloc_fast(ev, call_site, ptr, bytes_alloc,
					bytes_req, s, false, false, false)) {
		KMP_PATH_WHY(&ps, kmp_why_slab_alloc(call_site));
		if (s)
			bytes_alloc = kmp_cache_slot_of(NULL, s, ptr,
							bytes_req);
		kmp_slab_alloc_slow(ev, call_site, ptr, bytes_req,
				    bytes_alloc);
		kmp_path_end(&ps, KMP_PC_GENERAL);
	} else {
		kmp_path_end(&ps, KMP_PC_FAST);
	}
}

static __always_inline void kmp_slab_alloc(enum kmp_event ev,
					   unsigned long call_site,
					   const void *ptr, size_t bytes_alloc,
					   size_t bytes_req)
{
	__kmp_slab_alloc(ev, call_site, ptr, bytes_alloc, bytes_req, NULL);
}

static __always_inline void kmp_cache_alloc(enum kmp_event ev,
					    unsigned long call_site,
					    const void *ptr,
					    const struct kmem_cache *s,
					    unsigned int obj)
{
	__kmp_slab_alloc(ev, call_site, ptr, 0, obj, s);
}

static __always_inline void kmp_slab_free(enum kmp_event ev, const void *ptr)
{
	struct kmp_path_sec ps;

	kmp_path_begin(&ps, kmp_path_row(ev, KMP_PR_HOOK_SLAB_FREE));
	if (kmp_opts_key_on()) {
		kmp_slab_free_opts(ev, ptr);
		kmp_path_end(&ps, KMP_PC_GENERAL);
	} else if (!__kmp_slab_free_fast(ev, ptr, false, false)) {
		KMP_PATH_WHY(&ps, kmp_why_slab_free(ptr));
		kmp_slab_free_slow(ev, ptr);
		kmp_path_end(&ps, KMP_PC_GENERAL);
	} else {
		kmp_path_end(&ps, KMP_PC_FAST);
	}
}

/*
 * A page block of @order at @page. @fp: the frame record the walk to the
 * call site starts from, the probe's own or a hook wrapper's; the fast
 * path passes the first @skip records (KMP_PROBE_SKIP for a probe).
 */
static __always_inline void kmp_page_alloc(enum kmp_event ev,
					   unsigned long fp, unsigned int skip,
					   const struct page *page,
					   unsigned int order)
{
	struct kmp_path_sec ps;

	kmp_path_begin(&ps, kmp_path_row(ev, KMP_PR_HOOK_PAGE_ALLOC));
	if (kmp_opts_key_on()) {
		kmp_page_alloc_opts(ev, fp, skip, page, order);
		kmp_path_end(&ps, KMP_PC_GENERAL);
	} else if (!__kmp_page_alloc_fast(ev, fp, skip, page, order, false,
					false, false)) {
		KMP_PATH_WHY(&ps, kmp_why_page_alloc(fp, skip, page));
		kmp_page_alloc_slow(ev, fp, page, order);
		kmp_path_end(&ps, KMP_PC_GENERAL);
	} else {
		kmp_path_end(&ps, KMP_PC_FAST);
	}
}

static __always_inline void kmp_page_free(enum kmp_event ev,
					  const struct page *page,
					  unsigned int order)
{
	enum kmp_page_fast r;
	struct kmp_path_sec ps;

	kmp_path_begin(&ps, kmp_path_row(ev, KMP_PR_OTHER));
	if (kmp_opts_key_on()) {
		kmp_page_free_opts(ev, page, order);
		kmp_path_end(&ps, KMP_PC_GENERAL);
		return;
	}
	/* each call the last thing: nothing to keep across it */
	r = __kmp_page_free_fast(ev, page, order, false, false);
	if (r == KMP_PF_SLOW) {
		KMP_PATH_WHY(&ps, kmp_why_page_free(page));
		kmp_page_free_slow(ev, page, order);
		kmp_path_end(&ps, KMP_PC_GENERAL);
	} else if (r == KMP_PF_TABLE) {
		kmp_page_free_table(ev, page, order);
		kmp_path_end(&ps, KMP_PC_TABLE);
	} else {
		kmp_path_end(&ps, KMP_PC_FAST);
	}
}

#endif /* _KMEMPROF_PROBES_H */
