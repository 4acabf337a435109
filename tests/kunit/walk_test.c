// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a page event's walk of the frame records stays on the stack it
 * started on (module/tables.h, kmp_fp_last()).
 *
 * Each case lays out a chain of frame records by hand, {next record,
 * return address}, and walks it from its first record as a page event
 * does (kmemprof_test_page_walk()). The return addresses are the page
 * allocator's (get_free_pages()), which the walk passes, up to the last
 * record's, a function of this file's (walk_site()), which is the call
 * site. The general walk says how many records it passed and which site
 * it found (else the unwinder's, from the real stack); the fast walk which
 * site it found, or 0.
 *
 * walk_stack_frames: the fast path's walk for a sampled stack (stacks.h).
 * walk_key_depth_fast: key_depth's callers on the fast path and the
 * general path alike, with real allocations.
 *
 * A stack the walk starts on that is not the task's is a buffer of
 * vmalloc()'s aligned to THREAD_SIZE, as the IRQ and SDEI stacks are with
 * VMAP_STACK; without VMAP_STACK the walk reads only its first record.
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

/* A return address in the page allocator: a record the walk passes. */
#define WALK_PAGE_LR	((unsigned long)KMP_PAGE_ALLOC_FN + 4)

/* The call site of every chain: never on the real stack. */
static noinline void walk_site(void)
{
	barrier();
}

#define WALK_SITE_LR	((unsigned long)walk_site + 4)

/* Record @rec: @next is the record above it, @lr its return address. */
static void rec_set(unsigned long *rec, const void *next, unsigned long lr)
{
	rec[0] = (unsigned long)next;
	rec[1] = lr;
}

struct walk {
	unsigned long site;
	unsigned long fast;
	unsigned int passed;
};

static struct walk walk_from(const unsigned long *rec)
{
	struct walk w;

	w.site = kmemprof_test_page_walk((unsigned long)rec, &w.passed,
					 &w.fast);
	return w;
}

/*
 * A walk that passed @passed records, then found the site (@found) or
 * gave up on the records and left the site to the unwinder.
 */
static void expect_walk(struct kunit *test, const char *what, struct walk w,
			unsigned int passed, bool found)
{
	KMP_EXPECT_EQ_MSG(test, w.passed, passed, "%s: records passed", what);
	if (found) {
		KMP_EXPECT_EQ_MSG(test, w.site, WALK_SITE_LR, "%s: site", what);
		KMP_EXPECT_EQ_MSG(test, w.fast, WALK_SITE_LR,
				  "%s: fast walk's site", what);
	} else {
		KUNIT_EXPECT_NE_MSG(test, w.site, WALK_SITE_LR,
				    "%s: the walk left its stack", what);
		KMP_EXPECT_EQ_MSG(test, w.fast, 0UL,
				  "%s: the fast walk left its stack", what);
	}
}

/* A stack of THREAD_SIZE at @base, in a buffer with as much above it. */
struct fake_stack {
	void *buf;
	unsigned long base;
};

static unsigned long *at(const struct fake_stack *s, long off)
{
	return (unsigned long *)(s->base + off);
}

static void fake_stack_init(struct kunit *test, struct fake_stack *s)
{
	s->buf = vzalloc(3 * THREAD_SIZE);
	KMP_ASSERT_NOT_NULL(test, s->buf);
	s->base = ALIGN((unsigned long)s->buf, THREAD_SIZE);
}

/*
 * A chain that starts on a stack and whose link from its last record
 * there goes above the stack's end: the walk passes the records on the
 * stack and no more. Before, it went on up to THREAD_SIZE above the first
 * record, into what may be a guard page.
 */
static void walk_stops_at_stack_end(struct kunit *test)
{
	const bool vmap = IS_ENABLED(CONFIG_VMAP_STACK);
	const long top = THREAD_SIZE;
	struct fake_stack s;
	struct walk w;

	fake_stack_init(test, &s);

	/* On the stack all the way: two records passed, then the site. */
	rec_set(at(&s, top - 1024), at(&s, top - 992), WALK_PAGE_LR);
	rec_set(at(&s, top - 992), at(&s, top - 960), WALK_PAGE_LR);
	rec_set(at(&s, top - 960), NULL, WALK_SITE_LR);
	w = walk_from(at(&s, top - 1024));
	expect_walk(test, "on the stack", w, vmap ? 2 : 1, vmap);

	/*
	 * The last record that fits, at the stack's end less 16 bytes, links
	 * to one above the end, which links on to the site.
	 */
	rec_set(at(&s, top - 48), at(&s, top - 16), WALK_PAGE_LR);
	rec_set(at(&s, top - 16), at(&s, top + 16), WALK_PAGE_LR);
	rec_set(at(&s, top + 16), at(&s, top + 48), WALK_PAGE_LR);
	rec_set(at(&s, top + 48), NULL, WALK_SITE_LR);
	w = walk_from(at(&s, top - 48));
	expect_walk(test, "past the end", w, vmap ? 2 : 1, false);

	/* A record that straddles the end: its return address is above it. */
	rec_set(at(&s, top - 80), at(&s, top - 8), WALK_PAGE_LR);
	rec_set(at(&s, top - 8), NULL, WALK_SITE_LR);
	w = walk_from(at(&s, top - 80));
	expect_walk(test, "straddling the end", w, 1, false);
	vfree(s.buf);
}

/*
 * The same on the test's own (task) stack: a chain in this frame whose
 * last link goes to a buffer of kmalloc()'s laid out as the rest of the
 * chain. The walk passes the records on the stack and no more.
 */
static void walk_own_stack(struct kunit *test)
{
	unsigned long st[6], *heap;
	struct walk w;

	heap = kunit_kzalloc(test, 4 * sizeof(*heap), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, heap);

	rec_set(&st[0], &st[2], WALK_PAGE_LR);
	rec_set(&st[2], &st[4], WALK_PAGE_LR);
	rec_set(&st[4], NULL, WALK_SITE_LR);
	w = walk_from(st);
	expect_walk(test, "on the stack", w, 2, true);

	rec_set(&st[2], heap, WALK_PAGE_LR);
	rec_set(&heap[0], &heap[2], WALK_PAGE_LR);
	rec_set(&heap[2], NULL, WALK_SITE_LR);
	w = walk_from(st);
	expect_walk(test, "into the heap", w, 2, false);
}

/*
 * Records that are not records: a link that is not 8-aligned, one to the
 * record itself, and one below it. The walk passes the first record and
 * stops there.
 */
static void walk_bad_links(struct kunit *test)
{
	unsigned long st[8];
	struct walk w;

	rec_set(&st[2], &st[4], WALK_PAGE_LR);
	rec_set(&st[4], NULL, WALK_SITE_LR);

	rec_set(&st[0], (char *)&st[2] + 4, WALK_PAGE_LR);
	w = walk_from(st);
	expect_walk(test, "misaligned", w, 1, false);

	rec_set(&st[0], &st[0], WALK_PAGE_LR);
	w = walk_from(st);
	expect_walk(test, "to itself", w, 1, false);

	rec_set(&st[6], &st[4], WALK_PAGE_LR);
	w = walk_from(&st[6]);
	expect_walk(test, "downwards", w, 1, false);

	/* And the chain itself is walked once the link is right. */
	rec_set(&st[0], &st[2], WALK_PAGE_LR);
	w = walk_from(st);
	expect_walk(test, "aligned", w, 2, true);
}

/*
 * The fast path's stack walk (module/stacks.h): from the first record to
 * the one that returns to the call site, within five records, then the
 * stack's frames, all of them on the stack it started on, and all that
 * were asked for unless the stack ends at the task's final record; else
 * nothing (the general path then takes the event). The chains are on the test's
 * own stack; return addresses past the site are any nonzero words.
 */
#define WALK_A	(WALK_SITE_LR + 0x100)
#define WALK_B	(WALK_SITE_LR + 0x200)
#define WALK_C	(WALK_SITE_LR + 0x300)

static unsigned int stack_walk(const unsigned long *rec, unsigned long *fr,
			       unsigned int n)
{
	memset(fr, 0, 16 * sizeof(*fr));
	return kmemprof_test_stack_walk((unsigned long)rec, WALK_SITE_LR, fr, n);
}

static void walk_stack_frames(struct kunit *test)
{
	unsigned long st[24], fr[16], *heap;
	unsigned int i;

	if (!KMP_HAVE_FP_WALK) {
		kmp_kunit_skip(test, "no frame-record walk");
		return;
	}
	heap = kunit_kzalloc(test, 4 * sizeof(*heap), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, heap);

	/* one record passed, the site, three frames past it */
	rec_set(&st[0], &st[2], WALK_PAGE_LR);
	rec_set(&st[2], &st[4], WALK_SITE_LR);
	rec_set(&st[4], &st[6], WALK_A);
	rec_set(&st[6], &st[8], WALK_B);
	rec_set(&st[8], NULL, WALK_C);
	KMP_EXPECT_EQ(test, stack_walk(st, fr, 4), 4U);
	KMP_EXPECT_EQ(test, fr[0], WALK_SITE_LR);
	KMP_EXPECT_EQ(test, fr[1], WALK_A);
	KMP_EXPECT_EQ(test, fr[2], WALK_B);
	KMP_EXPECT_EQ(test, fr[3], WALK_C);
	KMP_EXPECT_EQ(test, stack_walk(st, fr, 1), 1U);
	KMP_EXPECT_EQ(test, fr[0], WALK_SITE_LR);

	/* the chain ends before the depth: nothing */
	KMP_EXPECT_EQ(test, stack_walk(st, fr, 5), 0U);
	/* a final record (return address 0), as a task's last */
	rec_set(&st[8], &st[10], WALK_C);
	rec_set(&st[10], NULL, 0);
	KMP_EXPECT_EQ(test, stack_walk(st, fr, 5), 0U);
	KMP_EXPECT_EQ(test, stack_walk(st, fr, 4), 4U);
	/* a stack that ends at the task's final record: as far as it goes */
	rec_set(&st[8], &task_pt_regs(current)->stackframe, WALK_C);
	KMP_EXPECT_EQ(test, stack_walk(st, fr, 16), 4U);
	KMP_EXPECT_EQ(test, fr[3], WALK_C);
	KMP_EXPECT_EQ(test, fr[4], 0UL);
	KMP_EXPECT_EQ(test, stack_walk(st, fr, 3), 3U);
	/* a frame past the site on another stack: nothing */
	rec_set(&st[8], heap, WALK_C);
	rec_set(&heap[0], NULL, WALK_A);
	KMP_EXPECT_EQ(test, stack_walk(st, fr, 5), 0U);
	KMP_EXPECT_EQ(test, stack_walk(st, fr, 4), 4U);

	/* the site in the sixth record is found, in the seventh it is not */
	for (i = 0; i < 5; i++)
		rec_set(&st[2 * i], &st[2 * i + 2], WALK_PAGE_LR);
	rec_set(&st[10], &st[12], WALK_SITE_LR);
	rec_set(&st[12], NULL, WALK_A);
	KMP_EXPECT_EQ(test, stack_walk(st, fr, 2), 2U);
	KMP_EXPECT_EQ(test, fr[0], WALK_SITE_LR);
	KMP_EXPECT_EQ(test, fr[1], WALK_A);
	rec_set(&st[10], &st[12], WALK_PAGE_LR);
	rec_set(&st[12], &st[14], WALK_SITE_LR);
	rec_set(&st[14], NULL, WALK_A);
	KMP_EXPECT_EQ(test, stack_walk(st, fr, 2), 0U);
	/* a site that is not on the chain */
	KMP_EXPECT_EQ(test, stack_walk(&st[14], fr, 1), 0U);
}

/*
 * key_depth on the fast path (probes.h): allocations from a known chain,
 * key_outer() -> key_middle() -> key_inner(), whose call site is in
 * key_inner() and whose two callers are in key_middle() and key_outer().
 * The first makes the tag of (site, callers), on the general path. The
 * fast path counts an allocation on that tag only if its walk of the
 * frame records found the callers that the general path's unwinder
 * found (else it gives the event back): so each of the next KEY_N must
 * be the fast path's, none the general path's (kmemprof_test_watch()),
 * and all on the one tag. Then with self_timing on, which sends every
 * event to the general path, KEY_N more land on the same tag. The frees
 * pair, on whichever path.
 */
#define KEY_N		32
#define KEY_SIZE	72

static int key_sink;

static noinline void *key_inner(bool page)
{
	void *p;

	if (page)
		p = alloc_pages(GFP_KERNEL, 0);
	else
		p = kmalloc(KEY_SIZE, GFP_KERNEL);
	WRITE_ONCE(key_sink, 1);
	return p;
}

static noinline void *key_middle(bool page)
{
	void *p = key_inner(page);

	WRITE_ONCE(key_sink, 2);
	return p;
}

static noinline void *key_outer(bool page)
{
	void *p = key_middle(page);

	WRITE_ONCE(key_sink, 3);
	return p;
}

static void key_allocs(struct kunit *test, void **objs, unsigned int from,
		       unsigned int to, bool page)
{
	unsigned int i;

	for (i = from; i < to; i++) {
		objs[i] = key_outer(page);
		KMP_ASSERT_NOT_NULL(test, objs[i]);
	}
}

static void walk_key_depth_one(struct kunit *test, bool page)
{
	enum kmp_kind kind = page ? KMP_KIND_PAGE : KMP_KIND_SLAB;
	const char *what = page ? "pages" : "slab";
	unsigned long is, ie, ms, me;
	struct kmp_totals base, t;
	unsigned int i;
	u64 base_keyed;
	void **objs;

	objs = kmp_kunit_kcalloc(test, 2 * KEY_N + 1, sizeof(*objs),
				 GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, objs);
	kmp_test_fn_range(test, key_inner, &is, &ie);
	kmp_test_fn_range(test, key_middle, &ms, &me);

	/* the tag, made by the general path */
	key_allocs(test, objs, 0, 1, page);
	KMP_EXPECT_EQ_MSG(test, kmemprof_sum_callers(kind, is, ie, ms, me,
						     &base), 1,
			  "%s: tags made", what);

	kmemprof_test_watch(kind, is, ie);
	key_allocs(test, objs, 1, KEY_N + 1, page);
	KMP_EXPECT_EQ_MSG(test, kmemprof_test_watched(), 0U,
			  "%s: allocations the fast path gave back", what);
	KMP_EXPECT_EQ_MSG(test, kmemprof_sum_callers(kind, is, ie, ms, me, &t),
			  1, "%s: tags, fast path", what);
	KMP_EXPECT_EQ_MSG(test, t.allocs - base.allocs, (u64)KEY_N,
			  "%s: allocations, fast path", what);

	KMP_ASSERT_EQ(test, kmemprof_set_knob("self_timing", 1), 0);
	kmemprof_test_watch(kind, is, ie);
	key_allocs(test, objs, KEY_N + 1, 2 * KEY_N + 1, page);
	KMP_EXPECT_EQ_MSG(test, kmemprof_test_watched(), (unsigned int)KEY_N,
			  "%s: allocations on the general path", what);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("self_timing", 0), 0);
	kmemprof_test_watch(kind, 0, 0);
	KMP_EXPECT_EQ_MSG(test, kmemprof_sum_callers(kind, is, ie, ms, me, &t),
			  1, "%s: tags, both paths", what);
	KMP_EXPECT_EQ_MSG(test, t.allocs - base.allocs, (u64)(2 * KEY_N),
			  "%s: allocations, both paths", what);
	KMP_EXPECT_EQ_MSG(test, t.live_objs - base.live_objs, (u64)(2 * KEY_N),
			  "%s: live, both paths", what);

	for (i = 0; i < 2 * KEY_N + 1; i++) {
		if (page)
			__free_pages(objs[i], 0);
		else
			kfree(objs[i]);
	}
	kmemprof_sum_callers(kind, is, ie, ms, me, &t);
	base_keyed = t.allocs;
	KMP_EXPECT_EQ_MSG(test, t.frees - base.frees, (u64)(2 * KEY_N + 1),
			  "%s: frees", what);
	KMP_EXPECT_EQ_MSG(test, t.live_objs, (u64)0, "%s: live at the end",
			  what);

	/*
	 * key_depth off: at once on the defaults' fast path, on the site's
	 * own tag (made by the first, if not there yet).
	 */
	KMP_ASSERT_EQ(test, kmemprof_set_knob("key_depth", 0), 0);
	key_allocs(test, objs, 0, 1, page);
	kmemprof_sum_range(kind, is, ie, &base, NULL);
	kmemprof_test_watch(kind, is, ie);
	key_allocs(test, objs, 1, KEY_N + 1, page);
	KMP_EXPECT_EQ_MSG(test, kmemprof_test_watched(), 0U,
			  "%s: key_depth off, allocations the fast path gave back",
			  what);
	kmemprof_test_watch(kind, 0, 0);
	kmemprof_sum_range(kind, is, ie, &t, NULL);
	KMP_EXPECT_EQ_MSG(test, t.allocs - base.allocs, (u64)KEY_N,
			  "%s: key_depth off, allocations", what);
	kmemprof_sum_callers(kind, is, ie, ms, me, &t);
	KMP_EXPECT_EQ_MSG(test, t.allocs - base_keyed, (u64)0,
			  "%s: key_depth off, allocations on the keyed tag",
			  what);
	for (i = 0; i < KEY_N + 1; i++) {
		if (page)
			__free_pages(objs[i], 0);
		else
			kfree(objs[i]);
	}
	KMP_ASSERT_EQ(test, kmemprof_set_knob("key_depth", 2), 0);
}

