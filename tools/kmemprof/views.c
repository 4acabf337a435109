// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: parsers of the debugfs views (stats, hist, ages, leaks,
 * cpus, stacks), as Documentation/kmemprof.rst lays them out. Each one
 * checks the view's version line and refuses anything else with
 * "name:line: why".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

/* The first line: "kmemprof <view> - version: 1.0". */
static int header(struct kp_lines *l, const char *view, char *err,
		  size_t errlen)
{
	char want[64], ver[16];
	int rc = kp_next(l, err, errlen);

	if (rc < 0)
		return -1;
	if (!rc)
		return kp_fail(err, errlen, l->name, 1, "empty input");
	snprintf(want, sizeof(want), "kmemprof %s - version: %%15s", view);
	if (sscanf(l->line, want, ver) != 1)
		return kp_fail(err, errlen, l->name, 1,
			       "not a kmemprof %s view", view);
	if (strcmp(ver, "1.0"))
		return kp_fail(err, errlen, l->name, 1, "unknown version %s",
			       ver);
	return 0;
}

static bool blank(const char *s)
{
	return !s[strspn(s, " \t")];
}

/* "a,b,c" into @v; returns the count, or -1. */
static int counts(const char *s, uint64_t *v, size_t max)
{
	char buf[32];
	size_t n = 0, len;

	for (;;) {
		len = strcspn(s, ",");
		if (!len || len >= sizeof(buf) || n == max)
			return -1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (kp_uint(buf, &v[n++]))
			return -1;
		if (!s[len])
			return (int)n;
		s += len + 1;
	}
}

static int number(const char *s, double *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	*v = strtod(s, &end);
	return *end || !isfinite(*v) ? -1 : 0;
}

/* hist */

static const char *hist_key(struct kp_hist *h, char *tok, unsigned *seen)
{
	char *colon = strchr(tok, ':');
	const char *val;
	int n;

	if (!colon || colon == tok)
		return "expected key:value";
	*colon = '\0';
	val = colon + 1;
	if (!strcmp(tok, "size") || !strcmp(tok, "req") ||
	    !strcmp(tok, "life")) {
		uint64_t *v = tok[0] == 's' ? h->size :
			      tok[0] == 'r' ? h->req : h->life;
		size_t *nv = tok[0] == 's' ? &h->nsize :
			     tok[0] == 'r' ? &h->nreq : &h->nlife;

		n = counts(val, v, KP_HIST_MAX);
		if (n < 0)
			return "bad counts";
		*nv = (size_t)n;
		*seen |= tok[0] == 's' ? 1 : tok[0] == 'r' ? 2 : 4;
		return NULL;
	}
	if (!strcmp(tok, "xcpu"))
		return kp_uint(val, &h->xcpu) ? "bad value" : NULL;
	if (!strcmp(tok, "xcluster"))
		return kp_uint(val, &h->xcluster) ? "bad value" : NULL;
	if (!strcmp(tok, "waste"))
		return kp_int(val, &h->waste, false) ? "bad value" : NULL;
	if (!strcmp(tok, "frag"))
		return number(val, &h->frag) ? "bad value" : NULL;
	return NULL;	/* a key of a later version */
}

static const char *hist_line(char *line, struct kp_hist *h)
{
	char *save = NULL, *tok;
	unsigned seen = 0;
	const char *why;

	why = kp_tag_parse(line, &save, &h->tag, &tok);
	h->site = h->tag.site;
	h->kind = h->tag.kind;
	if (why)
		return why;
	for (; tok; tok = strtok_r(NULL, " \t", &save)) {
		why = hist_key(h, tok, &seen);
		if (why)
			return why;
	}
	return seen == 7 ? NULL : "no size:, req: or life:";
}

void kp_hists_free(struct kp_hists *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		kp_tag_free(&h->v[i].tag);
	free(h->v);
	memset(h, 0, sizeof(*h));
}

