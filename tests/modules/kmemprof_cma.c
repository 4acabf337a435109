// SPDX-License-Identifier: GPL-2.0
/*
 * A CMA load for the guest test 61-cma: while loaded it holds
 *
 *   coherent=BYTES  one dma_alloc_coherent() buffer of BYTES, taken by
 *                   kmpcma_coherent() for a platform device of its own;
 *   pages=N         N pages from cma_alloc() on the default CMA area,
 *                   taken by kmpcma_pages();
 *
 * and gives them back at unload. Each allocation is made from a function
 * of its own, so each is a call site of its own in /proc/kmemprof.
 *
 * The device is registered here and bound to no driver: no IOMMU, and a
 * 64-bit mask, so dma-direct takes a blocking allocation of more than a
 * page from CMA (dma_alloc_contiguous()) when the kernel has one, and from
 * the page allocator otherwise.
 *
 * cma_alloc() and cma_release() are exported on some kernels only
 * (mainline 7.x; vendor trees), and so is dev_get_cma_area() or, where it
 * is a static inline (6.1, 6.12), dma_contiguous_default_area. The Kbuild
 * finds them in the kernel's Module.symvers and defines
 * KMPCMA_HAVE_CMA_ALLOC; without it,
 * pages= fails the load with -EOPNOTSUPP, which the test reads as "not on
 * this kernel".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#ifdef KMPCMA_HAVE_CMA_ALLOC
#include <linux/cma.h>
#include <linux/dma-map-ops.h>
#endif

static unsigned int coherent;
module_param(coherent, uint, 0444);
MODULE_PARM_DESC(coherent, "Bytes to hold from dma_alloc_coherent() (default: 0)");

static unsigned int pages;
module_param(pages, uint, 0444);
MODULE_PARM_DESC(pages, "Pages to hold from cma_alloc() on the default area (default: 0)");

static struct platform_device *kmpcma_pdev;
static void *kmpcma_cpu;
static dma_addr_t kmpcma_dma;

static noinline void *kmpcma_coherent(struct device *dev)
{
	return dma_alloc_coherent(dev, coherent, &kmpcma_dma, GFP_KERNEL);
}

#ifdef KMPCMA_HAVE_CMA_ALLOC
static struct cma *kmpcma_area;
static struct page *kmpcma_page;

static noinline struct page *kmpcma_pages(void)
{
	return cma_alloc(kmpcma_area, pages, 0, false);
}

static int kmpcma_take_pages(void)
{
	kmpcma_area = dev_get_cma_area(NULL);
	if (!kmpcma_area) {
		pr_err("no default CMA area\n");
		return -ENODEV;
	}
	kmpcma_page = kmpcma_pages();
	return kmpcma_page ? 0 : -ENOMEM;
}

static void kmpcma_release_pages(void)
{
	if (kmpcma_page)
		cma_release(kmpcma_area, kmpcma_page, pages);
	kmpcma_page = NULL;
}
#else
static int kmpcma_take_pages(void)
{
	pr_err("cma_alloc() is not exported by this kernel\n");
	return -EOPNOTSUPP;
}

static void kmpcma_release_pages(void)
{
}
#endif

static void kmpcma_release(void)
{
	kmpcma_release_pages();
	if (kmpcma_cpu)
		dma_free_coherent(&kmpcma_pdev->dev, coherent, kmpcma_cpu,
				  kmpcma_dma);
	kmpcma_cpu = NULL;
	if (kmpcma_pdev)
		platform_device_unregister(kmpcma_pdev);
	kmpcma_pdev = NULL;
}

static int kmpcma_take_coherent(void)
{
	int ret;

	kmpcma_pdev = platform_device_register_simple(KBUILD_MODNAME,
						      PLATFORM_DEVID_NONE,
						      NULL, 0);
	if (IS_ERR(kmpcma_pdev)) {
		ret = PTR_ERR(kmpcma_pdev);
		kmpcma_pdev = NULL;
		return ret;
	}
	ret = dma_coerce_mask_and_coherent(&kmpcma_pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	kmpcma_cpu = kmpcma_coherent(&kmpcma_pdev->dev);
	return kmpcma_cpu ? 0 : -ENOMEM;
}

static int __init kmpcma_init(void)
{
	int ret = 0;

	if (coherent)
		ret = kmpcma_take_coherent();
	if (!ret && pages)
		ret = kmpcma_take_pages();
	if (ret)
		kmpcma_release();
	return ret;
}

static void __exit kmpcma_exit(void)
{
	kmpcma_release();
}

module_init(kmpcma_init);
module_exit(kmpcma_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("CMA allocations held for kmemprof's guest tests");
