/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: stat.c's own header, the module's counters of its own work
 * and their inline adds for the fast paths. See stat.c.
 */
#ifndef _KMEMPROF_STAT_H
#define _KMEMPROF_STAT_H

#include <linux/lockdep.h>
#include <linux/percpu.h>

#include "internal.h"

/*
 * Every counter of kmemprof's own, per CPU, in one set (stat.c): the
 * statistics, the events the probes took (and those in NMI), and the
 * hooks' calls. Those above nmi are plain adds with interrupts off
 * (kmp_add()); from nmi on, each is counted where a plain add may be
 * interrupted halfway (in NMI, or with interrupts on), with
 * this_cpu_inc() or this_cpu_add(). A new counter goes on the side its
 * writers need.
 */
/*
 * The statistics counted in kmp_stats.count[]: those before drop.owners,
 * which is owner_drops at the end, so that the offsets the probes add at
 * (events, all, timed, ns, ...) stay as they were without owners.
 */
#define KMP_ST_COUNTED	KMP_ST_DROP_OWNERS

struct kmp_stats {
	u64 events[KMP_EV_NR];		/* events the probes took (first: */
					/* the fast paths' address) */
	u64 count[KMP_ST_COUNTED];
	u64 all;			/* events while self_timing is on */
	u64 timed;			/* probes timed */
	u64 ns;				/* their time in all */
	u64 nmi;			/* KMP_ST_SKIP_NMI: kmp_stat_nmi() */
	u64 nmi_events[KMP_EV_NR];	/* events in NMI (nmi.c) */
	u64 hook_calls[KMP_HOOK_NR];	/* calls of each hooked function */
	u64 hook_objects[KMP_HOOK_NR];	/* objects they returned or took */
	u64 owner_drops;		/* KMP_ST_DROP_OWNERS (owners.c) */
};

DECLARE_PER_CPU(struct kmp_stats, kmp_stats);

/* With interrupts off, from the allocation path (inline: the fast paths). */
static __always_inline void kmp_stat_inc(enum kmp_stat st)
{
	BUILD_BUG_ON(__builtin_constant_p(st) && st >= KMP_ST_COUNTED);
	lockdep_assert_irqs_disabled();
	kmp_add(this_cpu_ptr(&kmp_stats.count[st]), 1);
}

static __always_inline void kmp_stat_add(enum kmp_stat st, u64 n)
{
	lockdep_assert_irqs_disabled();
	kmp_add(this_cpu_ptr(&kmp_stats.count[st]), n);
}

void kmp_stat_nmi(void);
u64 kmp_stat_sum(u64 __percpu *ctr);
u64 kmp_stat_read(enum kmp_stat st);
const char *kmp_stat_name(enum kmp_stat st);
void kmp_stats_reset(void);

#endif /* _KMEMPROF_STAT_H */
