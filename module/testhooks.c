// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the whole of what the KUnit suites (tests/kunit/) reach in the
 * module beyond its public state changes (control.c): sums over the tags
 * of their own functions, their own clock, the clusters, the statistics
 * and the knobs. Exported with EXPORT_SYMBOL_IF_KUNIT where the kernel
 * has it (kmp_export_test_hook(), compat.h). Nothing in the module calls
 * these.
 *
 * Built only into the rig's test build on a kernel with KUnit
 * (module/Kbuild, KMP_TEST_HOOKS): the module that is installed has none
 * of it, and tools/rig/package-test.sh checks that.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/string.h>

#include <kmemprof/knobs.h>
#include <kmemprof/test.h>

#include "clock.h"
#include "fmt.h"
#include "hist.h"
#include "internal.h"
#include "live.h"
#include "owners.h"
#include "pfnmap.h"
#include "probes.h"
#include "stat.h"
#include "tables.h"
#include "tags.h"
#include "testpoints.h"

/*
 * Sum the totals of every tag of @kind whose call site is in [start, end).
 * For the KUnit suites, which know their own functions' ranges.
 */
int kmemprof_sum_range(enum kmp_kind kind, unsigned long start,
		       unsigned long end, struct kmp_totals *sum,
		       bool *inaccurate)
{
	u32 idx, used = kmp_tags_used();
	struct kmp_totals t;
	int n = 0;

	memset(sum, 0, sizeof(*sum));
	if (inaccurate)
		*inaccurate = false;
	for (idx = 0; idx < used; idx++) {
		struct kmp_tag *tag = &kmp_tag_pool[idx];

		if (!kmp_tag_ready(idx) || tag->kind != kind ||
		    tag->site < start || tag->site >= end ||
		    test_bit(KMP_TAG_GONE, &tag->flags))
			continue;
		kmp_tag_totals(idx, &t);
		sum->allocs += t.allocs;
		sum->frees += t.frees;
		sum->bytes += t.bytes;
		sum->freed += t.freed;
		sum->req += t.req;
		sum->reqfreed += t.reqfreed;
		sum->live_objs += t.live_objs;
		sum->live_bytes += t.live_bytes;
		sum->live_req += t.live_req;
		if (inaccurate && test_bit(KMP_TAG_INACCURATE, &tag->flags))
			*inaccurate = true;
		if (test_bit(KMP_TAG_SAMPLED, &tag->flags))
			sum->sampled++;
		n++;
	}
	return n;
}

kmp_export_test_hook(kmemprof_sum_range);

/*
 * Sum the totals of the stack-keyed tags of @kind whose site is in
 * [start, end) and whose nearest caller is in [cstart, cend).
 */
int kmemprof_sum_callers(enum kmp_kind kind, unsigned long start,
			 unsigned long end, unsigned long cstart,
			 unsigned long cend, struct kmp_totals *sum)
{
	u32 idx, used = kmp_tags_used();
	struct kmp_totals t;
	int n = 0;

	memset(sum, 0, sizeof(*sum));
	for (idx = 0; idx < used; idx++) {
		struct kmp_tag *tag = &kmp_tag_pool[idx];

		if (!kmp_tag_ready(idx) || tag->kind != kind ||
		    tag->site < start || tag->site >= end || !tag->ncallers ||
		    tag->callers[0] < cstart || tag->callers[0] >= cend)
			continue;
		kmp_tag_totals(idx, &t);
		sum->allocs += t.allocs;
		sum->frees += t.frees;
		sum->live_objs += t.live_objs;
		sum->live_bytes += t.live_bytes;
		n++;
	}
	return n;
}

kmp_export_test_hook(kmemprof_sum_callers);

