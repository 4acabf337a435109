// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a module's addresses are named from names.c's index of the
 * module's symbols (a binary search), exactly as the kernel's own lookup,
 * sprint_symbol() (a linear search of them), names them: the first
 * instruction, the second and the last of every function in this module's
 * text, the first function and the last among them, and a function before
 * a gap (the padding before an aligned function, which the kernel counts
 * into the size of the function before it). The kernel's own text is
 * named as before, by sprint_symbol().
 *
 * names_frame_kinds: what callsite.c's table of allocator functions
 * (kmp_frame_fns) makes of a kernel function's name, exactly, for a name
 * of every entry, each matched by that entry alone, so that an entry
 * taken out fails the case; and of names that are no allocator's.
 * names_frame_module_unnamed: another module's frame is classified
 * without a name.
 */
#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/string.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

#define NAMES_GAP	256

/* A function and, past some padding, the next one. */
static noinline void names_before_gap(void)
{
	asm volatile("");
}

static noinline __aligned(NAMES_GAP) void names_after_gap(void)
{
	asm volatile("");
}

/*
 * Two char arrays, as pointers: 5.10's KUNIT_EXPECT_STREQ() copies its
 * operands by typeof(), which an array cannot be initialized from.
 */
#define NAMES_STREQ(test, a, b) \
	KUNIT_EXPECT_STREQ(test, (const char *)(a), (const char *)(b))

struct names_buf {
	char buf[KSYM_SYMBOL_LEN];
	char kernel[KSYM_SYMBOL_LEN];
};

/*
 * Whether names.c can index this module's symbols: it finds modules
 * through module_kset, which the module joins at mod_sysfs_setup(). KUnit
 * runs a module's suites from the module notifier: at COMING on 6.1,
 * before that (the names then come from the kernel's own lookup, exact
 * but not indexed), at LIVE on 6.12.
 */
static bool names_indexable(void)
{
	return THIS_MODULE->mkobj.kobj.state_in_sysfs;
}

/* @addr named through the index, and the same as the kernel names it. */
static void names_expect(struct kunit *test, struct names_buf *b,
			 unsigned long addr)
{
	bool indexed;
	int len;

	len = kmemprof_sym_text(addr, b->buf, b->kernel, &indexed);
	if (names_indexable())
		KUNIT_EXPECT_TRUE(test, indexed);
	NAMES_STREQ(test, b->buf, b->kernel);
	KMP_EXPECT_EQ(test, len, (int)strlen(b->kernel));
}

/* Every function of this module's text, from the first to the last. */
static void names_every_function(struct kunit *test)
{
	unsigned long base = KMP_MOD_TEXT_BASE(THIS_MODULE);
	unsigned long end = base + KMP_MOD_TEXT_SIZE(THIS_MODULE);
	unsigned long addr, off, size, first = 0, last = 0;
	struct names_buf *b;
	unsigned int n = 0;
	char *plus;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, b);
	for (addr = base; addr < end; addr += size) {
		sprint_symbol(b->kernel, addr);
		plus = strchr(b->kernel, '+');
		if (!plus || sscanf(plus, "+%lx/%lx", &off, &size) != 2 ||
		    off) {
			/* no symbol here, or not at its start: the next word */
			size = 4;
			continue;
		}
		if (!first)
			first = addr;
		last = addr;
		names_expect(test, b, addr);
		if (size > 4)
			names_expect(test, b, addr + 4);
		names_expect(test, b, addr + size - 4);
		n++;
		if (kmp_kunit_failed(test))
			return;
	}
	kunit_info(test, "%u functions, %lu bytes of text\n", n, end - base);
	KMP_ASSERT_GT(test, n, 2U);
	/* the walk went from the first function to the end of the text */
	KMP_EXPECT_EQ(test, addr, end);
	sprint_symbol(b->kernel, first);
	kunit_info(test, "first: %s\n", b->kernel);
	sprint_symbol(b->kernel, last);
	kunit_info(test, "last: %s\n", b->kernel);
}

/* The size of the function before a gap runs to the next symbol. */
static void names_gap(struct kunit *test)
{
	unsigned long fn = (unsigned long)names_before_gap;
	unsigned long next = (unsigned long)names_after_gap;
	char want[KSYM_SYMBOL_LEN];
	struct names_buf *b;
	bool indexed;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, b);
	names_before_gap();
	names_after_gap();
	/* the compiler put nothing between them, and left a gap */
	if (next < fn || next - fn > 2 * NAMES_GAP) {
		kmp_kunit_skip(test, "the functions are apart");
		return;
	}
	scnprintf(want, sizeof(want), "names_before_gap+0x0/%#lx [%s]",
		  next - fn, THIS_MODULE->name);
	kmemprof_sym_text(fn, b->buf, b->kernel, &indexed);
	if (names_indexable())
		KUNIT_EXPECT_TRUE(test, indexed);
	NAMES_STREQ(test, b->buf, want);
	NAMES_STREQ(test, b->kernel, want);
	scnprintf(want, sizeof(want), "names_before_gap+%#lx/%#lx [%s]",
		  next - fn - 4, next - fn, THIS_MODULE->name);
	kmemprof_sym_text(next - 4, b->buf, b->kernel, &indexed);
	NAMES_STREQ(test, b->buf, want);
	NAMES_STREQ(test, b->kernel, want);
}

