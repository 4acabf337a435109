/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: the hooks the KUnit suites (tests/kunit/) call, which only the
 * rig's test build has (KMP_TEST_HOOKS, module/testhooks.c). Nothing of
 * the module's own includes this but the files that define them.
 */
#ifndef _KMEMPROF_KMEMPROF_TEST_H
#define _KMEMPROF_KMEMPROF_TEST_H

#include <kmemprof/kmemprof.h>

u64 kmemprof_stat(enum kmp_stat st);
int kmemprof_set_knob(const char *name, unsigned int val);
int kmemprof_get_knob(const char *name, unsigned int *val);
void kmemprof_test_knob_point(void (*fn)(const char *name, unsigned int val));
unsigned int kmemprof_test_default_max_live(unsigned long mib);
int kmemprof_sum_callers(enum kmp_kind kind, unsigned long start,
			 unsigned long end, unsigned long cstart,
			 unsigned long cend, struct kmp_totals *t);
int kmemprof_sum_range(enum kmp_kind kind, unsigned long start,
		       unsigned long end, struct kmp_totals *t,
		       bool *inaccurate);
int kmemprof_hist_range(enum kmp_kind kind, unsigned long start,
			unsigned long end, struct kmp_hist_totals *t);
void kmemprof_set_clock(kmp_clock_t *clock);
int kmemprof_test_counter(u64 *before, u64 *ours, u64 *after, bool *inl);
int kmemprof_test_attach_order(unsigned int *n);
int kmemprof_cpu_cluster(int cpu);
s64 kmemprof_test_walk(void (*mid)(void *arg), void *arg);

/* An object of the live table, as kmemprof_test_walk_reuse() reports it. */
struct kmp_test_obj {
	u64 time;
	u32 tag;
	u32 size;
	u32 req;
	u32 cpu;
};

int kmemprof_test_walk_reuse(const void *a, const void *b,
			     struct kmp_test_obj *was, struct kmp_test_obj *now,
			     struct kmp_test_obj *seen, int n);
int kmemprof_test_get_reuse(const void *a, const void *b,
			    struct kmp_test_obj *was, struct kmp_test_obj *now,
			    struct kmp_test_obj *seen);
bool kmemprof_hooked(const char *name);
void kmemprof_test_hook_refuse(const char *name, unsigned int n);
int kmemprof_test_rescan(void);
void kmemprof_test_frontier(unsigned long pfn);
void kmemprof_test_nmi_alloc(unsigned long site, const void *ptr,
			     size_t size);
void kmemprof_test_nmi_free(const void *ptr);
void kmemprof_test_nmi_page_free(const struct page *page, unsigned int order);
void kmemprof_test_nmi_flush(void);
void kmemprof_test_page_forget(const struct page *page);
void kmemprof_test_page_move(const struct page *dst, const struct page *src,
			     unsigned int order);
struct seq_file;
int kmemprof_test_proc_line(struct seq_file *m, const char *site,
			    const char *callers, enum kmp_kind kind,
			    bool marks, const struct kmp_totals *t);
void kmemprof_test_frag(struct seq_file *m, u64 live_bytes, u64 live_req);
int kmemprof_sym_text(unsigned long addr, char *buf, char *kernel,
		      bool *indexed);
unsigned long kmemprof_test_frame_fn_kind(const char *name);
unsigned long kmemprof_test_frame_kind(unsigned long addr, int *named);
unsigned long kmemprof_test_own_wrapper(void);
void kmemprof_test_percent(struct seq_file *m, u64 part, u64 whole);
unsigned long kmemprof_test_page_walk(unsigned long fp, unsigned int *passed,
				      unsigned long *fast);
unsigned int kmemprof_test_stack_walk(unsigned long fp, unsigned long site,
				      unsigned long *frames, unsigned int n);
void kmemprof_test_watch(enum kmp_kind kind, unsigned long start,
			 unsigned long end);
unsigned int kmemprof_test_watched(void);
void kmemprof_test_stacked_off(unsigned int n);
void kmemprof_test_slab_event(unsigned long site, const void *ptr,
			      size_t size);
void kmemprof_test_slab_free_event(const void *ptr);
void kmemprof_test_page_event(unsigned long fp, const struct page *page,
			      unsigned int order);
void kmemprof_test_page_free_event(const struct page *page,
				   unsigned int order);
int kmemprof_test_pfn_event(unsigned long pfn, unsigned int order, bool free);
void kmemprof_test_code_going(unsigned long start, unsigned long end);
void kmemprof_test_slab_alloc(const void *ptr, size_t size);
void kmemprof_test_slab_free(const void *ptr);
void kmemprof_test_page_alloc(struct page *page, unsigned int order);

/* Owners (owners.c): the knob, and the lines of the suites' own sites. */
enum kmp_test_owner {
	KMP_TEST_OWN_TASK = 1,
	KMP_TEST_OWN_CGROUP,
	KMP_TEST_OWN_KTHREAD,
	KMP_TEST_OWN_IRQ,
	KMP_TEST_OWN_SOFTIRQ,
	KMP_TEST_OWN_NMI,
};

struct kmp_test_owner_sum {
	s64 bytes;	/* live */
	s64 objs;
	s64 allocs;
	u32 lines;
};

int kmemprof_set_owners(unsigned int val);	/* 0, 1 task, 2 cgroup */
int kmemprof_test_owner_sum(enum kmp_kind kind, unsigned long start,
			    unsigned long end, enum kmp_test_owner type,
			    const char *comm, struct kmp_test_owner_sum *s);
u32 kmemprof_test_owners_used(void);
u32 kmemprof_test_olines_used(void);
void kmemprof_test_owner_cap(u32 owners, u32 lines);

#endif /* _KMEMPROF_KMEMPROF_TEST_H */
