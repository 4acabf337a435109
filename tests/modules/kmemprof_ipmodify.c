// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof_ipmodify: another ftrace user that claims IPMODIFY, as a
 * livepatch does, on the functions kmemprof hooks. Its callback changes
 * nothing; it only holds the functions. It loads only if ftrace lets it
 * have every function in @funcs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/string.h>

#include <kmemprof/compat.h>

static char *funcs = "kmem_cache_free_bulk";
module_param(funcs, charp, 0444);
MODULE_PARM_DESC(funcs, "Functions to hold, comma-separated");

#if KMP_HAVE_HOOKS
static void notrace ipm_func(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, kmp_hook_regs_t *regs)
{
}

static struct ftrace_ops ipm_ops = {
	.func = ipm_func,
	.flags = KMP_HOOK_WRAP_FLAGS,
};

static int __init ipm_init(void)
{
	char *list, *p, *fn;
	int ret = 0;

	list = kstrdup(funcs, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	p = list;
	while ((fn = strsep(&p, ",")) && !ret)
		if (*fn)
			ret = ftrace_set_filter(&ipm_ops, fn, strlen(fn), 0);
	kfree(list);
	if (!ret)
		ret = register_ftrace_function(&ipm_ops);
	if (ret) {
		pr_info("cannot hold %s: %d\n", funcs, ret);
		ftrace_set_filter(&ipm_ops, NULL, 0, 1);
	}
	return ret;
}

static void __exit ipm_exit(void)
{
	unregister_ftrace_function(&ipm_ops);
	ftrace_set_filter(&ipm_ops, NULL, 0, 1);
}
#else
static int __init ipm_init(void)
{
	return -EOPNOTSUPP;
}

static void __exit ipm_exit(void)
{
}
#endif

module_init(ipm_init);
module_exit(ipm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmemprof test: an IPMODIFY ftrace user beside kmemprof");
