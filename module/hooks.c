// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: hooks on the allocator paths that have no tracepoint.
 *
 * These allocate or free without a kmem event, and would leave objects
 * unpaired or live for ever:
 *
 *   kmem_cache_alloc_bulk()    5.10-: the maple tree, skbuff caches, io_uring
 *   kmem_cache_free_bulk()     5.10-: also kfree_bulk(), and so the batched
 *                              kfree_rcu()/kvfree_rcu()
 *   alloc_pages_bulk()         5.13-: vmalloc's pages, sunrpc, xfs
 *   kmalloc_nolock(),          6.18-: any context, NMI included
 *   kfree_nolock()
 *   __kfree_rcu_sheaf()        6.18-: kfree_rcu() into a per-CPU RCU sheaf,
 *                              freed after the grace period with no event
 *
 * Each is hooked with the ftrace function API (compat.h says how on each
 * kernel). A free is taken at the function's entry, before the allocator
 * can hand its objects out again: each object is one free, paired with its
 * allocation whichever way that was made. An allocation's hook sends the
 * call to a wrapper here, which calls the function itself and enters each
 * object it returns as one allocation at the caller's site; the hook lets
 * the wrapper's own call through. A free that a hooked allocation function
 * makes itself, on its error path, of objects it never returned, is passed
 * over. An object of __kfree_rcu_sheaf() counts as freed when it enters
 * the sheaf: its memory cannot be reused before the grace period, and it
 * is dead to its owner. If the sheaf turns it away, its later free goes
 * the kfree_rcu() batch's way and finds no entry (unpaired.slab).
 *
 * The hooks are attached with the probes of their kind (control.c), so
 * only while enabled=1 and that kind's events are on. A function that the
 * kernel does not have, that ftrace cannot hook (inlined, renamed, or no
 * FUNCTION_TRACER), or that another user holds with IPMODIFY, is listed in
 * stats as untraced and named in dmesg; its objects then stay unpaired, as
 * before, and their sites may be marked inaccurate.
 *
 * Notes on locking: kmp_hooks_set() runs under kmp_control_lock, and
 * unregister_ftrace_function() waits for every callback that is running.
 * A wrapper that is running when its hook goes finishes on the function it
 * called, and only then can the module go: kmp_hooks_exit() waits until no
 * call is in a wrapper (kmp_wrap_inflight), then for RCU and RCU-tasks
 * grace periods, for the last instructions after the count. The callbacks
 * and wrappers run in the allocator's context and do what a probe does
 * (probe.h): interrupts off, NMI to nmi.c; the counts they keep of
 * themselves are this_cpu ops, safe in any context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/gfp.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"
#include "probe.h"

enum kmp_hook_id {
	KMP_HOOK_CACHE_ALLOC_BULK,
	KMP_HOOK_CACHE_FREE_BULK,
	KMP_HOOK_PAGES_BULK,
	KMP_HOOK_KMALLOC_NOLOCK,
	KMP_HOOK_KFREE_NOLOCK,
	KMP_HOOK_KFREE_RCU_SHEAF,
	KMP_HOOK_NR,
};

struct kmp_hook;

#if KMP_HAVE_HOOKS
typedef void (*kmp_hook_fn)(struct kmp_hook *h, unsigned long caller,
			    kmp_hook_regs_t *regs);
#else
typedef void (*kmp_hook_fn)(void);
#endif

struct kmp_hook {
	const char *name;	/* what stats calls it */
	const char *fn;		/* the function, as ftrace knows it */
	enum kmp_kind kind;
	void *wrapper;		/* an allocation's, or NULL */
	kmp_hook_fn entry;	/* a free's */
	unsigned long start, end;	/* the hooked function, if exported */
	unsigned long wstart, wend;	/* its wrapper */
#if KMP_HAVE_HOOKS
	struct ftrace_ops ops;
#endif
	bool present;		/* the kernel has the function */
	bool attached;
	bool failed;		/* ftrace refused it: said once in dmesg */
};

struct kmp_hook_counts {
	u64 calls[KMP_HOOK_NR];
	u64 objects[KMP_HOOK_NR];
};

static DEFINE_PER_CPU(struct kmp_hook_counts, kmp_hook_counts);

