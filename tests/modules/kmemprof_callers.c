// SPDX-License-Identifier: GPL-2.0
/*
 * Pages taken through the kernel's interfaces over the page allocator, for
 * the guest test 63-callers: while loaded it holds
 *
 *   vmalloc=BYTES   one vmalloc() of BYTES, by kmpcall_vmalloc();
 *   kvmalloc=BYTES  one kvmalloc() of BYTES, by kmpcall_kvmalloc() (more
 *                   than kmalloc() gives, so vmalloc() backs it);
 *   vcalloc1=N      N vcalloc()s of one page each, by kmpcall_vcalloc1()
 *                   (vzalloc() before 5.18): allocators stacked deeper
 *                   than kmemprof's first search for the site, over the
 *                   bulk allocator's single-page fallback, which makes a
 *                   page event inside the bulk call;
 *   coherent=N      N dma_alloc_coherent() buffers of half a page each, by
 *                   kmpcall_coherent(), for a platform device of its own
 *                   (no IOMMU: dma-direct, one page each from the page
 *                   allocator, since CMA takes no single page);
 *   frags=N         N page fragments of 1 KiB from a page_frag_cache of
 *                   its own, by kmpcall_frag();
 *   kvsmall=BYTES   one kvmalloc() of BYTES, by kmpcall_kvsmall() (a size
 *                   kmalloc() gives: the slab path);
 *   kvlarge=BYTES   one kvmalloc() of BYTES, by kmpcall_kvlarge() (more
 *                   than a slab cache holds, less than kmalloc() gives:
 *                   kmalloc()'s pages, whose first event is a relay on
 *                   6.10+, compat.h);
 *   kvrealloc=BYTES one kvrealloc() of NULL to BYTES, by
 *                   kmpcall_kvrealloc() (a size kmalloc() gives);
 *   percpu=BYTES    one __alloc_percpu() of BYTES, by kmpcall_percpu();
 *   mempool=N       mempools of N elements each, and N elements taken from
 *                   each by mempool_alloc():
 *                   - of a cache of its own, of KMPCALL_MPOBJ-byte objects:
 *                     prefilled by mempool_init() in kmpcall_mpinit_slab(),
 *                     taken by kmpcall_mpalloc_slab();
 *                   - of kmalloc(KMPCALL_MPKM): prefilled by mempool_init()
 *                     in kmpcall_mpinit_kmalloc(), taken by
 *                     kmpcall_mpalloc_kmalloc();
 *                   - of page blocks of KMPCALL_MPORDER: made by
 *                     mempool_create() in kmpcall_mpcreate_pages() (its
 *                     struct mempool and the prefill), taken by
 *                     kmpcall_mpalloc_pages();
 *                   and, for the objects' slots, one object of the cache by
 *                   kmpcall_cref() and one kmalloc(KMPCALL_MPKM) by
 *                   kmpcall_kref(). The size of struct mempool is said in
 *                   dmesg: "kmemprof_callers: mempool_t BYTES".
 *
 * and gives them back at unload, the fragment cache drained. Each is made
 * from a function of its own, so each is a call site of its own in
 * /proc/kmemprof: there, and not inside mm/ or kernel/dma/, is where the
 * pages (and the objects) must show. The fragment cache's page size (an order-3 block, or a
 * single page where that failed) is said in dmesg:
 * "kmemprof_callers: frag block BYTES".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#ifdef KMPCALL_HAVE_FRAG_CACHE_H
#include <linux/page_frag_cache.h>
#endif

static unsigned int vmalloc_bytes;
module_param_named(vmalloc, vmalloc_bytes, uint, 0444);
MODULE_PARM_DESC(vmalloc, "Bytes to hold from vmalloc() (default: 0)");

static unsigned int kvmalloc_bytes;
module_param_named(kvmalloc, kvmalloc_bytes, uint, 0444);
MODULE_PARM_DESC(kvmalloc, "Bytes to hold from kvmalloc() (default: 0)");

static unsigned int vcalloc1;
module_param(vcalloc1, uint, 0444);
MODULE_PARM_DESC(vcalloc1, "One-page vcalloc()s to hold (default: 0)");

static unsigned int coherent;
module_param(coherent, uint, 0444);
MODULE_PARM_DESC(coherent, "Half-page dma_alloc_coherent() buffers to hold (default: 0)");

static unsigned int frags;
module_param(frags, uint, 0444);
MODULE_PARM_DESC(frags, "1 KiB page fragments to hold (default: 0)");

static unsigned int kvsmall_bytes;
module_param_named(kvsmall, kvsmall_bytes, uint, 0444);
MODULE_PARM_DESC(kvsmall, "Bytes to hold from a kvmalloc() that kmalloc() serves (default: 0)");

static unsigned int kvlarge_bytes;
module_param_named(kvlarge, kvlarge_bytes, uint, 0444);
MODULE_PARM_DESC(kvlarge, "Bytes to hold from a kvmalloc() that kmalloc()'s pages serve (default: 0)");

static unsigned int kvrealloc_bytes;
module_param_named(kvrealloc, kvrealloc_bytes, uint, 0444);
MODULE_PARM_DESC(kvrealloc, "Bytes to hold from a kvrealloc() of NULL (default: 0)");

static unsigned int percpu_bytes;
module_param_named(percpu, percpu_bytes, uint, 0444);
MODULE_PARM_DESC(percpu, "Bytes to hold from __alloc_percpu() (default: 0)");

static unsigned int mempool;
module_param(mempool, uint, 0444);
MODULE_PARM_DESC(mempool, "Elements of each mempool, and taken from each (default: 0)");

#define KMPCALL_MAX	256
#define KMPCALL_FRAG	1024
#define KMPCALL_MPOBJ	200
#define KMPCALL_MPKM	384
#define KMPCALL_MPORDER	1

static void *kmpcall_vm, *kmpcall_kv, *kmpcall_kvs, *kmpcall_kvl;
static void *kmpcall_kvr;
static void __percpu *kmpcall_pcpu;
static struct platform_device *kmpcall_pdev;
static void *kmpcall_cpu[KMPCALL_MAX];
static dma_addr_t kmpcall_dma[KMPCALL_MAX];
static struct page_frag_cache kmpcall_nc;
static void *kmpcall_frags[KMPCALL_MAX];
static struct kmem_cache *kmpcall_mpcache;
static mempool_t kmpcall_mps, kmpcall_mpk, *kmpcall_mpp;
static void *kmpcall_mpel[3][KMPCALL_MAX];
static void *kmpcall_cobj, *kmpcall_kobj;
static void *kmpcall_vc1[KMPCALL_MAX];

static noinline void *kmpcall_vcalloc1(void)
{
#ifdef KMPCALL_HAVE_VCALLOC
	return vcalloc(1, PAGE_SIZE);
#else
	return vzalloc(PAGE_SIZE);
#endif
}

static noinline void *kmpcall_vmalloc(void)
{
	return vmalloc(vmalloc_bytes);
}

static noinline void *kmpcall_kvmalloc(void)
{
	return kvmalloc(kvmalloc_bytes, GFP_KERNEL);
}

static noinline void *kmpcall_kvsmall(void)
{
	return kvmalloc(kvsmall_bytes, GFP_KERNEL);
}

static noinline void *kmpcall_kvlarge(void)
{
	return kvmalloc(kvlarge_bytes, GFP_KERNEL);
}

static noinline void *kmpcall_kvrealloc(void)
{
#ifdef KMPCALL_KVREALLOC_OLDSIZE
	return kvrealloc(NULL, 0, kvrealloc_bytes, GFP_KERNEL);
#else
	return kvrealloc(NULL, kvrealloc_bytes, GFP_KERNEL);
#endif
}

static noinline void __percpu *kmpcall_percpu(void)
{
	return __alloc_percpu(percpu_bytes, sizeof(long));
}

static noinline void *kmpcall_coherent(unsigned int i)
{
	return dma_alloc_coherent(&kmpcall_pdev->dev, PAGE_SIZE / 2,
				  &kmpcall_dma[i], GFP_KERNEL);
}

static noinline void *kmpcall_frag(void)
{
	return page_frag_alloc(&kmpcall_nc, KMPCALL_FRAG, GFP_KERNEL);
}

static noinline int kmpcall_mpinit_slab(void)
{
	return mempool_init_slab_pool(&kmpcall_mps, mempool, kmpcall_mpcache);
}

static noinline int kmpcall_mpinit_kmalloc(void)
{
	return mempool_init_kmalloc_pool(&kmpcall_mpk, mempool, KMPCALL_MPKM);
}

static noinline mempool_t *kmpcall_mpcreate_pages(void)
{
	return mempool_create_page_pool(mempool, KMPCALL_MPORDER);
}

static noinline void *kmpcall_mpalloc_slab(void)
{
	return mempool_alloc(&kmpcall_mps, GFP_KERNEL);
}

static noinline void *kmpcall_mpalloc_kmalloc(void)
{
	return mempool_alloc(&kmpcall_mpk, GFP_KERNEL);
}

static noinline void *kmpcall_mpalloc_pages(void)
{
	return mempool_alloc(kmpcall_mpp, GFP_KERNEL);
}

static noinline void *kmpcall_cref(void)
{
	return kmem_cache_alloc(kmpcall_mpcache, GFP_KERNEL);
}

static noinline void *kmpcall_kref(void)
{
	return kmalloc(KMPCALL_MPKM, GFP_KERNEL);
}

/* Each pool's elements given back, then the pools (and their prefill). */
static void kmpcall_release_mempools(void)
{
	mempool_t *pool[3] = { &kmpcall_mps, &kmpcall_mpk, kmpcall_mpp };
	unsigned int i, j;

	for (i = 0; i < 3; i++) {
		for (j = 0; j < KMPCALL_MAX; j++) {
			if (kmpcall_mpel[i][j])
				mempool_free(kmpcall_mpel[i][j], pool[i]);
			kmpcall_mpel[i][j] = NULL;
		}
	}
	mempool_exit(&kmpcall_mps);
	mempool_exit(&kmpcall_mpk);
	mempool_destroy(kmpcall_mpp);
	kmpcall_mpp = NULL;
	if (kmpcall_cobj)
		kmem_cache_free(kmpcall_mpcache, kmpcall_cobj);
	kmpcall_cobj = NULL;
	kfree(kmpcall_kobj);
	kmpcall_kobj = NULL;
	kmem_cache_destroy(kmpcall_mpcache);
	kmpcall_mpcache = NULL;
}