/* Sum the histograms of the tags of @kind in [start, end). */
int kmemprof_hist_range(enum kmp_kind kind, unsigned long start,
			unsigned long end, struct kmp_hist_totals *sum)
{
	u32 idx, used = kmp_tags_used(), f;
	struct kmp_hist_totals t;
	u64 *out = (u64 *)sum;
	const u64 *in = (u64 *)&t;
	int n = 0;

	memset(sum, 0, sizeof(*sum));
	for (idx = 0; idx < used; idx++) {
		struct kmp_tag *tag = &kmp_tag_pool[idx];

		if (!kmp_tag_ready(idx) || tag->kind != kind ||
		    tag->site < start || tag->site >= end ||
		    test_bit(KMP_TAG_GONE, &tag->flags) ||
		    !kmp_hist_sum(kmp_tag_hist(tag), &t))
			continue;
		for (f = 0; f < sizeof(t) / sizeof(u64); f++)
			out[f] += in[f];
		n++;
	}
	return n;
}

kmp_export_test_hook(kmemprof_hist_range);

/* Lifetimes by a clock of the suite's own; NULL puts the real one back. */
void kmemprof_set_clock(kmp_clock_t *clock)
{
	kmp_clock_set(clock);
}

kmp_export_test_hook(kmemprof_set_clock);

/*
 * The lifetimes' counter (clock.h) read between two reads of the kernel's
 * own, interrupts off; *@inl: whether it is read inline. -EOPNOTSUPP
 * where lifetimes have no counter (local_clock()).
 */
int kmemprof_test_counter(u64 *before, u64 *ours, u64 *after, bool *inl)
{
#if KMP_HAVE_CYCLES
	unsigned long flags;

	local_irq_save(flags);
	*before = arch_timer_read_counter();
	/* the inline read has no ISB of its own: order it after @before */
	isb();
	*ours = kmp_counter();
	*after = arch_timer_read_counter();
	local_irq_restore(flags);
	*inl = static_key_enabled(&kmp_cntvct_key) ||
	       static_key_enabled(&kmp_cntpct_key);
	return 0;
#else
	return -EOPNOTSUPP;
#endif
}

kmp_export_test_hook(kmemprof_test_counter);

/*
 * Whether the probes attached since the last call went on frees first and
 * those detached came off frees last (control.c's kmp_attach()): 0 or
 * -EINVAL, with how many were attached or detached in @n.
 */
int kmemprof_test_attach_order(unsigned int *n)
{
	return kmp_probes_log_order(n);
}

kmp_export_test_hook(kmemprof_test_attach_order);

int kmemprof_cpu_cluster(int cpu)
{
	return kmp_cpu_cluster(cpu);
}

kmp_export_test_hook(kmemprof_cpu_cluster);

u64 kmemprof_stat(enum kmp_stat st)
{
	return st < KMP_ST_NR ? kmp_stat_read(st) : 0;
}

kmp_export_test_hook(kmemprof_stat);

/* For the KUnit suites: set an unsigned knob as a write to it would. */
int kmemprof_set_knob(const char *name, unsigned int val)
{
	const struct kmp_knob *k = kmp_knob_find(name, KMP_KNOB_SYSCTL);

	return k ? kmp_knob_set(k, val) : -ENOENT;
}

kmp_export_test_hook(kmemprof_set_knob);

/* For the KUnit suites: an unsigned knob's value. */
int kmemprof_get_knob(const char *name, unsigned int *val)
{
	const struct kmp_knob *k = kmp_knob_find(name, KMP_KNOB_SYSCTL);

	if (!k)
		return -ENOENT;
	*val = READ_ONCE(*k->var);
	return 0;
}

kmp_export_test_hook(kmemprof_get_knob);

/*
 * Call @fn in a write of min_size or max_size, between the check of the
 * value against the other bound and its store; NULL for no more calls.
 */
void kmemprof_test_knob_point(void (*fn)(const char *name, unsigned int val))
{
	WRITE_ONCE(kmp_knob_test_point, fn);
}

kmp_export_test_hook(kmemprof_test_knob_point);

/* max_live's default on a machine of @mib MiB of RAM. */
unsigned int kmemprof_test_default_max_live(unsigned long mib)
{
	return kmp_default_max_live(mib);
}

kmp_export_test_hook(kmemprof_test_default_max_live);

struct kmp_test_walk {
	void (*mid)(void *arg);
	void *arg;
	u64 objs;
};

