// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness over every parser of the reader. The first byte of
 * an input picks the parser, the rest is the text it reads. Whatever
 * parses is also sorted, filtered, diffed against itself and labelled,
 * and rendered by every output writer (JSON, CSV, both metrics formats,
 * pprof, the plots) before and after the redaction, so those paths see
 * hostile values too; and the commands that format them run on it, as a
 * file. The owners view is summed per owner, sorted by every key and
 * written as the owner gauges and as pprof's owner labels. serve's web
 * configuration (webauth.c), the ELF note parser
 * (resolve.c) and the redaction (redact.c) have targets of their own;
 * the redaction's checks that no address is left (abort() otherwise).
 *
 *   make -C tools/kmemprof fuzz FUZZ_TIME=20
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ctype.h>

#include "meminfo.h"
#include "profile.h"
#include "redact.h"
#include "webauth.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#endif

enum {
	F_PROC, F_HIST, F_AGES, F_LEAKS, F_STATS, F_CPUS, F_STACKS, F_SERIES,
	F_SNAPSHOT, F_CLI, F_MEMINFO, F_ZONEINFO, F_WEBCONFIG, F_NOTE,
	F_REDACT, F_OWNERS, F_NR
};

/* No word of @s, where redact.c looks, is still an address. */
static void assert_redacted(const char *s)
{
	const char *p;
	size_t off, n;

	for (p = s; p && *p; p++) {
		if (p != s && p[-1] != ' ' && p[-1] != ',')
			continue;
		off = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') ? 2 : 0;
		for (n = 0; isxdigit((unsigned char)p[off + n]); n++)
			;
		if (off ? n >= 8 : n >= 16)
			abort();
	}
}

/* Every output writer on @p; @st may be NULL. */
static void outputs(const struct kp_profile *p, const struct kp_stacks *st)
{
#ifdef KP_HAVE_OUTPUTS
	struct kp_metrics_opts mo = { .max = 7 };
	char err[256];
	void *buf;
	size_t len;
	FILE *o = fopen("/dev/null", "w");

	if (!o)
		return;
	kp_out_json(o, p);
	kp_out_csv(o, p);
	kp_out_metrics(o, p, &mo);
	mo.openmetrics = true;
	mo.max = 0;
	kp_out_metrics(o, p, &mo);
	kp_plot_top(o, p, 0);
	kp_plot_top(o, p, 3);
	fclose(o);
	if (!kp_pprof_gz(p, st, NULL, "inuse_space", &buf, &len, err, sizeof(err)))
		free(buf);
#else
	(void)p;
	(void)st;
#endif
}

/* The outputs, then the redaction, its result checked, then again. */
static void redacted_outputs(struct kp_profile *p, struct kp_stacks *st)
{
	struct kp_redactor r;
	size_t i, f;

	outputs(p, st);
	kp_redactor_init(&r);
	kp_redact_profile(&r, p);
	if (st)
		kp_redact_stacks(&r, st);
	kp_redactor_destroy(&r);
	for (i = 0; i < p->n; i++) {
		assert_redacted(p->sites[i].site);
		assert_redacted(p->sites[i].func);
		assert_redacted(p->sites[i].callers);
	}
	for (i = 0; st && i < st->n; i++)
		for (f = 0; f < st->v[i].nframes; f++)
			assert_redacted(st->v[i].frames[f]);
	outputs(p, st);
}

/* @data as a file of its own, for the parsers that take a path. */
static int as_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("kmemprof-fuzz", 0);

	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* The whole-RAM account of @p (or of no lines) on @m and @z. */
static void use_account(const struct kp_profile *p, const struct kp_meminfo *m,
			const struct kp_zoneinfo *z)
{
	struct kp_profile none = { .source = KP_KMEMPROF };
	struct kp_meminfo fixed;
	struct kp_account a;
	char err[256];
	int f;

	if (!m) {
		for (f = 0; f < KP_MI_NR; f++)
			fixed.v[f] = KP_NONE;
		fixed.v[KP_MI_MEMTOTAL] = 1 << 30;
		fixed.v[KP_MI_MEMFREE] = 1 << 29;
		m = &fixed;
	}
	kp_account(p ? p : &none, m, z, z ? 0 : 4096, &a, err, sizeof(err));
}

/* main.c's main(), renamed by the Makefile for the harness. */
int kmemprof_main(int argc, char **argv);

/*
 * The commands that format what the parsers read, on the input as a
 * file: the second byte picks the command line.
 */
