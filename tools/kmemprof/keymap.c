// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the one hash table (keymap.h), strings to the indexes
 * they were added at, with glibc's hsearch_r: diff.c's matching of sites
 * (and top -s age's), series.c's rows, pprof.c's string table and
 * interned functions, locations and mappings, resolve.c's modules.
 */
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"

int kp_keymap_init(struct kp_keymap *m, size_t max)
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
static int keymap_grow(struct kp_keymap *m)
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

void kp_keymap_free(struct kp_keymap *m)
{
	size_t i;

	hdestroy_r(&m->h);
	for (i = 0; i < m->n; i++)
		free(m->keys[i]);
	free(m->keys);
}

long kp_keymap_get(struct kp_keymap *m, const char *key, bool add,
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