static void kmp_test_walk_one(unsigned long key, const struct kmp_obj *obj,
			      void *priv)
{
	struct kmp_test_walk *w = priv;

	/* Once, where the walk may sleep (the slots, not the spill). */
	if (w->mid && !irqs_disabled()) {
		w->mid(w->arg);
		w->mid = NULL;
	}
	w->objs++;
}

/*
 * Walk the live table as the ages and leaks views do (kmp_walk_views()),
 * calling @mid once in the middle of it: the number of objects walked, or
 * -EINTR, or -EAGAIN if @mid was never called.
 */
s64 kmemprof_test_walk(void (*mid)(void *arg), void *arg)
{
	struct kmp_test_walk w = { .mid = mid, .arg = arg };
	int ret = kmp_walk_views(kmp_test_walk_one, &w);

	if (ret)
		return ret;
	return w.mid ? -EAGAIN : w.objs;
}

kmp_export_test_hook(kmemprof_test_walk);

struct kmp_test_reuse {
	unsigned long key;
	struct kmp_obj now;	/* what the key's address is allocated as */
	bool fired;
	struct kmp_test_obj *seen;
	int n, nseen;
};

static struct kmp_test_reuse *kmp_test_reuse;

static void kmp_test_obj_set(struct kmp_test_obj *t, const struct kmp_obj *o)
{
	t->time = o->time;
	t->tag = o->tag;
	t->size = o->size;
	t->req = o->req;
	t->cpu = o->cpu;
}

/* The walk is at @key's slot: its object is freed, its address reused. */
static void kmp_test_reuse_point(unsigned long key)
{
	struct kmp_test_reuse *r = kmp_test_reuse;
	struct kmp_obj old;
	unsigned long flags;

	if (!r || r->fired || key != r->key)
		return;
	r->fired = true;
	local_irq_save(flags);
	kmp_live_remove(key, &old);
	kmp_live_insert(key, &r->now, &old);
	local_irq_restore(flags);
}

static void kmp_test_reuse_one(unsigned long key, const struct kmp_obj *obj,
			       void *priv)
{
	struct kmp_test_reuse *r = priv;

	if (key != r->key)
		return;
	if (r->nseen < r->n)
		kmp_test_obj_set(&r->seen[r->nseen], obj);
	r->nseen++;
}

/* The object of live slab @p, from its slot (not the spill), into @obj. */
static bool kmp_test_slot_obj(const void *p, struct kmp_obj *obj)
{
	struct kmp_slot *s;

	if (!kmp_live_find(kmp_key_addr(KMP_KIND_SLAB, (unsigned long)p), &s))
		return false;
	kmp_slot_get(s, obj);
	return true;
}

/*
 * The object of @a's key read by a walk (@get false) or by kmp_live_read()
 * (@get true), while at its slot, between the reads of the object's
 * fields, @a is freed and its address allocated again at once as a copy
 * of @b: see kmemprof_test_walk_reuse().
 */
static int kmp_test_reuse_run(const void *a, const void *b,
			      struct kmp_test_obj *was,
			      struct kmp_test_obj *now,
			      struct kmp_test_obj *seen, int n, bool get)
{
	struct kmp_test_reuse r = { .seen = seen, .n = n };
	struct kmp_obj before, old, got;
	unsigned long flags;
	int ret = 0;

	r.key = kmp_key_addr(KMP_KIND_SLAB, (unsigned long)a);
	if (!kmp_test_slot_obj(a, &before) || !kmp_test_slot_obj(b, &r.now))
		return -ENOENT;
	kmp_test_obj_set(was, &before);
	kmp_test_obj_set(now, &r.now);
	WRITE_ONCE(kmp_test_reuse, &r);
	WRITE_ONCE(kmp_live_test_point, kmp_test_reuse_point);
	if (get) {
		local_irq_save(flags);
		if (kmp_live_read(r.key, &got))
			kmp_test_reuse_one(r.key, &got, &r);
		local_irq_restore(flags);
	} else {
		ret = kmp_walk_views(kmp_test_reuse_one, &r);
	}
	WRITE_ONCE(kmp_live_test_point, NULL);
	WRITE_ONCE(kmp_test_reuse, NULL);
	if (r.fired) {
		local_irq_save(flags);
		kmp_live_remove(r.key, &old);
		kmp_live_insert(r.key, &before, &old);
		local_irq_restore(flags);
	}
	if (ret)
		return ret;
	return r.fired ? r.nseen : -EAGAIN;
}

