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

#include "profile.h"
#include "util.h"

static int add_caller(struct kp_site *s, const char *val)
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

/* @val points into the site's own buffer and stays there. */
static int set_key(struct kp_site *s, const char *key, char *val)
{
	int64_t *dst = NULL;

	switch (key[0]) {
	case 'a':
		if (!strcmp(key, "allocs")) {
			dst = &s->allocs;
		} else if (!strcmp(key, "accurate")) {
			if (strcmp(val, "no") && strcmp(val, "yes"))
				return -1;
			s->inaccurate = !strcmp(val, "no");
			return 0;
		}
		break;
	case 'b':
		if (!strcmp(key, "bytes"))
			dst = &s->total;
		break;
	case 'c':
		if (!strcmp(key, "caller"))
			return add_caller(s, val);
		break;
	case 'f':
		if (!strcmp(key, "frees"))
			dst = &s->frees;
		break;
	case 'k':
		if (!strcmp(key, "kind")) {
			if (s->kind || !*val)
				return -1;
			s->kind = val;
			return 0;
		}
		break;
	case 'm':
		if (!strcmp(key, "module")) {
			s->unloaded = !strcmp(val, "unloaded");
			return 0;
		}
		break;
	case 'r':
		if (!strcmp(key, "req"))
			dst = &s->req;
		break;
	case 's':
		if (!strcmp(key, "sampled")) {
			s->sampled = true;
			return 0;
		}
		break;
	}
	if (dst)
		return kp_int(val, dst, false);
	return 0;	/* a key of a later version: ignored */
}

void kp_site_release(struct kp_site *s)
{
	if (!s->shared) {
		free(s->site);
		free(s->module);
		free(s->func);
		free(s->kind);
	}
	free(s->callers);
	free(s->srcline);
}

/*
 * The sites' text: lines copied into blocks of 1 MiB (or one line's
 * size), freed with the profile. Cheaper than an allocation a string.
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

/*
 * One tag line into @s; returns an error message or NULL. The site's
 * strings point into a copy of the line in the profile's arena.
 */
static const char *parse_line(const char *text, size_t len,
			      struct kp_site *s, void **arena)
{
	char *save = NULL, *tok, *colon, *line;
	int field = 0;

	memset(s, 0, sizeof(*s));
	s->allocs = s->frees = s->total = s->req = -1;
	s->shared = true;
	line = arena_copy(arena, text, len);
	if (!line)
		return "out of memory";
	for (tok = strtok_r(line, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save), field++) {
		if (field == 0) {
			if (kp_int(tok, &s->bytes, true))
				return "bad live bytes";
		} else if (field == 1) {
			if (kp_int(tok, &s->objs, false))
				return "bad object count";
		} else if (field == 2) {
			s->site = tok;
		} else if (tok[0] == '[' && !s->module && !s->func) {
			size_t n = strlen(tok);

			if (n < 3 || tok[n - 1] != ']')
				return "bad [module]";
			tok[n - 1] = '\0';
			s->module = tok + 1;
		} else if (!strncmp(tok, "func:", 5) && !s->func) {
			if (!tok[5])
				return "bad func:";
			s->func = tok + 5;
		} else {
			colon = strchr(tok, ':');
			if (!colon || colon == tok || !s->func)
				return "expected key:value";
			*colon = '\0';
			if (set_key(s, tok, colon + 1))
				return "bad value";
		}
	}
	if (field < 3)
		return "too few fields";
	if (!s->func)
		return "no func:";
	return NULL;
}

int kp_parse(FILE *in, const char *name, struct kp_profile *p,
	     char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	const char *why;
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
			if (sscanf(line, "kmemprof - version: %15s", p->version) == 1) {
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
		if (!line[strspn(line, " \t")])
			continue;
		why = parse_line(line, (size_t)len, &site, &p->arena);
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
		kp_site_release(&p->sites[i]);
	free(p->sites);
	arena_free(p->arena);
	memset(p, 0, sizeof(*p));
}
