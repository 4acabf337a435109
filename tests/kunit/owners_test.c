// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: owners (module/owners.c). With owners=task, each allocation the
 * general path enters is charged to a line of (site, owner), and its free
 * is charged back to that line wherever it runs. The cases run in KUnit's
 * own kernel thread and in kernel threads of their own, so the owners are
 * kernel thread names; in hard interrupt context (an irq_work), [irq].
 * Counts are exact, per owner, to the object and the byte.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

#define OWN_N		200
#define OWN_PAGES	16
#define OWN_SIZE	100
#define OWN_ORDER	1
#define OWN_B		"kmp_own_b"
#define OWN_FULL	"kmp_own_full"

struct owners_ctx {
	void *obj[OWN_N];
	void *other[OWN_N];
	struct page *page[OWN_PAGES];
	char me[TASK_COMM_LEN];		/* the case's thread's comm */
};

static noinline void own_alloc(void **obj, int n, gfp_t gfp)
{
	int i;

	for (i = 0; i < n; i++)
		obj[i] = kmalloc(OWN_SIZE, gfp);
}

static noinline void own_alloc_other(void **obj, int n)
{
	int i;

	for (i = 0; i < n; i++)
		obj[i] = kmalloc(OWN_SIZE, GFP_KERNEL);
}

static noinline void own_alloc_pages(struct page **page, int n)
{
	int i;

	for (i = 0; i < n; i++)
		page[i] = alloc_pages(GFP_KERNEL, OWN_ORDER);
}

static void own_free(void **obj, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		kfree(obj[i]);
		obj[i] = NULL;
	}
}

static void own_free_pages(struct page **page, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (page[i])
			__free_pages(page[i], OWN_ORDER);
		page[i] = NULL;
	}
}

/* The lines of the tags inside @fn charged to owners of @type (@comm). */
static struct kmp_test_owner_sum owner_sum(struct kunit *test,
					   enum kmp_kind kind, const void *fn,
					   enum kmp_test_owner type,
					   const char *comm)
{
	struct kmp_test_owner_sum s;
	unsigned long start, end;

	kmp_test_fn_range(test, fn, &start, &end);
	kmemprof_test_owner_sum(kind, start, end, type, comm, &s);
	return s;
}

static struct kmp_totals site_live(struct kunit *test, enum kmp_kind kind,
				   const void *fn)
{
	unsigned long start, end;
	struct kmp_totals t;

	kmp_test_fn_range(test, fn, &start, &end);
	kmemprof_sum_range(kind, start, end, &t, NULL);
	return t;
}

/* Run @fn in a kernel thread called @name, and wait for it. */
struct owners_job {
	void (*fn)(struct owners_ctx *c);
	struct owners_ctx *c;
	struct completion done;
};

static int owners_job_fn(void *arg)
{
	struct owners_job *j = arg;

	j->fn(j->c);
	complete(&j->done);
	return 0;
}

static void run_in(struct kunit *test, const char *name,
		   void (*fn)(struct owners_ctx *c), struct owners_ctx *c)
{
	struct owners_job j = { .fn = fn, .c = c };
	struct task_struct *t;

	init_completion(&j.done);
	t = kthread_run(owners_job_fn, &j, "%s", name);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&j.done);
}

static void job_alloc_other(struct owners_ctx *c)
{
	own_alloc_other(c->other, OWN_N);
}

static void job_free_mine(struct owners_ctx *c)
{
	own_free(c->obj, OWN_N);
	own_free_pages(c->page, OWN_PAGES);
}

static void job_alloc_mine(struct owners_ctx *c)
{
	own_alloc(c->obj, OWN_N, GFP_KERNEL);
}

static int owners_test_init(struct kunit *test)
{
	struct owners_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KMP_ASSERT_NOT_NULL(test, c);
	strscpy(c->me, current->comm, sizeof(c->me));
	test->priv = c;
	KMP_ASSERT_EQ(test, kmemprof_set_events(KMP_KIND_ALL), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_enabled(true), 0);
	/* from off: the tables are empty for each case */
	KMP_ASSERT_EQ(test, kmemprof_set_owners(0), 0);
	KMP_ASSERT_EQ(test, kmemprof_set_owners(1), 0);
	return 0;
}

