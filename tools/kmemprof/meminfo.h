/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof reader: the whole-RAM account (meminfo.c), /proc/meminfo's
 * categories beside what kmemprof attributes. The arithmetic is at the
 * top of meminfo.c and in Documentation/kmemprof-output.rst.
 */
#ifndef KP_MEMINFO_H
#define KP_MEMINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct kp_profile;

/* A value that is not there (a field the kernel lacks, a column n/a). */
#define KP_NONE INT64_MIN

/* The /proc/meminfo fields the account reads, in bytes, or KP_NONE. */
enum kp_mi_field {
	KP_MI_MEMTOTAL, KP_MI_MEMFREE, KP_MI_BUFFERS, KP_MI_CACHED,
	KP_MI_ANON, KP_MI_SLAB, KP_MI_STACK, KP_MI_PGTABLE, KP_MI_VMALLOC,
	KP_MI_PERCPU, KP_MI_CMATOTAL, KP_MI_CMAFREE, KP_MI_HUGETLB, KP_MI_NR
};

struct kp_meminfo {
	int64_t v[KP_MI_NR];
};

/* "MemTotal" ... as /proc/meminfo names them. */
const char *kp_mi_name(enum kp_mi_field f);

/*
 * Parse /proc/meminfo ("Key:  value kB" lines; fields it does not read
 * are skipped). MemTotal and MemFree must be there. -1 with "name:line:
 * why" in @err.
 */
int kp_parse_meminfo(FILE *in, const char *name, struct kp_meminfo *m,
		     char *err, size_t errlen);

/* /proc/zoneinfo: the pages of every zone's per-CPU free lists. */
struct kp_zoneinfo {
	int64_t pcp_pages;	/* the pagesets' "count:", summed */
	int64_t managed;	/* the zones' "managed", summed */
	size_t zones;
};

int kp_parse_zoneinfo(FILE *in, const char *name, struct kp_zoneinfo *z,
		      char *err, size_t errlen);

/*
 * The lines of the account, in the order it prints them. They add up to
 * MemTotal exactly; KP_ML_UNTRACKED is what is left.
 */
enum kp_mline {
	KP_ML_FREE, KP_ML_PCP, KP_ML_SLAB, KP_ML_PGTABLE, KP_ML_ANON,
	KP_ML_FILE, KP_ML_STACK, KP_ML_PERCPU, KP_ML_HUGETLB, KP_ML_OTHER,
	KP_ML_SELF,
	KP_ML_UNTRACKED, KP_ML_NR
};

struct kp_mline_info {
	const char *id;		/* the category label: "slab" */
	const char *label;	/* for people: "slab pages" */
	const char *field;	/* the meminfo category beside it, or NULL */
};

const struct kp_mline_info *kp_mline_info(enum kp_mline l);

struct kp_account_line {
	int64_t bytes;		/* the line; signed (untracked may be < 0) */
	int64_t since;		/* on call sites' lines (since load), or KP_NONE */
	int64_t before;		/* on before_load:* lines, or KP_NONE */
	int64_t meminfo;	/* the meminfo category beside it, or KP_NONE */
	size_t sites;		/* call sites' page lines in @since, live > 0 */
};

struct kp_account {
	int64_t memtotal;
	int64_t page_size;
	struct kp_account_line l[KP_ML_NR];
	int64_t attributed;	/* kmemprof's page lines inside MemTotal */
	int64_t before_load;	/* before_load:* inside MemTotal */
	int64_t reserved;	/* before_load:reserved, outside MemTotal */
	int64_t vmalloc;	/* VmallocUsed, or KP_NONE */
	int64_t cma_used;	/* CmaTotal - CmaFree, or KP_NONE */
	int64_t percpu;		/* Percpu, or KP_NONE */
	int64_t slab_objects;	/* live bytes of kind:slab lines */
	int64_t percpu_objects;	/* live bytes of kind:percpu lines */
	bool have_zoneinfo;
	bool have_prior;	/* the profile has before_load lines */
};

/*
 * Which line a kind:page line of /proc/kmemprof counts on: by its site
 * for the lines without one (before_load:*, kmemprof:*), else by its
 * function. KP_ML_NR for before_load:reserved (outside MemTotal).
 */
enum kp_mline kp_mline_of(const char *site, const char *module,
			  const char *func, bool *before);

/*
 * The account of @p (a /proc/kmemprof profile) against @m and, if not
 * NULL, @z. @page_size: 0 to take it from @m and @z (MemTotal / managed)
 * or, failing that, the system's. -1 (with a message in @err) when @p is
 * no kmemprof profile.
 */
int kp_account(const struct kp_profile *p, const struct kp_meminfo *m,
	       const struct kp_zoneinfo *z, int64_t page_size,
	       struct kp_account *a, char *err, size_t errlen);

/*
 * Read $KMEMPROF_ROOT/proc/meminfo and, if it is there,
 * $KMEMPROF_ROOT/proc/zoneinfo (@z->zones 0 if not). -1 with @err.
 */
int kp_read_meminfo(struct kp_meminfo *m, struct kp_zoneinfo *z,
		    char *err, size_t errlen);

/*
 * builtin-meminfo.c: the account of @capture, or with NULL the live one,
 * from $KMEMPROF_ROOT/proc/kmemprof, meminfo and zoneinfo; -1 after a
 * message on stderr. A capture is the three files in one ("-": stdin), as
 * "cat /proc/meminfo /proc/zoneinfo /proc/kmemprof > FILE" makes it: each
 * part starts at its first line (MemTotal:, Node N, the profile's header),
 * in any order; zoneinfo may be left out.
 */
int kp_meminfo_load(const char *capture, struct kp_account *a);

#endif /* KP_MEMINFO_H */
