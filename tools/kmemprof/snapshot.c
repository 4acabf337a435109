// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: snapshots, the growth between two of them (diff), the
 * rates between two reads (watch) and recorded series (watch --record).
 *
 * A snapshot is the text of /proc/kmemprof (or /proc/allocinfo) with one
 * comment line added after the version line,
 *
 *   # snapshot time:1763781234.567 source:/proc/kmemprof
 *
 * so that it still parses as what it was taken from. A record is
 * snapshots concatenated: each starts at its version line.
 */
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include <kmemprof/format.h>

#include "profile.h"
#include "util.h"

#define KEY_LEN 1024

int kp_snapshot_write(FILE *out, FILE *in, const char *name, double time,
		      char *err, size_t errlen)
{
	struct kp_lines l = { .in = in, .name = name };
	struct kp_profile p;
	char *text = NULL;
	size_t size = 0;
	FILE *mem, *rd;
	int rc;

	/* Read it whole, leaving out an older snapshot line. */
	mem = open_memstream(&text, &size);
	if (!mem)
		return kp_fail(err, errlen, name, 0, "out of memory");
	while ((rc = kp_next(&l, err, errlen)) > 0) {
		if (!strncmp(l.line, "# snapshot ", 11))
			continue;
		fprintf(mem, "%s\n", l.line);
		if (l.no == 1)
			fprintf(mem, "# snapshot time:%.3f source:%s\n", time,
				name);
	}
	free(l.line);
	if (fclose(mem) || rc < 0) {
		free(text);
		return rc < 0 ? -1 :
		       kp_fail(err, errlen, name, 0, "out of memory");
	}
	/* Only what parses is a snapshot. */
	rd = fmemopen(text, size ? size : 1, "r");
	if (!rd || kp_parse(rd, name, &p, err, errlen)) {
		if (rd)
			fclose(rd);
		else
			kp_fail(err, errlen, name, 0, "out of memory");
		free(text);
		return -1;
	}
	fclose(rd);
	kp_free(&p);
	rc = fwrite(text, 1, size, out) == size ? 0 : -1;
	free(text);
	return rc;
}

/* A hash of site keys to indexes, with glibc's hsearch_r. */
struct keymap {
	struct hsearch_data h;
	char **keys;
	size_t n, cap;		/* keys held, and room for (grown by keymap_get) */
};

static int keymap_init(struct keymap *m, size_t max)
{
	memset(m, 0, sizeof(*m));
	m->cap = max ? max : 1;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	if (!m->keys || !hcreate_r(m->cap * 2 + 16, &m->h)) {
		free(m->keys);
		return -1;
	}
	return 0;
}

/* Room for twice as many keys: a new table, the keys entered again. */
static int keymap_grow(struct keymap *m)
{
	struct hsearch_data h;
	size_t cap = 2 * m->cap, i;
	ENTRY e, *found;
	char **keys;

	memset(&h, 0, sizeof(h));
	keys = realloc(m->keys, cap * sizeof(*keys));
	if (!keys)
		return -1;
	m->keys = keys;
	if (!hcreate_r(cap * 2 + 16, &h))
		return -1;
	for (i = 0; i < m->n; i++) {
		e.key = m->keys[i];
		e.data = (void *)(intptr_t)i;
		if (!hsearch_r(e, ENTER, &found, &h)) {
			hdestroy_r(&h);
			return -1;
		}
	}
	hdestroy_r(&m->h);
	m->h = h;
	m->cap = cap;
	return 0;
}

