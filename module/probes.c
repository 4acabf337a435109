// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: attaching to the kmem tracepoints.
 *
 * Every event is found by name with for_each_kernel_tracepoint(): only the
 * four slab events are exported as symbols, the page events never are. Each
 * probe's prototype comes from compat.h and is checked against the kernel's
 * own declaration with check_trace_callback_type_<event>(), so a mismatch is
 * a compile error, not a corrupted stack.
 *
 * Notes on locking:
 *
 * - kmp_enable_lock (mutex) serialises registering and unregistering the
 *   probes; kmp_enabled only changes under it.
 * - The probes take no lock at all. They run in any context the allocator
 *   runs in (task, softirq, hardirq, IRQs off) and only do this_cpu_*()
 *   operations, which are safe there and, on 7.x where tracepoints no
 *   longer disable preemption, safe with preemption enabled too.
 *
 * Unregistering is followed by tracepoint_synchronize_unregister(), so once
 * kmemprof_set_enabled(false) returns no probe is still running; module exit
 * relies on it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>

struct kmp_cpu_events {
	u64 count[KMP_EV_NR];
};

static DEFINE_PER_CPU(struct kmp_cpu_events, kmp_events);

static void kmp_count(enum kmp_event ev)
{
	this_cpu_inc(kmp_events.count[ev]);
}

static void kmp_probe_kmalloc(KMP_KMALLOC_PROTO)
{
	kmp_count(KMP_EV_KMALLOC);
}

static void kmp_probe_kmem_cache_alloc(KMP_CACHE_ALLOC_PROTO)
{
	kmp_count(KMP_EV_KMEM_CACHE_ALLOC);
}

static void kmp_probe_kfree(KMP_KFREE_PROTO)
{
	kmp_count(KMP_EV_KFREE);
}

static void kmp_probe_kmem_cache_free(KMP_CACHE_FREE_PROTO)
{
	kmp_count(KMP_EV_KMEM_CACHE_FREE);
}

static void kmp_probe_page_alloc(KMP_PAGE_ALLOC_PROTO)
{
	kmp_count(KMP_EV_PAGE_ALLOC);
}

static void kmp_probe_page_free(KMP_PAGE_FREE_PROTO)
{
	kmp_count(KMP_EV_PAGE_FREE);
}

struct kmp_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

static struct kmp_tp kmp_tps[KMP_EV_NR] = {
	[KMP_EV_KMALLOC]	  = { "kmalloc",	  kmp_probe_kmalloc },
	[KMP_EV_KMEM_CACHE_ALLOC] = { "kmem_cache_alloc", kmp_probe_kmem_cache_alloc },
	[KMP_EV_KFREE]		  = { "kfree",		  kmp_probe_kfree },
	[KMP_EV_KMEM_CACHE_FREE]  = { "kmem_cache_free",  kmp_probe_kmem_cache_free },
	[KMP_EV_PAGE_ALLOC]	  = { "mm_page_alloc",	  kmp_probe_page_alloc },
	[KMP_EV_PAGE_FREE]	  = { "mm_page_free",	  kmp_probe_page_free },
};

static DEFINE_MUTEX(kmp_enable_lock);
static bool kmp_enabled;

/* Compile-time only: each probe must match the kernel's TP_PROTO. */
static inline void kmp_check_protos(void)
{
	check_trace_callback_type_kmalloc(kmp_probe_kmalloc);
	check_trace_callback_type_kmem_cache_alloc(kmp_probe_kmem_cache_alloc);
	check_trace_callback_type_kfree(kmp_probe_kfree);
	check_trace_callback_type_kmem_cache_free(kmp_probe_kmem_cache_free);
	check_trace_callback_type_mm_page_alloc(kmp_probe_page_alloc);
	check_trace_callback_type_mm_page_free(kmp_probe_page_free);
}

const char *kmemprof_event_name(enum kmp_event ev)
{
	return ev < KMP_EV_NR ? kmp_tps[ev].name : "?";
}
EXPORT_SYMBOL_GPL(kmemprof_event_name);

u64 kmemprof_event_count(enum kmp_event ev)
{
	u64 sum = 0;
	int cpu;

	if (ev >= KMP_EV_NR)
		return 0;
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&kmp_events, cpu)->count[ev]);
	return sum;
}
EXPORT_SYMBOL_GPL(kmemprof_event_count);

static void kmp_unregister(int n)
{
	while (n-- > 0)
		WARN_ON_ONCE(tracepoint_probe_unregister(kmp_tps[n].tp,
							 kmp_tps[n].probe,
							 NULL));
	tracepoint_synchronize_unregister();
}

int kmemprof_set_enabled(bool on)
{
	int i, ret = 0;

	mutex_lock(&kmp_enable_lock);
	if (on == kmp_enabled)
		goto out;
	if (!on) {
		kmp_unregister(KMP_EV_NR);
		kmp_enabled = false;
		goto out;
	}
	for (i = 0; i < KMP_EV_NR; i++) {
		ret = tracepoint_probe_register(kmp_tps[i].tp,
						kmp_tps[i].probe, NULL);
		if (ret) {
			pr_err("cannot attach to %s: %d\n", kmp_tps[i].name,
			       ret);
			kmp_unregister(i);
			goto out;
		}
	}
	kmp_enabled = true;
out:
	mutex_unlock(&kmp_enable_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kmemprof_set_enabled);

bool kmemprof_is_enabled(void)
{
	return READ_ONCE(kmp_enabled);
}
EXPORT_SYMBOL_GPL(kmemprof_is_enabled);

static void kmp_find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < KMP_EV_NR; i++)
		if (!kmp_tps[i].tp && !strcmp(tp->name, kmp_tps[i].name))
			kmp_tps[i].tp = tp;
}

int kmp_probes_init(void)
{
	int i;

	kmp_check_protos();
	for_each_kernel_tracepoint(kmp_find_tp, NULL);
	for (i = 0; i < KMP_EV_NR; i++) {
		if (!kmp_tps[i].tp) {
			pr_err("tracepoint %s not found (CONFIG_TRACEPOINTS?)\n",
			       kmp_tps[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

void kmp_probes_exit(void)
{
	kmemprof_set_enabled(false);
}
