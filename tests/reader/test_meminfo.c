// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the whole-RAM account (kmemprof meminfo): the parsers of
 * /proc/meminfo and /proc/zoneinfo, the line each page line counts on,
 * the account's arithmetic on a capture of the 6.12 guest (fixtures
 * meminfo-6.12.txt, zoneinfo-6.12.txt and kmemprof-meminfo-6.12.txt, read
 * one after the other), and the command on a fake root. The expected
 * numbers are the fixtures' own, added up by hand (awk), not by the
 * reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "meminfo.h"
#include "profile.h"
#include "tests.h"

/*
 * The capture, as awk adds it up (kind:page lines' live bytes):
 * MemTotal 1020036 kB, MemFree 930852 kB, 6523 pages in the pagesets.
 */
#define MEMTOTAL	1044516864LL
#define MEMFREE		953192448LL
#define PCP		(6523LL * 4096)
#define SLAB		(5214208LL + 380928 + 8192)	/* before_load, new_slab x2 */
#define PGTABLE		(81920LL + 12288 + 24576 + 36864 + 45056 + 8192)
#define ANON		(114688LL + 12288 + 49152 + 49152)
#define FILEPAGES	17981440LL
#define STACK		49152LL				/* copy_process */
#define OTHER		(7471104LL + 4096 + 12288 + 12288 + 65536 + 2097152)
#define SELF		29999104LL
#define RESERVED	29126656LL
#define ATTRIBUTED	(SLAB + PGTABLE + ANON + FILEPAGES + STACK + OTHER + SELF)
#define UNTRACKED	(MEMTOTAL - MEMFREE - PCP - ATTRIBUTED)

static FILE *fixture(const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", kp_fixtures, name);
	f = fopen(path, "r");
	assert_non_null(f);
	return f;
}

static int parse_text(const char *text, struct kp_meminfo *m, char *err,
		      size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(f);
	rc = kp_parse_meminfo(f, "mi", m, err, len);
	fclose(f);
	return rc;
}

static int zone_text(const char *text, struct kp_zoneinfo *z, char *err,
		     size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(f);
	rc = kp_parse_zoneinfo(f, "zi", z, err, len);
	fclose(f);
	return rc;
}

static void load(struct kp_meminfo *m, struct kp_zoneinfo *z,
		 struct kp_profile *p)
{
	char err[512];
	FILE *f;

	f = fixture("meminfo-6.12.txt");
	assert_int_equal(kp_parse_meminfo(f, "meminfo", m, err, sizeof(err)), 0);
	fclose(f);
	f = fixture("zoneinfo-6.12.txt");
	assert_int_equal(kp_parse_zoneinfo(f, "zoneinfo", z, err, sizeof(err)), 0);
	fclose(f);
	f = fixture("kmemprof-meminfo-6.12.txt");
	assert_int_equal(kp_parse(f, "kmemprof", p, err, sizeof(err)), 0);
	fclose(f);
}

static void parses_meminfo(void **state)
{
	struct kp_meminfo m;
	char err[256];
	FILE *f = fixture("meminfo-6.12.txt");

	(void)state;
	assert_int_equal(kp_parse_meminfo(f, "meminfo", &m, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(m.v[KP_MI_MEMTOTAL], MEMTOTAL);
	assert_int_equal(m.v[KP_MI_MEMFREE], MEMFREE);
	assert_int_equal(m.v[KP_MI_BUFFERS], 0);
	assert_int_equal(m.v[KP_MI_CACHED], 17973248);
	assert_int_equal(m.v[KP_MI_ANON], 77824);
	assert_int_equal(m.v[KP_MI_SLAB], 5783552);
	assert_int_equal(m.v[KP_MI_STACK], 901120);
	assert_int_equal(m.v[KP_MI_PGTABLE], 131072);
	assert_int_equal(m.v[KP_MI_VMALLOC], 27676672);
	assert_int_equal(m.v[KP_MI_PERCPU], 6422528);
	assert_int_equal(m.v[KP_MI_CMATOTAL], 33554432);
	assert_int_equal(m.v[KP_MI_CMAFREE], 33161216);
	assert_true(m.v[KP_MI_HUGETLB] == KP_NONE);	/* no hugetlb there */
	assert_string_equal(kp_mi_name(KP_MI_PGTABLE), "PageTables");

	/* A kernel without CMA or Percpu: those are absent, not 0. */
	assert_int_equal(parse_text("MemTotal: 8 kB\nMemFree: 4 kB\n"
				    "HugePages_Total:       0\n", &m, err,
				    sizeof(err)), 0);
	assert_int_equal(m.v[KP_MI_MEMTOTAL], 8192);
	assert_true(m.v[KP_MI_CMATOTAL] == KP_NONE);
	assert_true(m.v[KP_MI_PERCPU] == KP_NONE);
	assert_true(m.v[KP_MI_HUGETLB] == KP_NONE);
	assert_int_equal(parse_text("MemTotal: 8 kB\nMemFree: 4 kB\n"
				    "Hugetlb:         4096 kB\n", &m, err,
				    sizeof(err)), 0);
	assert_int_equal(m.v[KP_MI_HUGETLB], 4194304);
	assert_string_equal(kp_mi_name(KP_MI_HUGETLB), "Hugetlb");
}

static void refuses_bad_meminfo(void **state)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "MemTotal: x kB\n", "mi:1: bad value for MemTotal" },
		{ "MemTotal: 8 kB\nMemFree: 4 MB\n", "mi:2: bad value for MemFree" },
		{ "MemTotal: 8 kB\nMemFree: 4 kB 5\n", "mi:2: bad value for MemFree" },
		{ "MemTotal: 8\nMemFree: 4 kB\n", "mi:1: bad value for MemTotal" },
		{ "MemTotal: -8 kB\n", "mi:1: bad value for MemTotal" },
		{ "MemTotal: 8 kB\nno colon\n", "mi:2: not a /proc/meminfo line" },
		{ "MemTotal: 8 kB\n", "mi:1: not a /proc/meminfo (no MemTotal or MemFree)" },
		{ "", "mi:1: not a /proc/meminfo (no MemTotal or MemFree)" },
		{ "MemTotal: 4 kB\nMemFree: 8 kB\n", "mi:2: MemFree is more than MemTotal" },
		{ "MemTotal: 99999999999999999 kB\nMemFree: 0 kB\n",
		  "mi:1: bad value for MemTotal" },
	};
	struct kp_meminfo m;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse_text(bad[i].text, &m, err, sizeof(err)), -1);
		assert_string_equal(err, bad[i].err);
	}
}

