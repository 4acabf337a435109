/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof_names_a.ko and kmemprof_names_b.ko, for the guest test
 * 66-names: the same code under two names (KMPNAMES_FN()), so that one
 * loaded where the other was has its functions at the same offsets. While
 * loaded it holds one kmalloc() from each of KMPNAMES_N functions, and
 * frees them at unload.
 */
#include <linux/module.h>
#include <linux/slab.h>

#define KMPNAMES_N	4

static void *kmpnames_held[KMPNAMES_N];

static noinline void *KMPNAMES_FN(0)(void)
{
	return kmalloc(64, GFP_KERNEL);
}

static noinline void *KMPNAMES_FN(1)(void)
{
	return kmalloc(96, GFP_KERNEL);
}

static noinline void *KMPNAMES_FN(2)(void)
{
	return kmalloc(128, GFP_KERNEL);
}

static noinline void *KMPNAMES_FN(3)(void)
{
	return kmalloc(192, GFP_KERNEL);
}

static void *(* const kmpnames_fns[KMPNAMES_N])(void) = {
	KMPNAMES_FN(0), KMPNAMES_FN(1), KMPNAMES_FN(2), KMPNAMES_FN(3),
};

static int __init kmpnames_init(void)
{
	unsigned int i;

	for (i = 0; i < KMPNAMES_N; i++)
		kmpnames_held[i] = kmpnames_fns[i]();
	return 0;
}

static void __exit kmpnames_exit(void)
{
	unsigned int i;

	for (i = 0; i < KMPNAMES_N; i++)
		kfree(kmpnames_held[i]);
}

module_init(kmpnames_init);
module_exit(kmpnames_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Call sites to name, for kmemprof's guest tests");
