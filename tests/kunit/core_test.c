// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: kmemprof's accounting is exact.
 *
 * Each allocating helper below is its own noinline function, so its call
 * site is known: the tags whose site falls inside the helper's address
 * range are that helper's, and nothing else allocates from there. Counts
 * are compared as deltas across the case, to the object.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/kallsyms.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

#define NOBJ		1000

/* Set by the rig when the kernel runs with slub_debug= on its command line. */
bool kmp_test_slub_debug;
module_param_named(slub_debug, kmp_test_slub_debug, bool, 0444);
MODULE_PARM_DESC(slub_debug, "The kernel runs with slub_debug red zones");
#define KMALLOC_SIZE	100
#define CACHE_SIZE	200
/* An object size whose slot is larger: aligned to the cache line. */
#define CACHE_ALIGNED_SIZE	136
#define PAGE_ORDER	2

struct core_ctx {
	void **obj;
	struct page **page;
	void __percpu **pcpu;
	struct kmem_cache *cache;
	struct kmem_cache *aligned;
};

/* Totals of the tags of @kind inside the function at @fn. */
static struct kmp_totals site_totals(struct kunit *test, enum kmp_kind kind,
				     const void *fn)
{
	unsigned long start, end;
	struct kmp_totals t;

	kmp_test_fn_range(test, fn, &start, &end);
	kmemprof_sum_range(kind, start, end, &t, NULL);
	return t;
}

static struct kmp_totals delta(struct kmp_totals a, struct kmp_totals b)
{
	return (struct kmp_totals) {
		.allocs = a.allocs - b.allocs,
		.frees = a.frees - b.frees,
		.bytes = a.bytes - b.bytes,
		.freed = a.freed - b.freed,
		.req = a.req - b.req,
		.live_bytes = a.live_bytes - b.live_bytes,
		.live_objs = a.live_objs - b.live_objs,
	};
}

/* The allocating helpers: each one is a call site of its own. */
static noinline void alloc_kmalloc(struct core_ctx *c, int i)
{
	c->obj[i] = kmalloc(KMALLOC_SIZE, GFP_KERNEL);
}

static noinline void alloc_kmalloc_other(struct core_ctx *c, int i)
{
	c->obj[i] = kmalloc(KMALLOC_SIZE, GFP_KERNEL);
}

static noinline void alloc_cache(struct core_ctx *c, int i)
{
	c->obj[i] = kmem_cache_alloc(c->cache, GFP_KERNEL);
}

static noinline void alloc_cache_aligned(struct core_ctx *c, int i)
{
	c->obj[i] = kmem_cache_alloc(c->aligned, GFP_KERNEL);
}

static noinline void alloc_page_block(struct core_ctx *c, int i)
{
	c->page[i] = alloc_pages(GFP_KERNEL, PAGE_ORDER);
}

static noinline void alloc_pcpu(struct core_ctx *c, int i)
{
	c->pcpu[i] = alloc_percpu(u64[2]);
}

static void free_kmalloc(struct core_ctx *c, int i)
{
	kfree(c->obj[i]);
}

static void free_cache(struct core_ctx *c, int i)
{
	kmem_cache_free(c->cache, c->obj[i]);
}

static void free_cache_aligned(struct core_ctx *c, int i)
{
	kmem_cache_free(c->aligned, c->obj[i]);
}

static void free_page_block(struct core_ctx *c, int i)
{
	__free_pages(c->page[i], PAGE_ORDER);
}

static void free_pcpu(struct core_ctx *c, int i)
{
	free_percpu(c->pcpu[i]);
}

static bool have_kmalloc(struct core_ctx *c, int i)
{
	return c->obj[i];
}

static bool have_page(struct core_ctx *c, int i)
{
	return c->page[i];
}

static bool have_pcpu(struct core_ctx *c, int i)
{
	return c->pcpu[i];
}

static u64 size_kmalloc(struct core_ctx *c)
{
	return ksize(c->obj[0]);
}

/*
 * A cache's object is charged its slot, as allocinfo does: ksize(), which
 * is the object size under KASAN or slub_debug's red zones.
 */
static u64 size_cache(struct core_ctx *c)
{
	return ksize(c->obj[0]);
}

static u64 req_cache(struct core_ctx *c)
{
	return kmem_cache_size(c->cache);
}

static u64 req_cache_aligned(struct core_ctx *c)
{
	return kmem_cache_size(c->aligned);
}

static u64 size_page(struct core_ctx *c)
{
	return PAGE_SIZE << PAGE_ORDER;
}

static u64 size_pcpu(struct core_ctx *c)
{
	return sizeof(u64[2]) * num_possible_cpus();
}