static void parses_zoneinfo(void **state)
{
	struct kp_zoneinfo z;
	char err[256];
	FILE *f = fixture("zoneinfo-6.12.txt");

	(void)state;
	assert_int_equal(kp_parse_zoneinfo(f, "zoneinfo", &z, err, sizeof(err)), 0);
	fclose(f);
	/* awk '$1 == "count:" { s += $2 }': the DMA zone's four CPUs */
	assert_int_equal(z.pcp_pages, 6523);
	assert_int_equal(z.managed, 255009);
	assert_int_equal(z.zones, 4);

	assert_int_equal(zone_text("count: 3\n", &z, err, sizeof(err)), -1);
	assert_string_equal(err, "zi:1: not a /proc/zoneinfo (count: before any zone)");
	assert_int_equal(zone_text("Node 0, zone DMA\n  count: x\n", &z, err,
				   sizeof(err)), -1);
	assert_string_equal(err, "zi:2: bad value for count:");
	assert_int_equal(zone_text("Node 0, zone DMA\n  managed 1 2\n", &z, err,
				   sizeof(err)), -1);
	assert_string_equal(err, "zi:2: bad value for managed");
	assert_int_equal(zone_text("Node 0, zone DMA\n  count: 99999999999999999\n",
				   &z, err, sizeof(err)), -1);
	assert_string_equal(err, "zi:2: bad value for count:");
	assert_int_equal(zone_text("", &z, err, sizeof(err)), -1);
	assert_string_equal(err, "zi:1: not a /proc/zoneinfo (no zone)");
}

static void classifies_page_lines(void **state)
{
	static const struct {
		const char *site, *module, *func;
		enum kp_mline line;
		bool before;
	} v[] = {
		{ "new_slab+0x368/0x458", NULL, "new_slab", KP_ML_SLAB, false },
		{ "x+0x1/0x2", NULL, "___kmalloc_large_node", KP_ML_SLAB, false },
		{ "x+0x1/0x2", NULL, "__kmalloc_large_node_noprof", KP_ML_SLAB, false },
		{ "x+0x1/0x2", NULL, "__pte_alloc", KP_ML_PGTABLE, false },
		{ "x+0x1/0x2", NULL, "__do_fault", KP_ML_PGTABLE, false },
		{ "x+0x1/0x2", NULL, "filemap_map_pages", KP_ML_PGTABLE, false },
		{ "x+0x1/0x2", NULL, "__handle_mm_fault", KP_ML_ANON, false },
		{ "x+0x1/0x2", NULL, "shmem_get_folio_gfp.constprop.0.isra.0",
		  KP_ML_FILE, false },
		{ "x+0x1/0x2", NULL, "filemap_alloc_folio_noprof", KP_ML_FILE, false },
		{ "x+0x1/0x2", NULL, "copy_process", KP_ML_STACK, false },
		{ "x+0x1/0x2", NULL, "pcpu_populate_chunk", KP_ML_PERCPU, false },
		/* the hugetlb pool: 6.12's folio allocators, 5.10/6.1's pages */
		{ "x+0x1/0x2", NULL, "alloc_buddy_hugetlb_folio", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_fresh_hugetlb_folio", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "only_alloc_fresh_hugetlb_folio", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_pool_huge_folio", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_surplus_hugetlb_folio", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_migrate_hugetlb_folio", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_gigantic_folio.isra.0", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_and_dissolve_hugetlb_folio", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_buddy_huge_page", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_fresh_huge_page", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_pool_huge_page", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_gigantic_page", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_surplus_huge_page", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "alloc_migrate_huge_page", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "gather_surplus_pages", KP_ML_HUGETLB, false },
		{ "x+0x1/0x2", NULL, "set_max_huge_pages", KP_ML_HUGETLB, false },
		/* the fault's dequeue from the pool allocates nothing */
		{ "x+0x1/0x2", NULL, "alloc_hugetlb_folio", KP_ML_OTHER, false },
		{ "x+0x1/0x2", NULL, "tlb_remove_table", KP_ML_OTHER, false },
		{ "x+0x1/0x2", NULL, "_noprof", KP_ML_OTHER, false },
		{ "x+0x1/0x2", NULL, "new_slabs", KP_ML_OTHER, false },
		{ "x+0x1/0x2", NULL, "new_sla", KP_ML_OTHER, false },
		{ "x+0x1/0x2", NULL, NULL, KP_ML_OTHER, false },
		/* module code is a driver's, whatever its name */
		{ "new_slab+0x1/0x2", "m", "new_slab", KP_ML_OTHER, false },
		{ "before_load:slab", NULL, "before_load", KP_ML_SLAB, true },
		{ "before_load:pagetable", NULL, "before_load", KP_ML_PGTABLE, true },
		{ "before_load:anon", NULL, "before_load", KP_ML_ANON, true },
		{ "before_load:file", NULL, "before_load", KP_ML_FILE, true },
		{ "before_load:other", NULL, "before_load", KP_ML_OTHER, true },
		{ "before_load:hugetlb", NULL, "before_load", KP_ML_HUGETLB, true },
		{ "before_load:stack", NULL, "before_load", KP_ML_STACK, true },
		{ "before_load:percpu", NULL, "before_load", KP_ML_PERCPU, true },
		{ "before_load:reserved", NULL, "before_load", KP_ML_NR, true },
		{ "before_load:newkind", NULL, "before_load", KP_ML_OTHER, true },
		{ "kmemprof:tables", NULL, "kmemprof", KP_ML_SELF, false },
	};
	size_t i;
	bool before;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		before = !v[i].before;
		if (kp_mline_of(v[i].site, v[i].module, v[i].func, &before) !=
		    v[i].line || before != v[i].before)
			fail_msg("%s %s: not on line %d", v[i].site,
				 v[i].func ? v[i].func : "(null)", v[i].line);
	}
}

