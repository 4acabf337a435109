// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the one parser, for /proc/kmemprof (1.0) and the
 * kernel's /proc/allocinfo (1.0 and 2.0). The layouts are in
 * Documentation/kmemprof.rst and the kernel's Documentation/filesystems/
 * proc.rst: "%12lli %8llu <site> [module] func:<name>" and key:value pairs.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <kmemprof/format.h>

#include "profile.h"
#include "util.h"

int kp_add_caller(struct kp_site *s, const char *val)
{
	size_t old = s->callers ? strlen(s->callers) : 0;
	char *c = realloc(s->callers, old + strlen(val) + 2);

	if (!c)
		return -1;
	if (old)
		c[old++] = ',';
	strcpy(c + old, val);
	s->callers = c;
	return 0;
}

/* The tokenizer's classes of bytes: where a token ends, and ':'. */
#define END	1
#define COLON	2
static const unsigned char cls[256] = {
	[0] = END, [' '] = END, ['\t'] = END, [':'] = COLON,
};

/* The end of the token at @p: the first blank, tab or NUL. */
static char *token_end(char *p)
{
	while (!(cls[(unsigned char)*p] & END))
		p++;
	return p;
}

/*
 * The decimal token at *@pp, as kp_int() reads it. Plain digits (and a
 * '-' where allowed), up to 18 of them, cannot overflow: they are read
 * here; anything else goes to kp_int(), which decides. The token is
 * NUL-terminated and *@pp moved past it.
 */
static inline int number(char **pp, int64_t *v, bool neg)
{
	char *s = *pp, *p = s + (neg && *s == '-'), *digits = p;
	uint64_t x = 0, d;

	while ((d = (uint64_t)(unsigned char)*p - '0') <= 9) {
		x = x * 10 + d;
		p++;
	}
	if (!(cls[(unsigned char)*p] & END) || p == digits ||
	    p - digits > 18) {
		p = token_end(p);
		if (*p)
			*p++ = '\0';
		*pp = p;
		return kp_int(s, v, neg);
	}
	*v = digits > s ? -(int64_t)x : (int64_t)x;
	if (*p)
		*p++ = '\0';
	*pp = p;
	return 0;
}

/* Whether the @len bytes at @key are @name. */
#define KEY(name) (len == sizeof(name) - 1 && !memcmp(key, name, len))

/* Where the value of a numeric key goes, or NULL for the other keys. */
static int64_t *count_key(struct kp_site *s, const char *key, size_t len)
{
	switch (key[0]) {
	case 'a':
		return KEY("allocs") ? &s->allocs : NULL;
	case 'b':
		return KEY("bytes") ? &s->total : NULL;
	case 'f':
		return KEY("frees") ? &s->frees : NULL;
	case 'r':
		return KEY("req") ? &s->req : NULL;
	}
	return NULL;
}

/*
 * The other keys: @key is @len bytes, NUL-terminated, and @val is
 * NUL-terminated; both point into the line.
 */
static int set_key(struct kp_site *s, const char *key, size_t len, char *val)
{
	switch (key[0]) {
	case 'a':
		if (KEY("accurate")) {
			if (strcmp(val, "no") && strcmp(val, "yes"))
				return -1;
			s->inaccurate = !strcmp(val, "no");
		}
		break;
	case 'c':
		if (KEY("caller"))
			return kp_add_caller(s, val);
		break;
	case 'k':
		if (KEY("kind")) {
			if (s->kind || !*val)
				return -1;
			s->kind = val;
		}
		break;
	case 'm':
		if (KEY("module"))
			s->unloaded = !strcmp(val, "unloaded");
		break;
	case 's':
		if (KEY("sampled"))
			s->sampled = true;
		break;
	}
	return 0;	/* or a key of a later version: ignored */
}

#undef KEY

static void release(struct kp_site *s)
{
	if (!s->shared) {
		free(s->site);
		free(s->module);
		free(s->func);
		free(s->kind);
	}
	free(s->callers);
	free(s->srcline);
	free(s->srcfunc);
}

