// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof_bench: timed allocation loops, for make bench.
 *
 * At load it runs each workload named in @workloads on @cpus CPUs (one
 * kthread per CPU, bound, started together), @reps times, timing each
 * loop with local_clock(), and prints one line per workload:
 *
 *   kmemprof_bench: RESULT <label> <workload> <cpus> <ns per pair>
 *
 * where ns per pair is the median over the repeats of the mean over the
 * CPUs, with two decimals. It then stays loaded doing nothing; rmmod it.
 *
 * The same module runs on the board: insmod kmemprof_bench.ko label=x.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/stacktrace.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include <kmemprof/compat.h>

static char *label = "run";
module_param(label, charp, 0444);
MODULE_PARM_DESC(label, "Name of this run in the RESULT lines");

static char *workloads = "all";
module_param(workloads, charp, 0444);
MODULE_PARM_DESC(workloads, "Comma-separated workloads, or all");

static unsigned int cpus = 1;
module_param(cpus, uint, 0444);
MODULE_PARM_DESC(cpus, "CPUs to run on, the first online ones");

static unsigned int iters = 20000;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "Pairs per loop");

static unsigned int reps = 3;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "Repeats; the median is reported");

#define MAX_REPS	15
#define NCALLERS	10
#define LEAKY_N		100000
#define RING		256

/* site_0() .. site_999(), sites[] and NSITES: see gen-sites.sh. */
#include "sites.h"
/*
 * name_0() .. name_9999(), names[] and NNAMES: the same, for name10k, but
 * hidden from allocinfo (6.10+): its tag of each call site has per-CPU
 * counters, which for 10000 sites are more than a module may have.
 */
#ifdef alloc_hooks
#define name_kmalloc(size, gfp)	kmalloc_noprof(size, gfp)
#else
#define name_kmalloc(size, gfp)	kmalloc(size, gfp)
#endif
#include "names.h"

/* Ten callers of all 1000 sites: with key_depth=2, 10000 tags. */
static noinline void call_all_sites(size_t size)
{
	unsigned int i;

	for (i = 0; i < NSITES; i++)
		kfree(sites[i](size));
}

static noinline void caller_0(void)
{
	call_all_sites(32);
	barrier();	/* no tail call: keep this frame */
}

static noinline void caller_1(void)
{
	call_all_sites(33);
	barrier();	/* no tail call: keep this frame */
}

static noinline void caller_2(void)
{
	call_all_sites(34);
	barrier();	/* no tail call: keep this frame */
}

static noinline void caller_3(void)
{
	call_all_sites(35);
	barrier();	/* no tail call: keep this frame */
}

static noinline void caller_4(void)
{
	call_all_sites(36);
	barrier();	/* no tail call: keep this frame */
}

static noinline void caller_5(void)
{
	call_all_sites(37);
	barrier();	/* no tail call: keep this frame */
}

static noinline void caller_6(void)
{
	call_all_sites(38);
	barrier();	/* no tail call: keep this frame */
}

static noinline void caller_7(void)
{
	call_all_sites(39);
	barrier();	/* no tail call: keep this frame */
}

static noinline void caller_8(void)
{
	call_all_sites(40);
	barrier();	/* no tail call: keep this frame */
}

static noinline void caller_9(void)
{
	call_all_sites(41);
	barrier();	/* no tail call: keep this frame */
}

static void (* const callers[NCALLERS])(void) = {
	caller_0, caller_1, caller_2, caller_3, caller_4,
	caller_5, caller_6, caller_7, caller_8, caller_9,
};

struct worker;

struct workload {
	const char *name;
	void (*run)(struct worker *w);
	bool pairs_of_cpus;	/* cross-CPU: needs an even number of CPUs */
	bool holds;		/* needs room to hold LEAKY_N objects */
};

struct worker {
	const struct workload *wl;
	struct task_struct *task;
	struct completion *go;
	struct completion done;
	struct worker *peer;	/* cross-CPU partner */
	void **ring;
	atomic_t head, tail;
	void **held;
	u64 ns;
	u64 untimed_ns;	/* a part of the run not to count */
	unsigned int pairs;
};

static struct kmem_cache *bench_cache;