/* The capture's account, line by line, and that it adds up. */
static void accounts_the_capture(void **state)
{
	static const int64_t want[KP_ML_NR] = {
		MEMFREE, PCP, SLAB, PGTABLE, ANON, FILEPAGES, STACK, 0, 0,
		OTHER, SELF, UNTRACKED,
	};
	struct kp_meminfo m;
	struct kp_zoneinfo z;
	struct kp_profile p;
	struct kp_account a;
	char err[256];
	int64_t sum = 0;
	size_t i;

	(void)state;
	load(&m, &z, &p);
	assert_int_equal(kp_account(&p, &m, &z, 0, &a, err, sizeof(err)), 0);
	kp_free(&p);
	/* MemTotal / managed: 1044516864 / 255009 */
	assert_int_equal(a.page_size, 4096);
	assert_int_equal(a.memtotal, MEMTOTAL);
	for (i = 0; i < KP_ML_NR; i++) {
		if (a.l[i].bytes != want[i])
			fail_msg("line %s: %lld, not %lld", kp_mline_info(i)->id,
				 (long long)a.l[i].bytes, (long long)want[i]);
		sum += a.l[i].bytes;
	}
	assert_int_equal(sum, MEMTOTAL);
	assert_int_equal(UNTRACKED, 876544);
	assert_int_equal(a.attributed, ATTRIBUTED);
	assert_int_equal(a.attributed, 63729664);
	assert_int_equal(a.before_load, 5214208 + 81920 + 114688 + 17981440 +
			 7471104);
	assert_int_equal(a.reserved, RESERVED);
	assert_true(a.have_prior);
	assert_true(a.have_zoneinfo);
	/* since + before = the line, where both are kept */
	for (i = KP_ML_SLAB; i <= KP_ML_OTHER; i++)
		assert_int_equal(a.l[i].since + (a.l[i].before == KP_NONE ? 0 :
						 a.l[i].before), a.l[i].bytes);
	assert_int_equal(a.l[KP_ML_SLAB].before, 5214208);
	assert_int_equal(a.l[KP_ML_SLAB].sites, 2);
	assert_int_equal(a.l[KP_ML_PGTABLE].sites, 5);
	/* ftrace, execmem, tlb_remove_table, copy_splice_read, the hog */
	assert_int_equal(a.l[KP_ML_OTHER].sites, 5);
	assert_int_equal(a.l[KP_ML_FILE].since, 0);
	assert_int_equal(a.l[KP_ML_FILE].sites, 0);	/* shmem's line is at 0 */
	/* a kernel stacks line with no before_load:stack line: 0 before */
	assert_int_equal(a.l[KP_ML_STACK].before, 0);
	assert_int_equal(a.l[KP_ML_PERCPU].before, 0);
	assert_true(a.l[KP_ML_SELF].since == KP_NONE);
	/* meminfo beside */
	assert_int_equal(a.l[KP_ML_FREE].meminfo, MEMFREE);
	assert_int_equal(a.l[KP_ML_FILE].meminfo, 17973248);	/* + Buffers 0 */
	assert_int_equal(a.l[KP_ML_STACK].meminfo, 901120);
	assert_true(a.l[KP_ML_OTHER].meminfo == KP_NONE);
	/* no Hugetlb field (the capture's kernel has no hugetlb): no pool */
	assert_int_equal(a.l[KP_ML_HUGETLB].meminfo, 0);
	assert_int_equal(a.l[KP_ML_HUGETLB].before, 0);
	assert_int_equal(a.l[KP_ML_HUGETLB].since, 0);
	assert_int_equal(a.vmalloc, 27676672);
	assert_int_equal(a.cma_used, 33554432 - 33161216);
	assert_int_equal(a.percpu, 6422528);
	/* objects inside the pages: counted apart, never added */
	assert_int_equal(a.slab_objects, 181424);
	assert_int_equal(a.percpu_objects, 640);
}

