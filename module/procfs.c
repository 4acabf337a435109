// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: /proc/kmemprof, one line per tag in allocinfo's layout.
 *
 * The format is the contract in Documentation/kmemprof.rst; the header
 * lives in include/kmemprof/format.h, and kmp_proc_lay_out() is the one
 * place a line is laid out, through a checked seq_buf: a line cannot
 * overrun the buffer, and one that does not fit is laid out again in a
 * larger one.
 *
 * Notes on locking: the view takes no lock of the tables. Each line sums
 * its tag's per-CPU counters once (kmp_tag_totals()), so it is consistent
 * in itself; lines are printed with interrupts on, and a long read never
 * holds up allocations.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/proc_fs.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include <kmemprof/format.h>
#include "fmt.h"
#include "internal.h"
#include "tags.h"

/*
 * The reader's own: the texts' scratch, and the line's parts and totals,
 * kept here rather than on the stack, where the kernel's zeroing of new
 * variables (INIT_STACK_ALL_ZERO) would cost a memset() a line.
 */
struct kmp_proc_iter {
	char text[KMP_SITE_TEXT_LEN];
	char callers[KMP_CALLERS_TEXT_LEN];
	struct kmp_proc_line l;
	struct kmp_totals t;
};

/*
 * One line: "%12llu %8llu <site> kind:... allocs:... ...". A read of 10k
 * tags spends most of its time here: the line is laid out in place in
 * seq_file's buffer, without a seq_file call per field (that cost twice
 * the rest of the read) or a copy, every write checked against the room
 * left (kmp_sb_*()). A line that does not fit whole is not kept: the
 * buffer is marked full (seq_commit(m, -1)), and seq_file asks for the
 * line again with a larger buffer, as it does for seq_printf(). A line
 * that fits to the last byte marks it full too (seq_file needs a byte
 * more to tell it from an overflow), with the same outcome.
 */
static __always_inline void kmp_proc_lay_out(struct seq_file *m,
					     const struct kmp_proc_line *l)
{
	const struct kmp_totals *t = l->t;
	struct seq_buf s;
	size_t room;
	char *buf;

	room = seq_get_buf(m, &buf);
	seq_buf_init(&s, buf, room);
	kmp_sb_u64_w(&s, t->live_bytes, 12);
	kmp_sb_u64_w(&s, t->live_objs, 8);
	kmp_sb_put(&s, l->site, l->site_len);
	kmp_sb_lit_str(&s, " kind:", l->kind, l->kind_len);
	kmp_sb_key(&s, " allocs:", t->allocs);
	kmp_sb_key(&s, " frees:", t->frees);
	kmp_sb_key(&s, " bytes:", t->bytes);
	kmp_sb_key(&s, " req:", t->req);
	kmp_sb_put(&s, l->callers, l->callers_len);
	if (test_bit(KMP_TAG_SAMPLED, &l->flags))
		kmp_sb_lit(&s, " sampled:yes");
	if (test_bit(KMP_TAG_INACCURATE, &l->flags))
		kmp_sb_lit(&s, " accurate:no");
	if (test_bit(KMP_TAG_GONE, &l->flags))
		kmp_sb_lit(&s, " module:unloaded");
	kmp_sb_lit(&s, "\n");
	seq_commit(m, seq_buf_has_overflowed(&s) ? -1 : (int)seq_buf_used(&s));
}

/*
 * A line from parts given: the KUnit suites' (testhooks.c), and the OOM
 * report's (oom.c), which lays its lines out in a static buffer.
 */
void kmp_proc_put(struct seq_file *m, const struct kmp_proc_line *l)
{
	kmp_proc_lay_out(m, l);
}

/*
 * The least room a line needs besides its texts: one digit a number, the
 * widths of the first two, the words, no marks, and seq_file's byte more
 * (sizeof counts the NUL). Only to turn away, before its totals are
 * summed, a line that cannot fit (the last of most buffers); what keeps a
 * line inside the buffer is the check of each write.
 */
#define KMP_PROC_MIN	sizeof("           0        0  kind: allocs:0"	\
			       " frees:0 bytes:0 req:0\n")

/* The line of tag @idx. */
static void kmp_proc_line(struct seq_file *m, u32 idx,
			  struct kmp_proc_iter *it)
{
	struct kmp_tag *tag = kmp_tag_at(idx);
	struct kmp_proc_line *l = &it->l;
	char *buf;

	l->kind = kmp_kind_name(tag->kind);
	l->kind_len = strlen(l->kind);
	l->flags = READ_ONCE(tag->flags);
	l->site = kmp_tag_site(tag, it->text, &l->site_len);
	l->callers = kmp_tag_callers(tag, it->callers, &l->callers_len);
	if (seq_get_buf(m, &buf) < l->site_len + l->callers_len +
	    l->kind_len + KMP_PROC_MIN) {
		seq_commit(m, -1);
		return;
	}
	kmp_tag_totals(idx, &it->t);
	l->t = &it->t;
	kmp_proc_lay_out(m, l);
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