/*
 * Walk the live table as the ages and leaks views do. When the walk is at
 * the slot of slab object @a, between its reads of the object's fields,
 * @a is freed and its address allocated again at once, as SLUB does, by an
 * allocation like @b (@b's tag, sizes, time and CPU). What the walk
 * reported for @a's address goes to @seen (at most @n), @a's object before
 * into @was and after into @now; @a's entry is put back as it was. Both
 * must be in the live table's slots. Returns the number of reports, or
 * -ENOENT, -EINTR, or -EAGAIN if the walk never reached @a.
 */
int kmemprof_test_walk_reuse(const void *a, const void *b,
			     struct kmp_test_obj *was, struct kmp_test_obj *now,
			     struct kmp_test_obj *seen, int n)
{
	return kmp_test_reuse_run(a, b, was, now, seen, n, false);
}

kmp_export_test_hook(kmemprof_test_walk_reuse);

/*
 * The same through kmp_live_read(), the general path's lookup that leaves
 * the table as it is: 1 if it returned an object for @a's key (in
 * @seen[0]), 0 if not.
 */
int kmemprof_test_get_reuse(const void *a, const void *b,
			    struct kmp_test_obj *was, struct kmp_test_obj *now,
			    struct kmp_test_obj *seen)
{
	return kmp_test_reuse_run(a, b, was, now, seen, 1, true);
}

kmp_export_test_hook(kmemprof_test_get_reuse);

/*
 * Lay out a line of /proc/kmemprof into @m as a read does, from its parts:
 * the @site and @callers texts, @kind, the three marks (sampled:yes,
 * accurate:no, module:unloaded) if @marks, and the totals @t. -E2BIG for
 * a text longer than a tag's can be, -EINVAL for no such kind.
 */
int kmemprof_test_proc_line(struct seq_file *m, const char *site,
			    const char *callers, enum kmp_kind kind,
			    bool marks, const struct kmp_totals *t)
{
	struct kmp_proc_line l = {
		.site = site,
		.site_len = strlen(site),
		.callers = callers,
		.callers_len = strlen(callers),
		.t = t,
	};

	if (l.site_len >= KMP_SITE_TEXT_LEN ||
	    l.callers_len >= KMP_CALLERS_TEXT_LEN)
		return -E2BIG;
	if (kind >= KMP_KIND_NR)
		return -EINVAL;
	l.kind = kmp_kind_name(kind);
	l.kind_len = strlen(l.kind);
	if (marks)
		l.flags = BIT(KMP_TAG_SAMPLED) | BIT(KMP_TAG_INACCURATE) |
			  BIT(KMP_TAG_GONE);
	kmp_proc_put(m, &l);
	return 0;
}

kmp_export_test_hook(kmemprof_test_proc_line);

/*
 * The percentages of the views as they print them into @m: hist's
 * " frag:<percent> waste:<bytes>" of @live_bytes of which @live_req were
 * asked for, and stacks' "<percent>%" of @part in @whole.
 */
void kmemprof_test_frag(struct seq_file *m, u64 live_bytes, u64 live_req)
{
	kmp_put_frag(m, live_bytes, live_req);
}

kmp_export_test_hook(kmemprof_test_frag);

void kmemprof_test_percent(struct seq_file *m, u64 part, u64 whole)
{
	kmp_put_permille(m, part, whole);
}

kmp_export_test_hook(kmemprof_test_percent);

/* Whether the hook that stats lists as @name is attached (hooks.c). */
bool kmemprof_hooked(const char *name)
{
	return kmp_hook_attached(name);
}

kmp_export_test_hook(kmemprof_hooked);