static void kmpcall_release(void)
{
	unsigned int i;

	kmpcall_release_mempools();

	vfree(kmpcall_vm);
	kmpcall_vm = NULL;
	kvfree(kmpcall_kv);
	kmpcall_kv = NULL;
	kvfree(kmpcall_kvs);
	kmpcall_kvs = NULL;
	kvfree(kmpcall_kvl);
	kmpcall_kvl = NULL;
	kvfree(kmpcall_kvr);
	kmpcall_kvr = NULL;
	free_percpu(kmpcall_pcpu);
	kmpcall_pcpu = NULL;
	for (i = 0; i < KMPCALL_MAX; i++) {
		vfree(kmpcall_vc1[i]);
		kmpcall_vc1[i] = NULL;
		if (kmpcall_cpu[i])
			dma_free_coherent(&kmpcall_pdev->dev, PAGE_SIZE / 2,
					  kmpcall_cpu[i], kmpcall_dma[i]);
		kmpcall_cpu[i] = NULL;
		if (kmpcall_frags[i])
			page_frag_free(kmpcall_frags[i]);
		kmpcall_frags[i] = NULL;
	}
	/* the cache's own references to its block */
#ifdef KMPCALL_HAVE_FRAG_DRAIN
	page_frag_cache_drain(&kmpcall_nc);
#else
	if (kmpcall_nc.va)
		__page_frag_cache_drain(virt_to_head_page(kmpcall_nc.va),
					kmpcall_nc.pagecnt_bias);
	kmpcall_nc.va = NULL;
#endif
	if (kmpcall_pdev)
		platform_device_unregister(kmpcall_pdev);
	kmpcall_pdev = NULL;
}

