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
 * Histograms are kept only while the hist knob is on (kmp_mode). Per-tag
 * histograms come from a pool of max_hist slots allocated at load, handed
 * out to each tag at its first event with histograms on (cmpxchg on
 * ->hist: a slot lost to a race stays unused); a tag that finds the pool
 * used up has none, and drop.hist counts it. Each slot is per CPU, in u32 counters:
 * a counter that reaches 2^30 is folded into the slot's shared u64
 * (atomic64) counter, so per-CPU memory stays small and no count is lost.
 *
 * Notes on locking: none. Per-CPU counters change with plain adds on this
 * CPU, with interrupts off (see kmp_add()); the fold is atomic. A counter
 * read while it is being folded may be off by the folded amount for that
 * instant, never for good. Readers sum each CPU's counter as s32, since a
 * take-back (d = -1) may briefly leave one below zero.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/arch_topology.h>
#include <linux/atomic.h>
#include <linux/clocksource.h>
#include <linux/math64.h>
#include <linux/cpumask.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>

#define KMP_HIST_BLOCK	64
#define KMP_FOLD	BIT(30)

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

/* Cluster of each CPU id, found at load; see kmp_clusters_init(). */
static int *kmp_cluster;

static kmp_clock_t *kmp_clock;

#if KMP_HAVE_CYCLES
static u64 kmp_epoch;
static u32 kmp_mult, kmp_shift;
#endif

/*
 * Now, in ns since load: the cycle counter scaled by mult/shift where
 * there is one (compat.h), local_clock() elsewhere, or a test's clock.
 */
u64 kmp_now(void)
{
	kmp_clock_t *clock = READ_ONCE(kmp_clock);

	if (unlikely(clock))
		return clock();
#if KMP_HAVE_CYCLES
	if (likely(kmp_mult))
		return mul_u64_u32_shr(kmp_cycles() - kmp_epoch, kmp_mult,
				       kmp_shift);
#endif
	return local_clock();
}

static void kmp_clock_init(void)
{
#if KMP_HAVE_CYCLES
	u32 rate = kmp_cycles_rate();

	if (!rate)
		return;
	/* Scaled without overflow for ten years. */
	clocks_calc_mult_shift(&kmp_mult, &kmp_shift, rate, NSEC_PER_SEC,
			       10 * 365 * 24 * 3600);
	kmp_epoch = kmp_cycles();
#endif
}

/* For the KUnit suites: lifetimes by a clock of their own; NULL resets. */
void kmemprof_set_clock(kmp_clock_t *clock)
{
	WRITE_ONCE(kmp_clock, clock);
}
kmp_export_test_hook(kmemprof_set_clock);

int kmp_cpu_cluster(int cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids ? kmp_cluster[cpu] : -1;
}

/* For the KUnit suites. */
int kmemprof_cpu_cluster(int cpu)
{
	return kmp_cpu_cluster(cpu);
}
kmp_export_test_hook(kmemprof_cpu_cluster);

static struct kmp_hist __percpu *kmp_hist_slot(u32 slot)
{
	return kmp_hist_blocks[slot / KMP_HIST_BLOCK] + slot % KMP_HIST_BLOCK;
}

/* The tag's slot, taken from the pool at its first use; or KMP_NIL. */
static u32 kmp_hist_slot_of(struct kmp_tag *tag)
{
	u32 h = READ_ONCE(tag->hist), old;
	int idx;

	if (likely(h != KMP_HIST_UNSET))
		return h;
	idx = kmp_pool_reserve(&kmp_nhist, kmp_max_hist);
	if (idx < 0)
		kmp_stat_inc(KMP_ST_DROP_HIST);
	h = idx < 0 ? KMP_NIL : idx;
	old = cmpxchg(&tag->hist, KMP_HIST_UNSET, h);
	return old == KMP_HIST_UNSET ? h : old;
}

/* A tag's slot for the readers, or KMP_NIL. */
static u32 kmp_hist_read_slot(const struct kmp_tag *tag)
{
	u32 h = READ_ONCE(tag->hist);

	return h == KMP_HIST_UNSET ? KMP_NIL : h;
}

u32 kmp_hist_used(void)
{
	return min_t(u32, atomic_read(&kmp_nhist), kmp_max_hist);
}

/* Add @d to field @f (a u32 index into struct kmp_hist) of @slot. */
static __always_inline void kmp_hist_add(u32 slot, unsigned int f, int d)
{
	u32 *c = (u32 *)this_cpu_ptr(kmp_hist_slot(slot)) + f;
	u32 v = *c + d;

	if (unlikely(v >= KMP_FOLD && v < 2 * KMP_FOLD)) {
		atomic64_add(v, &kmp_hist_fold[slot * KMP_HIST_N + f]);
		v = 0;
	}
	WRITE_ONCE(*c, v);
}

#define KMP_F(member)	(offsetof(struct kmp_hist, member) / sizeof(u32))

/* Count an allocation (@d = 1), or take one back (@d = -1). */
void kmp_hist_alloc(struct kmp_tag *tag, size_t bytes, size_t req, int d)
{
	u32 h = kmp_hist_slot_of(tag);

	if (h == KMP_NIL)
		return;
	kmp_hist_add(h, KMP_F(size) + kmp_size_bucket(tag->kind, bytes), d);
	kmp_hist_add(h, KMP_F(req) + kmp_size_bucket(tag->kind, req), d);
}