/*
 * Calls in a wrapper now, over all CPUs (a call may leave on another CPU
 * than it came in on). The module may go only once this is 0: a wrapper
 * may sleep in the function it calls. See kmp_hooks_exit().
 */
static DEFINE_PER_CPU(long, kmp_wrap_inflight);

static struct kmp_hook kmp_hooks[KMP_HOOK_NR];

#if KMP_HAVE_HOOKS

/* this_cpu_add(): safe from NMI, and interrupts may be on in a wrapper. */
static void kmp_hook_count(enum kmp_hook_id id, unsigned long objects)
{
	this_cpu_inc(kmp_hook_counts.calls[id]);
	this_cpu_add(kmp_hook_counts.objects[id], objects);
}

/* Whether @ip is in a hooked allocation function (its own error path). */
static bool kmp_hook_inside(unsigned long ip)
{
	int i;

	for (i = 0; i < KMP_HOOK_NR; i++)
		if (kmp_hooks[i].wrapper && ip >= kmp_hooks[i].start &&
		    ip < kmp_hooks[i].end)
			return true;
	return false;
}

static void notrace kmp_hook_func(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, kmp_hook_regs_t *regs)
{
	struct kmp_hook *h = container_of(op, struct kmp_hook, ops);

	if (h->wrapper) {
		/* The wrapper's own call goes through; any other goes to it. */
		if (parent_ip < h->wstart || parent_ip >= h->wend)
			kmp_hook_set_ip(regs, (unsigned long)h->wrapper);
		return;
	}
	if (!kmp_hook_inside(parent_ip))
		h->entry(h, parent_ip, regs);
}

/* --- Frees, at the function's entry --- */

/* kmem_cache_free_bulk(s, size, p), and so kfree_bulk(). */
static void __flatten kmp_hook_free_bulk(struct kmp_hook *h,
					 unsigned long caller,
					 kmp_hook_regs_t *regs)
{
	size_t n = kmp_hook_arg(regs, 1), i;
	void **p = (void **)kmp_hook_arg(regs, 2);

	for (i = 0; i < n; i++)
		kmp_slab_free(KMP_EV_NR, READ_ONCE(p[i]));
	kmp_hook_count(KMP_HOOK_CACHE_FREE_BULK, n);
}

#if KMP_HAVE_NOLOCK
/* kfree_nolock(obj) */
static void __flatten kmp_hook_kfree_nolock(struct kmp_hook *h,
					    unsigned long caller,
					    kmp_hook_regs_t *regs)
{
	kmp_slab_free(KMP_EV_NR, (const void *)kmp_hook_arg(regs, 0));
	kmp_hook_count(KMP_HOOK_KFREE_NOLOCK, 1);
}

/* __kfree_rcu_sheaf(s, obj, ...) */
static void __flatten kmp_hook_kfree_rcu_sheaf(struct kmp_hook *h,
					       unsigned long caller,
					       kmp_hook_regs_t *regs)
{
	kmp_slab_free(KMP_EV_NR, (const void *)kmp_hook_arg(regs, 1));
	kmp_hook_count(KMP_HOOK_KFREE_RCU_SHEAF, 1);
}
#endif

/* --- Allocations, through a wrapper --- */

static void __flatten kmp_hook_slab_objects(enum kmp_hook_id id,
					    unsigned long caller, void **p,
					    size_t n, size_t size)
{
	size_t i;

	for (i = 0; i < n; i++)
		kmp_slab_alloc(KMP_EV_NR, caller, READ_ONCE(p[i]), size, size);
	kmp_hook_count(id, n);
}

/* Returns what the function does: int to 6.17, bool from 6.18. */
static noinline notrace __flatten
typeof(KMP_CACHE_ALLOC_BULK(NULL, 0, 0, NULL))
kmp_wrap_cache_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t size,
			  void **p)
{
	typeof(KMP_CACHE_ALLOC_BULK(NULL, 0, 0, NULL)) ret;
	size_t n;

	this_cpu_inc(kmp_wrap_inflight);
	ret = KMP_CACHE_ALLOC_BULK(s, flags, size, p);
	/* bool: all @size or none; int: how many. */
	n = __same_type(ret, bool) ? (ret ? size : 0) : (size_t)ret;
	kmp_hook_slab_objects(KMP_HOOK_CACHE_ALLOC_BULK, _RET_IP_, p, n,
			      kmem_cache_size(s));
	this_cpu_dec(kmp_wrap_inflight);
	return ret;
}

