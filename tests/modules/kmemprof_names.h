/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof_names_a.ko and kmemprof_names_b.ko, for the guest test
 * 66-names: the same functions under two names (KMPNAMES_FN()), longer in
 * _b (KMPNAMES_WIDE), so that _b loaded where _a was has its call sites
 * where _a has other functions. While loaded it holds one kmalloc() from
 * each of its KMPNAMES_N functions, each of its own size (64, 96, 128 and
 * 192 bytes from KMPNAMES_FN(0) .. (3)), and frees them at unload.
 */
#include <linux/module.h>
#include <linux/slab.h>

#define KMPNAMES_N	4

static void *kmpnames_held[KMPNAMES_N];

/*
 * _b's functions are longer than _a's (KMPNAMES_WIDE): each of _b's call
 * sites is at an offset where _a has another function.
 */
static unsigned long kmpnames_calls;

#ifdef KMPNAMES_WIDE
/* 16 stores of their own: no loop */
#define KMPNAMES_PAD()	do {						\
		WRITE_ONCE(kmpnames_calls, 1);			\
		WRITE_ONCE(kmpnames_calls, 2);			\
		WRITE_ONCE(kmpnames_calls, 3);			\
		WRITE_ONCE(kmpnames_calls, 4);			\
		WRITE_ONCE(kmpnames_calls, 5);			\
		WRITE_ONCE(kmpnames_calls, 6);			\
		WRITE_ONCE(kmpnames_calls, 7);			\
		WRITE_ONCE(kmpnames_calls, 8);			\
		WRITE_ONCE(kmpnames_calls, 9);			\
		WRITE_ONCE(kmpnames_calls, 10);			\
		WRITE_ONCE(kmpnames_calls, 11);			\
		WRITE_ONCE(kmpnames_calls, 12);			\
		WRITE_ONCE(kmpnames_calls, 13);			\
		WRITE_ONCE(kmpnames_calls, 14);			\
		WRITE_ONCE(kmpnames_calls, 15);			\
		WRITE_ONCE(kmpnames_calls, 16);			\
	} while (0)
#else
#define KMPNAMES_PAD()	WRITE_ONCE(kmpnames_calls, kmpnames_calls + 1)
#endif

static noinline void *KMPNAMES_FN(0)(void)
{
	KMPNAMES_PAD();
	return kmalloc(64, GFP_KERNEL);
}

static noinline void *KMPNAMES_FN(1)(void)
{
	KMPNAMES_PAD();
	return kmalloc(96, GFP_KERNEL);
}

static noinline void *KMPNAMES_FN(2)(void)
{
	KMPNAMES_PAD();
	return kmalloc(128, GFP_KERNEL);
}

static noinline void *KMPNAMES_FN(3)(void)
{
	KMPNAMES_PAD();
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
