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
};

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

void kmp_account_alloc(enum kmp_kind kind, unsigned long site,
		       unsigned long key, size_t bytes, size_t req,
		       unsigned int order)
{
	struct kmp_counters __percpu *ctr;
	struct kmp_tag *tag;
	u32 idx;

	if (unlikely(in_nmi())) {
		kmp_stat_inc(KMP_ST_SKIP_NMI);
		return;
	}
	tag = kmp_tag_get(site, kind);
	if (unlikely(!tag))
		return;
	idx = kmp_tag_index(tag);
	ctr = kmp_tag_counters(idx);
	this_cpu_inc(ctr->allocs);
	this_cpu_add(ctr->bytes, bytes);
	this_cpu_add(ctr->req, req);
	kmp_live_insert(kind, key, idx, bytes, req, order);
}

void kmp_account_free(enum kmp_kind kind, unsigned long key,
		      unsigned int order)
{
	if (unlikely(in_nmi())) {
		kmp_stat_inc(KMP_ST_SKIP_NMI);
		return;
	}
	if (!kmp_live_remove(kind, key, order))
		kmp_stat_inc(KMP_ST_UNPAIRED_SLAB + kind);
}