/* Without zoneinfo the per-CPU lists go into untracked; still MemTotal. */
static void accounts_without_zoneinfo(void **state)
{
	struct kp_meminfo m;
	struct kp_zoneinfo z;
	struct kp_profile p;
	struct kp_account a;
	char err[256];
	int64_t sum = 0;
	size_t i;

	(void)state;
	load(&m, &z, &p);
	assert_int_equal(kp_account(&p, &m, NULL, 16384, &a, err, sizeof(err)), 0);
	assert_int_equal(a.page_size, 16384);
	assert_false(a.have_zoneinfo);
	assert_int_equal(a.l[KP_ML_PCP].bytes, 0);
	assert_int_equal(a.l[KP_ML_UNTRACKED].bytes, UNTRACKED + PCP);
	for (i = 0; i < KP_ML_NR; i++)
		sum += a.l[i].bytes;
	assert_int_equal(sum, MEMTOTAL);
	/* managed that does not divide MemTotal: the page size given wins */
	z.managed = 3;
	assert_int_equal(kp_account(&p, &m, &z, 16384, &a, err, sizeof(err)), 0);
	assert_int_equal(a.l[KP_ML_PCP].bytes, 6523LL * 16384);
	kp_free(&p);
}

static int profile_text(const char *text, struct kp_profile *p)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	char err[256];
	int rc;

	assert_non_null(f);
	rc = kp_parse(f, "p", p, err, sizeof(err));
	fclose(f);
	return rc;
}

/*
 * More on the lines than MemTotal - MemFree (the files read apart):
 * untracked goes below zero and the lines still add up. Slab and percpu
 * objects are never added to the pages.
 */
static void accounts_below_zero(void **state)
{
	struct kp_meminfo m;
	struct kp_profile p;
	struct kp_account a;
	char err[256];

	(void)state;
	assert_int_equal(parse_text("MemTotal: 100 kB\nMemFree: 90 kB\n", &m,
				    err, sizeof(err)), 0);
	assert_int_equal(profile_text("kmemprof - version: 1.0\n#\n"
		"  16384 4 before_load:other func:before_load kind:page allocs:4 frees:0 bytes:16384 req:16384\n"
		"   8192 2 new_slab+0x1/0x2 func:new_slab kind:page allocs:2 frees:0 bytes:8192 req:8192\n"
		"   4096 1 before_load:reserved func:before_load kind:page allocs:1 frees:0 bytes:4096 req:4096\n"
		"   5000 9 k+0x1/0x2 func:k kind:slab allocs:9 frees:0 bytes:5000 req:5000\n"
		"    700 3 p+0x1/0x2 func:p kind:percpu allocs:3 frees:0 bytes:700 req:700\n",
		&p), 0);
	assert_int_equal(kp_account(&p, &m, NULL, 4096, &a, err, sizeof(err)), 0);
	kp_free(&p);
	assert_int_equal(a.attributed, 24576);
	assert_int_equal(a.l[KP_ML_UNTRACKED].bytes, 102400 - 92160 - 24576);
	assert_int_equal(a.l[KP_ML_SLAB].since, 8192);
	assert_int_equal(a.l[KP_ML_OTHER].before, 16384);
	assert_int_equal(a.reserved, 4096);
	assert_int_equal(a.slab_objects, 5000);
	assert_int_equal(a.percpu_objects, 700);
	/* hostile sizes: held at INT64_MAX, no overflow */
	assert_int_equal(profile_text("kmemprof - version: 1.0\n#\n"
		"  9223372036854775807 1 a+0x1/0x2 func:a kind:page allocs:1 frees:0 bytes:1 req:1\n"
		"  9223372036854775807 1 b+0x1/0x2 func:b kind:page allocs:1 frees:0 bytes:1 req:1\n",
		&p), 0);
	assert_int_equal(kp_account(&p, &m, NULL, 4096, &a, err, sizeof(err)), 0);
	kp_free(&p);
	assert_int_equal(a.attributed, INT64_MAX);
	assert_false(a.have_prior);	/* no before_load line */
}

/*
 * The hugetlb pool: 16 pages of 2 MiB from before load on
 * before_load:hugetlb, 2 more since on the pool's allocators (6.12's and
 * 6.1's names), beside meminfo's Hugetlb; they leave other and untracked.
 */
