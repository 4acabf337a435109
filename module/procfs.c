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
#include <linux/string.h>

#include <kmemprof/format.h>
#include "internal.h"

/* A line: the fields, the site's text and the callers' text. */
#define KMP_PROC_LINE	(KMP_TAG_TEXT_LEN + 160)

struct kmp_proc_iter {
	char text[KMP_SITE_TEXT_LEN];
	char callers[KMP_CALLERS_TEXT_LEN];
	char line[KMP_PROC_LINE];
	struct kmp_totals t;
};

/* @s, without its NUL, at @p; returns the end. */
static char *kmp_put_str(char *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

#define kmp_put_lit(p, lit)	kmp_put_str(p, lit, sizeof(lit) - 1)

/* @v in decimal at @p, right-aligned in @width columns; returns the end. */
static char *kmp_put_u64(char *p, u64 v, unsigned int width)
{
	char tmp[20];
	unsigned int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	for (; width > n; width--)
		*p++ = ' ';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/*
 * One tag: "%12llu %8llu <site> kind:... allocs:... ...". The line is laid
 * out in a buffer and written with one seq_write(): a read of 10k tags
 * spends most of its time here, and a seq_file call per field cost twice
 * the rest of the read.
 */
static void kmp_proc_line(struct seq_file *m, u32 idx,
			  struct kmp_proc_iter *it)
{
	struct kmp_tag *tag = kmp_tag_at(idx);
	const char *kind = kmp_kind_name(tag->kind);
	size_t site_len, callers_len;
	const char *site = kmp_tag_site(tag, it->text, &site_len);
	const char *callers = kmp_tag_callers(tag, it->callers, &callers_len);
	struct kmp_totals *t = &it->t;	/* not on the stack: not zeroed */
	char *p = it->line;

	kmp_tag_totals(idx, t);
	p = kmp_put_u64(p, t->live_bytes, 12);
	*p++ = ' ';
	p = kmp_put_u64(p, t->live_objs, 8);
	*p++ = ' ';
	p = kmp_put_str(p, site, site_len);
	p = kmp_put_lit(p, " kind:");
	p = kmp_put_str(p, kind, strlen(kind));
	p = kmp_put_lit(p, " allocs:");
	p = kmp_put_u64(p, t->allocs, 0);
	p = kmp_put_lit(p, " frees:");
	p = kmp_put_u64(p, t->frees, 0);
	p = kmp_put_lit(p, " bytes:");
	p = kmp_put_u64(p, t->bytes, 0);
	p = kmp_put_lit(p, " req:");
	p = kmp_put_u64(p, t->req, 0);
	p = kmp_put_str(p, callers, callers_len);
	if (test_bit(KMP_TAG_SAMPLED, &tag->flags))
		p = kmp_put_lit(p, " sampled:yes");
	if (test_bit(KMP_TAG_INACCURATE, &tag->flags))
		p = kmp_put_lit(p, " accurate:no");
	if (test_bit(KMP_TAG_GONE, &tag->flags))
		p = kmp_put_lit(p, " module:unloaded");
	*p++ = '\n';
	seq_write(m, it->line, p - it->line);
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
