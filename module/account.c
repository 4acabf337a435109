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
 * Notes on locking: none here; see tags.c and live.c. NMI is skipped and
 * counted: the tables take locks, which NMI must not.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hardirq.h>
#include <linux/percpu.h>

#include <kmemprof/kmemprof.h>

struct kmp_stats {
	u64 count[KMP_ST_NR];
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
};

static_assert(KMP_ST_UNPAIRED_PAGE - KMP_ST_UNPAIRED_SLAB == KMP_KIND_PAGE);
static_assert(KMP_ST_UNPAIRED_PERCPU - KMP_ST_UNPAIRED_SLAB ==
	      KMP_KIND_PERCPU);

void kmp_stat_inc(enum kmp_stat st)
{
	this_cpu_inc(kmp_stats.count[st]);
}

u64 kmp_stat_read(enum kmp_stat st)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&kmp_stats, cpu)->count[st]);
	return sum;
}

u64 kmemprof_stat(enum kmp_stat st)
{
	return st < KMP_ST_NR ? kmp_stat_read(st) : 0;
}
EXPORT_SYMBOL_GPL(kmemprof_stat);

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

static void kmp_count_alloc(u32 idx, size_t bytes, size_t req, int d)
{
	struct kmp_counters __percpu *ctr = kmp_tag_counters(idx);

	this_cpu_add(ctr->allocs, d);
	this_cpu_add(ctr->bytes, d * (s64)bytes);
	this_cpu_add(ctr->req, d * (s64)req);
}

static void kmp_count_free(u32 idx, const struct kmp_obj *obj)
{
	struct kmp_counters __percpu *ctr = kmp_tag_counters(idx);

	this_cpu_inc(ctr->frees);
	this_cpu_add(ctr->freed, obj->size);
	this_cpu_add(ctr->reqfreed, obj->req);
}

void kmp_account_alloc(enum kmp_kind kind, unsigned long site,
		       unsigned long key, size_t bytes, size_t req)
{
	struct kmp_obj obj, old;
	struct kmp_tag *tag;

	if (unlikely(in_nmi())) {
		kmp_stat_inc(KMP_ST_SKIP_NMI);
		return;
	}
	tag = kmp_tag_get(site, kind);
	if (unlikely(!tag))
		return;
	obj.tag = kmp_tag_index(tag);
	obj.size = min_t(size_t, bytes, U32_MAX);
	obj.req = min_t(size_t, req, U32_MAX);
	obj.cpu = raw_smp_processor_id();
	obj.time = kmp_now();
	kmp_count_alloc(obj.tag, obj.size, obj.req, 1);
	kmp_hist_alloc(tag, obj.size, obj.req, 1);

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
		kmp_count_free(old.tag, &old);
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

	if (unlikely(in_nmi())) {
		kmp_stat_inc(KMP_ST_SKIP_NMI);
		return;
	}
	if (!kmp_live_remove(key, &obj)) {
		kmp_stat_inc(KMP_ST_UNPAIRED_SLAB + kind);
		return;
	}
	kmp_count_free(obj.tag, &obj);
	kmp_hist_free(kmp_tag_at(obj.tag), &obj, kmp_now());
	if (unlikely(bytes && bytes != obj.size)) {
		/* split_page() and friends: the rest frees unpaired. */
		kmp_stat_inc(KMP_ST_PAGE_SPLIT);
		kmp_tag_mark_inaccurate(obj.tag);
	}
}
