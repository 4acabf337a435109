// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: /proc/kmemprof, one line per tag in allocinfo's layout.
 *
 * The format is the contract in Documentation/kmemprof.rst; the header
 * lives in include/kmemprof/format.h, and kmp_proc_line() is the one place
 * a line is laid out.
 *
 * Notes on locking: the view takes no lock of the tables. Each line sums
 * its tag's per-CPU counters once (kmp_tag_totals()), so it is consistent
 * in itself; lines are printed with interrupts on, and a long read never
 * holds up allocations.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include <kmemprof/format.h>
#include "internal.h"

struct kmp_proc_iter {
	char text[KMP_SITE_TEXT_LEN];
	char callers[KMP_CALLERS_TEXT_LEN];
};

/* @v right-aligned in @width columns, as "%*llu" would, but cheaper. */
static void kmp_put_padded(struct seq_file *m, u64 v, unsigned int width)
{
	unsigned int digits = 1;
	u64 x;

	for (x = v; x >= 10; x /= 10)
		digits++;
	for (; digits < width; digits++)
		seq_putc(m, ' ');
	seq_put_decimal_ull(m, "", v);
}

/*
 * One tag: "%12llu %8llu <site> kind:... allocs:... ...". Written field by
 * field with seq_put_decimal_ull(), not seq_printf(): a read of 10k tags
 * spends most of its time here.
 */
static void kmp_proc_line(struct seq_file *m, u32 idx,
			  struct kmp_proc_iter *it)
{
	struct kmp_tag *tag = kmp_tag_at(idx);
	struct kmp_totals t;

	kmp_tag_totals(idx, &t);
	kmp_put_padded(m, t.live_bytes, 12);
	seq_putc(m, ' ');
	kmp_put_padded(m, t.live_objs, 8);
	seq_putc(m, ' ');
	seq_puts(m, kmp_tag_site(tag, it->text));
	seq_puts(m, " kind:");
	seq_puts(m, kmp_kind_name(tag->kind));
	seq_put_decimal_ull(m, " allocs:", t.allocs);
	seq_put_decimal_ull(m, " frees:", t.frees);
	seq_put_decimal_ull(m, " bytes:", t.bytes);
	seq_put_decimal_ull(m, " req:", t.req);
	seq_puts(m, kmp_tag_callers(tag, it->callers));
	if (test_bit(KMP_TAG_SAMPLED, &tag->flags))
		seq_puts(m, " sampled:yes");
	if (test_bit(KMP_TAG_INACCURATE, &tag->flags))
		seq_puts(m, " accurate:no");
	seq_puts(m, test_bit(KMP_TAG_GONE, &tag->flags) ?
		 " module:unloaded\n" : "\n");
}

/* Position 0 is the header, position n the tag of index n - 1. */
static void *kmp_proc_seek(loff_t pos)
{
	if (pos == 0)
		return SEQ_START_TOKEN;
	if (pos > kmp_tags_used())
		return NULL;
	return kmp_tag_at(pos - 1);
}

static void *kmp_proc_start(struct seq_file *m, loff_t *pos)
{
	return kmp_proc_seek(*pos);
}

static void *kmp_proc_next(struct seq_file *m, void *v, loff_t *pos)
{
	return kmp_proc_seek(++*pos);
}

static void kmp_proc_stop(struct seq_file *m, void *v)
{
}

static int kmp_proc_show(struct seq_file *m, void *v)
{
	struct kmp_proc_iter *it = m->private;
	u32 idx;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, KMP_PROC_HEADER KMP_PROC_COLUMNS);
		return 0;
	}
	idx = kmp_tag_index(v);
	if (kmp_tag_ready(idx))
		kmp_proc_line(m, idx, it);
	return 0;
}

static const struct seq_operations kmp_proc_ops = {
	.start = kmp_proc_start,
	.next = kmp_proc_next,
	.stop = kmp_proc_stop,
	.show = kmp_proc_show,
};

int kmp_procfs_init(void)
{
	if (!proc_create_seq_private(KMP_PROC_NAME, 0400, NULL, &kmp_proc_ops,
				     sizeof(struct kmp_proc_iter), NULL))
		return -ENOMEM;
	return 0;
}

void kmp_procfs_exit(void)
{
	remove_proc_entry(KMP_PROC_NAME, NULL);
}
