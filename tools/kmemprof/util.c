// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: util.h's helpers, what the parsers and commands share:
 * paths under $KMEMPROF_ROOT, the key that matches a tag across files,
 * the "name:line: why" errors, decimal tokens, numbered lines, growing
 * arrays.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

const char *kp_path(const char *path, char *buf, size_t len)
{
	const char *root = getenv("KMEMPROF_ROOT");

	snprintf(buf, len, "%s%s", root ? root : "", path);
	return buf;
}

const char *kp_site_key(const struct kp_site *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s kind:%s%s%s", s->site,
		 s->module ? " [" : "", s->module ? s->module : "",
		 s->module ? "]" : "", s->kind ? s->kind : "-",
		 s->callers ? " caller:" : "", s->callers ? s->callers : "");
	return buf;
}

int kp_fail(char *err, size_t len, const char *name, size_t line,
	    const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, len, "%s:%zu: ", name, line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < len)
		vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
	return -1;
}

int kp_int(const char *s, int64_t *v, bool allow_negative)
{
	char *end;

	if (!*s || (!allow_negative && *s == '-') || *s == '+' ||
	    *s == ' ')
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

int kp_uint(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

int kp_next(struct kp_lines *l, char *err, size_t errlen)
{
	ssize_t len = getline(&l->line, &l->cap, l->in);

	if (len < 0)
		return 0;
	l->no++;
	if ((size_t)len != strlen(l->line))
		return kp_fail(err, errlen, l->name, l->no, "NUL byte in line");
	if (len && l->line[len - 1] == '\n')
		l->line[len - 1] = '\0';
	return 1;
}

int kp_grow(void **v, size_t n, size_t *cap, size_t size)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 64;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -1;
	memset((char *)nv + *cap * size, 0, (ncap - *cap) * size);
	*v = nv;
	*cap = ncap;
	return 0;
}
