// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the whole-RAM account. Where all of RAM is, from
 * /proc/meminfo, /proc/zoneinfo and the page lines of /proc/kmemprof, in
 * lines that add up to MemTotal exactly:
 *
 *   MemTotal = free                MemFree
 *            + free_pcp            the per-CPU free lists (zoneinfo's
 *                                  pagesets "count:"), which MemFree
 *                                  leaves out
 *            + slab + pagetables + anon + file + stacks + percpu
 *              + hugetlb + other   kmemprof's kind:page lines, each on
 *                                  one of these (below)
 *            + kmemprof            kmemprof:tables, the module's own
 *            + untracked           what is left: MemTotal minus all of
 *                                  the above (signed)
 *
 * A kind:page line counts on exactly one line: before_load:<what> on
 * <what> (slab, pagetable, anon, file, hugetlb; stack on stacks, percpu
 * on percpu, other on other),
 * kmemprof:tables on kmemprof, a call site's line by its function (the
 * table below; any other function, and module code, on other). hugetlb is
 * the pool, its free pages and those in use, as meminfo's Hugetlb counts
 * it (0 beside it on a kernel without the field). before_load:reserved is
 * outside MemTotal (memblock's, the kernel image, the memory map) and kept
 * aside.
 * kind:slab and kind:percpu lines are objects inside pages that page lines
 * already count (slab pages, percpu chunks): they are never added.
 *
 * So "kmemprof attributes" = the page lines but before_load:reserved, and
 * untracked = MemTotal - MemFree - free_pcp - attributed. What is in it:
 * - pages allocated between the reads of the three files, which are read
 *   one after the other (/proc/kmemprof first), not at one instant; pages
 *   freed in between count twice (on a line and in MemFree), so it can
 *   come out below zero; it is printed as it is;
 * - pages off the free lists that no line holds (module/prior.c and
 *   Documentation/kmemprof.rst, "Pages, path by path"): ranges of
 *   alloc_contig_pages() and of direct callers of alloc_contig_range()
 *   (gigantic hugetlb pages without hugetlb_cma), which have no event; allocations kmemprof dropped (drop.tags) or
 *   skipped in NMI (skip.nmi); a migration's destination where the
 *   migration hook is missing or the driver migrates the page (zsmalloc,
 *   the balloon); free pages held off the lists (compaction's isolated
 *   pages, free page reporting, memory failure); and the rest of a block
 *   from before load that is not compound which the walk entered short
 *   (5.10's stale list links).
 * The other way, a free page that the walk took for such a block's page
 * counts on other until it is allocated again or the next walk.
 *
 * Beside each line, the /proc/meminfo category it corresponds to. Those
 * categories overlap one another (VmallocUsed holds vmalloc'd stacks,
 * CMA in use holds the movable pages of anything) and do not add up to
 * MemTotal; the ones that overlap are listed apart.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "meminfo.h"
#include "profile.h"
#include "util.h"

static const char *const mi_names[KP_MI_NR] = {
	[KP_MI_MEMTOTAL] = "MemTotal",
	[KP_MI_MEMFREE] = "MemFree",
	[KP_MI_BUFFERS] = "Buffers",
	[KP_MI_CACHED] = "Cached",
	[KP_MI_ANON] = "AnonPages",
	[KP_MI_SLAB] = "Slab",
	[KP_MI_STACK] = "KernelStack",
	[KP_MI_PGTABLE] = "PageTables",
	[KP_MI_VMALLOC] = "VmallocUsed",
	[KP_MI_PERCPU] = "Percpu",
	[KP_MI_CMATOTAL] = "CmaTotal",
	[KP_MI_CMAFREE] = "CmaFree",
	[KP_MI_HUGETLB] = "Hugetlb",
};

const char *kp_mi_name(enum kp_mi_field f)
{
	return f < KP_MI_NR ? mi_names[f] : NULL;
}

static const struct kp_mline_info lines[KP_ML_NR] = {
	[KP_ML_FREE] = { "free", "free", "MemFree" },
	[KP_ML_PCP] = { "free_pcp", "free in per-CPU lists", NULL },
	[KP_ML_SLAB] = { "slab", "slab", "Slab" },
	[KP_ML_PGTABLE] = { "pagetables", "page tables", "PageTables" },
	[KP_ML_ANON] = { "anon", "anonymous", "AnonPages" },
	[KP_ML_FILE] = { "file", "page cache", "Cached+Buffers" },
	[KP_ML_STACK] = { "stacks", "kernel stacks", "KernelStack" },
	[KP_ML_PERCPU] = { "percpu", "percpu chunks", "Percpu" },
	[KP_ML_HUGETLB] = { "hugetlb", "hugetlb pool", "Hugetlb" },
	[KP_ML_OTHER] = { "other", "other kernel pages", NULL },
	[KP_ML_SELF] = { "kmemprof", "kmemprof's tables", NULL },
	[KP_ML_UNTRACKED] = { "untracked", "untracked", NULL },
};

const struct kp_mline_info *kp_mline_info(enum kp_mline l)
{
	return l < KP_ML_NR ? &lines[l] : NULL;
}

/*
 * The functions whose page allocations are of a meminfo category, as
 * kmemprof names a call site: the function that called the page
 * allocator, vmalloc() or the DMA API (Documentation/kmemprof.rst, "Call
 * sites"), which may be one that the function asking for the memory was
 * inlined into. Names are compared without a ".constprop.0"-like suffix
 * and without "_noprof". Kernels 5.10 to 7.x.
 */
static const struct {
	const char *func;
	enum kp_mline line;
} funcs[] = {
	/* Slab: the slab allocator's pages, and large kmalloc()'s pages */
	{ "allocate_slab", KP_ML_SLAB },
	{ "new_slab", KP_ML_SLAB },
	{ "alloc_slab_page", KP_ML_SLAB },
	{ "__alloc_slab_page", KP_ML_SLAB },
	{ "___slab_alloc", KP_ML_SLAB },
	{ "__slab_alloc", KP_ML_SLAB },
	{ "__slab_alloc_node", KP_ML_SLAB },
	{ "kmem_getpages", KP_ML_SLAB },	/* SLAB, before 6.8 */
	{ "cache_grow_begin", KP_ML_SLAB },
	{ "___kmalloc_large_node", KP_ML_SLAB },
	{ "__kmalloc_large_node", KP_ML_SLAB },
	{ "__kmalloc_large", KP_ML_SLAB },
	{ "kmalloc_large", KP_ML_SLAB },
	{ "kmalloc_large_node", KP_ML_SLAB },
	{ "kmalloc_order", KP_ML_SLAB },
	{ "kmalloc_order_trace", KP_ML_SLAB },
	/* PageTables: the page table allocators, and the faults' prealloc */
	{ "__pte_alloc", KP_ML_PGTABLE },
	{ "__pte_alloc_kernel", KP_ML_PGTABLE },
	{ "__pmd_alloc", KP_ML_PGTABLE },
	{ "__pud_alloc", KP_ML_PGTABLE },
	{ "__p4d_alloc", KP_ML_PGTABLE },
	{ "pgd_alloc", KP_ML_PGTABLE },
	{ "pte_alloc_one", KP_ML_PGTABLE },
	{ "pte_alloc_one_kernel", KP_ML_PGTABLE },
	{ "__pte_alloc_one", KP_ML_PGTABLE },
	{ "__pte_alloc_one_kernel", KP_ML_PGTABLE },
	{ "pmd_alloc_one", KP_ML_PGTABLE },
	{ "pud_alloc_one", KP_ML_PGTABLE },
	{ "p4d_alloc_one", KP_ML_PGTABLE },
	{ "pagetable_alloc", KP_ML_PGTABLE },
	{ "pgd_pgtable_alloc", KP_ML_PGTABLE },
	{ "__pgd_pgtable_alloc", KP_ML_PGTABLE },
	{ "__do_fault", KP_ML_PGTABLE },	/* vmf->prealloc_pte */
	{ "do_fault_around", KP_ML_PGTABLE },
	{ "do_set_pmd", KP_ML_PGTABLE },
	{ "filemap_map_pages", KP_ML_PGTABLE },
	/* AnonPages: anonymous faults, copy-on-write, swap-in */
	{ "__handle_mm_fault", KP_ML_ANON },
	{ "handle_mm_fault", KP_ML_ANON },
	{ "do_anonymous_page", KP_ML_ANON },
	{ "alloc_anon_folio", KP_ML_ANON },
	{ "vma_alloc_zeroed_movable_folio", KP_ML_ANON },
	{ "alloc_zeroed_user_highpage_movable", KP_ML_ANON },
	{ "folio_prealloc", KP_ML_ANON },
	{ "wp_page_copy", KP_ML_ANON },
	{ "do_wp_page", KP_ML_ANON },
	{ "do_cow_fault", KP_ML_ANON },
	{ "copy_pte_range", KP_ML_ANON },
	{ "copy_present_pte", KP_ML_ANON },
	{ "copy_present_ptes", KP_ML_ANON },
	{ "copy_present_page", KP_ML_ANON },
	{ "do_huge_pmd_anonymous_page", KP_ML_ANON },
	{ "__do_huge_pmd_anonymous_page", KP_ML_ANON },
	{ "vma_alloc_anon_folio_pmd", KP_ML_ANON },
	{ "do_huge_pmd_wp_page", KP_ML_ANON },
	{ "do_swap_page", KP_ML_ANON },
	{ "alloc_swap_folio", KP_ML_ANON },
	{ "__read_swap_cache_async", KP_ML_ANON },
	/* Cached + Buffers: the page cache, shmem and tmpfs, buffers */
	{ "filemap_alloc_folio", KP_ML_FILE },
	{ "__filemap_alloc_folio", KP_ML_FILE },
	{ "__filemap_get_folio", KP_ML_FILE },
	{ "filemap_create_folio", KP_ML_FILE },
	{ "page_cache_ra_unbounded", KP_ML_FILE },
	{ "page_cache_ra_order", KP_ML_FILE },
	{ "ra_alloc_folio", KP_ML_FILE },
	{ "do_read_cache_folio", KP_ML_FILE },
	{ "do_read_cache_page", KP_ML_FILE },
	{ "__page_cache_alloc", KP_ML_FILE },
	{ "pagecache_get_page", KP_ML_FILE },
	{ "grab_cache_page_write_begin", KP_ML_FILE },
	{ "shmem_alloc_folio", KP_ML_FILE },
	{ "shmem_alloc_and_add_folio", KP_ML_FILE },
	{ "shmem_alloc_hugefolio", KP_ML_FILE },
	{ "shmem_get_folio_gfp", KP_ML_FILE },
	{ "shmem_getpage_gfp", KP_ML_FILE },
	{ "shmem_alloc_page", KP_ML_FILE },
	{ "grow_dev_folio", KP_ML_FILE },
	{ "grow_dev_page", KP_ML_FILE },
	{ "grow_buffers", KP_ML_FILE },
	/* KernelStack: the task's stack, as fork allocates it */
	{ "alloc_thread_stack_node", KP_ML_STACK },
	{ "dup_task_struct", KP_ML_STACK },
	{ "copy_process", KP_ML_STACK },
	/* Percpu: the pages of percpu chunks (percpu-vm.c) */
	{ "pcpu_alloc_pages", KP_ML_PERCPU },
	{ "pcpu_populate_chunk", KP_ML_PERCPU },
	{ "pcpu_alloc", KP_ML_PERCPU },
	{ "pcpu_balance_populated", KP_ML_PERCPU },
	{ "pcpu_balance_workfn", KP_ML_PERCPU },
	/*
	 * Hugetlb: the pool's pages as mm/hugetlb.c allocates them, free or
	 * in use (6.12's folio names; 5.10 and 6.1's page names). The static
	 * ones are inlined into one another and into their callers, whose
	 * page allocations are all the pool's. alloc_gigantic_*() take
	 * theirs from hugetlb_cma (a CMA event, on their site) or from
	 * alloc_contig_pages() (no event: in untracked).
	 */
	{ "alloc_buddy_hugetlb_folio", KP_ML_HUGETLB },
	{ "alloc_buddy_hugetlb_folio_with_mpol", KP_ML_HUGETLB },
	{ "only_alloc_fresh_hugetlb_folio", KP_ML_HUGETLB },
	{ "alloc_fresh_hugetlb_folio", KP_ML_HUGETLB },
	{ "alloc_pool_huge_folio", KP_ML_HUGETLB },
	{ "alloc_surplus_hugetlb_folio", KP_ML_HUGETLB },
	{ "alloc_migrate_hugetlb_folio", KP_ML_HUGETLB },
	{ "alloc_and_dissolve_hugetlb_folio", KP_ML_HUGETLB },
	{ "alloc_gigantic_folio", KP_ML_HUGETLB },
	{ "alloc_buddy_huge_page", KP_ML_HUGETLB },
	{ "alloc_buddy_huge_page_with_mpol", KP_ML_HUGETLB },
	{ "alloc_fresh_huge_page", KP_ML_HUGETLB },
	{ "alloc_pool_huge_page", KP_ML_HUGETLB },
	{ "alloc_surplus_huge_page", KP_ML_HUGETLB },
	{ "alloc_migrate_huge_page", KP_ML_HUGETLB },
	{ "alloc_and_dissolve_huge_page", KP_ML_HUGETLB },
	{ "alloc_gigantic_page", KP_ML_HUGETLB },
	{ "gather_surplus_pages", KP_ML_HUGETLB },
	{ "set_max_huge_pages", KP_ML_HUGETLB },	/* nr_hugepages */
};

#define PRIOR "before_load:"

enum kp_mline kp_mline_of(const char *site, const char *module,
			  const char *func, bool *before)
{
	static const struct {
		const char *what;
		enum kp_mline line;
	} prior[] = {
		{ "slab", KP_ML_SLAB }, { "pagetable", KP_ML_PGTABLE },
		{ "anon", KP_ML_ANON }, { "file", KP_ML_FILE },
		{ "hugetlb", KP_ML_HUGETLB }, { "stack", KP_ML_STACK },
		{ "percpu", KP_ML_PERCPU }, { "other", KP_ML_OTHER },
		{ "reserved", KP_ML_NR },
	};
	size_t i, n;

	*before = false;
	if (site && !module && !strncmp(site, PRIOR, strlen(PRIOR))) {
		*before = true;
		for (i = 0; i < sizeof(prior) / sizeof(prior[0]); i++)
			if (!strcmp(site + strlen(PRIOR), prior[i].what))
				return prior[i].line;
		return KP_ML_OTHER;	/* a kind this reader does not know */
	}
	if (site && !module && !strncmp(site, "kmemprof:", 9))
		return KP_ML_SELF;
	if (module || !func)
		return KP_ML_OTHER;
	/* "shmem_get_folio_gfp.constprop.0.isra.0", "new_slab_noprof" */
	n = strcspn(func, ".");
	if (n > 7 && !strncmp(func + n - 7, "_noprof", 7))
		n -= 7;
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (strlen(funcs[i].func) == n &&
		    !strncmp(funcs[i].func, func, n))
			return funcs[i].line;
	return KP_ML_OTHER;
}

/* meminfo */

int kp_parse_meminfo(FILE *in, const char *name, struct kp_meminfo *m,
		     char *err, size_t errlen)
{
	struct kp_lines l = { .in = in, .name = name };
	int rc, f;

	for (f = 0; f < KP_MI_NR; f++)
		m->v[f] = KP_NONE;
	while ((rc = kp_next(&l, err, errlen)) > 0) {
		char *colon = strchr(l.line, ':'), *tok, *unit, *save = NULL;
		uint64_t v;

		if (!l.line[strspn(l.line, " \t")])
			continue;
		if (!colon || colon == l.line) {
			rc = kp_fail(err, errlen, name, l.no,
				     "not a /proc/meminfo line");
			break;
		}
		*colon = '\0';
		tok = strtok_r(colon + 1, " \t", &save);
		unit = tok ? strtok_r(NULL, " \t", &save) : NULL;
		if (!tok || kp_uint(tok, &v) ||
		    (unit && strcmp(unit, "kB")) ||
		    strtok_r(NULL, " \t", &save)) {
			rc = kp_fail(err, errlen, name, l.no,
				     "bad value for %s", l.line);
			break;
		}
		for (f = 0; f < KP_MI_NR; f++)
			if (!strcmp(l.line, mi_names[f]))
				break;
		if (f == KP_MI_NR)
			continue;
		if (!unit || v > (uint64_t)INT64_MAX / 1024) {
			rc = kp_fail(err, errlen, name, l.no,
				     "bad value for %s", l.line);
			break;
		}
		m->v[f] = (int64_t)v * 1024;
	}
	free(l.line);
	if (rc < 0)
		return -1;
	if (m->v[KP_MI_MEMTOTAL] == KP_NONE || m->v[KP_MI_MEMFREE] == KP_NONE)
		return kp_fail(err, errlen, name, l.no ? l.no : 1,
			       "not a /proc/meminfo (no MemTotal or MemFree)");
	if (m->v[KP_MI_MEMFREE] > m->v[KP_MI_MEMTOTAL])
		return kp_fail(err, errlen, name, l.no,
			       "MemFree is more than MemTotal");
	return 0;
}

/* zoneinfo */

int kp_parse_zoneinfo(FILE *in, const char *name, struct kp_zoneinfo *z,
		      char *err, size_t errlen)
{
	struct kp_lines l = { .in = in, .name = name };
	int rc;

	memset(z, 0, sizeof(*z));
	while ((rc = kp_next(&l, err, errlen)) > 0) {
		char *save = NULL, *key, *val;
		uint64_t v;
		int64_t *sum;

		key = strtok_r(l.line, " \t", &save);
		if (!key)
			continue;
		if (!strcmp(key, "Node")) {
			z->zones++;
			continue;
		}
		if (!strcmp(key, "count:"))
			sum = &z->pcp_pages;
		else if (!strcmp(key, "managed"))
			sum = &z->managed;
		else
			continue;
		if (!z->zones) {
			rc = kp_fail(err, errlen, name, l.no,
				     "not a /proc/zoneinfo (%s before any zone)",
				     key);
			break;
		}
		val = strtok_r(NULL, " \t", &save);
		if (!val || kp_uint(val, &v) || strtok_r(NULL, " \t", &save) ||
		    v > (uint64_t)(INT64_MAX / 65536 - *sum)) {
			rc = kp_fail(err, errlen, name, l.no, "bad value for %s",
				     key);
			break;
		}
		*sum += (int64_t)v;
	}
	free(l.line);
	if (rc < 0)
		return -1;
	if (!z->zones)
		return kp_fail(err, errlen, name, l.no ? l.no : 1,
			       "not a /proc/zoneinfo (no zone)");
	return 0;
}

int kp_read_meminfo(struct kp_meminfo *m, struct kp_zoneinfo *z,
		    char *err, size_t errlen)
{
	char path[512];
	FILE *f;
	int rc;

	kp_path("/proc/meminfo", path, sizeof(path));
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path,
			 strerror(errno));
		return -1;
	}
	rc = kp_parse_meminfo(f, path, m, err, errlen);
	fclose(f);
	if (rc)
		return -1;
	memset(z, 0, sizeof(*z));
	kp_path("/proc/zoneinfo", path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return 0;	/* the per-CPU lists then go untracked */
	rc = kp_parse_zoneinfo(f, path, z, err, errlen);
	fclose(f);
	return rc;
}

/* account */

/* A page size: a power of 2, 1 KiB to 1 MiB. */
static bool page_sized(int64_t v)
{
	return v >= 1024 && v <= 1 << 20 && !(v & (v - 1));
}

/* *@sum += @v, both >= 0, held at INT64_MAX (hostile input only). */
static void add(int64_t *sum, int64_t v)
{
	if (__builtin_add_overflow(*sum, v, sum))
		*sum = INT64_MAX;
}

int kp_account(const struct kp_profile *p, const struct kp_meminfo *m,
	       const struct kp_zoneinfo *z, int64_t page_size,
	       struct kp_account *a, char *err, size_t errlen)
{
	const int64_t *mi = m->v;
	int64_t sum = 0;
	size_t i;

	memset(a, 0, sizeof(*a));
	if (p->source != KP_KMEMPROF || p->delta) {
		snprintf(err, errlen, "the account needs /proc/kmemprof (the kmemprof module), not %s",
			 p->delta ? "a diff" : "/proc/allocinfo");
		return -1;
	}
	a->memtotal = mi[KP_MI_MEMTOTAL];
	a->have_zoneinfo = z && z->zones;
	/*
	 * The page size: MemTotal is the zones' managed pages, so
	 * MemTotal / managed is the kernel's page size when the two were
	 * read with nothing hot-plugged in between; else the system's.
	 */
	if (!page_size && a->have_zoneinfo && z->managed &&
	    !(a->memtotal % z->managed) &&
	    page_sized(a->memtotal / z->managed))
		page_size = a->memtotal / z->managed;
	if (page_size <= 0)
		page_size = sysconf(_SC_PAGESIZE);
	a->page_size = page_size;
	for (i = 0; i < KP_ML_NR; i++) {
		a->l[i].since = KP_NONE;
		a->l[i].before = KP_NONE;
		a->l[i].meminfo = KP_NONE;
	}
	for (i = KP_ML_SLAB; i <= KP_ML_OTHER; i++)
		a->l[i].since = 0;
	a->l[KP_ML_SLAB].before = 0;
	a->l[KP_ML_PGTABLE].before = 0;
	a->l[KP_ML_ANON].before = 0;
	a->l[KP_ML_FILE].before = 0;
	a->l[KP_ML_STACK].before = 0;
	a->l[KP_ML_PERCPU].before = 0;
	a->l[KP_ML_HUGETLB].before = 0;
	a->l[KP_ML_OTHER].before = 0;

	for (i = 0; i < p->n; i++) {
		const struct kp_site *s = &p->sites[i];
		int64_t b = s->bytes > 0 ? s->bytes : 0;
		enum kp_mline l;
		bool before;

		if (!s->kind || strcmp(s->kind, "page")) {
			if (s->kind && !strcmp(s->kind, "slab"))
				add(&a->slab_objects, b);
			else if (s->kind && !strcmp(s->kind, "percpu"))
				add(&a->percpu_objects, b);
			continue;
		}
		l = kp_mline_of(s->site, s->module, s->func, &before);
		a->have_prior |= before;
		if (l == KP_ML_NR) {
			add(&a->reserved, b);
			continue;
		}
		add(&a->l[l].bytes, b);
		add(&a->attributed, b);
		if (before) {
			add(&a->l[l].before, b);
			add(&a->before_load, b);
		} else if (l != KP_ML_SELF) {
			add(&a->l[l].since, b);
			a->l[l].sites += b > 0;
		}
	}

	a->l[KP_ML_FREE].bytes = mi[KP_MI_MEMFREE];
	if (a->have_zoneinfo &&
	    __builtin_mul_overflow(z->pcp_pages, page_size,
				   &a->l[KP_ML_PCP].bytes))
		a->l[KP_ML_PCP].bytes = INT64_MAX;
	for (i = 0; i < KP_ML_UNTRACKED; i++)
		add(&sum, a->l[i].bytes);
	/* The remainder, which makes the lines add up to MemTotal. */
	a->l[KP_ML_UNTRACKED].bytes = a->memtotal - sum;

	a->l[KP_ML_FREE].meminfo = mi[KP_MI_MEMFREE];
	a->l[KP_ML_SLAB].meminfo = mi[KP_MI_SLAB];
	a->l[KP_ML_PGTABLE].meminfo = mi[KP_MI_PGTABLE];
	a->l[KP_ML_ANON].meminfo = mi[KP_MI_ANON];
	if (mi[KP_MI_CACHED] != KP_NONE) {
		a->l[KP_ML_FILE].meminfo = mi[KP_MI_CACHED];
		if (mi[KP_MI_BUFFERS] != KP_NONE)
			add(&a->l[KP_ML_FILE].meminfo, mi[KP_MI_BUFFERS]);
	}
	a->l[KP_ML_STACK].meminfo = mi[KP_MI_STACK];
	a->l[KP_ML_PERCPU].meminfo = mi[KP_MI_PERCPU];
	/* no Hugetlb field: a kernel without hugetlb, so no pool */
	a->l[KP_ML_HUGETLB].meminfo = mi[KP_MI_HUGETLB] != KP_NONE ?
				      mi[KP_MI_HUGETLB] : 0;
	a->vmalloc = mi[KP_MI_VMALLOC];
	a->percpu = mi[KP_MI_PERCPU];
	a->cma_used = mi[KP_MI_CMATOTAL] != KP_NONE &&
		      mi[KP_MI_CMAFREE] != KP_NONE ?
		      mi[KP_MI_CMATOTAL] - mi[KP_MI_CMAFREE] : KP_NONE;
	return 0;
}