static void owners_test_exit(struct kunit *test)
{
	struct owners_ctx *c = test->priv;

	kmemprof_test_owner_cap(0, 0);
	own_free(c->obj, OWN_N);
	own_free(c->other, OWN_N);
	own_free_pages(c->page, OWN_PAGES);
	kmemprof_set_owners(0);
}

/*
 * Two owners, two sites: each line holds exactly its owner's objects and
 * bytes, and the tags' totals are the sum of their lines. Freed by the
 * other owner's thread, the objects come off their own owner's lines.
 */
static void owners_exact_per_owner(struct kunit *test)
{
	struct owners_ctx *c = test->priv;
	struct kmp_test_owner_sum me, b, pg;
	struct kmp_totals t;
	u64 size;

	own_alloc(c->obj, OWN_N, GFP_KERNEL);
	own_alloc_pages(c->page, OWN_PAGES);
	run_in(test, OWN_B, job_alloc_other, c);

	t = site_live(test, KMP_KIND_SLAB, own_alloc);
	me = owner_sum(test, KMP_KIND_SLAB, own_alloc, KMP_TEST_OWN_KTHREAD,
		       c->me);
	KMP_EXPECT_EQ(test, me.lines, 1);
	KMP_EXPECT_EQ(test, me.objs, OWN_N);
	KMP_EXPECT_EQ(test, me.allocs, OWN_N);
	KMP_EXPECT_EQ(test, (u64)me.bytes, t.live_bytes);
	KMP_EXPECT_EQ(test, t.live_objs, OWN_N);
	size = t.live_bytes / OWN_N;
	KMP_EXPECT_GE(test, size, OWN_SIZE);

	b = owner_sum(test, KMP_KIND_SLAB, own_alloc_other,
		      KMP_TEST_OWN_KTHREAD, OWN_B);
	KMP_EXPECT_EQ(test, b.lines, 1);
	KMP_EXPECT_EQ(test, b.objs, OWN_N);
	KMP_EXPECT_EQ(test, (u64)b.bytes, OWN_N * size);
	/* nothing of the other site on the case's owner, and back */
	KMP_EXPECT_EQ(test, owner_sum(test, KMP_KIND_SLAB, own_alloc_other,
				      KMP_TEST_OWN_KTHREAD, c->me).lines, 0);
	KMP_EXPECT_EQ(test, owner_sum(test, KMP_KIND_SLAB, own_alloc,
				      KMP_TEST_OWN_KTHREAD, OWN_B).lines, 0);

	pg = owner_sum(test, KMP_KIND_PAGE, own_alloc_pages,
		       KMP_TEST_OWN_KTHREAD, c->me);
	KMP_EXPECT_EQ(test, pg.objs, OWN_PAGES);
	KMP_EXPECT_EQ(test, (u64)pg.bytes,
		      (u64)OWN_PAGES * (PAGE_SIZE << OWN_ORDER));

	/* freed by the other thread: charged back to the case's owner */
	run_in(test, OWN_B, job_free_mine, c);
	me = owner_sum(test, KMP_KIND_SLAB, own_alloc, KMP_TEST_OWN_KTHREAD,
		       c->me);
	KMP_EXPECT_EQ(test, me.objs, 0);
	KMP_EXPECT_EQ(test, me.bytes, 0);
	KMP_EXPECT_EQ(test, me.allocs, OWN_N);
	pg = owner_sum(test, KMP_KIND_PAGE, own_alloc_pages,
		       KMP_TEST_OWN_KTHREAD, c->me);
	KMP_EXPECT_EQ(test, pg.objs, 0);
	KMP_EXPECT_EQ(test, pg.bytes, 0);
	b = owner_sum(test, KMP_KIND_SLAB, own_alloc_other,
		      KMP_TEST_OWN_KTHREAD, OWN_B);
	KMP_EXPECT_EQ(test, b.objs, OWN_N);
	KMP_EXPECT_EQ(test, (u64)b.bytes, OWN_N * size);

	own_free(c->other, OWN_N);
	b = owner_sum(test, KMP_KIND_SLAB, own_alloc_other,
		      KMP_TEST_OWN_KTHREAD, OWN_B);
	KMP_EXPECT_EQ(test, b.objs, 0);
	KMP_EXPECT_EQ(test, b.bytes, 0);
}

