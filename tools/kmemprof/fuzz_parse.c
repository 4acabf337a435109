// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness over every parser of the reader. The first byte of
 * an input picks the parser, the rest is the text it reads. Whatever
 * parses is also sorted, filtered, diffed against itself and labelled,
 * so those paths see hostile values too; and the commands that format
 * them run on it, as a file.
 *
 *   make -C tools/kmemprof fuzz FUZZ_TIME=20
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "meminfo.h"
#include "profile.h"

enum {
	F_PROC, F_HIST, F_AGES, F_LEAKS, F_STATS, F_CPUS, F_STACKS, F_SERIES,
	F_SNAPSHOT, F_CLI, F_MEMINFO, F_ZONEINFO, F_NR
};

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
		{ "plot", "top", NULL },
	};
	char path[64], *argv[10];
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
		argv[argc++] = "-i";
		argv[argc++] = path;
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
	for (i = 0; i <= KP_AGE; i++)
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

		if (!kp_parse_stacks(in, "in", &s, err, sizeof(err)))
			kp_stacks_free(&s);
		break;
	}
	case F_SERIES: {
		struct kp_series s;

		if (!kp_series_load(in, "in", &s, err, sizeof(err)))
			kp_series_free(&s);
		break;
	}
	case F_CLI:
		cli(data + 1, size - 1);
		break;
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
