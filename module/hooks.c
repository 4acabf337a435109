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
 *   folio_migrate_flags()      5.16- (migrate_page_states() before): a page
 *                              that moves, whose owner goes with it
 *
 * Each is hooked with the ftrace function API (compat.h says how on each
 * kernel). A free is an entry callback, taken before the allocator can hand
 * its objects out again: each object is one free, paired with its
 * allocation whichever way that was made. It reads the arguments and
 * changes nothing, so it shares the function with any other ftrace user.
 *
 * An allocation needs what the function returns. Where the kernel has an
 * exit handler (fprobe, 6.14-), its entry handler keeps the arguments and
 * the caller's frame, and its exit handler enters each object at the
 * caller's site. Elsewhere the hook sends the call to a wrapper here,
 * which calls the function itself and then enters the objects: that hook
 * moves the instruction pointer, so it claims IPMODIFY, and a livepatch of
 * the same function cannot load beside it (nor kmemprof's hook beside a
 * livepatch: the path is then untraced). The function tracer sees such a
 * call twice, once sent on and once from the wrapper. The hook passes the
 * caller it saw in a spare argument register (arm64), so that a
 * function_graph or rethook return trampoline in the caller's place is
 * never taken for the site.
 *
 * The hook lets through any call made from kmemprof's own text, where the
 * wrapper is, whatever the compiler made of it (a .cold part, a CFI jump
 * table); the callbacks guard against recursion as livepatch does
 * (ftrace_test_recursion_trylock()), and the wrappers are never cloned.
 * A free that a hooked allocation function makes itself, on its error
 * path, of objects it never returned, is passed over.
 *
 * Every hooked function's prototype is checked at build time, but for
 * 6.18's __kfree_rcu_sheaf(), in mm/slab.h, which modules cannot see. Its
 * free is counted by an exit handler, only when it took the object (it
 * cannot be called from a wrapper: not exported); without fprobe it is
 * not hooked and is listed as untraced, and the objects kfree_rcu() puts
 * in a per-CPU RCU sheaf, freed after the grace period with no event,
 * stay live on their site.
 *
 * The hooks are attached with the probes of their kind (control.c), so
 * only while enabled=1 and that kind's events are on. A function that the
 * kernel does not have, that ftrace cannot hook (inlined, renamed, or no
 * FUNCTION_TRACER), or that another user holds with IPMODIFY, is listed in
 * stats as untraced and named in dmesg; its objects then stay unpaired,
 * and when it is a free, the tags with live objects of its kind are
 * marked inaccurate.
 *
 * Notes on locking: kmp_hooks_set() runs under kmp_control_lock, and
 * unregister_ftrace_function() waits for every callback that is running.
 * A wrapper or exit handler may run long after its hook is detached: a
 * wrapper sleeps in the function it called. Each counts itself in its
 * hook's busy count, and enters objects only while the hook is live:
 *
 *   handler:   atomic_long_inc(busy); smp_mb(); ... if (READ_ONCE(live))
 *              enter; smp_mb__before_atomic(); atomic_long_dec(busy)
 *   detach:    WRITE_ONCE(live, false); smp_mb(); unregister;
 *              wait until busy == 0; smp_mb()
 *
 * Either the handler sees live false and enters nothing, or the detach
 * sees its count and waits for it, and the full barriers order its table
 * writes before whatever follows the detach: reset's clearing of the
 * tables (kmp_live_clear() relinks the spill without its locks) never
 * meets a hook's writes. A handler that passes the test only after a hook
 * is attached again writes to the tables as any probe does. live is set
 * with release after the tables are ready, and read after the barrier.
 *
 * A wrapper enters its objects with preemption off, each as a probe does
 * (probes.h: the test of kmp_opts_key, then the fast path's plain writes
 * with interrupts off), so that the synchronize_rcu() in
 * tracepoint_synchronize_unregister() waits for a wrapper that took the
 * defaults' copy before the re-attach scan raised the key (prior.c): one
 * preempted between its test and its write would be waited for by
 * nothing, and write over an entry the scan made.
 *
 * The module may go only when no call is in a wrapper: kmp_hooks_exit()
 * waits for RCU-tasks first (a task sent to a wrapper and preempted before
 * it counted itself has then counted itself, as it can only sleep inside),
 * then for the counts, then for RCU and RCU-tasks again, for the last
 * instructions after the count. The callbacks and handlers run in the
 * allocator's context and do what a probe does (probes.h): interrupts off,
 * NMI to nmi.c; the counts they keep of themselves are this_cpu ops.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/build_bug.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/gfp.h>
#include <linux/kallsyms.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"
#include "pfnmap.h"
#include "probes.h"
#include "stat.h"
#include "testpoints.h"

/* What an exit handler keeps from the entry: arguments, caller's frame. */
#define KMP_EXIT_ARGS	5
struct kmp_exit_data {
	unsigned long arg[KMP_EXIT_ARGS];
	unsigned long fp;		/* the caller's frame record */
	unsigned long was;		/* alloc_pages_bulk(): entries set */
};

