// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: memory allocation profiling for kernels without allocinfo.
 *
 * Module load and unload, and the module notifier: this file alone owns
 * the lifetimes of the others' state.
 *
 * Load:   probes (found, not attached), NMI rings, clock, topology,
 *         hist, tags, live table, PFN map, stacks; then the module
 *         notifiers, once every table exists, and the table of the other
 *         modules' text (callsite.c); then the hooks (found, not
 *         attached); then /proc/kmemprof, the knobs and debugfs; then the
 *         probes and hooks attach.
 * Unload: the knobs, debugfs and /proc/kmemprof go first (unregistering
 *         waits for any read or write in progress), so nothing can attach
 *         a probe again; then the probes and hooks are detached and waited
 *         for, with every NMI record applied, and the hooks' wrappers left
 *         (kmp_hooks_exit()); then the module notifiers are
 *         unregistered, which waits for a call in progress; only then are
 *         the tables torn down.
 *
 * So no probe and no notifier call ever runs against a table that is not
 * there. Notes on locking: kmp_gone_lock (mutex) serialises the notifier's
 * calls into the tables; under it, tags.c takes its bucket locks and
 * stacks.c kmp_stack_text_lock. The notifier runs under the kernel's
 * module_notify_list rwsem, never under module_mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>

#include <kmemprof/knobs.h>

#include "internal.h"
#include "owners.h"
#include "paths.h"

static DEFINE_MUTEX(kmp_gone_lock);

/*
 * Code is going: @within(addr, @mod) says which. Each table that keeps
 * code addresses names them while the symbols are still there. From the
 * module notifier, and from the KUnit suites (testhooks.c).
 */
void kmp_code_going(bool (*within)(unsigned long, const struct module *),
		    const struct module *mod)
{
	mutex_lock(&kmp_gone_lock);
	kmp_tags_code_going(within, mod);
	kmp_stacks_code_going(within, mod);
	kmp_names_flush();
	mutex_unlock(&kmp_gone_lock);
}

/*
 * A module is going, or its init text is: those call sites' addresses will
 * mean something else soon.
 */
static int kmp_module_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct module *mod = data;

	/* Going: all of it. Live: its init text is about to be freed. */
	if (action == MODULE_STATE_GOING)
		kmp_code_going(within_module, mod);
	else if (action == MODULE_STATE_LIVE)
		kmp_code_going(within_module_init, mod);
	else
		return NOTIFY_DONE;
	return NOTIFY_OK;
}

static struct notifier_block kmp_module_nb = {
	.notifier_call = kmp_module_notify,
};

/* The other modules' text (callsite.c), ahead of every other handler. */
static int kmp_modtext_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	kmp_modtext_update(data, action);
	return NOTIFY_DONE;
}

static struct notifier_block kmp_modtext_nb = {
	.notifier_call = kmp_modtext_notify,
	.priority = INT_MAX,
};

/*
 * The probes' per-CPU buffers, allocated rather than static: a module's
 * static per-CPU data comes from the kernel's module reserve (8 KiB on
 * 6.1, for every module), and kmemprof's would take most of it.
 */
static int __init kmp_cpu_bufs_init(void)
{
	int ret;

	ret = kmp_callsite_init();
	if (ret)
		return ret;
	ret = kmp_account_init();
	if (ret)
		goto err_callsite;
	ret = kmp_nmi_init();
	if (ret)
		goto err_account;
	ret = kmp_paths_init();
	if (ret)
		goto err_nmi;
	return 0;

err_nmi:
	kmp_nmi_exit();
err_account:
	kmp_account_exit();
err_callsite:
	kmp_callsite_exit();
	return ret;
}

static void kmp_cpu_bufs_exit(void)
{
	kmp_paths_exit();
	kmp_nmi_exit();
	kmp_account_exit();
	kmp_callsite_exit();
}

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
	ret = kmp_cpu_bufs_init();
	if (ret)
		goto err_of;
	kmp_clock_init();
	ret = kmp_topology_init();
	if (ret)
		goto err_bufs;
	/* Histograms' pool: at the first hist=1 (kmp_mode_update()). */
	ret = kmp_tags_init();
	if (ret)
		goto err_topology;
	ret = kmp_live_init();
	if (ret)
		goto err_tags;
	ret = kmp_pfnmap_init();
	if (ret)
		goto err_live;
	/* The stack store: at the first stack_depth > 0 (kmp_mode_update()). */
	ret = register_module_notifier(&kmp_module_nb);
	if (ret)
		goto err_pfnmap;
	ret = register_module_notifier(&kmp_modtext_nb);
	if (ret)
		goto err_module_nb;
	kmp_modtext_init();
	kmp_hooks_init();
	ret = kmp_procfs_init();
	if (ret)
		goto err_hooks;
	ret = kmp_sysctl_init();
	if (ret)
		goto err_procfs;
	kmp_debugfs_init();
	kmp_of_knobs(np);
	ret = kmp_owners_load(np);
	kmp_of_put(np);
	np = NULL;
	if (!ret)
		ret = kmp_oom_init();
	if (ret)
		goto err_debugfs;
	ret = kmemprof_set_events(kinds);
	if (!ret && enabled)
		ret = kmemprof_set_enabled(true);
	if (ret)
		goto err_oom;
	pr_info("loaded: %u tags, %u live entries, %zu KiB; %s\n",
		kmp_max_tags, kmp_max_live,
		kmp_self_memory() >> 10,
		enabled ? "enabled" : "disabled");
	return 0;

err_oom:
	kmp_oom_exit();
err_debugfs:
	kmp_debugfs_exit();
	kmp_sysctl_exit();
err_procfs:
	kmp_procfs_exit();
err_hooks:
	kmp_control_exit();
	kmp_owners_exit();
	kmp_hooks_exit();
	unregister_module_notifier(&kmp_modtext_nb);
	kmp_modtext_exit();
err_module_nb:
	unregister_module_notifier(&kmp_module_nb);
err_pfnmap:
	kmp_stacks_exit();
	kmp_pfnmap_exit();
err_live:
	kmp_live_exit();
err_tags:
	kmp_tags_exit();
	kmp_names_flush();
err_topology:
	kmp_hist_exit();
	kmp_topology_exit();
err_bufs:
	kmp_cpu_bufs_exit();
err_of:
	kmp_of_put(np);
	return ret;
}

/* In the order the top of this file gives. */
static void __exit kmemprof_exit(void)
{
	kmp_oom_exit();
	kmp_sysctl_exit();
	kmp_debugfs_exit();
	kmp_procfs_exit();
	kmp_control_exit();
	kmp_owners_exit();
	kmp_hooks_exit();
	unregister_module_notifier(&kmp_modtext_nb);
	kmp_modtext_exit();
	unregister_module_notifier(&kmp_module_nb);
	kmp_stacks_exit();
	kmp_pfnmap_exit();
	kmp_live_exit();
	kmp_tags_exit();
	kmp_names_flush();
	kmp_hist_exit();
	kmp_topology_exit();
	kmp_cpu_bufs_exit();
	pr_info("unloaded\n");
}

module_init(kmemprof_init);
module_exit(kmemprof_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The kmemprof authors");
MODULE_DESCRIPTION("Memory allocation profiling from the kmem tracepoints");
/* The release: dkms.conf and debian/changelog say the same (make check). */
MODULE_VERSION("0.1.0");
