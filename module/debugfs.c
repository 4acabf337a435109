// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the debugfs views under /sys/kernel/debug/kmemprof/.
 *
 * stats: one "key value" pair per line, see Documentation/kmemprof.rst.
 * Views only read the probes' per-CPU state; they hold no lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include <kmemprof/kmemprof.h>

static struct dentry *kmp_debugfs_dir;

static int stats_show(struct seq_file *m, void *v)
{
	enum kmp_event ev;

	seq_printf(m, "enabled %d\n", kmemprof_is_enabled());
	for (ev = 0; ev < KMP_EV_NR; ev++)
		seq_printf(m, "events.%s %llu\n", kmemprof_event_name(ev),
			   kmemprof_event_count(ev));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

int kmp_debugfs_init(void)
{
	kmp_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0400, kmp_debugfs_dir, NULL,
			    &stats_fops);
	return 0;
}

void kmp_debugfs_exit(void)
{
	debugfs_remove_recursive(kmp_debugfs_dir);
}
