// SPDX-License-Identifier: GPL-2.0
/*
 * What the reader writes, and what leaves the machine (issue 43): every
 * file is made beside its target and renamed into place, mode 0600 unless
 * --file-mode says more, so that a symlink or file planted in a shared
 * directory is neither followed nor reused; the outputs that leave the
 * machine (--prometheus, --openmetrics, --pprof, --prometheus-file) carry
 * no raw kernel address, as serve's do not.
 *
 * Through the command line, in a directory of its own, umask 022 as a
 * root shell's.
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

#include "tests.h"

static char dir[64];
static char out[1 << 16];	/* what the command printed */
static char file[1 << 16];	/* what get() read */

#define ADDR "0xffffffc0081234ab"
#define ADDR2 "0xffffffc008abcdef"
/* Two sites the kernel could not name, one of them a caller too. */
#define HOSTILE \
	"kmemprof - version: 1.0\n" \
	"# <live bytes> <live objects> <site> [<module>] func:<function> kind:<kind> allocs:<n> frees:<n> bytes:<n> req:<n>\n" \
	"        8192        2 " ADDR " func:" ADDR " kind:slab allocs:2 frees:0 bytes:8192 req:8192\n" \
	"        4096        1 kmalloc_trace+0x10/0x40 func:kmalloc_trace kind:slab allocs:1 frees:0 bytes:4096 req:4096 caller:" ADDR2 "\n"

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

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The file's text in file[]; "" if it cannot be read. */
static const char *get(const char *rel)
{
	char path[512];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	memset(file, 0, sizeof(file));
	f = fopen(path, "r");
	if (!f)
		return file;
	n = fread(file, 1, sizeof(file) - 1, f);
	file[n] = '\0';
	fclose(f);
	return file;
}

/* The mode of @rel (not followed), -1 if it is not a regular file. */
static int mode_of(const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (lstat(path, &st) || !S_ISREG(st.st_mode))
		return -1;
	return (int)(st.st_mode & 07777);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kp-secure-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	umask(022);
	put("hostile.txt", HOSTILE);
	put("victim", "precious\n");
	/* No live files: the tests name every input. */
	setenv("KMEMPROF_ROOT", dir, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("KMEMPROF_ROOT");
	sh("rm -rf '%s'", dir);
	return 0;
}

/* kmemprof ARGS in dir: its exit status; stdout and stderr in out. */
static int run(const char *fmt, ...)
{
	char args[1024], cmd[2048];
	size_t n = 0, got;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s 2>&1", dir, kp_binary,
		 args);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < sizeof(out) &&
	       (got = fread(out + n, 1, sizeof(out) - n - 1, p)))
		n += got;
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void assert_victim_intact(void)
{
	if (strcmp(get("victim"), "precious\n"))
		fail_msg("a planted symlink was followed: victim now holds '%s'",
			 file);
}

#define assert_mode(rel, want) do {					\
	int m_ = mode_of(rel);						\
	if (m_ != (want))						\
		fail_msg("%s: want a regular file of mode %04o, got %s%04o", \
			 rel, want, m_ < 0 ? "none: " : "", m_ < 0 ? 0 : m_); \
} while (0)

/* The only files in dir are the ones listed (no temporary left). */
static void assert_no_leftovers(void)
{
	char cmd[256];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "cd '%s' && ls -A | grep '^\\.' | head -3",
		 dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	pclose(p);
	if (n)
		fail_msg("temporary files left: %s", out);
}

/*
 * watch --prometheus-file: node_exporter's directory is shared. A
 * symlink at FILE.tmp (the old temporary) or at FILE is not followed,
 * and the file is 0600, whatever the umask.
 */
static void prom_file_safe(void **state)
{
	(void)state;
	sh("ln -s victim '%s/k.prom.tmp' && ln -s victim '%s/k2.prom'", dir,
	   dir);
	assert_int_equal(run("watch -c 1 -i hostile.txt --prometheus-file k.prom"), 0);
	assert_victim_intact();
	assert_mode("k.prom", 0600);
	assert_non_null(strstr(get("k.prom"), "kmemprof_sites"));
	assert_int_equal(run("watch -c 1 -i hostile.txt --prometheus-file k2.prom"), 0);
	assert_victim_intact();
	assert_mode("k2.prom", 0600);
	assert_no_leftovers();
	/* Asked for: others may read it. */
	assert_int_equal(run("watch -c 1 -i hostile.txt --prometheus-file k3.prom --file-mode 0644"), 0);
	assert_mode("k3.prom", 0644);
	/* Never writable by others. */
	assert_int_equal(run("watch -c 1 -i hostile.txt --prometheus-file k4.prom --file-mode 0666"), 2);
	assert_string_equal(out, "kmemprof watch: --file-mode 0666: expected 0600, 0640, 0604 or 0644 (others may read, never write)\n");
	assert_mode("k4.prom", -1);
}

