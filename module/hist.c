// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: size and lifetime histograms, cross-CPU and cross-cluster
 * frees, per tag and per CPU.
 *
 * Buckets are log2:
 * - sizes: bucket 0 holds <= 8 bytes, bucket b holds (2^(b+2), 2^(b+3)]
 *   bytes, and the last one everything over 2 MiB. Page tags use the
 *   order as the bucket.
 * - lifetimes, in units of 1024 ns (about a microsecond): bucket 0 holds
 *   < 1 unit, bucket b holds [2^(b-1), 2^b) units, and the last one
 *   everything from 2^34 units (about 4.9 hours) on.
 *
 * Per-tag histograms come from a pool of max_hist slots allocated at load,
 * handed out as tags are created; a tag created after the pool ran out has
 * none, and drop.hist counts it. Each slot is per CPU, in u32 counters:
 * a counter that reaches 2^30 is folded into the slot's shared u64
 * (atomic64) counter, so per-CPU memory stays small and no count is lost.
 *
 * Notes on locking: none. Per-CPU counters change with this_cpu_*() only;
 * the fold is atomic. A counter read while it is being folded may be off
 * by the folded amount for that instant, never for good. Reading sums each
 * CPU's counter as s32, so a fold that lands on another CPU after a
 * migration (7.x probes are preemptible) still sums right.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/arch_topology.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>

#include <kmemprof/kmemprof.h>

#define KMP_HIST_BLOCK	64
#define KMP_FOLD	BIT(30)
#define KMP_LIFE_SHIFT	10

struct kmp_hist {
	u32 size[KMP_SIZE_BUCKETS];
	u32 req[KMP_SIZE_BUCKETS];
	u32 life[KMP_LIFE_BUCKETS];
	u32 xcpu;
	u32 xcluster;
};

#define KMP_HIST_N	(sizeof(struct kmp_hist) / sizeof(u32))

static_assert(sizeof(struct kmp_hist_totals) == KMP_HIST_N * sizeof(u64));

unsigned int kmp_max_hist = 2048;

static struct kmp_hist __percpu **kmp_hist_blocks;
static unsigned int kmp_hist_nblocks;
static atomic64_t *kmp_hist_fold;	/* max_hist * KMP_HIST_N */
static atomic_t kmp_nhist = ATOMIC_INIT(0);

/* The global histograms, per kind, and the per-CPU breakdown. */
static DEFINE_PER_CPU(struct kmp_hist_totals [KMP_KIND_NR], kmp_hist_all);
static DEFINE_PER_CPU(struct kmp_cpu_totals, kmp_cpu_all);

/* Cluster of each possible CPU, found at load; see kmp_clusters_init(). */
static DEFINE_PER_CPU_READ_MOSTLY(int, kmp_cluster);

static kmp_clock_t *kmp_clock;

u64 kmp_now(void)
{
	kmp_clock_t *clock = READ_ONCE(kmp_clock);

	return unlikely(clock) ? clock() : local_clock();
}

/* For the KUnit suites: lifetimes by a clock of their own; NULL resets. */
void kmemprof_set_clock(kmp_clock_t *clock)
{
	WRITE_ONCE(kmp_clock, clock);
}
EXPORT_SYMBOL_GPL(kmemprof_set_clock);

unsigned int kmp_size_bucket(enum kmp_kind kind, size_t bytes)
{
	unsigned int b;

	if (kind == KMP_KIND_PAGE) {
		b = bytes > PAGE_SIZE ? order_base_2(bytes >> PAGE_SHIFT) : 0;
		return min_t(unsigned int, b, KMP_SIZE_BUCKETS - 1);
	}
	if (bytes <= 8)
		return 0;
	b = order_base_2(bytes) - 3;
	return min_t(unsigned int, b, KMP_SIZE_BUCKETS - 1);
}

unsigned int kmp_life_bucket(u64 ns)
{
	return min_t(unsigned int, fls64(ns >> KMP_LIFE_SHIFT),
		     KMP_LIFE_BUCKETS - 1);
}

int kmp_cpu_cluster(int cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids ? per_cpu(kmp_cluster, cpu) : -1;
}

/* For the KUnit suites. */
int kmemprof_cpu_cluster(int cpu)
{
	return kmp_cpu_cluster(cpu);
}
EXPORT_SYMBOL_GPL(kmemprof_cpu_cluster);

static struct kmp_hist __percpu *kmp_hist_slot(u32 slot)
{
	return kmp_hist_blocks[slot / KMP_HIST_BLOCK] + slot % KMP_HIST_BLOCK;
}

