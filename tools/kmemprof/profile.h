/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof reader: the parsed model of a profile. Every subcommand works
 * on it and every output renders from it.
 */
#ifndef KP_PROFILE_H
#define KP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "keymap.h"

enum kp_source {
	KP_KMEMPROF,	/* /proc/kmemprof */
	KP_ALLOCINFO,	/* /proc/allocinfo, 1.0 or 2.0 */
};

/* One line: a call site (a tag). Counts absent from the source are -1. */
struct kp_site {
	int64_t bytes;		/* live bytes */
	int64_t objs;		/* live objects (allocinfo: calls) */
	char *site;		/* "sym+0x1c/0x80" or "file:line" */
	char *module;		/* NULL for the kernel proper */
	char *func;
	char *kind;		/* "slab", "page", "percpu"; NULL if unknown */
	char *callers;		/* "a,b" for stack-keyed tags, or NULL */
	int64_t allocs, frees, total, req;
	bool inaccurate;
	bool unloaded;
	bool sampled;
	char *srcline;		/* "file:line" from DWARF resolution, or NULL */
	char *srcfunc;		/* the inlined function srcline is in, or NULL */
	/* Filled by the subcommands that compute them, else 0: */
	double rate;		/* allocs per second between two reads */
	int64_t age_ms;		/* oldest live object, from the ages view */
	/*
	 * Private to parse.c: site, module, func and kind point into the
	 * profile's arena when @shared, else each is its own allocation.
	 * callers, srcline and srcfunc are always their own allocations.
	 */
	bool shared;
};

struct kp_profile {
	enum kp_source source;
	char version[16];
	double time;		/* "# snapshot time:" (unix seconds), or 0 */
	bool delta;		/* values are B - A, signed (diff) */
	struct kp_site *sites;
	size_t n, cap;
	void *arena;		/* private to parse.c: the sites' text */
};

/* Parse @in (named @name in errors). On error, @err says "name:line: why". */
int kp_parse(FILE *in, const char *name, struct kp_profile *p,
	     char *err, size_t errlen);
void kp_free(struct kp_profile *p);

/*
 * Match key of a site: site, kind, module and callers, the tag's identity
 * in /proc/kmemprof and in every view. Written into @buf; returns @buf.
 */
const char *kp_site_key(const struct kp_site *s, char *buf, size_t len);

/* Sorting and filters: sort.c */
/*
 * The sort keys, one set for top, watch and diff (which of them a command
 * or an input can sort by is options.c's and the command's to say).
 * KP_GROWTH is a change between two reads: no site has it alone.
 */
enum kp_key { KP_BYTES, KP_OBJS, KP_AVG, KP_ALLOCS, KP_FRAG, KP_RATE,
	      KP_AGE, KP_GROWTH, KP_NKEYS };

/* -s k1,k2,...: by k1, its ties by k2, and so on; then by site. */
#define KP_MAX_KEYS 4
struct kp_keys {
	enum kp_key k[KP_MAX_KEYS];
	size_t n;
};

struct kp_filter {
	const char *kind;
	const char *module;
	const char *func_re;
	int64_t min_bytes;
};

int kp_key_parse(const char *s, enum kp_key *key);
const char *kp_key_name(enum kp_key key);
/*
 * "k1,k2" (at most KP_MAX_KEYS) into @keys; -1 with the word it could not
 * take in @bad, -2 for more than KP_MAX_KEYS.
 */
int kp_keys_parse(const char *s, struct kp_keys *keys, char *bad,
		  size_t badlen);
bool kp_keys_has(const struct kp_keys *keys, enum kp_key key);
/*
 * A site's value for @key, as the sort orders it (largest first; a ratio
 * finer than it prints, INT64_MIN where it means nothing). KP_GROWTH: 0.
 */
int64_t kp_key_value(const struct kp_site *s, enum kp_key key);
int kp_filter_apply(struct kp_profile *p, const struct kp_filter *f,
		    char *err, size_t errlen);
/*
 * Which of @n tags, @stride bytes apart from @first, pass @f: @keep[i]
 * (what kp_filter_apply() keeps); -1 with @err for a bad --func.
 */
