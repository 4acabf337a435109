// SPDX-License-Identifier: GPL-2.0
/*
 * The reader as a new user meets it (issue 26): every table's cells sit
 * under its header, in every command and with -H, checked on the 6.12
 * captures; sorts by a ratio rank the sites where it means nothing last;
 * ratios and percentages are rounded; the views say which knob is off;
 * each command offers the options it honours, and they work.
 *
 * Like test_cli.c, against a fake root ($KMEMPROF_ROOT) made of the
 * captures, through the command line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "profile.h"
#include "tests.h"

static char root[64];
static char out[1 << 20];

static void copy(const char *from, const char *to)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "cp '%s/%s' '%s/%s'", kp_fixtures, from,
		 root, to);
	assert_int_equal(system(cmd), 0);
}

static void write_file(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A fake root of the 6.12 captures, the knobs of today's module in it. */
static int setup(void **state)
{
	static const char *const views[] = {
		"hist", "ages", "leaks", "cpus", "stacks",
	};
	static const char *const knobs[][2] = {
		{ "enabled", "1" }, { "events", "slab,page,percpu" },
		{ "hist", "1" }, { "lifetimes", "1" }, { "self_timing", "0" },
		{ "key_depth", "0" }, { "leak_age_ms", "1000" },
		{ "max_size", "0" }, { "min_size", "0" }, { "reset", "0" },
		{ "sample_rate", "1" }, { "stack_depth", "4" },
		{ "stack_sample", "1" },
	};
	char cmd[256], from[64], rel[128];
	size_t i;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/kp-ux-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/proc/sys/kmemprof' '%s/sys/kernel/debug/kmemprof'",
		 root, root);
	if (system(cmd))
		return -1;
	copy("snap-b.txt", "proc/kmemprof");
	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		snprintf(from, sizeof(from), "view-%s.txt", views[i]);
		snprintf(rel, sizeof(rel), "sys/kernel/debug/kmemprof/%s",
			 views[i]);
		copy(from, rel);
	}
	/* stats as the module prints it now: hooks, sites, pfnmap */
	copy("view-stats-hooks.txt", "sys/kernel/debug/kmemprof/stats");
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(rel, sizeof(rel), "proc/sys/kmemprof/%s", knobs[i][0]);
		write_file(rel, knobs[i][1]);
	}
	setenv("KMEMPROF_ROOT", root, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	unsetenv("KMEMPROF_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

/* kmemprof ARGS in the fake root; stdout (and stderr if @err) in out. */
static int run_to(bool err, const char *fmt, ...)
{
	char args[1024], cmd[2048];
	size_t n = 0, got;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s %s", root, kp_binary,
		 args, err ? "2>&1" : "2>/dev/null");
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < sizeof(out) &&
	       (got = fread(out + n, 1, sizeof(out) - n - 1, p)))
		n += got;
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define run(...)	run_to(false, __VA_ARGS__)
#define run2(...)	run_to(true, __VA_ARGS__)

/* The line of @s that starts at @p, its length in @len; NULL at the end. */
static const char *line_at(const char *p, size_t *len)
{
	if (!p || !*p)
		return NULL;
	*len = strcspn(p, "\n");
	return p;
}

static const char *next_line(const char *p, size_t len)
{
	return p[len] ? p + len + 1 : p + len;
}

/*
 * The tables of @text whose header is @ncol labels, @labels, in order:
 * every row (to the next blank or unindented-text line: a line with no
 * cell under the first column) has a cell under each column. @align says
 * how a column's cells sit: 'R' ending where its label ends, 'L' starting
 * where it starts, 'r' and 'l' the same or blank; the last column, if 'L',
 * is the rest of the line and may be indented. The cell under @kind_col (or none: -1) is a kind.
 * Returns the rows checked; fails with the offending line.
 */
static size_t check_tables(const char *text, const char *const *labels,
			   size_t ncol, const char *align, int kind_col,
			   const char *what)
{
	size_t start[16], end[16], len, rows = 0, tables = 0, i;
	const char *p, *l, *h;

	assert_true(ncol <= 16 && strlen(align) == ncol);
	for (p = text; (l = line_at(p, &len)); p = next_line(l, len)) {
		const char *q = l;

		/* A header: the labels, in order, nothing else. */
		for (i = 0; i < ncol; i++) {
			q += strspn(q, " ");
			if (strncmp(q, labels[i], strlen(labels[i])) ||
			    (q[strlen(labels[i])] != ' ' &&
			     q[strlen(labels[i])] != '\n' &&
			     q[strlen(labels[i])] != '\0'))
				break;
			start[i] = (size_t)(q - l);
			end[i] = start[i] + strlen(labels[i]);
			q += strlen(labels[i]);
		}
		if (i < ncol)
			continue;
		if ((size_t)(q - l) != len)
			fail_msg("%s: header with more than its labels: %.*s",
				 what, (int)len, l);
		tables++;
		/* Its rows. */
		for (h = next_line(l, len); (l = line_at(h, &len));
		     h = next_line(l, len)) {
			size_t pos = 0, s, e;

			if (!len || l[0] != ' ')
				break;	/* blank, or the table's end */
			for (i = 0; i < ncol; i++) {
				s = pos + strspn(l + pos, " ");
				/* A blank cell, where one may be. */
				if ((align[i] == 'r' && s >= end[i]) ||
				    (align[i] == 'l' && s > start[i])) {
					pos = align[i] == 'r' ? end[i] : start[i];
					continue;
				}
				pos = s;
				if (pos >= len)
					fail_msg("%s: no cell under %s: %.*s",
						 what, labels[i], (int)len, l);
				s = pos;
				if (i == ncol - 1 && align[i] == 'L') {
					if (s < start[i])
						fail_msg("%s: %s starts before its label: %.*s",
							 what, labels[i],
							 (int)len, l);
					break;
				}
				e = s + strcspn(l + s, " \n");
				if (align[i] == 'R' || align[i] == 'r' ?
				    e != end[i] : s != start[i])
					fail_msg("%s: the cell '%.*s' is not under %s: %.*s",
						 what, (int)(e - s), l + s,
						 labels[i], (int)len, l);
				if ((int)i == kind_col &&
				    strncmp(l + s, "slab ", 5) &&
				    strncmp(l + s, "page ", 5) &&
				    strncmp(l + s, "percpu ", 7) &&
				    strncmp(l + s, "- ", 2))
					fail_msg("%s: '%.*s' under %s: %.*s", what,
						 (int)(e - s), l + s, labels[i],
						 (int)len, l);
				pos = e;
			}
			if (i == ncol && pos != len)
				fail_msg("%s: more cells than labels: %.*s",
					 what, (int)len, l);
			rows++;
		}
		if (!l)
			break;
	}
	if (!tables)
		fail_msg("%s: no table headed '%s ...' in:\n%s", what, labels[0],
			 text);
	return rows;
}

static const char *const top_cols[] = {
	"LIVE", "OBJS", "AVG", "ALLOCS", "KIND", "SITE",
};
static const char *const top_x[][7] = {
	{ "LIVE", "OBJS", "AVG", "ALLOCS", "ALLOCS/S", "KIND", "SITE" },
	{ "LIVE", "OBJS", "AVG", "ALLOCS", "AGE>=", "KIND", "SITE" },
	{ "LIVE", "OBJS", "AVG", "ALLOCS", "FRAG", "KIND", "SITE" },
};

/*
 * kmemprof @args, then @args -H: its tables as check_tables() wants them,
 * @rows rows in all (or more than -@rows, if negative) each time.
 */
static void tables(const char *args, const char *const *labels, size_t ncol,
		   const char *align, int kind_col, long rows)
{
	static const char *const h[] = { "", " -H" };
	char what[256];
	size_t k, got;

	for (k = 0; k < 2; k++) {
		snprintf(what, sizeof(what), "%s%s", args, h[k]);
		if (run("%s", what))
			fail_msg("%s: failed: %s", what, out);
		got = check_tables(out, labels, ncol, align, kind_col, what);
		if (rows >= 0 ? got != (size_t)rows : got <= (size_t)-rows)
			fail_msg("%s: %zu rows, not %ld", what, got, rows);
	}
}

/* top's table, with every extra column, on the captures. */
static void tables_top(void **state)
{
	char args[512];

	(void)state;
	tables("top -n 0", top_cols, 6, "RRRRLL", 4, 100);
	snprintf(args, sizeof(args), "top -n 0 -i '%s/allocinfo-6.12.txt'",
		 kp_fixtures);
	tables(args, top_cols, 6, "RRRRLL", 4, 984);
	tables("top -n 0 --sort rate -d 0.1", top_x[0], 7, "RRRRRLL", 5, 100);
	tables("top -n 0 --sort age", top_x[1], 7, "RRRRRLL", 5, 100);
	tables("top -n 0 --sort frag", top_x[2], 7, "RRRRRLL", 5, 100);
}

/* An age past 2.8 hours (10^7 ms) still fits top's AGE>= column. */
static void tables_top_old_age(void **state)
{
	(void)state;
	write_file("old-ages.txt", "kmemprof ages - version: 1.0\n"
		   "8192 2 h+0x1/0x2 [hog] func:h kind:page age:0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2\n");
	write_file("old.txt", "kmemprof - version: 1.0\n"
		   "8192 2 h+0x1/0x2 [hog] func:h kind:page allocs:2 frees:0 bytes:8192 req:8192\n");
	tables("top -i old.txt --ages old-ages.txt", top_x[1], 7, "RRRRRLL",
	       5, 1);
	assert_non_null(strstr(out, "      4.9h page   h+0x1/0x2 [hog]\n"));
}

static void tables_watch_diff(void **state)
{
	static const char *const watch_cols[] = {
		"LIVE", "GROWTH/S", "ALLOCS/S", "BYTES/S", "KIND", "SITE",
	};
	static const char *const diff_cols[] = {
		"GROWTH", "LIVE A", "LIVE B", "OBJS", "ALLOCS", "KIND", "SITE",
	};
	char args[512];

	(void)state;
	tables("watch -d 0.1 -c 2 -n 0", watch_cols, 6, "RRRRLL", 4, 200);
	snprintf(args, sizeof(args), "diff '%s/snap-a.txt' '%s/snap-b.txt' -n 0",
		 kp_fixtures, kp_fixtures);
	tables(args, diff_cols, 7, "RRRRRLL", 5, -50);
}

/* leaks: 43 sites and their oldest objects, the view's 149 lines. */
static void tables_leaks(void **state)
{
	static const char *const leaks_cols[] = {
		"LIVE", "OBJS", "OLDEST", "KIND", "SITE",
	};

	const char *l;
	size_t n = 0;

	(void)state;
	tables("leaks -n 0", leaks_cols, 5, "RrRlL", 3, 149);
	/*
	 * An object's row, as bcc's memleak lists one: its size and age;
	 * OBJS (one) and KIND (its site's) cannot vary and are not repeated.
	 */
	for (l = out; (l = strstr(l, "   object ")); l++) {
		const char *bol = l;

		while (bol > out && bol[-1] != '\n')
			bol--;
		/* "%12s %8s %8s %-6s   object": OBJS and KIND blank */
		if (l - bol != 12 + 1 + 8 + 1 + 8 + 1 + 6 ||
		    strspn(bol + 12, " ") < 1 + 8 + 1 ||
		    strspn(bol + 30, " ") != 1 + 6 + 3)
			fail_msg("leaks: an object's row repeats OBJS or KIND: %.*s",
				 (int)strcspn(bol, "\n"), bol);
		n++;
	}
	assert_int_equal(n, 149 - 43);
}

static void tables_ages_cpus_stats(void **state)
{
	static const char *const ages_cols[] = {
		"LIVE", "OBJS", "OLDEST>=", "MEDIAN>=", "KIND", "SITE",
	};
	static const char *const cpus_cols[] = {
		"CPU", "CLUSTER", "ALLOCS", "FREES", "REMOTE", "%", "XCLUSTER",
		"%",
	};
	static const char *const pool_cols[] = {
		"pool", "used", "max", "fill", "memory",
	};

	(void)state;
	tables("ages -n 0", ages_cols, 6, "RRRRLL", 4, 71);
	tables("stats", pool_cols, 5, "LRRRR", -1, 6);
	assert_int_equal(run("cpus"), 0);
	assert_int_equal(check_tables(out, cpus_cols, 8, "RRRRRRRR", -1,
				      "cpus"), 4);
}

/*
 * Every "  key value" row of stats ends its value in the same column, a
 * hook's calls too, and the hooks' "calls" label above them.
 */
static void stats_rows_aligned(void **state)
{
	const char *p, *l, *sect = "";
	size_t len, col = 0, rows = 0, hooks = 0, label = 0;

	(void)state;
	assert_int_equal(run("stats"), 0);
	for (p = out; (l = line_at(p, &len)); p = next_line(l, len)) {
		size_t e = len;

		if (len && l[0] != ' ') {
			sect = l;	/* "events:", "hooks:   calls ..." */
			if (!strncmp(l, "hooks:", 6))
				label = (size_t)(strstr(l, "calls") - l) + 5;
			continue;
		}
		if (len < 3 || l[2] == ' ' || !strncmp(l, "  pool ", 7))
			continue;
		if (!strncmp(sect, "\n", 1) || !strncmp(l, "  tags ", 7) ||
		    !strncmp(l, "  sites ", 8) || !strncmp(l, "  live ", 7) ||
		    !strncmp(l, "  hist ", 7) || !strncmp(l, "  stacks ", 9) ||
		    !strncmp(l, "  pfnmap ", 9))
			continue;	/* the pools: their own table, above */
		if (!strncmp(sect, "hooks:", 6)) {
			/* NAME CALLS OBJECTS: the calls end the values' column */
			e = (size_t)((const char *)memrchr(l, ' ', len) - l);
			while (e && l[e - 1] == ' ')
				e--;
			hooks++;
		}
		if (!col)
			col = e;
		if (e != col)
			fail_msg("stats: a value ends at %zu, not %zu: %.*s", e,
				 col, (int)len, l);
		rows++;
	}
	/* events 8, hooks 4, counters 16 */
	assert_int_equal(rows, 28);
	assert_int_equal(hooks, 4);
	assert_int_equal(label, col);
	assert_non_null(strstr(out, "\nhooks kmem_cache_alloc_bulk,kmem_cache_free_bulk,alloc_pages_bulk,migrate (allocation hooks: wrapper); untraced none\n"));
	assert_non_null(strstr(out, "  kmem_cache_alloc_bulk              63          206\n"));
	assert_non_null(strstr(out, "  tags.naming_ns                5702208\n"));
	assert_non_null(strstr(out, "  sites           130          -       -            -\n"));
	assert_int_equal(run("stats -H"), 0);
	assert_non_null(strstr(out, "  pfnmap            -          -       -         1.1M\n"));
}

/*
 * --sort frag and avg: a site with no live objects has neither; it
 * ranks after every site that has one. FRAG is shown, rounded.
 */
static void ratio_sorts_rank_undefined_last(void **state)
{
	const char *p, *l;
	size_t len, rows;
	bool none = false;
	int k;

	(void)state;
	write_file("r.txt", "kmemprof - version: 1.0\n"
		   "      0        0 z+0x0/0x1 func:z kind:slab allocs:4 frees:4 bytes:32 req:4\n"
		   "      5        2 b+0x0/0x1 func:b kind:slab allocs:2 frees:0 bytes:5 req:5\n"
		   "      3        1 a+0x0/0x1 func:a kind:slab allocs:1 frees:0 bytes:3 req:1\n");
	assert_int_equal(run("top -i r.txt --sort frag"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS      FRAG KIND   SITE\n"
		"           3        1         3         1     66.7% slab   a+0x0/0x1\n"
		"           5        2         3         2      0.0% slab   b+0x0/0x1\n"
		"           0        0         -         4         - slab   z+0x0/0x1\n");
	assert_int_equal(run("top -i r.txt --sort avg"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS KIND   SITE\n"
		"           3        1         3         1 slab   a+0x0/0x1\n"
		"           5        2         3         2 slab   b+0x0/0x1\n"
		"           0        0         -         4 slab   z+0x0/0x1\n");
	/* On the capture: no site without live objects before one with. */
	for (k = 0; k < 2; k++) {
		assert_int_equal(run("top -n 0 --sort %s", k ? "avg" : "frag"),
				 0);
		none = false;
		rows = 0;
		for (p = out; (l = line_at(p, &len)); p = next_line(l, len)) {
			long objs;

			if (sscanf(l, "%*s %ld", &objs) != 1)
				continue;
			if (objs == 0)
				none = true;
			else if (none)
				fail_msg("--sort %s: a site with live objects after one without: %.*s",
					 k ? "avg" : "frag", (int)len, l);
			rows++;
		}
		assert_int_equal(rows, 100);
	}
	/* allocinfo has no requested sizes: refused, not a silent name order */
	write_file("ai.txt", "allocinfo - version: 1.0\n"
		   "        4096        1 mm/slub.c:2259 func:alloc_slab_page\n");
	assert_int_equal(run2("top -n 1 --sort frag -i ai.txt"), 2);
	assert_string_equal(out, "kmemprof top: -s frag: ai.txt is allocinfo's, which has no requested sizes (bytes, objs or avg)\n");
	/* none with live objects: said, and in site order */
	write_file("z.txt", "kmemprof - version: 1.0\n"
		   "      0        0 z+0x0/0x1 func:z kind:slab allocs:4 frees:4 bytes:32 req:4\n"
		   "      0        0 y+0x0/0x1 func:y kind:slab allocs:1 frees:1 bytes:8 req:4\n");
	assert_int_equal(run2("top -i z.txt --sort avg"), 0);
	assert_string_equal(out,
		"kmemprof top: -s avg: no site has live objects: in site order\n"
		"        LIVE     OBJS       AVG    ALLOCS KIND   SITE\n"
		"           0        0         -         1 slab   y+0x0/0x1\n"
		"           0        0         -         4 slab   z+0x0/0x1\n");
}

/* Ratios are rounded, not cut: 2/3 is 66.7%, 5 bytes in 2 objects 3. */
static void ratios_round(void **state)
{
	struct kp_site s = { .bytes = 3, .objs = 1, .total = 3, .req = 1 };

	(void)state;
	assert_int_equal(kp_ratio_round(2, 3, 1000), 667);
	assert_int_equal(kp_ratio_round(1, 3, 1000), 333);
	assert_int_equal(kp_ratio_round(1, 2000, 1000), 1);	/* a half, up */
	assert_int_equal(kp_ratio_round(-5, 2, 1), -3);
	assert_int_equal(kp_ratio_round(5, 0, 1), 0);
	assert_int_equal(kp_ratio_round(INT64_MAX, 1, 1000), INT64_MAX);
	assert_int_equal(kp_frag(&s), 667);
	s.objs = 0;
	assert_int_equal(kp_frag(&s), -1);
	s = (struct kp_site){ .bytes = 5, .objs = 2 };
	assert_int_equal(kp_avg(&s), 3);
	s.bytes = 221184;	/* new_slab's 26 objects: 8507.08 */
	s.objs = 26;
	assert_int_equal(kp_avg(&s), 8507);
	/* Through the command line: AVG and FRAG cells. */
	write_file("r.txt", "kmemprof - version: 1.0\n"
		   "      5        2 b+0x0/0x1 func:b kind:slab allocs:2 frees:0 bytes:5 req:5\n"
		   "      2        3 c+0x0/0x1 func:c kind:percpu allocs:3 frees:0 bytes:3 req:1\n");
	assert_int_equal(run("top -i r.txt --sort frag"), 0);
	assert_non_null(strstr(out, "           2        3         1         3     66.7% percpu c+0x0/0x1\n"));
	assert_non_null(strstr(out, "           5        2         3         2      0.0% slab   b+0x0/0x1\n"));
}

/* leaks and ages say that lifetimes are off, as hist says hist is. */
static void views_say_the_knob_is_off(void **state)
{
	(void)state;
	write_file("sys/kernel/debug/kmemprof/leaks",
		   "kmemprof leaks - version: 1.0\n"
		   "# lifetimes off: echo 1 > /proc/sys/kmemprof/lifetimes\n"
		   "# live longer than 1000 ms: 0 objects, 0 bytes, 0 sites\n");
	write_file("sys/kernel/debug/kmemprof/ages",
		   "kmemprof ages - version: 1.0\n"
		   "# <live bytes> <live objects> <site> [<module>] func:<function> kind:<kind> age:<36 counts>\n"
		   "# lifetimes off: echo 1 > /proc/sys/kmemprof/lifetimes\n");
	assert_int_equal(run("leaks"), 0);
	assert_non_null(strstr(out, "\n(no leak suspects: lifetimes are off; kmemprof set lifetimes=1, and objects allocated from then on have an age)\n"));
	assert_int_equal(run("ages"), 0);
	assert_non_null(strstr(out, "\n(no live objects with an age: lifetimes are off; kmemprof set lifetimes=1, and objects allocated from then on have an age)\n"));
	/* With lifetimes on and nothing old enough: no hint. */
	write_file("sys/kernel/debug/kmemprof/leaks",
		   "kmemprof leaks - version: 1.0\n"
		   "# live longer than 1000 ms: 0 objects, 0 bytes, 0 sites\n");
	assert_int_equal(run("leaks"), 0);
	assert_non_null(strstr(out, "\n(no leak suspects)\n"));
	/* hist -i of a view saved while hist was off says so too */
	write_file("h.txt", "kmemprof hist - version: 1.0\n"
		   "# <site> [<module>] func:<function> kind:<kind> size:<20 counts>\n"
		   "# histograms off: echo 1 > /proc/sys/kmemprof/hist\n");
	assert_int_equal(run2("hist -i h.txt"), 1);
	assert_string_equal(out, "kmemprof: no histograms in h.txt (histograms are off: kmemprof set hist=1)\n");
}

/* watch's first frame has no growth yet: it ranks by live bytes. */
static void watch_first_frame(void **state)
{
	static const char *const sorts[] = { "growth", "allocs", "rate" };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		assert_int_equal(run("watch -c 1 -n 2 -s %s", sorts[i]), 0);
		assert_non_null(strstr(out,
			"\n     2097152            -          -            - page   hog_alloc+0x38/0x48 [kmemprof_hog]\n"
			"      315392            -          -            - page   new_slab+0x2d8/0x454\n"));
	}
}

/*
 * watch on a terminal of 72 x 7 (script(1) makes one): the title, the
 * header and the rows that fit below them, each cut at 72 columns, as
 * top and slabtop cut; without a terminal, whole lines.
 */
/*
 * kmemprof ARGS on a terminal of 72 x 7 (script(1) makes one), stdout and
 * stderr both on it, into out; the terminal's CR LF read as LF.
 */
static int run_tty(const char *args)
{
	char cmd[2048], *p, *q;
	size_t n = 0, got;
	FILE *f;
	int st;

	snprintf(cmd, sizeof(cmd), "cd '%s' && script -q -e -c \"stty cols 72 rows 7; '%s' %s\" /dev/null",
		 root, kp_binary, args);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (n + 1 < sizeof(out) && (got = fread(out + n, 1, sizeof(out) - n - 1, f)))
		n += got;
	out[n] = '\0';
	st = pclose(f);
	for (p = q = out; *p; p++)
		if (*p != '\r' || p[1] != '\n')
			*q++ = *p;
	*q = '\0';
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void watch_cut_to_terminal(void **state)
{
	char args[600], *p;

	(void)state;
	snprintf(args, sizeof(args), "watch -c 1 -i '%s/snap-b.txt'", kp_fixtures);
	assert_int_equal(run_tty(args), 0);
	/* the clock as HH:MM:SS */
	p = strstr(out, "watch  ");
	assert_non_null(p);
	memcpy(p + 7, "HH:MM:SS", 8);
	assert_string_equal(out,
		"\033[H\033[2Jkmemprof watch  HH:MM:SS  every 2.0s  live 2795664 bytes in 100 sites\n"
		"        LIVE     GROWTH/S   ALLOCS/S      BYTES/S KIND   SITE\n"
		"     2097152            -          -            - page   hog_alloc+0x38/\n"
		"      315392            -          -            - page   new_slab+0x2d8/\n"
		"       65536            -          -            - page   __handle_mm_fau\n"
		"       49152            -          -            - page   copy_process+0x\n");
	/* not a terminal: the lines whole */
	assert_int_equal(run("watch -c 1 -n 1 -i '%s/snap-b.txt'", kp_fixtures), 0);
	assert_non_null(strstr(out, "\n     2097152            -          -            - page   hog_alloc+0x38/0x48 [kmemprof_hog]\n\n"));
}

/*
 * Long work says so on a terminal's stderr while it runs, and wipes the
 * line ("\r", erase to its end): top -s rate's wait for the second read,
 * the search for debug files by build id. Not a terminal: nothing.
 */
static void long_work_said_on_a_terminal(void **state)
{
	(void)state;
	assert_int_equal(run_tty("top -s rate -d 0.1 -n 1 --kind percpu"), 0);
	assert_string_equal(out,
		"kmemprof top: -s rate: the second read in 0.1 s...\r\033[K"
		"kmemprof top: looking for debug files by build id (--no-resolve: not)...\r\033[K"
		"        LIVE     OBJS       AVG    ALLOCS  ALLOCS/S KIND   SITE\n"
		"         256        4        64       457       0.0 percpu __percpu_counter_init_many+0x4c/0xa4\n");
	/* -i and --no-resolve: no search, so no line */
	assert_int_equal(run_tty("top -n 1 --kind percpu --no-resolve"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS KIND   SITE\n"
		"         256        4        64       457 percpu __percpu_counter_init_many+0x4c/0xa4\n");
	assert_int_equal(run2("top -s rate -d 0.1 -n 1 --kind percpu"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS  ALLOCS/S KIND   SITE\n"
		"         256        4        64       457       0.0 percpu __percpu_counter_init_many+0x4c/0xa4\n");
}

/* diff --sort bytes: live bytes in B, as its help says. */
static void diff_sort_bytes(void **state)
{
	(void)state;
	assert_int_equal(run("diff '%s/snap-a.txt' '%s/snap-b.txt' -n 3 -s bytes",
			     kp_fixtures, kp_fixtures), 0);
	assert_non_null(strstr(out,
		"    +2097152        (new)      2097152      +256      +256 page   hog_alloc+0x38/0x48 [kmemprof_hog]\n"
		"      +81920       233472       315392       +11       +25 page   new_slab+0x2d8/0x454\n"
		"      +40960        24576        65536       +10     +2143 page   __handle_mm_fault+0xd4c/0x1624\n"));
	assert_int_equal(run("diff '%s/snap-a.txt' '%s/snap-b.txt' -n 4 -s bytes --kind slab",
			     kp_fixtures, kp_fixtures), 0);
	/* live B first, grown or not */
	assert_non_null(strstr(out,
		"           0        13568        13568         0      +203 slab   copy_process+0x16c/0x127c\n"
		"       +3136         7840        10976       +11       +25 slab   alloc_slab_obj_exts+0x70/0xec\n"));
}

/*
 * -s k1,k2 as perf's: ties of k1 by k2, then by site; in top (with the
 * columns of both), diff and watch. allocinfo cannot sort by allocs:
 * refused in each, not a silent file order.
 */
static void sort_by_comma_lists(void **state)
{
	(void)state;
	write_file("k.txt", "kmemprof - version: 1.0\n"
		   "   4096  1 a+0x0/0x1 func:a kind:page allocs:7 frees:6 bytes:28672 req:28672\n"
		   "   8192  2 b+0x0/0x1 func:b kind:page allocs:3 frees:1 bytes:12288 req:12288\n"
		   "   4096  4 c+0x0/0x1 func:c kind:slab allocs:7 frees:3 bytes:4096 req:2048\n"
		   "   8192  2 d+0x0/0x1 func:d kind:slab allocs:9 frees:7 bytes:36864 req:18432\n");
	assert_int_equal(run("top -i k.txt -s bytes,allocs"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS KIND   SITE\n"
		"        8192        2      4096         9 slab   d+0x0/0x1\n"
		"        8192        2      4096         3 page   b+0x0/0x1\n"
		"        4096        1      4096         7 page   a+0x0/0x1\n"
		"        4096        4      1024         7 slab   c+0x0/0x1\n");
	/* ties by the second key, a column for each key that has one */
	assert_int_equal(run("top -i k.txt -s allocs,frag,objs"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS      FRAG KIND   SITE\n"
		"        8192        2      4096         9     50.0% slab   d+0x0/0x1\n"
		"        4096        4      1024         7     50.0% slab   c+0x0/0x1\n"
		"        4096        1      4096         7      0.0% page   a+0x0/0x1\n"
		"        8192        2      4096         3      0.0% page   b+0x0/0x1\n");
	assert_int_equal(run("top -i k.txt -s avg,objs -n 3"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS KIND   SITE\n"
		"        8192        2      4096         3 page   b+0x0/0x1\n"
		"        8192        2      4096         9 slab   d+0x0/0x1\n"
		"        4096        1      4096         7 page   a+0x0/0x1\n");
	/* diff: growth ties by allocs made between the two */
	write_file("k2.txt", "kmemprof - version: 1.0\n"
		   "   8192  2 a+0x0/0x1 func:a kind:page allocs:9 frees:7 bytes:36864 req:36864\n"
		   "  12288  3 b+0x0/0x1 func:b kind:page allocs:6 frees:3 bytes:24576 req:24576\n"
		   "   4096  4 c+0x0/0x1 func:c kind:slab allocs:7 frees:3 bytes:4096 req:2048\n"
		   "   8192  2 d+0x0/0x1 func:d kind:slab allocs:9 frees:7 bytes:36864 req:18432\n");
	assert_int_equal(run("diff k.txt k2.txt -s growth,allocs"), 0);
	assert_string_equal(out,
		"k.txt -> k2.txt: live +8192 bytes; 2 sites grew, 0 new, 0 gone\n"
		"      GROWTH       LIVE A       LIVE B      OBJS    ALLOCS KIND   SITE\n"
		"       +4096         8192        12288        +1        +3 page   b+0x0/0x1\n"
		"       +4096         4096         8192        +1        +2 page   a+0x0/0x1\n");
	/* growth alone: the tie by site */
	assert_int_equal(run("diff k.txt k2.txt -s growth"), 0);
	assert_non_null(strstr(out,
		"       +4096         4096         8192        +1        +2 page   a+0x0/0x1\n"
		"       +4096         8192        12288        +1        +3 page   b+0x0/0x1\n"));
	assert_int_equal(run("diff k.txt k2.txt -s objs,bytes"), 0);
	assert_non_null(strstr(out,
		"       +4096         8192        12288        +1        +3 page   b+0x0/0x1\n"
		"       +4096         4096         8192        +1        +2 page   a+0x0/0x1\n"));
	/* watch's first frame: live bytes for a change's key, then avg */
	assert_int_equal(run("watch -c 1 -i k.txt -s growth,avg"), 0);
	assert_non_null(strstr(out,
		"        8192            -          -            - page   b+0x0/0x1\n"
		"        8192            -          -            - slab   d+0x0/0x1\n"
		"        4096            -          -            - page   a+0x0/0x1\n"
		"        4096            -          -            - slab   c+0x0/0x1\n"));
	/* allocinfo counts no allocations: each command says so */
	write_file("ai.txt", "allocinfo - version: 1.0\n"
		   "        4096        1 mm/slub.c:2259 func:alloc_slab_page\n");
	assert_int_equal(run2("top -i ai.txt -s allocs"), 2);
	assert_string_equal(out, "kmemprof top: -s allocs: ai.txt is allocinfo's, which counts no allocations (bytes, objs or avg)\n");
	assert_int_equal(run2("top -i ai.txt -s bytes,allocs"), 2);
	assert_string_equal(out, "kmemprof top: -s allocs: ai.txt is allocinfo's, which counts no allocations (bytes, objs or avg)\n");
	assert_int_equal(run2("watch -c 1 -i ai.txt -s rate"), 2);
	assert_string_equal(out, "kmemprof watch: -s rate: ai.txt is allocinfo's, which counts no allocations (bytes, objs or avg)\n");
	assert_int_equal(run2("diff ai.txt ai.txt -s allocs"), 2);
	assert_string_equal(out, "kmemprof diff: -s allocs: ai.txt is allocinfo's, which counts no allocations (bytes, objs or avg)\n");
	assert_int_equal(run2("top -i ai.txt -s objs,avg"), 0);
}

/* @w in @s as a word of its own: after a space or '(', before , ; ) or a space. */
static bool has_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = s; (p = strstr(p, w)); p++)
		if (p > s && (p[-1] == ' ' || p[-1] == '(') &&
		    strchr(" ,;)\n", p[n]))
			return true;
	return false;
}

/*
 * One set of sort keys for top, watch and diff: one --sort text in the
 * three helps, each key it names taken, or refused with why, exactly.
 */
static void sort_keys_shared(void **state)
{
	static const char *const cmds[] = {
		"top -n 1 -d 0.1", "watch -c 1 -n 1",
		"diff proc/kmemprof proc/kmemprof -n 1",
	};
	static const char *const keys[] = {
		"growth", "bytes", "objs", "calls", "avg", "allocs", "frag",
		"rate", "age",
	};
	char name[64], *sp, *help[3];
	size_t i, j;

	(void)state;
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s", cmds[i]);
		*strchr(name, ' ') = '\0';
		assert_int_equal(run("%s --help", name), 0);
		/* the --sort option's text, to the next option */
		sp = strstr(out, "--sort KEY[,KEY]");
		assert_non_null(sp);
		*strstr(sp, "\n  -") = '\0';
		help[i] = strdup(sp);
		for (j = 0; j < sizeof(keys) / sizeof(keys[0]); j++) {
			const char *want = "";
			int rc = run2("%s --sort %s", cmds[i], keys[j]);

			if (!has_word(help[i], keys[j]))
				fail_msg("%s --help: no --sort %s", name, keys[j]);
			if (!strcmp(name, "top") && !strcmp(keys[j], "growth"))
				want = "kmemprof top: -s growth: top reads once; growth is between two reads (kmemprof diff A B, or watch)\n";
			else if (strcmp(name, "top") && !strcmp(keys[j], "age"))
				want = strcmp(name, "diff") ?
				       "kmemprof watch: -s age: watch reads no ages (top -s age does)\n" :
				       "kmemprof diff: -s age: diff reads no ages (top -s age does)\n";
			if (*want) {
				assert_int_equal(rc, 2);
				assert_string_equal(out, want);
			} else if (rc) {
				fail_msg("%s --sort %s: refused: %s", name,
					 keys[j], out);
			}
		}
	}
	assert_string_equal(help[0], help[1]);
	assert_string_equal(help[0], help[2]);
	for (i = 0; i < 3; i++)
		free(help[i]);
	/* a key no command has, too many keys */
	assert_int_equal(run2("watch -c 1 -s bytes,size"), 2);
	assert_string_equal(out, "kmemprof watch: -s size: expected growth, bytes, objs (or calls), avg, allocs, frag, rate or age, or a comma list of them\n");
	assert_int_equal(run2("diff a b -s bytes,"), 2);
	assert_string_equal(out, "kmemprof diff: -s : expected growth, bytes, objs (or calls), avg, allocs, frag, rate or age, or a comma list of them\n");
	assert_int_equal(run2("top -s bytes,objs,avg,allocs,frag"), 2);
	assert_string_equal(out, "kmemprof top: -s bytes,objs,avg,allocs,frag: at most 4 keys\n");
	/* top --sort objs: the OBJS column, also called calls */
	assert_int_equal(run("top --sort objs -n 2"), 0);
	assert_non_null(strstr(out, "     2097152      256      8192       256 page   hog_alloc"));
}

/*
 * The views offer no option they ignore, and the options they offer
 * work: -i is a saved view, --module in every view of sites, -H in hist.
 */
static void views_offer_what_works(void **state)
{
	(void)state;
	/* stats and cpus have no sites: no -n, --kind; cpus no sizes: no -H */
	assert_int_equal(run("stats --help"), 0);
	assert_null(strstr(out, "--kind"));
	assert_null(strstr(out, "--lines"));
	assert_int_equal(run("cpus --help"), 0);
	assert_null(strstr(out, "--kind"));
	assert_null(strstr(out, "--human"));
	assert_int_equal(run2("cpus --kind slab"), 2);
	/* a view's -i is a saved view */
	assert_int_equal(run("leaks --help"), 0);
	assert_non_null(strstr(out, "a saved copy of the view"));
	/* every view of sites takes --module */
	assert_int_equal(run("ages -n 0 --module kmemprof_hog"), 0);
	assert_non_null(strstr(out, " hog_alloc+0x38/0x48 [kmemprof_hog]\n"));
	assert_null(strstr(out, "new_slab"));
	assert_int_equal(run("stacks --module kmemprof_hog"), 0);
	assert_non_null(strstr(out, "hog_alloc+0x38/0x48 [kmemprof_hog] kind:page: 256 allocs"));
	assert_null(strstr(out, "getname_flags"));
	assert_int_equal(run("hist hog_alloc --module nosuch"), 1);
	/* hist -H: the waste in IEC units, as every -H */
	assert_int_equal(run("hist -H --kind slab"), 0);
	assert_non_null(strstr(out, "all slab allocations: xcpu 12709, xcluster 12239, frag 5.5%, waste 6.4K bytes\n"));
}

/* set lists every knob there is, hist and lifetimes among them. */
static void set_lists_every_knob(void **state)
{
	(void)state;
	assert_int_equal(run("set"), 0);
	assert_string_equal(out, "enabled=1\nevents=slab,page,percpu\nhist=1\n"
			    "key_depth=0\nleak_age_ms=1000\nlifetimes=1\n"
			    "max_size=0\nmin_size=0\nsample_rate=1\n"
			    "self_timing=0\nstack_depth=4\nstack_sample=1\n");
}

/*
 * file:line without asking (issue 22, part 2): the live read finds the
 * module's debug file by its build id, read from
 * /sys/module/MOD/notes/.note.gnu.build-id, in each usual place; a file
 * of another build id is not used; --no-resolve turns it off and
 * --resolve still names the file. The module is the rig's test module
 * built with -g (out-kmemprof_hog-6.12-g.elf), its build id
 * 26c2c284b01bfa334bff5e8f531610df5da8bc83 (readelf -n).
 */
#define HOG_ID "26c2c284b01bfa334bff5e8f531610df5da8bc83"
#define HOG_ROW "     2097152      256      8192       256 page   " \
	"hog_alloc+0x38/0x48 [kmemprof_hog]"
#define HOG_LINE " (tests/modules/kmemprof_hog.c:28)"

/* @rel as a blob of ELF notes: a Linux note, then GNU's build id @hex. */
static void write_notes(const char *rel, const char *hex)
{
	unsigned char id[64];
	uint32_t h[3];
	char path[512];
	size_t i, n = strlen(hex) / 2;
	FILE *f;

	for (i = 0; i < n; i++)
		assert_int_equal(sscanf(hex + 2 * i, "%2hhx", &id[i]), 1);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	h[0] = 6;	/* "Linux", padded to 8 */
	h[1] = 4;
	h[2] = 0x100;
	fwrite(h, 4, 3, f);
	fwrite("Linux\0\0\0\0\0\0\0", 1, 12, f);
	h[0] = 4;
	h[1] = (uint32_t)n;
	h[2] = 3;	/* NT_GNU_BUILD_ID */
	fwrite(h, 4, 3, f);
	fwrite("GNU", 1, 4, f);
	fwrite(id, 1, n, f);
	assert_int_equal(fclose(f), 0);
}

static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd))
		fail_msg("failed: %s", cmd);
}

static int setup_debug(void **state)
{
	if (setup(state))
		return -1;
	sh("mkdir -p '%s/sys/module/kmemprof_hog/notes' '%s/proc/sys/kernel'",
	   root, root);
	write_file("proc/sys/kernel/osrelease", "6.12.0-test\n");
	write_notes("sys/module/kmemprof_hog/notes/.note.gnu.build-id", HOG_ID);
	return 0;
}

/* The ELF at @rel, and nowhere else. */
static void place(const char *rel)
{
	sh("cd '%s' && rm -rf usr lib && mkdir -p \"$(dirname '%s')\" && cp '%s/out-kmemprof_hog-6.12-g.elf' '%s'",
	   root, rel, kp_fixtures, rel);
}

static bool have_resolve(void)
{
	assert_int_equal(run("--help"), 0);
	return strstr(out, "Outputs in this build:") &&
	       strstr(strstr(out, "Outputs in this build:"), "resolve");
}

static void auto_resolve_by_build_id(void **state)
{
	static const char *const where[] = {
		"usr/lib/debug/.build-id/26/c2c284b01bfa334bff5e8f531610df5da8bc83.debug",
		"usr/lib/debug/lib/modules/6.12.0-test/extra/kmemprof_hog.ko",
		"lib/modules/6.12.0-test/extra/kmemprof-hog.ko",
		"lib/modules/6.12.0-test/updates/dkms/kmemprof_hog.ko",
	};
	size_t i;

	(void)state;
	if (!have_resolve())
		skip();
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		place(where[i]);
		if (i == 3)	/* as modules.dep lists it */
			write_file("lib/modules/6.12.0-test/modules.dep",
				   "kernel/fs/other.ko.xz:\nupdates/dkms/kmemprof_hog.ko: kernel/fs/other.ko.xz\n");
		assert_int_equal(run("top -n 0"), 0);
		if (!strstr(out, HOG_ROW HOG_LINE "\n"))
			fail_msg("%s: no file:line in:\n%s", where[i], out);
		/* Unloaded sites: their code is gone; no guess. */
		assert_non_null(strstr(out, " slab   hog_init+0x7c/0x1000 [kmemprof_hog] (unloaded)\n"));
	}
	/* The table stays under its header, file:line and all. */
	tables("top -n 0", top_cols, 6, "RRRRLL", 4, 100);
	assert_non_null(strstr(out, HOG_LINE));
	/* The machine outputs carry it. */
	assert_int_equal(run("top --json"), 0);
	assert_non_null(strstr(out, "\"site\":\"hog_alloc+0x38/0x48\",\"module\":\"kmemprof_hog\",\"func\":\"hog_alloc\",\"kind\":\"page\",\"srcline\":\"tests/modules/kmemprof_hog.c:28\","));
	assert_int_equal(run("top --csv"), 0);
	assert_non_null(strstr(out, "\nhog_alloc+0x38/0x48,kmemprof_hog,hog_alloc,page,tests/modules/kmemprof_hog.c:28,2097152,"));
	/* A snapshot (-i) is not the running kernel's: none either. */
	assert_int_equal(run("top -n 3 -i proc/kmemprof"), 0);
	assert_non_null(strstr(out, HOG_ROW "\n"));
}

/*
 * --resolve the same in every command: "--resolve FILE" as
 * "--resolve=FILE", in top, diff and the views; a module given first is a
 * module whatever its file's name (ELF type, .modinfo's name); a file
 * with no site here is an error, not silently nothing.
 */
static void resolve_in_every_command(void **state)
{
	(void)state;
	if (!have_resolve())
		skip();
	sh("cp '%s/out-kmemprof_hog-6.12-g.elf' '%s/hog.elf'", kp_fixtures,
	   root);
	assert_int_equal(run2("top -i proc/kmemprof -n 1 --resolve hog.elf"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS KIND   SITE\n"
		HOG_ROW HOG_LINE "\n");
	assert_int_equal(run2("diff '%s/snap-a.txt' proc/kmemprof --resolve hog.elf -n 1",
			      kp_fixtures), 0);
	assert_non_null(strstr(out, "\n    +2097152        (new)      2097152      +256      +256 page   hog_alloc+0x38/0x48 [kmemprof_hog]" HOG_LINE "\n"));
	assert_int_equal(run2("leaks -n 1 --no-resolve --resolve hog.elf"), 0);
	assert_non_null(strstr(out, "\n     2097152      256     4.3s page   hog_alloc+0x38/0x48 [kmemprof_hog]" HOG_LINE "\n"));
	assert_int_equal(run2("stacks hog_alloc --resolve hog.elf"), 0);
	assert_non_null(strstr(out, "\n        hog_init+0xb8/0x1000 [kmemprof_hog] (tests/modules/kmemprof_hog.c:56)\n"));
	assert_int_equal(run2("ages -n 0 --resolve=hog.elf --module kmemprof_hog"), 0);
	assert_non_null(strstr(out, " page   hog_alloc+0x38/0x48 [kmemprof_hog]" HOG_LINE "\n"));
	/* no site of the module here: said, and an error */
	assert_int_equal(run2("top -i proc/kmemprof -n 1 --module kmemprof --resolve hog.elf"), 1);
	assert_string_equal(out,
		"kmemprof: --resolve: hog.elf: no site of module kmemprof_hog here\n"
		"kmemprof: --resolve: nothing resolved\n");
}

/* --no-resolve: none, where the live read would find it. */
static void auto_resolve_off(void **state)
{
	(void)state;
	if (!have_resolve())
		skip();
	place("lib/modules/6.12.0-test/extra/kmemprof_hog.ko");
	assert_int_equal(run("top -n 3"), 0);
	assert_non_null(strstr(out, HOG_ROW HOG_LINE "\n"));
	assert_int_equal(run("top -n 3 --no-resolve"), 0);
	assert_non_null(strstr(out, HOG_ROW "\n"));
	assert_null(strstr(out, "kmemprof_hog.c"));
	assert_int_equal(run("top --json --no-resolve"), 0);
	assert_non_null(strstr(out, "\"func\":\"hog_alloc\",\"kind\":\"page\",\"srcline\":null,"));
}

/*
 * The same file, in every place, under another build id: not used (once
 * seen used under its own, so that the test means something).
 */
static void auto_resolve_other_build_id(void **state)
{
	static const char *const where[] = {
		"usr/lib/debug/.build-id/26/c2c284b01bfa334bff5e8f531610df5da8bc84.debug",
		"usr/lib/debug/lib/modules/6.12.0-test/extra/kmemprof_hog.ko",
		"lib/modules/6.12.0-test/extra/kmemprof_hog.ko",
	};
	size_t i;

	(void)state;
	if (!have_resolve())
		skip();
	place(where[2]);
	assert_int_equal(run("top -n 3"), 0);
	assert_non_null(strstr(out, HOG_ROW HOG_LINE "\n"));
	write_notes("sys/module/kmemprof_hog/notes/.note.gnu.build-id",
		    "26c2c284b01bfa334bff5e8f531610df5da8bc84");
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		place(where[i]);
		assert_int_equal(run2("top -n 3"), 0);
		if (!strstr(out, HOG_ROW "\n") || strstr(out, "kmemprof_hog.c"))
			fail_msg("%s: used under another build id:\n%s",
				 where[i], out);
	}
	/* No notes at all: none, and not a word on stderr. */
	sh("rm -rf '%s/sys/module'", root);
	assert_int_equal(run2("top -n 3"), 0);
	assert_non_null(strstr(out, "\n" HOG_ROW "\n"));
	assert_null(strstr(out, "kmemprof:"));
	/* --resolve names the file: it wins, whatever the build id. */
	assert_int_equal(run("top -n 3 --resolve=%s", where[2]), 0);
	assert_non_null(strstr(out, HOG_ROW HOG_LINE "\n"));
}

const struct CMUnitTest kp_ux_tests[] = {
	cmocka_unit_test_setup_teardown(tables_top, setup, teardown),
	cmocka_unit_test_setup_teardown(tables_top_old_age, setup, teardown),
	cmocka_unit_test_setup_teardown(tables_watch_diff, setup, teardown),
	cmocka_unit_test_setup_teardown(tables_leaks, setup, teardown),
	cmocka_unit_test_setup_teardown(tables_ages_cpus_stats, setup,
					teardown),
	cmocka_unit_test_setup_teardown(stats_rows_aligned, setup, teardown),
	cmocka_unit_test_setup_teardown(ratio_sorts_rank_undefined_last, setup,
					teardown),
	cmocka_unit_test_setup_teardown(ratios_round, setup, teardown),
	cmocka_unit_test_setup_teardown(views_say_the_knob_is_off, setup,
					teardown),
	cmocka_unit_test_setup_teardown(watch_first_frame, setup, teardown),
	cmocka_unit_test_setup_teardown(diff_sort_bytes, setup, teardown),
	cmocka_unit_test_setup_teardown(sort_by_comma_lists, setup, teardown),
	cmocka_unit_test_setup_teardown(watch_cut_to_terminal, setup, teardown),
	cmocka_unit_test_setup_teardown(long_work_said_on_a_terminal, setup,
					teardown),
	cmocka_unit_test_setup_teardown(sort_keys_shared, setup,
					teardown),
	cmocka_unit_test_setup_teardown(views_offer_what_works, setup,
					teardown),
	cmocka_unit_test_setup_teardown(set_lists_every_knob, setup, teardown),
	cmocka_unit_test_setup_teardown(auto_resolve_by_build_id, setup_debug,
					teardown),
	cmocka_unit_test_setup_teardown(resolve_in_every_command, setup_debug,
					teardown),
	cmocka_unit_test_setup_teardown(auto_resolve_off, setup_debug,
					teardown),
	cmocka_unit_test_setup_teardown(auto_resolve_other_build_id,
					setup_debug, teardown),
};

const size_t kp_ux_ntests = sizeof(kp_ux_tests) / sizeof(kp_ux_tests[0]);