u32 kmp_hist_reserve(void)
{
	int old = atomic_read(&kmp_nhist);

	do {
		if (old >= kmp_max_hist) {
			kmp_stat_inc(KMP_ST_DROP_HIST);
			return KMP_NIL;
		}
	} while (!atomic_try_cmpxchg(&kmp_nhist, &old, old + 1));
	return old;
}

u32 kmp_hist_used(void)
{
	return min_t(u32, atomic_read(&kmp_nhist), kmp_max_hist);
}

/* Add @d to field @f (a u32 index into struct kmp_hist) of @slot. */
static void kmp_hist_add(u32 slot, unsigned int f, int d)
{
	u32 __percpu *c = (u32 __percpu *)kmp_hist_slot(slot) + f;
	u32 v = this_cpu_add_return(*c, d);

	if (unlikely(v >= KMP_FOLD && v < 2 * KMP_FOLD)) {
		this_cpu_sub(*c, v);
		atomic64_add(v, &kmp_hist_fold[slot * KMP_HIST_N + f]);
	}
}

#define KMP_F(member)	(offsetof(struct kmp_hist, member) / sizeof(u32))

/* Count an allocation (@d = 1), or take one back (@d = -1). */
void kmp_hist_alloc(const struct kmp_tag *tag, size_t bytes, size_t req,
		    int d)
{
	unsigned int sb = kmp_size_bucket(tag->kind, bytes);
	unsigned int rb = kmp_size_bucket(tag->kind, req);

	if (tag->hist != KMP_NIL) {
		kmp_hist_add(tag->hist, KMP_F(size) + sb, d);
		kmp_hist_add(tag->hist, KMP_F(req) + rb, d);
	}
	this_cpu_add(kmp_hist_all[tag->kind].size[sb], d);
	this_cpu_add(kmp_hist_all[tag->kind].req[rb], d);
	this_cpu_add(kmp_cpu_all.allocs, d);
}

void kmp_hist_free(const struct kmp_tag *tag, const struct kmp_obj *obj,
		   u64 now)
{
	unsigned int lb = kmp_life_bucket(now > obj->time ? now - obj->time : 0);
	int cpu = raw_smp_processor_id();
	bool xcpu = cpu != obj->cpu;
	bool xcluster = xcpu && kmp_cpu_cluster(cpu) != kmp_cpu_cluster(obj->cpu);

	if (tag->hist != KMP_NIL) {
		kmp_hist_add(tag->hist, KMP_F(life) + lb, 1);
		if (xcpu)
			kmp_hist_add(tag->hist, KMP_F(xcpu), 1);
		if (xcluster)
			kmp_hist_add(tag->hist, KMP_F(xcluster), 1);
	}
	this_cpu_inc(kmp_hist_all[tag->kind].life[lb]);
	this_cpu_inc(kmp_cpu_all.frees);
	if (xcpu) {
		this_cpu_inc(kmp_hist_all[tag->kind].xcpu);
		this_cpu_inc(kmp_cpu_all.remote);
	}
	if (xcluster) {
		this_cpu_inc(kmp_hist_all[tag->kind].xcluster);
		this_cpu_inc(kmp_cpu_all.xcluster);
	}
}

/* A tag's histograms into @t; false if the tag has none. */
bool kmp_hist_tag(const struct kmp_tag *tag, struct kmp_hist_totals *t)
{
	u64 *out = (u64 *)t;
	unsigned int f;
	int cpu;

	if (tag->hist == KMP_NIL)
		return false;
	for (f = 0; f < KMP_HIST_N; f++) {
		s64 sum = atomic64_read(&kmp_hist_fold[tag->hist * KMP_HIST_N + f]);

		for_each_possible_cpu(cpu) {
			const u32 *c = (const u32 *)per_cpu_ptr(kmp_hist_slot(tag->hist),
								cpu);

			sum += (s32)READ_ONCE(c[f]);
		}
		out[f] = sum > 0 ? sum : 0;
	}
	return true;
}

void kmp_hist_global(enum kmp_kind kind, struct kmp_hist_totals *t)
{
	u64 *out = (u64 *)t;
	unsigned int f;
	int cpu;

	memset(t, 0, sizeof(*t));
	for_each_possible_cpu(cpu) {
		const u64 *c = (const u64 *)&per_cpu_ptr(kmp_hist_all, cpu)[kind];

		for (f = 0; f < KMP_HIST_N; f++)
			out[f] += READ_ONCE(c[f]);
	}
}