static void walk_key_depth_fast(struct kunit *test)
{
	if (!KMP_HAVE_FP_WALK) {
		kmp_kunit_skip(test, "no frame-record walk");
		return;
	}
	KMP_ASSERT_EQ(test, kmemprof_set_events(KMP_KIND_ALL), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("key_depth", 2), 0);
	walk_key_depth_one(test, false);
	walk_key_depth_one(test, true);
	kmemprof_test_watch(KMP_KIND_SLAB, 0, 0);
	kmemprof_set_knob("self_timing", 0);
	KMP_EXPECT_EQ(test, kmemprof_set_knob("key_depth", 0), 0);
}

/*
 * The stacks' key turned off between two tests of it in one event: the
 * copy that walks tested it twice, on (key_depth's tag, with no site
 * table lookup) then off (no walk either), and counted on a tag it had
 * found neither way (check-matrix's 70-stacks, which toggles key_depth
 * under load, panicked there on 6.12). From the third test of the key
 * in each allocation on (the dispatch's, the copy's, then any other),
 * the key reads off: every allocation must still be counted once, in
 * the site's range, and its free must pair.
 */
static void walk_key_off_one(struct kunit *test, bool page)
{
	enum kmp_kind kind = page ? KMP_KIND_PAGE : KMP_KIND_SLAB;
	const char *what = page ? "pages" : "slab";
	struct kmp_totals base, t;
	unsigned long is, ie;
	unsigned int i;
	void **objs;

	objs = kmp_kunit_kcalloc(test, KEY_N + 1, sizeof(*objs), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, objs);
	kmp_test_fn_range(test, key_inner, &is, &ie);
	/* the tag of (site, callers), made by the general path */
	key_allocs(test, objs, 0, 1, page);
	kmemprof_sum_range(kind, is, ie, &base, NULL);
	for (i = 1; i < KEY_N + 1; i++) {
		kmemprof_test_stacked_off(3);
		objs[i] = key_outer(page);
		kmemprof_test_stacked_off(0);
		KMP_ASSERT_NOT_NULL(test, objs[i]);
	}
	kmemprof_sum_range(kind, is, ie, &t, NULL);
	KMP_EXPECT_EQ_MSG(test, t.allocs - base.allocs, (u64)KEY_N,
			  "%s: allocations, the key off midway", what);
	KMP_EXPECT_EQ_MSG(test, t.live_objs - base.live_objs, (u64)KEY_N,
			  "%s: live, the key off midway", what);
	for (i = 0; i < KEY_N + 1; i++) {
		if (page)
			__free_pages(objs[i], 0);
		else
			kfree(objs[i]);
	}
	kmemprof_sum_range(kind, is, ie, &t, NULL);
	KMP_EXPECT_EQ_MSG(test, t.frees - base.frees, (u64)(KEY_N + 1),
			  "%s: frees, the key off midway", what);
	KMP_EXPECT_EQ_MSG(test, t.live_objs, (u64)0,
			  "%s: live at the end, the key off midway", what);
}

static void walk_key_off_midway(struct kunit *test)
{
	if (!KMP_HAVE_FP_WALK) {
		kmp_kunit_skip(test, "no frame-record walk");
		return;
	}
	KMP_ASSERT_EQ(test, kmemprof_set_events(KMP_KIND_ALL), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("key_depth", 2), 0);
	walk_key_off_one(test, false);
	walk_key_off_one(test, true);
	kmemprof_test_stacked_off(0);
	KMP_EXPECT_EQ(test, kmemprof_set_knob("key_depth", 0), 0);
}

static struct kunit_case walk_cases[] = {
	KUNIT_CASE(walk_stops_at_stack_end),
	KUNIT_CASE(walk_own_stack),
	KUNIT_CASE(walk_bad_links),
	KUNIT_CASE(walk_stack_frames),
	KUNIT_CASE(walk_key_depth_fast),
	KUNIT_CASE(walk_key_off_midway),
	{}
};

struct kunit_suite kmp_walk_suite = {
	.name = "kmemprof_walk",
	.test_cases = walk_cases,
};