static void keymap_free(struct keymap *m)
{
	size_t i;

	hdestroy_r(&m->h);
	for (i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
}

/* The index of @key, added as the next one if new; -1 on ENOMEM. */
static long keymap_get(struct keymap *m, const char *key, bool add,
		       bool *added)
{
	ENTRY e = { .key = (char *)key }, *found;

	*added = false;
	if (hsearch_r(e, FIND, &found, &m->h))
		return (long)(intptr_t)found->data;
	if (!add || (m->n == m->cap && keymap_grow(m)))
		return -1;
	e.key = strdup(key);
	if (!e.key)
		return -1;
	e.data = (void *)(intptr_t)m->n;
	if (!hsearch_r(e, ENTER, &found, &m->h)) {
		free(e.key);
		return -1;
	}
	m->keys[m->n++] = e.key;
	*added = true;
	return (long)(m->n - 1);
}

static int64_t val(int64_t v)
{
	return v < 0 ? 0 : v;
}

static int delta_cmp(const void *x, const void *y)
{
	const struct kp_delta *a = x, *b = y;
	const struct kp_site *sa = a->b ? a->b : a->a;
	const struct kp_site *sb = b->b ? b->b : b->a;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	if (a->allocs != b->allocs)
		return a->allocs < b->allocs ? 1 : -1;
	return strcmp(sa->site, sb->site);
}

/*
 * The key of each site of @p, numbered when a key repeats (a module
 * loaded again at the same address gets new tags with the same text):
 * the n-th tag of a key in A matches the n-th in B, in the order of the
 * file, which is the order the tags were made in.
 */
static char **numbered_keys(const struct kp_profile *p)
{
	char **keys = calloc(p->n + 1, sizeof(*keys));
	long *count = calloc(p->n + 1, sizeof(*count));
	char key[KEY_LEN], num[24];
	struct keymap seen;
	size_t i;
	bool added;
	long k;

	if (!keys || !count || keymap_init(&seen, p->n)) {
		free(keys);
		free(count);
		return NULL;
	}
	for (i = 0; i < p->n; i++) {
		kp_site_key(&p->sites[i], key, sizeof(key));
		k = keymap_get(&seen, key, true, &added);
		if (k < 0)
			break;
		num[0] = '\0';
		if (count[k]++)
			snprintf(num, sizeof(num), " #%ld", count[k]);
		if (asprintf(&keys[i], "%s%s", key, num) < 0) {
			keys[i] = NULL;
			break;
		}
	}
	keymap_free(&seen);
	free(count);
	if (i < p->n) {
		while (i--)
			free(keys[i]);
		free(keys);
		return NULL;
	}
	return keys;
}

static void keys_free(char **keys, size_t n)
{
	size_t i;

	for (i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
}

int kp_diff(const struct kp_profile *a, const struct kp_profile *b,
	    struct kp_diff *d)
{
	char **ka = numbered_keys(a), **kb = numbered_keys(b);
	struct keymap m;
	size_t i;
	bool added;
	long k;

	memset(d, 0, sizeof(*d));
	if (!ka || !kb || keymap_init(&m, a->n + b->n)) {
		keys_free(ka, a->n);
		keys_free(kb, b->n);
		return -1;
	}
	d->v = calloc(a->n + b->n + 1, sizeof(*d->v));
	if (!d->v)
		goto oom;
	for (i = 0; i < a->n; i++) {
		k = keymap_get(&m, ka[i], true, &added);
		if (k < 0)
			goto oom;
		d->v[k].a = &a->sites[i];
	}
	for (i = 0; i < b->n; i++) {
		k = keymap_get(&m, kb[i], true, &added);
		if (k < 0)
			goto oom;
		d->v[k].b = &b->sites[i];
	}
	d->n = m.n;
	for (i = 0; i < d->n; i++) {
		struct kp_delta *x = &d->v[i];
		const struct kp_site *sa = x->a, *sb = x->b;

		x->bytes = (sb ? sb->bytes : 0) - (sa ? sa->bytes : 0);
		x->objs = (sb ? val(sb->objs) : 0) - (sa ? val(sa->objs) : 0);
		x->allocs = (sb ? val(sb->allocs) : 0) -
			    (sa ? val(sa->allocs) : 0);
		x->frees = (sb ? val(sb->frees) : 0) - (sa ? val(sa->frees) : 0);
		x->total = (sb ? val(sb->total) : 0) - (sa ? val(sa->total) : 0);
	}
	if (d->n > 1)
		qsort(d->v, d->n, sizeof(*d->v), delta_cmp);
	if (a->time > 0 && b->time > a->time)
		d->dt = b->time - a->time;
	keymap_free(&m);
	keys_free(ka, a->n);
	keys_free(kb, b->n);
	return 0;
oom:
	keymap_free(&m);
	keys_free(ka, a->n);
	keys_free(kb, b->n);
	kp_diff_free(d);
	return -1;
}

void kp_diff_free(struct kp_diff *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

void kp_delta_rate(const struct kp_delta *d, double dt, struct kp_rate *r)
{
	if (dt <= 0) {
		memset(r, 0, sizeof(*r));
		return;
	}
	r->growth = (double)d->bytes / dt;
	r->allocs = d->allocs > 0 ? (double)d->allocs / dt : 0;
	r->bytes = d->total > 0 ? (double)d->total / dt : 0;
}

void kp_rates(struct kp_profile *b, const struct kp_profile *a, double dt)
{
	struct kp_diff d;
	size_t i;

	for (i = 0; i < b->n; i++)
		b->sites[i].rate = 0;
	if (dt <= 0 || kp_diff(a, b, &d))
		return;
	for (i = 0; i < d.n; i++) {
		struct kp_site *s = (struct kp_site *)d.v[i].b;

		/* A counter that went back (a reset) starts from zero. */
		if (s && s->allocs >= 0)
			s->rate = (double)(d.v[i].allocs >= 0 ? d.v[i].allocs :
					   s->allocs) / dt;
	}
	kp_diff_free(&d);
}

/* Series */

void kp_series_free(struct kp_series *s)
{
	size_t i;

	for (i = 0; i < s->nsite; i++)
		free(s->site[i]);
	free(s->site);
	free(s->t);
	free(s->live);
	memset(s, 0, sizeof(*s));
}

static bool is_header(const char *line)
{
	return !strncmp(line, KMP_PROC_MAGIC, strlen(KMP_PROC_MAGIC)) ||
	       !strncmp(line, "allocinfo - version:", 20);
}

/* Parse one snapshot of a record, its first line at @first. */
static int chunk(const char *text, size_t size, const char *name,
		 size_t first, struct kp_profile *p, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, size ? size : 1, "r");
	char why[256];
	size_t line;
	int off = 0;

	if (!f)
		return kp_fail(err, errlen, name, first, "out of memory");
	if (!kp_parse(f, name, p, why, sizeof(why))) {
		fclose(f);
		if (p->time <= 0) {
			kp_free(p);
			return kp_fail(err, errlen, name, first,
				       "snapshot without a time line");
		}
		return 0;
	}
	fclose(f);
	/* Number the error's line within the whole record. */
	if (sscanf(why + strlen(name), ":%zu: %n", &line, &off) == 1 && off)
		return kp_fail(err, errlen, name, first + line - 1, "%s",
			       why + strlen(name) + off);
	snprintf(err, errlen, "%s", why);
	return -1;
}

/*
 * A record's series as it is read: one row of live bytes per site key,
 * @capt columns each (doubled as snapshots come), so that memory is the
 * series itself, sites x snapshots, and one snapshot parsed at a time.
 */
struct rows {
	struct keymap m;
	int64_t **v;		/* v[k][t]: live bytes of key k at snapshot t */
	size_t n, cap;		/* rows made, room for */
	size_t capt;		/* columns of every row */
	double *t;		/* each snapshot's time, capt of them */
};

static int rows_add(struct rows *r, const struct kp_profile *p, size_t t)
{
	char key[KEY_LEN];
	size_t i, k, c;
	bool added;
	long got;

	if (t == r->capt) {
		double *nt;

		c = r->capt ? 2 * r->capt : 64;
		nt = realloc(r->t, c * sizeof(*nt));
		if (!nt)
			return -1;
		r->t = nt;
		for (k = 0; k < r->n; k++) {
			int64_t *row = realloc(r->v[k], c * sizeof(*row));

			if (!row)
				return -1;
			memset(row + r->capt, 0, (c - r->capt) * sizeof(*row));
			r->v[k] = row;
		}
		r->capt = c;
	}
	r->t[t] = p->time;
	for (i = 0; i < p->n; i++) {
		got = keymap_get(&r->m, kp_site_key(&p->sites[i], key,
						    sizeof(key)), true, &added);
		if (got < 0)
			return -1;
		k = (size_t)got;
		if (k == r->n) {
			if (kp_grow((void **)&r->v, r->n, &r->cap,
				    sizeof(*r->v)))
				return -1;
			r->v[k] = calloc(r->capt, sizeof(**r->v));
			if (!r->v[k])
				return -1;
			r->n++;
		}
		r->v[k][t] += p->sites[i].bytes;
	}
	return 0;
}

static void rows_free(struct rows *r)
{
	size_t k;

	for (k = 0; k < r->n; k++)
		free(r->v[k]);
	free(r->v);
	free(r->t);
	keymap_free(&r->m);
}

/* The rows as @s: nsite x nt, row-major; the keys handed over. */
static int rows_take(struct rows *r, size_t nt, struct kp_series *s)
{
	size_t k;

	s->live = malloc((r->n ? r->n : 1) * nt * sizeof(*s->live));
	s->t = malloc(nt * sizeof(*s->t));
	if (!s->live || !s->t)
		return -1;
	for (k = 0; k < r->n; k++)
		memcpy(s->live + k * nt, r->v[k], nt * sizeof(*s->live));
	memcpy(s->t, r->t, nt * sizeof(*s->t));
	s->nt = nt;
	s->nsite = r->m.n;
	s->site = r->m.keys;
	r->m.keys = NULL;
	r->m.n = 0;
	return 0;
}

int kp_series_load(FILE *in, const char *name, struct kp_series *s,
		   char *err, size_t errlen)
{
	struct kp_lines l = { .in = in, .name = name };
	size_t nsnap = 0, first = 0, size = 0;
	struct kp_profile p;
	struct rows r;
	char *text = NULL;
	FILE *mem = NULL;
	int rc, added;

	memset(s, 0, sizeof(*s));
	memset(&r, 0, sizeof(r));
	if (keymap_init(&r.m, 1024))
		return kp_fail(err, errlen, name, 0, "out of memory");
	for (;;) {
		rc = kp_next(&l, err, errlen);
		if (rc < 0)
			goto out;
		if (mem && (!rc || is_header(l.line))) {
			/* The snapshot that just ended: into the rows. */
			if (fclose(mem)) {
				mem = NULL;
				rc = kp_fail(err, errlen, name, l.no,
					     "out of memory");
				goto out;
			}
			mem = NULL;
			if (chunk(text, size, name, first, &p, err, errlen)) {
				rc = -1;
				goto out;
			}
			free(text);
			text = NULL;
			added = rows_add(&r, &p, nsnap);
			kp_free(&p);
			if (added) {
				rc = kp_fail(err, errlen, name, l.no,
					     "out of memory");
				goto out;
			}
			nsnap++;
		}
		if (!rc)
			break;
		if (!mem && !is_header(l.line)) {
			rc = kp_fail(err, errlen, name, l.no,
				     "not a kmemprof or allocinfo header");
			goto out;
		}
		if (!mem) {
			first = l.no;
			mem = open_memstream(&text, &size);
		}
		if (!mem) {
			rc = kp_fail(err, errlen, name, l.no, "out of memory");
			goto out;
		}
		fprintf(mem, "%s\n", l.line);
	}
	if (!nsnap) {
		rc = kp_fail(err, errlen, name, 1, "empty input");
		goto out;
	}
	rc = rows_take(&r, nsnap, s);
	if (rc)
		kp_fail(err, errlen, name, 0, "out of memory");
out:
	if (mem)
		fclose(mem);
	free(text);
	free(l.line);
	rows_free(&r);
	if (rc)
		kp_series_free(s);
	return rc ? -1 : 0;
}
