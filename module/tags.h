/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: tags.c's inline half, the lock-free lookup in the tag hash,
 * for tags.c and the fast paths (probes.h) alike. See tags.c for the hash
 * and its notes on locking.
 */
#ifndef _KMEMPROF_TAGS_H
#define _KMEMPROF_TAGS_H

#include <linux/hash.h>
#include <linux/rculist.h>

#include "internal.h"

/* The tags, by index (kmp_tag_find_or_create() hands them out). */
extern struct kmp_tag *kmp_tag_pool;

static inline struct kmp_tag *kmp_tag_at(u32 idx)
{
	return &kmp_tag_pool[idx];
}

static inline u32 kmp_tag_index(const struct kmp_tag *tag)
{
	return tag - kmp_tag_pool;
}

/*
 * Set flag @bit of @tag, once: the test first, so that a flag already set
 * costs a read of the word and not an atomic write of its cache line at
 * every event.
 */
static __always_inline void kmp_tag_set_flag(struct kmp_tag *tag,
					     unsigned int bit)
{
	if (unlikely(!test_bit(bit, &tag->flags)))
		set_bit(bit, &tag->flags);
}

/* @tag's histogram slot for the readers: KMP_NIL where it has none yet. */
static inline u32 kmp_tag_hist(const struct kmp_tag *tag)
{
	u32 h = READ_ONCE(tag->hist);

	return h == KMP_HIST_UNSET ? KMP_NIL : h;
}

/* tags.c: the tag hash, set at load before any probe is attached. */
extern struct hlist_head *kmp_tag_hash;
extern unsigned int kmp_tag_bits;

/*
 * The tag hash's bucket of (@site, @kind, the first @n @callers), for
 * tags.c and the fast paths alike.
 */
static __always_inline u32 kmp_tag_bucket_of_key(unsigned long site,
						 enum kmp_kind kind,
						 const unsigned long *callers,
						 unsigned int n)
{
	unsigned long h = site + kind;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = h * 31 + callers[i];
	return hash_long(h, kmp_tag_bits);
}

/*
 * The tag of that key in @bucket's chain, into *@tp. Lock-free, in an
 * RCU read section or with interrupts off: see tags.c. (A bool, as
 * kmp_site_lookup() is, so that a tag found is known not to be NULL.)
 */
static __always_inline bool kmp_tag_lookup(u32 bucket, unsigned long site,
					   enum kmp_kind kind,
					   const unsigned long *callers,
					   unsigned int n,
					   struct kmp_tag **tp)
{
	struct kmp_tag *tag;
	unsigned int i;

	hlist_for_each_entry_rcu(tag, &kmp_tag_hash[bucket], hnode) {
		if (tag->site != site || tag->kind != kind ||
		    tag->ncallers != n)
			continue;
		for (i = 0; i < n && tag->callers[i] == callers[i]; i++)
			;
		if (i == n) {
			*tp = tag;
			return true;
		}
	}
	return false;
}

#endif /* _KMEMPROF_TAGS_H */
