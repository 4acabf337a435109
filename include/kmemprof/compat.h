/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: every difference between the kernels kmemprof builds on.
 *
 * Nothing else in kmemprof tests LINUX_VERSION_CODE. Each difference is
 * folded into a macro or an inline here, so the rest of the code reads the
 * same on every kernel.
 *
 * Tracepoint prototypes (all probes take void *data first):
 *
 *   event             5.10                       5.12..6.0         6.1+
 *   kmalloc           site,ptr,req,alloc,gfp     same              +node
 *   kmalloc_node      site,ptr,req,alloc,gfp,nd  same              (gone)
 *   kmem_cache_alloc_node  as kmalloc_node       same              (gone)
 *   kmem_cache_alloc  site,ptr,req,alloc,gfp     same              site,ptr,s,gfp,node
 *   kmem_cache_free   site,ptr                   site,ptr,name     site,ptr,s
 *   kfree             site,ptr                   everywhere
 *   mm_page_alloc     page,order,gfp,migratetype everywhere
 *   mm_page_free      page,order                 everywhere
 */
#ifndef _KMEMPROF_COMPAT_H
#define _KMEMPROF_COMPAT_H

#include <linux/version.h>
#include <linux/types.h>
#include <linux/mmzone.h>
#include <linux/slab.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 10, 0)
#error "kmemprof needs Linux 5.10 or later"
#endif

/* kmalloc: the node argument arrived in 6.1, when kmalloc_node merged in. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define KMP_KMALLOC_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags, int node
#define KMP_HAVE_NODE_EVENTS	0
#else
#define KMP_KMALLOC_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags
#define KMP_HAVE_NODE_EVENTS	1
/* Before 6.1, the _node allocations have events of their own. */
#define KMP_KMALLOC_NODE_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags, int node
#define KMP_CACHE_ALLOC_NODE_PROTO	KMP_KMALLOC_NODE_PROTO
#endif

/*
 * Before 6.1, a large kmalloc() of a size known only at run time goes
 * __kmalloc() -> kmalloc_order_trace(), whose event names __kmalloc() as
 * the call site: such sites are found by unwinding (callsite.c).
 */
#define KMP_KMALLOC_SITE_MAY_BE_SLAB	KMP_HAVE_NODE_EVENTS

/*
 * kmem_cache_alloc: from 6.1 the event carries the cache, not the sizes.
 * Before, bytes_alloc is the object's slot (s->size, as allocinfo charges)
 * and bytes_req its object size. From 6.1 the object size is the exported
 * kmem_cache_size(), and the slot is ksize() of an object (struct
 * kmem_cache is private from 6.8): probes.c keeps it per CPU and cache
 * (kmp_cache_slot()). KMP_CACHE_ALLOC_HAS_CACHE says which event it is.
 *
 * ksize() is a report only from 6.2: 6.1's unpoisons the whole slot for
 * KASAN. Under KASAN the slot ksize() reports is the object size anyway
 * (SLAB_KASAN), so there KMP_KSIZE_SAFE is 0 and kmem_cache_size() is
 * the size.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define KMP_CACHE_ALLOC_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	struct kmem_cache *s, gfp_t gfp_flags, int node
#define KMP_CACHE_ALLOC_HAS_CACHE	1
#include <linux/kfence.h>	/* is_kfence_address(), from 5.12 */
#define KMP_KSIZE_SAFE							\
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0) ||		\
	 !IS_ENABLED(CONFIG_KASAN))
#else
#define KMP_CACHE_ALLOC_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags
#define KMP_CACHE_ALLOC_HAS_CACHE	0
#endif

/* kmem_cache_free: no cache before 5.12, its name until 6.0, then the cache. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define KMP_CACHE_FREE_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	const struct kmem_cache *s
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(5, 12, 0)
#define KMP_CACHE_FREE_PROTO						\
	void *data, unsigned long call_site, const void *ptr,		\
	const char *name
#else
#define KMP_CACHE_FREE_PROTO						\
	void *data, unsigned long call_site, const void *ptr
#endif

#define KMP_KFREE_PROTO							\
	void *data, unsigned long call_site, const void *ptr
#define KMP_PAGE_ALLOC_PROTO						\
	void *data, struct page *page, unsigned int order,		\
	gfp_t gfp_flags, int migratetype
#define KMP_PAGE_FREE_PROTO						\
	void *data, struct page *page, unsigned int order

/*
 * The buddy allocator's orders are 0 to KMP_PAGE_ORDERS - 1: 6.8 named
 * their number NR_PAGE_ORDERS; before, MAX_ORDER was that number, until
 * 6.4 made it the largest order.
 */
