// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the self-statistics (drops, unpaired frees, ...), per CPU; see
 * Documentation/kmemprof.rst. A leaf: every file that counts one calls in
 * here, and nothing here calls out.
 *
 * The one set of kmemprof's own counters (struct kmp_stats): the
 * statistics, the events each probe took (in NMI too), and the hooks'
 * calls.
 *
 * Notes on locking: none. Counts are plain per-CPU adds, made with
 * interrupts off on the allocation path (kmp_add()), except those that an
 * NMI, or a hook with interrupts on, makes: these may land in the middle
 * of a plain add, so each has counters of its own, updated with this
 * CPU's atomic add (this_cpu_inc()). Readers sum whole, aligned words.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/percpu.h>

#include "internal.h"
#include "stat.h"

DEFINE_PER_CPU(struct kmp_stats, kmp_stats);

static const char * const kmp_stat_names[KMP_ST_NR] = {
	[KMP_ST_DROP_TAGS]	= "drop.tags",
	[KMP_ST_DROP_LIVE]	= "drop.live",
	[KMP_ST_UNPAIRED_SLAB]	= "unpaired.slab",
	[KMP_ST_UNPAIRED_PAGE]	= "unpaired.page",
	[KMP_ST_UNPAIRED_PERCPU] = "unpaired.percpu",
	[KMP_ST_STALE]		= "stale",
	[KMP_ST_LARGE_DUP]	= "large_dup",
	[KMP_ST_PAGE_SPLIT]	= "page_split",
	[KMP_ST_PAGE_MOVED]	= "page_moved",
	[KMP_ST_PAGE_RETURNED]	= "page_returned",
	[KMP_ST_PRIOR_PAGES]	= "prior_pages",
	[KMP_ST_PRIOR_FREED]	= "prior_freed",
	[KMP_ST_SKIP_NMI]	= "skip.nmi",
	[KMP_ST_DROP_HIST]	= "drop.hist",
	[KMP_ST_DROP_STACKS]	= "drop.stacks",
	[KMP_ST_FILTERED]	= "filtered",
	[KMP_ST_UNPAIRED_OLD]	= "unpaired.slab_old",
	[KMP_ST_DROP_OWNERS]	= "drop.owners",
};

static_assert(KMP_ST_UNPAIRED_PAGE - KMP_ST_UNPAIRED_SLAB == KMP_KIND_PAGE);
static_assert(KMP_ST_UNPAIRED_PERCPU - KMP_ST_UNPAIRED_SLAB ==
	      KMP_KIND_PERCPU);

/* From NMI, which may interrupt a plain update: an atomic of its own. */
void kmp_stat_nmi(void)
{
	this_cpu_inc(kmp_stats.nmi);
}

/* The sum over the CPUs of one counter of kmp_stats, as &kmp_stats.<it>. */
u64 kmp_stat_sum(u64 __percpu *ctr)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(ctr, cpu));
	return sum;
}

u64 kmp_stat_read(enum kmp_stat st)
{
	if (st == KMP_ST_DROP_OWNERS)
		return kmp_stat_sum(&kmp_stats.owner_drops);
	if (st >= KMP_ST_COUNTED)
		return 0;
	return kmp_stat_sum(&kmp_stats.count[st]) +
	       (st == KMP_ST_SKIP_NMI ? kmp_stat_sum(&kmp_stats.nmi) : 0);
}

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

