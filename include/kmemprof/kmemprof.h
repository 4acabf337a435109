/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the interface between the module's files, and the part of it
 * that the KUnit suites use (exported GPL-only).
 *
 * Data flows one way: tracepoint -> probe (probes.c) -> accounting
 * (account.c) -> tables (tags.c, live.c) -> views (procfs.c, debugfs.c).
 */
#ifndef _KMEMPROF_KMEMPROF_H
#define _KMEMPROF_KMEMPROF_H

#include <linux/kallsyms.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/percpu.h>

/* The kmem events kmemprof attaches to, in the order stats prints them. */
enum kmp_event {
	KMP_EV_KMALLOC,
	KMP_EV_KMEM_CACHE_ALLOC,
	KMP_EV_KFREE,
	KMP_EV_KMEM_CACHE_FREE,
	KMP_EV_PAGE_ALLOC,
	KMP_EV_PAGE_FREE,
	KMP_EV_PERCPU_ALLOC,
	KMP_EV_PERCPU_FREE,
	KMP_EV_NR,
};

/* What a tag counts. Each kind is its own key space in every table. */
enum kmp_kind {
	KMP_KIND_SLAB,
	KMP_KIND_PAGE,
	KMP_KIND_PERCPU,
	KMP_KIND_NR,
};

#define KMP_KIND_ALL	((1U << KMP_KIND_NR) - 1)

/* Per-CPU counters of one tag; live values are derived at read time. */
struct kmp_counters {
	u64 allocs;
	u64 frees;
	u64 bytes;	/* bytes allocated, cumulative */
	u64 freed;	/* bytes freed, cumulative */
	u64 req;	/* bytes requested, cumulative */
};

/* A tag's totals over all CPUs, as the views and tests see them. */
struct kmp_totals {
	u64 allocs;
	u64 frees;
	u64 bytes;
	u64 freed;
	u64 req;
	u64 live_bytes;
	u64 live_objs;
};

/* Tag flags (bit numbers in kmp_tag.flags). */
enum {
	KMP_TAG_READY,		/* fully initialised; views may read it */
	KMP_TAG_INACCURATE,	/* a drop or a lost pairing touched it */
	KMP_TAG_GONE,		/* its module was unloaded; see ->gone_text */
};

struct kmp_tag {
	struct hlist_node hnode;	/* in the tag hash, until GONE */
	unsigned long site;		/* call site address */
	unsigned long flags;
	u8 kind;
	const char *gone_text;		/* "sym+off/len [mod] func:sym" */
};

/* Self-statistics, per CPU; see Documentation/kmemprof.rst. */
enum kmp_stat {
	KMP_ST_DROP_TAGS,	/* events lost: the tag pool was full */
	KMP_ST_DROP_LIVE,	/* allocations not tracked: live table full */
	KMP_ST_UNPAIRED_SLAB,	/* frees that found no live entry */
	KMP_ST_UNPAIRED_PAGE,
	KMP_ST_UNPAIRED_PERCPU,
	KMP_ST_STALE,		/* entries replaced: their free was not seen */
	KMP_ST_LARGE_DUP,	/* repeated kmalloc events for one object */
	KMP_ST_PAGE_SPLIT,	/* page frees of another order than allocated */
	KMP_ST_SKIP_NMI,	/* events skipped in NMI context */
	KMP_ST_NR,
};

/* account.c: what the probes call. */
void kmp_account_alloc(enum kmp_kind kind, unsigned long site,
		       unsigned long key, size_t bytes, size_t req,
		       unsigned int order);
void kmp_account_free(enum kmp_kind kind, unsigned long key,
		      unsigned int order);
void kmp_stat_inc(enum kmp_stat st);
u64 kmp_stat_read(enum kmp_stat st);
const char *kmp_stat_name(enum kmp_stat st);
void kmp_stats_reset(void);

/* tags.c */
extern unsigned int kmp_max_tags;
int kmp_tags_init(void);
void kmp_tags_exit(void);
struct kmp_tag *kmp_tag_get(unsigned long site, enum kmp_kind kind);
struct kmp_tag *kmp_tag_at(u32 idx);
u32 kmp_tag_index(const struct kmp_tag *tag);
u32 kmp_tags_used(void);
bool kmp_tag_ready(u32 idx);
struct kmp_counters __percpu *kmp_tag_counters(u32 idx);
void kmp_tag_totals(u32 idx, struct kmp_totals *t);
void kmp_tag_mark_inaccurate(u32 idx);
void kmp_tags_reset(void);
const char *kmp_kind_name(enum kmp_kind kind);
size_t kmp_tags_memory(void);

/* live.c */
extern unsigned int kmp_max_live;
int kmp_live_init(void);
void kmp_live_exit(void);
/* Returns the old entry's fate; see live.c. */
void kmp_live_insert(enum kmp_kind kind, unsigned long key, u32 tag,
		     size_t bytes, size_t req, unsigned int order);
bool kmp_live_remove(enum kmp_kind kind, unsigned long key,
		     unsigned int order);
void kmp_live_mark_tags(unsigned int kinds);
void kmp_live_clear(void);
u32 kmp_live_used(void);
size_t kmp_live_memory(void);

/* callsite.c */
unsigned long kmp_page_site(void);
unsigned long kmp_percpu_site(unsigned long call_site);
/* sprint_symbol()'s room, plus " func:" and the symbol again. */
#define KMP_SITE_TEXT_LEN	(2 * KSYM_SYMBOL_LEN)
int kmp_site_text(char *buf, unsigned long site);

/* probes.c */
int kmp_probes_init(void);
void kmp_probes_exit(void);
int kmp_probes_set(bool enabled, unsigned int kinds);
void kmp_events_reset(void);

/* control.c: the state the knobs change, under one mutex. */
int kmemprof_set_enabled(bool on);
bool kmemprof_is_enabled(void);
int kmemprof_set_events(unsigned int kinds);
unsigned int kmemprof_events(void);
int kmemprof_reset(void);

/* procfs.c, sysctl.c, debugfs.c */
int kmp_procfs_init(void);
void kmp_procfs_exit(void);
int kmp_sysctl_init(void);
void kmp_sysctl_exit(void);
int kmp_debugfs_init(void);
void kmp_debugfs_exit(void);

/* For the KUnit suites. */
u64 kmemprof_event_count(enum kmp_event ev);
const char *kmemprof_event_name(enum kmp_event ev);
u64 kmemprof_stat(enum kmp_stat st);
int kmemprof_parse_events(const char *s, unsigned int *kinds);
int kmemprof_sum_range(enum kmp_kind kind, unsigned long start,
		       unsigned long end, struct kmp_totals *t,
		       bool *inaccurate);

#endif /* _KMEMPROF_KMEMPROF_H */