struct kmp_hook;

#if KMP_HAVE_HOOKS
typedef void (*kmp_hook_fn)(struct kmp_hook *h, unsigned long caller,
			    kmp_hook_regs_t *regs);
#else
typedef void (*kmp_hook_fn)(void);
#endif
typedef void (*kmp_hook_enter_fn)(struct kmp_exit_data *d);
typedef void (*kmp_hook_exit_fn)(struct kmp_exit_data *d, unsigned long caller,
				 unsigned long ret);

struct kmp_hook {
	const char *name;	/* what stats calls it */
	const char *fn;		/* the function, as ftrace knows it */
	enum kmp_kind kind;
	void *wrapper;		/* an allocation's, where no exit handler */
	unsigned int caller_arg;	/* the wrapper's parameter for it */
	kmp_hook_fn entry;	/* a free's */
	kmp_hook_enter_fn enter;	/* an allocation's exit handler's */
	kmp_hook_exit_fn exit;	/* entry and exit parts */
	unsigned int nargs;	/* arguments the exit handler keeps */
	bool frees;		/* a free's exit handler (KMP_HOOK_EXIT()) */
	unsigned long start, end;	/* the hooked function, if exported */
#if KMP_HAVE_HOOKS
	struct ftrace_ops ops;
#endif
#if KMP_HAVE_EXIT_HOOKS
	struct fprobe fp;
#endif
	atomic_long_t busy;	/* calls in its wrapper or exit handler */
	bool live;		/* its handlers may enter objects */
	bool present;		/* the kernel has the function */
	bool attached;
	bool warned;		/* ftrace refused it: said once in dmesg */
	bool optional;		/* a module's, maybe not loaded: untraced */
				/* only where present */
};

static struct kmp_hook kmp_hooks[KMP_HOOK_NR];

/*
 * The hooked functions' prototypes, as the handlers read them (arguments
 * by position): a kernel that changes one fails to build here.
 */
static_assert(__same_type(&kmem_cache_free_bulk,
			  void (*)(struct kmem_cache *, size_t, void **)));
static_assert(__same_type(&KMP_CACHE_ALLOC_BULK,
			  typeof(KMP_CACHE_ALLOC_BULK(NULL, 0, 0, NULL))
			  (*)(struct kmem_cache *, gfp_t, size_t, void **)));
#if KMP_HAVE_PAGES_BULK
static_assert(__same_type(&KMP_PAGES_BULK_FN,
			  unsigned long (*)(KMP_PAGES_BULK_PARAMS)));
#endif
#if KMP_HAVE_NOLOCK
static_assert(__same_type(&kfree_nolock, void (*)(const void *)));
#endif
#if IS_ENABLED(CONFIG_MIGRATION)
static_assert(__same_type(&KMP_MIGRATE_FN, void (*)(KMP_MIGRATE_T *,
						    KMP_MIGRATE_T *)));
#endif

#if KMP_HAVE_HOOKS

/* this_cpu_add(): safe from NMI, and interrupts may be on in a wrapper. */
static void kmp_hook_count(enum kmp_hook_id id, unsigned long objects)
{
	this_cpu_inc(kmp_stats.hook_calls[id]);
	this_cpu_add(kmp_stats.hook_objects[id], objects);
}

/*
 * A wrapper or exit handler starts: whether it may enter objects. The
 * full barrier pairs with kmp_hook_quiesce()'s (see the locking note).
 */
static inline bool kmp_hook_begin(struct kmp_hook *h)
{
	atomic_long_inc(&h->busy);
	smp_mb__after_atomic();	/* the count before the test: quiesce's pair */
	return READ_ONCE(h->live);
}

static inline bool kmp_hook_still_live(struct kmp_hook *h)
{
	smp_mb();	/* the count, and the call, before the test */
	return READ_ONCE(h->live);
}

static inline void kmp_hook_end(struct kmp_hook *h)
{
	smp_mb__before_atomic();	/* the table writes before the count */
	atomic_long_dec(&h->busy);
}

/* Whether @ip is in a hooked allocation function (its own error path). */
static bool kmp_hook_inside(unsigned long ip)
{
	int i;

	for (i = 0; i < KMP_HOOK_NR; i++)
		if ((kmp_hooks[i].wrapper || kmp_hooks[i].exit) &&
		    ip >= kmp_hooks[i].start && ip < kmp_hooks[i].end)
			return true;
	return false;
}

