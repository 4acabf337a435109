/* SPDX-License-Identifier: GPL-2.0 */
/* kmemprof reader: the one redaction of what leaves the machine (redact.c). */
#ifndef KP_REDACT_H
#define KP_REDACT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define KP_REDACT_MAX 1024	/* addresses numbered; "unknown" beyond */

/* The addresses met so far, numbered from 1 in the order met. */
struct kp_redactor {
	pthread_mutex_t lock;	/* @addrs and @n: serve's threads share one */
	uint64_t addrs[KP_REDACT_MAX];
	size_t n;
};

struct kp_profile;
struct kp_stacks;
struct kp_owners;

void kp_redactor_init(struct kp_redactor *r);
void kp_redactor_destroy(struct kp_redactor *r);
/*
 * Each word of @s (after its start, a blank or a comma) that is a kernel
 * address, "0x" and 8 or more hex digits or 16 hex digits bare, becomes
 * "unknown#N" (or "unknown" where that does not fit), in place. @s may
 * be NULL.
 */
void kp_redact(struct kp_redactor *r, char *s);
/* Every site, function and caller of @p; every frame and tag of @st. */
void kp_redact_profile(struct kp_redactor *r, struct kp_profile *p);
void kp_redact_stacks(struct kp_redactor *r, struct kp_stacks *st);
/* Every owner line's tag, so that it still matches its site's. */
void kp_redact_owners(struct kp_redactor *r, struct kp_owners *o);

#endif /* KP_REDACT_H */