int kp_parse_hist(FILE *in, const char *name, struct kp_hists *h,
		  char *err, size_t errlen)
{
	struct kp_lines l = { .in = in, .name = name };
	const char *why;
	int rc, got = 0;

	memset(h, 0, sizeof(*h));
	rc = header(&l, "hist", err, errlen);
	while (!rc && (got = kp_next(&l, err, errlen)) > 0) {
		struct kp_hist *x;

		if (l.line[0] == '#' || blank(l.line))
			continue;
		if (kp_grow((void **)&h->v, h->n, &h->cap, sizeof(*h->v))) {
			rc = kp_fail(err, errlen, name, l.no, "out of memory");
			break;
		}
		x = &h->v[h->n++];
		memset(x, 0, sizeof(*x));
		why = hist_line(l.line, x);
		if (why)
			rc = kp_fail(err, errlen, name, l.no, "%s", why);
	}
	if (got < 0)
		rc = -1;
	free(l.line);
	if (rc)
		kp_hists_free(h);
	return rc ? -1 : 0;
}

/* "<=8" ... ">2M" for sizes; "4K" ... for orders; "<1us" ... for life. */
void kp_hist_label(enum kp_bucket b, size_t i, char *buf, size_t len)
{
	static const char *const units[] = { "us", "ms", "s" };
	uint64_t v = kp_hist_lower(b, i);
	char num[32];

	if (b == KP_B_LIFE) {
		double us = (double)v / 1000;
		int u = 0;

		if (i == 0) {
			snprintf(buf, len, "<1us");
			return;
		}
		while (u < 2 && us >= 1000) {
			us /= 1000;
			u++;
		}
		if (u == 2 && us >= 3600)
			snprintf(buf, len, "%s%.1fh", i >= 35 ? ">=" : "",
				 us / 3600);
		else
			snprintf(buf, len, "%s%.*f%s", i >= 35 ? ">=" : "",
				 us < 10 ? 1 : 0, us, units[u]);
		return;
	}
	if (b == KP_B_SIZE && i == 0) {
		snprintf(buf, len, "<=8");
		return;
	}
	if (b == KP_B_SIZE && i >= 19) {
		snprintf(buf, len, ">2M");
		return;
	}
	/* Sizes: the bucket's upper bound, (2^(i+2), 2^(i+3)]. */
	kp_iec(b == KP_B_SIZE ? (int64_t)1 << (i + 3) : (int64_t)v, num,
	       sizeof(num));
	snprintf(buf, len, "%s", num);
}

uint64_t kp_hist_lower(enum kp_bucket b, size_t i)
{
	if (i >= 60)
		i = 60;
	switch (b) {
	case KP_B_SIZE:
		return i ? ((uint64_t)1 << (i + 2)) + 1 : 0;
	case KP_B_ORDER:
		return (uint64_t)4096 << i;
	case KP_B_LIFE:
	default:
		return i ? (uint64_t)1024 << (i - 1) : 0;
	}
}

/* ages */

void kp_ages_free(struct kp_ages *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		kp_tag_free(&a->v[i].tag);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* "<bytes> <objs> <tag>"; the rest of the tokens in @rest. */
static const char *counted_tag(char *line, char **save, int64_t *bytes,
			       int64_t *objs, struct kp_tag *t, char **rest)
{
	char *tok = strtok_r(line, " \t", save);

	if (!tok || kp_int(tok, bytes, false))
		return "bad live bytes";
	tok = strtok_r(NULL, " \t", save);
	if (!tok || kp_int(tok, objs, false))
		return "bad object count";
	return kp_tag_parse(NULL, save, t, rest);
}

static const char *age_line(char *line, struct kp_age *a)
{
	char *save = NULL, *tok;
	const char *why;
	bool seen = false;
	int n;

	why = counted_tag(line, &save, &a->bytes, &a->objs, &a->tag, &tok);
	if (why)
		return why;
	for (; tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(tok, "age:", 4)) {
			n = counts(tok + 4, a->age, KP_HIST_MAX);
			if (n < 0)
				return "bad counts";
			a->nage = (size_t)n;
			seen = true;
		} else if (!strchr(tok, ':')) {
			return "expected key:value";
		}
	}
	return seen ? NULL : "no age:";
}