static void notrace kmp_hook_func(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, kmp_hook_regs_t *regs)
{
	struct kmp_hook *h = container_of(op, struct kmp_hook, ops);
	int bit;

	bit = kmp_hook_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	if (h->wrapper) {
		/*
		 * kmemprof's own calls, the wrapper's, go through; any other
		 * goes to the wrapper, told who its caller is.
		 */
		if (!within_module(parent_ip, THIS_MODULE)) {
#ifdef KMP_HAVE_HOOK_SET_ARG
			if (h->caller_arg)
				kmp_hook_set_arg(regs, h->caller_arg,
						 parent_ip);
#endif
			kmp_hook_set_ip(regs, (unsigned long)h->wrapper);
		}
	} else if (!kmp_hook_inside(parent_ip)) {
		h->entry(h, parent_ip, regs);
	}
	kmp_hook_unlock(bit);
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
		kmp_slab_free(KMP_EV_NONE, READ_ONCE(p[i]));
	kmp_hook_count(KMP_HOOK_CACHE_FREE_BULK, n);
}

#if KMP_HAVE_NOLOCK
/* kfree_nolock(obj) */
static void __flatten kmp_hook_kfree_nolock(struct kmp_hook *h,
					    unsigned long caller,
					    kmp_hook_regs_t *regs)
{
	kmp_slab_free(KMP_EV_NONE, (const void *)kmp_hook_arg(regs, 0));
	kmp_hook_count(KMP_HOOK_KFREE_NOLOCK, 1);
}
#endif

#if IS_ENABLED(CONFIG_MIGRATION)
/*
 * folio_migrate_flags(dst, src) (migrate_page_states() before 5.16): the
 * move is committed, and src is freed after. Every migration of a page
 * on the LRU or of hugetlb passes here, from compaction, CMA's clearing
 * of its range, NUMA balancing, memory offlining, THP; the movable pages
 * of zsmalloc or the balloon do not (their migrate_page() copies alone),
 * and allocinfo, which moves its tag here too, does not follow them
 * either.
 */
static void __flatten kmp_hook_migrate(struct kmp_hook *h,
				       unsigned long caller,
				       kmp_hook_regs_t *regs)
{
	KMP_MIGRATE_T *dst = (KMP_MIGRATE_T *)kmp_hook_arg(regs, 0);
	KMP_MIGRATE_T *src = (KMP_MIGRATE_T *)kmp_hook_arg(regs, 1);

	kmp_page_move(KMP_MIGRATE_PFN(dst), KMP_MIGRATE_PFN(src),
		      KMP_MIGRATE_ORDER(src));
	kmp_hook_count(KMP_HOOK_MIGRATE, 1);
}
#endif

#if KMP_HAVE_ZS_MIGRATE
/*
 * zs_page_migrate(dst, src, mode): a zsmalloc page moves through its
 * driver, not folio_migrate_flags() (compat.h says when it cannot fail).
 * The source is freed after, as any migration's.
 */
static void __flatten kmp_hook_zs_migrate(struct kmp_hook *h,
					  unsigned long caller,
					  kmp_hook_regs_t *regs)
{
	struct page *dst = (struct page *)kmp_hook_arg(regs, 0);
	struct page *src = (struct page *)kmp_hook_arg(regs, 1);

	/* MIGRATE_SYNC_NO_COPY, where there is one: refused */
	if (kmp_hook_arg(regs, 2) > MIGRATE_SYNC)
		return;
	kmp_page_move(page_to_pfn(dst), page_to_pfn(src), 0);
	kmp_hook_count(KMP_HOOK_ZS_MIGRATE, 1);
}
#endif

/* --- Allocations: what each enters once its function has returned --- */

static void __flatten kmp_hook_slab_objects(enum kmp_hook_id id,
					    unsigned long caller, void **p,
					    size_t n, size_t size, size_t req)
{
	size_t i;

	/* each event's key test and its entry in one section: see below */
	preempt_disable();
	for (i = 0; i < n; i++)
		kmp_slab_alloc(KMP_EV_NONE, caller, READ_ONCE(p[i]), size, req);
	preempt_enable();
	kmp_hook_count(id, n);
}

/*
 * kmem_cache_alloc_bulk(s, flags, size, p): int to 6.17, bool from 6.18.
 * Each object is charged its slot and requested its object size, as the
 * kmem_cache_alloc event's are (probes.c).
 */
static void kmp_cache_alloc_bulk_done(struct kmem_cache *s, size_t size,
				      void **p, unsigned long ret,
				      unsigned long caller)
{
	typeof(KMP_CACHE_ALLOC_BULK(NULL, 0, 0, NULL)) r = ret;
	/* bool: all @size or none; int: how many. */
	size_t n = __same_type(r, bool) ? (r ? size : 0) : (size_t)r;

	if (!n)
		return;
	kmp_hook_slab_objects(KMP_HOOK_CACHE_ALLOC_BULK, caller, p, n,
			      kmp_cache_bulk_slot(s, p, n), kmem_cache_size(s));
}

#if KMP_HAVE_PAGES_BULK
/*
 * Entries of the caller's array that held a page before the call: the
 * first BITS_PER_LONG in a bitmap, past them the pages the PFN map holds.
 */