static void accounts_hugetlb(void **state)
{
	struct kp_meminfo m;
	struct kp_profile p;
	struct kp_account a;
	char err[256];
	int64_t sum = 0;
	size_t i;

	(void)state;
	assert_int_equal(parse_text("MemTotal: 102400 kB\nMemFree: 2048 kB\n"
				    "Hugetlb:   40960 kB\n", &m, err,
				    sizeof(err)), 0);
	assert_int_equal(profile_text("kmemprof - version: 1.0\n#\n"
		"  33554432 16 before_load:hugetlb func:before_load kind:page allocs:16 frees:0 bytes:33554432 req:33554432\n"
		"   2097152 1 alloc_buddy_hugetlb_folio+0x60/0x1a0 func:alloc_buddy_hugetlb_folio kind:page allocs:1 frees:0 bytes:2097152 req:2097152\n"
		"   2097152 1 alloc_fresh_huge_page+0x60/0x1a0 func:alloc_fresh_huge_page kind:page allocs:3 frees:2 bytes:6291456 req:6291456\n"
		"         0 0 alloc_surplus_hugetlb_folio+0x8c/0x1e0 func:alloc_surplus_hugetlb_folio kind:page allocs:1 frees:1 bytes:2097152 req:2097152\n"
		"     16384 4 before_load:other func:before_load kind:page allocs:4 frees:0 bytes:16384 req:16384\n",
		&p), 0);
	assert_int_equal(kp_account(&p, &m, NULL, 4096, &a, err, sizeof(err)), 0);
	kp_free(&p);
	assert_int_equal(a.l[KP_ML_HUGETLB].bytes, 37748736);
	assert_int_equal(a.l[KP_ML_HUGETLB].before, 33554432);
	assert_int_equal(a.l[KP_ML_HUGETLB].since, 4194304);
	assert_int_equal(a.l[KP_ML_HUGETLB].sites, 2);
	assert_int_equal(a.l[KP_ML_HUGETLB].meminfo, 41943040);
	assert_int_equal(a.l[KP_ML_OTHER].bytes, 16384);
	assert_int_equal(a.before_load, 33554432 + 16384);
	assert_int_equal(a.attributed, 37748736 + 16384);
	assert_int_equal(a.l[KP_ML_UNTRACKED].bytes,
			 104857600 - 2097152 - 37748736 - 16384);
	for (i = 0; i < KP_ML_NR; i++)
		sum += a.l[i].bytes;
	assert_int_equal(sum, 104857600);
	assert_string_equal(kp_mline_info(KP_ML_HUGETLB)->id, "hugetlb");
	assert_string_equal(kp_mline_info(KP_ML_HUGETLB)->label, "hugetlb pool");
	assert_string_equal(kp_mline_info(KP_ML_HUGETLB)->field, "Hugetlb");
}

/*
 * Kernel stacks and percpu chunks from before load (before_load:stack,
 * before_load:percpu) on the KernelStack and Percpu lines with fork's and
 * percpu's sites since load, not on other.
 */
static void accounts_prior_stacks_percpu(void **state)
{
	struct kp_meminfo m;
	struct kp_profile p;
	struct kp_account a;
	char err[256];
	int64_t sum = 0;
	size_t i;

	(void)state;
	assert_int_equal(parse_text("MemTotal: 102400 kB\nMemFree: 2048 kB\n"
				    "KernelStack: 1024 kB\nPercpu: 768 kB\n",
				    &m, err, sizeof(err)), 0);
	assert_int_equal(profile_text("kmemprof - version: 1.0\n#\n"
		"    983040 240 before_load:stack func:before_load kind:page allocs:240 frees:0 bytes:983040 req:983040\n"
		"     65536 16 alloc_thread_stack_node+0x90/0x1c0 func:alloc_thread_stack_node kind:page allocs:20 frees:4 bytes:81920 req:81920\n"
		"    524288 128 before_load:percpu func:before_load kind:page allocs:128 frees:0 bytes:524288 req:524288\n"
		"     32768 8 pcpu_populate_chunk+0x1e8/0x3b0 func:pcpu_populate_chunk kind:page allocs:8 frees:0 bytes:32768 req:32768\n"
		"     16384 4 before_load:other func:before_load kind:page allocs:4 frees:0 bytes:16384 req:16384\n",
		&p), 0);
	assert_int_equal(kp_account(&p, &m, NULL, 4096, &a, err, sizeof(err)), 0);
	kp_free(&p);
	assert_int_equal(a.l[KP_ML_STACK].bytes, 983040 + 65536);
	assert_int_equal(a.l[KP_ML_STACK].before, 983040);
	assert_int_equal(a.l[KP_ML_STACK].since, 65536);
	assert_int_equal(a.l[KP_ML_STACK].meminfo, 1048576);
	assert_int_equal(a.l[KP_ML_PERCPU].bytes, 524288 + 32768);
	assert_int_equal(a.l[KP_ML_PERCPU].before, 524288);
	assert_int_equal(a.l[KP_ML_PERCPU].since, 32768);
	assert_int_equal(a.l[KP_ML_PERCPU].meminfo, 786432);
	assert_int_equal(a.l[KP_ML_OTHER].bytes, 16384);
	assert_int_equal(a.before_load, 983040 + 524288 + 16384);
	for (i = 0; i < KP_ML_NR; i++)
		sum += a.l[i].bytes;
	assert_int_equal(sum, 104857600);
}