int kp_parse_ages(FILE *in, const char *name, struct kp_ages *a,
		  char *err, size_t errlen)
{
	struct kp_lines l = { .in = in, .name = name };
	const char *why;
	int rc, got = 0;

	memset(a, 0, sizeof(*a));
	rc = header(&l, "ages", err, errlen);
	while (!rc && (got = kp_next(&l, err, errlen)) > 0) {
		if (l.line[0] == '#' || blank(l.line))
			continue;
		if (kp_grow((void **)&a->v, a->n, &a->cap, sizeof(*a->v))) {
			rc = kp_fail(err, errlen, name, l.no, "out of memory");
			break;
		}
		why = age_line(l.line, &a->v[a->n++]);
		if (why)
			rc = kp_fail(err, errlen, name, l.no, "%s", why);
	}
	if (got < 0)
		rc = -1;
	free(l.line);
	if (rc)
		kp_ages_free(a);
	return rc ? -1 : 0;
}

/* leaks */

void kp_leaks_free(struct kp_leaks *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		kp_tag_free(&l->v[i].tag);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* "  <addr> size:<n> age_ms:<n> cpu:<n>" */
static const char *leak_obj(char *line, struct kp_leak *k)
{
	char *save = NULL, *tok = strtok_r(line, " ", &save);
	struct kp_leak_obj o = { .size = -1, .age_ms = -1, .cpu = -1 };
	int64_t cpu = -1;

	if (!tok || strlen(tok) >= sizeof(o.addr) || strchr(tok, ':'))
		return "bad address";
	strcpy(o.addr, tok);
	while ((tok = strtok_r(NULL, " ", &save))) {
		if (!strncmp(tok, "size:", 5)) {
			if (kp_int(tok + 5, &o.size, false))
				return "bad value";
		} else if (!strncmp(tok, "age_ms:", 7)) {
			if (kp_int(tok + 7, &o.age_ms, false))
				return "bad value";
		} else if (!strncmp(tok, "cpu:", 4)) {
			if (kp_int(tok + 4, &cpu, false) || cpu > 1 << 20)
				return "bad value";
			o.cpu = (int)cpu;
		} else if (!strchr(tok, ':')) {
			return "expected key:value";
		}
	}
	if (o.size < 0 || o.age_ms < 0)
		return "no size: or age_ms:";
	if (k->nobj < sizeof(k->obj) / sizeof(k->obj[0]))
		k->obj[k->nobj++] = o;
	return NULL;
}

static const char *leak_line(char *line, struct kp_leak *k)
{
	char *save = NULL, *tok;
	const char *why;

	why = counted_tag(line, &save, &k->bytes, &k->objs, &k->tag, &tok);
	if (why)
		return why;
	for (; tok; tok = strtok_r(NULL, " \t", &save))
		if (!strchr(tok, ':'))
			return "expected key:value";
	return NULL;
}

int kp_parse_leaks(FILE *in, const char *name, struct kp_leaks *l,
		   char *err, size_t errlen)
{
	struct kp_lines ls = { .in = in, .name = name };
	const char *why;
	long long ms, objs, bytes, sites;
	int rc, got = 0;

	memset(l, 0, sizeof(*l));
	l->age_ms = l->objs = l->bytes = l->sites = -1;
	rc = header(&ls, "leaks", err, errlen);
	while (!rc && (got = kp_next(&ls, err, errlen)) > 0) {
		if (ls.line[0] == '#') {
			if (sscanf(ls.line, "# live longer than %lld ms: %lld objects, %lld bytes, %lld sites",
				   &ms, &objs, &bytes, &sites) == 4) {
				l->age_ms = ms;
				l->objs = objs;
				l->bytes = bytes;
				l->sites = sites;
			}
			continue;
		}
		if (blank(ls.line))
			continue;
		if (ls.line[0] == ' ') {
			why = l->n ? leak_obj(ls.line, &l->v[l->n - 1]) :
				     "object before any tag";
		} else if (kp_grow((void **)&l->v, l->n, &l->cap,
				   sizeof(*l->v))) {
			why = "out of memory";
		} else {
			why = leak_line(ls.line, &l->v[l->n++]);
		}
		if (why)
			rc = kp_fail(err, errlen, name, ls.no, "%s", why);
	}
	if (got < 0)
		rc = -1;
	free(ls.line);
	if (rc)
		kp_leaks_free(l);
	return rc ? -1 : 0;
}

/* stats */

void kp_stats_free(struct kp_stats *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->key[i]);
		free(s->val[i]);
	}
	free(s->key);
	free(s->val);
	memset(s, 0, sizeof(*s));
}

const char *kp_stat(const struct kp_stats *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->key[i], key))
			return s->val[i];
	return NULL;
}

