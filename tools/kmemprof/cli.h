/* SPDX-License-Identifier: GPL-2.0 */
/* kmemprof reader: what the subcommands share (not an API). */
#ifndef KP_CLI_H
#define KP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>

#include "profile.h"

#define DEBUGFS "/sys/kernel/debug/kmemprof"

/* The options of every subcommand, parsed once. */
struct kp_opts {
	const char *input;	/* -i FILE */
	const char *output;	/* -o FILE */
	const char *since;	/* --since FILE */
	const char *ages;	/* --ages FILE */
	const char *record;	/* --record FILE */
	const char *pprof;	/* --pprof FILE */
	const char *stacks;	/* --stacks FILE (for --pprof) */
	const char *owners;	/* --owners FILE: the owners view */
	long owner_series;	/* --owner-series N */
	bool owner_series_set;
	int by;			/* top --by: KP_BY_SITE, _OWNER, _CGROUP */
	const char *resolve;	/* --resolve[=SPEC] */
	bool do_resolve;
	bool no_resolve;	/* --no-resolve: no lookup by build id */
	struct kp_keys keys;	/* -s k1,k2: top, watch and diff */
	enum kp_key key;	/* the first of them */
	bool key_set;
	long n;
	bool n_set;		/* -n given */
	bool human;
	bool json, csv, openmetrics, prometheus;
	const char *source;	/* --source NAME: the metrics' source label */
	const char *prom_file;	/* watch --prometheus-file FILE */
	mode_t file_mode;	/* --file-mode: the files written; 0: 0600 */
	const char *listen;	/* serve --listen ADDR:PORT */
	const char *user;	/* serve --user NAME */
	const char *web_config;	/* serve --web.config.file FILE */
	const char *token_file;	/* serve --token-file FILE */
	bool make_token;	/* serve --make-token */
	struct kp_filter filter;
	double interval;	/* watch -d, top --sort rate -d */
	int64_t older_ms;	/* leaks --older: 0 if not given */
	long count;		/* watch -c */
	char **args;		/* positional arguments */
	int nargs;
};

/*
 * A command, perf style: its file (builtin-*.c, viewcmd.c, serve.c)
 * defines one of these, with the options it takes; main.c's commands[]
 * lists them and only dispatches.
 */
struct kp_option {
	const char *name;
	int has_arg;		/* as getopt_long's: 0, 1, 2 (optional) */
	int short_opt;		/* its letter, or 0 */
	const char *arg, *help;
	/* Store @arg (NULL without one) in @o; 2 after a message. */
	int (*set)(struct kp_opts *o, const char *arg);
};

struct kp_cmd {
	const char *name, *args, *what;
	int max_args;		/* positional arguments */
	const struct kp_option *const *opts;	/* NULL-ended; no --help */
	/* After the options, before the arguments are counted; or NULL. */
	int (*check)(struct kp_opts *o);
	int (*run)(struct kp_opts *o);
};

extern const struct kp_cmd kp_cmd_top, kp_cmd_watch, kp_cmd_snapshot,
	kp_cmd_diff, kp_cmd_leaks, kp_cmd_stacks, kp_cmd_hist, kp_cmd_stats,
	kp_cmd_ages, kp_cmd_cpus, kp_cmd_enable, kp_cmd_disable, kp_cmd_reset,
	kp_cmd_set, kp_cmd_plot, kp_cmd_serve;
extern const struct kp_cmd kp_cmd_meminfo;	/* builtin-meminfo.c */
extern const struct kp_cmd kp_cmd_owners;	/* builtin-owners.c */

/* Options more than one command takes (options.c). */
extern const struct kp_option kp_opt_input, kp_opt_output,
	kp_opt_sort, kp_opt_delay, kp_opt_lines, kp_opt_human,
	kp_opt_kind, kp_opt_module, kp_opt_func, kp_opt_min_bytes,
	kp_opt_json, kp_opt_csv, kp_opt_prometheus, kp_opt_openmetrics,
	kp_opt_source, kp_opt_stacks, kp_opt_resolve, kp_opt_no_resolve,
	kp_opt_view_input,
	kp_opt_view_lines, kp_opt_min_growth, kp_opt_file_mode,
	kp_opt_owners, kp_opt_owner_series;