#if KMP_HAVE_NOLOCK
static noinline notrace __flatten void *
kmp_wrap_kmalloc_nolock(KMP_KMALLOC_NOLOCK_PARAMS)
{
	void *ret;

	this_cpu_inc(kmp_wrap_inflight);
	ret = KMP_KMALLOC_NOLOCK_CALL;
	if (ret) {
		kmp_slab_alloc(KMP_EV_NR, _RET_IP_, ret,
			       kmalloc_size_roundup(size), size);
		kmp_hook_count(KMP_HOOK_KMALLOC_NOLOCK, 1);
	}
	this_cpu_dec(kmp_wrap_inflight);
	return ret;
}
#endif

#if KMP_HAVE_PAGES_BULK
/* Entries of the caller's array that held a page before the call. */
#define KMP_BULK_SEEN	256

/* A page the map holds already: beyond the entries seen before the call. */
static bool kmp_hook_page_known(unsigned long pfn)
{
	u32 *slot = kmp_pfn_slot(pfn);

	return slot && (READ_ONCE(*slot) & KMP_PFN_VALID);
}

/*
 * Each page of order 0 the call added, at the caller's site, found from
 * this wrapper's frame record as a page event's is from its probe's. The
 * caller's array may hold pages already, anywhere: those seen before the
 * call are passed over (past the first KMP_BULK_SEEN entries, pages the
 * PFN map holds). Pages the function's own fallback takes from
 * __alloc_pages() make an event, which is not accounted (KMP_SITE_BULK):
 * they are entered here with the others.
 */
static noinline notrace __flatten unsigned long
kmp_wrap_pages_bulk(KMP_PAGES_BULK_PARAMS)
{
	unsigned long fp = (unsigned long)__builtin_frame_address(0);
	DECLARE_BITMAP(was, KMP_BULK_SEEN);
	struct list_head *first = NULL, *pos;
	unsigned long ret, n = 0;
	int i;

	this_cpu_inc(kmp_wrap_inflight);
	bitmap_zero(was, KMP_BULK_SEEN);
	if (KMP_PAGES_BULK_LIST)
		first = ((struct list_head *)KMP_PAGES_BULK_LIST)->next;
	else if (array)
		for (i = 0; i < nr_pages && i < KMP_BULK_SEEN; i++)
			if (array[i])
				__set_bit(i, was);
	ret = KMP_PAGES_BULK_CALL(list);
	if (KMP_PAGES_BULK_LIST) {
		/* New pages go to the head of the list. */
		pos = ((struct list_head *)KMP_PAGES_BULK_LIST)->next;
		for (; pos != first; pos = pos->next, n++)
			kmp_page_alloc(KMP_EV_NR, fp, 0,
				       list_entry(pos, struct page, lru), 0);
	} else if (array) {
		for (i = 0; i < ret && i < nr_pages; i++) {
			if (!array[i] || (i < KMP_BULK_SEEN && test_bit(i, was)))
				continue;
			if (i >= KMP_BULK_SEEN &&
			    kmp_hook_page_known(page_to_pfn(array[i])))
				continue;
			kmp_page_alloc(KMP_EV_NR, fp, 0, array[i], 0);
			n++;
		}
	}
	kmp_hook_count(KMP_HOOK_PAGES_BULK, n);
	this_cpu_dec(kmp_wrap_inflight);
	return ret;
}
#endif

#endif /* KMP_HAVE_HOOKS */

/*
 * The paths this kernel has, each with its function and, where ftrace can
 * hook it, its wrapper or entry handler (KMP_HOOK_FNS(), compat.h, leaves
 * those out where it cannot: the path is then listed as untraced).
 */

