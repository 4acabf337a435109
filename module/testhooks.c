// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the whole of what the KUnit suites (tests/kunit/) reach in the
 * module beyond its public state changes (control.c): sums over the tags
 * of their own functions, their own clock, the clusters, the statistics
 * and the knobs. Exported with EXPORT_SYMBOL_IF_KUNIT where the kernel
 * has it (kmp_export_test_hook(), compat.h). Nothing in the module calls
 * these.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>

#include <kmemprof/knobs.h>

#include "internal.h"

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
		    !kmp_hist_tag(tag, &t))
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

/* Whether the hook that stats lists as @name is attached (hooks.c). */
bool kmemprof_hooked(const char *name)
{
	return kmp_hook_attached(name);
}

kmp_export_test_hook(kmemprof_hooked);

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

void kmemprof_test_nmi_flush(void)
{
	kmp_nmi_flush_work();
}

kmp_export_test_hook(kmemprof_test_nmi_flush);
