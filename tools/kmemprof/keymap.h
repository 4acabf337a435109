/* SPDX-License-Identifier: GPL-2.0 */
/* kmemprof reader: the one hash table, strings to indexes (keymap.c). */
#ifndef KP_KEYMAP_H
#define KP_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>

/* Room for a site key (kp_site_key()). */
#define KP_KEY_LEN 1024

/* Keys (site keys, pprof's strings, module names) numbered 0, 1, ... */
struct kp_keymap {
	char **keys;		/* by index */
	size_t n, cap;		/* keys held, room for (kp_keymap_get grows it) */
	size_t *slot;		/* the hash: index + 1, 0 empty */
	size_t nslot;		/* a power of two, at least twice n */
};

/* Room for @max keys to begin with; -1 on ENOMEM. */
int kp_keymap_init(struct kp_keymap *m, size_t max);
void kp_keymap_free(struct kp_keymap *m);
/* The index of @key, added as the next one if new; -1 on ENOMEM. */
long kp_keymap_get(struct kp_keymap *m, const char *key, bool add,
		   bool *added);

#endif /* KP_KEYMAP_H */
