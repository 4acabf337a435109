// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the path build's counters (paths.h), their calibration and
 * debugfs "paths". Built only with KMEMPROF_PATHS=1 (module/Kbuild).
 *
 * debugfs "paths" prints, summed over the CPUs:
 *
 *   rate HZ                   the counter's rate (ticks a second)
 *   calib N ZERO SUB NOTE WHY  ticks over N sections: an empty outer
 *                             section; what an empty inner section, a
 *                             note and a stopped clock (KMP_PATH_WHY())
 *                             add to the outer one they are in
 *   ROW COL N TICKS           every cell with events
 *
 * Notes on locking: none (paths.h). The calibration runs at load, before
 * any probe is attached, with interrupts off.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "paths.h"

struct kmp_path_cpu __percpu *kmp_paths;

static const char * const kmp_prow_names[KMP_PR_NR] = {
	[KMP_EV_KMALLOC]		= "kmalloc",
	[KMP_EV_KMEM_CACHE_ALLOC]	= "kmem_cache_alloc",
	[KMP_EV_KFREE]			= "kfree",
	[KMP_EV_KMEM_CACHE_FREE]	= "kmem_cache_free",
	[KMP_EV_PAGE_ALLOC]		= "mm_page_alloc",
	[KMP_EV_PAGE_FREE]		= "mm_page_free",
	[KMP_EV_PERCPU_ALLOC]		= "percpu_alloc",
	[KMP_EV_PERCPU_FREE]		= "percpu_free",
	[KMP_PR_HOOK_SLAB_ALLOC]	= "hook_slab_alloc",
	[KMP_PR_HOOK_SLAB_FREE]		= "hook_slab_free",
	[KMP_PR_HOOK_PAGE_ALLOC]	= "hook_page_alloc",
	[KMP_PR_MIGRATE]		= "migrate",
	[KMP_PR_OTHER]			= "other",
};

static const char * const kmp_pcol_names[KMP_PC_NR] = {
	[KMP_PC_FAST]		= "fast",
	[KMP_PC_GENERAL]	= "general",
	[KMP_PC_TABLE]		= "table",
	[KMP_PC_SLOT]		= "slot",
	[KMP_PC_MOVE]		= "move",
	[KMP_PC_SITE_CHECK]	= "site_check",
	[KMP_PC_PAGE_WALK]	= "page_walk",
	[KMP_PC_UNWIND]		= "unwind",
	[KMP_PC_FRAME_MISS]	= "frame_miss",
	[KMP_PC_GIVEN_BACK]	= "given_back",
	[KMP_PC_SPLIT]		= "split",
	[KMP_PC_W_NOSITE]	= "why_nosite",
	[KMP_PC_W_SLOWSITE]	= "why_slowsite",
	[KMP_PC_W_WALK]		= "why_walk",
	[KMP_PC_W_FULL]		= "why_full",
	[KMP_PC_W_NOMAP]	= "why_nomap",
	[KMP_PC_W_TAKEN]	= "why_taken",
	[KMP_PC_W_NOENTRY]	= "why_noentry",
	[KMP_PC_W_MARKER]	= "why_marker",
	[KMP_PC_W_ORDER]	= "why_order",
	[KMP_PC_W_OTHER]	= "why_other",
	[KMP_PC_PRIOR]		= "prior",
	[KMP_PC_STALE]		= "stale",
	[KMP_PC_RETURNED]	= "returned",
	[KMP_PC_UNPAIRED]	= "unpaired",
};

#define KMP_CALIB_N	4096

/* Ticks over KMP_CALIB_N sections, as the probes' sections are made. */
static u64 kmp_calib[4];

static noinline void kmp_paths_calibrate(void)
{
	struct kmp_path_cpu *p;
	unsigned int i, k;
	u64 before;

	for (k = 0; k < ARRAY_SIZE(kmp_calib); k++) {
		p = raw_cpu_ptr(kmp_paths);
		before = p->t[KMP_PR_OTHER][KMP_PC_FAST];
		for (i = 0; i < KMP_CALIB_N; i++) {
			struct kmp_path_sec ps;

			kmp_path_begin(&ps, KMP_PR_OTHER);
			if (k == 1) {
				u64 t = kmp_psub_begin();

				kmp_psub_end(t, KMP_PC_SITE_CHECK);
			} else if (k == 2) {
				kmp_path_note(KMP_PC_W_OTHER);
			} else if (k == 3) {
				KMP_PATH_WHY(&ps, KMP_PC_W_OTHER);
			}
			kmp_path_end(&ps, KMP_PC_FAST);
		}
		p = raw_cpu_ptr(kmp_paths);
		kmp_calib[k] = p->t[KMP_PR_OTHER][KMP_PC_FAST] - before;
	}
	/* what the others add to an empty section */
	for (k = 1; k < ARRAY_SIZE(kmp_calib); k++)
		kmp_calib[k] = kmp_calib[k] > kmp_calib[0] ?
			       kmp_calib[k] - kmp_calib[0] : 0;
}

int kmp_paths_init(void)
{
	int cpu;

	kmp_paths = alloc_percpu(struct kmp_path_cpu);
	if (!kmp_paths)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		per_cpu_ptr(kmp_paths, cpu)->row = KMP_PR_OTHER;
	preempt_disable();
	kmp_paths_calibrate();
	preempt_enable();
	for_each_possible_cpu(cpu) {
		struct kmp_path_cpu *p = per_cpu_ptr(kmp_paths, cpu);

		memset(p->n, 0, sizeof(p->n));
		memset(p->t, 0, sizeof(p->t));
	}
	pr_info("path build: every event's path counted and timed (debugfs paths)\n");
	return 0;
}

/* Every probe and hook detached. */
void kmp_paths_exit(void)
{
	free_percpu(kmp_paths);
	kmp_paths = NULL;
}

static int paths_show(struct seq_file *m, void *v)
{
	unsigned int r, c;
	int cpu;

#if KMP_HAVE_CYCLES
	seq_printf(m, "rate %u\n", kmp_cycles_rate());
#else
	seq_printf(m, "rate %lu\n", NSEC_PER_SEC);
#endif
	seq_printf(m, "calib %u %llu %llu %llu %llu\n", KMP_CALIB_N,
		   kmp_calib[0], kmp_calib[1], kmp_calib[2], kmp_calib[3]);
	for (r = 0; r < KMP_PR_NR; r++) {
		for (c = 0; c < KMP_PC_NR; c++) {
			u64 n = 0, t = 0;

			for_each_possible_cpu(cpu) {
				n += per_cpu_ptr(kmp_paths, cpu)->n[r][c];
				t += per_cpu_ptr(kmp_paths, cpu)->t[r][c];
			}
			if (n)
				seq_printf(m, "%s %s %llu %llu\n",
					   kmp_prow_names[r],
					   kmp_pcol_names[c], n, t);
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(paths);

void kmp_paths_debugfs(struct dentry *dir)
{
	debugfs_create_file("paths", 0400, dir, NULL, &paths_fops);
}