static unsigned long kmp_bulk_pages_before(struct page **array, int nr)
{
	unsigned long was = 0;
	int i;

	for (i = 0; array && i < nr && i < BITS_PER_LONG; i++)
		if (array[i])
			was |= BIT(i);
	return was;
}

static bool kmp_hook_page_known(unsigned long pfn)
{
	u32 *slot = kmp_pfn_slot(pfn);

	return slot && (READ_ONCE(*slot) & KMP_PFN_VALID);
}

/*
 * Each page of order 0 the call added to @array, at the caller's site,
 * found from the frame record at @fp as a page event's is from its
 * probe's. Pages the function's own fallback takes from __alloc_pages()
 * make an event, which is not accounted (KMP_SITE_BULK): they are entered
 * here with the others.
 */
static __flatten unsigned long
kmp_bulk_pages_after(unsigned long fp, struct page **array, int nr,
		     unsigned long ret, unsigned long was)
{
	unsigned long n = 0;
	int i;

	for (i = 0; array && i < ret && i < nr; i++) {
		if (!array[i] || (i < BITS_PER_LONG && (was & BIT(i))))
			continue;
		if (i >= BITS_PER_LONG &&
		    kmp_hook_page_known(page_to_pfn(array[i])))
			continue;
		kmp_page_alloc(KMP_EV_NONE, fp, 0, array[i], 0);
		n++;
	}
	kmp_hook_count(KMP_HOOK_PAGES_BULK, n);
	return n;
}
#endif

#if !KMP_HAVE_EXIT_HOOKS

/*
 * For the rig's reset test alone (KMEMPROF_TEST_BUILD): a bulk call from
 * insmod sleeps @test_wrap_delay ms after its function returns, as one
 * that slept inside it would, so that a reset falls in the window.
 */
#ifdef KMEMPROF_TEST_BUILD
static unsigned int test_wrap_delay;
module_param(test_wrap_delay, uint, 0444);
MODULE_PARM_DESC(test_wrap_delay, "Test build: ms an insmod's bulk call sleeps in the wrapper");

static void kmp_test_wrap_delay(gfp_t gfp)
{
	if (test_wrap_delay && gfpflags_allow_blocking(gfp) &&
	    !strcmp(current->comm, "insmod"))
		msleep(test_wrap_delay);
}
#else
static inline void kmp_test_wrap_delay(gfp_t gfp)
{
}
#endif

/* Where the hook could not pass the caller, the return address. */
#ifdef KMP_HAVE_HOOK_SET_ARG
#define KMP_WRAP_CALLER(c)	(c)
#else
#define KMP_WRAP_CALLER(c)	((void)(c), _RET_IP_)
#endif

/*
 * The wrappers: each takes the function's parameters and then its caller,
 * which the hook puts in the next argument register.
 */
static noinline __noclone notrace __flatten
typeof(KMP_CACHE_ALLOC_BULK(NULL, 0, 0, NULL))
kmp_wrap_cache_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t size,
			  void **p, unsigned long caller)
{
	typeof(KMP_CACHE_ALLOC_BULK(NULL, 0, 0, NULL)) ret;
	struct kmp_hook *h = &kmp_hooks[KMP_HOOK_CACHE_ALLOC_BULK];

	kmp_hook_begin(h);
	ret = KMP_CACHE_ALLOC_BULK(s, flags, size, p);
	kmp_test_wrap_delay(flags);
	if (kmp_hook_still_live(h))
		kmp_cache_alloc_bulk_done(s, size, p, (unsigned long)ret,
					  KMP_WRAP_CALLER(caller));
	kmp_hook_end(h);
	return ret;
}

#define KMP_WRAP_CACHE_ALLOC_BULK	kmp_wrap_cache_alloc_bulk

#if KMP_HAVE_NOLOCK
/* Its parameters vary with the kernel's options: the caller is not passed. */
static noinline __noclone notrace __flatten void *
kmp_wrap_kmalloc_nolock(KMP_KMALLOC_NOLOCK_PARAMS)
{
	struct kmp_hook *h = &kmp_hooks[KMP_HOOK_KMALLOC_NOLOCK];
	void *ret;

	kmp_hook_begin(h);
	ret = KMP_KMALLOC_NOLOCK_CALL;
	if (ret && kmp_hook_still_live(h)) {
		preempt_disable();
		kmp_slab_alloc(KMP_EV_NONE, _RET_IP_, ret,
			       kmalloc_size_roundup(size), size);
		preempt_enable();
		kmp_hook_count(KMP_HOOK_KMALLOC_NOLOCK, 1);
	}
	kmp_hook_end(h);
	return ret;
}

#define KMP_WRAP_KMALLOC_NOLOCK		kmp_wrap_kmalloc_nolock
#endif

