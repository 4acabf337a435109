// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof_stress: an allocation storm for the reliability suite. For
 * @seconds, from every online CPU at once:
 *
 * - a kthread allocates slab objects of random sizes, objects of a private
 *   cache and page blocks, holds a few, frees some itself and hands others
 *   to whichever CPU picks them up next (cross-CPU frees); it also
 *   allocates and frees in bulk, with GFP_KERNEL, so that calls sleep in
 *   kmemprof's hooks while the knobs are toggled and the tables reset;
 * - a timer (softirq) allocates and frees with GFP_ATOMIC, and queues an
 *   irq_work (hardirq) that does the same.
 *
 * insmod returns when the storm is over and everything is freed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/llist.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/timer.h>

#include <kmemprof/compat.h>

static unsigned int seconds = 10;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "How long the storm lasts");

#define HELD	64
#define BULK	16

/* An object handed to another CPU to free. */
struct handoff {
	struct llist_node node;
	struct page *page;	/* or NULL: the node is a kmalloc'd object */
	unsigned int order;
};

struct storm_cpu {
	struct timer_list timer;
	struct irq_work work;
	struct task_struct *task;
	struct completion done;
	struct rnd_state rnd;
	int cpu;
};

static struct kmem_cache *storm_cache;
static LLIST_HEAD(handoffs);
static unsigned long deadline;
static atomic64_t events = ATOMIC64_INIT(0);
static bool stopping;
static DEFINE_PER_CPU(struct storm_cpu, storm);

static void atomic_churn(void)
{
	struct page *p = alloc_page(GFP_ATOMIC | __GFP_NOWARN);

	kfree(kmalloc(kmp_random_below(512) + 1, GFP_ATOMIC | __GFP_NOWARN));
	if (p)
		__free_page(p);
	atomic64_add(4, &events);
}

static void storm_irq_work(struct irq_work *w)
{
	atomic_churn();
}

static void storm_timer(struct timer_list *t)
{
	struct storm_cpu *s = kmp_timer_container_of(s, t, timer);

	atomic_churn();
	irq_work_queue(&s->work);
	if (!READ_ONCE(stopping))
		mod_timer(&s->timer, jiffies + 1);
}

static void hand_off(void *obj, struct page *page, unsigned int order)
{
	struct handoff *h = page ? kmalloc(sizeof(*h), GFP_KERNEL) : obj;

	if (!h) {
		__free_pages(page, order);
		return;
	}
	h->page = page;
	h->order = order;
	llist_add(&h->node, &handoffs);
}

static void free_handoffs(void)
{
	struct llist_node *list = llist_del_all(&handoffs);
	struct handoff *h, *next;

	llist_for_each_entry_safe(h, next, list, node) {
		if (h->page)
			__free_pages(h->page, h->order);
		kfree(h);
		atomic64_inc(&events);
	}
}

static int storm_thread(void *data)
{
	struct storm_cpu *s = data;
	void *held[HELD] = { }, *bulk[BULK];
	unsigned int i, r, order;
	struct page *page;

	while (time_before(jiffies, deadline)) {
		i = prandom_u32_state(&s->rnd) % HELD;
		r = prandom_u32_state(&s->rnd);
		kfree(held[i]);
		held[i] = kmalloc(r % 8192 + sizeof(struct handoff), GFP_KERNEL);
		if (held[i] && !(r & 7)) {
			hand_off(held[i], NULL, 0);
			held[i] = NULL;
		}
		kmem_cache_free(storm_cache,
				kmem_cache_alloc(storm_cache, GFP_KERNEL));
		if (!(r & 3) && kmem_cache_alloc_bulk(storm_cache, GFP_KERNEL,
						      BULK, bulk))
			kmem_cache_free_bulk(storm_cache, BULK, bulk);
		order = r % 3;
		page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
		if (page && (r & 16))
			hand_off(NULL, page, order);
		else if (page)
			__free_pages(page, order);
		if (!(r & 63))
			free_handoffs();
		atomic64_add(6, &events);
		cond_resched();
	}
	for (i = 0; i < HELD; i++)
		kfree(held[i]);
	complete(&s->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int __init stress_init(void)
{
	int cpu;

	storm_cache = kmem_cache_create("kmemprof_stress", 200, 0, 0, NULL);
	if (!storm_cache)
		return -ENOMEM;
	deadline = jiffies + seconds * HZ;
	for_each_online_cpu(cpu) {
		struct storm_cpu *s = per_cpu_ptr(&storm, cpu);

		s->cpu = cpu;
		prandom_seed_state(&s->rnd, cpu + 1);
		init_completion(&s->done);
		init_irq_work(&s->work, storm_irq_work);
		timer_setup(&s->timer, storm_timer, TIMER_PINNED);
		s->timer.expires = jiffies + 1;
		add_timer_on(&s->timer, cpu);
		s->task = kthread_create(storm_thread, s, "kmp_storm/%d", cpu);
		if (IS_ERR(s->task)) {
			s->task = NULL;
			complete(&s->done);
			continue;
		}
		kthread_bind(s->task, cpu);
		wake_up_process(s->task);
	}
	for_each_online_cpu(cpu)
		wait_for_completion(&per_cpu_ptr(&storm, cpu)->done);
	WRITE_ONCE(stopping, true);
	for_each_online_cpu(cpu) {
		struct storm_cpu *s = per_cpu_ptr(&storm, cpu);

		timer_delete_sync(&s->timer);
		irq_work_sync(&s->work);
		if (s->task)
			kthread_stop(s->task);
	}
	free_handoffs();
	kmem_cache_destroy(storm_cache);
	pr_info("storm over: %u s, %lld allocator calls\n", seconds,
		atomic64_read(&events));
	return 0;
}

static void __exit stress_exit(void)
{
}

module_init(stress_init);
module_exit(stress_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("An allocation storm for kmemprof's reliability suite");