struct exact_case {
	const char *name;
	enum kmp_kind kind;
	void (*alloc)(struct core_ctx *c, int i);
	void (*free)(struct core_ctx *c, int i);
	bool (*have)(struct core_ctx *c, int i);
	u64 (*bytes)(struct core_ctx *c);	/* counted per object */
	u64 req;				/* requested per object */
	bool bytes_at_least;	/* percpu: memcg may add to the size */
	u64 (*req_fn)(struct core_ctx *c);	/* requested, if not req */
};

static const struct exact_case exact_cases[] = {
	{ "kmalloc", KMP_KIND_SLAB, alloc_kmalloc, free_kmalloc, have_kmalloc,
	  size_kmalloc, KMALLOC_SIZE },
	{ "kmem_cache", KMP_KIND_SLAB, alloc_cache, free_cache, have_kmalloc,
	  size_cache, 0, false, req_cache },
	{ "kmem_cache_aligned", KMP_KIND_SLAB, alloc_cache_aligned,
	  free_cache_aligned, have_kmalloc, size_cache, 0, false,
	  req_cache_aligned },
	{ "pages_order2", KMP_KIND_PAGE, alloc_page_block, free_page_block,
	  have_page, size_page, 0 },
	{ "percpu", KMP_KIND_PERCPU, alloc_pcpu, free_pcpu, have_pcpu,
	  size_pcpu, 0, true },
};

static int core_test_init(struct kunit *test)
{
	struct core_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KMP_ASSERT_NOT_NULL(test, c);
	c->obj = kmp_kunit_kcalloc(test, NOBJ, sizeof(*c->obj), GFP_KERNEL);
	c->page = kmp_kunit_kcalloc(test, NOBJ, sizeof(*c->page), GFP_KERNEL);
	c->pcpu = kmp_kunit_kcalloc(test, NOBJ, sizeof(*c->pcpu), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, c->obj);
	KMP_ASSERT_NOT_NULL(test, c->page);
	KMP_ASSERT_NOT_NULL(test, c->pcpu);
	c->cache = kmem_cache_create("kmemprof_core_test", CACHE_SIZE, 0, 0,
				     NULL);
	KMP_ASSERT_NOT_NULL(test, c->cache);
	c->aligned = kmem_cache_create("kmemprof_core_aligned",
				       CACHE_ALIGNED_SIZE, 0,
				       SLAB_HWCACHE_ALIGN, NULL);
	KMP_ASSERT_NOT_NULL(test, c->aligned);
	test->priv = c;
	KMP_ASSERT_EQ(test, kmemprof_set_events(KMP_KIND_ALL), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	return 0;
}

static void core_test_exit(struct kunit *test)
{
	struct core_ctx *c = test->priv;

	kmemprof_set_knob("key_depth", 0);
	kmem_cache_destroy(c->cache);
	kmem_cache_destroy(c->aligned);
}

/*
 * N objects from one site: exactly N live and N x size bytes; after freeing
 * half, exactly N/2; after freeing all, none, with N allocs and N frees.
 */
static void core_exact_one(struct kunit *test, const struct exact_case *p)
{
	struct core_ctx *c = test->priv;
	struct kmp_totals base, t;
	u64 size, req;
	int i;

	base = site_totals(test, p->kind, p->alloc);
	for (i = 0; i < NOBJ; i++) {
		p->alloc(c, i);
		KUNIT_ASSERT_TRUE(test, p->have(c, i));
	}
	size = p->bytes(c);
	req = p->req_fn ? p->req_fn(c) : p->req ?: size;
	t = delta(site_totals(test, p->kind, p->alloc), base);
	KMP_EXPECT_EQ(test, t.allocs, NOBJ);
	KMP_EXPECT_EQ(test, t.live_objs, NOBJ);
	/*
	 * Every object counts the same bytes: the object size, or more where
	 * the event counts more than ksize() reports (percpu with memcg, slab
	 * with slub_debug's red zones and tracking, as on the debug kernel).
	 */
	KMP_EXPECT_EQ(test, t.live_bytes % NOBJ, 0);
	if (p->bytes_at_least || (kmp_test_slub_debug && p->kind == KMP_KIND_SLAB))
		KMP_EXPECT_GE(test, t.live_bytes, NOBJ * size);
	else
		KMP_EXPECT_EQ(test, t.live_bytes, NOBJ * size);
	/*
	 * The requested bytes are the object size; for percpu, the size the
	 * caller asked for on every possible CPU, without memcg's share.
	 */
	if (!p->req && !p->req_fn)
		req = p->bytes_at_least ? size : t.live_bytes / NOBJ;
	KMP_EXPECT_EQ(test, t.req, NOBJ * req);
	size = t.live_bytes / NOBJ;

	for (i = 0; i < NOBJ / 2; i++)
		p->free(c, i);
	t = delta(site_totals(test, p->kind, p->alloc), base);
	KMP_EXPECT_EQ(test, t.live_objs, NOBJ / 2);
	KMP_EXPECT_EQ(test, t.live_bytes, NOBJ / 2 * size);
	KMP_EXPECT_EQ(test, t.frees, NOBJ / 2);

	for (; i < NOBJ; i++)
		p->free(c, i);
	t = delta(site_totals(test, p->kind, p->alloc), base);
	KMP_EXPECT_EQ(test, t.live_objs, 0);
	KMP_EXPECT_EQ(test, t.live_bytes, 0);
	KMP_EXPECT_EQ(test, t.allocs, NOBJ);
	KMP_EXPECT_EQ(test, t.frees, NOBJ);
	KMP_EXPECT_EQ(test, t.freed, t.bytes);
}

static void core_exact(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(exact_cases); i++) {
		bool failed = kmp_kunit_failed(test);

		core_exact_one(test, &exact_cases[i]);
		if (!failed && kmp_kunit_failed(test))
			kunit_info(test, "failed with %s", exact_cases[i].name);
	}
}

