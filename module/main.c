// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: memory allocation profiling for kernels without allocinfo.
 *
 * Module load and unload. The tables come first and the probes last at
 * load; at unload the knobs go first, then the probes are detached (and
 * waited for), then the tables: no probe ever runs against state that is
 * not there, and no knob can attach one again in between.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

#include <kmemprof/kmemprof.h>

#define KMP_MIN_POOL	16

static bool enabled = true;
module_param(enabled, bool, 0444);
MODULE_PARM_DESC(enabled, "Attach the probes at load (default: 1)");

static char *events = "slab,page,percpu";
module_param(events, charp, 0444);
MODULE_PARM_DESC(events, "Kinds traced from load: slab,page,percpu or none");

module_param_named(max_tags, kmp_max_tags, uint, 0444);
MODULE_PARM_DESC(max_tags, "Size of the tag pool (default: 16384)");

module_param_named(max_live, kmp_max_live, uint, 0444);
MODULE_PARM_DESC(max_live,
		 "Size of the live-object table, 32 bytes an entry (default: 524288)");

module_param_named(max_hist, kmp_max_hist, uint, 0444);
MODULE_PARM_DESC(max_hist,
		 "Tags that get size and lifetime histograms (default: 2048)");

module_param_named(max_stacks, kmp_max_stacks, uint, 0444);
MODULE_PARM_DESC(max_stacks,
		 "Size of the stack store, 160 bytes a stack (default: 4096)");

static int __init kmemprof_init(void)
{
	unsigned int kinds;
	int ret;

	if (kmp_max_tags < KMP_MIN_POOL || kmp_max_tags > (1U << 24) ||
	    kmp_max_live < KMP_MIN_POOL || kmp_max_live > (1U << 28)) {
		pr_err("max_tags must be in [16, 2^24] and max_live in [16, 2^28]\n");
		return -EINVAL;
	}
	/* No more histograms than tags to have them. */
	kmp_max_hist = min(kmp_max_hist, kmp_max_tags);
	if (kmemprof_parse_events(events, &kinds)) {
		pr_err("events=%s: expected slab,page,percpu or none\n", events);
		return -EINVAL;
	}
	ret = kmp_probes_init();
	if (ret)
		return ret;
	kinds &= kmp_probes_avail();
	ret = kmp_hist_init();
	if (ret)
		return ret;
	ret = kmp_tags_init();
	if (ret)
		goto err_hist;
	ret = kmp_live_init();
	if (ret)
		goto err_tags;
	ret = kmp_stacks_init();
	if (ret)
		goto err_live;
	ret = kmp_procfs_init();
	if (ret)
		goto err_stacks;
	ret = kmp_sysctl_init();
	if (ret)
		goto err_procfs;
	kmp_debugfs_init();
	ret = kmemprof_set_events(kinds);
	if (!ret && enabled)
		ret = kmemprof_set_enabled(true);
	if (ret)
		goto err_debugfs;
	pr_info("loaded: %u tags, %u live entries, %zu KiB; %s\n",
		kmp_max_tags, kmp_max_live,
		(kmp_tags_memory() + kmp_live_memory() + kmp_hist_memory() +
		 kmp_stacks_memory()) >> 10,
		enabled ? "enabled" : "disabled");
	return 0;

err_debugfs:
	kmp_debugfs_exit();
	kmp_sysctl_exit();
err_procfs:
	kmp_procfs_exit();
err_stacks:
	kmp_stacks_exit();
err_live:
	kmp_live_exit();
err_tags:
	kmp_tags_exit();
err_hist:
	kmp_hist_exit();
	return ret;
}

/*
 * First the ways in: once the knobs are gone (unregistering waits for any
 * write in progress), nothing can attach a probe again. Then the probes,
 * waited for. Only then the tables.
 */
static void __exit kmemprof_exit(void)
{
	kmp_sysctl_exit();
	kmp_debugfs_exit();
	kmp_procfs_exit();
	kmp_control_exit();
	kmp_stacks_exit();
	kmp_live_exit();
	kmp_tags_exit();
	kmp_hist_exit();
	pr_info("unloaded\n");
}

module_init(kmemprof_init);
module_exit(kmemprof_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The kmemprof authors");
MODULE_DESCRIPTION("Memory allocation profiling from the kmem tracepoints");