#if defined(NR_PAGE_ORDERS)
#define KMP_PAGE_ORDERS		NR_PAGE_ORDERS
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define KMP_PAGE_ORDERS		(MAX_ORDER + 1)
#else
#define KMP_PAGE_ORDERS		MAX_ORDER
#endif

/*
 * A zone's per-CPU free lists on @cpu (prior.c): 5.14 gave them a
 * struct per_cpu_pages of their own, zone->per_cpu_pageset; before, they
 * were the pcp member of the struct per_cpu_pageset at zone->pageset.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 14, 0)
#define kmp_zone_pcp(zone, cpu)	per_cpu_ptr((zone)->per_cpu_pageset, cpu)
#else
#define kmp_zone_pcp(zone, cpu)	(&per_cpu_ptr((zone)->pageset, cpu)->pcp)
#endif

/*
 * percpu_alloc_percpu: 6.1 added the call site, the full size and the gfp
 * flags. Before that the call site comes from unwinding (0 asks for it) and
 * the size is the per-CPU size times the possible CPUs. The macros take
 * the probe's arguments and use those the event has.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define KMP_PERCPU_ALLOC_PROTO						\
	void *data, unsigned long call_site, bool reserved,		\
	bool is_atomic, size_t size, size_t align, void *base_addr,	\
	int off, void __percpu *ptr, size_t bytes_alloc, gfp_t gfp_flags
#define KMP_PERCPU_CALL_SITE(call_site)		(call_site)
#define KMP_PERCPU_BYTES(bytes_alloc, size)	(bytes_alloc)
#else
#define KMP_PERCPU_ALLOC_PROTO						\
	void *data, bool reserved, bool is_atomic, size_t size,		\
	size_t align, void *base_addr, int off, void __percpu *ptr
#define KMP_PERCPU_CALL_SITE(call_site)		(0UL)
#define KMP_PERCPU_BYTES(bytes_alloc, size)	((size) * num_possible_cpus())
#endif
#define KMP_PERCPU_FREE_PROTO						\
	void *data, void *base_addr, int off, void __percpu *ptr

/*
 * sysctl: handlers take a const table from 6.11. From 6.6 a table is
 * registered with its size (and from 6.12 an empty terminator is an
 * error); before, it ends at an empty entry, which the caller leaves
 * after the @n it fills.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define KMP_CTL_TABLE		const struct ctl_table
#else
#define KMP_CTL_TABLE		struct ctl_table
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define kmp_register_sysctl(path, table, n)				\
	register_sysctl_sz(path, table, n)
#else
#define kmp_register_sysctl(path, table, n)				\
	((void)(n), register_sysctl(path, table))
#endif

/*
 * The shims below are kmp_ wrappers, never the kernel's names defined
 * again, so that a call site shows it goes through one.
 *
 * get_random_u32_below() arrived in 6.2 (6.1.y has it backported).
 */
#include <linux/random.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#include <linux/prandom.h>
#define kmp_random_below(ceil)		prandom_u32_max(ceil)
#else
#define kmp_random_below(ceil)		get_random_u32_below(ceil)
#endif

/* from_timer() became timer_container_of() in 6.16. */
#include <linux/timer.h>
#ifdef from_timer
#define kmp_timer_container_of(var, timer, field)			\
	from_timer(var, timer, field)
#else
#define kmp_timer_container_of(var, timer, field)			\
	timer_container_of(var, timer, field)
#endif

/*
 * topology_cluster_id() arrived in 5.16. Before it, arm64 gave a device
 * tree cluster's id to package_id, so that is the cluster there.
 */
#include <linux/topology.h>
#ifdef topology_cluster_id
#define kmp_cluster_id(cpu)		topology_cluster_id(cpu)
#else
#define kmp_cluster_id(cpu)		topology_physical_package_id(cpu)
#endif