/* The next @n attaches of the hook stats calls @name are refused. */
void kmemprof_test_hook_refuse(const char *name, unsigned int n)
{
	kmp_test_hook_refuse(name, n);
}

kmp_export_test_hook(kmemprof_test_hook_refuse);

/* The re-attach scan again, as an attach of the page probes runs it. */
int kmemprof_test_rescan(void)
{
	return kmp_control_rescan();
}

kmp_export_test_hook(kmemprof_test_rescan);

/*
 * Put the walk's frontier (prior.c) at @pfn, as a walk that has passed
 * the frames below it and not yet @pfn would; ULONG_MAX, as no walk.
 */
void kmemprof_test_frontier(unsigned long pfn)
{
	WRITE_ONCE(kmp_prior_next, pfn);
}

kmp_export_test_hook(kmemprof_test_frontier);

/*
 * An NMI event, as nmi.c takes it, from a test: the entry points an event
 * in NMI reaches, called with interrupts off as an NMI would run. The
 * drain runs from the irq_work once interrupts are back on;
 * kmemprof_test_nmi_flush() waits for it.
 */
void kmemprof_test_nmi_alloc(unsigned long site, const void *ptr, size_t size)
{
	unsigned long flags;

	local_irq_save(flags);
	kmp_nmi_slab_alloc(KMP_EV_KMALLOC, site, ptr, size, size);
	local_irq_restore(flags);
}

kmp_export_test_hook(kmemprof_test_nmi_alloc);

void kmemprof_test_nmi_free(const void *ptr)
{
	unsigned long flags;

	local_irq_save(flags);
	kmp_nmi_free(KMP_EV_KFREE, kmp_key_addr(KMP_KIND_SLAB,
						(unsigned long)ptr), 0);
	local_irq_restore(flags);
}

kmp_export_test_hook(kmemprof_test_nmi_free);

/* A page block's free in NMI, of @order at @page. */
void kmemprof_test_nmi_page_free(const struct page *page, unsigned int order)
{
	unsigned long flags;

	local_irq_save(flags);
	kmp_nmi_free(KMP_EV_PAGE_FREE, kmp_key_pfn(page_to_pfn(page)),
		     PAGE_SIZE << order);
	local_irq_restore(flags);
}

kmp_export_test_hook(kmemprof_test_nmi_page_free);

/* A page block's migration, of @order from @src to @dst, as hooks.c's. */
void kmemprof_test_page_move(const struct page *dst, const struct page *src,
			     unsigned int order)
{
	kmp_page_move(page_to_pfn(dst), page_to_pfn(src), order);
}

kmp_export_test_hook(kmemprof_test_page_move);

/*
 * Forget @page's entry, as if its block had been allocated with no event
 * (compaction's isolated free pages): the re-attach scan (prior.c) enters
 * a block allocated while kmemprof was off, so the suites take it out.
 */
void kmemprof_test_page_forget(const struct page *page)
{
	unsigned long flags;

	local_irq_save(flags);
	kmp_account_pfn_drop(page_to_pfn(page),
			     kmp_account_pfn_peek(page_to_pfn(page)), false);
	local_irq_restore(flags);
}

kmp_export_test_hook(kmemprof_test_page_forget);

void kmemprof_test_nmi_flush(void)
{
	kmp_nmi_flush_work();
}

kmp_export_test_hook(kmemprof_test_nmi_flush);

/*
 * A page event's two walks from the frame record @fp, for the KUnit
 * suites: the general path's (kmp_page_site()), whose call site is
 * returned, with the number of records it passed in *@passed; its passed
 * records and its site enter the site table as kmp_account_alloc() enters
 * them. Then the fast path's (kmp_page_site_fast(), no record skipped):
 * the site it found, or 0, in *@fast.
 */