static void cli(const uint8_t *data, size_t size)
{
	static const char *const cmds[][6] = {
		{ "top", "-n", "0", NULL },
		{ "top", "-H", "-s", "avg", "-n", "0" },
		{ "top", "-s", "frag", "--func", "a|b", NULL },
		{ "hist", NULL }, { "hist", "a", NULL }, { "leaks", "-H", NULL },
		{ "stacks", "-H", NULL }, { "stats", "-H", NULL },
		{ "ages", "-n", "0", NULL }, { "cpus", NULL },
		{ "plot", "top", NULL }, { "plot", "hist", "all", NULL },
		{ "plot", "series", NULL }, { "top", "--json", NULL },
		{ "top", "--csv", "-n", "3", NULL },
		{ "top", "--prometheus", NULL },
		{ "diff", "--openmetrics", NULL },
		{ "leaks", "--json", NULL }, { "hist", "--json", NULL },
		{ "stacks", "--json", NULL }, { "owners", NULL },
		{ "owners", "-H", NULL },
	};
	char path[64], *argv[12];
	int fd, argc = 0, i;

	/* What they print is not the point: make fuzz runs -close_fd_mask=3. */
	if (size < 1)
		return;
	fd = memfd_create("kmemprof-fuzz", 0);
	if (fd < 0)
		return;
	if (write(fd, data + 1, size - 1) == (ssize_t)(size - 1)) {
		const char *const *c = cmds[data[0] % (sizeof(cmds) /
						       sizeof(cmds[0]))];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		argv[argc++] = "kmemprof";
		for (i = 0; i < 6 && c[i]; i++)
			argv[argc++] = (char *)c[i];
		/* plot series RECORD, diff A B: the input as the arguments. */
		if (!strcmp(c[0], "diff") || !strcmp(c[1] ? c[1] : "", "series")) {
			argv[argc++] = path;
			if (!strcmp(c[0], "diff"))
				argv[argc++] = path;
		} else {
			argv[argc++] = "-i";
			argv[argc++] = path;
		}
		argv[argc] = NULL;
		kmemprof_main(argc, argv);
	}
	close(fd);
}

static void use_profile(struct kp_profile *p)
{
	struct kp_filter f = { .kind = "slab", .func_re = "^a|b$" };
	struct kp_diff d;
	char buf[64];
	size_t i;

	for (i = 0; i < p->n; i++) {
		kp_iec(p->sites[i].bytes, buf, sizeof(buf));
		kp_site_key(&p->sites[i], buf, sizeof(buf));
	}
	if (!kp_diff(p, p, &d))
		kp_diff_free(&d);
	kp_rates(p, p, 1.5);
	for (i = 0; i < KP_NKEYS; i++)
		kp_sort(p, (enum kp_key)i);
	kp_filter_apply(p, &f, buf, sizeof(buf));
	use_account(p, NULL, NULL);
}

static void use_hists(const struct kp_hists *h)
{
	char buf[32];
	size_t i, b;

	for (i = 0; i < h->n; i++) {
		for (b = 0; b < h->v[i].nsize; b++)
			kp_hist_label(KP_B_SIZE, b, buf, sizeof(buf));
		for (b = 0; b < h->v[i].nsize; b++)
			kp_hist_label(KP_B_ORDER, b, buf, sizeof(buf));
		for (b = 0; b < h->v[i].nlife; b++)
			kp_hist_label(KP_B_LIFE, b, buf, sizeof(buf));
		kp_site_key(&h->v[i].tag, buf, sizeof(buf));
	}
}