static int kmpcall_take_coherent(void)
{
	unsigned int i;
	int ret;

	kmpcall_pdev = platform_device_register_simple(KBUILD_MODNAME,
						       PLATFORM_DEVID_NONE,
						       NULL, 0);
	if (IS_ERR(kmpcall_pdev)) {
		ret = PTR_ERR(kmpcall_pdev);
		kmpcall_pdev = NULL;
		return ret;
	}
	ret = dma_coerce_mask_and_coherent(&kmpcall_pdev->dev,
					   DMA_BIT_MASK(64));
	if (ret)
		return ret;
	for (i = 0; i < coherent; i++) {
		kmpcall_cpu[i] = kmpcall_coherent(i);
		if (!kmpcall_cpu[i])
			return -ENOMEM;
	}
	return 0;
}

static int kmpcall_take_frags(void)
{
	unsigned int i;

	for (i = 0; i < frags; i++) {
		kmpcall_frags[i] = kmpcall_frag();
		if (!kmpcall_frags[i])
			return -ENOMEM;
	}
	pr_info("frag block %lu\n",
		PAGE_SIZE << compound_order(virt_to_head_page(kmpcall_frags[0])));
	return 0;
}

static int kmpcall_take_mempools(void)
{
	void *(*take[3])(void) = { kmpcall_mpalloc_slab,
				   kmpcall_mpalloc_kmalloc,
				   kmpcall_mpalloc_pages };
	unsigned int i, j;

	kmpcall_mpcache = kmem_cache_create("kmpcall_mp", KMPCALL_MPOBJ, 0, 0,
					    NULL);
	if (!kmpcall_mpcache)
		return -ENOMEM;
	kmpcall_cobj = kmpcall_cref();
	kmpcall_kobj = kmpcall_kref();
	if (!kmpcall_cobj || !kmpcall_kobj)
		return -ENOMEM;
	if (kmpcall_mpinit_slab() || kmpcall_mpinit_kmalloc())
		return -ENOMEM;
	kmpcall_mpp = kmpcall_mpcreate_pages();
	if (!kmpcall_mpp)
		return -ENOMEM;
	for (i = 0; i < 3; i++) {
		for (j = 0; j < mempool; j++) {
			kmpcall_mpel[i][j] = take[i]();
			if (!kmpcall_mpel[i][j])
				return -ENOMEM;
		}
	}
	pr_info("mempool_t %zu\n", sizeof(mempool_t));
	return 0;
}