/*
 * A module's core text, where names.c indexes its symbols, and its init
 * text: 6.4 split the module's layouts into regions (mod->mem[]). The
 * bounds are those the kernel's own lookup (find_kallsyms_symbol()) sizes
 * a module's last function by.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define KMP_MOD_TEXT_BASE(mod)	((unsigned long)(mod)->mem[MOD_TEXT].base)
#define KMP_MOD_TEXT_SIZE(mod)	((unsigned long)(mod)->mem[MOD_TEXT].size)
#define KMP_MOD_INIT_BASE(mod)	((unsigned long)(mod)->mem[MOD_INIT_TEXT].base)
#define KMP_MOD_INIT_SIZE(mod)	((unsigned long)(mod)->mem[MOD_INIT_TEXT].size)
#else
#define KMP_MOD_TEXT_BASE(mod)	((unsigned long)(mod)->core_layout.base)
#define KMP_MOD_TEXT_SIZE(mod)	((unsigned long)(mod)->core_layout.text_size)
#define KMP_MOD_INIT_BASE(mod)	((unsigned long)(mod)->init_layout.base)
#define KMP_MOD_INIT_SIZE(mod)	((unsigned long)(mod)->init_layout.text_size)
#endif

/*
 * The hooks only the KUnit suites call (kmemprof_sum_range() and the
 * like) exist only in the rig's test build on a kernel with KUnit
 * (KMP_TEST_HOOKS): in KUnit's own namespace from 6.2, which has
 * <kunit/visibility.h>, imported by the test module with
 * KMP_IMPORT_TEST_HOOKS() (the namespace is a string from 6.13); before,
 * exported GPL-only. (6.1.y has the header backported, but a version test
 * is what sparse can read: it does not know __has_include.) Elsewhere a
 * hook that is also the module's own function is not exported at all.
 */
#if defined(KMEMPROF_TEST_BUILD) && IS_ENABLED(CONFIG_KUNIT)
#define KMP_TEST_HOOKS			1
#else
#define KMP_TEST_HOOKS			0
#endif

#if !KMP_TEST_HOOKS
#define kmp_export_test_hook(sym)	struct kmp_no_test_hook_##sym
#define KMP_IMPORT_TEST_HOOKS()		struct kmp_no_test_hook_ns
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#include <kunit/visibility.h>
#define kmp_export_test_hook(sym)	EXPORT_SYMBOL_IF_KUNIT(sym)
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define KMP_IMPORT_TEST_HOOKS()						\
	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define KMP_IMPORT_TEST_HOOKS()						\
	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif
#else
#define kmp_export_test_hook(sym)	EXPORT_SYMBOL_GPL(sym)
#define KMP_IMPORT_TEST_HOOKS()		struct kmp_no_test_hook_ns
#endif

/*
 * CPU capacity (big.LITTLE) comes from the per-CPU cpu_scale, which 5.10
 * does not export to modules (6.1 does). Without it every CPU counts as
 * the same size and the clusters come from the topology alone.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#include <linux/sched/topology.h>
#define kmp_cpu_capacity(cpu)		arch_scale_cpu_capacity(cpu)
#else
#define kmp_cpu_capacity(cpu)		((void)(cpu), 1024UL)
#endif

/*
 * A cheap clock for lifetimes: the arm64 generic timer's counter (about a
 * fifth of local_clock()'s cost), scaled to ns by the caller; the read
 * the kernel chose for it, an indirect call, which clock.c replaces with
 * the register read where that is all the kernel's does. Elsewhere,
 * local_clock() itself.
 */
#if IS_ENABLED(CONFIG_ARM64) && IS_ENABLED(CONFIG_ARM_ARCH_TIMER)
#include <asm/arch_timer.h>
#include <clocksource/arm_arch_timer.h>
#define KMP_HAVE_CYCLES		1
static inline u64 kmp_cycles(void)
{
	return arch_timer_read_counter();
}

static inline u32 kmp_cycles_rate(void)
{
	return arch_timer_get_cntfrq();
}
#else
#define KMP_HAVE_CYCLES		0
#endif