static struct kmp_hook kmp_hooks[KMP_HOOK_NR] = {
	[KMP_HOOK_CACHE_ALLOC_BULK] = {
		.name = "kmem_cache_alloc_bulk", .kind = KMP_KIND_SLAB,
		KMP_HOOK_FNS(KMP_CACHE_ALLOC_BULK_NAME,
			     kmp_wrap_cache_alloc_bulk, NULL),
		.start = (unsigned long)KMP_CACHE_ALLOC_BULK,
	},
	[KMP_HOOK_CACHE_FREE_BULK] = {
		.name = "kmem_cache_free_bulk", .kind = KMP_KIND_SLAB,
		KMP_HOOK_FNS("kmem_cache_free_bulk", NULL, kmp_hook_free_bulk),
	},
	[KMP_HOOK_PAGES_BULK] = {
		.name = "alloc_pages_bulk", .kind = KMP_KIND_PAGE,
#if KMP_HAVE_PAGES_BULK
		KMP_HOOK_FNS(KMP_PAGES_BULK_NAME, kmp_wrap_pages_bulk, NULL),
		.start = (unsigned long)KMP_PAGES_BULK_FN,
#endif
	},
	[KMP_HOOK_KMALLOC_NOLOCK] = {
		.name = "kmalloc_nolock", .kind = KMP_KIND_SLAB,
#if KMP_HAVE_NOLOCK
		KMP_HOOK_FNS(KMP_KMALLOC_NOLOCK_NAME, kmp_wrap_kmalloc_nolock,
			     NULL),
#endif
	},
	[KMP_HOOK_KFREE_NOLOCK] = {
		.name = "kfree_nolock", .kind = KMP_KIND_SLAB,
#if KMP_HAVE_NOLOCK
		KMP_HOOK_FNS("kfree_nolock", NULL, kmp_hook_kfree_nolock),
#endif
	},
	[KMP_HOOK_KFREE_RCU_SHEAF] = {
		.name = "kfree_rcu_sheaf", .kind = KMP_KIND_SLAB,
#if KMP_HAVE_NOLOCK
		KMP_HOOK_FNS("__kfree_rcu_sheaf", NULL, kmp_hook_kfree_rcu_sheaf),
#endif
	},
};

#if KMP_HAVE_HOOKS

/* Extents of the hooked functions and of the wrappers, from kallsyms. */
static void kmp_hooks_extents(void)
{
	unsigned long size;
	int i;

	for (i = 0; i < KMP_HOOK_NR; i++) {
		struct kmp_hook *h = &kmp_hooks[i];

		if (h->start && !kmp_fn_size(h->start, &size))
			h->end = h->start + size;
		if (h->wrapper && !kmp_fn_size((unsigned long)h->wrapper,
					       &size)) {
			h->wstart = (unsigned long)h->wrapper;
			h->wend = h->wstart + size;
		}
	}
}

/*
 * Find each function with ftrace, once: a hook whose function ftrace does
 * not know is not present. A wrapper whose own extent is unknown could not
 * let its call through, so its hook is not used.
 */
void kmp_hooks_init(void)
{
	char buf[KSYM_NAME_LEN];
	int i, ret;

	kmp_hooks_extents();
	for (i = 0; i < KMP_HOOK_NR; i++) {
		struct kmp_hook *h = &kmp_hooks[i];

		if (!h->fn)
			continue;
		if (kmp_test_missing(h->name)) {
			pr_warn("%s not hooked (test_missing): its %s objects are not paired\n",
				h->fn, kmp_kind_name(h->kind));
			continue;
		}
		if (h->wrapper && !h->wend) {
			pr_warn("%s: no extent for its wrapper: not hooked\n",
				h->fn);
			continue;
		}
		h->ops.func = kmp_hook_func;
		h->ops.flags = KMP_HOOK_FLAGS;
		strscpy(buf, h->fn, sizeof(buf));
		ret = ftrace_set_filter(&h->ops, buf, strlen(buf), 1);
		if (ret) {
			pr_warn("%s cannot be hooked (%d): its %s objects are not paired\n",
				h->fn, ret, kmp_kind_name(h->kind));
			continue;
		}
		h->present = true;
	}
}

/*
 * Free the filters kmp_hooks_init() set: an empty filter frees the old
 * one (ftrace_free_filter() is exported only from 6.2).
 */
static void kmp_hooks_free_filters(void)
{
	int i;

	for (i = 0; i < KMP_HOOK_NR; i++)
		if (kmp_hooks[i].present)
			ftrace_set_filter(&kmp_hooks[i].ops, NULL, 0, 1);
}

static void kmp_hook_detach(struct kmp_hook *h)
{
	WARN_ON_ONCE(unregister_ftrace_function(&h->ops));
	h->attached = false;
}