int kp_filter_keep(const struct kp_site *first, size_t n, size_t stride,
		   const struct kp_filter *f, bool *keep, char *err,
		   size_t errlen);
void kp_sort(struct kp_profile *p, enum kp_key key);
void kp_sort_keys(struct kp_profile *p, const struct kp_keys *keys);
/* @part * @scale / @whole, rounded to the nearest (a half away from 0). */
int64_t kp_ratio_round(int64_t part, int64_t whole, int64_t scale);
/* Fragmentation in tenths of a percent, or -1 where undefined; sort.c */
int64_t kp_frag(const struct kp_site *s);
/* Live bytes an object, rounded, or -1 for no live objects; sort.c */
int64_t kp_avg(const struct kp_site *s);

/* Sizes as numfmt --to=iec prints them: human.c */
void kp_iec(int64_t v, char *buf, size_t len);

/*
 * The debugfs views (views.c). Every view names a tag as
 * "<site> [<module>] func:<function> kind:<kind>" and its caller: keys,
 * the same grammar as a /proc/kmemprof line's: a view's tag is a struct
 * kp_site with only site, module, func, kind and callers set ("all" for a
 * kind's totals, with no func), each its own allocation.
 */

/*
 * One sampled stack of the stacks view. Frames are as printed, nearest
 * first, starting at the call site: "sym+0x38/0x48" or
 * "sym+0x38/0x48 [module]". The view has no live counts: live_objs and
 * live_bytes are -1. The parser keeps every frame's text in one block,
 * owned by frames[0]; kp_stacks_free() frees it.
 */
struct kp_stack {
	char **frames;
	size_t nframes;
	int64_t allocs, bytes, live_objs, live_bytes;
	char *site;		/* the tag's site, as tag.site */
	struct kp_site tag;	/* the whole tag (tag.site == site) */
	int64_t tag_allocs, tag_bytes;	/* the tag's sampled totals */
};

struct kp_stacks {
	int depth, sample;	/* stack_depth and stack_sample at the read */
	struct kp_stack *v;
	size_t n, cap;
};

int kp_parse_stacks(FILE *in, const char *name, struct kp_stacks *s,
		    char *err, size_t errlen);
void kp_stacks_free(struct kp_stacks *s);

/*
 * One line of the hist view. Buckets (Documentation/kmemprof.rst):
 * size and req: 20 buckets, 0 is up to 8 bytes, b is (2^(b+2), 2^(b+3)]
 * bytes, 19 is over 2 MiB; page tags (and the "all kind:page" line) use
 * the order as the bucket. life: 36 buckets in units of 1024 ns, 0 is
 * under one unit, b is [2^(b-1), 2^b) units, 35 is 2^34 units and more.
 * kp_hist_label() names a bucket.
 */
#define KP_HIST_MAX 64
struct kp_hist {
	char *site;		/* "all" for a kind's totals */
	char *kind;
	struct kp_site tag;	/* the whole tag (tag.site == site) */
	size_t nsize, nreq, nlife;
	uint64_t size[KP_HIST_MAX], req[KP_HIST_MAX], life[KP_HIST_MAX];
	uint64_t xcpu, xcluster;
	double frag;		/* percent */
	int64_t waste;		/* bytes */
};

struct kp_hists {
	struct kp_hist *v;
	size_t n, cap;
	bool off;	/* "# ... off: echo 1 > ...": the knob is off */
};

int kp_parse_hist(FILE *in, const char *name, struct kp_hists *h,
		  char *err, size_t errlen);
void kp_hists_free(struct kp_hists *h);

enum kp_bucket { KP_B_SIZE, KP_B_ORDER, KP_B_LIFE };
/* "<=8", "16", ... "4K", ">2M"; orders as "4K"; lifetimes "<1us", "2ms". */
void kp_hist_label(enum kp_bucket b, size_t i, char *buf, size_t len);
/* The lower bound of bucket @i: bytes for sizes/orders, ns for lifetimes. */
uint64_t kp_hist_lower(enum kp_bucket b, size_t i);