/*
 * 6.10 split a large kmalloc() of a run-time size into two events: one
 * from inside __kmalloc*() itself, then one from the real caller. The
 * first is a relay, not an allocation of its own (account.c).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define KMP_NR_RELAYS	3
#define KMP_RELAY_FNS	{						\
	(unsigned long)__kmalloc_noprof,				\
	(unsigned long)__kmalloc_node_noprof,				\
	(unsigned long)__kmalloc_node_track_caller_noprof,		\
}
#else
#define KMP_NR_RELAYS	0
#define KMP_RELAY_FNS	{ }
#endif

/*
 * A page allocator's entry point that modules can name, for the KUnit
 * suites' frame records made by hand: a return address inside it is one
 * the walks pass over (callsite.c). __get_free_pages() is a macro from
 * 6.10, around get_free_pages_noprof().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define KMP_PAGE_ALLOC_FN	get_free_pages_noprof
#else
#define KMP_PAGE_ALLOC_FN	__get_free_pages
#endif

/*
 * The frame-record walk that finds a page event's call site (internal.h):
 * arm64, whose kernel always keeps frame records. Return addresses may
 * carry a pointer authentication code, stripped as the kernel's own
 * unwinder does (ptrauth_strip_insn_pac() before 6.4).
 */
#if IS_ENABLED(CONFIG_ARM64) && IS_ENABLED(CONFIG_FRAME_POINTER)
#include <asm/compiler.h>
#include <asm/pointer_auth.h>
#define KMP_HAVE_FP_WALK	1
#ifdef ptrauth_strip_kernel_insn_pac
#define kmp_strip_pac(lr)	ptrauth_strip_kernel_insn_pac(lr)
#else
#define kmp_strip_pac(lr)	ptrauth_strip_insn_pac(lr)
#endif
#else
#define KMP_HAVE_FP_WALK	0
#define kmp_strip_pac(lr)	(lr)
#endif

/*
 * A task's pending kretprobe returns (stacks.h): task_struct's list from
 * 5.11, where the unwinder began to put their return addresses back.
 */
#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK) && \
	LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define KMP_HAVE_KRETPROBE_INSTANCES	1
#else
#define KMP_HAVE_KRETPROBE_INSTANCES	0
#endif

/*
 * Hooks on the allocator's untraced functions (hooks.c), through the
 * ftrace function API: no kprobes, which Rockchip's kernels lack.
 *
 * A free is an entry callback: it reads the function's arguments and
 * changes nothing, so it never claims IPMODIFY and shares the function
 * with livepatch, BPF trampolines and any other ftrace user.
 *
 * An allocation's results exist only once its function returns. Where the
 * kernel has an exit handler that sees the return value, the hook is one:
 *
 *   fprobe (6.14-, FPROBE)     on function_graph with ftrace_regs: an entry
 *                              handler keeps the arguments in its entry
 *                              data, the exit handler enters the objects.
 *                              Before 6.14 arm64 has no fprobe (it needed
 *                              DYNAMIC_FTRACE_WITH_REGS and rethook), and
 *                              function_graph is not exported to modules.
 *
 * Elsewhere (5.10 to 6.13 on arm64, or no FPROBE) the hook sends the call
 * to a wrapper of kmemprof's, which calls the function and sees what it
 * returns: the hook sets the instruction pointer, as livepatch does, and
 * so needs IPMODIFY. That needs an ftrace that saves the registers and
 * restores a changed instruction pointer:
 *
 *   DYNAMIC_FTRACE_WITH_REGS   (arm64 to 6.1, x86): full pt_regs, asked
 *                              for with FTRACE_OPS_FL_SAVE_REGS;
 *   DYNAMIC_FTRACE_WITH_ARGS   (arm64 from 6.2): ftrace_regs' accessors.
 *
 * Elsewhere there are no hooks and stats lists the paths as untraced.
 * Before 5.11 a callback gets pt_regs, later struct ftrace_regs.
 *
 * Recursion: from 5.11 an ops without FTRACE_OPS_FL_RECURSION guards
 * itself, as livepatch does, with ftrace_test_recursion_trylock(); 5.10
 * has no such helper, and its ftrace guards an ops that does not say
 * FTRACE_OPS_FL_RECURSION_SAFE.
 */
