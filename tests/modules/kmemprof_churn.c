// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof_churn: allocations that are freed at once, from known call
 * sites, without a pause, for as long as the module is loaded: a slab
 * object from churn_kmalloc(), an object of a private cache from
 * churn_cache_alloc(), a page from churn_page() and a percpu area from
 * churn_percpu(). Each site then never has more than one object live,
 * and none once the module is gone: 83-attach loads kmemprof while this
 * runs, and checks that kmemprof saw every free of what it saw allocated.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>

static struct task_struct *churn_task;
static struct kmem_cache *churn_cache;
static unsigned long churn_rounds;

static noinline void *churn_kmalloc(void)
{
	return kmalloc(96, GFP_KERNEL);
}

static noinline void *churn_cache_alloc(void)
{
	return kmem_cache_alloc(churn_cache, GFP_KERNEL);
}

static noinline struct page *churn_page(void)
{
	return alloc_page(GFP_KERNEL);
}

static noinline void __percpu *churn_percpu(void)
{
	return __alloc_percpu(16, 8);
}

static int churn_thread(void *unused)
{
	while (!kthread_should_stop()) {
		struct page *page = churn_page();

		kfree(churn_kmalloc());
		kmem_cache_free(churn_cache, churn_cache_alloc());
		if (page)
			__free_page(page);
		/* percpu areas take pcpu_alloc_mutex: one in 8 rounds */
		if (!(churn_rounds & 7))
			free_percpu(churn_percpu());
		churn_rounds++;
		cond_resched();
	}
	return 0;
}

static int __init churn_init(void)
{
	churn_cache = kmem_cache_create("kmemprof_churn", 72, 0, 0, NULL);
	if (!churn_cache)
		return -ENOMEM;
	churn_task = kthread_run(churn_thread, NULL, "kmp_churn");
	if (IS_ERR(churn_task)) {
		kmem_cache_destroy(churn_cache);
		return PTR_ERR(churn_task);
	}
	return 0;
}

static void __exit churn_exit(void)
{
	kthread_stop(churn_task);
	kmem_cache_destroy(churn_cache);
	pr_info("%lu rounds\n", churn_rounds);
}

module_init(churn_init);
module_exit(churn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Allocations freed at once, for kmemprof's attach test");
