// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the growth between two snapshots (diff), and the rates
 * between two reads built on it (watch, top -s rate).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "profile.h"
#include "util.h"

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

int kp_tagkeys_init(struct kp_tagkeys *t, size_t max)
{
	t->count = calloc(max + 1, sizeof(*t->count));
	t->cap = max + 1;
	if (!t->count || kp_keymap_init(&t->seen, max)) {
		free(t->count);
		return -1;
	}
	return 0;
}

void kp_tagkeys_free(struct kp_tagkeys *t)
{
	kp_keymap_free(&t->seen);
	free(t->count);
}

const char *kp_tagkey(struct kp_tagkeys *t, const struct kp_site *s,
		      char *buf, size_t len)
{
	char key[KP_KEY_LEN];
	bool added;
	long k;

	kp_site_key(s, key, sizeof(key));
	k = kp_keymap_get(&t->seen, key, true, &added);
	if (k < 0)
		return NULL;
	if ((size_t)k >= t->cap) {
		size_t cap = 2 * t->cap;
		long *v = realloc(t->count, cap * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + t->cap, 0, (cap - t->cap) * sizeof(*v));
		t->count = v;
		t->cap = cap;
	}
	if (t->count[k]++)
		snprintf(buf, len, "%s #%ld", key, t->count[k]);
	else
		snprintf(buf, len, "%s", key);
	return buf;
}

/* The numbered key of each site of @p (kp_tagkey()), in its order. */
static char **numbered_keys(const struct kp_profile *p)
{
	char **keys = calloc(p->n + 1, sizeof(*keys));
	char key[KP_KEY_LEN + 24];
	struct kp_tagkeys t;
	size_t i;

	if (!keys || kp_tagkeys_init(&t, p->n)) {
		free(keys);
		return NULL;
	}
	for (i = 0; i < p->n; i++)
		if (!kp_tagkey(&t, &p->sites[i], key, sizeof(key)) ||
		    !(keys[i] = strdup(key)))
			break;
	kp_tagkeys_free(&t);
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
	struct kp_keymap m;
	size_t i;
	bool added;
	long k;

	memset(d, 0, sizeof(*d));
	if (!ka || !kb || kp_keymap_init(&m, a->n + b->n)) {
		keys_free(ka, a->n);
		keys_free(kb, b->n);
		return -1;
	}
	d->v = calloc(a->n + b->n + 1, sizeof(*d->v));
	if (!d->v)
		goto oom;
	for (i = 0; i < a->n; i++) {
		k = kp_keymap_get(&m, ka[i], true, &added);
		if (k < 0)
			goto oom;
		d->v[k].a = &a->sites[i];
	}
	for (i = 0; i < b->n; i++) {
		k = kp_keymap_get(&m, kb[i], true, &added);
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
	kp_keymap_free(&m);
	keys_free(ka, a->n);
	keys_free(kb, b->n);
	return 0;
oom:
	kp_keymap_free(&m);
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
