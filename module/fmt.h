/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof: fmt.c's, the views' numbers. The decimal printer and the
 * checked writes into a seq_buf that /proc/kmemprof lays its lines out
 * with (procfs.c), inline there; the shares debugfs prints (fmt.c).
 */
#ifndef _KMEMPROF_FMT_H
#define _KMEMPROF_FMT_H

#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/types.h>

/*
 * How many digits @v has. Its bit length times log10(2) (1233 / 4096, a
 * shade more) is that count or one less, and one compare with a power of
 * ten says which. pow10[0] is 0, not 1: 0 has a digit too.
 */
static inline unsigned int kmp_dec_len(u64 v)
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

/*
 * The @n digits of @v at @p, from the last, two a step from dec2[]: a
 * 64-bit division (a multiply, for a constant) per two digits, and no
 * division at all for the last two; returns the end.
 */
static inline char *kmp_put_dec(char *p, u64 v, unsigned int n)
{
	/* "00" to "99", for two digits a step */
	static const char dec2[] = {
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
	};
	char *end = p + n;

	p = end;
	while (v >= 100) {
		u64 q = v / 100;

		p -= 2;
		memcpy(p, &dec2[2 * (v - q * 100)], 2);
		v = q;
	}
	if (v >= 10)
		memcpy(p - 2, &dec2[2 * v], 2);
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

void kmp_put_frag(struct seq_file *m, u64 live_bytes, u64 live_req);
void kmp_put_permille(struct seq_file *m, u64 part, u64 whole);

#endif /* _KMEMPROF_FMT_H */