/* The owners view summed, sorted, and through the writers that take it. */
static void use_owners(const struct kp_owners *ow)
{
	struct kp_keys keys = { .n = 1 };
	struct kp_osum *v = NULL;
	size_t n = 0, i;
	bool *keep;

	keep = calloc(ow->n ? ow->n : 1, sizeof(*keep));
	for (i = 0; keep && i < ow->n; i++)
		keep[i] = i & 1;
	if (keep && !kp_owner_sums(ow, keep, &v, &n))
		free(v);
	free(keep);
	if (kp_owner_sums(ow, NULL, &v, &n))
		return;
	for (i = 0; i < KP_NKEYS; i++) {
		keys.k[0] = (enum kp_key)i;
		kp_osums_sort(v, n, &keys);
	}
	for (i = 0; i < n; i++)
		kp_owner_type_name(v[i].type);
#ifdef KP_HAVE_OUTPUTS
	{
		struct kp_profile none = { .source = KP_KMEMPROF };
		struct kp_metrics_opts mo = {
			.owners_on = true, .owners = v, .nowners = n,
			.owners_max = 2,
		};
		char err[256];
		void *buf;
		size_t len;
		FILE *o = fopen("/dev/null", "w");

		if (o) {
			kp_out_owner_metrics(o, &mo);
			mo.openmetrics = true;
			mo.owners_max = 0;
			kp_out_metrics(o, &none, &mo);
			fclose(o);
		}
		if (!kp_pprof_gz(&none, NULL, ow, "inuse_space", &buf, &len,
				 err, sizeof(err)))
			free(buf);
	}
#endif
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], *out = NULL;
	size_t outlen = 0;
	FILE *in, *o;

	if (size < 1)
		return 0;
	in = fmemopen((void *)(data + 1), size > 1 ? size - 1 : 1, "r");
	if (!in)
		return 0;
	if (size == 1)
		fgetc(in);
	switch (data[0] % F_NR) {
	case F_PROC: {
		struct kp_profile p;

		if (!kp_parse(in, "in", &p, err, sizeof(err))) {
			use_profile(&p);
			redacted_outputs(&p, NULL);
			kp_free(&p);
		}
		break;
	}
	case F_HIST: {
		struct kp_hists h;

		if (!kp_parse_hist(in, "in", &h, err, sizeof(err))) {
			use_hists(&h);
			kp_hists_free(&h);
		}
		break;
	}
	case F_AGES: {
		struct kp_ages a;

		if (!kp_parse_ages(in, "in", &a, err, sizeof(err)))
			kp_ages_free(&a);
		break;
	}
	case F_LEAKS: {
		struct kp_leaks l;

		if (!kp_parse_leaks(in, "in", &l, err, sizeof(err)))
			kp_leaks_free(&l);
		break;
	}
	case F_STATS: {
		struct kp_stats s;

		if (!kp_parse_stats(in, "in", &s, err, sizeof(err))) {
			kp_stat(&s, "live.used");
			kp_stats_free(&s);
		}
		break;
	}
	case F_CPUS: {
		struct kp_cpus c;

		if (!kp_parse_cpus(in, "in", &c, err, sizeof(err)))
			kp_cpus_free(&c);
		break;
	}
	case F_STACKS: {
		struct kp_stacks s;

		if (!kp_parse_stacks(in, "in", &s, err, sizeof(err))) {
			struct kp_profile none = { .source = KP_KMEMPROF };

			redacted_outputs(&none, &s);
			kp_stacks_free(&s);
		}
		break;
	}
	case F_SERIES: {
		struct kp_series s;

		if (!kp_series_load(in, "in", &s, err, sizeof(err))) {
#ifdef KP_HAVE_OUTPUTS
			FILE *o = fopen("/dev/null", "w");

			if (o) {
				kp_plot_series(o, &s);
				fclose(o);
			}
#endif
			kp_series_free(&s);
		}
		break;
	}
	case F_CLI:
		cli(data + 1, size - 1);
		break;
	case F_OWNERS: {
		struct kp_owners ow;

		if (!kp_parse_owners(in, "in", &ow, err, sizeof(err))) {
			use_owners(&ow);
			kp_owners_free(&ow);
		}
		break;
	}
	case F_MEMINFO: {
		struct kp_meminfo m;

		if (!kp_parse_meminfo(in, "in", &m, err, sizeof(err)))
			use_account(NULL, &m, NULL);
		break;
	}
	case F_ZONEINFO: {
		struct kp_zoneinfo z;

		if (!kp_parse_zoneinfo(in, "in", &z, err, sizeof(err)))
			use_account(NULL, NULL, &z);
		break;
	}
	case F_WEBCONFIG: {
		struct kp_web w;
		char path[64];
		int fd = as_file(data + 1, size - 1, path, sizeof(path));

		if (fd >= 0) {
			if (!kp_web_load(path, &w, err, sizeof(err)))
				kp_web_free(&w);
			close(fd);
		}
		break;
	}
	case F_NOTE: {
#ifdef KP_HAVE_DW
		unsigned char id[KP_BUILD_ID_MAX];

		/* Its own copy: a read past the end is ASan's to see. */
		unsigned char *b = malloc(size - 1 ? size - 1 : 1);

		if (b) {
			memcpy(b, data + 1, size - 1);
			if (kp_note_build_id(b, size - 1, id) > KP_BUILD_ID_MAX)
				abort();
			free(b);
		}
#endif
		break;
	}
	case F_REDACT: {
		struct kp_redactor r;
		char *s = malloc(size);
		size_t i;

		if (!s)
			break;
		memcpy(s, data + 1, size - 1);
		s[size - 1] = '\0';
		kp_redactor_init(&r);
		/* Twice: the numbers met again, the table full. */
		for (i = 0; i < 2; i++) {
			kp_redact(&r, s);
			assert_redacted(s);
		}
		kp_redactor_destroy(&r);
		free(s);
		break;
	}
	case F_SNAPSHOT:
	default:
		o = open_memstream(&out, &outlen);
		if (o) {
			kp_snapshot_write(o, in, "in", 1.5, err, sizeof(err));
			fclose(o);
			free(out);
		}
		break;
	}
	fclose(in);
	return 0;
}