/* The textfile has no raw address; the screen keeps them. */
static void prom_file_redacted(void **state)
{
	(void)state;
	assert_int_equal(run("watch -c 2 -d 0.1 -n 0 -i hostile.txt --prometheus-file k.prom"), 0);
	assert_non_null(strstr(out, ADDR));
	get("k.prom");
	assert_null(strstr(file, "0xffff"));
	assert_non_null(strstr(file, "site=\"unknown#1\""));
	assert_non_null(strstr(file, "unknown#2"));
}

static void snapshot_plot_pprof_safe(void **state)
{
	(void)state;
	sh("ln -s victim '%s/snap.txt' && ln -s victim '%s/top.svg' && ln -s victim '%s/p.pb.gz'",
	   dir, dir, dir);
	assert_int_equal(run("snapshot -i hostile.txt -o snap.txt"), 0);
	assert_victim_intact();
	assert_mode("snap.txt", 0600);
	assert_non_null(strstr(get("snap.txt"), ADDR));
	assert_int_equal(run("plot top -i hostile.txt -o top.svg"), 0);
	assert_victim_intact();
	assert_mode("top.svg", 0600);
#ifdef KP_HAVE_PPROF
	assert_int_equal(run("top -i hostile.txt --pprof p.pb.gz"), 0);
	assert_victim_intact();
	assert_mode("p.pb.gz", 0600);
#endif
	assert_no_leftovers();
	/* A device is written through, not replaced (as root: /dev/null). */
	assert_int_equal(run("snapshot -i hostile.txt -o /dev/null"), 0);
	assert_int_equal(system("test -c /dev/null"), 0);
	assert_int_equal(run("snapshot -i hostile.txt -o /dev/stdout"), 0);
	assert_non_null(strstr(out, "# snapshot time:"));
	assert_int_equal(system("test -L /dev/stdout"), 0);
	/* ...but not through a symlink someone else planted. */
	if (!geteuid()) {
		sh("ln -s /dev/null '%s/dev.txt' && chown -h nobody '%s/dev.txt'",
		   dir, dir);
		assert_int_equal(run("snapshot -i hostile.txt -o dev.txt"), 0);
		assert_mode("dev.txt", 0600);
		assert_int_equal(system("test -c /dev/null"), 0);
	}
	/* A failed write leaves the old file as it was. */
	put("keep.txt", "old\n");
	assert_int_equal(run("snapshot -i missing.txt -o keep.txt"), 1);
	assert_string_equal(get("keep.txt"), "old\n");
	assert_no_leftovers();
}

/* A record grows by appends: never through a symlink, never wider. */
static void record_safe(void **state)
{
	(void)state;
	sh("ln -s victim '%s/rec'", dir);
	assert_int_equal(run("watch -c 1 -i hostile.txt --record rec"), 1);
	assert_victim_intact();
	assert_non_null(strstr(out, "kmemprof: --record cannot write rec: "));
	assert_int_equal(run("watch -c 2 -d 0.1 -i hostile.txt --record new.rec"), 0);
	assert_mode("new.rec", 0600);
	get("new.rec");
	assert_non_null(strstr(file, ADDR));
	assert_non_null(strstr(strstr(file, ADDR) + 1, ADDR));
	put("wide.rec", "");
	sh("chmod 644 '%s/wide.rec'", dir);
	assert_int_equal(run("watch -c 1 -i hostile.txt --record wide.rec"), 1);
	assert_string_equal(out, "kmemprof: --record wide.rec: its mode 0644 lets more read it than 0600 (--file-mode)\n");
	assert_string_equal(get("wide.rec"), "");
	assert_no_leftovers();
}

