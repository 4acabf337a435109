// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the kmemprof reader, with cmocka: the parser on real
 * captures from the 6.12 guest (kmemprof, allocinfo 1.0) and an allocinfo
 * 2.0 made from the latter, every broken form with its exact message,
 * sorting, filters, and IEC sizes checked against numfmt itself.
 *
 *   test_reader FIXTURE_DIR
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "profile.h"
#include "tests.h"

const char *kp_fixtures;
const char *kp_binary;
#define fixtures kp_fixtures

static int parse_file(const char *file, struct kp_profile *p, char *err,
		      size_t len)
{
	char path[512];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", fixtures, file);
	f = fopen(path, "r");
	assert_non_null(f);
	ret = kp_parse(f, file, p, err, len);
	fclose(f);
	return ret;
}

static int parse_str(const char *text, struct kp_profile *p, char *err,
		     size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	assert_non_null(f);
	ret = kp_parse(f, "input", p, err, len);
	fclose(f);
	return ret;
}

static const struct kp_site *find(const struct kp_profile *p, const char *func)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->sites[i].func, func))
			return &p->sites[i];
	return NULL;
}

static void parses_kmemprof(void **state)
{
	struct kp_profile p;
	const struct kp_site *s;
	char err[256];

	(void)state;
	assert_int_equal(parse_file("kmemprof-6.12.txt", &p, err, sizeof(err)), 0);
	assert_int_equal(p.source, KP_KMEMPROF);
	assert_string_equal(p.version, "1.0");
	assert_int_equal(p.n, 138);
	s = find(&p, "hog_alloc");
	assert_non_null(s);
	if (!s)
		return;	/* (for the analyzer: the assert does not return) */
	assert_int_equal(s->bytes, 524288);
	assert_int_equal(s->objs, 64);
	assert_int_equal(s->allocs, 64);
	assert_int_equal(s->frees, 0);
	assert_int_equal(s->total, 524288);
	assert_string_equal(s->site, "hog_alloc+0x38/0x48");
	assert_string_equal(s->module, "kmemprof_hog");
	assert_string_equal(s->kind, "page");
	assert_string_equal(s->callers, "hog_init+0xb8/0x1000[kmemprof_hog]");
	assert_true(s->unloaded);
	assert_false(s->inaccurate);
	kp_free(&p);
}

static void parses_allocinfo_v1(void **state)
{
	struct kp_profile p;
	const struct kp_site *s;
	char err[256];

	(void)state;
	assert_int_equal(parse_file("allocinfo-1.0.txt", &p, err, sizeof(err)), 0);
	assert_int_equal(p.source, KP_ALLOCINFO);
	assert_string_equal(p.version, "1.0");
	assert_int_equal(p.n, 984);
	assert_string_equal(p.sites[0].site, "init/main.c:1311");
	assert_string_equal(p.sites[0].func, "do_initcalls");
	assert_null(p.sites[0].module);
	assert_null(p.sites[0].kind);
	assert_int_equal(p.sites[0].allocs, -1);
	s = find(&p, "find_link");
	assert_non_null(s);
	kp_free(&p);
}

static void parses_allocinfo_v2(void **state)
{
	struct kp_profile p;
	char err[256];
	size_t i, inaccurate = 0;

	(void)state;
	assert_int_equal(parse_file("allocinfo-2.0.txt", &p, err, sizeof(err)), 0);
	assert_string_equal(p.version, "2.0");
	assert_int_equal(p.n, 984);
	for (i = 0; i < p.n; i++)
		inaccurate += p.sites[i].inaccurate;
	assert_int_equal(inaccurate, 140);	/* every 7th line */
	kp_free(&p);
}

