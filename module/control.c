// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the state the knobs change: enabled, events and reset.
 *
 * Notes on locking: kmp_control_lock (mutex) serialises every change of
 * state, including attaching and detaching probes, the mode word and its
 * static key, so the knobs, module load and unload, and the KUnit suites
 * never race each other. The views that walk the live table hold it too
 * (kmp_walk_views()), so a reset never empties the table under a walk. It
 * is only taken in process context and never on the allocation path.
 *
 * kmp_mode changes only here, with the lock held; the probes read it with
 * READ_ONCE() behind kmp_opts_key (probes.h). A probe that runs across a
 * change sees the old mode or the new one for that event, never a mix that
 * matters: every table is shared by both paths.
 *
 * Pairing needs both ends of an object's life. When the probes of a kind
 * are detached, any object of that kind still live may be freed unseen, so
 * every tag with live objects of that kind is marked inaccurate. Objects
 * allocated while detached and freed later count as unpaired frees, but
 * for page blocks: each time the page probes are attached, the blocks
 * allocated meanwhile are entered on the before-load tags (prior.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/tracepoint.h>

#include "internal.h"
#include "options.h"
#include "owners.h"
#include "stacks.h"
#include "stat.h"

static DEFINE_MUTEX(kmp_control_lock);
static bool kmp_enabled;
static unsigned int kmp_kinds = KMP_KIND_ALL;
/* The kinds whose probes and hooks are attached now. */
static unsigned int kmp_attached;

/*
 * Rebuild kmp_mode from the knobs. With kmp_control_lock held. The pools
 * an option needs are allocated the first time it is on: -ENOMEM, with
 * the mode unchanged, if they cannot be.
 */
int kmp_mode_update(void)
{
	unsigned int m = 0, pub;
	bool times_on, owners_on;
	int ret;

	lockdep_assert_held(&kmp_control_lock);
	if (READ_ONCE(kmp_hist_on))
		m |= KMP_M_HIST;
	if (READ_ONCE(kmp_life_on))
		m |= KMP_M_LIFE;
	if (READ_ONCE(kmp_timing_on))
		m |= KMP_M_TIMING;
	if (READ_ONCE(kmp_stack_depth))
		m |= KMP_M_STACKS;
	if (READ_ONCE(kmp_key_depth))
		m |= KMP_M_KEY;
	if (READ_ONCE(kmp_sample_rate) > 1)
		m |= KMP_M_SAMPLE;
	if (READ_ONCE(kmp_min_size) || READ_ONCE(kmp_max_size))
		m |= KMP_M_FILTER;
	if (READ_ONCE(kmp_owners))
		m |= KMP_M_OWNERS;
	if (READ_ONCE(kmp_owners) == KMP_OWNERS_CGROUP)
		m |= KMP_M_CGROUP;
	ret = (m & KMP_M_HIST) ? kmp_hist_init() : 0;
	if (!ret && (m & KMP_M_STACKS))
		ret = kmp_stacks_init();
	/*
	 * Objects' times, from off to on: the live table's times, made or
	 * zeroed before the mode and kmp_time_key (live.c's notes say why).
	 */
	times_on = (m & (KMP_M_HIST | KMP_M_LIFE)) &&
		   !(kmp_mode & (KMP_M_HIST | KMP_M_LIFE));
	if (!ret && times_on)
		ret = kmp_live_times_on();
	/*
	 * Owners, from off to on or from one kind to the other: the tables
	 * and the live table's owner lines made, and the owner bits kept out
	 * of the mode until the fast paths are off and every probe that may
	 * have read the old mode has finished (owners.c's and live.c's
	 * notes say why); the mode is published without them below, and
	 * with them at the end.
	 */
	owners_on = (m & KMP_M_OWNERS) &&
		    (m & (KMP_M_OWNERS | KMP_M_CGROUP)) !=
		    (kmp_mode & (KMP_M_OWNERS | KMP_M_CGROUP));
	if (!ret && owners_on)
		ret = kmp_owners_init();
	if (!ret && owners_on)
		ret = kmp_live_owners_on();
	if (ret)
		return ret;
	pub = owners_on ? m & ~(KMP_M_OWNERS | KMP_M_CGROUP) : m;
	/* the pools above before the mode: pairs with kmp_walk_fast() */
	smp_store_release(&kmp_mode, pub);
	/* stacks or key_depth with sample_rate: the general path (probes.h) */
	if ((m & ~KMP_M_FAST) ||
	    ((m & (KMP_M_STACKS | KMP_M_KEY)) && (m & KMP_M_SAMPLE)))
		static_branch_enable(&kmp_slow_key);
	else
		static_branch_disable(&kmp_slow_key);
	if (m & (KMP_M_HIST | KMP_M_LIFE))
		static_branch_enable(&kmp_time_key);
	else
		static_branch_disable(&kmp_time_key);
	if (m & KMP_M_SAMPLE)
		static_branch_enable(&kmp_sample_key);
	else
		static_branch_disable(&kmp_sample_key);
	if ((m & (KMP_M_STACKS | KMP_M_KEY)) && !(m & KMP_M_SAMPLE))
		static_branch_enable(&kmp_stack_key);
	else
		static_branch_disable(&kmp_stack_key);
	/*
	 * Last: a probe at the defaults' copy across the change serves its
	 * event at the old mode, as a probe that read the other keys before
	 * they changed would.
	 */
	if (static_key_enabled(&kmp_slow_key) ||
	    static_key_enabled(&kmp_time_key) ||
	    static_key_enabled(&kmp_stack_key))
		static_branch_enable(&kmp_opts_key);
	else
		static_branch_disable(&kmp_opts_key);
	/* and again once no untimed copy runs (live.c's notes say why) */
	if (times_on || owners_on)
		tracepoint_synchronize_unregister();
	if (times_on)
		kmp_live_times_zero();
	if (owners_on) {
		kmp_live_owners_zero();
		kmp_owners_clear();
		/* the tables empty before the owner bits: pairs with READ_ONCE */
		smp_store_release(&kmp_mode, m);
	}
	return 0;
}

/*
 * Set an option's knob to @val if @ok (NULL: any value) takes it, the
 * test and the store under kmp_control_lock, so that knobs that bound each
 * other (min_size, max_size) are never left crossed by two writers; the
 * mode follows. -EINVAL, with nothing changed, if @ok refuses; -ENOMEM
 * if the option's pool cannot be had.
 */
int kmp_set_option_if(unsigned int *var, unsigned int val,
		      bool (*ok)(unsigned int val))
{
	unsigned int old;
	int ret = 0;

	mutex_lock(&kmp_control_lock);
	old = *var;
	if (ok && !ok(val)) {
		ret = -EINVAL;
	} else {
		WRITE_ONCE(*var, val);
		ret = kmp_mode_update();
		if (ret)	/* nothing changed: the old value back */
			WRITE_ONCE(*var, old);
	}
	mutex_unlock(&kmp_control_lock);
	return ret;
}

/* owners=0, task or cgroup (enum kmp_owners_kind); the mode follows. */
int kmemprof_set_owners(unsigned int val)
{
	if (val >= KMP_OWNERS_NR)
		return -EINVAL;
	return kmemprof_set_option(&kmp_owners, val);
}

kmp_export_test_hook(kmemprof_set_owners);

/* Set an option's knob; the mode follows. */
int kmemprof_set_option(unsigned int *var, unsigned int val)
{
	return kmp_set_option_if(var, val, NULL);
}

/*
 * A view's walk of the live table (ages, leaks): under kmp_control_lock,
 * so that a reset, which empties the table, waits for it. -EINTR if the
 * reader was interrupted waiting.
 */
int kmp_walk_views(void (*fn)(unsigned long key, const struct kmp_obj *obj,
			      void *priv), void *priv)
{
	if (mutex_lock_interruptible(&kmp_control_lock))
		return -EINTR;
	kmp_live_walk(fn, priv);
	mutex_unlock(&kmp_control_lock);
	return 0;
}

/*
 * The owners view's walk of the lines (debugfs.c): @fn on each line's
 * index while owners are on, under kmp_control_lock, so that no clear
 * empties the tables under it. The cgroup paths still to be made are
 * made first. -EINTR if the reader was interrupted waiting, -ENODATA
 * while owners are off.
 */
int kmp_walk_owner_lines(void (*fn)(u32 idx, void *priv), void *priv)
{
	u32 i, used;
	int ret = 0;

	if (mutex_lock_interruptible(&kmp_control_lock))
		return -EINTR;
	if (!(kmp_mode & KMP_M_OWNERS)) {
		ret = -ENODATA;
		goto out;
	}
	kmp_owners_name_pending();
	used = kmp_olines_used();
	for (i = 1; i < used; i++)
		fn(i, priv);
out:
	mutex_unlock(&kmp_control_lock);
	return ret;
}

/* The kinds that have no hook (hooks.c): percpu. */
#define KMP_UNHOOKED_KINDS	BIT(KMP_KIND_PERCPU)

/*
 * The probes and the hooks of @kinds attached when @enabled, the others
 * detached. What ends or moves objects (frees, migration) goes on before
 * the allocations and off after them, so that an allocation is seen only
 * while its free will be: kinds pair apart, and in one call each kind goes
 * one way. Once all are detached, the records that NMI events left
 * (nmi.c) are applied, so none outlives them. On error the probes are as
 * they were; a hook that cannot be attached is left out (hooks.c).
 *
 * A kind with no hooks (percpu) changes its frees next to its allocations,
 * apart from the hooks' changes: on just before them, off just after
 * them, before any hook goes off. Taking an ftrace hook off waits for an
 * RCU Tasks Rude grace period, and on 5.10 to 6.x that grace period's
 * schedule_on_each_cpu() allocates and frees a percpu area. With
 * the percpu free probe on and its allocation probe off, each was an
 * unpaired free of kmemprof's own making (5 a disable on 6.1).
 */
static int kmp_attach(bool enabled, unsigned int kinds)
{
	unsigned int on = enabled ? kinds : 0, was = kmp_attached;
	bool walk = on & ~was & BIT(KMP_KIND_PAGE);
	int ret;

	/* a block freed before the walk reached it is from before (prior.c) */
	if (walk)
		kmp_prior_begin();
	/* the frees of the kinds going on (none go off here) */
	ret = kmp_probes_set(was | (on & ~KMP_UNHOOKED_KINDS), true);
	if (ret)
		goto fail;
	kmp_hooks_set(on | was, true, true);
	/*
	 * The allocations: on for the kinds going on, off for the others; a
	 * kind with no hooks has its frees put on just before.
	 */
	ret = kmp_probes_set(on | was, true);
	if (!ret)
		ret = kmp_probes_set(on, false);
	if (ret) {
		kmp_hooks_set(was, true, false);
		kmp_probes_set(was, true);
		goto fail;
	}
	kmp_probes_set(on | (was & ~on & ~KMP_UNHOOKED_KINDS), true);
	kmp_hooks_set(on, false, true);
	/*
	 * The frees of the kinds going off, once their allocations are. Off
	 * only: a free's hook refused above is not tried again here, after
	 * the allocations, whose objects freed through it before it went on
	 * would stay live; it is tried at the next attach.
	 */
	kmp_hooks_set(on, true, false);
	kmp_probes_set(on, true);
	kmp_hooks_moves(on);
	kmp_attached = on;
	if (!enabled)
		kmp_nmi_sync(true);
	/* the page blocks allocated while their probes were not attached */
	if (walk)
		kmp_prior_scan();
	return 0;
fail:
	if (walk)
		kmp_prior_end();
	return ret;
}

int kmemprof_set_enabled(bool on)
{
	int ret = 0;

	mutex_lock(&kmp_control_lock);
	if (on != kmp_enabled) {
		ret = kmp_attach(on, kmp_kinds);
		if (!ret) {
			kmp_enabled = on;
			if (!on)
				kmp_account_mark_live(kmp_kinds);
		}
	}
	mutex_unlock(&kmp_control_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kmemprof_set_enabled);

bool kmemprof_is_enabled(void)
{
	return READ_ONCE(kmp_enabled);
}
EXPORT_SYMBOL_GPL(kmemprof_is_enabled);

int kmemprof_set_events(unsigned int kinds)
{
	int ret = 0;

	if (kinds & ~KMP_KIND_ALL)
		return -EINVAL;
	mutex_lock(&kmp_control_lock);
	if (kmp_enabled)
		ret = kmp_attach(true, kinds);
	if (!ret) {
		if (kmp_enabled)
			kmp_account_mark_live(kmp_kinds & ~kinds);
		WRITE_ONCE(kmp_kinds, kinds);
	}
	mutex_unlock(&kmp_control_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kmemprof_set_events);

unsigned int kmemprof_events(void)
{
	return READ_ONCE(kmp_kinds);
}
EXPORT_SYMBOL_GPL(kmemprof_events);

/* At unload, after the knobs are gone: detach for good. */
void kmp_control_exit(void)
{
	mutex_lock(&kmp_control_lock);
	kmp_attach(false, 0);
	kmp_enabled = false;
	static_branch_disable(&kmp_slow_key);
	static_branch_disable(&kmp_time_key);
	static_branch_disable(&kmp_stack_key);
	static_branch_disable(&kmp_opts_key);
	mutex_unlock(&kmp_control_lock);
}

/*
 * A paired free counts for sample_rate frees; objects tracked under the
 * old rate would be counted under the new one, so their tags are marked.
 */
int kmemprof_set_sample_rate(unsigned int rate)
{
	unsigned int old;
	int ret = 0;

	if (!rate)
		return -EINVAL;
	mutex_lock(&kmp_control_lock);
	old = kmp_sample_rate;
	if (rate != old) {
		WRITE_ONCE(kmp_sample_rate, rate);
		ret = kmp_mode_update();
		if (ret)	/* nothing changed: the old rate back */
			WRITE_ONCE(kmp_sample_rate, old);
		else
			kmp_account_mark_live(KMP_KIND_ALL);
	}
	mutex_unlock(&kmp_control_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kmemprof_set_sample_rate);

#if KMP_TEST_HOOKS
/*
 * For the KUnit suites: the re-attach scan (prior.c) again, as an attach
 * of the page probes runs it, with nothing detached. -ENODEV where they
 * are not attached.
 */
int kmp_control_rescan(void)
{
	int ret = -ENODEV;

	mutex_lock(&kmp_control_lock);
	if (kmp_attached & BIT(KMP_KIND_PAGE)) {
		kmp_prior_scan();
		ret = 0;
	}
	mutex_unlock(&kmp_control_lock);
	return ret;
}
#endif

/*
 * Zero every counter and empty the live table. The probes are detached
 * for the moment it takes, so no event sees the tables half reset.
 */
int kmemprof_reset(void)
{
	int ret = 0;

	mutex_lock(&kmp_control_lock);
	if (kmp_enabled)
		kmp_attach(false, 0);
	kmp_account_clear();
	kmp_owners_clear();
	kmp_tags_reset();
	kmp_hist_reset();
	kmp_stacks_reset();
	kmp_stats_reset();
	if (kmp_enabled) {
		ret = kmp_attach(true, kmp_kinds);
		if (ret)
			kmp_enabled = false;
	}
	mutex_unlock(&kmp_control_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kmemprof_reset);

/* The probes' per-CPU buffers, on all possible CPUs. */
size_t kmp_cpu_bufs_memory(void)
{
	return kmp_callsite_memory() + kmp_account_memory() +
	       kmp_nmi_memory();
}

/* kmemprof's own memory: its tables, all allocated at load. */
size_t kmp_self_memory(void)
{
	return kmp_tags_memory() + kmp_live_memory() + kmp_hist_memory() +
	       kmp_stacks_memory() + kmp_pfnmap_memory() + kmp_owners_memory() +
	       kmp_cpu_bufs_memory();
}
