// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof_objcheck: asks the kernel itself whether slab objects that
 * kmemprof reports live (its leaks view) are allocated. For the guest test
 * 57-leaks on a kernel with generic KASAN (6.12-debug): KASAN's shadow says
 * of every slab object whether it is allocated (its first granule
 * accessible) or freed (poisoned, and kept in quarantine a while before
 * reuse). Reading the shadow is not itself checked by KASAN.
 *
 *   echo ADDR > /sys/module/kmemprof_objcheck/parameters/addr
 *
 * checks one address; live, freed and other (not a slab object) count the
 * answers, and a freed object is dumped to dmesg with kmem_dump_obj().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kasan.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

static unsigned int live, freed, other;
module_param(live, uint, 0444);
MODULE_PARM_DESC(live, "Addresses checked that are allocated");
module_param(freed, uint, 0444);
MODULE_PARM_DESC(freed, "Addresses checked that the kernel has freed");
module_param(other, uint, 0444);
MODULE_PARM_DESC(other, "Addresses checked that are not slab objects");

#ifdef CONFIG_KASAN_GENERIC
static int objcheck_set(const char *val, const struct kernel_param *kp)
{
	unsigned long a;
	const void *p;
	s8 shadow;

	if (kstrtoul(val, 16, &a))
		return -EINVAL;
	p = (const void *)a;
	if (!virt_addr_valid(p) || !PageSlab(virt_to_head_page(p))) {
		other++;
		return 0;
	}
	shadow = READ_ONCE(*(s8 *)kasan_mem_to_shadow(p));
	if (shadow >= 0) {
		live++;
	} else {
		freed++;
		/* The raw address: the test matches it against leaks. */
		pr_info("%lx: freed (shadow %#x)\n", a, (u8)shadow);
		kmem_dump_obj((void *)p);
	}
	return 0;
}

static const struct kernel_param_ops objcheck_ops = {
	.set = objcheck_set,
};

module_param_cb(addr, &objcheck_ops, NULL, 0200);
MODULE_PARM_DESC(addr, "A slab object's address, in hex: check it");

static int __init objcheck_init(void)
{
	return 0;
}
#else
static int __init objcheck_init(void)
{
	return -ENODEV;	/* no generic KASAN: no shadow to ask */
}
#endif

static void __exit objcheck_exit(void)
{
}

module_init(objcheck_init);
module_exit(objcheck_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Whether objects kmemprof reports live are allocated");
