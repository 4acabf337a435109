/* SPDX-License-Identifier: GPL-2.0 */
/* kmemprof reader: helpers shared by the parsers (not an API). */
#ifndef KP_UTIL_H
#define KP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "name:line: why" into @err; returns -1. */
int kp_fail(char *err, size_t len, const char *name, size_t line,
	    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A whole decimal token. */
int kp_int(const char *s, int64_t *v, bool allow_negative);
int kp_uint(const char *s, uint64_t *v);

/* Lines of a file with their numbers; NUL bytes refused. */
struct kp_lines {
	FILE *in;
	const char *name;
	char *line;
	size_t cap, no;
};

/* 1: a line (newline stripped), 0: end, -1: error in @err. */
int kp_next(struct kp_lines *l, char *err, size_t errlen);

/* Grow an array of @size-byte items to hold one more; -1 on ENOMEM. */
int kp_grow(void **v, size_t n, size_t *cap, size_t size);

/*
 * Parse a view's tag from the tokens of @line (strtok_r state in @save,
 * which strtok_r(NULL, " \t", save) can go on with):
 * "<site> [<module>] func:<f> kind:<k> caller:<c>...". Stops at the first
 * other key:value token, returned in @rest (NULL at the end of the line).
 * Returns an error message or NULL. parse.c, with the profile's lines.
 */
struct kp_site;
const char *kp_tag_parse(char *line, char **save, struct kp_site *t,
			 char **rest);
/* One more caller: frame, after @s's callers ("a,b"); -1 on ENOMEM. */
int kp_add_caller(struct kp_site *s, const char *val);

#endif /* KP_UTIL_H */
