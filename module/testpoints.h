/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the test points, the places where the test build's KUnit
 * suites (testhooks.c) step into the module's own code: a clock of their
 * own, a key read off from a chosen test of it, a call between a knob's
 * check and its store or between a walk's reads of an entry, a count of
 * the allocations at watched sites, the order of attaches. testpoints.c
 * holds what they read; in the module that is installed (KMP_TEST_HOOKS
 * 0) every point is an empty inline, and no code is left of it.
 */
#ifndef _KMEMPROF_TESTPOINTS_H
#define _KMEMPROF_TESTPOINTS_H

#include <linux/atomic.h>
#include <linux/compiler.h>

#include <kmemprof/kmemprof.h>
#include "internal.h"

#if KMP_TEST_HOOKS
extern kmp_clock_t *kmp_clock;
extern int kmp_stacked_test;
extern void (*kmp_knob_test_point)(const char *name, unsigned int val);
extern void (*kmp_live_test_point)(unsigned long key);
extern unsigned long kmp_test_watch[2];
extern enum kmp_kind kmp_test_watch_kind;
extern atomic_t kmp_test_watched;

bool kmp_stacked_test_off(void);
void kmp_clock_set(kmp_clock_t *clock);
void kmp_attach_logged(enum kmp_kind kind, bool frees, bool attach); /* probes.c */

/* The suites' clock, or NULL for the module's own (clock.h). */
static __always_inline kmp_clock_t *kmp_test_clock(void)
{
	return READ_ONCE(kmp_clock);
}

/* kmp_stack_key_on() reads the key off at this test of it (stacks.h). */
static __always_inline bool kmp_test_stacked_off(void)
{
	return unlikely(READ_ONCE(kmp_stacked_test)) && kmp_stacked_test_off();
}

/* Between a bound's check and its store (knobs.c). */
static inline void kmp_knob_checked(const char *name, unsigned int val)
{
	typeof(kmp_knob_test_point) fn = READ_ONCE(kmp_knob_test_point);

	if (fn)
		fn(name, val);
}

/* At each slot a walk finds live, between its reads of it (live.c). */
static inline void kmp_walk_test_point(unsigned long key)
{
	typeof(kmp_live_test_point) fn = READ_ONCE(kmp_live_test_point);

	if (fn)
		fn(key);
}

/*
 * An allocation the general path takes (account.c), counted if it is of
 * kind kmp_test_watch_kind at a site in [kmp_test_watch[0],
 * kmp_test_watch[1]).
 */
void kmp_test_watch_site(enum kmp_kind kind, unsigned long site);
#else
static __always_inline kmp_clock_t *kmp_test_clock(void)
{
	return NULL;
}

static __always_inline bool kmp_test_stacked_off(void)
{
	return false;
}

static inline void kmp_knob_checked(const char *name, unsigned int val)
{
}

static inline void kmp_walk_test_point(unsigned long key)
{
}

static inline void kmp_test_watch_site(enum kmp_kind kind, unsigned long site)
{
}

static inline void kmp_attach_logged(enum kmp_kind kind, bool frees,
				     bool attach)
{
}
#endif

#endif /* _KMEMPROF_TESTPOINTS_H */
