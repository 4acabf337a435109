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
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <trace/events/kmem.h>

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
		/*
		 * A quiescent state for RCU Tasks too: on a preemptible
		 * kernel cond_resched() is empty and this loop never sleeps,
		 * so without it the synchronize_rcu_tasks() of ftrace's
		 * detach in kmemprof's unload would wait for it for ever
		 * (83-attach's reload on 6.12-debug, rcu_tasks_wait_gp).
		 */
		cond_resched_tasks_rcu_qs();
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

#if defined(CONFIG_JUMP_LABEL) && defined(CONFIG_ARM64)
/*
 * What the kernel's text says of the kfree tracepoint's static key, for
 * 83-attach's diagnosis of a round that saw no kfree event: whether the
 * key is on, and at how many of its sites the instruction is a branch (on)
 * or a NOP (off). The key's own entries only (no module uses it).
 */
static void churn_text(const char *name, struct tracepoint *tp)
{
	struct static_key *key = &tp->key;
	struct jump_entry *e;
	unsigned int b = 0, n = 0, other = 0;

	if (key->type & JUMP_TYPE_LINKED) {
		pr_info("%s: key enabled %d, sites linked\n", name,
			static_key_enabled(key));
		return;
	}
	e = (struct jump_entry *)(key->type & ~JUMP_TYPE_MASK);
	for (; e && jump_entry_key(e) == key; e++) {
		u32 insn = READ_ONCE(*(u32 *)jump_entry_code(e));

		if (insn == 0xd503201f)
			n++;
		else if ((insn & 0xfc000000) == 0x14000000)
			b++;
		else
			other++;
	}
	pr_info("%s: key enabled %d, sites: %u branch, %u nop, %u other\n",
		name, static_key_enabled(key), b, n, other);
}
#else
static void churn_text(const char *name, struct tracepoint *tp)
{
}
#endif

static void __exit churn_exit(void)
{
	kthread_stop(churn_task);
	kmem_cache_destroy(churn_cache);
	churn_text("kfree", &__tracepoint_kfree);
	churn_text("kmem_cache_free", &__tracepoint_kmem_cache_free);
	pr_info("%lu rounds\n", churn_rounds);
}

module_init(churn_init);
module_exit(churn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Allocations freed at once, for kmemprof's attach test");