/* ages: live objects per tag by age (buckets as life). */
struct kp_age {
	struct kp_site tag;
	int64_t bytes, objs;
	size_t nage;
	uint64_t age[KP_HIST_MAX];
};

struct kp_ages {
	struct kp_age *v;
	size_t n, cap;
	bool off;	/* "# ... off: echo 1 > ...": the knob is off */
};

int kp_parse_ages(FILE *in, const char *name, struct kp_ages *a,
		  char *err, size_t errlen);
void kp_ages_free(struct kp_ages *a);

/* leaks: suspects by bytes, each with its oldest objects. */
struct kp_leak_obj {
	char addr[32];
	int64_t size, age_ms;
	int cpu;
};

struct kp_leak {
	struct kp_site tag;
	int64_t bytes, objs;
	struct kp_leak_obj obj[8];
	size_t nobj;
};

struct kp_leaks {
	int64_t age_ms, objs, bytes, sites;	/* the summary line */
	struct kp_leak *v;
	size_t n, cap;
	bool off;	/* "# lifetimes off: ...": no ages are kept */
};

int kp_parse_leaks(FILE *in, const char *name, struct kp_leaks *l,
		   char *err, size_t errlen);
void kp_leaks_free(struct kp_leaks *l);

/* stats: "key value" lines, in order. */
struct kp_stat {
	char *key, *val;
};

struct kp_stats {
	struct kp_stat *v;
	size_t n, cap;
};

int kp_parse_stats(FILE *in, const char *name, struct kp_stats *s,
		   char *err, size_t errlen);
void kp_stats_free(struct kp_stats *s);
const char *kp_stat(const struct kp_stats *s, const char *key);

/* cpus: one line per CPU. */
struct kp_cpu {
	int cpu, cluster;
	int64_t allocs, frees, remote, xcluster;
};

struct kp_cpus {
	struct kp_cpu *v;
	size_t n, cap;
};

int kp_parse_cpus(FILE *in, const char *name, struct kp_cpus *c,
		  char *err, size_t errlen);
void kp_cpus_free(struct kp_cpus *c);

/*
 * owners: live bytes and objects per (site, owner), while the owners knob
 * is on. A line's tag holds its counts: bytes, objs and allocs (the
 * allocations charged to the line since owners went on); frees, total
 * and req are -1.
 */
enum kp_owner_type { KP_OWN_TASK, KP_OWN_CGROUP, KP_OWN_KERNEL };

struct kp_oline {
	struct kp_site tag;
	enum kp_owner_type type;
	/*
	 * As the view writes it (\xHH kept): the comm, the cgroup's path
	 * ("?" until the kernel made it) or "[name]" (a kernel thread,
	 * [irq], [softirq], [nmi]).
	 */
	char *name;
	int64_t id;		/* tgid or cgroup_id; -1 for [name] */
	/*
	 * The owner as the tables, the series and pprof name it:
	 * "comm[tgid]", the cgroup's path ("cgroup_id:N" before it has
	 * one), "[name]". Never "other", which the series keep for the
	 * rest. In the block @name owns.
	 */
	char *owner;
};

struct kp_owners {
	struct kp_oline *v;
	size_t n, cap;
	bool off;	/* "# owners off: ...": the knob is off */
	bool task, cgroup;	/* it has task owners, cgroup owners */
};

int kp_parse_owners(FILE *in, const char *name, struct kp_owners *o,
		    char *err, size_t errlen);
void kp_owners_free(struct kp_owners *o);
const char *kp_owner_type_name(enum kp_owner_type t);

/* One owner, its lines summed (owners.c). */
struct kp_osum {
	const char *owner;	/* a line's (borrowed): the owners' lifetime */
	enum kp_owner_type type;
	int64_t bytes, objs, allocs;
	size_t lines;
};

/*
 * The owners of @o's lines whose @keep is true (@keep NULL: all), summed
 * by kp_oline.owner, into a malloc()ed array, sorted by live bytes
 * (largest first), then by name. -1 on ENOMEM.
 */
