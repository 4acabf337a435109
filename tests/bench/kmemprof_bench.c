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
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

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
#define NSITES		1000
#define NCALLERS	10
#define LEAKY_N		100000
#define RING		256

/*
 * 1000 distinct call sites, site_100() to site_1099(): each writes its own
 * counter, so that no two are the same code for the compiler to fold.
 */
static unsigned long site_hits[NSITES];

#define SITE(n)								\
static noinline void *site_##n(size_t size)				\
{									\
	WRITE_ONCE(site_hits[n - 100], site_hits[n - 100] + 1);		\
	return kmalloc(size, GFP_KERNEL);				\
}
#define SITES10(p)							\
	SITE(p##0) SITE(p##1) SITE(p##2) SITE(p##3) SITE(p##4)		\
	SITE(p##5) SITE(p##6) SITE(p##7) SITE(p##8) SITE(p##9)
#define SITES100(p)							\
	SITES10(p##0) SITES10(p##1) SITES10(p##2) SITES10(p##3)		\
	SITES10(p##4) SITES10(p##5) SITES10(p##6) SITES10(p##7)		\
	SITES10(p##8) SITES10(p##9)
#define SITE_(n)	site_##n,
#define SITES10_(p)							\
	SITE_(p##0) SITE_(p##1) SITE_(p##2) SITE_(p##3) SITE_(p##4)	\
	SITE_(p##5) SITE_(p##6) SITE_(p##7) SITE_(p##8) SITE_(p##9)
#define SITES100_(p)							\
	SITES10_(p##0) SITES10_(p##1) SITES10_(p##2) SITES10_(p##3)	\
	SITES10_(p##4) SITES10_(p##5) SITES10_(p##6) SITES10_(p##7)	\
	SITES10_(p##8) SITES10_(p##9)

/* Numbers with leading digits 1..9 keep the token pasting octal-free. */
SITES100(1) SITES100(2) SITES100(3) SITES100(4) SITES100(5)
SITES100(6) SITES100(7) SITES100(8) SITES100(9) SITES100(10)

static void *(* const sites[NSITES])(size_t) = {
	SITES100_(1) SITES100_(2) SITES100_(3) SITES100_(4) SITES100_(5)
	SITES100_(6) SITES100_(7) SITES100_(8) SITES100_(9) SITES100_(10)
};

/* Ten callers of all 1000 sites: with key_depth=1, 10000 tags. */
#define CALLER(n)							\
static noinline void caller_##n(void)					\
{									\
	unsigned int i;							\
									\
	for (i = 0; i < NSITES; i++)					\
		kfree(sites[i](32 + n));				\
}
CALLER(0) CALLER(1) CALLER(2) CALLER(3) CALLER(4)
CALLER(5) CALLER(6) CALLER(7) CALLER(8) CALLER(9)

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

static void run_sites1000(struct worker *w)
{
	unsigned int i;

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

static const struct workload all_workloads[] = {
	{ "kmalloc32", run_kmalloc32 },
	{ "kmalloc256", run_kmalloc256 },
	{ "kmalloc2048", run_kmalloc2048 },
	{ "sites1000", run_sites1000 },
	{ "kmem_cache", run_cache },
	{ "pages0", run_pages0 },
	{ "pages2", run_pages2 },
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
	w->ns = local_clock() - t0;
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

/*
 * /proc/kmemprof with 10000 stack-keyed tags: the bench makes them (when
 * kmemprof runs with key_depth=1) and times a full read of the file.
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
	sort(t, reps, sizeof(*t), cmp_u64, NULL);
	pr_info("RESULT %s procread10k 1 %llu.00\n", label, t[reps / 2]);
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
