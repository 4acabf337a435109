/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: owners.c's own header, the owner table and the lines of
 * (site, owner) that the general path charges while owners are on, and
 * what the views (debugfs.c, oom.c) read of them. See owners.c.
 */
#ifndef _KMEMPROF_OWNERS_H
#define _KMEMPROF_OWNERS_H

#include <linux/atomic.h>
#include <linux/rculist.h>
#include <linux/sched.h>

#include "internal.h"

/* What an owner is (kmp_owner.type); 0: an entry not published yet. */
enum kmp_owner_type {
	KMP_OWN_NONE,
	KMP_OWN_TASK,		/* a thread group: tgid, comm when first seen */
	KMP_OWN_CGROUP,		/* a cgroup v2 group: id, path when resolved */
	KMP_OWN_KTHREAD,	/* a kernel thread name, kworker/... as kworker */
	KMP_OWN_IRQ,		/* hard interrupt context */
	KMP_OWN_SOFTIRQ,	/* softirq context (serving) */
	KMP_OWN_NMI,		/* NMI (nmi.c's records, applied later) */
};

struct cgroup;

struct kmp_owner {
	struct hlist_node hnode;	/* in the owner hash */
	u64 id;			/* tgid, cgroup id, or the name's hash */
	u64 start;		/* the group leader's start_time (tasks) */
	u8 type;		/* enum kmp_owner_type; set last (release) */
	char comm[TASK_COMM_LEN];	/* tasks, kernel threads */
	/* cgroups: the path, set once by the naming work (release) */
	const char *path;
	struct cgroup *cgrp;	/* a reference until the path is made */
};

/* A line: live bytes and objects of one tag charged to one owner. */
struct kmp_oline {
	struct hlist_node hnode;	/* in the line hash */
	u32 tag;
	u32 owner;		/* index in the owner pool; set last (release) */
	atomic64_t bytes;	/* live bytes */
	atomic64_t objs;	/* live objects */
	atomic64_t allocs;	/* allocations charged, cumulative */
};

extern unsigned int kmp_test_owner_cap, kmp_test_oline_cap;	/* tests */
extern unsigned int kmp_max_owners;
extern unsigned int kmp_max_olines;

int kmp_owners_init(void);	/* at the first owners=, kmp_control_lock */
void kmp_owners_exit(void);
void kmp_owners_clear(void);	/* no charger running, kmp_control_lock */
size_t kmp_owners_memory(void);
void kmp_owners_areas(kmp_area_fn fn, void *priv);

/* The general path, interrupts off: see owners.c. */
u32 kmp_owner_charge(u32 tag, unsigned int mode, bool nmi, u32 bytes, u32 n);
void kmp_owner_uncharge(u32 line, u32 bytes, u32 n);
void kmp_owner_split(u32 line, u32 n);

/* The views: entries in use, [1, used), each published or not yet. */
u32 kmp_olines_used(void);
u32 kmp_owners_used(void);
const struct kmp_oline *kmp_oline_at(u32 idx);	/* NULL: not published */
const struct kmp_owner *kmp_owner_at(u32 idx);	/* the same */
void kmp_owners_name_pending(void);	/* process context: cgroup paths */
/* An owner's fields in a view's line (owners.c), with room to spare. */
#define KMP_OWNER_TEXT_LEN	(2 * KMP_CGROUP_PATH + 48)
#define KMP_CGROUP_PATH		256
size_t kmp_owner_text(const struct kmp_owner *o, char *buf, size_t len);

#endif /* _KMEMPROF_OWNERS_H */
