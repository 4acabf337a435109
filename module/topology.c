// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the cluster of each CPU, for cross-cluster frees.
 *
 * On a big.LITTLE system, CPUs of one capacity are one cluster (the Rock
 * 5B+: A55 cores 0-3 and A76 cores 4-7). Where every CPU has the same
 * capacity, the topology's cluster ids, then the package ids. Clusters
 * are numbered 0, 1, ... in the order of their first CPU.
 *
 * Notes on locking: none. The map is written once at load, before any
 * probe is attached, and only read after.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/arch_topology.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "internal.h"
#include "topology.h"

int *kmp_cluster;

int kmp_cpu_cluster(int cpu)
{
	return cpu >= 0 && cpu < nr_cpu_ids ? kmp_cluster[cpu] : -1;
}

static long kmp_cluster_key(int cpu, bool by_capacity, bool by_cluster)
{
	if (by_capacity)
		return kmp_cpu_capacity(cpu);
	if (by_cluster)
		return kmp_cluster_id(cpu);
	return topology_physical_package_id(cpu);
}

int kmp_topology_init(void)
{
	long *keys = kcalloc(nr_cpu_ids, sizeof(*keys), GFP_KERNEL);
	unsigned long cap0 = kmp_cpu_capacity(0);
	bool by_capacity = false, by_cluster = false;
	int cpu, c, n = 0;

	kmp_cluster = kcalloc(nr_cpu_ids, sizeof(*kmp_cluster), GFP_KERNEL);
	if (!keys || !kmp_cluster) {
		kfree(keys);
		kfree(kmp_cluster);
		kmp_cluster = NULL;
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		if (kmp_cpu_capacity(cpu) != cap0)
			by_capacity = true;
		if (kmp_cluster_id(cpu) != kmp_cluster_id(0))
			by_cluster = true;
	}
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

void kmp_topology_exit(void)
{
	kfree(kmp_cluster);
	kmp_cluster = NULL;
}