#if IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#define KMP_HAVE_HOOKS		1
#define KMP_HOOK_ENTRY_FLAGS	FTRACE_OPS_FL_SAVE_REGS
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define kmp_hook_regs_t		struct pt_regs
#define kmp_hook_pt_regs(r)	(r)
#else
#define kmp_hook_regs_t		struct ftrace_regs
#define kmp_hook_pt_regs(r)	ftrace_get_regs(r)
#endif
#define kmp_hook_arg(r, n)	regs_get_kernel_argument(kmp_hook_pt_regs(r), n)
#define kmp_hook_set_ip(r, ip)	instruction_pointer_set(kmp_hook_pt_regs(r), ip)
#if IS_ENABLED(CONFIG_ARM64)
#define KMP_HAVE_HOOK_SET_ARG	1
#define kmp_hook_set_arg(r, n, v)	(kmp_hook_pt_regs(r)->regs[n] = (v))
#endif
#elif IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_ARGS) && IS_ENABLED(CONFIG_ARM64)
#define KMP_HAVE_HOOKS		1
#define KMP_HOOK_ENTRY_FLAGS	0
#define kmp_hook_regs_t		struct ftrace_regs
#define kmp_hook_arg(r, n)	ftrace_regs_get_argument(r, n)
#define kmp_hook_set_ip(r, ip)	ftrace_regs_set_instruction_pointer(r, ip)
#define KMP_HAVE_HOOK_SET_ARG	1
#ifdef arch_ftrace_regs
#define kmp_hook_set_arg(r, n, v)	(arch_ftrace_regs(r)->regs[n] = (v))
#else
#define kmp_hook_set_arg(r, n, v)	((r)->regs[n] = (v))
#endif
#else
#define KMP_HAVE_HOOKS		0
#endif

#if KMP_HAVE_HOOKS
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#include <linux/trace_recursion.h>
#define kmp_hook_trylock(ip, pip)	ftrace_test_recursion_trylock(ip, pip)
#define kmp_hook_unlock(bit)		ftrace_test_recursion_unlock(bit)
#else
#define kmp_hook_trylock(ip, pip)	0
#define kmp_hook_unlock(bit)		do { } while (0)
#endif
/* A wrapper's hook: the entry's flags, and the right to move the IP. */
#define KMP_HOOK_WRAP_FLAGS	(KMP_HOOK_ENTRY_FLAGS | FTRACE_OPS_FL_IPMODIFY)
#endif

/*
 * The exit handlers: fprobe on function_graph, 6.14-. Its handlers get
 * ftrace_regs, the caller's return address, and entry data of their own.
 */
#if KMP_HAVE_HOOKS && IS_ENABLED(CONFIG_FPROBE) && \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#include <linux/fprobe.h>
#define KMP_HAVE_EXIT_HOOKS	1
#else
#define KMP_HAVE_EXIT_HOOKS	0
#endif

/*
 * A hook table entry (hooks.c): a free's function and entry handler, an
 * allocation's function and its wrapper (with the argument register the
 * caller goes in) or its exit handler's parts, as this kernel hooks it.
 * KMP_HOOK_EXIT(): a path only an exit handler can take (no wrapper).
 */
#if !KMP_HAVE_HOOKS
#define KMP_HOOK_FREE(f, e)		.fn = f
#define KMP_HOOK_ALLOC(f, w, a, en, ex, n)	.fn = f
#define KMP_HOOK_EXIT(f, ex, n)		.fn = f
#elif KMP_HAVE_EXIT_HOOKS
#define KMP_HOOK_FREE(f, e)		.fn = f, .entry = e
#define KMP_HOOK_ALLOC(f, w, a, en, ex, n)				\
	.fn = f, .enter = en, .exit = ex, .nargs = n
#define KMP_HOOK_EXIT(f, ex, n)						\
	.fn = f, .exit = ex, .nargs = n, .frees = true
#else
#define KMP_HOOK_FREE(f, e)		.fn = f, .entry = e
#define KMP_HOOK_ALLOC(f, w, a, en, ex, n)	.fn = f, .wrapper = w, .caller_arg = a
#define KMP_HOOK_EXIT(f, ex, n)		.fn = f
#endif