void kmp_hist_free(struct kmp_tag *tag, const struct kmp_obj *obj, u64 now)
{
	int cpu = raw_smp_processor_id();
	u32 h = kmp_hist_slot_of(tag);

	if (h == KMP_NIL)
		return;
	kmp_hist_add(h, KMP_F(life) +
		     kmp_life_bucket(now > obj->time ? now - obj->time : 0), 1);
	if (cpu != obj->cpu) {
		kmp_hist_add(h, KMP_F(xcpu), 1);
		if (kmp_cpu_cluster(cpu) != kmp_cpu_cluster(obj->cpu))
			kmp_hist_add(h, KMP_F(xcluster), 1);
	}
}

/* A tag's histograms into @t; false if the tag has none. */
bool kmp_hist_tag(const struct kmp_tag *tag, struct kmp_hist_totals *t)
{
	u32 h = kmp_hist_read_slot(tag);
	u64 *out = (u64 *)t;
	unsigned int f;
	int cpu;

	if (h == KMP_NIL)
		return false;
	for (f = 0; f < KMP_HIST_N; f++) {
		s64 sum = atomic64_read(&kmp_hist_fold[h * KMP_HIST_N + f]);

		for_each_possible_cpu(cpu) {
			const u32 *c = (const u32 *)per_cpu_ptr(kmp_hist_slot(h),
								cpu);

			sum += (s32)READ_ONCE(c[f]);
		}
		out[f] = sum > 0 ? sum : 0;
	}
	return true;
}

/* The histograms of all the tags of @kind that have them, summed. */
void kmp_hist_global(enum kmp_kind kind, struct kmp_hist_totals *t)
{
	struct kmp_hist_totals *one = kmalloc(sizeof(*one), GFP_KERNEL);
	u64 *out = (u64 *)t, *in = (u64 *)one;
	u32 idx, used = kmp_tags_used();
	unsigned int f;

	memset(t, 0, sizeof(*t));
	if (!one)
		return;
	for (idx = 0; idx < used; idx++) {
		const struct kmp_tag *tag = kmp_tag_at(idx);

		if (!kmp_tag_ready(idx) || tag->kind != kind ||
		    !kmp_hist_tag(tag, one))
			continue;
		for (f = 0; f < KMP_HIST_N; f++)
			out[f] += in[f];
	}
	kfree(one);
}

/*
 * One CPU's share: allocations and frees from every tag's counters, and
 * frees across CPUs and clusters from the tags that have histograms (a
 * count folded at 2^30 keeps no CPU).
 */
void kmp_cpu_totals(int cpu, struct kmp_cpu_totals *t)
{
	u32 idx, used = kmp_tags_used();

	memset(t, 0, sizeof(*t));
	for (idx = 0; idx < used; idx++) {
		const struct kmp_tag *tag = kmp_tag_at(idx);
		const struct kmp_counters *c;
		const struct kmp_hist *h;
		u32 slot;

		if (!kmp_tag_ready(idx))
			continue;
		c = per_cpu_ptr(kmp_tag_counters(idx), cpu);
		t->allocs += READ_ONCE(c->allocs);
		t->frees += READ_ONCE(c->frees);
		slot = kmp_hist_read_slot(tag);
		if (slot == KMP_NIL)
			continue;
		h = per_cpu_ptr(kmp_hist_slot(slot), cpu);
		t->remote += (s32)READ_ONCE(h->xcpu);
		t->xcluster += (s32)READ_ONCE(h->xcluster);
	}
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
		return kmp_cpu_capacity(cpu);
	if (by_cluster)
		return kmp_cluster_id(cpu);
	return topology_physical_package_id(cpu);
}

static int kmp_clusters_init(void)
{
	long *keys = kcalloc(nr_cpu_ids, sizeof(*keys), GFP_KERNEL);
	unsigned long cap0 = kmp_cpu_capacity(0);
	bool by_capacity = false, by_cluster = false;
	int cpu, c, n = 0;

	kmp_cluster = kcalloc(nr_cpu_ids, sizeof(*kmp_cluster), GFP_KERNEL);
	if (!keys || !kmp_cluster) {
		kfree(keys);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		if (kmp_cpu_capacity(cpu) != cap0)
			by_capacity = true;
		if (kmp_cluster_id(cpu) != kmp_cluster_id(0))
			by_cluster = true;
	}
	/* Clusters are numbered 0, 1, ... in the order of their first CPU. */
	for_each_possible_cpu(cpu) {
		long key = kmp_cluster_key(cpu, by_capacity, by_cluster);

		for (c = 0; c < n && keys[c] != key; c++)
			;
		if (c == n)
			keys[n++] = key;
		kmp_cluster[cpu] = c;
	}
	kfree(keys);
	return 0;
}

int kmp_hist_init(void)
{
	unsigned int i;

	kmp_clock_init();
	if (kmp_clusters_init())
		goto fail;
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
	kfree(kmp_cluster);
	kmp_cluster = NULL;
	kmp_hist_blocks = NULL;
	kmp_hist_fold = NULL;
	atomic_set(&kmp_nhist, 0);
}