/* Two call sites of the same size are two tags, each with its own count. */
static void core_two_sites_two_tags(struct kunit *test)
{
	struct core_ctx *c = test->priv;
	struct kmp_totals a0, b0, a, b;
	unsigned long start, end;
	struct kmp_totals t;
	int i;

	a0 = site_totals(test, KMP_KIND_SLAB, alloc_kmalloc);
	b0 = site_totals(test, KMP_KIND_SLAB, alloc_kmalloc_other);
	for (i = 0; i < 30; i++)
		alloc_kmalloc(c, i);
	for (i = 30; i < 100; i++)
		alloc_kmalloc_other(c, i);
	a = delta(site_totals(test, KMP_KIND_SLAB, alloc_kmalloc), a0);
	b = delta(site_totals(test, KMP_KIND_SLAB, alloc_kmalloc_other), b0);
	KMP_EXPECT_EQ(test, a.live_objs, 30);
	KMP_EXPECT_EQ(test, b.live_objs, 70);
	kmp_test_fn_range(test, alloc_kmalloc_other, &start, &end);
	KMP_EXPECT_EQ(test, kmemprof_sum_range(KMP_KIND_SLAB, start, end,
					       &t, NULL), 1);
	for (i = 0; i < 100; i++)
		kfree(c->obj[i]);
}

/* One call site for any cache: its slot comes from the site's entry. */
static noinline void *alloc_from(struct kmem_cache *s)
{
	return kmem_cache_alloc(s, GFP_KERNEL);
}

/*
 * One site that allocates from two caches of other object sizes, in
 * turn: each object is charged its own cache's slot and object size,
 * whichever cache the site's entry took (tables.h, kmp_site_slot()) and
 * whichever the per-CPU table serves.
 */
static void core_one_site_two_caches(struct kunit *test)
{
	struct core_ctx *c = test->priv;
	struct kmem_cache *s;
	struct kmp_totals t0, t;
	u64 bytes = 0, req = 0;
	int i;

	t0 = site_totals(test, KMP_KIND_SLAB, alloc_from);
	for (i = 0; i < 40; i++) {
		s = i % 2 ? c->aligned : c->cache;
		c->obj[i] = alloc_from(s);
		KMP_ASSERT_NOT_NULL(test, c->obj[i]);
		bytes += ksize(c->obj[i]);
		req += kmem_cache_size(s);
	}
	t = delta(site_totals(test, KMP_KIND_SLAB, alloc_from), t0);
	KMP_EXPECT_EQ(test, t.live_objs, 40);
	KMP_EXPECT_EQ(test, t.live_bytes, bytes);
	KMP_EXPECT_EQ(test, t.bytes, bytes);
	KMP_EXPECT_EQ(test, t.req, req);
	for (i = 0; i < 40; i++)
		kmem_cache_free(i % 2 ? c->aligned : c->cache, c->obj[i]);
	t = delta(site_totals(test, KMP_KIND_SLAB, alloc_from), t0);
	KMP_EXPECT_EQ(test, t.live_objs, 0);
	KMP_EXPECT_EQ(test, t.live_bytes, 0);
	KMP_EXPECT_EQ(test, t.freed, bytes);
}