static void parses_module_lines(void **state)
{
	struct kp_profile p;
	char err[256];

	(void)state;
	assert_int_equal(parse_str("allocinfo - version: 2.0\n"
				   "#     <size>  <calls> <tag info>\n"
				   "     4136960     1010 drivers/x/y.c:20 [ctagmod] func:ctagmod_start \n"
				   "       -4096       -0 mm/slub.c:2259 func:alloc_slab_page\n",
				   &p, err, sizeof(err)), -1);
	assert_string_equal(err, "input:4: bad object count");
	assert_int_equal(parse_str("allocinfo - version: 2.0\n"
				   "     4136960     1010 drivers/x/y.c:20 [ctagmod] func:ctagmod_start \n"
				   "       -4096        1 mm/slub.c:2259 func:alloc_slab_page accurate:no\n",
				   &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 2);
	assert_string_equal(p.sites[0].module, "ctagmod");
	assert_int_equal(p.sites[1].bytes, -4096);
	assert_true(p.sites[1].inaccurate);
	kp_free(&p);
}

struct broken {
	const char *text;
	const char *error;
};

static const struct broken broken[] = {
	{ "", "input:1: empty input" },
	{ "meminfo - version: 1.0\n", "input:1: not a kmemprof or allocinfo header" },
	{ "kmemprof - version: 9.9\n", "input:1: unknown version 9.9" },
	{ "kmemprof - version: 1.0\n 12 a x func:f\n", "input:2: bad object count" },
	{ "kmemprof - version: 1.0\n x 1 s func:f\n", "input:2: bad live bytes" },
	{ "kmemprof - version: 1.0\n 1 1\n", "input:2: too few fields" },
	{ "kmemprof - version: 1.0\n 1 1 s\n", "input:2: no func:" },
	{ "kmemprof - version: 1.0\n 1 1 s [m func:f\n", "input:2: bad [module]" },
	{ "kmemprof - version: 1.0\n 1 1 s func:f junk\n", "input:2: expected key:value" },
	{ "kmemprof - version: 1.0\n 1 1 s func:f allocs:-3\n", "input:2: bad value for allocs: '-3'" },
	{ "kmemprof - version: 1.0\n 1 1 s func:f accurate:maybe\n", "input:2: bad value for accurate: 'maybe'" },
	{ "kmemprof - version: 1.0\n 1 1 s func:f\n 99999999999999999999 1 s func:f\n", "input:3: bad live bytes" },
	{ "kmemprof - version: 1.0\n 1 1 s func:\n", "input:2: bad func:" },
};

static void refuses_broken_input(void **state)
{
	struct kp_profile p;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse_str(broken[i].text, &p, err, sizeof(err)), -1);
		assert_string_equal(err, broken[i].error);
	}
	assert_int_equal(parse_file("bad-value.txt", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "bad-value.txt:3: bad value for allocs: 'x'");
}

static void refuses_nul_bytes(void **state)
{
	static const char text[] = "kmemprof - version: 1.0\n 1 1 s\0x func:f\n";
	struct kp_profile p;
	char err[256];
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	(void)state;
	assert_int_equal(kp_parse(f, "nul", &p, err, sizeof(err)), -1);
	assert_string_equal(err, "nul:2: NUL byte in line");
	fclose(f);
}

static const char *const sortable =
	"kmemprof - version: 1.0\n"
	"      1000       10 a+0x0/0x1 func:a kind:slab allocs:50 frees:40 bytes:5000 req:2500\n"
	"      8192        2 b+0x0/0x1 [m] func:b kind:page allocs:9 frees:7 bytes:36864 req:36864\n"
	"       300        3 c+0x0/0x1 func:c kind:slab allocs:700 frees:697 bytes:70000 req:69000\n"
	"      8192        1 d+0x0/0x1 func:d kind:percpu allocs:1 frees:0 bytes:8192 req:8192\n";

static void order(struct kp_profile *p, char *out)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		out[i] = p->sites[i].func[0];
	out[i] = '\0';
}

static void sorts_by_each_key(void **state)
{
	static const struct { const char *key; const char *order; } cases[] = {
		{ "bytes", "bdac" }, { "calls", "acbd" }, { "avg", "dbac" },
		{ "allocs", "cabd" }, { "frag", "acbd" },
	};
	struct kp_profile p;
	enum kp_key key;
	char err[256], got[8];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse_str(sortable, &p, err, sizeof(err)), 0);
		assert_int_equal(kp_key_parse(cases[i].key, &key), 0);
		kp_sort(&p, key);
		order(&p, got);
		assert_string_equal(got, cases[i].order);
		kp_free(&p);
	}
	assert_int_equal(kp_key_parse("size", &key), -1);
}

