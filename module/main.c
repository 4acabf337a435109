// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: memory allocation profiling for kernels without allocinfo.
 *
 * Module load and unload. The probes are attached last at load and detached
 * first at unload, so no probe ever runs against state that is not there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

#include <kmemprof/kmemprof.h>

static bool enabled = true;
module_param(enabled, bool, 0444);
MODULE_PARM_DESC(enabled, "Attach the probes at load (default: 1)");

static int __init kmemprof_init(void)
{
	int ret;

	ret = kmp_probes_init();
	if (ret)
		return ret;
	ret = kmp_debugfs_init();
	if (ret)
		return ret;
	if (enabled) {
		ret = kmemprof_set_enabled(true);
		if (ret) {
			kmp_debugfs_exit();
			return ret;
		}
	}
	pr_info("loaded, %s\n", enabled ? "enabled" : "disabled");
	return 0;
}

static void __exit kmemprof_exit(void)
{
	kmp_probes_exit();
	kmp_debugfs_exit();
	pr_info("unloaded\n");
}

module_init(kmemprof_init);
module_exit(kmemprof_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The kmemprof authors");
MODULE_DESCRIPTION("Memory allocation profiling from the kmem tracepoints");
