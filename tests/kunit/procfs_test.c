// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the lines of /proc/kmemprof, laid out in place in seq_file's
 * buffer. A line is written whole where it fits, and where it does not,
 * nothing is written past the buffer: seq_file is told to come back with
 * a larger one.
 *
 * The lines are laid out by the module's own code (kmp_proc_put(),
 * through kmemprof_test_proc_line()) into a seq_file whose buffer the
 * case sizes, with guard bytes after it.
 */
#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kmemprof/compat.h>
#include <kmemprof/kmemprof.h>
#include <kmemprof/test.h>

#include "kmemprof_test.h"
#include "kmp_kunit.h"

/*
 * The longest texts a tag can have (module/internal.h): a site of
 * KMP_SITE_TEXT_LEN, callers of KMP_CALLERS_TEXT_LEN, each with its NUL.
 * procfs_longest_line checks that the module takes these and no more.
 */
#define SITE_MAX	(2 * KSYM_SYMBOL_LEN - 1)
#define CALLERS_MAX	(4 * (KSYM_SYMBOL_LEN + 8) - 1)
#define PROC_LINE_MAX	(SITE_MAX + CALLERS_MAX + 256)
#define BEFORE		100	/* bytes of an earlier line, in some cases */
#define GUARD		64
#define PROC_PAGE	4096	/* a seq_file buffer's first size, on any page size */
/* Room for either; 5.10's KSYM_NAME_LEN of 128 makes the first smaller. */
#define PROC_BUF	(BEFORE + PROC_LINE_MAX > PROC_PAGE ?		\
			 BEFORE + PROC_LINE_MAX + 1 + GUARD :		\
			 PROC_PAGE + 1 + GUARD)

struct proc_case {
	struct seq_file m;
	char site[SITE_MAX + 2];
	char callers[CALLERS_MAX + 2];
	char want[PROC_LINE_MAX];
	char buf[PROC_BUF];
};

/* @len characters: @head (as much as fits), then @fill up to the length. */
static void proc_text(char *s, const char *head, char fill, size_t len)
{
	size_t n = min(strlen(head), len);

	memcpy(s, head, n);
	memset(s + n, fill, len - n);
	s[len] = '\0';
}

/* The line as "%12llu %8llu ..." prints it. */
static int proc_want(struct proc_case *c, const char *kind, bool marks,
		     const struct kmp_totals *t)
{
	return scnprintf(c->want, sizeof(c->want),
			 "%12llu %8llu %s kind:%s allocs:%llu frees:%llu bytes:%llu req:%llu%s%s\n",
			 t->live_bytes, t->live_objs, c->site, kind, t->allocs,
			 t->frees, t->bytes, t->req, c->callers,
			 marks ? " sampled:yes accurate:no module:unloaded" : "");
}

/*
 * Lay the line out into a buffer of @size bytes of which @used hold an
 * earlier line; the bytes after it must stay as they were.
 */
static int proc_lay_out(struct kunit *test, struct proc_case *c,
			size_t size, size_t used, enum kmp_kind kind,
			bool marks, const struct kmp_totals *t)
{
	size_t i;
	int ret;

	KMP_ASSERT_GT(test, sizeof(c->buf) + 1, size + GUARD);
	memset(c->buf, '#', sizeof(c->buf));
	memset(&c->m, 0, sizeof(c->m));
	c->m.buf = c->buf;
	c->m.size = size;
	c->m.count = used;
	ret = kmemprof_test_proc_line(&c->m, c->site, c->callers, kind, marks,
				      t);
	for (i = size; i < size + GUARD; i++)
		if (c->buf[i] != '#') {
			KUNIT_FAIL(test, "written past the buffer's %zu bytes, at %zu",
				   size, i);
			break;
		}
	return ret;
}

