/* SPDX-License-Identifier: GPL-2.0 */
/* kmemprof reader: what the subcommands share (not an API). */
#ifndef KP_CLI_H
#define KP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	const char *resolve;	/* --resolve[=SPEC] */
	bool do_resolve;
	enum kp_key key;
	bool key_set;
	bool growth;		/* watch/diff -s growth */
	long n;
	bool n_set;		/* -n given */
	bool human;
	bool json, csv, openmetrics, prometheus;
	const char *source;	/* --source NAME: the metrics' source label */
	const char *prom_file;	/* watch --prometheus-file FILE */
	const char *listen;	/* serve --listen ADDR:PORT */
	const char *user;	/* serve --user NAME */
	struct kp_filter filter;
	double interval;	/* watch -d, top --sort rate -d */
	long count;		/* watch -c */
	char **args;		/* positional arguments */
	int nargs;
};

/* Read @path (or "-": stdin) whole; NULL with a message on stderr. */
char *kp_slurp(const char *path, size_t *size);
/* The file of a debugfs view, or @o->input. */
const char *kp_view_path(const struct kp_opts *o, const char *view,
			 char *buf, size_t len);
/* Open @path for a parser; message on stderr if it cannot be. */
FILE *kp_open(const char *path);
void kp_cell(int64_t v, bool human, char *buf, size_t len);
/* "site [module] func" as top prints it. */
void kp_print_tag(FILE *out, const struct kp_site *t);
/* Whether a tag matches a SITE argument: its function, or a site prefix. */
bool kp_tag_match(const struct kp_site *t, const char *want);

int kp_cmd_leaks(struct kp_opts *o);
int kp_cmd_stacks(struct kp_opts *o);
int kp_cmd_hist(struct kp_opts *o);
int kp_cmd_stats(struct kp_opts *o);
int kp_cmd_cpus(struct kp_opts *o);
int kp_cmd_ages(struct kp_opts *o);
int kp_cmd_serve(struct kp_opts *o);

/* The live profile's path: /proc/kmemprof, else /proc/allocinfo (said once). */
const char *kp_live_path(char *buf, size_t len);
/* The series outputs' guard: sites with series unless -n says otherwise. */
#define KP_SERIES_GUARD 1000

#endif /* KP_CLI_H */
