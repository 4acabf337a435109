/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: nmi.c's inline half, for the general path of every probe
 * (probes.c): the test, before an event, that no record of an event in
 * NMI on the same key is still to be settled. See nmi.c for the records,
 * their ring and why program order is enough.
 */
#ifndef _KMEMPROF_NMI_H
#define _KMEMPROF_NMI_H

#include <linux/atomic.h>

#include "tables.h"

/*
 * Records of events in NMI whose table work is still to do, counted by
 * the hash of their key. The general path settles those of its event's
 * key before it takes the event (nmi.c says why and in what order).
 */
#define KMP_NMI_KEY_BITS	8
extern atomic_t kmp_nmi_keys[1 << KMP_NMI_KEY_BITS];

static __always_inline atomic_t *kmp_nmi_key_count(unsigned long key)
{
	return &kmp_nmi_keys[kmp_hash(key) >> (32 - KMP_NMI_KEY_BITS)];
}

void __kmp_nmi_settle(unsigned long key, unsigned long below);

/* On the general path, with interrupts off, before an event on @key. */
static __always_inline void kmp_nmi_settle(unsigned long key)
{
	/* pairs with the release in kmp_nmi_finish() */
	if (unlikely(atomic_read_acquire(kmp_nmi_key_count(key))))
		__kmp_nmi_settle(key, ULONG_MAX);
}

#endif /* _KMEMPROF_NMI_H */
