// SPDX-License-Identifier: GPL-2.0
/*
 * A module with static per-CPU data, as many drivers have: 4 KiB of it,
 * half of the kernel's module reserve (PERCPU_MODULE_RESERVE, 8 KiB where
 * allocinfo is not built in), from which every module's DEFINE_PER_CPU
 * comes. 67-memory loads it beside kmemprof, which must leave it room.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/percpu.h>

#define KMPPCPU_BYTES	4096

static DEFINE_PER_CPU(u8 [KMPPCPU_BYTES], kmppcpu_data);

static int __init kmppcpu_init(void)
{
	unsigned int sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		u8 *p = per_cpu_ptr(kmppcpu_data, cpu);

		p[0] = 1;
		p[KMPPCPU_BYTES - 1] = 1;
		sum += p[0] + p[KMPPCPU_BYTES - 1];
	}
	pr_info("%u bytes per CPU, %u CPUs\n", KMPPCPU_BYTES, sum / 2);
	return 0;
}

static void __exit kmppcpu_exit(void)
{
}

module_init(kmppcpu_init);
module_exit(kmppcpu_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Static per-CPU data beside kmemprof, for its tests");
