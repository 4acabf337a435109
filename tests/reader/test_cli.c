// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the kmemprof reader's commands, against a fake root
 * ($KMEMPROF_ROOT) made of the 6.12 captures: /proc/kmemprof, the knobs
 * under /proc/sys/kmemprof and the debugfs views. Knob writes and their
 * error messages, and each subcommand's output and exit status.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
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

static void copy(const char *from, const char *to)
{
	char src[512], dst[512], buf[4096];
	FILE *in, *out;
	size_t n;

	snprintf(src, sizeof(src), "%s/%s", kp_fixtures, from);
	snprintf(dst, sizeof(dst), "%s/%s", root, to);
	in = fopen(src, "r");
	out = fopen(dst, "w");
	assert_non_null(in);
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)))
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static void mkdirs(const char *rel)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static char *slurp(const char *rel)
{
	char path[512], *buf = calloc(1, 65536);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(buf);
	if (!fread(buf, 1, 65535, f))
		buf[0] = '\0';
	fclose(f);
	return buf;
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

/* The fake root: one fresh tree per test. */
static int setup(void **state)
{
	static const char *const views[] = {
		"stats", "hist", "ages", "leaks", "cpus", "stacks",
	};
	char line[128], rel[256], key[64], val[64];
	size_t i;
	FILE *f;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/kp-root-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	mkdirs("proc/sys/kmemprof");
	mkdirs("sys/kernel/debug/kmemprof");
	copy("snap-b.txt", "proc/kmemprof");
	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		char from[64];

		snprintf(from, sizeof(from), "view-%s.txt", views[i]);
		snprintf(rel, sizeof(rel), "sys/kernel/debug/kmemprof/%s",
			 views[i]);
		copy(from, rel);
	}
	snprintf(rel, sizeof(rel), "%s/sysctl.txt", kp_fixtures);
	f = fopen(rel, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %63s", key, val) != 2)
			continue;
		snprintf(rel, sizeof(rel), "proc/sys/kmemprof/%s", key);
		write_file(rel, val);
	}
	fclose(f);
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

/* Run kmemprof ARGS (through sh), its output (@redir) into @out. */
static int vrun(char *out, size_t len, const char *redir, const char *fmt,
		va_list ap)
{
	char args[1024], cmd[2048];
	size_t n = 0, got;
	FILE *p;
	int st;

	vsnprintf(args, sizeof(args), fmt, ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s %s", root, kp_binary,
		 args, redir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < len && (got = fread(out + n, 1, len - n - 1, p)))
		n += got;
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* stdout and stderr into @out. */
static int run(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vrun(out, len, "2>&1", fmt, ap);
	va_end(ap);
	return rc;
}

/* stderr alone into @out. */
static int run_err(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vrun(out, len, "2>&1 >/dev/null", fmt, ap);
	va_end(ap);
	return rc;
}

/* stdout alone into @out. */
static int run_out(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vrun(out, len, "2>/dev/null", fmt, ap);
	va_end(ap);
	return rc;
}

static void knob_writes(void **state)
{
	char buf[64], err[256], *v;

	(void)state;
	assert_int_equal(kp_knob_write("stack_depth", "8", err, sizeof(err)), 0);
	v = slurp("proc/sys/kmemprof/stack_depth");
	assert_string_equal(v, "8");	/* one write, no newline */
	free(v);
	assert_int_equal(kp_knob_read("stack_depth", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "8");
	assert_int_equal(kp_knob_write("nope", "1", err, sizeof(err)), -1);
	assert_string_equal(err, "no knob 'nope' (see 'kmemprof set' for the list)");
	assert_int_equal(kp_knob_write("../../x", "1", err, sizeof(err)), -1);
	assert_string_equal(err, "no knob '../../x'");
	if (geteuid()) {
		/* A knob the caller may not write, as /proc/sys's 0600 ones. */
		char path[512], want[600];

		snprintf(path, sizeof(path), "%s/proc/sys/kmemprof/enabled",
			 root);
		chmod(path, 0400);
		assert_int_equal(kp_knob_write("enabled", "1", err, sizeof(err)),
				 -1);
		snprintf(want, sizeof(want), "writing %s needs root", path);
		assert_string_equal(err, want);
	}
	setenv("KMEMPROF_ROOT", "/nonexistent", 1);
	assert_int_equal(kp_knob_write("enabled", "1", err, sizeof(err)), -1);
	assert_string_equal(err, "the kmemprof module is not loaded (no /nonexistent/proc/sys/kmemprof)");
	setenv("KMEMPROF_ROOT", root, 1);
}

static void knob_messages(void **state)
{
	static const char *const path = "/proc/sys/kmemprof/enabled";
	char err[256];

	(void)state;
	unsetenv("KMEMPROF_ROOT");
	kp_knob_error(path, "enabled", "1", EACCES, err, sizeof(err));
	assert_string_equal(err, "writing /proc/sys/kmemprof/enabled needs root");
	kp_knob_error(path, "enabled", "1", EPERM, err, sizeof(err));
	assert_string_equal(err, "writing /proc/sys/kmemprof/enabled needs root");
	kp_knob_error(path, "enabled", "foo", EINVAL, err, sizeof(err));
	assert_string_equal(err, "the module refused enabled=foo (EINVAL)");
	kp_knob_error(path, "enabled", "1", EIO, err, sizeof(err));
	assert_string_equal(err, "writing /proc/sys/kmemprof/enabled: Input/output error");
	setenv("KMEMPROF_ROOT", "/nonexistent", 1);
	kp_knob_error(path, "enabled", "1", ENOENT, err, sizeof(err));
	assert_string_equal(err, "the kmemprof module is not loaded (no /nonexistent/proc/sys/kmemprof)");
	setenv("KMEMPROF_ROOT", root, 1);
}

static void cli_knobs(void **state)
{
	char out[4096], *v;

	(void)state;
	assert_int_equal(run(out, sizeof(out), "set stack_depth=6 key_depth=1"), 0);
	v = slurp("proc/sys/kmemprof/stack_depth");
	assert_string_equal(v, "6");
	free(v);
	v = slurp("proc/sys/kmemprof/key_depth");
	assert_string_equal(v, "1");
	free(v);
	assert_int_equal(run(out, sizeof(out), "disable"), 0);
	v = slurp("proc/sys/kmemprof/enabled");
	assert_string_equal(v, "0");
	free(v);
	assert_int_equal(run(out, sizeof(out), "enable"), 0);
	v = slurp("proc/sys/kmemprof/enabled");
	assert_string_equal(v, "1");
	free(v);
	assert_int_equal(run(out, sizeof(out), "reset"), 0);
	v = slurp("proc/sys/kmemprof/reset");
	assert_string_equal(v, "1");
	free(v);
	assert_int_equal(run(out, sizeof(out), "set"), 0);
	assert_non_null(strstr(out, "stack_depth=6\n"));
	assert_non_null(strstr(out, "events=slab,page,percpu\n"));
	assert_int_equal(run(out, sizeof(out), "set stack_depth"), 2);
	assert_string_equal(out, "kmemprof set: stack_depth: expected KEY=VALUE\n");
	assert_int_equal(run(out, sizeof(out), "set nope=1"), 1);
	assert_string_equal(out, "kmemprof: no knob 'nope' (see 'kmemprof set' for the list)\n");
	setenv("KMEMPROF_ROOT", "/nonexistent", 1);
	assert_int_equal(run(out, sizeof(out), "enable"), 1);
	assert_string_equal(out, "kmemprof: the kmemprof module is not loaded (no /nonexistent/proc/sys/kmemprof)\n");
	assert_int_equal(run(out, sizeof(out), "set"), 1);
	setenv("KMEMPROF_ROOT", root, 1);
}

static void cli_help(void **state)
{
	static const char *const cmds[] = {
		"top", "watch", "snapshot", "diff", "leaks", "stacks", "hist",
		"stats", "ages", "cpus", "enable", "disable", "reset", "set",
		"plot", "help", "meminfo",
	};
	char out[8192], want[64];
	size_t i;

	(void)state;
	assert_int_equal(run(out, sizeof(out), "help"), 0);
	assert_non_null(strstr(out, "commands:"));
	assert_int_equal(run(out, sizeof(out), "--help"), 0);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(want, sizeof(want), "\n  %s ", cmds[i]);
		assert_non_null(strstr(out, want));
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		assert_int_equal(run(out, sizeof(out), "%s --help", cmds[i]), 0);
		snprintf(want, sizeof(want), "usage: kmemprof %s ", cmds[i]);
		assert_non_null(strstr(out, want));
		assert_int_equal(run(out, sizeof(out), "help %s", cmds[i]), 0);
		assert_non_null(strstr(out, want));
	}
	assert_int_equal(run(out, sizeof(out), "frobnicate"), 2);
	assert_string_equal(out, "kmemprof: unknown command 'frobnicate' (kmemprof help lists them)\n");
	assert_int_equal(run(out, sizeof(out), "top --sort size"), 2);
	assert_int_equal(run(out, sizeof(out), "leaks extra"), 2);
	assert_int_equal(run(out, sizeof(out), "top -n x"), 2);
	assert_int_equal(run(out, sizeof(out), "plot"), 2);
	assert_int_equal(run(out, sizeof(out), "plot hist"), 2);
	assert_string_equal(out, "kmemprof plot: plot top | plot hist SITE | plot series RECORD | plot meminfo, with -o FILE.svg\n");
	assert_int_equal(run(out, sizeof(out), "plot series /nonexistent -o x.svg"), 1);
	assert_int_equal(run(out, sizeof(out), "top --json --csv"), 2);
	assert_string_equal(out, "kmemprof top: one output at a time: --json, --csv, --openmetrics, --prometheus or --pprof\n");
}

static void cli_top(void **state)
{
	char out[8192];

	(void)state;
	assert_int_equal(run(out, sizeof(out), "-n 3 -H"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS KIND   SITE\n"
		"        2.0M      256      8.0K       256 page   hog_alloc+0x38/0x48 [kmemprof_hog]\n"
		"        308K       37      8.4K        54 page   new_slab+0x2d8/0x454\n"
		"         64K       16      4.0K      3225 page   __handle_mm_fault+0xd4c/0x1624\n");
	assert_int_equal(run(out, sizeof(out), "top -n 1 --kind slab --func '^kmp_'"), 0);
	assert_non_null(strstr(out, "[kmemprof]"));
	/* allocinfo when /proc/kmemprof is not there */
	copy("allocinfo-6.12.txt", "proc/allocinfo");
	unlink(strcat(strcpy(out, root), "/proc/kmemprof"));
	assert_int_equal(run(out, sizeof(out), "-n 1"), 0);
	assert_non_null(strstr(out, " -      "));
	/* top by age, from the ages view; by rate, from two snapshots */
	copy("snap-b.txt", "proc/kmemprof");
	assert_int_equal(run(out, sizeof(out), "top --sort age -n 1"), 0);
	assert_non_null(strstr(out, "      4.3s slab   __d_alloc+0x44/0x1d8\n"));
	assert_int_equal(run(out, sizeof(out), "top --sort age --module kmemprof_hog -n 1"), 0);
	assert_non_null(strstr(out, "AGE>="));
	assert_non_null(strstr(out, "      2.1s page   hog_alloc+0x38/0x48"));
	/* A module loaded again: the age goes to the tag with live objects. */
	write_file("re.txt", "kmemprof - version: 1.0\n"
		   "   0 0 h+0x1/0x2 [hog] func:h kind:page allocs:1 frees:1 bytes:4096 req:4096 module:unloaded\n"
		   "8192 2 h+0x1/0x2 [hog] func:h kind:page allocs:2 frees:0 bytes:8192 req:8192\n");
	write_file("re-ages.txt", "kmemprof ages - version: 1.0\n"
		   "8192 2 h+0x1/0x2 [hog] func:h kind:page age:0,0,0,0,0,0,0,0,0,0,0,2\n");
	assert_int_equal(run(out, sizeof(out), "-i re.txt --ages re-ages.txt"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS     AGE>= KIND   SITE\n"
		"        8192        2      4096         2       1ms page   h+0x1/0x2 [hog]\n"
		"           0        0         -         1       0ms page   h+0x1/0x2 [hog] (unloaded)\n");
	assert_int_equal(run(out, sizeof(out), "snapshot -o a.snap"), 0);
	assert_int_equal(run(out, sizeof(out), "top --sort rate --since a.snap -n 1"), 0);
	assert_non_null(strstr(out, "ALLOCS/S"));
	assert_int_equal(run(out, sizeof(out), "top --sort rate -i a.snap"), 2);
	/* rates between two snapshots with times: 40 allocs in 10 s */
	write_file("r1.snap", "kmemprof - version: 1.0\n# snapshot time:100.000 source:x\n"
		   "      1000       10 a+0x0/0x1 func:a kind:slab allocs:50 frees:40 bytes:5000 req:2500\n");
	write_file("r2.snap", "kmemprof - version: 1.0\n# snapshot time:110.000 source:x\n"
		   "      3000       30 a+0x0/0x1 func:a kind:slab allocs:90 frees:60 bytes:9000 req:4500\n"
		   "       100        1 b+0x0/0x1 func:b kind:slab allocs:5 frees:4 bytes:100 req:100\n");
	assert_int_equal(run(out, sizeof(out), "--sort rate --since r1.snap -i r2.snap"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS  ALLOCS/S KIND   SITE\n"
		"        3000       30       100        90       4.0 slab   a+0x0/0x1\n"
		"         100        1       100         5       0.5 slab   b+0x0/0x1\n");
	assert_int_equal(run(out, sizeof(out), "--sort rate --since r2.snap -i r1.snap"), 1);
	assert_non_null(strstr(out, "no snapshot time before"));
	/* allocinfo's live bytes can be negative: shown, not "absent" */
	write_file("neg.txt", "allocinfo - version: 1.0\n"
		   "       -4096        1 mm/slub.c:2259 func:alloc_slab_page\n");
	assert_int_equal(run(out, sizeof(out), "-i neg.txt -H"), 0);
	assert_non_null(strstr(out, "\n       -4.0K        1         -         - -      mm/slub.c:2259 alloc_slab_page\n"));
	/* --pprof --stacks FILE must be a stacks view */
	assert_int_equal(run(out, sizeof(out), "top --pprof x.pb.gz --stacks sys/kernel/debug/kmemprof/hist"), 1);
	assert_non_null(strstr(out, "sys/kernel/debug/kmemprof/hist:1: not a kmemprof stacks view\n"));
}

static void cli_malformed(void **state)
{
	char out[1024], path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/bad-value.txt", kp_fixtures);
	assert_int_equal(run(out, sizeof(out), "-i '%s'", path), 1);
	assert_non_null(strstr(out, "bad-value.txt:3: bad value for allocs: 'x'\n"));
	write_file("sys/kernel/debug/kmemprof/leaks",
		   "kmemprof leaks - version: 1.0\n  00 size:1 age_ms:1 cpu:0\n");
	assert_int_equal(run(out, sizeof(out), "leaks"), 1);
	assert_non_null(strstr(out, "/sys/kernel/debug/kmemprof/leaks:2: object before any tag\n"));
	assert_int_equal(run(out, sizeof(out), "stats -i /nonexistent"), 1);
	assert_string_equal(out, "kmemprof: cannot open /nonexistent: No such file or directory\n");
	assert_int_equal(run(out, sizeof(out), "diff /nonexistent"), 2);
	setenv("KMEMPROF_ROOT", "/nonexistent", 1);
	assert_int_equal(run(out, sizeof(out), "-n 3"), 1);
	assert_string_equal(out, "kmemprof: cannot open /nonexistent/proc/kmemprof: No such file or directory (is the kmemprof module loaded?)\n");
	assert_int_equal(run(out, sizeof(out), "leaks"), 1);
	assert_string_equal(out, "kmemprof: cannot open /nonexistent/sys/kernel/debug/kmemprof/leaks: No such file or directory (is debugfs mounted and the kmemprof module loaded?)\n");
	setenv("KMEMPROF_ROOT", root, 1);
}

static void cli_snapshot_diff(void **state)
{
	char out[8192], path[512];

	(void)state;
	assert_int_equal(run(out, sizeof(out), "snapshot -o b.snap"), 0);
	assert_string_equal(out, "");
	assert_int_equal(run(out, sizeof(out), "diff b.snap b.snap"), 0);
	/* A zero unsigned, as GROWTH has it, in the header too. */
	assert_non_null(strstr(out, ": live 0 bytes; 0 sites grew, 0 new, 0 gone\n"));
	snprintf(path, sizeof(path), "%s/snap-a.txt", kp_fixtures);
	assert_int_equal(run(out, sizeof(out), "diff '%s' b.snap -n 2 -H", path), 0);
	assert_non_null(strstr(out,
		"      GROWTH       LIVE A       LIVE B      OBJS    ALLOCS KIND   SITE\n"
		"       +2.0M        (new)         2.0M      +256      +256 page   hog_alloc+0x38/0x48 [kmemprof_hog]\n"
		"        +80K         228K         308K       +11       +25 page   new_slab+0x2d8/0x454\n"));
	assert_non_null(strstr(out, "live +2.2M bytes; 30 sites grew, 24 new, 0 gone\n"));
	assert_int_equal(run(out, sizeof(out), "diff '%s' b.snap --min-bytes 100000", path), 0);
	assert_non_null(strstr(out, "hog_alloc"));
	assert_null(strstr(out, "new_slab"));
	/* In the order of the snapshots, nothing on stderr. */
	assert_int_equal(run_err(out, sizeof(out), "diff '%s' b.snap", path), 0);
	assert_string_equal(out, "");
}

/*
 * diff's words and signs: "1 site grew", 0 unsigned in OBJS as in
 * GROWTH; A newer than B said on stderr (still B - A, exit 0): by the
 * snapshots' times, or without them by allocations that went back.
 */
static void cli_diff_order(void **state)
{
	char out[16384], a[512], b[512], want[2048];

	(void)state;
	snprintf(a, sizeof(a), "%s/snap-a.txt", kp_fixtures);
	snprintf(b, sizeof(b), "%s/snap-b.txt", kp_fixtures);
	assert_int_equal(run_out(out, sizeof(out), "diff '%s' '%s'", b, a), 0);
	assert_non_null(strstr(out, ": live -2261264 bytes; 1 site grew, 0 new, 24 gone\n"));
	assert_non_null(strstr(out, "\n           0            0            0         0        -1 page   ___kmalloc_large_node+0xa8/0xc0\n"));
	assert_null(strstr(out, "+0 "));
	/* No times: the allocations that went back tell. */
	assert_int_equal(run_err(out, sizeof(out), "diff '%s' '%s'", b, a), 0);
	snprintf(want, sizeof(want), "kmemprof diff: allocations went back at 70 sites: %s is older than %s, or the counters were reset between them (a reload, kmemprof reset)\n",
		 a, b);
	assert_string_equal(out, want);
	/* kmemprof snapshot's times: the newer one named. */
	assert_int_equal(system("cd \"$KMEMPROF_ROOT\" && "
		"sed '1a # snapshot time:1700000100.000 source:/proc/kmemprof' "
		"\"$KMEMPROF_ROOT/proc/kmemprof\" > new.snap && "
		"sed '1a # snapshot time:1700000000.000 source:/proc/kmemprof' "
		"\"$KMEMPROF_ROOT/proc/kmemprof\" > old.snap"), 0);
	assert_int_equal(run_err(out, sizeof(out), "diff new.snap old.snap"), 0);
	assert_string_equal(out, "kmemprof diff: new.snap is 100.0 s newer than old.snap: each number is B minus A, so allocations count back; the growth since old.snap is 'kmemprof diff old.snap new.snap'\n");
	assert_int_equal(run_err(out, sizeof(out), "diff old.snap new.snap"), 0);
	assert_string_equal(out, "");
}

static void cli_watch(void **state)
{
	char out[16384], err[256], path[512];
	struct kp_series s;
	FILE *f;
	char *p;
	int frames = 0;

	(void)state;
	assert_int_equal(run(out, sizeof(out), "watch -d 0.1 -c 3 -n 2 --record rec"), 0);
	for (p = out; (p = strstr(p, "kmemprof watch")); p++)
		frames++;
	assert_int_equal(frames, 3);
	assert_null(strstr(out, "\033["));	/* no ANSI when not a terminal */
	assert_non_null(strstr(out, "    LIVE     GROWTH/S   ALLOCS/S      BYTES/S KIND   SITE\n"));
	assert_non_null(strstr(out, " 2097152            0        0.0            0 page   hog_alloc"));
	snprintf(path, sizeof(path), "%s/rec", root);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(kp_series_load(f, "rec", &s, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(s.nt, 3);
	assert_true(s.t[2] > s.t[0]);
	kp_series_free(&s);
	assert_int_equal(run(out, sizeof(out), "watch -d 0"), 2);
}

static void cli_views(void **state)
{
	char out[16384];

	(void)state;
	assert_int_equal(run(out, sizeof(out), "leaks -n 1"), 0);
	assert_string_equal(out,
		"Leak suspects, live longer than 1000 ms: 586 objects, 2535160 bytes, 43 sites\n"
		"        LIVE     OBJS   OLDEST KIND   SITE\n"
		"     2097152      256     4.3s page   hog_alloc+0x38/0x48 [kmemprof_hog]\n"
		"        8192              4.3s          object 000000003f609b8a on cpu3\n"
		"        8192              4.3s          object 000000003f60d021 on cpu3\n"
		"        8192              4.3s          object 000000000d522450 on cpu3\n"
		"        8192              4.3s          object 0000000025c2aa25 on cpu3\n"
		"        8192              4.3s          object 00000000131ce54b on cpu3\n");
	/* --older, as bcc's memleak: the objects that old, their sites */
	assert_int_equal(run(out, sizeof(out), "leaks --older 5.57s -n 2"), 0);
	assert_string_equal(out,
		"Leak suspects, live longer than 1000 ms: 586 objects, 2535160 bytes, 43 sites\n"
		"        LIVE     OBJS   OLDEST KIND   SITE\n"
		"         448        7     5.6s slab   tracepoint_add_func+0x12c/0x418\n"
		"          64              5.6s          object 00000000f09e287c on cpu2\n"
		"          64              5.6s          object 0000000018941a6d on cpu2\n"
		"          64              5.6s          object 00000000a4ccffbe on cpu2\n"
		"          64              5.6s          object 000000003551d542 on cpu2\n"
		"          64              5.6s          object 00000000e43d3fd5 on cpu2\n"
		"         384        2     5.6s slab   alloc_worker+0x38/0x74\n"
		"         192              5.6s          object 00000000500b5e35 on cpu2\n");
	assert_int_equal(run(out, sizeof(out), "leaks --older 5585 --json"), 0);
	assert_non_null(strstr(out, "\"sites\":[\n{\"site\":\"tracepoint_add_func+0x12c/0x418\",\"module\":null,\"func\":\"tracepoint_add_func\",\"kind\":\"slab\",\"callers\":[],\"live_bytes\":448,\"live_objects\":7,\"objects\":[{\"addr\":\"00000000f09e287c\",\"size\":64,\"age_ms\":5585,\"cpu\":2}]}\n]}"));
	assert_int_equal(run(out, sizeof(out), "leaks --older 1h"), 0);
	assert_string_equal(out,
		"Leak suspects, live longer than 1000 ms: 586 objects, 2535160 bytes, 43 sites\n"
		"        LIVE     OBJS   OLDEST KIND   SITE\n"
		"(no leak suspects live at least 3600000 ms)\n");
	assert_int_equal(run(out, sizeof(out), "leaks --older 500ms"), 2);
	assert_non_null(strstr(out, "kmemprof leaks: --older 500ms: "));
	assert_non_null(strstr(out, "/sys/kernel/debug/kmemprof/leaks lists objects live longer than 1000 ms only (kmemprof set leak_age_ms=500)\n"));
	assert_int_equal(run(out, sizeof(out), "leaks --older 2d"), 2);
	assert_string_equal(out, "kmemprof leaks: --older 2d: expected a duration (1500 or 1500ms, 1.5s, 2m, 1h)\n");
	assert_int_equal(run(out, sizeof(out), "stacks hog_alloc"), 0);
	assert_string_equal(out,
		"hog_alloc+0x38/0x48 [kmemprof_hog] kind:page: 256 allocs, 2097152 bytes sampled\n"
		"  100.0%    2097152 bytes      256 allocs\n"
		"        hog_alloc+0x38/0x48 [kmemprof_hog]\n"
		"        hog_init+0xb8/0x1000 [kmemprof_hog]\n"
		"        do_one_initcall+0x5c/0x1c4\n"
		"        do_init_module+0x70/0x218\n");
	assert_int_equal(run(out, sizeof(out), "hist hog_alloc"), 0);
	assert_string_equal(out,
		"hog_alloc+0x38/0x48 [kmemprof_hog] kind:page: xcpu 0, xcluster 0, frag 0.0%, waste 0 bytes\n"
		"  allocations by size (page order): 256\n"
		"      8.0K |################################################## 256\n"
		"  frees by lifetime (each bucket: from): 0\n");
	assert_int_equal(run(out, sizeof(out), "hist"), 0);
	assert_non_null(strstr(out, "all slab allocations: xcpu 12709, xcluster 12239, frag 5.5%, waste 6491 bytes\n"));
	assert_non_null(strstr(out, "all page allocations"));
	assert_non_null(strstr(out, "all percpu allocations"));
	assert_int_equal(run(out, sizeof(out), "hist nosuch"), 1);
	assert_non_null(strstr(out, "kmemprof: no histograms for 'nosuch' in "));
	assert_int_equal(run(out, sizeof(out), "cpus"), 0);
	assert_string_equal(out,
		" CPU  CLUSTER       ALLOCS        FREES       REMOTE       %     XCLUSTER       %\n"
		"   0        0         7898         2637          733   27.8%          516   19.6%\n"
		"   1        0        12653         4745         1674   35.3%         1525   32.1%\n"
		"   2        1         9581        17268         8308   48.1%         8053   46.6%\n"
		"   3        1        10090        14787         7029   47.5%         7028   47.5%\n");
	assert_int_equal(run(out, sizeof(out), "ages -n 2 -H"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS OLDEST>= MEDIAN>= KIND   SITE\n"
		"        364K       41     4.3s     2.1s page   new_slab+0x2d8/0x454\n"
		"         64K        4     4.3s     67ms page   copy_process+0x1b0/0x127c\n");
	assert_int_equal(run(out, sizeof(out), "stats -H"), 0);
	assert_non_null(strstr(out, "kmemprof is enabled; events slab,page,percpu; unavailable none\n"));
	assert_non_null(strstr(out, "  live            736     524288    0.1%          18M\n"));
	assert_non_null(strstr(out, "probe cost: 11807 ns per event (81 events timed)\n"));
}

/* The views with the module's knobs off: hist and lifetimes 0. */
static void cli_views_knobs_off(void **state)
{
	static char out[1 << 16];

	(void)state;
	write_file("proc/sys/kmemprof/hist", "0\n");
	write_file("sys/kernel/debug/kmemprof/hist",
		   "kmemprof hist - version: 1.0\n"
		   "# <site> [<module>] func:<function> kind:<kind> size:<20 counts>\n"
		   "# histograms off: echo 1 > /proc/sys/kmemprof/hist\n");
	assert_int_equal(run(out, sizeof(out), "hist"), 1);
	assert_non_null(strstr(out, "kmemprof: no histograms in "));
	assert_non_null(strstr(out, "/sys/kernel/debug/kmemprof/hist (histograms are off: kmemprof set hist=1)\n"));
	write_file("sys/kernel/debug/kmemprof/stats",
		   "enabled 1\nevents slab,page\nunavailable percpu\n"
		   "events.kmalloc 5\ndrop.tags 0\npfnmap.bytes 8192\n"
		   "tags.used 1\ntags.max 16384\ntags.bytes 4718592\n");
	assert_int_equal(run(out, sizeof(out), "stats"), 0);
	assert_non_null(strstr(out, "  pfnmap            -          -       -         8192\n"));
	assert_null(strstr(out, "probe cost"));
	/* a grown live table: its max is what it has now, load and growth */
	write_file("sys/kernel/debug/kmemprof/stats",
		   "enabled 1\nevents slab\nunavailable none\n"
		   "live.used 70000\nlive.max 61888\nlive.grown 12288\n"
		   "live.grow_max 188416\nlive.bytes 2000000\n");
	assert_int_equal(run(out, sizeof(out), "stats"), 0);
	assert_non_null(strstr(out, "  live          70000      74176   94.4%      2000000\n"));
	assert_non_null(strstr(out, "  live.grown                      12288\n"));
	assert_non_null(strstr(out, "  live.grow_max                  188416\n"));
	write_file("sys/kernel/debug/kmemprof/cpus",
		   "kmemprof cpus - version: 1.0\n"
		   "# cpu cluster allocs frees remote xcluster\n"
		   "# remote, xcluster: counted only with hist on\n"
		   "0 0 10 5 0 0\n");
	assert_int_equal(run(out, sizeof(out), "cpus"), 0);
	assert_non_null(strstr(out, "   0        0           10            5            0"));
}


/* Occurrences of @needle in @hay. */
static size_t count_str(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* Finding 1: machine outputs carry every site unless -n is given. */
static void cli_machine_all_sites(void **state)
{
	static char out[1 << 20];

	(void)state;
	/* The fake root's /proc/kmemprof (snap-b.txt) has 100 sites. */
	assert_int_equal(run(out, sizeof(out), "top --json"), 0);
	assert_int_equal(count_str(out, "\n{\"site\":"), 100);
	assert_int_equal(run(out, sizeof(out), "top --csv"), 0);
	assert_int_equal(count_str(out, "\n"), 101);
	assert_int_equal(run(out, sizeof(out), "top --json -n 7"), 0);
	assert_int_equal(count_str(out, "\n{\"site\":"), 7);
	/* The series outputs keep a guard, and say so when it cuts. */
	assert_int_equal(run_err(out, sizeof(out), "top --openmetrics -n 5"), 0);
	assert_string_equal(out, "kmemprof: --openmetrics: the first 5 of 100 sites (-n 0: all)\n");
	assert_int_equal(run_err(out, sizeof(out), "top --prometheus"), 0);
	assert_string_equal(out, "");
	assert_int_equal(run(out, sizeof(out), "top --prometheus"), 0);
	assert_int_equal(count_str(out, "\nkmemprof_live_bytes{"), 100);
	assert_int_equal(run(out, sizeof(out), "diff '%s/snap-a.txt' proc/kmemprof --json", kp_fixtures), 0);
	assert_int_equal(count_str(out, "\n{\"site\":"), 100);
}

/* Finding 4: every series carries a source label. */
static void cli_source_label(void **state)
{
	static char out[1 << 20];

	(void)state;
	assert_int_equal(run(out, sizeof(out), "top --openmetrics"), 0);
	assert_non_null(strstr(out, "\nkmemprof_sites{source=\"kmemprof\"} 100\n"));
	assert_non_null(strstr(out, "\nkmemprof_live_bytes{source=\"kmemprof\",site=\"hog_alloc+0x38/0x48\",func=\"hog_alloc\",module=\"kmemprof_hog\",kind=\"page\"} 2097152\n"));
	assert_int_equal(run(out, sizeof(out), "top --prometheus -i '%s/allocinfo-6.12.txt'", kp_fixtures), 0);
	assert_non_null(strstr(out, "\nkmemprof_sites{source=\"allocinfo\"} 984\n"));
	assert_int_equal(run(out, sizeof(out), "top --prometheus --source node-a"), 0);
	assert_non_null(strstr(out, "\nkmemprof_sites{source=\"node-a\"} 100\n"));
	assert_int_equal(count_str(out, "{source=\"node-a\""), count_str(out, "\nkmemprof_"));
}

/* Finding 5: diff's machine outputs are deltas, named as such. */
static void cli_diff_machine(void **state)
{
	static char out[1 << 20];

	(void)state;
	assert_int_equal(run(out, sizeof(out), "diff '%s/snap-a.txt' proc/kmemprof", kp_fixtures), 0);
	assert_non_null(strstr(out, ": live +2261264 bytes;"));
	assert_int_equal(run(out, sizeof(out), "diff '%s/snap-a.txt' proc/kmemprof --json", kp_fixtures), 0);
	assert_non_null(strstr(out, "\"totals\":{\"sites\":100,\"live_bytes\":2261264,"));
	assert_int_equal(run(out, sizeof(out), "diff '%s/snap-a.txt' proc/kmemprof --openmetrics", kp_fixtures), 0);
	assert_null(strstr(out, "\nkmemprof_allocs_total{"));
	assert_null(strstr(out, "\nkmemprof_live_bytes{"));
	assert_non_null(strstr(out, "\n# TYPE kmemprof_live_bytes_delta gauge\n"));
	assert_non_null(strstr(out, "\nkmemprof_allocs_delta{source=\"kmemprof\",site=\"hog_alloc+0x38/0x48\",func=\"hog_alloc\",module=\"kmemprof_hog\",kind=\"page\"} 256\n"));
	/* A kmemprof profile and an allocinfo one have no site in common. */
	assert_int_equal(run(out, sizeof(out), "diff proc/kmemprof '%s/allocinfo-6.12.txt'", kp_fixtures), 1);
	assert_non_null(strstr(out, "kmemprof: diff: proc/kmemprof is a kmemprof profile and "));
	assert_non_null(strstr(out, "allocinfo-6.12.txt an allocinfo one; their sites cannot match\n"));
}

/* Finding 6: a command line without traps. */
static void cli_no_traps(void **state)
{
	static char out[1 << 20];
	char a[8192];

	(void)state;
	/* -i is the input everywhere; watch's interval is -d. */
	assert_int_equal(run(out, sizeof(out), "watch -i proc/kmemprof -d 0.1 -c 2 -n 1"), 0);
	assert_int_equal(count_str(out, "kmemprof watch"), 2);
	assert_int_equal(run(out, sizeof(out), "watch -i 0.1 -c 1"), 1);
	assert_string_equal(out, "kmemprof: cannot open 0.1: No such file or directory\n");
	/* An option is not taken for a file name. */
	assert_int_equal(run(out, sizeof(out), "top --pprof -i proc/kmemprof"), 2);
	assert_string_equal(out, "kmemprof top: --pprof: '-i' is an option, not a FILE (--pprof=-i for a file so named)\n");
	assert_int_equal(access("-i", F_OK), -1);
	/* Outputs that cannot be combined are refused. */
	assert_int_equal(run(out, sizeof(out), "top --json --pprof x.pb.gz"), 2);
	assert_string_equal(out, "kmemprof top: one output at a time: --json, --csv, --openmetrics, --prometheus or --pprof\n");
	assert_int_equal(run(out, sizeof(out), "top --stacks sys/kernel/debug/kmemprof/stacks"), 2);
	assert_string_equal(out, "kmemprof top: --stacks is for --pprof\n");
	/* --kind is checked. */
	assert_int_equal(run(out, sizeof(out), "top --kind foo"), 2);
	assert_string_equal(out, "kmemprof top: --kind foo: expected slab, page or percpu\n");
	/* --min-bytes takes IEC suffixes, as -H prints them. */
	assert_int_equal(run(a, sizeof(a), "top --min-bytes 4096"), 0);
	assert_int_equal(run(out, sizeof(out), "top --min-bytes 4K"), 0);
	assert_string_equal(out, a);
	assert_int_equal(run(out, sizeof(out), "top --min-bytes 4Q"), 2);
	assert_string_equal(out, "kmemprof top: --min-bytes 4Q: expected a size (4096, 4K, 2M, 1G)\n");
	/* A value refused names its command, as an unknown option does. */
	{
		static const struct {
			const char *args, *err;
		} bad[] = {
			{ "-n x", "kmemprof top: -n x: expected a count\n" },
			{ "watch -d 0.01", "kmemprof watch: -d 0.01: at least 0.1 s\n" },
			{ "watch -c -1", "kmemprof watch: -c -1: expected a count\n" },
			{ "top -d x", "kmemprof top: -d x: expected a number\n" },
			{ "diff a", "kmemprof diff: two snapshots: kmemprof diff A B\n" },
			{ "diff --kind x a b", "kmemprof diff: --kind x: expected slab, page or percpu\n" },
			{ "leaks -n y", "kmemprof leaks: -n y: expected a count\n" },
			{ "watch --min-bytes 1X", "kmemprof watch: --min-bytes 1X: expected a size (4096, 4K, 2M, 1G)\n" },
			{ "set foo", "kmemprof set: foo: expected KEY=VALUE\n" },
			{ "snapshot --file-mode 0777", "kmemprof snapshot: --file-mode 0777: expected 0600, 0640, 0604 or 0644 (others may read, never write)\n" },
			{ "top --sort rate -i proc/kmemprof", "kmemprof top: --sort rate needs two reads: the live file, or --since A.snap -i B.snap\n" },
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			assert_int_equal(run(out, sizeof(out), "%s", bad[i].args), 2);
			if (strcmp(out, bad[i].err))
				fail_msg("kmemprof %s: '%s', not '%s'", bad[i].args,
					 out, bad[i].err);
		}
	}
	/* --version */
	assert_int_equal(run(out, sizeof(out), "--version"), 0);
	assert_int_equal(strncmp(out, "kmemprof 0.1.0\n", 15), 0);
	/* Falling back to allocinfo says so. */
	copy("allocinfo-6.12.txt", "proc/allocinfo");
	unlink(strcat(strcpy(a, root), "/proc/kmemprof"));
	assert_int_equal(run_err(out, sizeof(out), "top -n 1"), 0);
	snprintf(a, sizeof(a), "kmemprof: no %s/proc/kmemprof (is the kmemprof module loaded?): reading %s/proc/allocinfo\n",
		 root, root);
	assert_string_equal(out, a);
	/* A directory is not an empty input. */
	assert_int_equal(run(out, sizeof(out), "top -i /tmp"), 1);
	assert_string_equal(out, "kmemprof: cannot open /tmp: Is a directory\n");
	/* A bad value names its field. */
	assert_int_equal(run(out, sizeof(out), "top -i '%s/bad-value.txt'", kp_fixtures), 1);
	assert_non_null(strstr(out, "bad-value.txt:3: bad value for allocs: 'x'\n"));
}

/* Finding 6: every view has --json, with its schema. */
static void cli_views_json(void **state)
{
	static char out[1 << 20];

	(void)state;
	assert_int_equal(run(out, sizeof(out), "leaks --json -n 1"), 0);
	assert_int_equal(strncmp(out, "{\"schema\":1,\"view\":\"leaks\",", 27), 0);
	assert_non_null(strstr(out, "\"summary\":{\"age_ms\":1000,\"objects\":586,\"bytes\":2535160,\"sites\":43}"));
	assert_non_null(strstr(out, "{\"site\":\"hog_alloc+0x38/0x48\",\"module\":\"kmemprof_hog\",\"func\":\"hog_alloc\",\"kind\":\"page\",\"callers\":[],\"live_bytes\":2097152,\"live_objects\":256,\"objects\":[{\"addr\":\"000000003f609b8a\",\"size\":8192,\"age_ms\":"));
	assert_int_equal(run(out, sizeof(out), "stacks --json hog_alloc"), 0);
	assert_non_null(strstr(out, "\"frames\":[\"hog_alloc+0x38/0x48 [kmemprof_hog]\",\"hog_init+0xb8/0x1000 [kmemprof_hog]\",\"do_one_initcall+0x5c/0x1c4\",\"do_init_module+0x70/0x218\"]"));
	assert_int_equal(run(out, sizeof(out), "hist --json hog_alloc"), 0);
	assert_non_null(strstr(out, "\"size\":[0,256,0,0"));
	assert_int_equal(run(out, sizeof(out), "cpus --json"), 0);
	assert_non_null(strstr(out, "{\"cpu\":2,\"cluster\":1,\"allocs\":9581,\"frees\":17268,\"remote\":8308,\"xcluster\":8053}"));
	assert_int_equal(run(out, sizeof(out), "ages --json -n 1"), 0);
	assert_non_null(strstr(out, "\"site\":\"new_slab+0x2d8/0x454\""));
	assert_int_equal(run(out, sizeof(out), "stats --json"), 0);
	assert_non_null(strstr(out, "\"enabled\":\"1\""));
	/* An object's address as a JSON string, whatever a -i file holds. */
	write_file("hostile-leaks.txt", "kmemprof leaks - version: 1.0\n"
		   "# live longer than 1000 ms: 1 objects, 64 bytes, 1 sites\n"
		   "64 1 f+0x1/0x2 func:f kind:slab\n"
		   "  a\"b\\c\xff size:64 age_ms:1500 cpu:0\n");
	assert_int_equal(run(out, sizeof(out), "leaks --json -i hostile-leaks.txt"), 0);
	assert_non_null(strstr(out, "\"objects\":[{\"addr\":\"a\\\"b\\\\c\\ufffd\",\"size\":64,"));
}

/* kmemprof owners and top --by owner|cgroup, on the owners view. */
static void cli_owners(void **state)
{
	char out[8192], want[1024];

	(void)state;
	/* Not in the fake root: top alone never needs it. */
	assert_int_equal(run(out, sizeof(out), "owners"), 1);
	snprintf(want, sizeof(want), "kmemprof: cannot open %s/sys/kernel/debug/kmemprof/owners: No such file or directory (is debugfs mounted and the kmemprof module loaded?)\n",
		 root);
	assert_string_equal(out, want);
	copy("view-owners.txt", "sys/kernel/debug/kmemprof/owners");
	assert_int_equal(run(out, sizeof(out), "owners -n 4"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS    ALLOCS KIND   OWNER                SITE\n"
		"     1048576      128       128 page   kmp_own_a[212]       hog_alloc+0x38/0x48 [kmemprof_hog]\n"
		"      786432       96       100 page   kmp_own_b[213]       hog_alloc+0x38/0x48 [kmemprof_hog]\n"
		"      204800       25        30 page   kmp_own_a[212]       new_slab+0x2d8/0x454\n"
		"      131072       16        16 page   [kthreadd]           hog_alloc+0x38/0x48 [kmemprof_hog]\n");
	/* One site, as stacks and hist match SITE: its function. */
	assert_int_equal(run(out, sizeof(out), "owners copy_process -H"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS    ALLOCS KIND   OWNER                SITE\n"
		"        3.4K        1         2 slab   my\\x20app[301]       copy_process+0x16c/0x127c <- kernel_clone+0x80/0x330\n");
	assert_int_equal(run(out, sizeof(out), "owners nosuch"), 1);
	snprintf(want, sizeof(want), "kmemprof: no owners for 'nosuch' in %s/sys/kernel/debug/kmemprof/owners\n",
		 root);
	assert_string_equal(out, want);
	assert_int_equal(run_out(out, sizeof(out), "owners tracepoint_add_func --json"), 0);
	assert_string_equal(out,
		"{\"schema\":1,\"view\":\"owners\",\"off\":false,\"lines\":[\n"
		"{\"site\":\"tracepoint_add_func+0x12c/0x418\",\"module\":null,\"func\":\"tracepoint_add_func\",\"kind\":\"slab\",\"callers\":[],\"owner\":\"my\\\\x20app[301]\",\"type\":\"task\",\"name\":\"my\\\\x20app\",\"id\":301,\"live_bytes\":256,\"live_objects\":4,\"allocs\":4}\n"
		"]}\n");
	assert_int_equal(run_out(out, sizeof(out), "owners alloc_worker --csv"), 0);
	assert_string_equal(out,
		"site,module,func,kind,callers,owner,type,name,id,live_bytes,live_objects,allocs\r\n"
		"alloc_worker+0x38/0x74,,alloc_worker,slab,,[irq],kernel,[irq],,192,1,1\r\n");

	/* top --by owner: summed over the sites, by live bytes. */
	assert_int_equal(run(out, sizeof(out), "top --by owner"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS  SITES OWNER\n"
		"     1253376      153      8192       158      2 kmp_own_a[212]\n"
		"      786432       96      8192       100      1 kmp_own_b[213]\n"
		"      131072       16      8192        16      1 [kthreadd]\n"
		"       65536        8      8192         8      1 [kworker]\n"
		"        4096        1      4096         1      1 [softirq]\n"
		"        3648        5       730         6      2 my\\x20app[301]\n"
		"         192        1       192         1      1 [irq]\n");
	/* top's options: -n, -H, -s, --kind and the owner's --min-bytes. */
	assert_int_equal(run(out, sizeof(out), "top --by owner -n 2 -H -s objs --kind slab"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS  SITES OWNER\n"
		"        3.6K        5       730         6      2 my\\x20app[301]\n"
		"         192        1       192         1      1 [irq]\n");
	assert_int_equal(run(out, sizeof(out), "top --by owner --min-bytes 100K"), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS  SITES OWNER\n"
		"     1253376      153      8192       158      2 kmp_own_a[212]\n"
		"      786432       96      8192       100      1 kmp_own_b[213]\n"
		"      131072       16      8192        16      1 [kthreadd]\n");
	assert_int_equal(run_out(out, sizeof(out), "top --by owner --json -n 1"), 0);
	assert_string_equal(out,
		"{\"schema\":1,\"view\":\"owners\",\"by\":\"owner\",\"off\":false,\"totals\":{\"owners\":7,\"live_bytes\":2244352,\"live_objects\":280},\"owners\":[\n"
		"{\"owner\":\"kmp_own_a[212]\",\"type\":\"task\",\"live_bytes\":1253376,\"live_objects\":153,\"allocs\":158,\"sites\":2}\n"
		"]}\n");
	assert_int_equal(run_out(out, sizeof(out), "top --by owner --csv -n 2"), 0);
	assert_string_equal(out,
		"owner,type,live_bytes,live_objects,allocs,sites\r\n"
		"kmp_own_a[212],task,1253376,153,158,2\r\n"
		"kmp_own_b[213],task,786432,96,100,1\r\n");
	/* --by cgroup, on a saved view of owners=cgroup. */
	snprintf(want, sizeof(want), "top --by cgroup --owners %s/view-owners-cgroup.txt -H",
		 kp_fixtures);
	assert_int_equal(run(out, sizeof(out), "%s", want), 0);
	assert_string_equal(out,
		"        LIVE     OBJS       AVG    ALLOCS  SITES CGROUP\n"
		"        256K        2      128K         2      1 [kthreadd]\n"
		"         65K      110       605       110      2 /kmp-a\n"
		"         50K      200       256       200      1 /kmp-b\n"
		"        4.0K        1      4.0K         1      1 cgroup_id:4713\n");
	assert_int_equal(run(out, sizeof(out), "top --by cgroup"), 2);
	snprintf(want, sizeof(want), "kmemprof top: --by cgroup: %s/sys/kernel/debug/kmemprof/owners charges processes (owners=task): kmemprof set owners=cgroup, or --by owner\n",
		 root);
	assert_string_equal(out, want);
	assert_int_equal(run(out, sizeof(out), "top --by owner -i x"), 2);
	assert_string_equal(out, "kmemprof top: --by owner reads the owners view alone (--owners FILE for a saved one): not with -i\n");
	assert_int_equal(run(out, sizeof(out), "top --by owner -s frag"), 2);
	assert_string_equal(out, "kmemprof top: -s frag: --by owner sorts by bytes, objs, avg or allocs\n");
	assert_int_equal(run(out, sizeof(out), "top --by process"), 2);
	assert_string_equal(out, "kmemprof top: --by process: expected site, owner or cgroup\n");

	/* A malformed line: the file and the line, as for /proc/kmemprof. */
	write_file("bad", "kmemprof owners - version: 1.0\n# c\n"
		   "           1        1 f func:f kind:slab owner:a tgid:1 allocs:1\n"
		   "           1        1 f func:f kind:slab owner:a tgid:x allocs:1\n");
	assert_int_equal(run(out, sizeof(out), "owners -i bad"), 1);
	assert_string_equal(out, "kmemprof: bad:4: bad value for tgid:\n");
	assert_int_equal(run(out, sizeof(out), "top --by owner --owners bad"), 1);
	assert_string_equal(out, "kmemprof: bad:4: bad value for tgid:\n");
	/* ... and the live view's in top's series, which read it. */
	snprintf(want, sizeof(want), "%s/bad", root);
	snprintf(out, sizeof(out), "%s/sys/kernel/debug/kmemprof/owners", root);
	assert_int_equal(rename(want, out), 0);
	snprintf(want, sizeof(want), "kmemprof: %s/sys/kernel/debug/kmemprof/owners:4: bad value for tgid:\n",
		 root);
	assert_int_equal(run_err(out, sizeof(out), "top --prometheus --no-resolve"), 1);
	assert_string_equal(out, want);

	/* Owners off: said, in the tables and in JSON. */
	write_file("off", "kmemprof owners - version: 1.0\n"
		   "# owners off: echo task > /proc/sys/kmemprof/owners\n");
	assert_int_equal(run(out, sizeof(out), "owners -i off"), 0);
	assert_string_equal(out, "(no owners: owners are off; kmemprof set owners=task, or owners=cgroup)\n");
	assert_int_equal(run(out, sizeof(out), "top --by owner --owners off"), 0);
	assert_string_equal(out, "(no owners: owners are off; kmemprof set owners=task, or owners=cgroup)\n");
	assert_int_equal(run(out, sizeof(out), "top --by owner --owners off --json"), 0);
	assert_string_equal(out, "{\"schema\":1,\"view\":\"owners\",\"by\":\"owner\",\"off\":true,\"totals\":{\"owners\":0,\"live_bytes\":0,\"live_objects\":0},\"owners\":[]}\n");
}

/* The owner series: the largest N, the rest in owner="other". */
static void cli_owner_series(void **state)
{
	static char out[1 << 20];
	char path[512], *p;
	FILE *f;

	(void)state;
	/* No owners view: top's series are as they were. */
	assert_int_equal(run_out(out, sizeof(out), "top --prometheus --no-resolve"), 0);
	assert_null(strstr(out, "owner"));
	copy("view-owners.txt", "sys/kernel/debug/kmemprof/owners");
	assert_int_equal(run_out(out, sizeof(out), "top --prometheus --no-resolve --owner-series 2"), 0);
	p = strstr(out, "# HELP kmemprof_owners ");
	assert_non_null(p);
	assert_string_equal(p,
		"# HELP kmemprof_owners Owners with live objects in the owners view.\n"
		"# TYPE kmemprof_owners gauge\n"
		"kmemprof_owners{source=\"kmemprof\"} 7\n"
		"# HELP kmemprof_owner_live_bytes Bytes allocated for the owner (a process, a cgroup, a kernel thread) and not yet freed, over every call site; the largest owners, the rest summed as owner other.\n"
		"# TYPE kmemprof_owner_live_bytes gauge\n"
		"kmemprof_owner_live_bytes{source=\"kmemprof\",owner=\"kmp_own_a[212]\"} 1253376\n"
		"kmemprof_owner_live_bytes{source=\"kmemprof\",owner=\"kmp_own_b[213]\"} 786432\n"
		"kmemprof_owner_live_bytes{source=\"kmemprof\",owner=\"other\"} 204544\n"
		"# HELP kmemprof_owner_live_objects Objects allocated for the owner and not yet freed, over every call site; the largest owners, the rest summed as owner other.\n"
		"# TYPE kmemprof_owner_live_objects gauge\n"
		"kmemprof_owner_live_objects{source=\"kmemprof\",owner=\"kmp_own_a[212]\"} 153\n"
		"kmemprof_owner_live_objects{source=\"kmemprof\",owner=\"kmp_own_b[213]\"} 96\n"
		"kmemprof_owner_live_objects{source=\"kmemprof\",owner=\"other\"} 31\n");
	/* The default: 20, so every owner here; other is 0. */
	assert_int_equal(run_out(out, sizeof(out), "top --by owner --openmetrics --source n1"), 0);
	assert_non_null(strstr(out, "\nkmemprof_owner_live_bytes{source=\"n1\",owner=\"[irq]\"} 192\nkmemprof_owner_live_bytes{source=\"n1\",owner=\"other\"} 0\n# HELP kmemprof_owner_live_objects "));
	assert_non_null(strstr(out, "# UNIT kmemprof_owner_live_bytes bytes\n"));
	p = strstr(out, "# EOF\n");
	assert_non_null(p);
	assert_int_equal(p[6], '\0');
	/* watch's textfile: the same series, at each refresh. */
	assert_int_equal(run(out, sizeof(out), "watch -c 1 --prometheus-file w.prom --owner-series 1 > /dev/null"), 0);
	snprintf(path, sizeof(path), "%s/w.prom", root);
	f = fopen(path, "r");
	assert_non_null(f);
	out[fread(out, 1, sizeof(out) - 1, f)] = '\0';
	fclose(f);
	assert_non_null(strstr(out, "\n# TYPE kmemprof_owner_live_bytes gauge\n"
		"kmemprof_owner_live_bytes{source=\"kmemprof\",owner=\"kmp_own_a[212]\"} 1253376\n"
		"kmemprof_owner_live_bytes{source=\"kmemprof\",owner=\"other\"} 990976\n#"));
}

const struct CMUnitTest kp_cli_tests[] = {
	cmocka_unit_test_setup_teardown(knob_writes, setup, teardown),
	cmocka_unit_test_setup_teardown(knob_messages, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_knobs, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_help, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_top, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_malformed, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_snapshot_diff, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_diff_order, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_watch, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_views, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_views_knobs_off, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_machine_all_sites, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_source_label, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_diff_machine, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_no_traps, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_views_json, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_owners, setup, teardown),
	cmocka_unit_test_setup_teardown(cli_owner_series, setup, teardown),
};

const size_t kp_cli_ntests = sizeof(kp_cli_tests) / sizeof(kp_cli_tests[0]);