static noinline void *one_site(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

static void run_kmalloc(struct worker *w, size_t size)
{
	unsigned int i;

	for (i = 0; i < iters; i++)
		kfree(one_site(size));
	w->pairs = iters;
}

static void run_kmalloc32(struct worker *w)
{
	run_kmalloc(w, 32);
}

static void run_kmalloc256(struct worker *w)
{
	run_kmalloc(w, 256);
}

static void run_kmalloc2048(struct worker *w)
{
	run_kmalloc(w, 2048);
}

/*
 * The steady state over 1000 sites: a first pass, untimed, meets each
 * site once, so a profiler's one-time work for a new site (kmemprof makes
 * its tag) is not spread over the timed pairs.
 */
static void run_sites1000(struct worker *w)
{
	u64 t0 = local_clock();
	unsigned int i;

	for (i = 0; i < NSITES; i++)
		kfree(sites[i](32));
	w->untimed_ns += local_clock() - t0;
	for (i = 0; i < iters; i++)
		kfree(sites[i % NSITES](32));
	w->pairs = iters;
}

static void run_cache(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < iters; i++)
		kmem_cache_free(bench_cache,
				kmem_cache_alloc(bench_cache, GFP_KERNEL));
	w->pairs = iters;
}

static void run_pages(struct worker *w, unsigned int order)
{
	unsigned int i, n = iters / 4;
	struct page *p;

	for (i = 0; i < n; i++) {
		p = alloc_pages(GFP_KERNEL, order);
		if (p)
			__free_pages(p, order);
	}
	w->pairs = n;
}

static void run_pages0(struct worker *w)
{
	run_pages(w, 0);
}

static void run_pages2(struct worker *w)
{
	run_pages(w, 2);
}

/*
 * kmem_cache_alloc_bulk() and kmem_cache_free_bulk() of 16 objects, as the
 * maple tree does: the cost per object, for kmemprof's hooks (hooks.c).
 */
#define BULK	16

static void run_bulk16(struct worker *w)
{
	unsigned int i, n = iters / BULK;
	void *objs[BULK];

	for (i = 0; i < n; i++) {
		if (!kmem_cache_alloc_bulk(bench_cache, GFP_KERNEL, BULK, objs))
			break;
		kmem_cache_free_bulk(bench_cache, BULK, objs);
	}
	w->pairs = i * BULK;
}

/*
 * alloc_pages_bulk() of 16 pages, each freed with __free_page(): vmalloc's
 * way of getting its pages (5.13-).
 */
static void run_pagesbulk16(struct worker *w)
{
#ifdef kmp_pages_bulk_array
	unsigned int i, j, n = iters / (4 * BULK);
	struct page *pages[BULK];

	for (i = 0; i < n; i++) {
		memset(pages, 0, sizeof(pages));
		if (kmp_pages_bulk_array(GFP_KERNEL, BULK, pages) != BULK)
			break;
		for (j = 0; j < BULK; j++)
			__free_page(pages[j]);
	}
	w->pairs = i * BULK;
#endif
}

/*
 * A kfree_rcu() storm: kmalloc(64) and kfree_rcu() per pair. The wait for
 * the batches at the end (kvfree_rcu_barrier(), 6.12) is not counted: it
 * is grace periods, idle time that would swamp the rest. The batches' own
 * free is kfree_bulk(), whose cost per object bulk16's free side shows.
 */
struct bench_rcu_obj {
	struct rcu_head rcu;
	char data[64 - sizeof(struct rcu_head)];
};

static void run_kfree_rcu(struct worker *w)
{
	struct bench_rcu_obj *o;
	unsigned int i;
	u64 t0;

	for (i = 0; i < iters; i++) {
		o = one_site(sizeof(*o));
		if (!o)
			break;
		kfree_rcu(o, rcu);
	}
	w->pairs = i;
	t0 = local_clock();
	rcu_barrier();
#if KMP_HAVE_KVFREE_RCU_BARRIER
	kvfree_rcu_barrier();
#endif
	w->untimed_ns = local_clock() - t0;
}

/* Hold 100k objects per CPU at once, then free them: a full live table. */
static void run_leaky(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < LEAKY_N; i++)
		w->held[i] = one_site(64);
	for (i = 0; i < LEAKY_N; i++)
		kfree(w->held[i]);
	w->pairs = LEAKY_N;
}

/*
 * Cross-CPU: even workers allocate into a ring, odd workers free from
 * their partner's ring. Both are timed; the pair is one alloc + one free.
 */
