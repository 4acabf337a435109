// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: accounting an allocation or a free to its tag, and the
 * self-statistics.
 *
 * An allocation is counted on its tag first, then entered in the live
 * table; a free is taken out of the live table, then counted on the tag
 * that allocated it. That order is what keeps live counts from ever going
 * negative (see the notes in tags.c).
 *
 * Notes on locking: none here; see tags.c and live.c. Everything here runs
 * with interrupts off (the probes see to it) and never in NMI: the probes
 * turn NMI away, since the tables take locks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hardirq.h>
#include <linux/percpu.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>

struct kmp_stats {
	u64 count[KMP_ST_NR];
	u64 nmi;	/* KMP_ST_SKIP_NMI, counted apart: see kmp_stat_nmi() */
};

static DEFINE_PER_CPU(struct kmp_stats, kmp_stats);

static const char * const kmp_stat_names[KMP_ST_NR] = {
	[KMP_ST_DROP_TAGS]	= "drop.tags",
	[KMP_ST_DROP_LIVE]	= "drop.live",
	[KMP_ST_UNPAIRED_SLAB]	= "unpaired.slab",
	[KMP_ST_UNPAIRED_PAGE]	= "unpaired.page",
	[KMP_ST_UNPAIRED_PERCPU] = "unpaired.percpu",
	[KMP_ST_STALE]		= "stale",
	[KMP_ST_LARGE_DUP]	= "large_dup",
	[KMP_ST_PAGE_SPLIT]	= "page_split",
	[KMP_ST_SKIP_NMI]	= "skip.nmi",
	[KMP_ST_DROP_HIST]	= "drop.hist",
	[KMP_ST_DROP_STACKS]	= "drop.stacks",
	[KMP_ST_FILTERED]	= "filtered",
};

static_assert(KMP_ST_UNPAIRED_PAGE - KMP_ST_UNPAIRED_SLAB == KMP_KIND_PAGE);
static_assert(KMP_ST_UNPAIRED_PERCPU - KMP_ST_UNPAIRED_SLAB ==
	      KMP_KIND_PERCPU);

/* With interrupts off, from the allocation path. */
void kmp_stat_inc(enum kmp_stat st)
{
	lockdep_assert_irqs_disabled();
	kmp_add(this_cpu_ptr(&kmp_stats.count[st]), 1);
}

/* From NMI, which may interrupt a plain update: an atomic of its own. */
void kmp_stat_nmi(void)
{
	this_cpu_inc(kmp_stats.nmi);
}

u64 kmp_stat_read(enum kmp_stat st)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&kmp_stats, cpu)->count[st]) +
		       (st == KMP_ST_SKIP_NMI ?
			READ_ONCE(per_cpu_ptr(&kmp_stats, cpu)->nmi) : 0);
	return sum;
}

u64 kmemprof_stat(enum kmp_stat st)
{
	return st < KMP_ST_NR ? kmp_stat_read(st) : 0;
}
kmp_export_test_hook(kmemprof_stat);

const char *kmp_stat_name(enum kmp_stat st)
{
	return st < KMP_ST_NR ? kmp_stat_names[st] : "?";
}

void kmp_stats_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&kmp_stats, cpu), 0, sizeof(struct kmp_stats));
}

static DEFINE_PER_CPU(u32, kmp_track_ctr);
static DEFINE_PER_CPU(u32, kmp_stack_ctr);

/*
 * The unwind buffer: per CPU rather than on the stack, where the kernel's
 * stack initialisation (INIT_STACK_ALL_ZERO) would clear its 30 words on
 * every event. Safe: the probes run with interrupts off.
 */
static DEFINE_PER_CPU(struct kmp_frames, kmp_frames_buf);

/* True once in @n calls on this CPU (always, for n <= 1). */
static bool kmp_one_in(u32 __percpu *ctr, unsigned int n)
{
	u32 *c = this_cpu_ptr(ctr);

	if (n <= 1)
		return true;
	*c += 1;
	return !(*c % n);
}

static bool kmp_size_ok(size_t bytes)
{
	unsigned int max = READ_ONCE(kmp_max_size);

	return bytes >= READ_ONCE(kmp_min_size) && (!max || bytes <= max);
}

static void kmp_count_alloc(u32 idx, size_t bytes, size_t req, int d)
{
	struct kmp_counters *c = this_cpu_ptr(kmp_tag_counters(idx));

	kmp_add(&c->allocs, d);
	kmp_add(&c->bytes, d * (s64)bytes);
	kmp_add(&c->req, d * (s64)req);
}

/* @scale: with sample_rate N, a paired free stands for N frees. */
static void kmp_count_free(u32 idx, const struct kmp_obj *obj,
			   unsigned int scale)
{
	struct kmp_counters *c = this_cpu_ptr(kmp_tag_counters(idx));

	kmp_add(&c->frees, scale);
	kmp_add(&c->freed, (u64)obj->size * scale);
	kmp_add(&c->reqfreed, (u64)obj->req * scale);
}