static int __init kmpcall_init(void)
{
	unsigned int i;
	int ret = 0;

	if (coherent > KMPCALL_MAX || frags > KMPCALL_MAX ||
	    mempool > KMPCALL_MAX || vcalloc1 > KMPCALL_MAX)
		return -EINVAL;
	/* enough fragments to fill one block would refill the cache */
	if (frags * KMPCALL_FRAG > PAGE_SIZE)
		return -EINVAL;
	if (vmalloc_bytes) {
		kmpcall_vm = kmpcall_vmalloc();
		if (!kmpcall_vm)
			ret = -ENOMEM;
	}
	if (!ret && kvmalloc_bytes) {
		kmpcall_kv = kmpcall_kvmalloc();
		if (!kmpcall_kv)
			ret = -ENOMEM;
	}
	if (!ret && kvsmall_bytes) {
		kmpcall_kvs = kmpcall_kvsmall();
		if (!kmpcall_kvs)
			ret = -ENOMEM;
	}
	if (!ret && kvlarge_bytes) {
		kmpcall_kvl = kmpcall_kvlarge();
		if (!kmpcall_kvl)
			ret = -ENOMEM;
	}
	if (!ret && kvrealloc_bytes) {
		kmpcall_kvr = kmpcall_kvrealloc();
		if (!kmpcall_kvr)
			ret = -ENOMEM;
	}
	if (!ret && percpu_bytes) {
		kmpcall_pcpu = kmpcall_percpu();
		if (!kmpcall_pcpu)
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < vcalloc1; i++) {
		kmpcall_vc1[i] = kmpcall_vcalloc1();
		if (!kmpcall_vc1[i])
			ret = -ENOMEM;
	}
	if (!ret && coherent)
		ret = kmpcall_take_coherent();
	if (!ret && frags)
		ret = kmpcall_take_frags();
	if (!ret && mempool)
		ret = kmpcall_take_mempools();
	if (ret)
		kmpcall_release();
	return ret;
}

static void __exit kmpcall_exit(void)
{
	kmpcall_release();
}

module_init(kmpcall_init);
module_exit(kmpcall_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Pages through vmalloc, the DMA API and page fragments, kvmalloc(), percpu and mempool objects, for kmemprof's guest tests");