/*
 * Attach the hooks of @kinds when @enabled, detach all others. A hook
 * that cannot be attached is said in dmesg once and left: the paths it
 * would pair stay untraced, which stats shows. With kmp_control_lock;
 * unregister_ftrace_function() waits for the callbacks.
 */
void kmp_hooks_set(bool enabled, unsigned int kinds)
{
	int i, ret;

	for (i = 0; i < KMP_HOOK_NR; i++) {
		struct kmp_hook *h = &kmp_hooks[i];
		bool want = enabled && h->present && (kinds & BIT(h->kind));

		if (want && !h->attached && !h->failed) {
			ret = register_ftrace_function(&h->ops);
			if (ret) {
				pr_warn("cannot hook %s (%d): its %s objects are not paired\n",
					h->fn, ret, kmp_kind_name(h->kind));
				h->failed = true;
				continue;
			}
			h->attached = true;
		} else if (!want && h->attached) {
			kmp_hook_detach(h);
		}
	}
}

#else /* !KMP_HAVE_HOOKS */

void kmp_hooks_init(void)
{
	pr_warn("no ftrace with registers (DYNAMIC_FTRACE_WITH_REGS or _ARGS): bulk and nolock allocations are not paired\n");
}

void kmp_hooks_set(bool enabled, unsigned int kinds)
{
}

static void kmp_hooks_free_filters(void)
{
}

#endif /* KMP_HAVE_HOOKS */

/*
 * For stats: "hooks" lists the paths hooked now; "untraced" those this
 * kernel has that are not, for want of ftrace, a hook refused, or their
 * kind's events being off.
 */
void kmp_hooks_show(struct seq_file *m)
{
	int i, n = 0;

	seq_puts(m, "hooks ");
	for (i = 0; i < KMP_HOOK_NR; i++)
		if (kmp_hooks[i].attached)
			seq_printf(m, "%s%s", n++ ? "," : "", kmp_hooks[i].name);
	seq_puts(m, n ? "\n" : "none\n");
	seq_puts(m, "untraced ");
	for (i = 0, n = 0; i < KMP_HOOK_NR; i++)
		if (kmp_hooks[i].fn && !kmp_hooks[i].attached)
			seq_printf(m, "%s%s", n++ ? "," : "", kmp_hooks[i].name);
	seq_puts(m, n ? "\n" : "none\n");
	for (i = 0; i < KMP_HOOK_NR; i++) {
		u64 calls = 0, objects = 0;
		int cpu;

		if (!kmp_hooks[i].fn)
			continue;
		for_each_possible_cpu(cpu) {
			struct kmp_hook_counts *c =
				per_cpu_ptr(&kmp_hook_counts, cpu);

			calls += READ_ONCE(c->calls[i]);
			objects += READ_ONCE(c->objects[i]);
		}
		seq_printf(m, "hook.%s.calls %llu\n", kmp_hooks[i].name, calls);
		seq_printf(m, "hook.%s.objects %llu\n", kmp_hooks[i].name,
			   objects);
	}
}

/*
 * At unload, with every hook detached (kmp_control_exit()): ftrace has
 * waited for its callbacks and trampolines, so any call sent to a wrapper
 * is in it and counted. Wait until none is, then for the last ones to
 * finish their few instructions after the count: a task preempted there
 * (RCU-tasks), or an NMI (RCU).
 */
void kmp_hooks_exit(void)
{
	long n;
	int cpu;

	for (;;) {
		n = 0;
		for_each_possible_cpu(cpu)
			n += READ_ONCE(per_cpu(kmp_wrap_inflight, cpu));
		if (!n)
			break;
		msleep(20);
	}
	synchronize_rcu();
	synchronize_rcu_tasks();
	kmp_hooks_free_filters();
}

void kmp_hooks_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&kmp_hook_counts, cpu), 0,
		       sizeof(struct kmp_hook_counts));
}

/* Whether the hook stats calls @name is attached now (for the tests). */
bool kmp_hook_attached(const char *name)
{
	int i;

	for (i = 0; i < KMP_HOOK_NR; i++)
		if (!strcmp(kmp_hooks[i].name, name))
			return kmp_hooks[i].attached;
	return false;
}