/* --prometheus, --openmetrics, --pprof: unknown#N, as serve's. */
static void outputs_redacted(void **state)
{
	(void)state;
	assert_int_equal(run("top -i hostile.txt --prometheus"), 0);
	assert_null(strstr(out, "0xffff"));
	assert_non_null(strstr(out, "kmemprof_live_bytes{source=\"kmemprof\",site=\"unknown#1\",func=\"unknown#1\",module=\"\",kind=\"slab\"} 8192\n"));
	assert_non_null(strstr(out, ",callers=\"unknown#2\"} 4096\n"));
	assert_int_equal(run("top -i hostile.txt --openmetrics"), 0);
	assert_null(strstr(out, "0xffff"));
	assert_non_null(strstr(out, "site=\"unknown#1\""));
	assert_int_equal(run("diff hostile.txt hostile.txt --prometheus"), 0);
	assert_null(strstr(out, "0xffff"));
	/* The tables and --json are root's, on the machine: kept. */
	assert_int_equal(run("top -i hostile.txt --json"), 0);
	assert_non_null(strstr(out, ADDR));
#ifdef KP_HAVE_PPROF
	assert_int_equal(run("top -i hostile.txt --pprof p.pb.gz"), 0);
	sh("cd '%s' && gzip -dc p.pb.gz > p.pb", dir);
	get("p.pb");
	assert_null(memmem(file, sizeof(file), "ffffffc0", 8));
	assert_non_null(memmem(file, sizeof(file), "unknown#1", 9));
#endif
}

/* serve --make-token: 0600, never through a symlink, never replaced. */
static void token_safe(void **state)
{
	(void)state;
	sh("ln -s victim '%s/tok'", dir);
	assert_int_equal(run("serve --make-token --token-file tok"), 1);
	assert_victim_intact();
	assert_string_equal(out, "kmemprof: serve --make-token: tok exists: serve reads it as it is (remove it first for a new token)\n");
	assert_int_equal(run("serve --make-token --token-file tok2"), 0);
	assert_mode("tok2", 0600);
	assert_int_equal(strlen(get("tok2")), 65);
	assert_no_leftovers();
}

/* The CLI (issue 43): one error style, --version everywhere, plot's -o. */
static void cli_errors_and_version(void **state)
{
	(void)state;
	assert_int_equal(run("-V"), 0);
	assert_non_null(strstr(out, "kmemprof "));
	assert_null(strchr(strchr(out, ' ') + 1, ' '));
	assert_int_equal(run("leaks --version"), 0);
	assert_memory_equal(out, "kmemprof ", 9);
	assert_int_equal(run("top -X"), 2);
	assert_string_equal(out, "kmemprof top: unknown option '-X' (kmemprof top --help lists the options)\n");
	assert_int_equal(run("watch --bogus"), 2);
	assert_string_equal(out, "kmemprof watch: unknown option '--bogus' (kmemprof watch --help lists the options)\n");
	assert_int_equal(run("diff -s"), 2);
	assert_string_equal(out, "kmemprof diff: -s needs a value (kmemprof diff --help lists the options)\n");
	assert_int_equal(run("plot top -i hostile.txt -o top.png"), 2);
	assert_string_equal(out, "kmemprof plot: -o top.png: plot writes SVG only (name the file .svg; rsvg-convert makes a PNG of it)\n");
	assert_mode("top.png", -1);
	assert_int_equal(run("plot top -i hostile.txt -o top.SVG"), 0);
	assert_int_equal(run("serve -i -"), 2);
	assert_string_equal(out, "kmemprof serve: -i -: serve reads its input again on each request; give a file\n");
}

const struct CMUnitTest kp_secure_tests[] = {
	cmocka_unit_test_setup_teardown(cli_errors_and_version, setup,
					teardown),
	cmocka_unit_test_setup_teardown(prom_file_safe, setup, teardown),
	cmocka_unit_test_setup_teardown(prom_file_redacted, setup, teardown),
	cmocka_unit_test_setup_teardown(snapshot_plot_pprof_safe, setup,
					teardown),
	cmocka_unit_test_setup_teardown(record_safe, setup, teardown),
	cmocka_unit_test_setup_teardown(outputs_redacted, setup, teardown),
	cmocka_unit_test_setup_teardown(token_safe, setup, teardown),
};

const size_t kp_secure_ntests =
	sizeof(kp_secure_tests) / sizeof(kp_secure_tests[0]);
