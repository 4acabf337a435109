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

/*
 * The writes of a line go through a seq_buf over the room left in
 * seq_file's buffer, each checked against its end: one that does not fit
 * writes nothing and marks the seq_buf overflowed, and so does every one
 * after it (len is then size + 1). The check is an add and a compare; the
 * kernel's own seq_buf_putmem() would be a call, and is not exported.
 */
static __always_inline bool kmp_sb_room(struct seq_buf *s, size_t n)
{
	if (unlikely(s->len + n > s->size)) {
		seq_buf_set_overflow(s);
		return false;
	}
	return true;
}

/*
 * @len bytes of @str after the @lit_len bytes of @lit (either may be
 * empty), without a NUL: a word and its value in one checked write.
 */
static __always_inline void kmp_sb_put2(struct seq_buf *s, const char *lit,
					size_t lit_len, const char *str,
					size_t len)
{
	char *p;

	if (kmp_sb_room(s, lit_len + len)) {
		p = s->buffer + s->len;
		memcpy(p, lit, lit_len);
		memcpy(p + lit_len, str, len);
		s->len += lit_len + len;
	}
}

#define kmp_sb_put(s, str, len)	kmp_sb_put2(s, "", 0, str, len)
#define kmp_sb_lit(s, lit)	kmp_sb_put2(s, lit, sizeof(lit) - 1, "", 0)
#define kmp_sb_lit_str(s, lit, str, len)				\
	kmp_sb_put2(s, lit, sizeof(lit) - 1, str, len)

/* @lit, then @v in decimal: " allocs:123". */
static __always_inline void kmp_sb_lit_u64(struct seq_buf *s,
					   const char *lit, size_t lit_len,
					   u64 v)
{
	unsigned int n = kmp_dec_len(v);
	char *p;

	if (kmp_sb_room(s, lit_len + n)) {
		p = s->buffer + s->len;
		memcpy(p, lit, lit_len);
		kmp_put_dec(p + lit_len, v, n);
		s->len += lit_len + n;
	}
}

#define kmp_sb_key(s, lit, v)	kmp_sb_lit_u64(s, lit, sizeof(lit) - 1, v)

/*
 * @v right-aligned in @width columns (at most 16), as "%*llu ", with the
 * space after it. The spaces go over the whole width and the digits over
 * their end: for a constant width, the copy is a load and a store or two
 * where a memset() would be a call (arm64 builds without the vector
 * registers that GCC's inline memset() wants).
 */
static __always_inline void kmp_sb_u64_w(struct seq_buf *s, u64 v,
					 unsigned int width)
{
	unsigned int n = kmp_dec_len(v);
	unsigned int w = max(n, width);
	char *p;

	if (kmp_sb_room(s, w + 1)) {
		p = s->buffer + s->len;
		memcpy(p, "                ", width);
		kmp_put_dec(p + w - n, v, n);
		p[w] = ' ';
		s->len += w + 1;
	}
}

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
