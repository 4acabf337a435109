// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the owners view's lines summed per owner, over the
 * sites (top --by owner, the owner series, kmemprof owners' totals). An
 * owner is its kp_oline.owner: two lines of one name are one owner (a
 * tgid used again by a later process, a cgroup made again at the same
 * path), as the series, which are named by it, must be.
 */
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "profile.h"

int kp_owner_sums(const struct kp_owners *o, const bool *keep,
		  struct kp_osum **v, size_t *n)
{
	struct kp_osum *s = calloc(o->n + 1, sizeof(*s));
	struct kp_keymap m;
	size_t i;
	bool added;
	long k;

	*v = NULL;
	*n = 0;
	if (!s || kp_keymap_init(&m, o->n)) {
		free(s);
		return -1;
	}
	for (i = 0; i < o->n; i++) {
		const struct kp_oline *l = &o->v[i];

		if (keep && !keep[i])
			continue;
		k = kp_keymap_get(&m, l->owner, true, &added);
		if (k < 0) {
			kp_keymap_free(&m);
			free(s);
			return -1;
		}
		if (added)
			s[k] = (struct kp_osum){ .owner = l->owner,
						 .type = l->type };
		s[k].bytes += l->tag.bytes;
		s[k].objs += l->tag.objs;
		s[k].allocs += l->tag.allocs > 0 ? l->tag.allocs : 0;
		s[k].lines++;
	}
	*n = m.n;
	kp_keymap_free(&m);
	kp_osums_sort(s, *n, NULL);
	*v = s;
	return 0;
}

static int64_t osum_key(const struct kp_osum *s, enum kp_key key)
{
	switch (key) {
	case KP_OBJS:
		return s->objs;
	case KP_ALLOCS:
		return s->allocs;
	case KP_AVG:
		return s->objs > 0 ? kp_ratio_round(s->bytes, s->objs, 1) :
				     INT64_MIN;
	default:
		return s->bytes;
	}
}

static _Thread_local const struct kp_keys *osort_keys;

static int osum_cmp(const void *x, const void *y)
{
	const struct kp_osum *a = x, *b = y;
	size_t i;

	for (i = 0; i < osort_keys->n; i++) {
		int64_t va = osum_key(a, osort_keys->k[i]);
		int64_t vb = osum_key(b, osort_keys->k[i]);

		if (va != vb)
			return va < vb ? 1 : -1;
	}
	return strcmp(a->owner, b->owner);
}

void kp_osums_sort(struct kp_osum *v, size_t n, const struct kp_keys *keys)
{
	static const struct kp_keys by_bytes = { { KP_BYTES }, 1 };

	osort_keys = keys && keys->n ? keys : &by_bytes;
	qsort(v, n, sizeof(*v), osum_cmp);
}
