// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: recorded series (watch --record, read by plot series):
 * a record is snapshots concatenated (snapshot.c), each from its version
 * line; one row of live bytes per site key, a column per snapshot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kmemprof/format.h>

#include "keymap.h"
#include "profile.h"
#include "util.h"

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
	struct kp_keymap m;
	int64_t **v;		/* v[k][t]: live bytes of key k at snapshot t */
	size_t n, cap;		/* rows made, room for */
	size_t capt;		/* columns of every row */
	double *t;		/* each snapshot's time, capt of them */
};

static int rows_add(struct rows *r, const struct kp_profile *p, size_t t)
{
	char key[KP_KEY_LEN];
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
		got = kp_keymap_get(&r->m, kp_site_key(&p->sites[i], key,
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
	kp_keymap_free(&r->m);
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
	if (kp_keymap_init(&r.m, 1024))
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