static const char *stat_line(char *line, struct kp_stats *s)
{
	char *save = NULL, *k = strtok_r(line, " \t", &save);
	char *v = strtok_r(NULL, " \t", &save);

	if (!k || !v || strtok_r(NULL, " \t", &save))
		return "expected 'key value'";
	if (s->n == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 64;
		char **nk = realloc(s->key, ncap * sizeof(*nk)), **nv;

		if (!nk)
			return "out of memory";
		s->key = nk;
		nv = realloc(s->val, ncap * sizeof(*nv));
		if (!nv)
			return "out of memory";
		s->val = nv;
		s->cap = ncap;
	}
	s->key[s->n] = strdup(k);
	s->val[s->n] = strdup(v);
	s->n++;
	if (!s->key[s->n - 1] || !s->val[s->n - 1])
		return "out of memory";
	return NULL;
}

int kp_parse_stats(FILE *in, const char *name, struct kp_stats *s,
		   char *err, size_t errlen)
{
	struct kp_lines l = { .in = in, .name = name };
	const char *why;
	int rc;

	memset(s, 0, sizeof(*s));
	while ((rc = kp_next(&l, err, errlen)) > 0) {
		if (l.line[0] == '#' || blank(l.line))
			continue;
		why = stat_line(l.line, s);
		if (why) {
			rc = kp_fail(err, errlen, name, l.no, "%s", why);
			break;
		}
	}
	if (!rc && !s->n)
		rc = kp_fail(err, errlen, name, l.no ? l.no : 1,
			     "empty input");
	else if (!rc && !kp_stat(s, "enabled"))
		rc = kp_fail(err, errlen, name, 1,
			     "not a kmemprof stats view (no 'enabled')");
	free(l.line);
	if (rc)
		kp_stats_free(s);
	return rc ? -1 : 0;
}

/* cpus */

