/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: which way each event went, and what each way cost, for make
 * bench's breakdown (issue 39). Only in the rig's path build
 * (module/Kbuild: KMEMPROF_PATHS=1 on top of KMEMPROF_TESTS, which
 * defines KMP_PATHS); everywhere else every macro here is empty, and the
 * module that is installed, and the bench's own test build, have none of
 * it.
 *
 * Each event is a row (its kind: enum kmp_event, then the hooks' events,
 * which have none). A section is timed with the cycle counter (under
 * -icount shift=0, one ns of it is one instruction) and counted in a
 * column: the outer sections (kmp_path_begin()/_end(): the fast or the
 * general path of the event, a migration) with interrupts off
 * throughout, so that nothing but the event is in their time; the inner
 * ones (kmp_psub_begin()/_end(): the unwinds, the frame cache's misses,
 * the given-back test, a kmem_cache slot that its site's entry did not
 * have) on the row of the outer section they are in. kmp_path_note()
 * only counts (why a fast path gave up). debugfs "paths" prints the sums over the CPUs, and what
 * a section and a note cost the time they are in (paths.c), so that the
 * table can take the instrumentation out again.
 *
 * Notes on locking: none. Everything is per CPU and touched with
 * interrupts off, but for the calibration at load (which turns them off
 * too); debugfs sums the CPUs' counters unlocked, read once the load is
 * done.
 */
#ifndef _KMEMPROF_PATHS_H
#define _KMEMPROF_PATHS_H

#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>

struct dentry;

/* The rows beyond the events: the hooks' (KMP_EV_NONE) and migrations. */
enum kmp_prow {
	KMP_PR_HOOK_SLAB_ALLOC = KMP_EV_NR,	/* bulk, nolock objects */
	KMP_PR_HOOK_SLAB_FREE,			/* free_bulk, nolock, sheaf */
	KMP_PR_HOOK_PAGE_ALLOC,			/* bulk pages, CMA blocks */
	KMP_PR_MIGRATE,				/* kmp_page_move() */
	KMP_PR_OTHER,				/* outside any event */
	KMP_PR_NR,
};

enum kmp_pcol {
	/* outer sections: one a row for each event */
	KMP_PC_FAST,		/* done on the inline fast path */
	KMP_PC_GENERAL,		/* the fast path's try, then the general path */
	KMP_PC_TABLE,		/* page free: the live table's look first */
	KMP_PC_MOVE,		/* a migration */
	/* inner sections, timed */
	KMP_PC_SITE_CHECK,	/* kmp_site_needs_unwind() */
	KMP_PC_PAGE_WALK,	/* the general path's walk to a page's site */
	KMP_PC_UNWIND,		/* kmp_unwind(): stack_trace_save() and all */
	KMP_PC_FRAME_MISS,	/* the frame cache missed: the symbol named */
	KMP_PC_GIVEN_BACK,	/* kmp_page_free_returns(): an unwind */
	KMP_PC_SPLIT,		/* a page free that found no block of its */
				/* order: the split lock and the search */
	KMP_PC_SLOT,		/* kmem_cache_alloc: its slot, not from */
				/* its site's entry (kmp_cache_slot_of()) */
	/* notes: counted only */
	KMP_PC_W_NOSITE,	/* fast path: site or a walked frame unknown */
	KMP_PC_W_SLOWSITE,	/* fast path: the site's entry says general */
	KMP_PC_W_WALK,		/* fast page walk: a record, or too deep */
	KMP_PC_W_FULL,		/* fast slab alloc: no slot claimed */
	KMP_PC_W_NOMAP,		/* the PFN is not in the map */
	KMP_PC_W_TAKEN,		/* page alloc: an entry at the PFN already */
	KMP_PC_W_NOENTRY,	/* free: no entry (0 in the map, or no slot) */
	KMP_PC_W_MARKER,	/* page free: a migration's marker */
	KMP_PC_W_ORDER,		/* page free: an entry of another order */
	KMP_PC_W_OTHER,		/* any other give-up of the fast path */
	KMP_PC_PRIOR,		/* a before-load entry paid off at an alloc */
	KMP_PC_STALE,		/* a stale entry paid off at an alloc */
	KMP_PC_RETURNED,	/* the given-back test said yes */
	KMP_PC_UNPAIRED,	/* the general path found nothing to pair */
	KMP_PC_NR,
};