/* The line is in the buffer after @used bytes, whole and exactly. */
static void proc_expect_line(struct kunit *test, struct proc_case *c,
			     size_t used, size_t len)
{
	size_t i;

	KMP_EXPECT_EQ(test, c->m.count, used + len);
	for (i = 0; i < len && c->m.count == used + len; i++)
		if (c->buf[used + i] != c->want[i]) {
			KUNIT_FAIL(test, "byte %zu of %zu: '%c', not '%c'", i,
				   len, c->buf[used + i], c->want[i]);
			break;
		}
}

/*
 * The longest line there can be: the longest site and callers, the
 * longest kind, every mark, and every number at 20 digits. It is laid out
 * exactly where there is room for it and seq_file's end mark; with a byte
 * less, nothing is written and seq_file is told the buffer is full.
 */
static void procfs_longest_line(struct kunit *test)
{
	struct proc_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	const struct kmp_totals t = {
		.allocs = U64_MAX, .frees = U64_MAX, .bytes = U64_MAX,
		.freed = U64_MAX, .req = U64_MAX, .reqfreed = U64_MAX,
		.live_bytes = U64_MAX, .live_objs = U64_MAX,
		.live_req = U64_MAX,
	};
	size_t len, used;

	KMP_ASSERT_NOT_NULL(test, c);
	/* Texts one byte too long are refused. */
	proc_text(c->site, "too_long+0x0/0x10 [kmp] func:too_long", 's',
		  SITE_MAX + 1);
	proc_text(c->callers, " caller:", 'c', 1);
	KMP_EXPECT_EQ(test, kmemprof_test_proc_line(&c->m, c->site, c->callers,
						    KMP_KIND_PERCPU, true, &t),
		      -E2BIG);
	proc_text(c->site, "s", 's', 1);
	proc_text(c->callers, " caller:", 'c', CALLERS_MAX + 1);
	KMP_EXPECT_EQ(test, kmemprof_test_proc_line(&c->m, c->site, c->callers,
						    KMP_KIND_PERCPU, true, &t),
		      -E2BIG);

	proc_text(c->site, "longest+0xffff/0x10000 [kmp_longest] func:longest",
		  's', SITE_MAX);
	proc_text(c->callers, " caller:longest_caller+0x0/0x10 [kmp_longest]",
		  'c', CALLERS_MAX);
	len = proc_want(c, "percpu", true, &t);
	/* numbers, spaces, site, kind, counts, callers, marks, newline */
	KMP_ASSERT_EQ(test, len, 2 * 20 + 2 + SITE_MAX + 6 + 6 + 8 + 20 +
		      7 + 20 + 7 + 20 + 5 + 20 + CALLERS_MAX + 12 + 12 + 16 + 1);
	for (used = 0; used <= BEFORE; used += BEFORE) {
		KMP_EXPECT_EQ(test, proc_lay_out(test, c, used + len + 1, used,
						 KMP_KIND_PERCPU, true, &t), 0);
		proc_expect_line(test, c, used, len);
		KMP_EXPECT_EQ(test, proc_lay_out(test, c, used + len, used,
						 KMP_KIND_PERCPU, true, &t), 0);
		KMP_EXPECT_EQ_MSG(test, c->m.count, used + len,
				  "a byte short, after %zu bytes: not full", used);
	}
}

/*
 * A short line is written wherever it fits: the room it needs is its own
 * length and seq_file's end mark, not that of the longest line there
 * could be.
 */
static void procfs_short_line_fits(struct kunit *test)
{
	struct proc_case *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	const struct kmp_totals t = {
		.allocs = 3, .frees = 1, .bytes = 192, .freed = 64, .req = 150,
		.reqfreed = 50, .live_bytes = 128, .live_objs = 2,
		.live_req = 100,
	};
	size_t len;

	KMP_ASSERT_NOT_NULL(test, c);
	proc_text(c->site, "f+0x1c/0x40 func:f", 's', 18);
	c->callers[0] = '\0';
	len = proc_want(c, "slab", false, &t);
	KMP_ASSERT_EQ(test, len, 86);
	KMP_EXPECT_EQ(test, proc_lay_out(test, c, PROC_PAGE,
					 PROC_PAGE - len - 1, KMP_KIND_SLAB,
					 false, &t), 0);
	proc_expect_line(test, c, PROC_PAGE - len - 1, len);
	KMP_EXPECT_EQ(test, proc_lay_out(test, c, PROC_PAGE, PROC_PAGE - len,
					 KMP_KIND_SLAB, false, &t), 0);
	KMP_EXPECT_EQ(test, c->m.count, PROC_PAGE);
}

