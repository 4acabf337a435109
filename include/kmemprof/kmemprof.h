/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the interface between the module's files, and the part of it
 * that the KUnit suites use (exported GPL-only).
 */
#ifndef _KMEMPROF_KMEMPROF_H
#define _KMEMPROF_KMEMPROF_H

#include <linux/types.h>

/* The kmem events kmemprof attaches to, in the order stats prints them. */
enum kmp_event {
	KMP_EV_KMALLOC,
	KMP_EV_KMEM_CACHE_ALLOC,
	KMP_EV_KFREE,
	KMP_EV_KMEM_CACHE_FREE,
	KMP_EV_PAGE_ALLOC,
	KMP_EV_PAGE_FREE,
	KMP_EV_NR,
};

/* probes.c */
int kmp_probes_init(void);
void kmp_probes_exit(void);
const char *kmemprof_event_name(enum kmp_event ev);

/* Exported for the KUnit suites. */
u64 kmemprof_event_count(enum kmp_event ev);
int kmemprof_set_enabled(bool on);
bool kmemprof_is_enabled(void);

/* debugfs.c */
int kmp_debugfs_init(void);
void kmp_debugfs_exit(void);

#endif /* _KMEMPROF_KMEMPROF_H */