unsigned long kmemprof_test_page_walk(unsigned long fp, unsigned int *passed,
				      unsigned long *fast)
{
	struct kmp_frames *f = kmalloc(sizeof(*f), GFP_KERNEL);
	const struct kmp_site *e;
	unsigned long site, flags;
	unsigned int i;

	*passed = 0;
	*fast = 0;
	if (!f)
		return 0;
	local_irq_save(flags);
	site = kmp_page_site(fp, f, 0);
	*passed = f->nskip;
	for (i = 0; i < f->nskip; i++)
		kmp_site_add(kmp_site_key(f->skip[i], KMP_KIND_PAGE), 0,
			     KMP_SITE_FRAME);
	if (site != KMP_SITE_BULK)
		kmp_tag_find_or_create(site, KMP_KIND_PAGE, NULL, 0);
	if (kmp_page_site_fast(fp, 0, &e))
		*fast = kmp_tag_at(e->idx)->site;
	local_irq_restore(flags);
	kfree(f);
	return site;
}

kmp_export_test_hook(kmemprof_test_page_walk);

/*
 * Count the allocations of @kind at call sites in [@start, @end) that the
 * general path takes (account.c), from 0; kmemprof_test_watched() reads
 * the count. @start == @end: none.
 */
void kmemprof_test_watch(enum kmp_kind kind, unsigned long start,
			 unsigned long end)
{
	WRITE_ONCE(kmp_test_watch[1], 0);
	WRITE_ONCE(kmp_test_watch_kind, kind);
	WRITE_ONCE(kmp_test_watch[0], start);
	atomic_set(&kmp_test_watched, 0);
	WRITE_ONCE(kmp_test_watch[1], end);
}

kmp_export_test_hook(kmemprof_test_watch);

unsigned int kmemprof_test_watched(void)
{
	return atomic_read(&kmp_test_watched);
}

kmp_export_test_hook(kmemprof_test_watched);

/*
 * Events as the probes take them, through their entry points (probes.h:
 * the fast path, else the general path), with no event counted: a slab
 * allocation of @ptr at @site and its free; a page block allocated with
 * the frame records from @fp to walk, and its free.
 */
void kmemprof_test_slab_event(unsigned long site, const void *ptr,
			      size_t size)
{
	kmp_slab_alloc(KMP_EV_NONE, site, ptr, size, size);
}

kmp_export_test_hook(kmemprof_test_slab_event);

void kmemprof_test_slab_free_event(const void *ptr)
{
	kmp_slab_free(KMP_EV_NONE, ptr);
}

kmp_export_test_hook(kmemprof_test_slab_free_event);

void kmemprof_test_page_event(unsigned long fp, const struct page *page,
			      unsigned int order)
{
	kmp_page_alloc(KMP_EV_NONE, fp, 0, page, order);
}

kmp_export_test_hook(kmemprof_test_page_event);

void kmemprof_test_page_free_event(const struct page *page, unsigned int order)
{
	kmp_page_free(KMP_EV_NONE, page, order);
}

kmp_export_test_hook(kmemprof_test_page_free_event);

/*
 * A page block at @pfn, which need not be memory, allocated (@free false)
 * or freed, on the general path, from the caller's call site; -EEXIST,
 * with nothing done, where the PFN map holds @pfn (the block would not go
 * to the live table).
 */
int kmemprof_test_pfn_event(unsigned long pfn, unsigned int order, bool free)
{
	size_t bytes = PAGE_SIZE << order;
	unsigned long flags;

	if (kmp_pfn_slot(pfn))
		return -EEXIST;
	local_irq_save(flags);
	if (free)
		kmp_account_free_key(kmp_key_pfn(pfn), bytes);
	else
		kmp_account_alloc(KMP_KIND_PAGE, 0, kmp_key_pfn(pfn), bytes,
				  bytes, 0);
	local_irq_restore(flags);
	return 0;
}

kmp_export_test_hook(kmemprof_test_pfn_event);

static unsigned long kmp_test_gone_start, kmp_test_gone_end;

static bool kmp_test_within(unsigned long addr, const struct module *mod)
{
	return addr >= kmp_test_gone_start && addr < kmp_test_gone_end;
}

/*
 * The code at [@start, @end) is going, as the module notifier says of a
 * module's (kmp_code_going()): its tags are named and leave the tag hash,
 * and their site table entries become tombs.
 */
