// SPDX-License-Identifier: GPL-2.0
/*
 * A test load for the guest's shell tests: at load it takes @pages page
 * blocks of @order from one known call site, hog_alloc(), and @objs slab
 * objects of @size bytes from another, hog_kmalloc(), and gives them back
 * at unload. It also keeps one kmalloc() made from its __init code,
 * whose text is freed once the module is live. The tests then look for
 * those sites in /proc/kmemprof.
 *
 * With @nc, it also holds @nc blocks of order 2 and @nc of order 3 that
 * are not compound (__get_free_pages(), no __GFP_COMP), from
 * hog_nc_alloc(); writing 1 to nc_free frees them (free_pages()) while
 * the module stays, so a test can watch those frees alone.
 *
 * With @threads, it starts that many kernel threads that sleep until
 * threads_stop is written 1 (or unload), so that their stacks are there
 * before kmemprof loads and go when a test says; stack_size reads
 * THREAD_SIZE. With @pcpu, it holds that many per-CPU areas of
 * HOG_PCPU_BYTES (alloc_percpu()), so that percpu's dynamic chunks have
 * pages populated for them before kmemprof loads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>

static unsigned int pages = 1024;
module_param(pages, uint, 0444);
MODULE_PARM_DESC(pages, "Page blocks to hold (default: 1024)");

static unsigned int order = 4;
module_param(order, uint, 0444);
MODULE_PARM_DESC(order, "Order of each block (default: 4)");

static unsigned int objs;
module_param(objs, uint, 0444);
MODULE_PARM_DESC(objs, "Slab objects to hold (default: 0)");

static unsigned int size = 128;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "Size of each slab object (default: 128)");

static unsigned int bulk;
module_param(bulk, uint, 0444);
MODULE_PARM_DESC(bulk, "Objects to hold from kmem_cache_alloc_bulk() (default: 0)");

static unsigned int nc;
module_param(nc, uint, 0444);
MODULE_PARM_DESC(nc, "Non-compound blocks of order 2, and of order 3, to hold (default: 0)");

static unsigned int threads;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "Sleeping kernel threads to start (default: 0)");

static unsigned long stack_size = THREAD_SIZE;
module_param(stack_size, ulong, 0444);
MODULE_PARM_DESC(stack_size, "THREAD_SIZE, the size of a kernel stack");

#define HOG_PCPU_BYTES	4096

static unsigned int pcpu;
module_param(pcpu, uint, 0444);
MODULE_PARM_DESC(pcpu, "Per-CPU areas of 4 KiB to hold (default: 0)");

static struct page **hog;
static struct kmem_cache *hog_cache;
static void **hog_bulk_objs;
static bool hog_bulk_held;
static void **hog_objs;
static void *hog_init_obj;

static noinline struct page *hog_alloc(void)
{
	return alloc_pages(GFP_KERNEL, order);
}

/* 2 * @nc blocks: @nc of order 2, then @nc of order 3 */
static unsigned long *hog_nc;
static DEFINE_MUTEX(hog_nc_lock);

static unsigned int hog_nc_order(unsigned int i)
{
	return i < nc ? 2 : 3;
}

static noinline unsigned long hog_nc_alloc(unsigned int order)
{
	return __get_free_pages(GFP_KERNEL, order);
}

static void hog_nc_release(void)
{
	unsigned int i;

	mutex_lock(&hog_nc_lock);
	for (i = 0; hog_nc && i < 2 * nc; i++) {
		if (hog_nc[i])
			free_pages(hog_nc[i], hog_nc_order(i));
		hog_nc[i] = 0;
	}
	mutex_unlock(&hog_nc_lock);
}

static int hog_nc_free_set(const char *val, const struct kernel_param *kp)
{
	bool yes;
	int ret = kstrtobool(val, &yes);

	if (ret)
		return ret;
	if (yes)
		hog_nc_release();
	return 0;
}

static const struct kernel_param_ops hog_nc_free_ops = {
	.set = hog_nc_free_set,
};
module_param_cb(nc_free, &hog_nc_free_ops, NULL, 0200);
MODULE_PARM_DESC(nc_free, "Write 1: free the non-compound blocks now");

static struct task_struct **hog_threads;
static DEFINE_MUTEX(hog_threads_lock);

static int hog_thread(void *unused)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void hog_threads_release(void)
{
	unsigned int i;

	mutex_lock(&hog_threads_lock);
	for (i = 0; hog_threads && i < threads; i++) {
		if (hog_threads[i])
			kthread_stop(hog_threads[i]);
		hog_threads[i] = NULL;
	}
	mutex_unlock(&hog_threads_lock);
}

static int hog_threads_stop_set(const char *val, const struct kernel_param *kp)
{
	bool yes;
	int ret = kstrtobool(val, &yes);

	if (ret)
		return ret;
	if (yes)
		hog_threads_release();
	return 0;
}