#if KMP_HAVE_PAGES_BULK
/*
 * alloc_pages_bulk(): the caller's array or list may hold pages already,
 * anywhere: those seen before the call are passed over. The caller is
 * found from this wrapper's own frame record, whose return address is the
 * caller's (the hook moved the call, not the return).
 */
static noinline __noclone notrace __flatten unsigned long
kmp_wrap_pages_bulk(KMP_PAGES_BULK_PARAMS, unsigned long caller)
{
	struct kmp_hook *h = &kmp_hooks[KMP_HOOK_PAGES_BULK];
	unsigned long fp = (unsigned long)__builtin_frame_address(0);
	struct list_head *first = NULL, *pos;
	unsigned long ret, was = 0, n = 0;

	kmp_hook_begin(h);
	if (KMP_PAGES_BULK_LIST)
		first = ((struct list_head *)KMP_PAGES_BULK_LIST)->next;
	else
		was = kmp_bulk_pages_before(array, nr_pages);
	ret = KMP_PAGES_BULK_CALL(list);
	if (!kmp_hook_still_live(h))
		goto out;
	/* each event's key test and its entry in one section: see below */
	preempt_disable();
	if (KMP_PAGES_BULK_LIST) {
		/* New pages go to the head of the list. */
		pos = ((struct list_head *)KMP_PAGES_BULK_LIST)->next;
		for (; pos != first; pos = pos->next, n++)
			kmp_page_alloc(KMP_EV_NONE, fp, 0,
				       list_entry(pos, struct page, lru), 0);
		kmp_hook_count(KMP_HOOK_PAGES_BULK, n);
	} else {
		kmp_bulk_pages_after(fp, array, nr_pages, ret, was);
	}
	preempt_enable();
out:
	kmp_hook_end(h);
	return ret;
}

#define KMP_WRAP_PAGES_BULK		kmp_wrap_pages_bulk
#endif

#else /* KMP_HAVE_EXIT_HOOKS */

/* --- Exit handlers (fprobe) --- */

static void kmp_exit_cache_alloc_bulk(struct kmp_exit_data *d,
				      unsigned long caller, unsigned long ret)
{
	kmp_cache_alloc_bulk_done((struct kmem_cache *)d->arg[0], d->arg[2],
				  (void **)d->arg[3], ret, caller);
}

#if KMP_HAVE_NOLOCK
/* kmalloc_nolock(size, ...): the size is its first parameter. */
static void kmp_exit_kmalloc_nolock(struct kmp_exit_data *d,
				    unsigned long caller, unsigned long ret)
{
	if (!ret)
		return;
	kmp_slab_alloc(KMP_EV_NONE, caller, (void *)ret,
		       kmalloc_size_roundup(d->arg[0]), d->arg[0]);
	kmp_hook_count(KMP_HOOK_KMALLOC_NOLOCK, 1);
}
#endif

/*
 * __kfree_rcu_sheaf(s, obj, ...), in mm/slab.h, so with no prototype to
 * check: true if @obj went into this CPU's RCU sheaf, which frees it
 * after a grace period with no event (or keeps it for reuse, whole); false
 * if kvfree_call_rcu() is to take it the other way, through
 * kfree_bulk(), whose hook counts it. So the free is counted here, and
 * only on true. The grace period cannot end before it is: this handler
 * runs with interrupts off.
 */
#if KMP_HAVE_NOLOCK
static void kmp_exit_kfree_rcu_sheaf(struct kmp_exit_data *d,
				     unsigned long caller, unsigned long ret)
{
	if (!(u8)ret)	/* bool: the upper bits are undefined */
		return;
	kmp_slab_free(KMP_EV_NONE, (const void *)d->arg[1]);
	kmp_hook_count(KMP_HOOK_KFREE_RCU_SHEAF, 1);
}
#endif

/* alloc_pages_bulk(gfp, nid, nodemask, nr_pages, array), 6.14-. */
static void kmp_enter_pages_bulk(struct kmp_exit_data *d)
{
	d->was = kmp_bulk_pages_before((struct page **)d->arg[4],
				       (int)d->arg[3]);
}

static void kmp_exit_pages_bulk(struct kmp_exit_data *d, unsigned long caller,
				unsigned long ret)
{
	/* The record the function itself would have made: the walk's start. */
	struct { unsigned long fp, lr; } rec = { d->fp, caller };

	kmp_bulk_pages_after((unsigned long)&rec, (struct page **)d->arg[4],
			     (int)d->arg[3], ret, d->was);
}

/*
 * fprobe's handlers. The entry keeps the arguments and the caller's frame
 * record (x29 at the function's entry, before its prologue); the exit
 * enters the objects, as a wrapper does after its call.
 */
static int notrace kmp_fprobe_entry(struct fprobe *fp, unsigned long ip,
				    unsigned long ret_ip,
				    struct ftrace_regs *regs, void *data)
{
	struct kmp_hook *h = container_of(fp, struct kmp_hook, fp);
	struct kmp_exit_data *d = data;
	unsigned int i;

