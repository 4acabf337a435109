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
};

struct kp_profile {
	enum kp_source source;
	char version[16];
	struct kp_site *sites;
	size_t n, cap;
};

/* Parse @in (named @name in errors). On error, @err says "name:line: why". */
int kp_parse(FILE *in, const char *name, struct kp_profile *p,
	     char *err, size_t errlen);
void kp_free(struct kp_profile *p);

/* Sorting and filters: sort.c */
enum kp_key { KP_BYTES, KP_OBJS, KP_AVG, KP_ALLOCS, KP_FRAG };

struct kp_filter {
	const char *kind;
	const char *module;
	const char *func_re;
	int64_t min_bytes;
};

int kp_key_parse(const char *s, enum kp_key *key);
int kp_filter_apply(struct kp_profile *p, const struct kp_filter *f,
		    char *err, size_t errlen);
void kp_sort(struct kp_profile *p, enum kp_key key);

/* Sizes as numfmt --to=iec prints them: human.c */
void kp_iec(int64_t v, char *buf, size_t len);

#endif /* KP_PROFILE_H */