static const struct kernel_param_ops hog_threads_stop_ops = {
	.set = hog_threads_stop_set,
};
module_param_cb(threads_stop, &hog_threads_stop_ops, NULL, 0200);
MODULE_PARM_DESC(threads_stop, "Write 1: stop the kernel threads now");

struct hog_pcpu_area {
	u8 b[HOG_PCPU_BYTES];
};

static struct hog_pcpu_area __percpu **hog_pcpu;

static noinline struct hog_pcpu_area __percpu *hog_pcpu_alloc(void)
{
	return alloc_percpu(struct hog_pcpu_area);
}

static noinline void *hog_kmalloc(void)
{
	return kmalloc(size, GFP_KERNEL);
}

static noinline int hog_bulk(void)
{
	return kmem_cache_alloc_bulk(hog_cache, GFP_KERNEL, bulk,
				     hog_bulk_objs) ? 0 : -ENOMEM;
}

static void hog_release(void)
{
	unsigned int i;

	hog_threads_release();
	kfree(hog_threads);
	hog_threads = NULL;
	for (i = 0; hog_pcpu && i < pcpu; i++)
		free_percpu(hog_pcpu[i]);
	kfree(hog_pcpu);
	hog_pcpu = NULL;
	if (hog_bulk_held)
		kmem_cache_free_bulk(hog_cache, bulk, hog_bulk_objs);
	kmem_cache_destroy(hog_cache);
	kfree(hog_bulk_objs);
	hog_nc_release();
	kfree(hog_nc);
	hog_nc = NULL;
	for (i = 0; i < pages; i++)
		if (hog[i])
			__free_pages(hog[i], order);
	for (i = 0; hog_objs && i < objs; i++)
		kfree(hog_objs[i]);
	kfree(hog_objs);
	kfree(hog);
	kfree(hog_init_obj);
}

/* Apart from hog_init(), whose one call of hog_alloc() the tests expect. */
static noinline int hog_take_objs(void)
{
	unsigned int i;

	for (i = 0; i < objs; i++) {
		hog_objs[i] = hog_kmalloc();
		if (!hog_objs[i])
			return -ENOMEM;
	}
	return 0;
}

static int __init hog_init(void)
{
	unsigned int i;

	if (order > 10)
		return -EINVAL;
	hog = kcalloc(pages, sizeof(*hog), GFP_KERNEL);
	hog_objs = kcalloc(objs, sizeof(*hog_objs), GFP_KERNEL);
	hog_init_obj = kmalloc(3000, GFP_KERNEL);
	if (!hog || !hog_init_obj || (objs && !hog_objs)) {
		kfree(hog);
		kfree(hog_objs);
		kfree(hog_init_obj);
		return -ENOMEM;
	}

	for (i = 0; i < pages; i++) {
		hog[i] = hog_alloc();
		if (!hog[i]) {
			hog_release();
			return -ENOMEM;
		}
	}
	if (nc) {
		hog_nc = kcalloc(2 * nc, sizeof(*hog_nc), GFP_KERNEL);
		if (!hog_nc) {
			hog_release();
			return -ENOMEM;
		}
		for (i = 0; i < 2 * nc; i++) {
			hog_nc[i] = hog_nc_alloc(hog_nc_order(i));
			if (!hog_nc[i]) {
				hog_release();
				return -ENOMEM;
			}
		}
	}
	if (threads) {
		hog_threads = kcalloc(threads, sizeof(*hog_threads), GFP_KERNEL);
		if (!hog_threads) {
			hog_release();
			return -ENOMEM;
		}
		for (i = 0; i < threads; i++) {
			struct task_struct *t = kthread_run(hog_thread, NULL,
							    "kmp_hog/%u", i);

			if (IS_ERR(t)) {
				hog_release();
				return PTR_ERR(t);
			}
			hog_threads[i] = t;
		}
	}
	if (pcpu) {
		hog_pcpu = kcalloc(pcpu, sizeof(*hog_pcpu), GFP_KERNEL);
		if (!hog_pcpu) {
			hog_release();
			return -ENOMEM;
		}
		for (i = 0; i < pcpu; i++) {
			hog_pcpu[i] = hog_pcpu_alloc();
			if (!hog_pcpu[i]) {
				hog_release();
				return -ENOMEM;
			}
		}
	}
	if (hog_take_objs()) {
		hog_release();
		return -ENOMEM;
	}
	if (bulk) {
		hog_cache = kmem_cache_create("kmemprof_hog", size, 0, 0, NULL);
		hog_bulk_objs = kcalloc(bulk, sizeof(*hog_bulk_objs),
					GFP_KERNEL);
		if (!hog_cache || !hog_bulk_objs || hog_bulk()) {
			hog_release();
			return -ENOMEM;
		}
		hog_bulk_held = true;
	}
	return 0;
}

static void __exit hog_exit(void)
{
	hog_release();
}

module_init(hog_init);
module_exit(hog_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A known allocation load for kmemprof's guest tests");