/*
 * A free of an object allocated while detached is unpaired: no tag moves.
 * The object comes from a cache made for the case, so that its address
 * cannot carry a stale entry from some other object freed unseen.
 */
static void core_unpaired_free_changes_no_tag(struct kunit *test)
{
	struct kmp_totals before, after;
	struct kmem_cache *cache;
	u64 unpaired;
	void *obj;

	cache = kmem_cache_create("kmemprof_unpaired", 72, 0, 0, NULL);
	KMP_ASSERT_NOT_NULL(test, cache);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(false), 0);
	obj = kmem_cache_alloc(cache, GFP_KERNEL);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	KMP_ASSERT_NOT_NULL(test, obj);
	before = site_totals(test, KMP_KIND_SLAB, core_unpaired_free_changes_no_tag);
	unpaired = kmemprof_stat(KMP_ST_UNPAIRED_SLAB);
	kmem_cache_free(cache, obj);
	after = site_totals(test, KMP_KIND_SLAB, core_unpaired_free_changes_no_tag);
	kmem_cache_destroy(cache);
	KMP_EXPECT_EQ(test, after.frees, before.frees);
	KMP_EXPECT_EQ(test, after.allocs, before.allocs);
	KMP_EXPECT_EQ(test, after.live_objs, before.live_objs);
	KMP_EXPECT_GT(test, kmemprof_stat(KMP_ST_UNPAIRED_SLAB), unpaired);
}