void kmemprof_test_code_going(unsigned long start, unsigned long end)
{
	kmp_test_gone_start = start;
	kmp_test_gone_end = end;
	kmp_code_going(kmp_test_within, NULL);
}

kmp_export_test_hook(kmemprof_test_code_going);

/*
 * Events on the normal path, as a probe takes them, for the NMI cases: an
 * allocation of @ptr whose call site is the caller, its free, and the
 * allocation of a page block from the caller.
 */
noinline void kmemprof_test_slab_alloc(const void *ptr, size_t size)
{
	kmp_slab_alloc(KMP_EV_NONE, _RET_IP_, ptr, size, size);
}

kmp_export_test_hook(kmemprof_test_slab_alloc);

void kmemprof_test_slab_free(const void *ptr)
{
	kmp_slab_free(KMP_EV_NONE, ptr);
}

kmp_export_test_hook(kmemprof_test_slab_free);

noinline void kmemprof_test_page_alloc(struct page *page, unsigned int order)
{
	/* This frame record: the walk to the call site starts from it. */
	kmp_page_alloc(KMP_EV_NONE, (unsigned long)__builtin_frame_address(0), 0,
		       page, order);
}

kmp_export_test_hook(kmemprof_test_page_alloc);

/* The suites' names of the owners' types (test.h), as owners.c has them. */
static const u8 kmp_test_owner_types[] = {
	[KMP_TEST_OWN_TASK] = KMP_OWN_TASK,
	[KMP_TEST_OWN_CGROUP] = KMP_OWN_CGROUP,
	[KMP_TEST_OWN_KTHREAD] = KMP_OWN_KTHREAD,
	[KMP_TEST_OWN_IRQ] = KMP_OWN_IRQ,
	[KMP_TEST_OWN_SOFTIRQ] = KMP_OWN_SOFTIRQ,
	[KMP_TEST_OWN_NMI] = KMP_OWN_NMI,
};

/*
 * The sum of the owner lines of the tags of @kind whose call site is in
 * [start, end), charged to owners of @type (and, @comm not NULL, of that
 * comm): how many lines. Lines at zero count too.
 */
int kmemprof_test_owner_sum(enum kmp_kind kind, unsigned long start,
			    unsigned long end, enum kmp_test_owner type,
			    const char *comm, struct kmp_test_owner_sum *s)
{
	u32 i, used = kmp_olines_used();

	memset(s, 0, sizeof(*s));
	for (i = 1; i < used; i++) {
		const struct kmp_oline *l = kmp_oline_at(i);
		const struct kmp_owner *o;
		struct kmp_tag *tag;

		if (!l || !kmp_tag_ready(l->tag))
			continue;
		tag = kmp_tag_at(l->tag);
		if (tag->kind != kind || tag->site < start || tag->site >= end)
			continue;
		o = kmp_owner_at(l->owner);
		if (!o || type >= ARRAY_SIZE(kmp_test_owner_types) ||
		    o->type != kmp_test_owner_types[type] ||
		    (comm && strncmp(o->comm, comm, TASK_COMM_LEN)))
			continue;
		s->bytes += atomic64_read(&l->bytes);
		s->objs += atomic64_read(&l->objs);
		s->allocs += atomic64_read(&l->allocs);
		s->lines++;
	}
	return s->lines;
}

kmp_export_test_hook(kmemprof_test_owner_sum);

u32 kmemprof_test_owners_used(void)
{
	return kmp_owners_used();
}

kmp_export_test_hook(kmemprof_test_owners_used);

u32 kmemprof_test_olines_used(void)
{
	return kmp_olines_used();
}

kmp_export_test_hook(kmemprof_test_olines_used);

/* Cap the owner pools' counts (an index past the last taken); 0: none. */
void kmemprof_test_owner_cap(u32 owners, u32 lines)
{
	WRITE_ONCE(kmp_test_owner_cap, owners);
	WRITE_ONCE(kmp_test_oline_cap, lines);
}

kmp_export_test_hook(kmemprof_test_owner_cap);