int kp_owner_sums(const struct kp_owners *o, const bool *keep,
		  struct kp_osum **v, size_t *n);
/* Sort them by @keys (bytes, objs, avg, allocs), then by name. */
void kp_osums_sort(struct kp_osum *v, size_t n, const struct kp_keys *keys);

/* Free what a site owns and zero it (kp_free() does it for every site). */
void kp_site_release(struct kp_site *s);

/*
 * Snapshots (snapshot.c; their growth diff.c, records series.c). A
 * snapshot is the /proc/kmemprof (or /proc/allocinfo) text with one line
 * added after the version line:
 *
 *   # snapshot time:<unix seconds, 3 decimals> source:<path>
 *
 * so it parses as the file it was taken from. A record (watch --record)
 * is snapshots concatenated, one per refresh.
 */
int kp_snapshot_write(FILE *out, FILE *in, const char *name, double time,
		      char *err, size_t errlen);

/* Growth of one site between snapshots A and B (diff). */
struct kp_delta {
	const struct kp_site *a, *b;	/* either may be NULL */
	int64_t bytes, objs, allocs, frees;	/* b - a, absent = 0 */
	int64_t total;		/* cumulative bytes allocated, b - a */
};

struct kp_diff {
	struct kp_delta *v;
	size_t n;
	double dt;		/* seconds between the snapshots, or 0 */
};

/*
 * The keys sites are matched by: kp_site_key(), numbered when a key
 * repeats (a module loaded again at the same address gets new tags with
 * the same text), "KEY #2" for its second tag and so on. The n-th tag of
 * a key in A matches the n-th in B, in the order of the file, which is
 * the order the tags were made in.
 */
struct kp_tagkeys {
	struct kp_keymap seen;
	long *count;		/* tags so far of each key in seen */
	size_t cap;
};

int kp_tagkeys_init(struct kp_tagkeys *t, size_t max);
void kp_tagkeys_free(struct kp_tagkeys *t);
/* The next numbered key of @s into @buf (KP_KEY_LEN + 24); NULL on ENOMEM. */
const char *kp_tagkey(struct kp_tagkeys *t, const struct kp_site *s,
		      char *buf, size_t len);

/* Match sites by kp_tagkey(); sorted by bytes growth, largest first. */
int kp_diff(const struct kp_profile *a, const struct kp_profile *b,
	    struct kp_diff *d);
void kp_diff_free(struct kp_diff *d);
/*
 * A site's rates over @dt seconds, as watch shows them: live-bytes growth
 * (may be negative), allocations and bytes allocated a second; a counter
 * that went back (a reset) counts as no activity.
 */
struct kp_rate {
	double growth, allocs, bytes;
};

void kp_delta_rate(const struct kp_delta *d, double dt, struct kp_rate *r);
/* Rates for top: @b's rate = (allocs b - allocs a) / dt, per second. */
void kp_rates(struct kp_profile *b, const struct kp_profile *a, double dt);

/* A recorded time series of live bytes per site (watch --record). */
struct kp_series {
	size_t nt;
	double *t;		/* unix seconds */
	size_t nsite;
	char **site;		/* kp_site_key() of each site */
	int64_t *live;		/* nsite x nt, row-major; absent = 0 */
};

int kp_series_load(FILE *in, const char *name, struct kp_series *s,
		   char *err, size_t errlen);
void kp_series_free(struct kp_series *s);

/*
 * Paths (util.c). $KMEMPROF_ROOT, when set, is prefixed to every /proc
 * and /sys path (tests point it at a fake tree).
 */
const char *kp_path(const char *path, char *buf, size_t len);

/* Knobs (knobs.c): write /proc/sys/kmemprof/<knob>; message in @err. */
int kp_knob_write(const char *knob, const char *value, char *err,
		  size_t errlen);
int kp_knob_read(const char *knob, char *buf, size_t len);
/* The message for a failed write, from an errno (for the tests). */
void kp_knob_error(const char *path, const char *knob, const char *value,
		   int e, char *err, size_t errlen);

#endif /* KP_PROFILE_H */