void kmp_cpu_totals(int cpu, struct kmp_cpu_totals *t)
{
	const struct kmp_cpu_totals *c = per_cpu_ptr(&kmp_cpu_all, cpu);

	t->allocs = READ_ONCE(c->allocs);
	t->frees = READ_ONCE(c->frees);
	t->remote = READ_ONCE(c->remote);
	t->xcluster = READ_ONCE(c->xcluster);
}

/* Only with the probes detached. */
void kmp_hist_reset(void)
{
	unsigned int b;
	int cpu;

	for (b = 0; b < kmp_hist_nblocks; b++)
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(kmp_hist_blocks[b], cpu), 0,
			       sizeof(struct kmp_hist) * KMP_HIST_BLOCK);
	memset(kmp_hist_fold, 0,
	       array_size(kmp_max_hist, KMP_HIST_N * sizeof(atomic64_t)));
	for_each_possible_cpu(cpu) {
		memset(per_cpu_ptr(kmp_hist_all, cpu), 0,
		       sizeof(struct kmp_hist_totals) * KMP_KIND_NR);
		memset(per_cpu_ptr(&kmp_cpu_all, cpu), 0,
		       sizeof(struct kmp_cpu_totals));
	}
}

size_t kmp_hist_memory(void)
{
	return (size_t)kmp_hist_nblocks * KMP_HIST_BLOCK *
	       sizeof(struct kmp_hist) * num_possible_cpus() +
	       (size_t)kmp_max_hist * KMP_HIST_N * sizeof(atomic64_t);
}

/*
 * Clusters: on a big.LITTLE system, CPUs of one capacity are one cluster
 * (the Rock 5B+: A55 cores 0-3 and A76 cores 4-7). Where every CPU has the
 * same capacity, the topology's cluster ids, then the package ids.
 */
static long kmp_cluster_key(int cpu, bool by_capacity, bool by_cluster)
{
	if (by_capacity)
		return arch_scale_cpu_capacity(cpu);
	if (by_cluster)
		return topology_cluster_id(cpu);
	return topology_physical_package_id(cpu);
}

static int kmp_clusters_init(void)
{
	long *keys = kcalloc(nr_cpu_ids, sizeof(*keys), GFP_KERNEL);
	unsigned long cap0 = arch_scale_cpu_capacity(0);
	bool by_capacity = false, by_cluster = false;
	int cpu, c, n = 0;

	if (!keys)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		if (arch_scale_cpu_capacity(cpu) != cap0)
			by_capacity = true;
		if (topology_cluster_id(cpu) != topology_cluster_id(0))
			by_cluster = true;
	}
	/* Clusters are numbered 0, 1, ... in the order of their first CPU. */
	for_each_possible_cpu(cpu) {
		long key = kmp_cluster_key(cpu, by_capacity, by_cluster);

		for (c = 0; c < n && keys[c] != key; c++)
			;
		if (c == n)
			keys[n++] = key;
		per_cpu(kmp_cluster, cpu) = c;
	}
	kfree(keys);
	return 0;
}

int kmp_hist_init(void)
{
	unsigned int i;

	if (kmp_clusters_init())
		return -ENOMEM;
	kmp_hist_nblocks = DIV_ROUND_UP(kmp_max_hist, KMP_HIST_BLOCK);
	kmp_hist_blocks = kcalloc(kmp_hist_nblocks, sizeof(*kmp_hist_blocks),
				  GFP_KERNEL);
	kmp_hist_fold = vzalloc(array_size(kmp_max_hist,
					   KMP_HIST_N * sizeof(atomic64_t)));
	if (!kmp_hist_blocks || !kmp_hist_fold)
		goto fail;
	for (i = 0; i < kmp_hist_nblocks; i++) {
		kmp_hist_blocks[i] = __alloc_percpu(sizeof(struct kmp_hist) *
						    KMP_HIST_BLOCK,
						    __alignof__(u32));
		if (!kmp_hist_blocks[i])
			goto fail;
	}
	return 0;
fail:
	kmp_hist_exit();
	return -ENOMEM;
}

void kmp_hist_exit(void)
{
	unsigned int i;

	if (kmp_hist_blocks)
		for (i = 0; i < kmp_hist_nblocks; i++)
			free_percpu(kmp_hist_blocks[i]);
	kfree(kmp_hist_blocks);
	vfree(kmp_hist_fold);
	kmp_hist_blocks = NULL;
	kmp_hist_fold = NULL;
	atomic_set(&kmp_nhist, 0);
}