static void filters(void **state)
{
	static const struct { struct kp_filter f; const char *order; } cases[] = {
		{ { .kind = "slab" }, "ac" },
		{ { .module = "m" }, "b" },
		{ { .func_re = "^[cd]$" }, "cd" },
		{ { .min_bytes = 1000 }, "abd" },
		{ { .kind = "slab", .min_bytes = 500 }, "a" },
	};
	struct kp_profile p;
	struct kp_filter bad = { .func_re = "(" };
	char err[256], got[8];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse_str(sortable, &p, err, sizeof(err)), 0);
		assert_int_equal(kp_filter_apply(&p, &cases[i].f, err, sizeof(err)), 0);
		order(&p, got);
		assert_string_equal(got, cases[i].order);
		kp_free(&p);
	}
	assert_int_equal(parse_str(sortable, &p, err, sizeof(err)), 0);
	assert_int_equal(kp_filter_apply(&p, &bad, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--func '('"));
	kp_free(&p);
}

/* kp_iec() must print what numfmt --to=iec prints, number for number. */
static void iec_matches_numfmt(void **state)
{
	static const int64_t nums[] = {
		0, 1, 999, 1023, 1024, 1025, 1536, 1600, 10239, 10240, 10241,
		102400, 1048575, 1048576, 1048577, 67108864, 123456789,
		1073741823, 1073741824, 5000000000LL, 1099511627776LL,
		-1, -1024, -1536, -123456789,
	};
	char cmd[64], want[64], got[64];
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		snprintf(cmd, sizeof(cmd), "numfmt --to=iec -- %lld",
			 (long long)nums[i]);
		f = popen(cmd, "r");
		assert_non_null(f);
		assert_non_null(fgets(want, sizeof(want), f));
		pclose(f);
		want[strcspn(want, "\n")] = '\0';
		kp_iec(nums[i], got, sizeof(got));
		if (strcmp(got, want))
			fail_msg("%lld: got %s, numfmt says %s",
				 (long long)nums[i], got, want);
	}
}

int main(int argc, char **argv)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_kmemprof),
		cmocka_unit_test(parses_allocinfo_v1),
		cmocka_unit_test(parses_allocinfo_v2),
		cmocka_unit_test(parses_module_lines),
		cmocka_unit_test(refuses_broken_input),
		cmocka_unit_test(refuses_nul_bytes),
		cmocka_unit_test(sorts_by_each_key),
		cmocka_unit_test(filters),
		cmocka_unit_test(iec_matches_numfmt),
	};
	size_t n = sizeof(tests) / sizeof(tests[0]), all;
	struct CMUnitTest *v;
	int rc;

	/* Absolute: the command tests run in a directory of their own. */
	kp_fixtures = realpath(argc > 1 ? argv[1] : "tests/reader/fixtures",
			       NULL);
	kp_binary = realpath(argc > 2 ? argv[2] : "tools/kmemprof/kmemprof",
			     NULL);
	if (!kp_fixtures || !kp_binary) {
		fprintf(stderr, "usage: test_reader FIXTURE_DIR KMEMPROF\n");
		return 1;
	}
	/* One group, so there is one closing line to read. */
	all = n + kp_view_ntests + kp_cli_ntests + kp_ux_ntests +
	      kp_meminfo_ntests + kp_secure_ntests + kp_webauth_ntests;
	v = calloc(all, sizeof(*v));
	if (!v)
		return 1;
	memcpy(v, tests, sizeof(tests));
	memcpy(v + n, kp_view_tests, kp_view_ntests * sizeof(*v));
	memcpy(v + n + kp_view_ntests, kp_cli_tests, kp_cli_ntests * sizeof(*v));
	memcpy(v + n + kp_view_ntests + kp_cli_ntests, kp_ux_tests,
	       kp_ux_ntests * sizeof(*v));
	memcpy(v + n + kp_view_ntests + kp_cli_ntests + kp_ux_ntests,
	       kp_meminfo_tests, kp_meminfo_ntests * sizeof(*v));
	memcpy(v + all - kp_secure_ntests - kp_webauth_ntests,
	       kp_secure_tests, kp_secure_ntests * sizeof(*v));
	memcpy(v + all - kp_webauth_ntests, kp_webauth_tests,
	       kp_webauth_ntests * sizeof(*v));
	rc = _cmocka_run_group_tests("reader", v, all, NULL, NULL);
	free(v);
	free((char *)kp_fixtures);
	free((char *)kp_binary);
	return rc;
}