	for (i = 0; i < h->nargs; i++)
		d->arg[i] = ftrace_regs_get_argument(regs, i);
	d->fp = kmp_fregs_fp(regs);
	if (h->enter)
		h->enter(d);
	return 0;
}

static void notrace kmp_fprobe_exit(struct fprobe *fp, unsigned long ip,
				    unsigned long ret_ip,
				    struct ftrace_regs *regs, void *data)
{
	struct kmp_hook *h = container_of(fp, struct kmp_hook, fp);
	unsigned long flags;

	if (kmp_hook_begin(h)) {
		/* The unwinder's missing frame (kmp_exit_splice()). */
		bool nmi = in_nmi();

		local_irq_save(flags);
		if (!nmi)
			this_cpu_write(kmp_exit_ret, ret_ip);
		h->exit(data, ret_ip, ftrace_regs_get_return_value(regs));
		if (!nmi)
			this_cpu_write(kmp_exit_ret, 0);
		local_irq_restore(flags);
	}
	kmp_hook_end(h);
}

#endif /* KMP_HAVE_EXIT_HOOKS */

#endif /* KMP_HAVE_HOOKS */

/*
 * The paths this kernel has, each with its function and, where ftrace can
 * hook it, its handlers (KMP_HOOK_*(), below, leave those out where it
 * cannot: the path is then listed as untraced).
 */
static struct kmp_hook kmp_hooks[KMP_HOOK_NR] = {
	[KMP_HOOK_CACHE_ALLOC_BULK] = {
		.name = "kmem_cache_alloc_bulk", .kind = KMP_KIND_SLAB,
		KMP_HOOK_ALLOC(KMP_CACHE_ALLOC_BULK_NAME,
			       KMP_WRAP_CACHE_ALLOC_BULK, 4, NULL,
			       kmp_exit_cache_alloc_bulk, 4),
		.start = (unsigned long)KMP_CACHE_ALLOC_BULK,
	},
	[KMP_HOOK_CACHE_FREE_BULK] = {
		.name = "kmem_cache_free_bulk", .kind = KMP_KIND_SLAB,
		KMP_HOOK_FREE("kmem_cache_free_bulk", kmp_hook_free_bulk),
	},
	[KMP_HOOK_PAGES_BULK] = {
		.name = "alloc_pages_bulk", .kind = KMP_KIND_PAGE,
#if KMP_HAVE_PAGES_BULK
		KMP_HOOK_ALLOC(KMP_PAGES_BULK_NAME, KMP_WRAP_PAGES_BULK,
			       KMP_PAGES_BULK_NARGS, kmp_enter_pages_bulk,
			       kmp_exit_pages_bulk, 5),
		.start = (unsigned long)KMP_PAGES_BULK_FN,
#endif
	},
	[KMP_HOOK_KMALLOC_NOLOCK] = {
		.name = "kmalloc_nolock", .kind = KMP_KIND_SLAB,
#if KMP_HAVE_NOLOCK
		KMP_HOOK_ALLOC(KMP_KMALLOC_NOLOCK_NAME, KMP_WRAP_KMALLOC_NOLOCK,
			       0, NULL,
			       kmp_exit_kmalloc_nolock, 1),
#endif
	},
	[KMP_HOOK_KFREE_NOLOCK] = {
		.name = "kfree_nolock", .kind = KMP_KIND_SLAB,
#if KMP_HAVE_NOLOCK
		KMP_HOOK_FREE("kfree_nolock", kmp_hook_kfree_nolock),
#endif
	},
	[KMP_HOOK_MIGRATE] = {
		.name = "migrate", .kind = KMP_KIND_PAGE,
#if IS_ENABLED(CONFIG_MIGRATION)
		KMP_HOOK_FREE(KMP_MIGRATE_NAME, kmp_hook_migrate),
#endif
	},
	[KMP_HOOK_ZS_MIGRATE] = {
		.name = "zs_migrate", .kind = KMP_KIND_PAGE, .optional = true,
#if KMP_HAVE_ZS_MIGRATE
		KMP_HOOK_FREE("zs_page_migrate", kmp_hook_zs_migrate),
#endif
	},
	[KMP_HOOK_KFREE_RCU_SHEAF] = {
		.name = "kfree_rcu_sheaf", .kind = KMP_KIND_SLAB,
#if KMP_HAVE_NOLOCK
		KMP_HOOK_EXIT("__kfree_rcu_sheaf", kmp_exit_kfree_rcu_sheaf, 2),
#endif
	},
};

static bool kmp_hook_usable(const struct kmp_hook *h)
{
	return h->wrapper || h->entry || h->exit;
}

#if KMP_HAVE_HOOKS

/* Extents of the hooked allocation functions, from kallsyms. */
static void kmp_hooks_extents(void)
{
	unsigned long size;
	int i;

	for (i = 0; i < KMP_HOOK_NR; i++) {
		struct kmp_hook *h = &kmp_hooks[i];

		if (h->start && !kmp_fn_size(h->start, &size))
			h->end = h->start + size;
	}
}

