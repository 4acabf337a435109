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
	char key[KP_KEY_LEN], num[24];
	struct kp_keymap seen;
	size_t i;
	bool added;
	long k;

	if (!keys || !count || kp_keymap_init(&seen, p->n)) {
		free(keys);
		free(count);
		return NULL;
	}
	for (i = 0; i < p->n; i++) {
		kp_site_key(&p->sites[i], key, sizeof(key));
		k = kp_keymap_get(&seen, key, true, &added);
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
	kp_keymap_free(&seen);
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