/*
 * The command being run (kp_parse_opts() sets it), and its one error
 * style for what the user gave: "kmemprof CMD: ..." on stderr.
 */
extern const char *kp_cmd_name;
void kp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Whether @p can be sorted by every key of @o (allocinfo counts no
 * allocations and no requested sizes, and has no ages); 2 after a
 * message if not.
 */
int kp_keys_check(const struct kp_opts *o, const struct kp_profile *p,
		  const char *name);

/*
 * Long work said while it runs, when stderr is a terminal: "kmemprof CMD:
 * WHAT..." on stderr, wiped ("\r", erase to the end of the line) by
 * kp_busy_end(). Nothing when stderr is not a terminal.
 */
void kp_busy(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kp_busy_end(void);
/* kp_resolve_auto(), said while it looks (the build-id search). */
void kp_resolve_auto_busy(struct kp_profile *p);

/* Parse @c's options into @o: 0, 2 after a message, -1 after --help. */
int kp_parse_opts(const struct kp_cmd *c, int argc, char **argv,
		  struct kp_opts *o);
void kp_cmd_usage(const struct kp_cmd *c, FILE *out);
/* "  LEFT  text", wrapped at 79 columns under column @indent. */
void kp_wrap(FILE *out, int indent, const char *left, const char *text);
/* An option's number (>= 0) or count; -1 after a message. */
int kp_arg_number(const char *opt, const char *s, double *v);
int kp_arg_count(const char *opt, const char *s, long *v);

/* What the commands share (cli.c). */

/* Read @path (or "-": stdin) whole; NULL with a message on stderr. */
char *kp_slurp(const char *path, size_t *size);
/* The file of a debugfs view, or @o->input. */
const char *kp_view_path(const struct kp_opts *o, const char *view,
			 char *buf, size_t len);
/* Open @path for a parser; message on stderr if it cannot be. */
FILE *kp_open(const char *path);

/*
 * The tables' one printer (cli.c). A row is built in a buffer and written
 * a buffer at a time: printf would parse its format again on every line.
 * printf() on a buffered stdout runs 3.6 times the instructions for 100k
 * lines of top (the numbers are in sort.c, above kp_sort()).
 */
struct kp_obuf {
	FILE *out;
	char *p;		/* the end of what is in buf */
	char *buf, *end;
};

/* A buffer of @arr, an array, for @out. */
#define KP_OBUF(out, arr) \
	((struct kp_obuf){ (out), (arr), (arr), (arr) + sizeof(arr) })

void kp_ob_flush(struct kp_obuf *o);

/* Room for @len more bytes at o->p, if the buffer has it. */
static inline bool kp_ob_room(struct kp_obuf *o, size_t len)
{
	if ((size_t)(o->end - o->p) < len)
		kp_ob_flush(o);
	return len <= (size_t)(o->end - o->buf);
}

static inline void kp_ob_put(struct kp_obuf *o, const char *s, size_t len)
{
	if (!kp_ob_room(o, len)) {
		fwrite(s, 1, len, o->out);
		return;
	}
	memcpy(o->p, s, len);
	o->p += len;
}

static inline void kp_ob_str(struct kp_obuf *o, const char *s)
{
	kp_ob_put(o, s, strlen(s));
}

/*
 * A cell as "%*s" prints it, at @q: @v in decimal (as "%" PRId64), "-"
 * if @dash and @v is negative, or as kp_iec() if @human. At most
 * max(@width, 31) bytes; returns their end.
 */
char *kp_put_cell(char *q, int64_t v, bool dash, bool human, int width);
/* The same unpadded, as a string in @buf: "-" for a negative @v. */
void kp_cell(int64_t v, bool human, char *buf, size_t len);
/*
 * "site [module] func <- callers" (the function unless the site starts
 * with it), and " (file:line) inlined:func" where resolved: a tag as
 * every table prints it.
 */
void kp_ob_site_name(struct kp_obuf *o, const char *site, const char *module,
		     const char *func, const char *callers);
void kp_ob_srcline(struct kp_obuf *o, const char *srcline,
		   const char *srcfunc);
void kp_ob_tag(struct kp_obuf *o, const struct kp_site *t);
/* The same straight to @out. */
/* "site [module] func <- callers" as the tables print it. */
void kp_print_site_name(FILE *out, const char *site, const char *module,
			const char *func, const char *callers);
/*
 * " (file:line)", and " inlined:func" when the line is in a function
 * inlined at the site, as every view prints a resolved site; nothing
 * without @srcline.
 */
void kp_print_srcline(FILE *out, const char *srcline, const char *srcfunc);
/* "site [module] func (file:line) inlined:func" as top prints it. */
void kp_print_tag(FILE *out, const struct kp_site *t);
/* Whether a tag matches a SITE argument: its function, or a site prefix. */
bool kp_tag_match(const struct kp_site *t, const char *want);
double kp_now(clockid_t clk);
void kp_sleep(double secs);
/* Read and parse a profile (its text in @text if asked); says why not. */
int kp_load(const char *path, struct kp_profile *p, char **text,
	    size_t *size);
/* The filter options on @p; -1 after a message. */
int kp_filter(struct kp_profile *p, const struct kp_opts *o);
/* --openmetrics or --prometheus; or any machine output. */
bool kp_series(const struct kp_opts *o);
bool kp_machine(const struct kp_opts *o);
/* How many of @n sites a machine output carries (said when cut). */
size_t kp_machine_sites(const struct kp_opts *o, size_t n);
/* top --by */
enum { KP_BY_SITE, KP_BY_OWNER, KP_BY_CGROUP };
/* The owner series' default count (--owner-series). */
#define KP_OWNER_SERIES 20

/* The owners view for an output: its lines, and their sums per owner. */
struct kp_owner_data {
	struct kp_owners ow;
	struct kp_osum *sums;
	size_t nsums;
	bool on;		/* read, and owners are on */
};

/*
 * --owners FILE (-1 after a message if it does not read), else on a
 * live read (@live) the debugfs view, if it reads (nothing said if not);
 * @d->on if it did and owners are on. 0, or -1.
 */
int kp_owner_data_load(const struct kp_opts *o, bool live,
		       struct kp_owner_data *d);
/*
 * @d->ow's lines that pass --kind, --module and --func, summed per owner
 * into @d->sums; -1 after a message.
 */
int kp_owner_data_sum(const struct kp_opts *o, struct kp_owner_data *d);
void kp_owner_data_free(struct kp_owner_data *d);
/* --owner-series, or its default. */
size_t kp_owner_series(const struct kp_opts *o);

/*
 * The machine output @o asks for, of @max sites; 0, or 1 or 2 if not.
 * The series leave the machine: @p is redacted first (redact.c). The
 * series carry @od's owners when it has them (@od may be NULL).
 */
int kp_emit(const struct kp_opts *o, struct kp_profile *p, size_t max,
	    const struct kp_owner_data *od);
/* --resolve on @p, if asked; -1 (or -2: not in this build) on error. */
int kp_resolve_opt(const struct kp_opts *o, struct kp_profile *p);
/* The site of a diff's entry: B's, or A's when it is gone. */
static inline const struct kp_site *kp_delta_site(const struct kp_delta *d)
{
	return d->b ? d->b : d->a;
}

/*
 * A change's value for @key, as watch and diff sort by it (largest first):
 * growth, objs, allocs and rate are B - A; bytes, avg and frag are B's (a
 * site gone from B ranks last). @first: no change yet (watch's first
 * frame), where a change's key is B's live bytes.
 */
int64_t kp_delta_key(const struct kp_delta *d, enum kp_key key, bool first);
/* qsort() @d's entries by @keys, then by site. */
void kp_sort_deltas(struct kp_delta *v, size_t n, const struct kp_keys *keys,
		    bool first);

/* "this build has no machine outputs..."; returns 2. */
int kp_no_outputs(void);

/* The live profile's path: /proc/kmemprof, else /proc/allocinfo (said once). */
const char *kp_live_path(char *buf, size_t len);
/* The mode of the files @o writes (--file-mode, else 0600). */
static inline mode_t kp_mode(const struct kp_opts *o)
{
	return o->file_mode ? o->file_mode : 0600;
}
/* The series outputs' guard: sites with series unless -n says otherwise. */
#define KP_SERIES_GUARD 1000

#endif /* KP_CLI_H */