/* The kernel's own text: not a module's, named by sprint_symbol(). */
static void names_kernel_text(struct kunit *test)
{
	unsigned long addr = (unsigned long)kfree + 4;
	struct names_buf *b;
	bool indexed;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, b);
	kmemprof_sym_text(addr, b->buf, b->kernel, &indexed);
	KUNIT_EXPECT_FALSE(test, indexed);
	NAMES_STREQ(test, b->buf, b->kernel);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(b->buf, "kfree+0x4/"));
}

/* callsite.c's KMP_FRAME_* bits, as kmemprof_test_frame_fn_kind() gives them */
#define F_PAGE		BIT(0)
#define F_PERCPU	BIT(1)
#define F_SLAB		BIT(2)
#define F_BULK		BIT(4)
#define F_RETURN	BIT(7)
#define F_KV		BIT(9)
#define F_PASS		BIT(10)

/*
 * A name of each entry of kmp_frame_fns, in its order, as the kernels of
 * the matrix spell the function (_noprof from 6.10, the compiler's clones),
 * that no other entry's prefix matches; then names that are none of the
 * allocators': their callers, their frees, and an allocator's name inside
 * another's.
 */
static const struct {
	const char *name;
	unsigned long kind;
} names_frames[] = {
	/* the page allocator */
	{ "__alloc_pages_noprof",		F_PAGE },
	{ "alloc_pages_noprof",			F_PAGE },
	{ "__get_free_pages_noprof",		F_PAGE },
	{ "get_zeroed_page_noprof",		F_PAGE },
	{ "get_free_pages_noprof",		F_PAGE },
	{ "__folio_alloc_noprof",		F_PAGE },
	{ "folio_alloc_noprof",			F_PAGE },
	{ "vma_alloc_folio_noprof",		F_PAGE },
	{ "alloc_page_interleave",		F_PAGE },
	{ "__alloc_frozen_pages_noprof",	F_PAGE },
	{ "alloc_frozen_pages_nolock_noprof",	F_PAGE },
	/* vmalloc() and kvmalloc(): their callers get the pages and slab */
	{ "__vmalloc_node_range_noprof",	F_PAGE | F_KV },
	{ "vmalloc_noprof",			F_PAGE | F_KV },
	{ "vzalloc_noprof",			F_PAGE | F_KV },
	{ "vm_area_alloc_pages.constprop.0",	F_PAGE },
	{ "__vcalloc_noprof",			F_PAGE | F_KV },
	{ "vcalloc_noprof",			F_PAGE | F_KV },
	{ "vrealloc_noprof",			F_PAGE | F_KV },
	{ "__kvmalloc_node_noprof",		F_PAGE | F_KV },
	{ "kvmalloc_node_noprof",		F_PAGE | F_KV },
	{ "kvrealloc_noprof",			F_PAGE | F_KV },
	{ "krealloc_noprof",			F_KV },
	/* mempools: the prefill's and resize's arrays passed, not charged */
	{ "mempool_alloc_noprof",		F_PAGE | F_KV },
	{ "mempool_alloc_pages",		F_PAGE | F_KV },
	{ "mempool_kmalloc",			F_PAGE | F_KV },
	{ "mempool_create_node_noprof",		F_PAGE | F_KV },
	{ "mempool_init_node",			F_PAGE | F_PASS },
	{ "mempool_resize",			F_PAGE | F_PASS },
	/* CMA and the DMA API: dma-direct, iommu-dma, dma_alloc_pages() */
	{ "cma_alloc",				F_PAGE },
	{ "__cma_alloc",			F_PAGE },
	{ "alloc_contig_range_noprof",		F_PAGE | F_RETURN },
	{ "__alloc_contig_migrate_range",	F_PAGE | F_RETURN },
	{ "dma_alloc_contiguous",		F_PAGE },
	{ "dma_alloc_from_contiguous",		F_PAGE },
	{ "__dma_direct_alloc_pages.constprop.0", F_PAGE },
	{ "dma_direct_alloc",			F_PAGE },
	{ "dma_alloc_attrs",			F_PAGE },
	{ "__dma_alloc_pages",			F_PAGE },
	{ "dma_alloc_pages",			F_PAGE },
	{ "dma_alloc_noncontiguous",		F_PAGE },
	{ "alloc_single_sgt",			F_PAGE },
	{ "dma_common_alloc_pages",		F_PAGE },
	{ "__iommu_dma_alloc_pages",		F_PAGE },
	{ "__iommu_dma_alloc_noncontiguous",	F_PAGE },
	{ "iommu_dma_alloc",			F_PAGE },
	{ "iommu_dma_alloc_remap",		F_PAGE },
	/* the page fragment cache */
	{ "__page_frag_cache_refill",		F_PAGE },
	{ "__page_frag_alloc_align",		F_PAGE },
	{ "page_frag_alloc_align",		F_PAGE },
	/* the system dma-buf heap's helper: the heap's op gets its pages */
	{ "alloc_largest_available",		F_PAGE },
	/* given back, never allocated */
	{ "release_free_list",			F_RETURN },
	{ "release_freepages",			F_RETURN },
	{ "compact_zone",			F_RETURN },
	{ "isolate_freepages_range",		F_RETURN },
	/* percpu */
	{ "pcpu_alloc_noprof",			F_PERCPU },
	{ "__alloc_percpu",			F_PERCPU },
	{ "__alloc_reserved_percpu",		F_PERCPU },
	/* large kmalloc, where its event names the allocator */
	{ "__kmalloc_large_node_noprof",	F_SLAB },
	{ "kmalloc_order_trace",		F_SLAB },
	/* none of the allocators' */
	{ "system_heap_allocate",		0 },
	{ "cma_heap_allocate",			0 },
	{ "platform_probe",			0 },
	{ "drm_gem_dma_create",			0 },
	{ "copy_process",			0 },
	{ "dma_free_attrs",			0 },
	{ "dma_direct_free",			0 },
	{ "iommu_dma_free",			0 },
	{ "vfree",				0 },
	{ "kvfree",				0 },
	{ "page_frag_free",			0 },
	{ "mempool_free",			0 },
	{ "free_pages",				0 },
	{ "kmalloc_trace_noprof",		0 },
	{ "mydrv_iommu_dma_alloc",		0 },
	{ "dw_vmalloc",				0 },
	{ "",					0 },
};