/*
 * Find the call site and, with key_depth or a sampled stack, its callers:
 * one unwind serves all three.
 */
static unsigned long kmp_find_site(enum kmp_kind kind, unsigned long call_site,
				   unsigned int kd, unsigned int sd,
				   struct kmp_frames *f)
{
	unsigned long site;
	unsigned int i;

	if (!kd && !sd && !kmp_site_needs_unwind(kind, call_site))
		return call_site;
	site = kmp_unwind(f, kind, call_site, max(kd + 1, sd));
	for (i = 0; i < kd; i++)
		f->callers[i] = f->site >= 0 && f->site + 1 + i < f->n ?
				f->e[f->site + 1 + i] : 0;
	return site;
}

void kmp_account_alloc(enum kmp_kind kind, unsigned long call_site,
		       unsigned long key, size_t bytes, size_t req)
{
	unsigned int kd = min_t(unsigned int, READ_ONCE(kmp_key_depth),
				KMP_KEY_DEPTH_MAX);
	unsigned int rate = READ_ONCE(kmp_sample_rate), sd;
	struct kmp_frames *f = this_cpu_ptr(&kmp_frames_buf);
	struct kmp_obj obj, old;
	struct kmp_tag *tag;
	unsigned long site;
	bool track;

	if (kind == KMP_KIND_SLAB && unlikely(!kmp_size_ok(bytes))) {
		kmp_stat_inc(KMP_ST_FILTERED);
		return;
	}
	track = kmp_one_in(&kmp_track_ctr, rate);
	sd = min_t(unsigned int, READ_ONCE(kmp_stack_depth),
		   KMP_STACK_DEPTH_MAX);
	if (!track || (sd && !kmp_one_in(&kmp_stack_ctr,
					 READ_ONCE(kmp_stack_sample))))
		sd = 0;

	f->site = -1;
	site = kmp_find_site(kind, call_site, kd, sd, f);
	tag = kmp_tag_get(site, kind, f->callers, kd);
	if (unlikely(!tag))
		return;
	obj.tag = kmp_tag_index(tag);
	obj.size = min_t(size_t, bytes, U32_MAX);
	obj.req = min_t(size_t, req, U32_MAX);
	obj.cpu = raw_smp_processor_id();
	obj.time = kmp_now();
	kmp_count_alloc(obj.tag, obj.size, obj.req, 1);
	kmp_hist_alloc(tag, obj.size, obj.req, 1);
	if (sd && f->site >= 0)
		kmp_stack_record(obj.tag, &f->e[f->site],
				 min_t(unsigned int, sd, f->n - f->site),
				 obj.size);
	if (rate > 1 && !test_bit(KMP_TAG_SAMPLED, &tag->flags))
		set_bit(KMP_TAG_SAMPLED, &tag->flags);
	if (!track)
		return;

	switch (kmp_live_insert(key, &obj, &old)) {
	case KMP_INS_NEW:
		break;
	case KMP_INS_FULL:
		kmp_stat_inc(KMP_ST_DROP_LIVE);
		kmp_tag_mark_inaccurate(obj.tag);
		break;
	case KMP_INS_DUP:
		/* The first event's count goes back: one object, one count. */
		kmp_count_alloc(old.tag, old.size, old.req, -1);
		kmp_hist_alloc(kmp_tag_at(old.tag), old.size, old.req, -1);
		kmp_stat_inc(KMP_ST_LARGE_DUP);
		break;
	case KMP_INS_STALE:
		kmp_count_free(old.tag, &old, 1);
		kmp_tag_mark_inaccurate(old.tag);
		kmp_stat_inc(KMP_ST_STALE);
		break;
	}
}

/*
 * @bytes is what the free event says was freed (page blocks), or 0 where
 * it says nothing (slab, percpu).
 */
void kmp_account_free(unsigned long key, size_t bytes)
{
	enum kmp_kind kind = kmp_key_kind(key);
	struct kmp_obj obj;
	unsigned int rate;

	if (!kmp_live_remove(key, &obj)) {
		kmp_stat_inc(KMP_ST_UNPAIRED_SLAB + kind);
		return;
	}
	rate = max(READ_ONCE(kmp_sample_rate), 1U);
	kmp_count_free(obj.tag, &obj, rate);
	if (rate > 1 && !test_bit(KMP_TAG_SAMPLED, &kmp_tag_at(obj.tag)->flags))
		set_bit(KMP_TAG_SAMPLED, &kmp_tag_at(obj.tag)->flags);
	kmp_hist_free(kmp_tag_at(obj.tag), &obj, kmp_now());
	if (unlikely(bytes && bytes != obj.size)) {
		/* split_page() and friends: the rest frees unpaired. */
		kmp_stat_inc(KMP_ST_PAGE_SPLIT);
		kmp_tag_mark_inaccurate(obj.tag);
	}
}