/*
 * Find each function with ftrace, once: a hook whose function ftrace does
 * not know is not present. An exit handler's fprobe is set up here too,
 * and registered only when attached.
 */
void kmp_hooks_init(void)
{
	char buf[KSYM_NAME_LEN];
	int i, ret;

	/* before any hook or probe is attached: see callsite.c */
	kmp_frame_own_init((unsigned long)
			   kmp_hooks[KMP_HOOK_PAGES_BULK].wrapper);
	kmp_hooks_extents();
	for (i = 0; i < KMP_HOOK_NR; i++) {
		struct kmp_hook *h = &kmp_hooks[i];

		if (!h->fn)
			continue;
		if (!kmp_hook_usable(h)) {
			pr_info("%s is not hooked (it needs an exit handler: FPROBE): its %s objects are not paired\n",
				h->fn, kmp_kind_name(h->kind));
			continue;
		}
		if (kmp_test_missing(h->name)) {
			pr_warn("%s not hooked (test_missing): its %s objects are not paired\n",
				h->fn, kmp_kind_name(h->kind));
			continue;
		}
#if KMP_HAVE_EXIT_HOOKS
		if (h->exit) {
			h->fp.entry_handler = kmp_fprobe_entry;
			h->fp.exit_handler = kmp_fprobe_exit;
			h->fp.entry_data_size = sizeof(struct kmp_exit_data);
		}
#endif
		h->ops.func = kmp_hook_func;
		h->ops.flags = h->wrapper ? KMP_HOOK_WRAP_FLAGS :
					    KMP_HOOK_ENTRY_FLAGS;
		/* The filter finds the function for both kinds of hook. */
		strscpy(buf, h->fn, sizeof(buf));
		ret = ftrace_set_filter(&h->ops, buf, strlen(buf), 1);
		/* an optional one's module is not loaded: nothing to pair */
		if (ret && h->optional)
			continue;
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

#if KMP_TEST_HOOKS
/* For the KUnit suites: the next attaches of one hook to refuse. */
static struct kmp_hook *kmp_test_refused;
static unsigned int kmp_test_refuse_n;

/* The next @n attaches of the hook stats calls @name fail (NULL: none). */
void kmp_test_hook_refuse(const char *name, unsigned int n)
{
	int i;

	kmp_test_refused = NULL;
	kmp_test_refuse_n = n;
	for (i = 0; name && i < KMP_HOOK_NR; i++)
		if (kmp_hooks[i].name && !strcmp(kmp_hooks[i].name, name))
			kmp_test_refused = &kmp_hooks[i];
}

static bool kmp_test_refuse(struct kmp_hook *h)
{
	if (h != kmp_test_refused || !kmp_test_refuse_n)
		return false;
	kmp_test_refuse_n--;
	return true;
}
#else
static inline bool kmp_test_refuse(struct kmp_hook *h)
{
	return false;
}
#endif

static int kmp_hook_register(struct kmp_hook *h)
{
	if (kmp_test_refuse(h))
		return -EBUSY;
#if KMP_HAVE_EXIT_HOOKS
	if (h->exit)
		return register_fprobe(&h->fp, h->fn, NULL);
#endif
	return register_ftrace_function(&h->ops);
}

static void kmp_hook_unregister(struct kmp_hook *h)
{
#if KMP_HAVE_EXIT_HOOKS
	if (h->exit) {
		WARN_ON_ONCE(unregister_fprobe(&h->fp));
		return;
	}
#endif
	WARN_ON_ONCE(unregister_ftrace_function(&h->ops));
}

/* Wait until no call is in @h's wrapper or exit handler. */
static void kmp_hook_wait(struct kmp_hook *h)
{
	while (atomic_long_read(&h->busy))
		msleep(20);
	smp_mb();	/* their table writes before what follows */
}

/*
 * Detach @h: after this, none of its handlers writes to the tables until
 * it is attached again (see the locking note).
 */
/* alloc_pages_bulk()'s exit handler is live (callsite.c). */
static void kmp_hook_bulk_exits(struct kmp_hook *h, bool on)
{
	if (h == &kmp_hooks[KMP_HOOK_PAGES_BULK] && h->exit)
		WRITE_ONCE(kmp_pages_bulk_exits, on);
}

/* A free's hook, or the migration's: it ends or moves an object. */
static bool kmp_hook_frees(const struct kmp_hook *h)
{
	return h->entry || h->frees;
}

static void kmp_hook_detach(struct kmp_hook *h)
{
	kmp_hook_bulk_exits(h, false);
	WRITE_ONCE(h->live, false);
	smp_mb();	/* live before the counts: the handlers' pair */
	kmp_hook_unregister(h);
	h->attached = false;
	kmp_attach_logged(h->kind, kmp_hook_frees(h), false);
	kmp_hook_wait(h);
}

static int kmp_hook_attach(struct kmp_hook *h)
{
	int ret;

	/* The tables are ready: a handler that sees live sees them. */
	smp_store_release(&h->live, true);
	ret = kmp_hook_register(h);
	if (ret) {
		WRITE_ONCE(h->live, false);
		return ret;
	}
	kmp_hook_bulk_exits(h, true);
	h->attached = true;
	kmp_attach_logged(h->kind, kmp_hook_frees(h), true);
	return 0;
}

/*
 * Whether pages that migrate now go unfollowed: the kernel migrates pages
 * (CONFIG_MIGRATION) and page events are traced (@kinds, what kmp_attach()
 * attached), but the migration hook is not attached (ftrace cannot find
 * its function, or another user holds it). The tags of movable blocks
 * allocated meanwhile are then marked.
 */
void kmp_hooks_moves(unsigned int kinds)
{
	WRITE_ONCE(kmp_moves_unfollowed,
		   IS_ENABLED(CONFIG_MIGRATION) &&
		   (kinds & BIT(KMP_KIND_PAGE)) &&
		   !kmp_hooks[KMP_HOOK_MIGRATE].attached);
}

/*
 * Attach the hooks of @kinds, detach the others, of one class: those that
 * end or move objects (@frees) or the allocations' (kmp_attach() orders
 * the classes). A hook that cannot be attached (another user holds the
 * function with IPMODIFY) is said in dmesg once, and tried again at the
 * next attach: the paths it would pair stay untraced meanwhile, which
 * stats shows, and if it is a free, the tags with live objects of its kind
 * are marked. With kmp_control_lock.
 */
void kmp_hooks_set(unsigned int kinds, bool frees, bool attach)
{
	int i, ret;

	for (i = 0; i < KMP_HOOK_NR; i++) {
		struct kmp_hook *h = &kmp_hooks[i];
		bool want = h->present && (kinds & BIT(h->kind));

		if (kmp_hook_frees(h) != frees)
			continue;
		if (want && !h->attached && attach) {
			ret = kmp_hook_attach(h);
			if (ret && !h->warned) {
				pr_warn("cannot hook %s (%d): its %s objects are not paired\n",
					h->fn, ret, kmp_kind_name(h->kind));
				h->warned = true;
			}
			if (ret && frees)
				kmp_account_mark_live(BIT(h->kind));
		} else if (!want && h->attached) {
			kmp_hook_detach(h);
		}
	}
}

#else /* !KMP_HAVE_HOOKS */

void kmp_hooks_init(void)
{
	kmp_frame_own_init(0);
	pr_warn("no ftrace with registers (DYNAMIC_FTRACE_WITH_REGS or _ARGS): bulk and nolock allocations are not paired\n");
}

void kmp_hooks_set(unsigned int kinds, bool frees, bool attach)
{
}

void kmp_hooks_moves(unsigned int kinds)
{
	WRITE_ONCE(kmp_moves_unfollowed,
		   IS_ENABLED(CONFIG_MIGRATION) &&
		   (kinds & BIT(KMP_KIND_PAGE)));
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
		if (kmp_hooks[i].fn && !kmp_hooks[i].attached &&
		    (kmp_hooks[i].present || !kmp_hooks[i].optional))
			seq_printf(m, "%s%s", n++ ? "," : "", kmp_hooks[i].name);
	seq_puts(m, n ? "\n" : "none\n");
	/* How allocations are hooked on this kernel (compat.h). */
	seq_printf(m, "hooks.alloc %s\n", !KMP_HAVE_HOOKS ? "none" :
		   KMP_HAVE_EXIT_HOOKS ? "exit" : "wrapper");
	for (i = 0; i < KMP_HOOK_NR; i++) {
		if (!kmp_hooks[i].fn)
			continue;
		seq_printf(m, "hook.%s.calls %llu\n", kmp_hooks[i].name,
			   kmp_stat_sum(&kmp_stats.hook_calls[i]));
		seq_printf(m, "hook.%s.objects %llu\n", kmp_hooks[i].name,
			   kmp_stat_sum(&kmp_stats.hook_objects[i]));
	}
}

/*
 * At unload, with every hook detached (kmp_control_exit()): a task that a
 * hook sent to a wrapper has counted itself once RCU-tasks has passed (it
 * cannot sleep before it does). Wait for the counts, then for the last
 * instructions after them: a task preempted there (RCU-tasks), or an
 * NMI (RCU).
 */
void kmp_hooks_exit(void)
{
	int i;

	synchronize_rcu_tasks();
	for (i = 0; i < KMP_HOOK_NR; i++)
		while (atomic_long_read(&kmp_hooks[i].busy))
			msleep(20);
	synchronize_rcu();
	synchronize_rcu_tasks();
	kmp_hooks_free_filters();
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