/* In hard interrupt context: an irq_work that frees, or allocates. */
struct owners_irq {
	struct irq_work work;
	struct owners_ctx *c;
	bool alloc;
};

static void owners_irq_fn(struct irq_work *work)
{
	struct owners_irq *w = container_of(work, struct owners_irq, work);

	if (w->alloc)
		own_alloc(w->c->other, OWN_N, GFP_ATOMIC);
	else
		own_free(w->c->obj, OWN_N);
}

static void owners_irq_run(struct owners_ctx *c, bool alloc)
{
	struct owners_irq w = { .c = c, .alloc = alloc };

	init_irq_work(&w.work, owners_irq_fn);
	irq_work_queue(&w.work);
	irq_work_sync(&w.work);
}

/*
 * Freed in hard interrupt context, objects come off the owner that
 * allocated them, and nothing goes on [irq]; allocated there, they are
 * [irq]'s, and come off it when a thread frees them.
 */
static void owners_irq_context(struct kunit *test)
{
	struct owners_ctx *c = test->priv;
	struct kmp_test_owner_sum me, irq;
	int i;

	own_alloc(c->obj, OWN_N, GFP_KERNEL);
	owners_irq_run(c, false);
	me = owner_sum(test, KMP_KIND_SLAB, own_alloc, KMP_TEST_OWN_KTHREAD,
		       c->me);
	KMP_EXPECT_EQ(test, me.objs, 0);
	KMP_EXPECT_EQ(test, me.bytes, 0);
	KMP_EXPECT_EQ(test, me.allocs, OWN_N);
	irq = owner_sum(test, KMP_KIND_SLAB, own_alloc, KMP_TEST_OWN_IRQ,
			NULL);
	KMP_EXPECT_EQ(test, irq.objs, 0);

	owners_irq_run(c, true);
	for (i = 0; i < OWN_N; i++)
		KMP_ASSERT_NOT_NULL(test, c->other[i]);
	irq = owner_sum(test, KMP_KIND_SLAB, own_alloc, KMP_TEST_OWN_IRQ,
			NULL);
	KMP_EXPECT_EQ(test, irq.lines, 1);
	KMP_EXPECT_EQ(test, irq.objs, OWN_N);
	KMP_EXPECT_EQ(test, (u64)irq.bytes,
		      site_live(test, KMP_KIND_SLAB, own_alloc).live_bytes);
	own_free(c->other, OWN_N);
	irq = owner_sum(test, KMP_KIND_SLAB, own_alloc, KMP_TEST_OWN_IRQ,
			NULL);
	KMP_EXPECT_EQ(test, irq.objs, 0);
	KMP_EXPECT_EQ(test, irq.bytes, 0);
}

/*
 * A full owner table, then a full line pool: every allocation that would
 * need a new entry counts in drop.owners, and its tag still counts it;
 * the frees change no line. (At least N drops: anything else in the
 * guest that needs a new entry meanwhile is dropped too.)
 */
