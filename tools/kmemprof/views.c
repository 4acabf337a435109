// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: parsers of the debugfs views (stats, hist, ages, leaks,
 * cpus, stacks, owners), as Documentation/kmemprof.rst lays them out. Each one
 * checks the view's version line and refuses anything else with
 * "name:line: why".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <kmemprof/format.h>

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
	snprintf(want, sizeof(want), KMP_VIEW_MAGIC_FMT "%%15s", view);
	if (sscanf(l->line, want, ver) != 1)
		return kp_fail(err, errlen, l->name, 1,
			       "not a kmemprof %s view", view);
	if (strcmp(ver, KMP_VIEW_VERSION))
		return kp_fail(err, errlen, l->name, 1, "unknown version %s",
			       ver);
	return 0;
}

static bool blank(const char *s)
{
	return !s[strspn(s, " \t")];
}

/*
 * What a view says while its knob is off (KMP_HIST_OFF, KMP_LIFE_OFF,
 * KMP_OWNERS_VIEW_OFF).
 */
static bool off_line(const char *s)
{
	return !strncmp(s, KMP_HIST_OFF, strlen(KMP_HIST_OFF) - 1) ||
	       !strncmp(s, KMP_LIFE_OFF, strlen(KMP_LIFE_OFF) - 1) ||
	       !strncmp(s, KMP_OWNERS_VIEW_OFF,
			strlen(KMP_OWNERS_VIEW_OFF) - 1);
}

/*
 * A view of one record a line (hist, ages, cpus): its header, then each
 * line that is not a comment or blank parsed by @parse into a new, zeroed
 * record at the end of the array *@v of *@n (room for *@cap) records of
 * @size bytes. On error the records so far stay for the caller to free.
 */
static int parse_records(FILE *in, const char *name, const char *view,
			 void **v, size_t *n, size_t *cap, size_t size,
			 const char *(*parse)(char *line, void *rec),
			 bool *off, char *err, size_t errlen)
{
	struct kp_lines l = { .in = in, .name = name };
	const char *why;
	int rc, got = 0;
	void *rec;

	rc = header(&l, view, err, errlen);
	while (!rc && (got = kp_next(&l, err, errlen)) > 0) {
		if (l.line[0] == '#' && off && off_line(l.line))
			*off = true;
		if (l.line[0] == '#' || blank(l.line))
			continue;
		if (kp_grow(v, *n, cap, size)) {
			rc = kp_fail(err, errlen, name, l.no, "out of memory");
			break;
		}
		rec = (char *)*v + size * (*n)++;
		memset(rec, 0, size);
		why = parse(l.line, rec);
		if (why)
			rc = kp_fail(err, errlen, name, l.no, "%s", why);
	}
	if (got < 0)
		rc = -1;
	free(l.line);
	return rc ? -1 : 0;
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

static const char *hist_key(struct kp_hist *h, char *tok, unsigned int *seen)
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
		return kp_uint(val, &h->xcpu) ? "bad value for xcpu:" : NULL;
	if (!strcmp(tok, "xcluster"))
		return kp_uint(val, &h->xcluster) ? "bad value for xcluster:" : NULL;
	if (!strcmp(tok, "waste"))
		return kp_int(val, &h->waste, false) ? "bad value for waste:" : NULL;
	if (!strcmp(tok, "frag"))
		return number(val, &h->frag) ? "bad value for frag:" : NULL;
	return NULL;	/* a key of a later version */
}

static const char *hist_line(char *line, void *rec)
{
	struct kp_hist *h = rec;
	char *save = NULL, *tok;
	unsigned int seen = 0;
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
		kp_site_release(&h->v[i].tag);
	free(h->v);
	memset(h, 0, sizeof(*h));
}

int kp_parse_hist(FILE *in, const char *name, struct kp_hists *h,
		  char *err, size_t errlen)
{
	int rc;

	memset(h, 0, sizeof(*h));
	rc = parse_records(in, name, "hist", (void **)&h->v, &h->n,
			   &h->cap, sizeof(*h->v), hist_line, &h->off, err,
			   errlen);
	if (rc)
		kp_hists_free(h);
	return rc;
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
		/*
		 * One rule for every unit: each in [1, 1000) for us and ms,
		 * [1, 60) for s and m, then h; two digits (9.2m, 18m), as
		 * -H sizes read. Not "2199s" beside "1.2h".
		 */
		if (u == 2 && us >= 3600)
			snprintf(buf, len, "%s%.*fh", i >= 35 ? ">=" : "",
				 us / 3600 < 10 ? 1 : 0, us / 3600);
		else if (u == 2 && us >= 60)
			snprintf(buf, len, "%s%.*fm", i >= 35 ? ">=" : "",
				 us / 60 < 10 ? 1 : 0, us / 60);
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
		return (uint64_t)4096 << (i > 50 ? 50 : i);
	case KP_B_LIFE:
	default:
		return i ? (uint64_t)1024 << (i > 53 ? 52 : i - 1) : 0;
	}
}