void kp_cpus_free(struct kp_cpus *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static const char *cpu_line(char *line, struct kp_cpu *c)
{
	int64_t v[6];
	char *save = NULL, *tok;
	int i;

	for (i = 0; i < 6; i++) {
		tok = strtok_r(i ? NULL : line, " \t", &save);
		if (!tok)
			return "too few fields";
		if (kp_int(tok, &v[i], false))
			return "bad number";
	}
	if (strtok_r(NULL, " \t", &save))
		return "too many fields";
	if (v[0] > 1 << 20 || v[1] > 1 << 20)
		return "bad cpu or cluster";
	c->cpu = (int)v[0];
	c->cluster = (int)v[1];
	c->allocs = v[2];
	c->frees = v[3];
	c->remote = v[4];
	c->xcluster = v[5];
	return NULL;
}

int kp_parse_cpus(FILE *in, const char *name, struct kp_cpus *c,
		  char *err, size_t errlen)
{
	struct kp_lines l = { .in = in, .name = name };
	const char *why;
	int rc, got = 0;

	memset(c, 0, sizeof(*c));
	rc = header(&l, "cpus", err, errlen);
	while (!rc && (got = kp_next(&l, err, errlen)) > 0) {
		if (l.line[0] == '#' || blank(l.line))
			continue;
		if (kp_grow((void **)&c->v, c->n, &c->cap, sizeof(*c->v))) {
			rc = kp_fail(err, errlen, name, l.no, "out of memory");
			break;
		}
		why = cpu_line(l.line, &c->v[c->n++]);
		if (why)
			rc = kp_fail(err, errlen, name, l.no, "%s", why);
	}
	if (got < 0)
		rc = -1;
	free(l.line);
	if (rc)
		kp_cpus_free(c);
	return rc ? -1 : 0;
}

/* stacks */

void kp_stacks_free(struct kp_stacks *s)
{
	size_t i, f;

	for (i = 0; i < s->n; i++) {
		struct kp_stack *st = &s->v[i];

		for (f = 0; f < st->nframes; f++)
			free(st->frames[f]);
		free(st->frames);
		kp_tag_free(&st->tag);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int tag_copy(struct kp_tag *dst, const struct kp_tag *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->site = strdup(src->site);
	dst->module = src->module ? strdup(src->module) : NULL;
	dst->func = src->func ? strdup(src->func) : NULL;
	dst->kind = strdup(src->kind);
	dst->callers = src->callers ? strdup(src->callers) : NULL;
	if (!dst->site || !dst->kind || (src->module && !dst->module) ||
	    (src->func && !dst->func) || (src->callers && !dst->callers))
		return -1;
	return 0;
}

struct stacks_state {
	struct kp_tag tag;	/* the current tag */
	bool have_tag;
	int64_t tag_allocs, tag_bytes;
};

static const char *stacks_tag(char *line, struct stacks_state *st)
{
	char *save = NULL, *tok;
	const char *why;

	kp_tag_free(&st->tag);
	st->tag_allocs = st->tag_bytes = -1;
	why = kp_tag_parse(line, &save, &st->tag, &tok);
	if (why)
		return why;
	for (; tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(tok, "allocs:", 7)) {
			if (kp_int(tok + 7, &st->tag_allocs, false))
				return "bad value";
		} else if (!strncmp(tok, "bytes:", 6)) {
			if (kp_int(tok + 6, &st->tag_bytes, false))
				return "bad value";
		} else if (!strchr(tok, ':')) {
			return "expected key:value";
		}
	}
	st->have_tag = true;
	return NULL;
}

/* "Allocate <bytes> (<p>%) bytes on <allocs> (<p>%) objects:" */
static const char *stacks_alloc(const char *line, struct stacks_state *st,
				struct kp_stacks *s)
{
	long long bytes, allocs;
	struct kp_stack *x;
	int end = 0;

	if (!st->have_tag)
		return "stack before any tag";
	if (sscanf(line, "Allocate %lld (%*[0-9.]%%) bytes on %lld (%*[0-9.]%%) objects:%n",
		   &bytes, &allocs, &end) != 2 || !end || line[end] ||
	    bytes < 0 || allocs < 0)
		return "bad Allocate line";
	if (kp_grow((void **)&s->v, s->n, &s->cap, sizeof(*s->v)))
		return "out of memory";
	x = &s->v[s->n++];
	memset(x, 0, sizeof(*x));
	if (tag_copy(&x->tag, &st->tag))
		return "out of memory";
	x->site = x->tag.site;
	x->allocs = allocs;
	x->bytes = bytes;
	x->live_objs = x->live_bytes = -1;
	x->tag_allocs = st->tag_allocs;
	x->tag_bytes = st->tag_bytes;
	return NULL;
}

static const char *stacks_frame(const char *line, struct kp_stacks *s)
{
	struct kp_stack *x;
	char **nf;
	size_t len;

	if (!s->n)
		return "frame before any stack";
	x = &s->v[s->n - 1];
	line += strspn(line, " \t");
	len = strlen(line);
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (!len)
		return "empty frame";
	if (x->nframes >= 256)
		return "too many frames";
	nf = realloc(x->frames, (x->nframes + 1) * sizeof(*nf));
	if (!nf)
		return "out of memory";
	x->frames = nf;
	if (!(nf[x->nframes] = strndup(line, len)))
		return "out of memory";
	x->nframes++;
	return NULL;
}

int kp_parse_stacks(FILE *in, const char *name, struct kp_stacks *s,
		    char *err, size_t errlen)
{
	struct kp_lines l = { .in = in, .name = name };
	struct stacks_state st = { .have_tag = false };
	const char *why;
	int depth, sample, rc, got = 0;

	memset(s, 0, sizeof(*s));
	s->depth = s->sample = -1;
	rc = header(&l, "stacks", err, errlen);
	while (!rc && (got = kp_next(&l, err, errlen)) > 0) {
		if (l.line[0] == '#') {
			if (sscanf(l.line, "# stack_depth:%d stack_sample:%d",
				   &depth, &sample) == 2) {
				s->depth = depth;
				s->sample = sample;
			}
			continue;
		}
		if (blank(l.line))
			continue;
		if (l.line[0] == ' ' || l.line[0] == '\t')
			why = stacks_frame(l.line, s);
		else if (!strncmp(l.line, "Allocate ", 9))
			why = stacks_alloc(l.line, &st, s);
		else
			why = stacks_tag(l.line, &st);
		if (why)
			rc = kp_fail(err, errlen, name, l.no, "%s", why);
	}
	if (got < 0)
		rc = -1;
	kp_tag_free(&st.tag);
	free(l.line);
	if (rc)
		kp_stacks_free(s);
	return rc ? -1 : 0;
}