static noinline void *alloc_large(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

/* 6.10+ traces a large kmalloc of non-constant size twice: count it once. */
static void core_large_kmalloc_counted_once(struct kunit *test)
{
	size_t size = 3 * PAGE_SIZE + 100;
	struct kmp_totals base, t;
	void *p;

	OPTIMIZER_HIDE_VAR(size);
	base = site_totals(test, KMP_KIND_SLAB, alloc_large);
	p = alloc_large(size);
	KMP_ASSERT_NOT_NULL(test, p);
	t = delta(site_totals(test, KMP_KIND_SLAB, alloc_large), base);
	KMP_EXPECT_EQ(test, t.allocs, 1);
	KMP_EXPECT_EQ(test, t.live_objs, 1);
	KMP_EXPECT_EQ(test, t.live_bytes, PAGE_SIZE << get_order(size));
	KMP_EXPECT_EQ(test, t.req, size);
	kfree(p);
	t = delta(site_totals(test, KMP_KIND_SLAB, alloc_large), base);
	KMP_EXPECT_EQ(test, t.frees, 1);
	KMP_EXPECT_EQ(test, t.live_objs, 0);
}

static noinline void *alloc_large_kd(size_t size)
{
	char *p = kmalloc(size, GFP_KERNEL);

	if (p)
		p[0] = 0;	/* not a tail call: keep this frame */
	return p;
}

static noinline void *kvalloc_large_kd(size_t size)
{
	char *p = kvmalloc(size, GFP_KERNEL);

	if (p)
		p[0] = 0;
	return p;
}

/*
 * Tags with callers inside 6.10's relays (compat.h), and their
 * allocations: none of either may come from a large kmalloc().
 */
static int relay_tags(struct kunit *test, u64 *allocs)
{
	int n = 0;
#if KMP_NR_RELAYS
	static const unsigned long relays[KMP_NR_RELAYS] = KMP_RELAY_FNS;
	unsigned long start, end;
	struct kmp_totals t;
	unsigned int i;

	*allocs = 0;
	for (i = 0; i < KMP_NR_RELAYS; i++) {
		kmp_test_fn_range(test, (const void *)relays[i], &start, &end);
		n += kmemprof_sum_callers(KMP_KIND_SLAB, start, end, 0,
					  ULONG_MAX, &t);
		*allocs += t.allocs;
	}
#else
	*allocs = 0;
#endif
	return n;
}

/*
 * kvmalloc()'s tags, from the function at [@vs, @ve) that called it: a
 * site inside kvmalloc() whose first caller is that function, where its
 * event names kvmalloc() (6.10 to 6.x); that function as the site, where
 * kvmalloc() traces its own caller (7.x).
 */
static int kv_tags(unsigned long vs, unsigned long ve, struct kmp_totals *t)
{
	struct kmp_totals c;
	int n;

	n = kmemprof_sum_callers(KMP_KIND_SLAB, 0, ULONG_MAX, vs, ve, t);
	n += kmemprof_sum_range(KMP_KIND_SLAB, vs, ve, &c, NULL);
	t->allocs += c.allocs;
	t->frees += c.frees;
	t->bytes += c.bytes;
	t->freed += c.freed;
	t->req += c.req;
	t->live_bytes += c.live_bytes;
	t->live_objs += c.live_objs;
	return n;
}

/*
 * The same with key_depth=2, the way to split kvmalloc() by its callers:
 * the first of 6.10's two events is known at any depth, so the object has
 * one tag, with exact counts, and the relay makes no tag of its own and
 * no stale entry for the second event to replace.
 */
static void core_large_kmalloc_key_depth(struct kunit *test)
{
	size_t size = 3 * PAGE_SIZE + 100, bytes;
	unsigned long ks, ke, vs, ve;
	struct kmp_totals base, vbase, t;
	u64 stale, rallocs0, rallocs;
	int rtags0, n;
	bool inacc;
	void *p, *v;

	OPTIMIZER_HIDE_VAR(size);
	bytes = PAGE_SIZE << get_order(size);
	kmp_test_fn_range(test, alloc_large_kd, &ks, &ke);
	kmp_test_fn_range(test, kvalloc_large_kd, &vs, &ve);
	/*
	 * From empty tables: an entry an earlier case left (an object freed
	 * while it had kmemprof detached) would count as stale when these
	 * allocations, or their pages, reuse its address.
	 */
	KMP_ASSERT_EQ(test, kmemprof_reset(), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_knob("key_depth", 2), 0);
	kmemprof_sum_range(KMP_KIND_SLAB, ks, ke, &base, NULL);
	kv_tags(vs, ve, &vbase);
	rtags0 = relay_tags(test, &rallocs0);
	stale = kmemprof_stat(KMP_ST_STALE);

	p = alloc_large_kd(size);
	v = kvalloc_large_kd(size);
	KMP_ASSERT_NOT_NULL(test, p);
	KMP_ASSERT_NOT_NULL(test, v);
	KMP_EXPECT_EQ(test, kmemprof_stat(KMP_ST_STALE) - stale, 0);
	KMP_EXPECT_EQ(test, relay_tags(test, &rallocs) - rtags0, 0);
	KMP_EXPECT_EQ(test, rallocs - rallocs0, 0);

	n = kmemprof_sum_range(KMP_KIND_SLAB, ks, ke, &t, &inacc);
	KMP_EXPECT_EQ(test, n, 1);
	KUNIT_EXPECT_FALSE(test, inacc);
	t = delta(t, base);
	KMP_EXPECT_EQ(test, t.allocs, 1);
	KMP_EXPECT_EQ(test, t.live_objs, 1);
	KMP_EXPECT_EQ(test, t.live_bytes, bytes);
	/* kvmalloc()'s one tag, however the kernel names its site */
	n = kv_tags(vs, ve, &t);
	KMP_EXPECT_EQ(test, n, 1);
	t = delta(t, vbase);
	KMP_EXPECT_EQ(test, t.allocs, 1);
	KMP_EXPECT_EQ(test, t.live_objs, 1);
	KMP_EXPECT_EQ(test, t.live_bytes, bytes);

	KMP_ASSERT_EQ(test, kmemprof_set_knob("key_depth", 0), 0);
	kfree(p);
	kvfree(v);
	t = delta(site_totals(test, KMP_KIND_SLAB, alloc_large_kd), base);
	KMP_EXPECT_EQ(test, t.frees, 1);
	KMP_EXPECT_EQ(test, t.live_objs, 0);
	kv_tags(vs, ve, &t);
	t = delta(t, vbase);
	KMP_EXPECT_EQ(test, t.frees, 1);
	KMP_EXPECT_EQ(test, t.live_objs, 0);
	KMP_EXPECT_EQ(test, kmemprof_stat(KMP_ST_STALE) - stale, 0);
}

/* krealloc() within ksize() emits nothing; the object stays paired. */
static void core_krealloc_in_place(struct kunit *test)
{
	struct core_ctx *c = test->priv;
	struct kmp_totals base, t;
	void *q;

	base = site_totals(test, KMP_KIND_SLAB, alloc_kmalloc);
	alloc_kmalloc(c, 0);
	KMP_ASSERT_NOT_NULL(test, c->obj[0]);
	/* Growing to ksize() always fits in place. */
	q = krealloc(c->obj[0], ksize(c->obj[0]), GFP_KERNEL);
	t = delta(site_totals(test, KMP_KIND_SLAB, alloc_kmalloc), base);
	KUNIT_EXPECT_PTR_EQ(test, q, c->obj[0]);
	KMP_EXPECT_EQ(test, t.allocs, 1);
	KMP_EXPECT_EQ(test, t.live_objs, 1);
	kfree(q);
	t = delta(site_totals(test, KMP_KIND_SLAB, alloc_kmalloc), base);
	KMP_EXPECT_EQ(test, t.frees, 1);
	KMP_EXPECT_EQ(test, t.live_objs, 0);
}

static noinline void alloc_order0(struct core_ctx *c, int i)
{
	c->page[i] = alloc_page(GFP_KERNEL);
}

/* release_pages() emits mm_page_free_batched on top of mm_page_free. */
static void core_batched_page_free_counted_once(struct kunit *test)
{
	struct core_ctx *c = test->priv;
	struct kmp_totals base, t;
	int i, n = 64;

	base = site_totals(test, KMP_KIND_PAGE, alloc_order0);
	for (i = 0; i < n; i++) {
		alloc_order0(c, i);
		KMP_ASSERT_NOT_NULL(test, c->page[i]);
	}
	release_pages(c->page, n);
	t = delta(site_totals(test, KMP_KIND_PAGE, alloc_order0), base);
	KMP_EXPECT_EQ(test, t.allocs, n);
	KMP_EXPECT_EQ(test, t.frees, n);
	KMP_EXPECT_EQ(test, t.live_objs, 0);
	KMP_EXPECT_EQ(test, t.freed, n * PAGE_SIZE);
}

/* With events=slab, page allocations are not traced at all. */
static void core_events_knob_filters_kinds(struct kunit *test)
{
	struct core_ctx *c = test->priv;
	struct kmp_totals p0, s0, p, s;

	p0 = site_totals(test, KMP_KIND_PAGE, alloc_order0);
	s0 = site_totals(test, KMP_KIND_SLAB, alloc_kmalloc);
	KMP_ASSERT_EQ(test, kmemprof_set_events(BIT(KMP_KIND_SLAB)), 0);
	alloc_order0(c, 0);
	alloc_kmalloc(c, 0);
	KMP_ASSERT_EQ(test, kmemprof_set_events(KMP_KIND_ALL), 0);
	p = delta(site_totals(test, KMP_KIND_PAGE, alloc_order0), p0);
	s = delta(site_totals(test, KMP_KIND_SLAB, alloc_kmalloc), s0);
	KMP_EXPECT_EQ(test, p.allocs, 0);
	KMP_EXPECT_EQ(test, s.allocs, 1);
	if (c->page[0])
		__free_page(c->page[0]);
	kfree(c->obj[0]);
}

#define XFER_N		2000
#define XFER_SIZE	48

struct xfer {
	void **obj;
	atomic_t produced;
	struct completion done;
	int cpu;
};

static noinline void *xfer_alloc(void)
{
	return kmalloc(XFER_SIZE, GFP_KERNEL);
}

static int xfer_producer(void *data)
{
	struct xfer *x = data;
	int j;

	for (j = 0; j < XFER_N; j++) {
		x->obj[j] = xfer_alloc();
		atomic_set_release(&x->produced, j + 1);
	}
	complete(&x->done);
	return 0;
}

static int xfer_consumer(void *data)
{
	struct xfer *x = data;
	int j;

	for (j = 0; j < XFER_N; j++) {
		while (atomic_read_acquire(&x->produced) <= j)
			cond_resched();
		kfree(x->obj[j]);
	}
	complete(&x->done);
	return 0;
}

static struct task_struct *xfer_start(int (*fn)(void *), struct xfer *x,
				      int cpu)
{
	struct task_struct *t = kthread_create(fn, x, "kmp_xfer/%d", cpu);

	if (!IS_ERR(t)) {
		kthread_bind(t, cpu);
		wake_up_process(t);
	}
	return t;
}

/*
 * One kthread per CPU allocates while a kthread on the next CPU frees what
 * it allocated, all at once: every free crosses CPUs, and the counts stay
 * exact.
 */
static void core_cross_cpu_frees_exact(struct kunit *test)
{
	int ncpu = num_online_cpus(), i, cpu, next;
	struct kmp_totals base, t;
	struct xfer *prod;

	if (ncpu < 2) {
		kmp_kunit_skip(test, "needs two CPUs");
		return;
	}
	prod = kmp_kunit_kcalloc(test, ncpu, sizeof(*prod), GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, prod);
	base = site_totals(test, KMP_KIND_SLAB, xfer_alloc);

	i = 0;
	for_each_online_cpu(cpu) {
		prod[i].obj = kmp_kunit_kcalloc(test, XFER_N, sizeof(void *),
						GFP_KERNEL);
		KMP_ASSERT_NOT_NULL(test, prod[i].obj);
		init_completion(&prod[i].done);
		prod[i].cpu = cpu;
		i++;
	}
	for (i = 0; i < ncpu; i++) {
		next = prod[(i + 1) % ncpu].cpu;
		KUNIT_ASSERT_FALSE(test, IS_ERR(xfer_start(xfer_consumer,
							   &prod[i], next)));
		KUNIT_ASSERT_FALSE(test, IS_ERR(xfer_start(xfer_producer,
							   &prod[i],
							   prod[i].cpu)));
	}
	/* Each xfer completes twice: once when produced, once when freed. */
	for (i = 0; i < ncpu; i++) {
		wait_for_completion(&prod[i].done);
		wait_for_completion(&prod[i].done);
	}
	t = delta(site_totals(test, KMP_KIND_SLAB, xfer_alloc), base);
	KMP_EXPECT_EQ(test, t.allocs, (u64)ncpu * XFER_N);
	KMP_EXPECT_EQ(test, t.frees, (u64)ncpu * XFER_N);
	KMP_EXPECT_EQ(test, t.live_objs, 0);
	KMP_EXPECT_EQ(test, t.live_bytes, 0);
}

struct events_case {
	const char *in;
	int ret;
	unsigned int kinds;
};

static const struct events_case events_cases[] = {
	{ "slab,page,percpu", 0, KMP_KIND_ALL },
	{ "percpu,slab", 0, BIT(KMP_KIND_SLAB) | BIT(KMP_KIND_PERCPU) },
	{ "page\n", 0, BIT(KMP_KIND_PAGE) },
	{ "none", 0, 0 },
	{ "", -EINVAL },
	{ "slab,slab", -EINVAL },
	{ "slab,", -EINVAL },
	{ ",page", -EINVAL },
	{ "SLAB", -EINVAL },
	{ "slab page", -EINVAL },
	{ "slab,page,percpu,vmalloc", -EINVAL },
	{ "none,slab", -EINVAL },
	{ "a-very-long-string-that-does-not-fit-the-knob", -EINVAL },
};

static void core_events_parse(struct kunit *test)
{
	const struct events_case *p;
	unsigned int kinds;

	for (p = events_cases; p < events_cases + ARRAY_SIZE(events_cases); p++) {
		kinds = 0;
		KMP_EXPECT_EQ_MSG(test, kmemprof_parse_events(p->in, &kinds),
				  p->ret, "parsing \"%s\"", p->in);
		if (!p->ret)
			KMP_EXPECT_EQ_MSG(test, kinds, p->kinds,
					  "kinds of \"%s\"", p->in);
	}
}

/*
 * A reset waits for a walk of the live table (the ages and leaks views):
 * started in the middle of one, it has not finished a second later, and
 * it finishes once the walk is over.
 */
struct reset_race {
	struct completion started;
	struct completion done;
	bool done_during_walk;
	int ret;
};

static int reset_race_thread(void *arg)
{
	struct reset_race *r = arg;

	complete(&r->started);
	r->ret = kmemprof_reset();
	complete(&r->done);
	return 0;
}

static void reset_race_mid_walk(void *arg)
{
	struct reset_race *r = arg;

	if (IS_ERR(kthread_run(reset_race_thread, r, "kmp_reset_race")))
		return;
	wait_for_completion(&r->started);
	r->done_during_walk =
		wait_for_completion_timeout(&r->done, HZ) != 0;
}

static void core_reset_waits_for_walk(struct kunit *test)
{
	struct reset_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	void *obj;
	s64 n;

	KMP_ASSERT_NOT_NULL(test, r);
	init_completion(&r->started);
	init_completion(&r->done);
	/* At least one live object, so the walk calls back. */
	obj = kmalloc(KMALLOC_SIZE, GFP_KERNEL);
	KMP_ASSERT_NOT_NULL(test, obj);
	n = kmemprof_test_walk(reset_race_mid_walk, r);
	KMP_EXPECT_GT(test, n, 0);
	KUNIT_EXPECT_FALSE_MSG(test, r->done_during_walk,
			       "a reset emptied the live table under a walk");
	wait_for_completion(&r->done);
	KMP_EXPECT_EQ(test, r->ret, 0);
	kfree(obj);
}

/*
 * SLUB hands a freed address out again at once. A walk of the live table
 * (ages, leaks) that is at an object's slot while the object is freed and
 * its address allocated again must not report the old allocation's tag
 * with the new one's time: it reports the new allocation whole (or
 * neither). The walk's test point frees and reallocates between its
 * reads of the fields, after the tag and sizes and before the time.
 */
static u64 walk_clock_now;

static u64 walk_clock(void)
{
	return READ_ONCE(walk_clock_now);
}

static noinline void *walk_alloc_old(void)
{
	return kmalloc(64, GFP_KERNEL);
}

static noinline void *walk_alloc_new(void)
{
	return kmalloc(192, GFP_KERNEL);
}

static void core_walk_reused_address(struct kunit *test)
{
	struct kmp_test_obj was, now, seen[2] = {};
	void *a, *b;
	int n;

	KMP_ASSERT_EQ(test, kmemprof_set_knob("lifetimes", 1), 0);
	kmemprof_set_clock(walk_clock);
	WRITE_ONCE(walk_clock_now, 1600000);
	a = walk_alloc_old();
	WRITE_ONCE(walk_clock_now, 3200000);
	b = walk_alloc_new();
	n = kmemprof_test_walk_reuse(a, b, &was, &now, seen, ARRAY_SIZE(seen));
	kfree(a);
	kfree(b);
	kmemprof_set_clock(NULL);
	kmemprof_set_knob("lifetimes", 0);
	KMP_ASSERT_NOT_NULL(test, a);
	KMP_ASSERT_NOT_NULL(test, b);
	KMP_ASSERT_GT(test, n, 0);
	/* The two allocations differ in every field but the CPU. */
	KMP_EXPECT_EQ(test, was.time, 1600000);
	KMP_EXPECT_EQ(test, now.time, 3200000);
	KUNIT_EXPECT_NE(test, was.tag, now.tag);
	KMP_EXPECT_EQ(test, n, 1);
	KMP_EXPECT_EQ_MSG(test, seen[0].tag, now.tag,
			  "time %llu with tag %u (old: tag %u at %llu)",
			  seen[0].time, seen[0].tag, was.tag, was.time);
	KMP_EXPECT_EQ(test, seen[0].size, now.size);
	KMP_EXPECT_EQ(test, seen[0].req, now.req);
	KMP_EXPECT_EQ(test, seen[0].time, now.time);
	KMP_EXPECT_EQ(test, seen[0].cpu, now.cpu);
}

/*
 * The same through kmp_live_read(), with which the general path looks for
 * the block that holds a page freed in parts: the object it returns is
 * the new allocation whole, or none.
 */
static void core_get_reused_address(struct kunit *test)
{
	struct kmp_test_obj was, now, seen = {};
	void *a, *b;
	int n;

	KMP_ASSERT_EQ(test, kmemprof_set_knob("lifetimes", 1), 0);
	kmemprof_set_clock(walk_clock);
	WRITE_ONCE(walk_clock_now, 1600000);
	a = walk_alloc_old();
	WRITE_ONCE(walk_clock_now, 3200000);
	b = walk_alloc_new();
	n = kmemprof_test_get_reuse(a, b, &was, &now, &seen);
	kfree(a);
	kfree(b);
	kmemprof_set_clock(NULL);
	kmemprof_set_knob("lifetimes", 0);
	KMP_ASSERT_NOT_NULL(test, a);
	KMP_ASSERT_NOT_NULL(test, b);
	KMP_ASSERT_GT(test, n, -1);
	KUNIT_EXPECT_NE(test, was.tag, now.tag);
	KMP_EXPECT_EQ(test, n, 1);
	KMP_EXPECT_EQ_MSG(test, seen.tag, now.tag,
			  "time %llu with tag %u (old: tag %u at %llu)",
			  seen.time, seen.tag, was.tag, was.time);
	KMP_EXPECT_EQ(test, seen.size, now.size);
	KMP_EXPECT_EQ(test, seen.req, now.req);
	KMP_EXPECT_EQ(test, seen.time, now.time);
	KMP_EXPECT_EQ(test, seen.cpu, now.cpu);
}

static struct kunit_case core_cases[] = {
	KUNIT_CASE(core_reset_waits_for_walk),
	KUNIT_CASE(core_walk_reused_address),
	KUNIT_CASE(core_get_reused_address),
	KUNIT_CASE(core_exact),
	KUNIT_CASE(core_two_sites_two_tags),
	KUNIT_CASE(core_one_site_two_caches),
	KUNIT_CASE(core_unpaired_free_changes_no_tag),
	KUNIT_CASE(core_large_kmalloc_counted_once),
	KUNIT_CASE(core_large_kmalloc_key_depth),
	KUNIT_CASE(core_krealloc_in_place),
	KUNIT_CASE(core_batched_page_free_counted_once),
	KUNIT_CASE(core_events_knob_filters_kinds),
	KUNIT_CASE(core_cross_cpu_frees_exact),
	KUNIT_CASE(core_events_parse),
	{}
};

struct kunit_suite kmp_core_suite = {
	.name = "kmemprof_core",
	.init = core_test_init,
	.exit = core_test_exit,
	.test_cases = core_cases,
};