/* ages */

void kp_ages_free(struct kp_ages *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		kp_site_release(&a->v[i].tag);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* "<bytes> <objs> <tag>"; the rest of the tokens in @rest. */
static const char *counted_tag(char *line, char **save, int64_t *bytes,
			       int64_t *objs, struct kp_site *t, char **rest)
{
	char *tok = strtok_r(line, " \t", save);

	if (!tok || kp_int(tok, bytes, false))
		return "bad live bytes";
	tok = strtok_r(NULL, " \t", save);
	if (!tok || kp_int(tok, objs, false))
		return "bad object count";
	return kp_tag_parse(NULL, save, t, rest);
}

static const char *age_line(char *line, void *rec)
{
	struct kp_age *a = rec;
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
	int rc;

	memset(a, 0, sizeof(*a));
	rc = parse_records(in, name, "ages", (void **)&a->v, &a->n,
			   &a->cap, sizeof(*a->v), age_line, &a->off, err,
			   errlen);
	if (rc)
		kp_ages_free(a);
	return rc;
}

/* leaks */

void kp_leaks_free(struct kp_leaks *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		kp_site_release(&l->v[i].tag);
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
				return "bad value for size:";
		} else if (!strncmp(tok, "age_ms:", 7)) {
			if (kp_int(tok + 7, &o.age_ms, false))
				return "bad value for age_ms:";
		} else if (!strncmp(tok, "cpu:", 4)) {
			if (kp_int(tok + 4, &cpu, false) || cpu > 1 << 20)
				return "bad value for cpu:";
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
			if (off_line(ls.line))
				l->off = true;
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

	for (i = 0; i < s->n; i++)
		free(s->v[i].key);	/* val is in the same block */
	free(s->v);
	memset(s, 0, sizeof(*s));
}

const char *kp_stat(const struct kp_stats *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].key, key))
			return s->v[i].val;
	return NULL;
}