/* CMA's event at the end of cma_alloc() (probes.c): 5.13 renamed it. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 13, 0)
#define KMP_HAVE_CMA_FINISH		1
#else
#define KMP_HAVE_CMA_FINISH		0
#endif

/* The migration step (hooks.c): folios from 5.16. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 16, 0)
#define KMP_MIGRATE_NAME		"folio_migrate_flags"
#define KMP_MIGRATE_FN			folio_migrate_flags
#define KMP_MIGRATE_T			struct folio
#define KMP_MIGRATE_PFN(f)		folio_pfn(f)
#define KMP_MIGRATE_ORDER(f)		folio_order(f)
#else
#define KMP_MIGRATE_NAME		"migrate_page_states"
#define KMP_MIGRATE_FN			migrate_page_states
#define KMP_MIGRATE_T			struct page
#define KMP_MIGRATE_PFN(p)		page_to_pfn(p)
#define KMP_MIGRATE_ORDER(p)		compound_order(p)
#endif

/*
 * zsmalloc's pages (zram's) migrate through its movable_ops'
 * zs_page_migrate(dst, src, mode), from 6.0 (before, an address_space's
 * migratepage with other arguments), with no folio_migrate_flags().
 * Until 6.14 it cannot fail once called, but in MIGRATE_SYNC_NO_COPY
 * mode (the last of the modes, gone in 6.10), which it refuses first:
 * hooks.c takes the move at its entry there. From 6.15 its zspage lock
 * can refuse the move too, which only an exit handler could see: not
 * hooked.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 0, 0) &&			\
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 15, 0) &&		\
	IS_ENABLED(CONFIG_ZSMALLOC) && IS_ENABLED(CONFIG_COMPACTION)
#define KMP_HAVE_ZS_MIGRATE		1
#else
#define KMP_HAVE_ZS_MIGRATE		0
#endif

/* The caller's frame record at a hooked function's entry (fprobe). */
#if KMP_HAVE_EXIT_HOOKS && IS_ENABLED(CONFIG_ARM64)
#define kmp_fregs_fp(r)		(arch_ftrace_regs(r)->fp)
#else
#define kmp_fregs_fp(r)		((void)(r), 0UL)
#endif

/* kmem_cache_alloc_bulk(): _noprof from 6.10; it returns bool from 6.18. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define KMP_CACHE_ALLOC_BULK		kmem_cache_alloc_bulk_noprof
#define KMP_CACHE_ALLOC_BULK_NAME	"kmem_cache_alloc_bulk_noprof"
#else
#define KMP_CACHE_ALLOC_BULK		kmem_cache_alloc_bulk
#define KMP_CACHE_ALLOC_BULK_NAME	"kmem_cache_alloc_bulk"
#endif

/*
 * The page allocator's bulk allocation, from 5.13: __alloc_pages_bulk(),
 * alloc_pages_bulk_noprof() from 6.10, without its list from 6.14.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#define KMP_HAVE_PAGES_BULK		1
#define KMP_PAGES_BULK_NAME		"alloc_pages_bulk_noprof"
#define KMP_PAGES_BULK_FN		alloc_pages_bulk_noprof
#define KMP_PAGES_BULK_PARAMS						\
	gfp_t gfp, int nid, nodemask_t *nodemask, int nr_pages,	\
	struct page **array
#define KMP_PAGES_BULK_CALL(list)					\
	alloc_pages_bulk_noprof(gfp, nid, nodemask, nr_pages, array)
#define KMP_PAGES_BULK_LIST		NULL
#define KMP_PAGES_BULK_NARGS		5
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(5, 13, 0)
#define KMP_HAVE_PAGES_BULK		1
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define KMP_PAGES_BULK_NAME		"alloc_pages_bulk_noprof"
#define KMP_PAGES_BULK_FN		alloc_pages_bulk_noprof
#else
#define KMP_PAGES_BULK_NAME		"__alloc_pages_bulk"
#define KMP_PAGES_BULK_FN		__alloc_pages_bulk
#endif
#define KMP_PAGES_BULK_PARAMS						\
	gfp_t gfp, int nid, nodemask_t *nodemask, int nr_pages,	\
	struct list_head *list, struct page **array
#define KMP_PAGES_BULK_CALL(list)					\
	KMP_PAGES_BULK_FN(gfp, nid, nodemask, nr_pages, list, array)
#define KMP_PAGES_BULK_LIST		list
#define KMP_PAGES_BULK_NARGS		6
#else
#define KMP_HAVE_PAGES_BULK		0
#endif

/* For the tests: a bulk allocation of pages into an array. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#define kmp_pages_bulk_array(gfp, n, a)	alloc_pages_bulk(gfp, n, a)
#elif KMP_HAVE_PAGES_BULK
#define kmp_pages_bulk_array(gfp, n, a)	alloc_pages_bulk_array(gfp, n, a)
#endif

/* kvfree_rcu_barrier(), 6.12: waits for kfree_rcu()'s batches too. */
#define KMP_HAVE_KVFREE_RCU_BARRIER					\
	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))