static void run_xcpu(struct worker *w)
{
	struct worker *r = w->ring ? w : w->peer;
	bool producer = w->ring;
	unsigned int i;

	for (i = 0; i < iters; i++) {
		if (producer) {
			while (atomic_read(&r->head) - atomic_read_acquire(&r->tail) >= RING)
				cpu_relax();
			r->ring[i % RING] = one_site(128);
			atomic_set_release(&r->head, i + 1);
		} else {
			while (atomic_read_acquire(&r->head) <= i)
				cpu_relax();
			kfree(r->ring[i % RING]);
			atomic_set_release(&r->tail, i + 1);
		}
	}
	w->pairs = iters;
}

/*
 * Calibration: what the building blocks of a probe cost in this guest,
 * per iteration, to read the other numbers against.
 */
static DEFINE_PER_CPU(u64, calib_ctr);
static DEFINE_RAW_SPINLOCK(calib_lock);

static void run_calib_irq(struct worker *w)
{
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < iters; i++) {
		local_irq_save(flags);
		local_irq_restore(flags);
	}
	w->pairs = iters;
}

static void run_calib_percpu(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < iters; i++)
		this_cpu_inc(calib_ctr);
	w->pairs = iters;
}

static void run_calib_lock(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < iters; i++) {
		raw_spin_lock(&calib_lock);
		raw_spin_unlock(&calib_lock);
	}
	w->pairs = iters;
}

static void run_calib_clock(struct worker *w)
{
	unsigned int i;
	u64 sum = 0;

	for (i = 0; i < iters; i++)
		sum += local_clock();
	WRITE_ONCE(site_hits[0], sum);
	w->pairs = iters;
}

static void run_calib_stack(struct worker *w, unsigned int depth)
{
	unsigned long e[16];
	unsigned int i;

	for (i = 0; i < iters; i++)
		stack_trace_save(e, depth, 0);
	w->pairs = iters;
}

static void run_calib_stack6(struct worker *w)
{
	run_calib_stack(w, 6);
}

static void run_calib_stack12(struct worker *w)
{
	run_calib_stack(w, 12);
}

/*
 * The floor of any tracepoint profiler: the kmem events with an empty
 * probe attached, and no other. What the tracepoint itself costs the
 * allocator (the call site's branch and arguments, __traceiter_*()'s loop,
 * the call into a module and back), to read kmemprof's figures against.
 */
static void notrace empty_kmalloc(KMP_KMALLOC_PROTO)
{
}

static void notrace empty_kfree(KMP_KFREE_PROTO)
{
}

static void notrace empty_page_alloc(KMP_PAGE_ALLOC_PROTO)
{
}

static void notrace empty_page_free(KMP_PAGE_FREE_PROTO)
{
}

struct empty_probe {
	const char *name;
	void *fn;
	struct tracepoint *tp;
};

static struct empty_probe empty_probes[] = {
	{ "kmalloc", empty_kmalloc },
	{ "kfree", empty_kfree },
	{ "mm_page_alloc", empty_page_alloc },
	{ "mm_page_free", empty_page_free },
};

static void find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(empty_probes); i++)
		if (!strcmp(tp->name, empty_probes[i].name))
			empty_probes[i].tp = tp;
}

/* Attach (@on) or detach the empty probes @first and @first + 1, untimed. */
static int empty_probes_set(struct worker *w, unsigned int first, bool on)
{
	u64 t0 = local_clock();
	unsigned int i;
	int ret = 0;

	for_each_kernel_tracepoint(find_tp, NULL);
	for (i = first; i < first + 2 && !ret; i++) {
		struct empty_probe *p = &empty_probes[i];

		if (!p->tp)
			ret = -ENOENT;
		else if (on)
			ret = tracepoint_probe_register(p->tp, p->fn, NULL);
		else
			tracepoint_probe_unregister(p->tp, p->fn, NULL);
	}
	if (on && ret) {
		pr_err("empty probe on %s: %d\n", empty_probes[i - 1].name, ret);
		while (--i > first)
			tracepoint_probe_unregister(empty_probes[i - 1].tp,
						    empty_probes[i - 1].fn, NULL);
	}
	if (!on)
		tracepoint_synchronize_unregister();
	w->untimed_ns += local_clock() - t0;
	return ret;
}

static void run_calib_tp_kmalloc32(struct worker *w)
{
	if (empty_probes_set(w, 0, true))
		return;
	run_kmalloc(w, 32);
	empty_probes_set(w, 0, false);
}

static void run_calib_tp_pages0(struct worker *w)
{
	if (empty_probes_set(w, 2, true))
		return;
	run_pages0(w);
	empty_probes_set(w, 2, false);
}

static void run_calib_loop(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < iters; i++)
		WRITE_ONCE(site_hits[1], i);
	w->pairs = iters;
}