static void owners_table_full_counts_drops(struct kunit *test)
{
	struct owners_ctx *c = test->priv;
	struct kmp_test_owner_sum s;
	struct kmp_totals t;
	u64 drops;

	/* the case's owner and line exist */
	own_alloc(c->other, 1, GFP_KERNEL);
	own_free(c->other, 1);
	kmemprof_test_owner_cap(kmemprof_test_owners_used(), 0);
	drops = kmemprof_stat(KMP_ST_DROP_OWNERS);
	run_in(test, OWN_FULL, job_alloc_mine, c);
	KMP_EXPECT_GE(test, kmemprof_stat(KMP_ST_DROP_OWNERS) - drops, OWN_N);
	t = site_live(test, KMP_KIND_SLAB, own_alloc);
	KMP_EXPECT_EQ(test, t.live_objs, OWN_N);
	s = owner_sum(test, KMP_KIND_SLAB, own_alloc, KMP_TEST_OWN_KTHREAD,
		      OWN_FULL);
	KMP_EXPECT_EQ(test, s.lines, 0);
	own_free(c->obj, OWN_N);
	KMP_EXPECT_EQ(test, site_live(test, KMP_KIND_SLAB, own_alloc).live_objs,
		      0);

	/* a known owner at a new site: no line left */
	kmemprof_test_owner_cap(0, kmemprof_test_olines_used());
	drops = kmemprof_stat(KMP_ST_DROP_OWNERS);
	own_alloc_other(c->other, OWN_N);
	KMP_EXPECT_GE(test, kmemprof_stat(KMP_ST_DROP_OWNERS) - drops, OWN_N);
	s = owner_sum(test, KMP_KIND_SLAB, own_alloc_other,
		      KMP_TEST_OWN_KTHREAD, c->me);
	KMP_EXPECT_EQ(test, s.lines, 0);
	KMP_EXPECT_EQ(test, site_live(test, KMP_KIND_SLAB,
				      own_alloc_other).live_objs, OWN_N);
	own_free(c->other, OWN_N);
	kmemprof_test_owner_cap(0, 0);

	/* room again: the next allocation has its line */
	own_alloc_other(c->other, OWN_N);
	s = owner_sum(test, KMP_KIND_SLAB, own_alloc_other,
		      KMP_TEST_OWN_KTHREAD, c->me);
	KMP_EXPECT_EQ(test, s.objs, OWN_N);
}

/*
 * Objects allocated while owners were off have no line; owners going on
 * empties the tables, and their frees then change none.
 */
static void owners_on_after_allocation(struct kunit *test)
{
	struct owners_ctx *c = test->priv;
	struct kmp_test_owner_sum s;

	KMP_ASSERT_EQ(test, kmemprof_set_owners(0), 0);
	own_alloc(c->obj, OWN_N, GFP_KERNEL);
	KMP_ASSERT_EQ(test, kmemprof_set_owners(1), 0);
	s = owner_sum(test, KMP_KIND_SLAB, own_alloc, KMP_TEST_OWN_KTHREAD,
		      c->me);
	KMP_EXPECT_EQ(test, s.lines, 0);
	own_free(c->obj, OWN_N);
	s = owner_sum(test, KMP_KIND_SLAB, own_alloc, KMP_TEST_OWN_KTHREAD,
		      c->me);
	KMP_EXPECT_EQ(test, s.lines, 0);
	/* and owned once on */
	own_alloc(c->obj, OWN_N, GFP_KERNEL);
	s = owner_sum(test, KMP_KIND_SLAB, own_alloc, KMP_TEST_OWN_KTHREAD,
		      c->me);
	KMP_EXPECT_EQ(test, s.objs, OWN_N);
	/* task to cgroup is a new period too: empty again */
	KMP_ASSERT_EQ(test, kmemprof_set_owners(2), 0);
	s = owner_sum(test, KMP_KIND_SLAB, own_alloc, KMP_TEST_OWN_KTHREAD,
		      c->me);
	KMP_EXPECT_EQ(test, s.lines, 0);
	own_free(c->obj, OWN_N);
	KMP_EXPECT_EQ(test, owner_sum(test, KMP_KIND_SLAB, own_alloc,
				      KMP_TEST_OWN_KTHREAD, c->me).lines, 0);
}

static struct kunit_case owners_cases[] = {
	KUNIT_CASE(owners_exact_per_owner),
	KUNIT_CASE(owners_irq_context),
	KUNIT_CASE(owners_table_full_counts_drops),
	KUNIT_CASE(owners_on_after_allocation),
	{}
};

struct kunit_suite kmp_owners_suite = {
	.name = "kmemprof_owners",
	.init = owners_test_init,
	.exit = owners_test_exit,
	.test_cases = owners_cases,
};
