// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the debugfs views under /sys/kernel/debug/kmemprof/.
 *
 * stats: one "key value" pair per line, in a fixed order; see
 * Documentation/kmemprof.rst. Views only read the tables; they hold no
 * lock of theirs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include <kmemprof/kmemprof.h>

static struct dentry *kmp_debugfs_dir;

static int stats_show(struct seq_file *m, void *v)
{
	unsigned int kinds = kmemprof_events();
	enum kmp_event ev;
	enum kmp_stat st;
	int k, n = 0;

	seq_printf(m, "enabled %d\n", kmemprof_is_enabled());
	seq_puts(m, "events ");
	for (k = 0; k < KMP_KIND_NR; k++)
		if (kinds & BIT(k))
			seq_printf(m, "%s%s", n++ ? "," : "", kmp_kind_name(k));
	seq_puts(m, n ? "\n" : "none\n");
	for (ev = 0; ev < KMP_EV_NR; ev++)
		seq_printf(m, "events.%s %llu\n", kmemprof_event_name(ev),
			   kmemprof_event_count(ev));
	for (st = 0; st < KMP_ST_NR; st++)
		seq_printf(m, "%s %llu\n", kmp_stat_name(st), kmp_stat_read(st));
	seq_printf(m, "tags.used %u\n", kmp_tags_used());
	seq_printf(m, "tags.max %u\n", kmp_max_tags);
	seq_printf(m, "tags.bytes %zu\n", kmp_tags_memory());
	seq_printf(m, "live.used %u\n", kmp_live_used());
	seq_printf(m, "live.max %u\n", kmp_max_live);
	seq_printf(m, "live.bytes %zu\n", kmp_live_memory());
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