/* Each name's kind, exactly. */
static void names_frame_kinds(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names_frames); i++)
		KMP_EXPECT_EQ_MSG(test,
				  kmemprof_test_frame_fn_kind(names_frames[i].name),
				  names_frames[i].kind, "(%s)",
				  names_frames[i].name);
}

/*
 * A frame in another module's text (this suite's) is no allocator's, and
 * is classified without a symbol lookup: by name, it costs a linear search
 * of the module's symbols. So is one in kmemprof's own, once its bulk
 * page wrapper's extent is known (at load): the wrapper's frames pass
 * (F_PAGE | F_BULK, as its name says), the others are no allocator's. The
 * kernel's own text is still looked up by name.
 */
static void names_frame_module_unnamed(struct kunit *test)
{
	unsigned long wrap = kmemprof_test_own_wrapper();
	unsigned long mine[] = {
		(unsigned long)names_before_gap,
		(unsigned long)names_after_gap + 4,
		(unsigned long)names_frame_module_unnamed + 8,
	};
	unsigned int i;
	int named;

	for (i = 0; i < ARRAY_SIZE(mine); i++) {
		KMP_EXPECT_EQ_MSG(test, kmemprof_test_frame_kind(mine[i], &named),
				  0UL, "(%pS)", (void *)mine[i]);
		KMP_EXPECT_EQ_MSG(test, named, 0, "(%pS) looked up by name",
				  (void *)mine[i]);
	}
	kmemprof_test_frame_kind((unsigned long)kfree + 4, &named);
	KMP_EXPECT_EQ_MSG(test, named, 1, "(%pS)", (void *)kfree);
	KMP_EXPECT_EQ(test,
		      kmemprof_test_frame_kind((unsigned long)
					       kmemprof_test_frame_kind + 4,
					       &named), 0UL);
	KMP_EXPECT_EQ_MSG(test, named, 0, "(%pS) looked up by name",
			  (void *)kmemprof_test_frame_kind);
	if (!wrap)
		return;
	KMP_EXPECT_EQ(test, kmemprof_test_frame_kind(wrap + 4, &named),
		      (unsigned long)(F_PAGE | F_BULK));
	KMP_EXPECT_EQ_MSG(test, named, 0, "(%pS) looked up by name",
			  (void *)wrap);
}

static struct kunit_case names_cases[] = {
	KUNIT_CASE(names_every_function),
	KUNIT_CASE(names_gap),
	KUNIT_CASE(names_kernel_text),
	KUNIT_CASE(names_frame_kinds),
	KUNIT_CASE(names_frame_module_unnamed),
	{}
};

struct kunit_suite kmp_names_suite = {
	.name = "kmemprof_names",
	.test_cases = names_cases,
};
