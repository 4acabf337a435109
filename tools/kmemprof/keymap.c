// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the one hash table (keymap.h), strings to the indexes
 * they were added at: diff.c's matching of sites (and top -s age's),
 * series.c's rows, pprof.c's string table and interned functions,
 * locations and mappings, resolve.c's modules.
 *
 * Open addressing with linear probing over FNV-1a, at most half full (as
 * pprof.c had its own). Not glibc's hsearch_r, which this replaced: its
 * hash is the string's first eight bytes or so, and site keys share
 * theirs ("func_123+0x..." and every "__kmalloc..."), so --pprof of 100k
 * sites took 3.3 times as long through it as through this (2.3 s, not
 * 0.7 s), and diff of two of them twice as long; and it cannot grow.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* @nslot slots (a power of two), the keys entered again. */
static int rehash(struct kp_keymap *m, size_t nslot)
{
	size_t *slot = calloc(nslot, sizeof(*slot)), i, j;

	if (!slot)
		return -1;
	for (i = 0; i < m->n; i++) {
		for (j = hash(m->keys[i]) & (nslot - 1); slot[j];
		     j = (j + 1) & (nslot - 1))
			;
		slot[j] = i + 1;
	}
	free(m->slot);
	m->slot = slot;
	m->nslot = nslot;
	return 0;
}

int kp_keymap_init(struct kp_keymap *m, size_t max)
{
	size_t nslot = 16;

	memset(m, 0, sizeof(*m));
	m->cap = max ? max : 1;
	while (nslot < 2 * m->cap)
		nslot *= 2;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	if (!m->keys || rehash(m, nslot)) {
		free(m->keys);
		m->keys = NULL;
		return -1;
	}
	return 0;
}

void kp_keymap_free(struct kp_keymap *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

long kp_keymap_get(struct kp_keymap *m, const char *key, bool add,
		   bool *added)
{
	size_t j, mask = m->nslot - 1;
	char *dup;

	*added = false;
	for (j = hash(key) & mask; m->slot[j]; j = (j + 1) & mask)
		if (!strcmp(m->keys[m->slot[j] - 1], key))
			return (long)(m->slot[j] - 1);
	if (!add)
		return -1;
	if (m->n == m->cap) {
		char **keys = realloc(m->keys, 2 * m->cap * sizeof(*keys));

		if (!keys)
			return -1;
		m->keys = keys;
		m->cap *= 2;
	}
	dup = strdup(key);
	if (!dup)
		return -1;
	m->keys[m->n] = dup;
	m->slot[j] = ++m->n;
	/* At most half full: a probe ends soon at an empty slot. */
	if (2 * m->n > m->nslot && rehash(m, 2 * m->nslot)) {
		m->slot[j] = 0;
		free(m->keys[--m->n]);
		return -1;
	}
	*added = true;
	return (long)(m->n - 1);
}