static const char *stat_line(char *line, struct kp_stats *s)
{
	char *save = NULL, *k = strtok_r(line, " \t", &save);
	char *v = strtok_r(NULL, " \t", &save);
	struct kp_stat st;

	if (!k || !v || strtok_r(NULL, " \t", &save))
		return "expected 'key value'";
	if (s->n == s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 64;
		struct kp_stat *nv = realloc(s->v, ncap * sizeof(*nv));

		if (!nv)
			return "out of memory";
		s->v = nv;
		s->cap = ncap;
	}
	/* One block, "key\0value": val points into it, key owns it. */
	if (asprintf(&st.key, "%s%c%s", k, '\0', v) < 0)
		return "out of memory";
	st.val = st.key + strlen(k) + 1;
	s->v[s->n++] = st;
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

static const char *cpu_line(char *line, void *rec)
{
	struct kp_cpu *c = rec;
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
	int rc;

	memset(c, 0, sizeof(*c));
	rc = parse_records(in, name, "cpus", (void **)&c->v, &c->n,
			   &c->cap, sizeof(*c->v), cpu_line, NULL, err,
			   errlen);
	if (rc)
		kp_cpus_free(c);
	return rc;
}

/* stacks */

static void stack_free(struct kp_stack *x);

void kp_stacks_free(struct kp_stacks *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		stack_free(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static char *dup_or_null(const char *s, bool *failed)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*failed = true;
	return d;
}

static int tag_copy(struct kp_site *dst, const struct kp_site *src)
{
	bool failed = false;
	struct kp_site t = {
		.site = dup_or_null(src->site, &failed),
		.module = dup_or_null(src->module, &failed),
		.func = dup_or_null(src->func, &failed),
		.kind = dup_or_null(src->kind, &failed),
		.callers = dup_or_null(src->callers, &failed),
	};

	if (failed) {
		kp_site_release(&t);
		return -1;
	}
	*dst = t;
	return 0;
}

struct stacks_state {
	struct kp_site tag;	/* the current tag */
	bool have_tag;
	int64_t tag_allocs, tag_bytes;
	struct kp_stack cur;	/* the stack being read, once have_cur */
	bool have_cur;
	char *ftext;		/* its frames so far, "f0\0f1\0..." */
	size_t flen, nf;
};

/* frames[0] owns the text of every frame: one block, "f0\0f1\0...". */
static void stack_free(struct kp_stack *x)
{
	if (x->frames)
		free(x->frames[0]);
	free(x->frames);
	kp_site_release(&x->tag);
	memset(x, 0, sizeof(*x));
}

/* The stack read so far, with its frames, onto the list. */
static const char *stacks_flush(struct stacks_state *st, struct kp_stacks *s)
{
	char **frames = NULL, *p;
	size_t i;

	if (!st->have_cur)
		return NULL;
	if (st->nf) {
		frames = malloc(st->nf * sizeof(*frames));
		if (frames) {
			frames[0] = st->ftext;
			for (i = 1, p = st->ftext; i < st->nf; i++) {
				p += strlen(p) + 1;
				frames[i] = p;
			}
			st->ftext = NULL;
			st->cur.frames = frames;
			st->cur.nframes = st->nf;
		}
	}
	free(st->ftext);
	st->ftext = NULL;
	st->flen = 0;
	if ((st->nf && !frames) ||
	    kp_grow((void **)&s->v, s->n, &s->cap, sizeof(*s->v))) {
		st->nf = 0;
		stack_free(&st->cur);
		st->have_cur = false;
		return "out of memory";
	}
	st->nf = 0;
	s->v[s->n++] = st->cur;
	memset(&st->cur, 0, sizeof(st->cur));
	st->have_cur = false;
	return NULL;
}

static const char *stacks_tag(char *line, struct stacks_state *st,
			      struct kp_stacks *s)
{
	char *save = NULL, *tok;
	const char *why = stacks_flush(st, s);

	if (why)
		return why;
	kp_site_release(&st->tag);
	st->tag_allocs = st->tag_bytes = -1;
	why = kp_tag_parse(line, &save, &st->tag, &tok);
	if (why)
		return why;
	for (; tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(tok, "allocs:", 7)) {
			if (kp_int(tok + 7, &st->tag_allocs, false))
				return "bad value for allocs:";
		} else if (!strncmp(tok, "bytes:", 6)) {
			if (kp_int(tok + 6, &st->tag_bytes, false))
				return "bad value for bytes:";
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
	struct kp_stack *x = &st->cur;
	long long bytes, allocs;
	const char *why;
	int end = 0;

	if (!st->have_tag)
		return "stack before any tag";
	if (sscanf(line, "Allocate %lld (%*[0-9.]%%) bytes on %lld (%*[0-9.]%%) objects:%n",
		   &bytes, &allocs, &end) != 2 || !end || line[end] ||
	    bytes < 0 || allocs < 0)
		return "bad Allocate line";
	why = stacks_flush(st, s);
	if (why)
		return why;
	memset(x, 0, sizeof(*x));
	st->have_cur = true;
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

static const char *stacks_frame(const char *line, struct stacks_state *st)
{
	size_t len;
	char *nt;

	if (!st->have_cur)
		return "frame before any stack";
	line += strspn(line, " \t");
	len = strlen(line);
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (!len)
		return "empty frame";
	if (st->nf >= 256)
		return "too many frames";
	nt = realloc(st->ftext, st->flen + len + 1);
	if (!nt)
		return "out of memory";
	memcpy(nt + st->flen, line, len);
	nt[st->flen + len] = '\0';
	st->ftext = nt;
	st->flen += len + 1;
	st->nf++;
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
			why = stacks_frame(l.line, &st);
		else if (!strncmp(l.line, "Allocate ", 9))
			why = stacks_alloc(l.line, &st, s);
		else
			why = stacks_tag(l.line, &st, s);
		if (why)
			rc = kp_fail(err, errlen, name, l.no, "%s", why);
	}
	if (got < 0)
		rc = -1;
	if (!rc && stacks_flush(&st, s))
		rc = kp_fail(err, errlen, name, l.no, "out of memory");
	if (st.have_cur)
		stack_free(&st.cur);
	free(st.ftext);
	kp_site_release(&st.tag);
	free(l.line);
	if (rc)
		kp_stacks_free(s);
	return rc ? -1 : 0;
}

/* owners */

void kp_owners_free(struct kp_owners *o)
{
	size_t i;

	for (i = 0; i < o->n; i++) {
		kp_site_release(&o->v[i].tag);
		free(o->v[i].name);	/* owner is in the same block */
	}
	free(o->v);
	memset(o, 0, sizeof(*o));
}

const char *kp_owner_type_name(enum kp_owner_type t)
{
	return t == KP_OWN_TASK ? "task" : t == KP_OWN_CGROUP ? "cgroup" :
	       "kernel";
}

/* @l's name and its owner's, in one block: "name\0owner". */
static const char *owner_names(struct kp_oline *l, const char *name)
{
	char *b;
	int n;

	if (l->type == KP_OWN_TASK)
		n = asprintf(&b, "%s%c%s[%lld]", name, '\0', name,
			     (long long)l->id);
	else if (l->type == KP_OWN_CGROUP && !strcmp(name, "?"))
		n = asprintf(&b, "%s%ccgroup_id:%lld", name, '\0',
			     (long long)l->id);
	else
		n = asprintf(&b, "%s%c%s", name, '\0', name);
	if (n < 0)
		return "out of memory";
	l->name = b;
	l->owner = b + strlen(name) + 1;
	return NULL;
}

/*
 * "<bytes> <objs> <tag> (owner:<comm> tgid:<n> | cgroup:<path>
 * cgroup_id:<n> | owner:[<name>]) allocs:<n> [caller:<frame>]...".
 */
static const char *owner_line(char *line, void *rec)
{
	struct kp_oline *l = rec;
	char *save = NULL, *tok, *name = NULL;
	int64_t bytes, objs;
	bool allocs = false;
	const char *why;
	int kind = 0;	/* 1: owner:, 2: cgroup: */

	l->id = -1;
	why = counted_tag(line, &save, &bytes, &objs, &l->tag, &tok);
	l->tag.bytes = bytes;
	l->tag.objs = objs;
	l->tag.allocs = l->tag.frees = l->tag.total = l->tag.req = -1;
	if (why)
		return why;
	for (; tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(tok, "owner:", 6) || !strncmp(tok, "cgroup:", 7)) {
			if (kind)
				return "more than one owner";
			kind = tok[0] == 'o' ? 1 : 2;
			name = strchr(tok, ':') + 1;
			if (!*name)
				return kind == 1 ? "bad owner:" : "bad cgroup:";
		} else if (!strncmp(tok, "tgid:", 5)) {
			if (kind != 1)
				return "tgid: without owner:";
			if (l->id >= 0)
				return "more than one tgid:";
			if (kp_int(tok + 5, &l->id, false))
				return "bad value for tgid:";
		} else if (!strncmp(tok, "cgroup_id:", 10)) {
			if (kind != 2)
				return "cgroup_id: without cgroup:";
			if (l->id >= 0)
				return "more than one cgroup_id:";
			if (kp_int(tok + 10, &l->id, false))
				return "bad value for cgroup_id:";
		} else if (!strncmp(tok, "allocs:", 7)) {
			if (kp_int(tok + 7, &l->tag.allocs, false))
				return "bad value for allocs:";
			allocs = true;
		} else if (!strncmp(tok, "caller:", 7)) {
			if (!tok[7] || kp_add_caller(&l->tag, tok + 7))
				return "bad caller:";
		} else if (!strchr(tok, ':')) {
			return "expected key:value";
		}
	}
	if (!kind)
		return "no owner: or cgroup:";
	if (kind == 2 && l->id < 0)
		return "no cgroup_id:";
	if (kind == 1 && l->id < 0 &&
	    (name[0] != '[' || strlen(name) < 3 ||
	     name[strlen(name) - 1] != ']'))
		return "owner: with neither tgid: nor [name]";
	if (!allocs)
		return "no allocs:";
	l->type = kind == 2 ? KP_OWN_CGROUP : l->id >= 0 ? KP_OWN_TASK :
		  KP_OWN_KERNEL;
	return owner_names(l, name);
}

int kp_parse_owners(FILE *in, const char *name, struct kp_owners *o,
		    char *err, size_t errlen)
{
	size_t i;
	int rc;

	memset(o, 0, sizeof(*o));
	rc = parse_records(in, name, "owners", (void **)&o->v, &o->n,
			   &o->cap, sizeof(*o->v), owner_line, &o->off, err,
			   errlen);
	if (rc) {
		kp_owners_free(o);
		return rc;
	}
	for (i = 0; i < o->n; i++) {
		o->task |= o->v[i].type == KP_OWN_TASK;
		o->cgroup |= o->v[i].type == KP_OWN_CGROUP;
	}
	return 0;
}