void kp_site_release(struct kp_site *s)
{
	release(s);
	memset(s, 0, sizeof(*s));
}

/*
 * The next token of @line (NULL: go on from *@save), as strtok_r(line,
 * " \t", save) would find it, by the same classes as the profile's lines.
 */
static char *next_token(char *line, char **save)
{
	char *p = line ? line : *save, *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p) {
		*save = p;
		return NULL;
	}
	end = token_end(p);
	*save = *end ? end + 1 : end;
	*end = '\0';
	return p;
}

/* A view's tag: the grammar of a profile line's tag, see util.h. */
const char *kp_tag_parse(char *line, char **save, struct kp_site *t,
			 char **rest)
{
	char *tok = next_token(line, save);
	bool all;

	memset(t, 0, sizeof(*t));
	*rest = NULL;
	if (!tok)
		return "no tag";
	all = !strcmp(tok, "all");
	t->site = strdup(tok);
	if (!t->site)
		return "out of memory";
	while ((tok = next_token(NULL, save))) {
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
			if (!tok[7] || kp_add_caller(t, tok + 7))
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

/*
 * The sites' text: of each line, the span that holds its strings, copied
 * into blocks of 1 MiB (or one span's size), freed with the profile.
 * Cheaper than an allocation a string.
 */
struct arena {
	struct arena *next;
	size_t used, size;
	char data[];
};

static char *arena_copy(void **head, const char *text, size_t len)
{
	struct arena *a = *head;
	size_t size;

	if (!a || a->size - a->used < len + 1) {
		size = len + 1 > (1 << 20) ? len + 1 : (1 << 20);
		a = malloc(sizeof(*a) + size);
		if (!a)
			return NULL;
		a->next = *head;
		a->used = 0;
		a->size = size;
		*head = a;
	}
	memcpy(a->data + a->used, text, len + 1);
	a->used += len + 1;
	return a->data + a->used - len - 1;
}

static void arena_free(void *head)
{
	struct arena *a = head, *next;

	for (; a; a = next) {
		next = a->next;
		free(a);
	}
}

/* A string of the site at @p, NUL-terminated at @end: the span to keep. */
static char *keep(char *p, const char *end, char **lo, const char **hi)
{
	if (!*lo || p < *lo)
		*lo = p;
	if (end + 1 > *hi)
		*hi = end + 1;
	return p;
}

/*
 * One tag line into @s; returns an error message or NULL. Tokens are
 * split at blanks and tabs, as strtok_r(line, " \t") would, in @line
 * itself. The site's strings are then copied, the one span of the line
 * they are in, into the profile's arena.
 */
/* "bad value for KEY: 'VALUE'" in @msg, the value up to a blank. */
static const char *bad_value(char *msg, size_t len, const char *key,
			     size_t klen, const char *val)
{
	snprintf(msg, len, "bad value for %.*s: '%.*s'", (int)klen, key,
		 (int)strcspn(val, " \t"), val);
	return msg;
}

static const char *parse_line(char *line, struct kp_site *s, void **arena,
			      char *msg, size_t msglen)
{
	char *p = line, *tok, *end, *colon, *lo = NULL, *copy;
	const char *hi = NULL;
	unsigned char c;
	int64_t *count;
	int field = 0;

	memset(s, 0, sizeof(*s));
	s->allocs = s->frees = s->total = s->req = -1;
	s->shared = true;
	for (;; field++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (field == 0) {
			if (number(&p, &s->bytes, true))
				return "bad live bytes";
			continue;
		}
		if (field == 1) {
			if (number(&p, &s->objs, false))
				return "bad object count";
			continue;
		}
		tok = p;
		while (!(c = cls[(unsigned char)*p]))
			p++;
		colon = c == COLON ? p : NULL;
		count = colon && field > 2 && colon != tok && s->func ?
			count_key(s, tok, (size_t)(colon - tok)) : NULL;
		if (count) {
			/* key:<number>, read where it is */
			p = colon + 1;
			if (number(&p, count, false))
				return bad_value(msg, msglen, tok,
						 (size_t)(colon - tok), colon + 1);
			continue;
		}
		end = token_end(p);
		p = end;
		if (*p)
			*p++ = '\0';
		if (field == 2) {
			s->site = keep(tok, end, &lo, &hi);
		} else if (tok[0] == '[' && !s->module && !s->func) {
			if (end - tok < 3 || end[-1] != ']')
				return "bad [module]";
			end[-1] = '\0';
			s->module = keep(tok + 1, end, &lo, &hi);
		} else if (colon == tok + 4 && !memcmp(tok, "func", 4) &&
			   !s->func) {
			if (colon + 1 == end)
				return "bad func:";
			s->func = keep(colon + 1, end, &lo, &hi);
		} else {
			if (!colon || colon == tok || !s->func)
				return "expected key:value";
			*colon = '\0';
			if (set_key(s, tok, (size_t)(colon - tok), colon + 1))
				return bad_value(msg, msglen, tok,
						 (size_t)(colon - tok), colon + 1);
			if (s->kind == colon + 1)
				keep(s->kind, end, &lo, &hi);
		}
	}
	if (field < 3)
		return "too few fields";
	if (!s->func)
		return "no func:";
	copy = arena_copy(arena, lo, (size_t)(hi - lo) - 1);
	if (!copy)
		return "out of memory";
	s->site = copy + (s->site - lo);
	s->func = copy + (s->func - lo);
	if (s->module)
		s->module = copy + (s->module - lo);
	if (s->kind)
		s->kind = copy + (s->kind - lo);
	return NULL;
}

int kp_parse(FILE *in, const char *name, struct kp_profile *p,
	     char *err, size_t errlen)
{
	char *line = NULL, *first;
	size_t cap = 0, lineno = 0;
	const char *why;
	char msg[160];
	struct kp_site site;
	ssize_t len;
	int ret = 0;
	double t;

	memset(p, 0, sizeof(*p));
	while ((len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		if ((size_t)len != strlen(line)) {
			ret = kp_fail(err, errlen, name, lineno, "NUL byte in line");
			break;
		}
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (lineno == 1) {
			if (sscanf(line, KMP_PROC_MAGIC "%15s", p->version) == 1) {
				p->source = KP_KMEMPROF;
			} else if (sscanf(line, "allocinfo - version: %15s",
					  p->version) == 1) {
				p->source = KP_ALLOCINFO;
			} else {
				ret = kp_fail(err, errlen, name, lineno,
					   "not a kmemprof or allocinfo header");
				break;
			}
			if (strcmp(p->version, "1.0") && strcmp(p->version, "2.0")) {
				ret = kp_fail(err, errlen, name, lineno,
					   "unknown version %s", p->version);
				break;
			}
			continue;
		}
		if (line[0] == '#') {
			/* A snapshot's time: see snapshot.c. */
			if (sscanf(line, "# snapshot time:%lf", &t) == 1 &&
			    t > 0 && t < 1e11)
				p->time = t;
			continue;
		}
		for (first = line; *first == ' ' || *first == '\t'; first++)
			;
		if (!*first)
			continue;
		why = parse_line(first, &site, &p->arena, msg, sizeof(msg));
		if (why) {
			kp_site_release(&site);
			ret = kp_fail(err, errlen, name, lineno, "%s", why);
			break;
		}
		if (p->n == p->cap) {
			size_t ncap = p->cap ? 2 * p->cap : 256;
			struct kp_site *ns = realloc(p->sites, ncap * sizeof(*ns));

			if (!ns) {
				kp_site_release(&site);
				ret = kp_fail(err, errlen, name, lineno, "out of memory");
				break;
			}
			p->sites = ns;
			p->cap = ncap;
		}
		p->sites[p->n++] = site;
	}
	if (!ret && lineno == 0)
		ret = kp_fail(err, errlen, name, 1, "empty input");
	free(line);
	if (ret)
		kp_free(p);
	return ret;
}

void kp_free(struct kp_profile *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		release(&p->sites[i]);
	free(p->sites);
	arena_free(p->arena);
	memset(p, 0, sizeof(*p));
}
