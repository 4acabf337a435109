// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: what the test points read (testpoints.h), in the test build
 * alone: set by the KUnit suites through testhooks.c.
 *
 * Notes on locking: each pointer and bound is written with WRITE_ONCE()
 * by a suite, between its cases, and read once with READ_ONCE() at its
 * point; kmp_test_watch[1] is cleared first and set last, so that a
 * point between the writes counts nothing.
 */
#include <linux/sched.h>

#include <kmemprof/test.h>
#include "testpoints.h"

kmp_clock_t *kmp_clock;
void (*kmp_knob_test_point)(const char *name, unsigned int val);
void (*kmp_live_test_point)(unsigned long key);
unsigned long kmp_test_watch[2];
enum kmp_kind kmp_test_watch_kind;
atomic_t kmp_test_watched = ATOMIC_INIT(0);

void kmp_test_watch_site(enum kmp_kind kind, unsigned long site)
{
	if (kind == READ_ONCE(kmp_test_watch_kind) &&
	    site >= READ_ONCE(kmp_test_watch[0]) &&
	    site < READ_ONCE(kmp_test_watch[1]))
		atomic_inc(&kmp_test_watched);
}

/* A clock of the suites' own; NULL resets. */
void kmp_clock_set(kmp_clock_t *clock)
{
	WRITE_ONCE(kmp_clock, clock);
}

/*
 * kmp_stack_key_on() (stacks.h) as when the stacks' key turns off between two
 * tests of it: the jump labels are patched one site at a time, and a CPU
 * may run one site old and the next new. kmemprof_test_stacked_off(n)
 * makes the n-th test of the key by this task, and every later one,
 * read it off; 0 ends it. Other tasks and interrupts see the key as it is.
 */
int kmp_stacked_test;
static struct task_struct *kmp_stacked_task;
static unsigned int kmp_stacked_left;

bool kmp_stacked_test_off(void)
{
	if (!in_task() || current != READ_ONCE(kmp_stacked_task))
		return false;
	if (kmp_stacked_left) {
		kmp_stacked_left--;
		return false;
	}
	return true;
}

void kmemprof_test_stacked_off(unsigned int n)
{
	WRITE_ONCE(kmp_stacked_test, 0);
	WRITE_ONCE(kmp_stacked_task, NULL);
	if (!n)
		return;
	kmp_stacked_left = n - 1;
	WRITE_ONCE(kmp_stacked_task, current);
	WRITE_ONCE(kmp_stacked_test, 1);
}

kmp_export_test_hook(kmemprof_test_stacked_off);