/*
 * __flatten arrived in 6.1's compiler_attributes.h. The probes need it
 * there: 6.1's arm64 arch_local_irq_save() and _restore() are plain
 * inline, and GCC makes them calls, which cost a probe its leaf path.
 */
#ifndef __flatten
#define __flatten	__attribute__((flatten))
#endif

/*
 * __uninitialized came with 6.9 and reached the stable trees in 2024; a
 * 5.10 or 6.1 tree from before has none. Empty is what the kernel itself
 * defines where the compiler has no such attribute.
 */
#ifndef __uninitialized
#define __uninitialized
#endif

/*
 * Allocator events in NMI: from 6.15, whose try_alloc_pages() and
 * free_pages_nolock() run there (and 6.18's kmalloc_nolock() and
 * kfree_nolock(), below). Before, the allocators take their locks with
 * interrupts saved, so no event can come from NMI, and the probes' fast
 * paths leave the test out.
 */
#define KMP_NMI_EVENTS	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0))

/*
 * 6.18's kmalloc_nolock() and kfree_nolock() have no events, and run in
 * any context, NMI included. 7.1's partitioned kmalloc caches give the
 * first a token and a leading underscore (DECL_TOKEN_PARAMS).
 * From 6.18 kfree_rcu() puts objects in a per-CPU RCU sheaf, which frees
 * them after the grace period with no event. __kfree_rcu_sheaf(), which
 * puts them there, has no prototype modules can see, and is not hooked.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define KMP_HAVE_NOLOCK			1
#ifdef DECL_TOKEN_PARAMS
#define KMP_KMALLOC_NOLOCK_NAME		"_kmalloc_nolock_noprof"
#define KMP_KMALLOC_NOLOCK_PARAMS					\
	DECL_TOKEN_PARAMS(size, token), gfp_t gfp, int node
#define KMP_KMALLOC_NOLOCK_CALL						\
	_kmalloc_nolock_noprof(PASS_TOKEN_PARAMS(size, token), gfp, node)
#else
#define KMP_KMALLOC_NOLOCK_NAME		"kmalloc_nolock_noprof"
#define KMP_KMALLOC_NOLOCK_PARAMS	size_t size, gfp_t gfp, int node
#define KMP_KMALLOC_NOLOCK_CALL		kmalloc_nolock_noprof(size, gfp, node)
#endif
#else
#define KMP_HAVE_NOLOCK			0
#endif

/*
 * The word of a percpu chunk's page that percpu-vm.c's
 * pcpu_set_page_chunk() stores the chunk pointer in: page->index on 5.10
 * to 6.12, page->private on the newest kernels; 6.16, where struct page
 * lost its index, is taken as the change. prior.c checks the pointer
 * against the chunk's mapping before it believes it, so a wrong word here
 * costs the before_load:percpu line its pages, never a wrong page.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define kmp_pcpu_page_chunk(page)	READ_ONCE((page)->private)
#else
#define kmp_pcpu_page_chunk(page)	READ_ONCE((page)->index)
#endif

/*
 * find_ge_pid(), the first PID from @nr on (prior.c's walk of the tasks'
 * stacks): exported on 6.1 and later, not on 5.10, where it is the PID
 * namespace's IDR's next entry as it is everywhere (kernel/pid.c).
 * <linux/pid_namespace.h> is the caller's.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define kmp_find_ge_pid(nr, ns)	find_ge_pid(nr, ns)
#else
#define kmp_find_ge_pid(nr, ns)						\
	({ int __nr = (nr); idr_get_next(&(ns)->idr, &__nr); })
#endif

#endif /* _KMEMPROF_COMPAT_H */