/* What a view's percentage prints, as kmemprof_test_frag() lays it out. */
static void frag_text(struct seq_file *m, char *buf, size_t len, u64 bytes,
		      u64 req)
{
	memset(m, 0, sizeof(*m));
	memset(buf, 0, len);
	m->buf = buf;
	m->size = len - 1;
	kmemprof_test_frag(m, bytes, req);
}

static void percent_text(struct seq_file *m, char *buf, size_t len,
			 u64 part, u64 whole)
{
	memset(m, 0, sizeof(*m));
	memset(buf, 0, len);
	m->buf = buf;
	m->size = len - 1;
	kmemprof_test_percent(m, part, whole);
}

/*
 * hist's frag and stacks' shares are rounded to the nearest tenth of a
 * percent (a half up), not cut: 2 of 3 is 66.7%.
 */
static void procfs_percent_rounds(struct kunit *test)
{
	struct seq_file m;
	char buf[128];
	/* a pointer: 5.10's KUNIT_EXPECT_STREQ() copies its operands */
	const char *got = buf;

	/* 2 of 3 bytes wasted: 66.666...% */
	frag_text(&m, buf, sizeof(buf), 3, 1);
	KUNIT_EXPECT_STREQ(test, got, " frag:66.7 waste:2");
	/* 1 of 2000: 0.05%, a half, up */
	frag_text(&m, buf, sizeof(buf), 2000, 1999);
	KUNIT_EXPECT_STREQ(test, got, " frag:0.1 waste:1");
	/* 1 of 3000: 0.033...% */
	frag_text(&m, buf, sizeof(buf), 3000, 2999);
	KUNIT_EXPECT_STREQ(test, got, " frag:0.0 waste:1");
	/* 1999 of 2000: 99.95%, up to 100.0 */
	frag_text(&m, buf, sizeof(buf), 2000, 1);
	KUNIT_EXPECT_STREQ(test, got, " frag:100.0 waste:1999");
	frag_text(&m, buf, sizeof(buf), 0, 0);
	KUNIT_EXPECT_STREQ(test, got, " frag:0.0 waste:0");
	/* a request larger than the allocation wastes nothing */
	frag_text(&m, buf, sizeof(buf), 8, 9);
	KUNIT_EXPECT_STREQ(test, got, " frag:0.0 waste:0");

	percent_text(&m, buf, sizeof(buf), 2, 3);
	KUNIT_EXPECT_STREQ(test, got, "66.7%");
	percent_text(&m, buf, sizeof(buf), 1, 3);
	KUNIT_EXPECT_STREQ(test, got, "33.3%");
	percent_text(&m, buf, sizeof(buf), 1, 8);
	KUNIT_EXPECT_STREQ(test, got, "12.5%");
	percent_text(&m, buf, sizeof(buf), 7, 2000);
	KUNIT_EXPECT_STREQ(test, got, "0.4%");
	percent_text(&m, buf, sizeof(buf), 0, 0);
	KUNIT_EXPECT_STREQ(test, got, "0.0%");
}

static struct kunit_case procfs_cases[] = {
	KUNIT_CASE(procfs_longest_line),
	KUNIT_CASE(procfs_short_line_fits),
	KUNIT_CASE(procfs_percent_rounds),
	{}
};

struct kunit_suite kmp_procfs_suite = {
	.name = "kmemprof_procfs",
	.test_cases = procfs_cases,
};
