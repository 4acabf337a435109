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

#include <kmemprof/kmemprof.h>
#include <kmemprof/knobs.h>

static int __init kmemprof_init(void)
{
	struct device_node *np;
	unsigned int kinds;
	bool enabled;
	int ret;

	/* The parameters (knobs.c), and the device tree where none was given. */
	np = kmp_of_node();
	ret = kmp_params_load(np, &kinds, &enabled);
	if (ret)
		goto err_of;
	/* No more histograms than tags to have them. */
	kmp_max_hist = min(kmp_max_hist, kmp_max_tags);
	ret = kmp_probes_init();
	if (ret)
		goto err_of;
	kinds &= kmp_probes_avail();
	ret = kmp_hist_init();
	if (ret)
		goto err_of;
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
	kmp_of_knobs(np);
	kmp_of_put(np);
	np = NULL;
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
err_of:
	kmp_of_put(np);
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
/* The release: dkms.conf and debian/changelog say the same (make check). */
MODULE_VERSION("0.1.0");
