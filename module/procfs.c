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

#include <linux/bitops.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include <kmemprof/format.h>
#include "internal.h"

/*
 * The most a line has besides its site, callers and kind texts: six
 * numbers of up to 20 digits, and the words around them.
 */
#define KMP_PROC_FIXED							\
	(6 * 20 + sizeof("  kind: allocs: frees: bytes: req:"		\
			 " sampled:yes accurate:no module:unloaded\n") - 1)

struct kmp_proc_iter {
	char text[KMP_SITE_TEXT_LEN];
	char callers[KMP_CALLERS_TEXT_LEN];
	struct kmp_totals t;
};

/* @s, without its NUL, at @p; returns the end. */
static char *kmp_put_str(char *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

#define kmp_put_lit(p, lit)	kmp_put_str(p, lit, sizeof(lit) - 1)

/*
 * How many digits @v has. Its bit length times log10(2) (1233 / 4096, a
 * shade more) is that count or one less, and one compare with a power of
 * ten says which. pow10[0] is 0, not 1: 0 has a digit too.
 */
static unsigned int kmp_dec_len(u64 v)
{
	static const u64 pow10[] = {
		0, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL,
		10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	unsigned int n = fls64(v) * 1233 >> 12;

	return n + (v >= pow10[n]);
}

/* "00" to "99", for two digits a step. */
static const char kmp_dec2[] = {
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
};

/*
 * The @n digits of @v at @p, from the last, two a step from kmp_dec2[]: a
 * 64-bit division (a multiply, for a constant) per two digits, and no
 * division at all for the last two; returns the end.
 */
static char *kmp_put_dec(char *p, u64 v, unsigned int n)
{
	char *end = p + n;

	p = end;
	while (v >= 100) {
		u64 q = v / 100;

		p -= 2;
		memcpy(p, &kmp_dec2[2 * (v - q * 100)], 2);
		v = q;
	}
	if (v >= 10)
		memcpy(p - 2, &kmp_dec2[2 * v], 2);
	else
		p[-1] = '0' + v;
	return end;
}

/* @v in decimal at @p; returns the end. */
static char *kmp_put_u64(char *p, u64 v)
{
	return kmp_put_dec(p, v, kmp_dec_len(v));
}

/*
 * @v right-aligned in @width columns (at most 16), as "%*llu"; returns the
 * end. The spaces go over the whole width and the digits over their end:
 * for a constant width, the copy is a load and a store or two where a
 * memset() would be a call (arm64 builds without the vector registers
 * that GCC's inline memset() wants).
 */
static __always_inline char *kmp_put_u64_w(char *p, u64 v,
					   unsigned int width)
{
	unsigned int n = kmp_dec_len(v);

	if (n >= width)
		return kmp_put_dec(p, v, n);
	memcpy(p, "                ", width);
	kmp_put_dec(p + width - n, v, n);
	return p + width;
}

/*
 * One line: "%12llu %8llu <site> kind:... allocs:... ...". A read of 10k
 * tags spends most of its time here: the line is laid out in place in
 * seq_file's buffer, without a seq_file call per field (that cost twice
 * the rest of the read) or a copy. Without room for the longest the line
 * could be, it is not laid out: the buffer is marked full, and seq_file
 * asks for the line again with an empty one.
 */
void kmp_proc_put(struct seq_file *m, const struct kmp_proc_line *l)
{
	const struct kmp_totals *t = l->t;
	char *line, *p;

	if (seq_get_buf(m, &line) <=
	    l->site_len + l->callers_len + l->kind_len + KMP_PROC_FIXED) {
		seq_commit(m, -1);
		return;
	}
	p = kmp_put_u64_w(line, t->live_bytes, 12);
	*p++ = ' ';
	p = kmp_put_u64_w(p, t->live_objs, 8);
	*p++ = ' ';
	p = kmp_put_str(p, l->site, l->site_len);
	p = kmp_put_lit(p, " kind:");
	p = kmp_put_str(p, l->kind, l->kind_len);
	p = kmp_put_lit(p, " allocs:");
	p = kmp_put_u64(p, t->allocs);
	p = kmp_put_lit(p, " frees:");
	p = kmp_put_u64(p, t->frees);
	p = kmp_put_lit(p, " bytes:");
	p = kmp_put_u64(p, t->bytes);
	p = kmp_put_lit(p, " req:");
	p = kmp_put_u64(p, t->req);
	p = kmp_put_str(p, l->callers, l->callers_len);
	if (test_bit(KMP_TAG_SAMPLED, &l->flags))
		p = kmp_put_lit(p, " sampled:yes");
	if (test_bit(KMP_TAG_INACCURATE, &l->flags))
		p = kmp_put_lit(p, " accurate:no");
	if (test_bit(KMP_TAG_GONE, &l->flags))
		p = kmp_put_lit(p, " module:unloaded");
	*p++ = '\n';
	seq_commit(m, p - line);
}

/* The line of tag @idx. */
static void kmp_proc_line(struct seq_file *m, u32 idx,
			  struct kmp_proc_iter *it)
{
	struct kmp_tag *tag = kmp_tag_at(idx);
	struct kmp_proc_line l = {
		.kind = kmp_kind_name(tag->kind),
		.flags = READ_ONCE(tag->flags),
		.t = &it->t,	/* not on the stack: not zeroed */
	};

	l.kind_len = strlen(l.kind);
	l.site = kmp_tag_site(tag, it->text, &l.site_len);
	l.callers = kmp_tag_callers(tag, it->callers, &l.callers_len);
	kmp_tag_totals(idx, &it->t);
	kmp_proc_put(m, &l);
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