static const struct workload all_workloads[] = {
	{ "calib_loop", run_calib_loop },
	{ "calib_irq", run_calib_irq },
	{ "calib_percpu", run_calib_percpu },
	{ "calib_lock", run_calib_lock },
	{ "calib_clock", run_calib_clock },
	{ "calib_stack6", run_calib_stack6 },
	{ "calib_stack12", run_calib_stack12 },
	{ "calib_tp_kmalloc32", run_calib_tp_kmalloc32 },
	{ "calib_tp_pages0", run_calib_tp_pages0 },
	{ "kmalloc32", run_kmalloc32 },
	{ "kmalloc256", run_kmalloc256 },
	{ "kmalloc2048", run_kmalloc2048 },
	{ "sites1000", run_sites1000 },
	{ "kmem_cache", run_cache },
	{ "pages0", run_pages0 },
	{ "pages2", run_pages2 },
	{ "bulk16", run_bulk16 },
	{ "kfree_rcu", run_kfree_rcu },
	{ "pagesbulk16", run_pagesbulk16 },
	{ "leaky100k", run_leaky, false, true },
	{ "xcpu", run_xcpu, true },
};

static int worker_fn(void *data)
{
	struct worker *w = data;
	u64 t0;

	wait_for_completion(w->go);
	t0 = local_clock();
	w->wl->run(w);
	w->ns = local_clock() - t0 - w->untimed_ns;
	complete(&w->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* One timed run on @n CPUs: the mean ns per pair, in hundredths. */
static int run_once(const struct workload *wl, unsigned int n, u64 *cns)
{
	struct completion go;
	struct worker *w;
	unsigned int i, cpu, started = 0;
	u64 sum = 0;
	int ret = 0;

	w = kcalloc(n, sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	init_completion(&go);
	i = 0;
	for_each_online_cpu(cpu) {
		if (i == n)
			break;
		w[i].wl = wl;
		w[i].go = &go;
		init_completion(&w[i].done);
		if (wl->holds) {
			w[i].held = vmalloc(array_size(LEAKY_N, sizeof(void *)));
			if (!w[i].held)
				ret = -ENOMEM;
		}
		if (wl->pairs_of_cpus && !(i & 1)) {
			w[i].ring = kcalloc(RING, sizeof(void *), GFP_KERNEL);
			if (!w[i].ring)
				ret = -ENOMEM;
		}
		if (wl->pairs_of_cpus && (i & 1))
			w[i].peer = &w[i - 1];
		w[i].task = kthread_create(worker_fn, &w[i], "kmp_bench/%u",
					   cpu);
		if (IS_ERR(w[i].task)) {
			ret = PTR_ERR(w[i].task);
			break;
		}
		kthread_bind(w[i].task, cpu);
		wake_up_process(w[i].task);
		started++;
		i++;
	}
	if (!ret)
		complete_all(&go);
	for (i = 0; i < started; i++) {
		if (!ret)
			wait_for_completion(&w[i].done);
		else
			complete_all(&go);
	}
	for (i = 0; i < started; i++) {
		kthread_stop(w[i].task);
		if (!ret && w[i].pairs)
			sum += div_u64(w[i].ns * 100, w[i].pairs);
	}
	for (i = 0; i < n; i++) {
		vfree(w[i].held);
		kfree(w[i].ring);
	}
	kfree(w);
	*cns = started ? div_u64(sum, started) : 0;
	return ret;
}

static bool wanted(const char *name)
{
	const char *p = workloads;
	size_t len = strlen(name);

	if (!strcmp(workloads, "all"))
		return true;
	while ((p = strstr(p, name))) {
		if ((p == workloads || p[-1] == ',') &&
		    (p[len] == ',' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

/* A value from kmemprof's stats view, or -1. */
static long long bench_stat(const char *key, char *buf, size_t size)
{
	struct file *f = filp_open("/sys/kernel/debug/kmemprof/stats",
				   O_RDONLY, 0);
	char *rest = buf, *line, *val;
	long long v = -1;
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return -1;
	n = kernel_read(f, buf, size - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	while ((line = strsep(&rest, "\n"))) {
		val = strchr(line, ' ');
		if (!val)
			continue;
		*val++ = '\0';
		if (!strcmp(line, key) && !kstrtoll(val, 10, &v))
			break;
	}
	return v;
}

/*
 * /proc/kmemprof with 10000 stack-keyed tags: the bench makes them (when
 * kmemprof runs with key_depth=2) and times a full read of the file.
 * kmemprof names new tags in the background; the reads start once it has
 * (as any read a moment after the tags appeared would), and the time the
 * naming took is reported on its own.
 */
static void bench_proc_read(void)
{
	unsigned int i, r;
	u64 t[MAX_REPS];
	struct file *f;
	loff_t pos;
	char *buf;
	ssize_t n;

	for (i = 0; i < NCALLERS; i++)
		callers[i]();
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return;
	for (i = 0; i < 200 && bench_stat("tags.unnamed", buf, PAGE_SIZE); i++)
		msleep(50);
	pr_info("RESULT %s procread10k-naming 1 %lld.00\n", label,
		bench_stat("tags.naming_ns", buf, PAGE_SIZE));
	/* The first read names the tags; the median of the rest is kept. */
	reps = max(reps, 2U);
	for (r = 0; r < reps; r++) {
		f = filp_open("/proc/kmemprof", O_RDONLY, 0);
		if (IS_ERR(f)) {
			kfree(buf);
			return;
		}
		pos = 0;
		t[r] = local_clock();
		do {
			n = kernel_read(f, buf, PAGE_SIZE, &pos);
		} while (n > 0);
		t[r] = local_clock() - t[r];
		filp_close(f, NULL);
	}
	kfree(buf);
	pr_info("RESULT %s procread10k-first 1 %llu.00\n", label, t[0]);
	sort(t + 1, reps - 1, sizeof(*t), cmp_u64, NULL);
	pr_info("RESULT %s procread10k 1 %llu.00\n", label, t[1 + (reps - 1) / 2]);
}

/* The guest ns a whole read of /proc/kmemprof takes; 0 if there is none. */
static u64 name10k_read(char *buf)
{
	struct file *f = filp_open("/proc/kmemprof", O_RDONLY, 0);
	loff_t pos = 0;
	ssize_t n;
	u64 t;

	if (IS_ERR(f))
		return 0;
	t = local_clock();
	do {
		n = kernel_read(f, buf, PAGE_SIZE, &pos);
	} while (n > 0);
	t = local_clock() - t;
	filp_close(f, NULL);
	return t;
}

/*
 * name10k: one allocation in each of NNAMES functions, each a call site
 * kmemprof has not seen (name10k-alloc: the whole loop, the first event
 * of each site included), then two reads of /proc/kmemprof at once, not
 * waiting for the background naming: the first names what the background
 * has not reached, the second only formats.
 */
static void bench_name10k(void)
{
	unsigned int i;
	u64 first, again, alloc;
	char *buf;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return;
	alloc = local_clock();
	for (i = 0; i < NNAMES; i++)
		kfree(names[i](32));
	alloc = local_clock() - alloc;
	pr_info("RESULT %s name10k-alloc 1 %llu.00\n", label, alloc);
	first = name10k_read(buf);
	again = name10k_read(buf);
	kfree(buf);
	if (!first)
		return;
	pr_info("RESULT %s name10k-first 1 %llu.00\n", label, first);
	pr_info("RESULT %s name10k 1 %llu.00\n", label, again);
}

static int __init bench_init(void)
{
	unsigned int i, r;
	u64 cns[MAX_REPS];
	int ret;

	reps = clamp(reps, 1U, (unsigned int)MAX_REPS);
	cpus = clamp(cpus, 1U, num_online_cpus());
	bench_cache = kmem_cache_create("kmemprof_bench", 192, 0, 0, NULL);
	if (!bench_cache)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(all_workloads); i++) {
		const struct workload *wl = &all_workloads[i];

		if (!wanted(wl->name) || (wl->pairs_of_cpus && cpus < 2))
			continue;
		for (r = 0; r < reps; r++) {
			ret = run_once(wl, wl->pairs_of_cpus ? cpus & ~1U : cpus,
				       &cns[r]);
			if (ret) {
				pr_err("%s: %d\n", wl->name, ret);
				goto out;
			}
		}
		sort(cns, reps, sizeof(*cns), cmp_u64, NULL);
		pr_info("RESULT %s %s %u %llu.%02llu\n", label, wl->name,
			wl->pairs_of_cpus ? cpus & ~1U : cpus,
			cns[reps / 2] / 100, cns[reps / 2] % 100);
	}
	if (wanted("procread10k"))
		bench_proc_read();
	if (wanted("name10k"))
		bench_name10k();
	ret = 0;
out:
	kmem_cache_destroy(bench_cache);
	return ret;
}

static void __exit bench_exit(void)
{
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Allocation loops timed for kmemprof's benchmark");
