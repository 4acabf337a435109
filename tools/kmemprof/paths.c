// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: paths under $KMEMPROF_ROOT, the keys that match a tag
 * across files, and the line helpers every parser shares.
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

static const char *key(const char *site, const char *kind,
		       const char *module, const char *callers,
		       char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s kind:%s%s%s", site,
		 module ? " [" : "", module ? module : "", module ? "]" : "",
		 kind ? kind : "-", callers ? " caller:" : "",
		 callers ? callers : "");
	return buf;
}

const char *kp_site_key(const struct kp_site *s, char *buf, size_t len)
{
	return key(s->site, s->kind, s->module, s->callers, buf, len);
}

const char *kp_tag_key(const struct kp_tag *t, char *buf, size_t len)
{
	return key(t->site, t->kind, t->module, t->callers, buf, len);
}

void kp_tag_free(struct kp_tag *t)
{
	free(t->site);
	free(t->module);
	free(t->func);
	free(t->kind);
	free(t->callers);
	memset(t, 0, sizeof(*t));
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

static int add_caller(struct kp_tag *t, const char *val)
{
	size_t old = t->callers ? strlen(t->callers) : 0;
	char *c = realloc(t->callers, old + strlen(val) + 2);

	if (!c)
		return -1;
	if (old)
		c[old++] = ',';
	strcpy(c + old, val);
	t->callers = c;
	return 0;
}

const char *kp_tag_parse(char *line, char **save, struct kp_tag *t,
			 char **rest)
{
	char *tok = strtok_r(line, " \t", save);
	bool all;

	memset(t, 0, sizeof(*t));
	*rest = NULL;
	if (!tok)
		return "no tag";
	all = !strcmp(tok, "all");
	t->site = strdup(tok);
	if (!t->site)
		return "out of memory";
	while ((tok = strtok_r(NULL, " \t", save))) {
		if (tok[0] == '[' && !t->module && !t->func && !t->kind) {
			size_t n = strlen(tok);

			if (n < 3 || tok[n - 1] != ']')
				return "bad [module]";
			t->module = strndup(tok + 1, n - 2);
			if (!t->module)
				return "out of memory";
		} else if (!strncmp(tok, "func:", 5) && !t->func && !t->kind) {
			if (!tok[5])
				return "bad func:";
			t->func = strdup(tok + 5);
			if (!t->func)
				return "out of memory";
		} else if (!strncmp(tok, "kind:", 5) && !t->kind) {
			if (!tok[5])
				return "bad kind:";
			t->kind = strdup(tok + 5);
			if (!t->kind)
				return "out of memory";
		} else if (!strncmp(tok, "caller:", 7) && t->kind) {
			if (!tok[7] || add_caller(t, tok + 7))
				return "bad caller:";
		} else {
			*rest = tok;
			break;
		}
	}
	if (!all && !t->func)
		return "no func:";
	if (!t->kind)
		return "no kind:";
	return NULL;
}
