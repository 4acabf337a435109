// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the state the knobs change: enabled, events and reset.
 *
 * Notes on locking: kmp_control_lock (mutex) serialises every change of
 * state, including attaching and detaching probes, so the knobs, module
 * load and unload, and the KUnit suites never race each other. It is only
 * taken in process context and never on the allocation path.
 *
 * Pairing needs both ends of an object's life. When the probes of a kind
 * are detached, any object of that kind still live may be freed unseen, so
 * every tag with live objects of that kind is marked inaccurate. Objects
 * allocated while detached and freed later count as unpaired frees.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>

#include <kmemprof/kmemprof.h>

static DEFINE_MUTEX(kmp_control_lock);
static bool kmp_enabled;
static unsigned int kmp_kinds = KMP_KIND_ALL;

int kmemprof_set_enabled(bool on)
{
	int ret = 0;

	mutex_lock(&kmp_control_lock);
	if (on != kmp_enabled) {
		ret = kmp_probes_set(on, kmp_kinds);
		if (!ret) {
			kmp_enabled = on;
			if (!on)
				kmp_live_mark_tags(kmp_kinds);
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
		ret = kmp_probes_set(true, kinds);
	if (!ret) {
		if (kmp_enabled)
			kmp_live_mark_tags(kmp_kinds & ~kinds);
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
	kmp_probes_set(false, 0);
	kmp_enabled = false;
	mutex_unlock(&kmp_control_lock);
}

/*
 * A paired free counts for sample_rate frees; objects tracked under the
 * old rate would be counted under the new one, so their tags are marked.
 */
int kmemprof_set_sample_rate(unsigned int rate)
{
	if (!rate)
		return -EINVAL;
	mutex_lock(&kmp_control_lock);
	if (rate != kmp_sample_rate) {
		WRITE_ONCE(kmp_sample_rate, rate);
		kmp_live_mark_tags(KMP_KIND_ALL);
	}
	mutex_unlock(&kmp_control_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(kmemprof_set_sample_rate);

/*
 * Zero every counter and empty the live table. The probes are detached
 * for the moment it takes, so no event sees the tables half reset.
 */
int kmemprof_reset(void)
{
	int ret = 0;

	mutex_lock(&kmp_control_lock);
	if (kmp_enabled)
		kmp_probes_set(false, 0);
	kmp_live_clear();
	kmp_tags_reset();
	kmp_hist_reset();
	kmp_stacks_reset();
	kmp_stats_reset();
	kmp_events_reset();
	if (kmp_enabled) {
		ret = kmp_probes_set(true, kmp_kinds);
		if (ret)
			kmp_enabled = false;
	}
	mutex_unlock(&kmp_control_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kmemprof_reset);