static void refuses_allocinfo(void **state)
{
	struct kp_meminfo m;
	struct kp_profile p;
	struct kp_account a;
	char err[256];
	FILE *f = fixture("allocinfo-6.12.txt");

	(void)state;
	assert_int_equal(kp_parse(f, "allocinfo", &p, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(parse_text("MemTotal: 100 kB\nMemFree: 90 kB\n", &m,
				    err, sizeof(err)), 0);
	assert_int_equal(kp_account(&p, &m, NULL, 4096, &a, err, sizeof(err)), -1);
	assert_string_equal(err, "the account needs /proc/kmemprof (the kmemprof module), not /proc/allocinfo");
	kp_free(&p);
}

/* The command, on a fake root holding the capture. */

static char root[64];

static void put(const char *from, const char *to)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "cp '%s/%s' '%s/%s'", kp_fixtures, from,
		 root, to);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	char dir[128];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/kp-meminfo-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(dir, sizeof(dir), "%s/proc", root);
	mkdir(dir, 0755);
	put("meminfo-6.12.txt", "proc/meminfo");
	put("zoneinfo-6.12.txt", "proc/zoneinfo");
	put("kmemprof-meminfo-6.12.txt", "proc/kmemprof");
	setenv("KMEMPROF_ROOT", root, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	unsetenv("KMEMPROF_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

/* kmemprof ARGS in the root, stdout and stderr into @out. */
static int run(char *out, size_t len, const char *fmt, ...)
{
	char args[512], cmd[1024];
	size_t n = 0, got;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s 2>&1", root, kp_binary,
		 args);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < len && (got = fread(out + n, 1, len - n - 1, p)))
		n += got;
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void cli_meminfo(void **state)
{
	char out[8192];

	(void)state;
	assert_int_equal(run(out, sizeof(out), "meminfo -H"), 0);
	assert_string_equal(out,
		"MemTotal 997M = free 935M + on kmemprof's page lines 61M + untracked 856K\n"
		"kmemprof's page lines: 2.8M since load, 30M from before load, 29M its own tables\n"
		"\n"
		"LINE                          BYTES   SINCE LOAD  BEFORE LOAD      MEMINFO\n"
		"free                           910M            -            -         910M  MemFree\n"
		"free in per-CPU lists           26M            -            -            -  (zoneinfo)\n"
		"slab                           5.4M         380K         5.0M         5.6M  Slab\n"
		"page tables                    204K         124K          80K         128K  PageTables\n"
		"anonymous                      220K         108K         112K          76K  AnonPages\n"
		"page cache                      18M            0          18M          18M  Cached+Buffers\n"
		"kernel stacks                   48K          48K            0         880K  KernelStack\n"
		"percpu chunks                     0            0            0         6.2M  Percpu\n"
		"hugetlb pool                      0            0            0            0  Hugetlb\n"
		"other kernel pages             9.3M         2.1M         7.2M            -\n"
		"kmemprof's tables               29M            -            -            -  (kmemprof:tables)\n"
		"untracked                      856K            -            -            -  (the rest)\n"
		"= MemTotal                     997M            -            -         997M  MemTotal\n"
		"\n"
		"free in per-CPU lists: zoneinfo's pagesets, which MemFree leaves out.\n"
		"untracked: MemTotal minus the lines above: pages allocated between the\n"
		"reads of the files (below zero when more were freed), and pages off the\n"
		"free lists that no line holds: alloc_contig_pages(), drop.tags, skip.nmi,\n"
		"isolated free pages (Documentation/kmemprof-output.rst lists them all).\n"
		"\n"
		"Beside the account, not added (outside MemTotal, or inside the lines):\n"
		"  reserved: memblock, kernel, memmap          28M  outside MemTotal\n"
		"  VmallocUsed                                 27M  on vmalloc's callers' lines\n"
		"  CMA in use (CmaTotal - CmaFree)            384K  on its holders' lines\n"
		"  slab objects (kind:slab lines)             178K  inside the slab pages\n"
		"  percpu objects (kind:percpu lines)          640  inside percpu chunks\n");
	/* in bytes, the lines and MemTotal as the fixtures add them up */
	assert_int_equal(run(out, sizeof(out), "meminfo"), 0);
	assert_non_null(strstr(out, "MemTotal 1044516864 = free 979910656 + on kmemprof's page lines 63729664 + untracked 876544\n"));
	assert_non_null(strstr(out, "\nslab                        5603328       389120      5214208      5783552  Slab\n"));
	assert_non_null(strstr(out, "\nuntracked                    876544            -            -            -  (the rest)\n"));
	assert_non_null(strstr(out, "\n= MemTotal               1044516864            -            -   1044516864  MemTotal\n"));
	assert_int_equal(run(out, sizeof(out), "meminfo --help"), 0);
	assert_non_null(strstr(out, "usage: kmemprof meminfo [OPTIONS]\n"));
	assert_int_equal(run(out, sizeof(out), "help"), 0);
	assert_non_null(strstr(out, "\n  meminfo "));
	assert_int_equal(run(out, sizeof(out), "meminfo extra"), 2);
	assert_int_equal(run(out, sizeof(out), "meminfo --json --prometheus"), 2);
}

static void cli_meminfo_machine(void **state)
{
	char out[16384];

	(void)state;
	assert_int_equal(run(out, sizeof(out), "meminfo --json"), 0);
	assert_non_null(strstr(out, "{\"schema\":1,\"view\":\"meminfo\",\"memtotal\":1044516864,\"page_size\":4096,\"attributed\":63729664,\"before_load\":30863360,\"zoneinfo\":true,\"lines\":["));
	assert_non_null(strstr(out, "\n{\"category\":\"hugetlb\",\"label\":\"hugetlb pool\",\"bytes\":0,\"since_load\":0,\"before_load\":0,\"meminfo_field\":\"Hugetlb\",\"meminfo\":0,\"sites\":0},\n"));
	assert_non_null(strstr(out, "\n{\"category\":\"untracked\",\"label\":\"untracked\",\"bytes\":876544,\"since_load\":null,\"before_load\":null,\"meminfo_field\":null,\"meminfo\":null}"));
	assert_non_null(strstr(out, "\"beside\":{\"reserved\":29126656,\"VmallocUsed\":27676672,\"CmaUsed\":393216,\"slab_objects\":181424,\"percpu_objects\":640}}\n"));
	assert_int_equal(run(out, sizeof(out), "meminfo --prometheus --source node-a"), 0);
	assert_non_null(strstr(out, "\nkmemprof_meminfo_total_bytes{source=\"node-a\"} 1044516864\n"));
	assert_non_null(strstr(out, "\nkmemprof_meminfo_bytes{source=\"node-a\",category=\"free_pcp\"} 26718208\n"));
	assert_non_null(strstr(out, "\nkmemprof_meminfo_bytes{source=\"node-a\",category=\"untracked\"} 876544\n"));
	assert_non_null(strstr(out, "\nkmemprof_meminfo_reported_bytes{source=\"node-a\",category=\"file\",field=\"Cached+Buffers\"} 17973248\n"));
	assert_null(strstr(out, "# EOF"));
	assert_int_equal(run(out, sizeof(out), "meminfo --openmetrics"), 0);
	assert_non_null(strstr(out, "# UNIT kmemprof_meminfo_bytes bytes\n"));
	assert_non_null(strstr(out, "\nkmemprof_meminfo_reserved_bytes{source=\"kmemprof\"} 29126656\n# EOF\n"));
	assert_int_equal(run(out, sizeof(out), "plot meminfo -o ram.svg"), 0);
	assert_string_equal(out, "");
}

/*
 * The capture with a pool of 16 pages of 2 MiB from before load: the
 * before_load:hugetlb line, meminfo's Hugetlb, and MemFree 32 MiB less;
 * untracked is what it was.
 */
static void cli_meminfo_hugetlb(void **state)
{
	char out[8192], cmd[1024];

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "cd '%s/proc' && sed -i 's/^MemFree: .*/MemFree:          898084 kB/' meminfo && "
		 "echo 'Hugetlb:           32768 kB' >> meminfo && "
		 "echo '    33554432       16 before_load:hugetlb func:before_load kind:page allocs:16 frees:0 bytes:33554432 req:33554432' >> kmemprof",
		 root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(run(out, sizeof(out), "meminfo"), 0);
	assert_non_null(strstr(out, "MemTotal 1044516864 = free 946356224 + on kmemprof's page lines 97284096 + untracked 876544\n"));
	assert_non_null(strstr(out, "kmemprof's page lines: 2867200 since load, 64417792 from before load, 29999104 its own tables\n"));
	assert_non_null(strstr(out, "\nhugetlb pool               33554432            0     33554432     33554432  Hugetlb\n"
				    "other kernel pages          9662464      2191360      7471104            -\n"));
	assert_non_null(strstr(out, "\nuntracked                    876544            -            -            -  (the rest)\n"));
	assert_int_equal(run(out, sizeof(out), "meminfo --json"), 0);
	assert_non_null(strstr(out, "\n{\"category\":\"hugetlb\",\"label\":\"hugetlb pool\",\"bytes\":33554432,\"since_load\":0,\"before_load\":33554432,\"meminfo_field\":\"Hugetlb\",\"meminfo\":33554432,\"sites\":0},\n"));
	assert_int_equal(run(out, sizeof(out), "meminfo --prometheus"), 0);
	assert_non_null(strstr(out, "\nkmemprof_meminfo_bytes{source=\"kmemprof\",category=\"hugetlb\"} 33554432\n"));
	assert_non_null(strstr(out, "\nkmemprof_meminfo_before_load_bytes{source=\"kmemprof\",category=\"hugetlb\"} 33554432\n"));
	assert_non_null(strstr(out, "\nkmemprof_meminfo_reported_bytes{source=\"kmemprof\",category=\"hugetlb\",field=\"Hugetlb\"} 33554432\n"));
}

/*
 * meminfo -i: the three files in one capture give the account the live
 * files give; in any order, from stdin, without zoneinfo; refused without
 * meminfo or with a line of none of them.
 */
static void cli_meminfo_input(void **state)
{
	char live[8192], out[8192], cmd[2048];

	(void)state;
	assert_int_equal(run(live, sizeof(live), "meminfo"), 0);
	snprintf(cmd, sizeof(cmd), "cd '%s' && cat proc/meminfo proc/zoneinfo proc/kmemprof > cap.txt && "
		 "cat proc/kmemprof proc/zoneinfo proc/meminfo > rev.txt && "
		 "cat proc/meminfo proc/kmemprof > nozone.txt && "
		 "mkdir gone && mv proc gone/", root);
	assert_int_equal(system(cmd), 0);
	/* the live files are gone: the account is the capture's */
	assert_int_equal(run(out, sizeof(out), "meminfo -i cap.txt"), 0);
	assert_string_equal(out, live);
	assert_int_equal(run(out, sizeof(out), "meminfo -i rev.txt"), 0);
	assert_string_equal(out, live);
	assert_int_equal(run(out, sizeof(out), "meminfo -i - < cap.txt"), 0);
	assert_string_equal(out, live);
	assert_int_equal(run(out, sizeof(out), "meminfo -i nozone.txt"), 0);
	assert_non_null(strstr(out, "\nfree in per-CPU lists             -            -            -            -  (no zoneinfo)\n"));
	assert_non_null(strstr(out, "\nuntracked                  27594752            -            -            -  (the rest)\n"));
	assert_int_equal(run(out, sizeof(out), "meminfo -i cap.txt --prometheus"), 0);
	assert_non_null(strstr(out, "\nkmemprof_meminfo_bytes{source=\"kmemprof\",category=\"untracked\"} 876544\n"));
	assert_int_equal(run(out, sizeof(out), "plot meminfo -i cap.txt -o ram.svg"), 0);
	assert_string_equal(out, "");
	/* refused: a profile alone, a line of none of the three, a bad part */
	assert_int_equal(run(out, sizeof(out), "meminfo -i gone/proc/kmemprof"), 1);
	assert_string_equal(out, "kmemprof meminfo: -i gone/proc/kmemprof: no /proc/meminfo in it (cat /proc/meminfo /proc/zoneinfo /proc/kmemprof > FILE)\n");
	assert_int_equal(run(out, sizeof(out), "meminfo -i - < /dev/null"), 1);
	assert_string_equal(out, "kmemprof meminfo: -i -: no /proc/meminfo in it (cat /proc/meminfo /proc/zoneinfo /proc/kmemprof > FILE)\n");
	snprintf(cmd, sizeof(cmd), "cd '%s' && (echo hello; cat cap.txt) > junk.txt && "
		 "(echo 'MemTotal: 8 kB'; echo 'MemFree: x kB'; cat gone/proc/kmemprof) > bad.txt",
		 root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(run(out, sizeof(out), "meminfo -i junk.txt"), 1);
	assert_string_equal(out, "kmemprof meminfo: -i junk.txt:1: not a capture of /proc/meminfo, /proc/zoneinfo and /proc/kmemprof (cat them into one file)\n");
	assert_int_equal(system(cmd), 0);
	assert_int_equal(run(out, sizeof(out), "meminfo -i bad.txt"), 1);
	assert_string_equal(out, "kmemprof: bad.txt (its /proc/meminfo):2: bad value for MemFree\n");
}

static void cli_meminfo_missing(void **state)
{
	char out[4096], path[512];

	(void)state;
	/* no zoneinfo: the per-CPU lists go untracked, said so */
	snprintf(path, sizeof(path), "%s/proc/zoneinfo", root);
	unlink(path);
	assert_int_equal(run(out, sizeof(out), "meminfo"), 0);
	assert_non_null(strstr(out, "\nfree in per-CPU lists             -            -            -            -  (no zoneinfo)\n"));
	assert_non_null(strstr(out, "\nuntracked                  27594752            -            -            -  (the rest)\n"));
	assert_non_null(strstr(out, "free in per-CPU lists: no /proc/zoneinfo to read, so in untracked.\n"));
	assert_int_equal(run(out, sizeof(out), "meminfo --prometheus"), 0);
	assert_null(strstr(out, "free_pcp"));
	/* a broken meminfo: file:line */
	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(run(out, sizeof(out), "meminfo"), 1);
	snprintf(path, sizeof(path), "kmemprof: %s/proc/meminfo:1: not a /proc/meminfo (no MemTotal or MemFree)\n",
		 root);
	assert_string_equal(out, path);
	/* allocinfo, not kmemprof */
	put("allocinfo-6.12.txt", "proc/kmemprof");
	put("meminfo-6.12.txt", "proc/meminfo");
	assert_int_equal(run(out, sizeof(out), "meminfo"), 1);
	assert_string_equal(out, "kmemprof: the account needs /proc/kmemprof (the kmemprof module), not /proc/allocinfo\n");
	/* no module */
	snprintf(path, sizeof(path), "%s/proc/kmemprof", root);
	unlink(path);
	assert_int_equal(run(out, sizeof(out), "meminfo"), 1);
	snprintf(path, sizeof(path), "kmemprof: cannot open %s/proc/kmemprof: No such file or directory (is the kmemprof module loaded?)\n",
		 root);
	assert_string_equal(out, path);
}

const struct CMUnitTest kp_meminfo_tests[] = {
	cmocka_unit_test(parses_meminfo),
	cmocka_unit_test(refuses_bad_meminfo),
	cmocka_unit_test(parses_zoneinfo),
	cmocka_unit_test(classifies_page_lines),
	cmocka_unit_test(accounts_the_capture),
	cmocka_unit_test(accounts_without_zoneinfo),
	cmocka_unit_test(accounts_below_zero),
	cmocka_unit_test(accounts_hugetlb),
	cmocka_unit_test(accounts_prior_stacks_percpu),
	cmocka_unit_test(refuses_allocinfo),
	cmocka_unit_test_setup_teardown(cli_meminfo, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_meminfo_machine, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_meminfo_hugetlb, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_meminfo_input, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_meminfo_missing, setup, teardown),
};

const size_t kp_meminfo_ntests = sizeof(kp_meminfo_tests) /
				 sizeof(kp_meminfo_tests[0]);