#ifdef KMP_PATHS

struct kmp_path_cpu {
	unsigned int row;	/* of the outer section running */
	u64 n[KMP_PR_NR][KMP_PC_NR];
	u64 t[KMP_PR_NR][KMP_PC_NR];	/* counter ticks */
};

extern struct kmp_path_cpu __percpu *kmp_paths;

static __always_inline u64 kmp_path_clock(void)
{
#if KMP_HAVE_CYCLES
	return __arch_counter_get_cntvct();
#else
	return local_clock();
#endif
}

struct kmp_path_sec {
	unsigned long flags;
	unsigned int prev;
	u64 t0;
};

static __always_inline void kmp_path_begin(struct kmp_path_sec *s,
					   unsigned int row)
{
	struct kmp_path_cpu *p;

	local_irq_save(s->flags);
	p = raw_cpu_ptr(kmp_paths);
	s->prev = p->row;
	p->row = row;
	s->t0 = kmp_path_clock();
}

static __always_inline void kmp_path_end(struct kmp_path_sec *s,
					 unsigned int col)
{
	u64 t = kmp_path_clock() - s->t0;
	struct kmp_path_cpu *p = raw_cpu_ptr(kmp_paths);

	p->n[p->row][col]++;
	p->t[p->row][col] += t;
	p->row = s->prev;
	local_irq_restore(s->flags);
}

/* Inner sections and notes: with interrupts off, inside an outer one. */
static __always_inline u64 kmp_psub_begin(void)
{
	return kmp_path_clock();
}

static __always_inline void kmp_psub_end(u64 t0, unsigned int col)
{
	u64 t = kmp_path_clock() - t0;
	struct kmp_path_cpu *p = raw_cpu_ptr(kmp_paths);

	p->n[p->row][col]++;
	p->t[p->row][col] += t;
}

static __always_inline void kmp_path_note(unsigned int col)
{
	struct kmp_path_cpu *p = raw_cpu_ptr(kmp_paths);

	p->n[p->row][col]++;
}

/*
 * Why a fast path gave up, found by @why (an expression: a KMP_PC_W_*
 * column) before the general path changes anything, with the outer
 * section @s's clock stopped meanwhile. A macro, so that @why is not
 * evaluated at all in the other builds.
 */
#define KMP_PATH_WHY(s, why)	do {					\
	u64 __tp = kmp_path_clock();					\
									\
	kmp_path_note(why);						\
	(s)->t0 += kmp_path_clock() - __tp;				\
} while (0)

int kmp_paths_init(void);
void kmp_paths_exit(void);
void kmp_paths_debugfs(struct dentry *dir);

#else /* !KMP_PATHS */

struct kmp_path_sec {
};

static __always_inline void kmp_path_begin(struct kmp_path_sec *s,
					   unsigned int row)
{
}

static __always_inline void kmp_path_end(struct kmp_path_sec *s,
					 unsigned int col)
{
}

static __always_inline u64 kmp_psub_begin(void)
{
	return 0;
}

static __always_inline void kmp_psub_end(u64 t0, unsigned int col)
{
}

static __always_inline void kmp_path_note(unsigned int col)
{
}

/* Compiled, never run: @why is never evaluated. */
#define KMP_PATH_WHY(s, why)	do {					\
	if (0)								\
		kmp_path_note(why);					\
	kmp_path_end((s), KMP_PC_NR);					\
} while (0)

static inline int kmp_paths_init(void)
{
	return 0;
}

static inline void kmp_paths_exit(void)
{
}

static inline void kmp_paths_debugfs(struct dentry *dir)
{
}

#endif /* KMP_PATHS */

/* An event's row: @ev, or for a hook's (KMP_EV_NONE), @hook_row. */
static __always_inline unsigned int kmp_path_row(enum kmp_event ev,
						 unsigned int hook_row)
{
	return ev < KMP_EV_NR ? ev : hook_row;
}

#endif /* _KMEMPROF_PATHS_H */
