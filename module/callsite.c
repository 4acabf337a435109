// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: finding the call site of events that do not carry a useful one.
 *
 * mm_page_alloc carries no call site at all, and percpu_alloc_percpu on
 * kernels before 6.10 names the exported wrapper, not its caller, as a
 * large kmalloc's event does before 6.1 (compat.h). For those, the probe
 * unwinds a few frames with stack_trace_save() and takes the first frame
 * past the allocator's own entry points. The same unwind gives the callers
 * of stack-keyed tags and the sampled stacks.
 *
 * Whether a frame belongs to an allocator is decided by its symbol name
 * (the prefixes below, which also match the _noprof forms of 6.10+) and
 * remembered in kmp_frame_cache, a direct-mapped cache of return addresses.
 * Each slot is one word, (addr << 3) | verdict, written and read whole,
 * so it needs no lock; a lost race only costs another lookup. Module code
 * is never an allocator entry point, so a verdict can never go stale when
 * modules come and go.
 *
 * The names of call sites and callers that the views print are names.c's.
 *
 * Notes on locking:
 *
 * - kmp_frame_cache: none (see above). The symbol lookup on a cache miss
 *   uses a per-CPU buffer, safe because the probes run with interrupts
 *   off; NMI never gets here (the probes turn it away).
 * - The relay ranges and the bulk page wrapper's extent
 *   (kmp_frame_own_init()) are set at load, before any probe is attached.
 * - kmp_modtext (the other modules' text): RCU. The probes read it under
 *   rcu_read_lock(); kmp_modtext_lock (mutex, from the module notifier
 *   and at load and unload) serialises the changes, each of which
 *   publishes a new table with rcu_assign_pointer() and frees the old
 *   with kvfree_rcu(), so a reader sees one table whole. Inside it only
 *   the allocator.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include <kmemprof/test.h>

#include "internal.h"
#include "paths.h"
#include "tables.h"

#define KMP_FRAME_CACHE_BITS	12

#define KMP_FRAME_PAGE		BIT(0)
#define KMP_FRAME_PERCPU	BIT(1)
#define KMP_FRAME_SLAB		BIT(2)
#define KMP_FRAME_TRACE		BIT(3)	/* a tracepoint's iterator */
#define KMP_FRAME_BULK		BIT(4)	/* hooks.c's bulk page wrapper */
#define KMP_FRAME_GRAPH		BIT(5)	/* function_graph's return trampoline */
#define KMP_FRAME_RELAY		BIT(6)	/* 6.10's first large kmalloc event */
#define KMP_FRAME_RETURN	BIT(7)	/* gives free pages back (below) */
#define KMP_FRAME_BULKFN	BIT(8)	/* the bulk page allocator itself */
#define KMP_FRAME_KV		BIT(9)	/* goes to its caller, over kmalloc() */
#define KMP_FRAME_PASS		BIT(10)	/* passed on the way there (below) */
#define KMP_FRAME_BITS		11
#define KMP_FRAME_MASK		(BIT(KMP_FRAME_BITS) - 1)

/*
 * The allocators' own functions, by name prefix (which also matches the
 * _noprof forms of 6.10+ and the compiler's .constprop/.isra clones), and
 * what a frame in each is to the walk:
 *
 * - KMP_FRAME_PAGE: an entry point of an interface that hands out pages,
 *   passed over to the caller that asked for them, as allocinfo's
 *   alloc_hooks() charges that caller: the page allocator; vmalloc(),
 *   vrealloc() and kvmalloc(), whose pages go to vmalloc()'s caller; CMA
 *   (probes.c's cma_alloc_finish) and the DMA API over it and over the page
 *   allocator (dma-direct, iommu-dma, dma_alloc_pages()), whose pages go
 *   to the driver; the page fragment cache, whose pages go to the caller
 *   whose fragment made it refill; the system dma-buf heap's helper, whose
 *   pages go to the heap's allocate op (its caller is userspace's ioctl);
 *   a mempool's, from mempool_alloc_pages(), whose pages go to the caller
 *   of mempool_alloc() (or of mempool_create()/mempool_init(), for the
 *   prefill).
 * - KMP_FRAME_KV: a slab event whose call site is one of these goes to
 *   their caller, past any more of them and of KMP_FRAME_PASS, as
 *   allocinfo's alloc_hooks() charges it (the kmalloc() under them is a
 *   _noprof call, which charges the tag of the alloc_hooks() around them):
 *   - kvmalloc() and kvrealloc() (kvzalloc(), kvcalloc() and
 *     kvmalloc_array() are kvmalloc() inline), and krealloc() under
 *     kvrealloc() (kvmalloc() calls kmalloc() with its own return address
 *     before 7.x, kvrealloc() krealloc() on every kernel; kvrealloc()
 *     calls kvmalloc()). krealloc() itself passes its caller's address
 *     on, as kmemdup() does, so no event names it;
 *   - vmalloc()'s array of page pointers, a kmalloc() in
 *     __vmalloc_node_range() (6.1+, __vmalloc_area_node() inlined) or
 *     __vmalloc_area_node() (5.10), the only one there on every kernel: the
 *     vm_struct (__get_vm_area_node()) and the vmap_area
 *     (alloc_vmap_area()), which allocinfo charges to mm/vmalloc.c, are
 *     functions of their own, so stay there;
 *   - a mempool's elements: the pool's own alloc callbacks
 *     (mempool_alloc_slab(), mempool_kmalloc()) call the slab allocator
 *     with their own return address; their objects go to the caller of
 *     mempool_alloc(), or of mempool_create()/mempool_init() for the
 *     pool's prefill. mempool_create()'s struct mempool goes to its
 *     caller too (a _noprof call from 6.10).
 * - KMP_FRAME_PASS: passed, as KMP_FRAME_KV is, on the way from a
 *   KMP_FRAME_KV call site to its caller, but a slab event whose call site
 *   is one of these stays there: mempool_init_node()'s and
 *   mempool_resize()'s arrays of elements, which allocinfo charges to
 *   mm/mempool.c (kmalloc_array() there is alloc_hooks()'d).
 * - KMP_FRAME_PERCPU: the percpu allocator, where its event names itself
 *   (before 6.10).
 * - KMP_FRAME_SLAB: where a large kmalloc's event names the allocator
 *   (compat.h).
 * - KMP_FRAME_RETURN: gives pages that were never allocated back to the
 *   free lists: alloc_contig_range()'s head and tail outside the range it
 *   was asked for (free_contig_range() under it), and compaction's
 *   isolated free pages it did not use (release_free_list(),
 *   release_freepages(), which compact_zone() may inline).
 *
 * Only the kernel's own functions are looked up: module code is never an
 * allocator (kmp_frame_lookup()).
 */
static const struct kmp_frame_fn {
	const char *prefix;
	unsigned long kind;
} kmp_frame_fns[] = {
	/* the page allocator */
	{ "__alloc_pages",		KMP_FRAME_PAGE },
	{ "alloc_pages",		KMP_FRAME_PAGE },
	{ "__get_free_pages",		KMP_FRAME_PAGE },
	{ "get_zeroed_page",		KMP_FRAME_PAGE },
	{ "get_free_pages",		KMP_FRAME_PAGE },
	{ "__folio_alloc",		KMP_FRAME_PAGE },
	{ "folio_alloc",		KMP_FRAME_PAGE },
	{ "vma_alloc_folio",		KMP_FRAME_PAGE },
	{ "alloc_page_interleave",	KMP_FRAME_PAGE },
	{ "__alloc_frozen_pages",	KMP_FRAME_PAGE },
	{ "alloc_frozen_pages",		KMP_FRAME_PAGE },
	/* vmalloc() and kvmalloc() */
	{ "__vmalloc",			KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "vmalloc",			KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "vzalloc",			KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "vm_area_alloc_pages",	KMP_FRAME_PAGE },
	{ "__vcalloc",			KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "vcalloc",			KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "vrealloc",			KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "__kvmalloc",			KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "kvmalloc",			KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "kvrealloc",			KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "krealloc",			KMP_FRAME_KV },
	/* mempools (mempool_alloc_slab(), _pages(), _preallocated() too) */
	{ "mempool_alloc",		KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "mempool_kmalloc",		KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "mempool_create",		KMP_FRAME_PAGE | KMP_FRAME_KV },
	{ "mempool_init",		KMP_FRAME_PAGE | KMP_FRAME_PASS },
	{ "mempool_resize",		KMP_FRAME_PAGE | KMP_FRAME_PASS },
	/* CMA and the DMA API */
	{ "cma_alloc",			KMP_FRAME_PAGE },
	{ "__cma_alloc",		KMP_FRAME_PAGE },
	{ "alloc_contig_",		KMP_FRAME_PAGE | KMP_FRAME_RETURN },
	{ "__alloc_contig_",		KMP_FRAME_PAGE | KMP_FRAME_RETURN },
	{ "dma_alloc_contiguous",	KMP_FRAME_PAGE },
	{ "dma_alloc_from_contiguous",	KMP_FRAME_PAGE },
	{ "__dma_direct_alloc_pages",	KMP_FRAME_PAGE },
	{ "dma_direct_alloc",		KMP_FRAME_PAGE },
	{ "dma_alloc_attrs",		KMP_FRAME_PAGE },
	{ "__dma_alloc_pages",		KMP_FRAME_PAGE },
	{ "dma_alloc_pages",		KMP_FRAME_PAGE },
	{ "dma_alloc_noncontiguous",	KMP_FRAME_PAGE },
	{ "alloc_single_sgt",		KMP_FRAME_PAGE },
	{ "dma_common_alloc_pages",	KMP_FRAME_PAGE },
	{ "__iommu_dma_alloc",		KMP_FRAME_PAGE },
	{ "iommu_dma_alloc",		KMP_FRAME_PAGE },
	/* the page fragment cache */
	{ "__page_frag_",		KMP_FRAME_PAGE },
	{ "page_frag_alloc",		KMP_FRAME_PAGE },
	/* the system dma-buf heap */
	{ "alloc_largest_available",	KMP_FRAME_PAGE },
	/* given back, never allocated */
	{ "release_free",		KMP_FRAME_RETURN },
	{ "compact_zone",		KMP_FRAME_RETURN },
	{ "isolate_freepages_range",	KMP_FRAME_RETURN },
	/* percpu */
	{ "pcpu_alloc",			KMP_FRAME_PERCPU },
	{ "__alloc_percpu",		KMP_FRAME_PERCPU },
	{ "__alloc_reserved_percpu",	KMP_FRAME_PERCPU },
	/* large kmalloc, where its event names the allocator */
	{ "__kmalloc",			KMP_FRAME_SLAB },
	{ "kmalloc_order",		KMP_FRAME_SLAB },
};

/*
 * 6.10's relays: the functions __do_kmalloc_node() is inlined into, whose
 * call of __kmalloc_large_node_noprof() traces a large kmalloc() before
 * the event with the real caller. 7.x inlines it into kvmalloc() and
 * __kmalloc_flags_noprof() as well; 6.12's kvmalloc() calls
 * __kmalloc_node_noprof() instead, and its event is the real one. So a
 * site is a relay only if it is in one of these and, where the call can
 * be read (arm64), the instruction before it is that call.
 */
#if KMP_NR_RELAYS
static const char * const kmp_relay_fns[] = {
	"__kmalloc_noprof", "__kmalloc_node_noprof",
	"__kmalloc_node_track_caller_noprof",
#ifdef CONFIG_ARM64
	"__kmalloc_flags_noprof", "__kvmalloc_node_noprof",
#endif
};
#endif

static unsigned long kmp_frame_cache[1 << KMP_FRAME_CACHE_BITS];
/* kmp_frame_lookup()'s, allocated at load (see kmp_account_init()) */
static char __percpu *kmp_sym_buf;

int kmp_callsite_init(void)
{
	kmp_sym_buf = __alloc_percpu(KSYM_SYMBOL_LEN, 1);
	return kmp_sym_buf ? 0 : -ENOMEM;
}

/* Every probe and hook detached. */
void kmp_callsite_exit(void)
{
	free_percpu(kmp_sym_buf);
	kmp_sym_buf = NULL;
}

size_t kmp_callsite_memory(void)
{
	return KSYM_SYMBOL_LEN * num_possible_cpus();
}

/*
 * What the kernel function @name is to the walk (kmp_frame_fns). On each
 * miss of the frame cache, so the first two characters are compared
 * before the whole prefix (every prefix has two or more): of the 54, a
 * name starts like a handful at most, and the whole compare (a strlen()
 * and a strncmp()) was about 40 instructions a prefix.
 */
static unsigned long kmp_frame_fn_kind(const char *name)
{
	unsigned long kind = 0;
	unsigned int i;

	if (!name[0])
		return 0;
	for (i = 0; i < ARRAY_SIZE(kmp_frame_fns); i++) {
		const char *p = kmp_frame_fns[i].prefix;

		if (p[0] == name[0] && p[1] == name[1] &&
		    str_has_prefix(name, p))
			kind |= kmp_frame_fns[i].kind;
	}
	return kind;
}

/* Whether @addr, in the function @name, returns from a relay's call. */
static bool kmp_is_relay(unsigned long addr, const char *name)
{
#if KMP_NR_RELAYS
	unsigned int i;
#ifdef CONFIG_ARM64
	unsigned long to;
	u32 insn;
#endif

	for (i = 0; i < ARRAY_SIZE(kmp_relay_fns); i++)
		if (!strcmp(name, kmp_relay_fns[i]))
			break;
	if (i == ARRAY_SIZE(kmp_relay_fns))
		return false;
#ifdef CONFIG_ARM64
	/* BL: 0b100101 imm26, a signed offset in instructions */
	if (get_kernel_nofault(insn, (u32 *)(addr - AARCH64_INSN_SIZE)))
		return false;
	insn = le32_to_cpu((__force __le32)insn);
	if ((insn & 0xfc000000) != 0x94000000)
		return false;
	to = addr - AARCH64_INSN_SIZE + (sign_extend64(insn & 0x03ffffff, 25) << 2);
	return to == (unsigned long)__kmalloc_large_node_noprof;
#else
	return true;
#endif
#else
	return false;
#endif
}

/*
 * The other modules' text: every module's core and init text but
 * kmemprof's own, as ranges sorted by start, so that a frame in one is
 * classified with a binary search instead of by name. Naming a module
 * address is a linear search of all the module's symbols (about 25
 * instructions a symbol: a quarter of a million for a site in a module of
 * 10000), and the frame cache holds fewer frames than such a module has
 * sites, so it would recur.
 *
 * Kept by a module notifier of its own, first in the chain (COMING adds a
 * module's ranges before any other handler runs, such as KUnit's, which
 * runs a module's suites from there on 6.1; LIVE drops its init text,
 * GOING all of it; main.c) and, at load, from the modules already there.
 * Each change publishes a new table whole with rcu_assign_pointer(), read
 * under rcu_read_lock() with rcu_dereference(), and the old one goes with
 * kvfree_rcu(). A module the table lacks (one coming while kmemprof
 * loads, or a change that could not allocate) is named by the slower
 * lookup the table stands in for: the table saves lookups, it never
 * decides a kernel address. A range it
 * keeps too long (a drop that could not allocate) only ever holds module
 * or BPF code again, which is never an allocator's either.
 */
struct kmp_modtext_range {
	unsigned long start, end;
	const struct module *mod;
};

struct kmp_modtext {
	struct rcu_head rcu;
	unsigned int n;
	struct kmp_modtext_range r[];
};

static struct kmp_modtext __rcu *kmp_modtext;
static DEFINE_MUTEX(kmp_modtext_lock);

#if KMP_TEST_HOOKS
static DEFINE_PER_CPU(unsigned int, kmp_frame_named);	/* this CPU's lookups */
#endif

/* Whether @addr is in another module's text, as far as the table knows. */
static bool kmp_in_modtext(unsigned long addr)
{
	const struct kmp_modtext *t;
	unsigned int lo = 0, hi;
	bool found = false;

	rcu_read_lock();
	t = rcu_dereference(kmp_modtext);
	hi = t ? t->n : 0;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (addr < t->r[mid].start) {
			hi = mid;
		} else if (addr >= t->r[mid].end) {
			lo = mid + 1;
		} else {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static int kmp_modtext_cmp(const void *a, const void *b)
{
	const struct kmp_modtext_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Publish a new table: with @add, @mod's core text and, with @init, its
 * init text, in place of any ranges of @mod's; without @add, the table
 * less @mod's init text (@init) or all of @mod's ranges. Under
 * kmp_modtext_lock. On no memory the table stays as it is.
 */
static void kmp_modtext_edit(const struct module *mod, bool add, bool init)
{
	struct kmp_modtext *old, *t;
	unsigned int i, n = 0;

	lockdep_assert_held(&kmp_modtext_lock);
	old = rcu_dereference_protected(kmp_modtext,
					lockdep_is_held(&kmp_modtext_lock));
	t = kvmalloc(struct_size(t, r, (old ? old->n : 0) + 2), GFP_KERNEL);
	if (!t)
		return;
	for (i = 0; old && i < old->n; i++) {
		const struct kmp_modtext_range *r = &old->r[i];

		if (r->mod == mod && (add || !init ||
				      r->start == KMP_MOD_INIT_BASE(mod)))
			continue;
		t->r[n++] = *r;
	}
	if (add && KMP_MOD_TEXT_SIZE(mod))
		t->r[n++] = (struct kmp_modtext_range){
			KMP_MOD_TEXT_BASE(mod),
			KMP_MOD_TEXT_BASE(mod) + KMP_MOD_TEXT_SIZE(mod), mod };
	if (add && init && KMP_MOD_INIT_SIZE(mod))
		t->r[n++] = (struct kmp_modtext_range){
			KMP_MOD_INIT_BASE(mod),
			KMP_MOD_INIT_BASE(mod) + KMP_MOD_INIT_SIZE(mod), mod };
	if (!add && n == (old ? old->n : 0)) {
		kvfree(t);	/* nothing of @mod's to drop */
		return;
	}
	t->n = n;
	sort(t->r, n, sizeof(t->r[0]), kmp_modtext_cmp, NULL);
	rcu_assign_pointer(kmp_modtext, t);
	if (old)
		kvfree_rcu(old, rcu);
}

/*
 * From the module notifier: @mod is COMING (its text and init text join
 * the table), LIVE (its init text is about to be freed) or GOING.
 */
void kmp_modtext_update(struct module *mod, unsigned long state)
{
	if (mod == THIS_MODULE)
		return;
	mutex_lock(&kmp_modtext_lock);
	if (state == MODULE_STATE_COMING)
		kmp_modtext_edit(mod, true, true);
	else if (state == MODULE_STATE_LIVE)
		kmp_modtext_edit(mod, false, true);
	else if (state == MODULE_STATE_GOING)
		kmp_modtext_edit(mod, false, false);
	mutex_unlock(&kmp_modtext_lock);
}

/*
 * At load, after the notifier is registered: the modules already there,
 * found through module_kset as kmp_symidx_module() finds one, each held
 * by a reference on its kobject until its ranges are in. The list's lock
 * is a spinlock, so the array is allocated first, and again larger if
 * the modules outgrew it. A module's notifier calls wait on
 * kmp_modtext_lock meanwhile, and its state is set before its notifier
 * call: one that goes while this runs is either not taken here or
 * dropped after.
 */
void kmp_modtext_init(void)
{
	struct kset *kset = THIS_MODULE->mkobj.kobj.kset;
	unsigned int i, n, cap = 64;
	struct module **mods;
	struct kobject *k;
	bool full;

	if (!kset)
		return;
	for (;;) {
		mods = kvmalloc_array(cap, sizeof(*mods), GFP_KERNEL);
		if (!mods)
			return;
		n = 0;
		full = false;
		spin_lock(&kset->list_lock);
		list_for_each_entry(k, &kset->list, entry) {
			struct module *mod = container_of(k, struct module_kobject,
							  kobj)->mod;
			enum module_state state;

			if (!mod || mod == THIS_MODULE)
				continue;
			state = READ_ONCE(mod->state);
			if (state != MODULE_STATE_COMING &&
			    state != MODULE_STATE_LIVE)
				continue;
			if (n == cap) {
				full = true;
				break;
			}
			if (kobject_get_unless_zero(k))
				mods[n++] = mod;
		}
		spin_unlock(&kset->list_lock);
		if (!full)
			break;
		for (i = 0; i < n; i++)
			kobject_put(&mods[i]->mkobj.kobj);
		kvfree(mods);
		cap *= 2;
	}
	mutex_lock(&kmp_modtext_lock);
	for (i = 0; i < n; i++)
		kmp_modtext_edit(mods[i], true, READ_ONCE(mods[i]->state) ==
						MODULE_STATE_COMING);
	mutex_unlock(&kmp_modtext_lock);
	/* after the lock: a last put takes the module's sysfs files down */
	for (i = 0; i < n; i++)
		kobject_put(&mods[i]->mkobj.kobj);
	kvfree(mods);
}

/* At unload, once the notifier is gone and no probe runs. */
void kmp_modtext_exit(void)
{
	struct kmp_modtext *t;

	mutex_lock(&kmp_modtext_lock);
	t = rcu_replace_pointer(kmp_modtext, NULL,
				lockdep_is_held(&kmp_modtext_lock));
	mutex_unlock(&kmp_modtext_lock);
	if (t)
		kvfree_rcu(t, rcu);
}

/*
 * kmemprof's own text. By name, its one frame that is an allocator's is
 * the bulk page wrapper's (hooks.c: "kmp_wrap_pages_bulk [kmemprof]",
 * below), and naming any of its addresses is a linear search of all its
 * symbols (module_address_lookup(), some 800 of them: about 25
 * instructions each), on every miss of the frame cache at one of its
 * return addresses, which every unwind of the general path has four or
 * five of. So once the wrapper's extent is known (kmp_frame_own_init(),
 * at load, before any probe is attached, from hooks.c), a frame there is
 * classified by it, with no name: the verdict is the one the name gives,
 * since the name of an address is that of the last symbol at or before
 * it, and the extent is from that symbol's start to the next one's, as
 * sprint_symbol() of the start says it. Until then, or where the start is
 * not the wrapper's by name (a CFI jump table in its place), its frames
 * are named as any other.
 */
static unsigned long kmp_own_wrap, kmp_own_wrap_size;
static bool kmp_own_known;

void kmp_frame_own_init(unsigned long wrapper)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long size = 0;

	if (wrapper) {
		sprint_symbol(buf, wrapper);
		if (!str_has_prefix(buf, "kmp_wrap_pages_bulk+0x0/") ||
		    kmp_fn_size(wrapper, &size))
			return;
	}
	kmp_own_wrap = wrapper;
	kmp_own_wrap_size = size;
	/* pairs with the acquire in __kmp_frame_lookup() */
	smp_store_release(&kmp_own_known, true);
}

static __always_inline unsigned long
__kmp_frame_lookup(unsigned long addr)
{
	char *name = this_cpu_ptr(kmp_sym_buf);
	unsigned long verdict = 0;

	lockdep_assert_irqs_disabled();
	/* Another module's code: never an allocator's (see the table). */
	if (kmp_in_modtext(addr))
		return 0;
	/* Our own: the bulk page wrapper's, or no allocator's (above). */
	if (smp_load_acquire(&kmp_own_known) &&
	    within_module(addr, THIS_MODULE))
		return addr - kmp_own_wrap < kmp_own_wrap_size ?
		       KMP_FRAME_PAGE | KMP_FRAME_BULK : 0;
#if KMP_TEST_HOOKS
	__this_cpu_inc(kmp_frame_named);
#endif
	sprint_symbol_no_offset(name, addr);
	/*
	 * "name [module]": module code is never an allocator entry point,
	 * but for kmemprof's own wrapper of the bulk page allocator
	 * (hooks.c), whose function's fallback makes page events.
	 */
	if (str_has_prefix(name, "kmp_wrap_pages_bulk ") &&
	    strstr(name, "[" KBUILD_MODNAME "]"))
		verdict |= KMP_FRAME_PAGE | KMP_FRAME_BULK;
	if (!strchr(name, ' ')) {
		verdict |= kmp_frame_fn_kind(name);
		if (str_has_prefix(name, "__traceiter_"))
			verdict |= KMP_FRAME_TRACE;
		if (str_has_prefix(name, "alloc_pages_bulk") ||
		    str_has_prefix(name, "__alloc_pages_bulk"))
			verdict |= KMP_FRAME_BULKFN;
		if (!strcmp(name, "return_to_handler"))
			verdict |= KMP_FRAME_GRAPH;
		if (kmp_is_relay(addr, name))
			verdict |= KMP_FRAME_RELAY;
	}
	return verdict;
}

/* A miss of the frame cache (timed in the path build, paths.h). */
static unsigned long kmp_frame_lookup(unsigned long addr)
{
	unsigned long verdict;
	u64 t = kmp_psub_begin();

	verdict = __kmp_frame_lookup(addr);
	kmp_psub_end(t, KMP_PC_FRAME_MISS);
	return verdict;
}

static unsigned long kmp_frame_kind(unsigned long addr)
{
	unsigned long *slot = &kmp_frame_cache[hash_long(addr,
							 KMP_FRAME_CACHE_BITS)];
	unsigned long v = READ_ONCE(*slot), verdict;

	if ((v >> KMP_FRAME_BITS) == (addr & (ULONG_MAX >> KMP_FRAME_BITS)))
		return v & KMP_FRAME_MASK;
	verdict = kmp_frame_lookup(addr);
	WRITE_ONCE(*slot, (addr << KMP_FRAME_BITS) | verdict);
	return verdict;
}

/* Whether the event's own call site will not do (see the top of file). */
static __always_inline bool
__kmp_site_needs_unwind(enum kmp_kind kind, unsigned long call_site)
{
	if (kind == KMP_KIND_PAGE)
		return true;
	/* function_graph on the allocator: _RET_IP_ was its trampoline */
	if (call_site && (kmp_frame_kind(call_site) & KMP_FRAME_GRAPH))
		return true;
	if (kind == KMP_KIND_PERCPU)
		return !call_site ||
		       (kmp_frame_kind(call_site) & KMP_FRAME_PERCPU);
	/* not 7.x's relay in kvmalloc(): that event is dropped by its site */
	if ((kmp_frame_kind(call_site) & (KMP_FRAME_KV | KMP_FRAME_RELAY)) ==
	    KMP_FRAME_KV)
		return true;
	return KMP_KMALLOC_SITE_MAY_BE_SLAB &&
	       (kmp_frame_kind(call_site) & KMP_FRAME_SLAB);
}

bool kmp_site_needs_unwind(enum kmp_kind kind, unsigned long call_site)
{
	bool ret;
	u64 t = kmp_psub_begin();

	ret = __kmp_site_needs_unwind(kind, call_site);
	kmp_psub_end(t, KMP_PC_SITE_CHECK);
	return ret;
}

/*
 * The first frame in @f past frames of kind @want; else, for want of one,
 * the first frame outside kmemprof (found = false).
 */
static bool kmp_past_allocator(struct kmp_frames *f, unsigned long want)
{
	bool seen = false;
	unsigned int i;

	for (i = 0; i < f->n; i++) {
		if (kmp_frame_kind(f->e[i]) & want) {
			seen = true;
			continue;
		}
		if (seen) {
			f->site = i;
			return true;
		}
	}
	for (i = 0; i < f->n; i++) {
		if (!within_module(f->e[i], THIS_MODULE)) {
			f->site = i;
			return false;
		}
	}
	f->site = -1;
	return false;
}

/*
 * Whether alloc_pages_bulk()'s exit handler enters the pages it returns
 * (set by hooks.c while that hook is attached): then a page event under
 * the function is its own fallback's, which the handler enters with the
 * others (KMP_SITE_BULK). A page event there while it is not is
 * accounted as any other.
 */
bool kmp_pages_bulk_exits;

/*
 * Whether the page free being taken, which found no entry, gives back
 * pages that were never allocated (KMP_FRAME_RETURN). With interrupts off,
 * never in NMI; only on that rare path, as it unwinds.
 */
static __always_inline bool __kmp_page_free_returns(void)
{
	unsigned long e[2 * KMP_SITE_SEARCH];
	unsigned int i, n;

	n = stack_trace_save(e, ARRAY_SIZE(e), 0);
	for (i = 0; i < n; i++)
		if (kmp_frame_kind(e[i]) & KMP_FRAME_RETURN)
			return true;
	return false;
}

bool kmp_page_free_returns(void)
{
	bool ret;
	u64 t = kmp_psub_begin();

	ret = __kmp_page_free_returns();
	kmp_psub_end(t, KMP_PC_GIVEN_BACK);
	kmp_path_note(ret ? KMP_PC_RETURNED : KMP_PC_UNPAIRED);
	return ret;
}

/*
 * An event whose _RET_IP_ is function_graph's return trampoline (the
 * tracer, or an fprobe, on the allocator function that traced it): the
 * call site is the frame past that function, the first outside kmemprof
 * and the tracepoint's iterator. The unwinder gives its real address.
 */
static unsigned long kmp_past_traced(struct kmp_frames *f, unsigned int max)
{
	unsigned int i;

	f->n = stack_trace_save(f->e, max, 0);
	for (i = 0; i < f->n; i++)
		if (!within_module(f->e[i], THIS_MODULE) &&
		    !(kmp_frame_kind(f->e[i]) & KMP_FRAME_TRACE))
			break;
	f->site = i + 1 < f->n ? i + 1 : -1;
	return f->site >= 0 ? f->e[f->site] : 0;
}

/*
 * An exit handler's event (hooks.c): it unwinds from inside the return
 * trampoline, which makes no frame record of its own, so the hooked
 * function's return address is missing from @f, and the trampoline's
 * call of its handler stands in its place. The handler says, in
 * kmp_exit_ret, what the address was (with interrupts off, and never in
 * NMI). Where it is put back: its index in @f, else -1.
 */
DEFINE_PER_CPU(unsigned long, kmp_exit_ret);

static int kmp_exit_splice(struct kmp_frames *f)
{
	unsigned long ret;
	unsigned int i;

	if (!KMP_HAVE_EXIT_HOOKS || in_nmi())
		return -1;
	ret = this_cpu_read(kmp_exit_ret);
	if (!ret)
		return -1;
	for (i = 0; i < f->n; i++) {
		if (kmp_frame_kind(f->e[i]) & KMP_FRAME_GRAPH) {
			f->e[i] = ret;
			return i;
		}
	}
	return -1;
}

/*
 * Unwind into @f, with room for @after frames past the call site, and
 * find the call site in it: the event's own @call_site where it will do,
 * else the first frame past the allocator's entry points, else the first
 * frame outside kmemprof. f->site is its index in f->e, or -1 if the
 * event's call site is not on the stack (a tail call).
 */
static __always_inline unsigned long
__kmp_unwind(struct kmp_frames *f, enum kmp_kind kind, unsigned long call_site,
	     unsigned int after)
{
	unsigned long want = kind == KMP_KIND_PAGE ? KMP_FRAME_PAGE :
			     kind == KMP_KIND_PERCPU ? KMP_FRAME_PERCPU :
					KMP_FRAME_SLAB | KMP_FRAME_KV;
	unsigned int i, max = min_t(unsigned int, KMP_SITE_SEARCH + after,
				    KMP_MAX_FRAMES);
	unsigned int depth = after ? max : KMP_SITE_QUICK;
	unsigned int end;
	int spliced;
	bool seen, found;

	f->site = -1;
	if (!kmp_site_needs_unwind(kind, call_site)) {
		f->n = stack_trace_save(f->e, max, 0);
		kmp_exit_splice(f);
		for (i = 0; i < f->n; i++) {
			if (f->e[i] == call_site) {
				f->site = i;
				break;
			}
		}
		return call_site;
	}
	/*
	 * The site is rarely past the fifth frame: a short walk costs less,
	 * and the whole one is taken only when the short one came up short.
	 */
	f->n = stack_trace_save(f->e, depth, 0);
	spliced = kmp_exit_splice(f);
	if (spliced >= 0) {
		f->site = spliced;
		return f->e[spliced];
	}
	if (call_site && (kmp_frame_kind(call_site) & KMP_FRAME_GRAPH))
		return kmp_past_traced(f, max);
	if (kind == KMP_KIND_SLAB && (kmp_frame_kind(call_site) & KMP_FRAME_KV))
		want |= KMP_FRAME_PASS;
	found = kmp_past_allocator(f, want);
	if (!found && f->n == depth && depth < max) {
		f->n = stack_trace_save(f->e, max, 0);
		found = kmp_past_allocator(f, want);
	}
	/*
	 * Allocators stacked deeper than the search (vcalloc() over
	 * vmalloc() over the bulk allocator over its single-page fallback):
	 * the whole buffer, rather than a site in the tracepoint's iterator.
	 */
	if (!found && f->n == max && max < KMP_MAX_FRAMES) {
		f->n = stack_trace_save(f->e, KMP_MAX_FRAMES, 0);
		found = kmp_past_allocator(f, want);
	}
	/*
	 * A page event (past a tracepoint's iterator) from inside the bulk
	 * wrapper is its fallback's: the wrapper enters that page itself. The
	 * wrapper's own entering of pages unwinds through it too, but with no
	 * iterator before it. Where no site past the allocator was found,
	 * f->site is the first frame outside kmemprof, the iterator itself,
	 * so the whole walk is looked at: the wrapper is further up.
	 */
	end = found ? f->site : f->n;
	for (i = 0, seen = false; kind == KMP_KIND_PAGE && i < end; i++) {
		unsigned long k = kmp_frame_kind(f->e[i]);

		if (k & KMP_FRAME_TRACE)
			seen = true;
		if (((k & KMP_FRAME_BULK) && seen) ||
		    ((k & KMP_FRAME_BULKFN) &&
		     READ_ONCE(kmp_pages_bulk_exits))) {
			f->site = -1;
			return KMP_SITE_BULK;
		}
	}
	return f->site >= 0 ? f->e[f->site] : 0;
}

unsigned long kmp_unwind(struct kmp_frames *f, enum kmp_kind kind,
			 unsigned long call_site, unsigned int after)
{
	unsigned long site;
	u64 t = kmp_psub_begin();

	site = __kmp_unwind(f, kind, call_site, after);
	kmp_psub_end(t, KMP_PC_UNWIND);
	return site;
}

/* The size of the function at @addr, its start: 0, or -ENOENT. */
int kmp_fn_size(unsigned long addr, unsigned long *size)
{
	char buf[KSYM_SYMBOL_LEN], *slash;

	/* "name+0x0/0xSIZE [module]" */
	sprint_symbol(buf, addr);
	slash = strchr(buf, '/');
	if (!slash || !strstr(buf, "+0x0/"))
		return -ENOENT;
	slash = strsep(&slash, " ");
	return kstrtoul(slash + 1, 16, size) ? -ENOENT : 0;
}

/*
 * Whether a slab event from @site is the first of 6.10's two events for a
 * large kmalloc() (kmp_is_relay()).
 */
bool kmp_site_is_relay(unsigned long site)
{
	unsigned long flags, kind;

	local_irq_save(flags);
	kind = kmp_frame_kind(site);
	local_irq_restore(flags);
	return kind & KMP_FRAME_RELAY;
}

/*
 * The call site of a page event, from the probe's frame record @fp: the
 * first return address past the tracepoint's iterator and the page
 * allocator's entry points, whose own return addresses go to f->skip (the
 * caller enters them in the site table, so that the next walk,
 * kmp_page_site_fast(), passes them inline). Where the records can't be
 * walked, or leave the stack the walk started on (kmp_fp_last()), the
 * unwinder finds it, into @f.
 */
static __always_inline unsigned long
__kmp_page_site(unsigned long fp, struct kmp_frames *f, unsigned int after)
{
#if KMP_HAVE_FP_WALK
	struct kmp_fp_walk w;
	unsigned int i;
#endif

	f->nskip = 0;
#if KMP_HAVE_FP_WALK
	kmp_fp_start(&w, fp);
	for (i = 0; i < KMP_SITE_SEARCH; i++) {
		unsigned long lr = kmp_fp_ret(&w);
		unsigned long kind = kmp_frame_kind(lr);

		if (kind & KMP_FRAME_BULK)
			return KMP_SITE_BULK;
		/*
		 * The bulk allocator's own fallback, whose pages its exit
		 * handler enters; never in the site table, so that the fast
		 * walk always comes here.
		 */
		if (kind & KMP_FRAME_BULKFN) {
			if (READ_ONCE(kmp_pages_bulk_exits))
				return KMP_SITE_BULK;
			break;
		}
		if (kind & KMP_FRAME_GRAPH)
			break;	/* the unwinder knows where it returns */
		if (!(kind & (KMP_FRAME_PAGE | KMP_FRAME_TRACE)))
			return lr;
		f->skip[f->nskip++] = lr;
		if (!kmp_fp_up(&w))
			break;
	}
#endif
	return kmp_unwind(f, KMP_KIND_PAGE, 0, after);
}

unsigned long kmp_page_site(unsigned long fp, struct kmp_frames *f,
			    unsigned int after)
{
	unsigned long site;
	u64 t = kmp_psub_begin();

	site = __kmp_page_site(fp, f, after);
	kmp_psub_end(t, KMP_PC_PAGE_WALK);
	return site;
}

/*
 * The return addresses below the call site in @f, an unwind's, that a
 * page event's walk passes, by kmp_page_site()'s own test, into f->skip:
 * the general path enters them in the site table where it unwinds (for
 * key_depth or stack_depth), so that the fast path's walk passes them.
 */
void kmp_page_frames(struct kmp_frames *f)
{
	int i;

	f->nskip = 0;
	for (i = 0; i < f->site && f->nskip < KMP_SITE_SEARCH; i++) {
		unsigned long kind = kmp_frame_kind(f->e[i]);

		if ((kind & (KMP_FRAME_PAGE | KMP_FRAME_TRACE)) &&
		    !(kind & (KMP_FRAME_BULK | KMP_FRAME_BULKFN |
			      KMP_FRAME_GRAPH)))
			f->skip[f->nskip++] = f->e[i];
	}
}

#if KMP_TEST_HOOKS
/*
 * For the KUnit suites: what the kernel function @name is to the walk,
 * by kmp_frame_fns alone (KMP_FRAME_* bits).
 */
unsigned long kmemprof_test_frame_fn_kind(const char *name)
{
	return kmp_frame_fn_kind(name);
}

kmp_export_test_hook(kmemprof_test_frame_fn_kind);

/*
 * For the KUnit suites: what the frame @addr is to the walk (KMP_FRAME_*
 * bits), as the probes classify it on a miss of the frame cache; *@named
 * counts the symbol lookups that took.
 */
unsigned long kmemprof_test_frame_kind(unsigned long addr, int *named)
{
	unsigned long flags, kind;
	unsigned int before;

	local_irq_save(flags);
	before = __this_cpu_read(kmp_frame_named);
	kind = kmp_frame_lookup(addr);
	*named = __this_cpu_read(kmp_frame_named) - before;
	local_irq_restore(flags);
	return kind;
}

kmp_export_test_hook(kmemprof_test_frame_kind);

/*
 * For the KUnit suites: the start of the bulk page wrapper, whose frames
 * kmp_frame_lookup() classifies by its extent; 0 if it has none, or where
 * the extent is not known (its frames are named then).
 */
unsigned long kmemprof_test_own_wrapper(void)
{
	/* pairs with the release in kmp_frame_own_init() */
	return smp_load_acquire(&kmp_own_known) ? kmp_own_wrap : 0;
}

kmp_export_test_hook(kmemprof_test_own_wrapper);
#endif
