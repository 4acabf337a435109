// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the kmemprof reader's machine outputs, plots and DWARF
 * resolution, with cmocka. Every output is checked by an independent
 * reader of its format: jq for JSON, protoc --decode for pprof, xmllint
 * for SVG, binutils for the ELF objects; values are the fixtures' own
 * (real captures from the 6.12 guest). check-outputs.sh adds the
 * OpenMetrics and CSV parsers and the command line.
 *
 *   test_output FIXTURE_DIR
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "output.h"
#include "profile.h"

static const char *fixtures;
static char tmpdir[64];
static char proto_dir[512];

/* Run @cmd (sh -c); its stdout into @out. Returns the exit status. */
static int run(char *out, size_t len, const char *fmt, ...)
{
	char cmd[4096];
	size_t n = 0, r;
	va_list ap;
	int status;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (n + 1 < len && (r = fread(out + n, 1, len - n - 1, f)) > 0)
		n += r;
	out[n] = '\0';
	while (fgetc(f) != EOF)
		;
	status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void load(const char *file, struct kp_profile *p)
{
	char path[512], err[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fixtures, file);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(kp_parse(f, file, p, err, sizeof(err)), 0);
	fclose(f);
}

static void load_str(const char *text, struct kp_profile *p)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	char err[256];

	assert_non_null(f);
	assert_int_equal(kp_parse(f, "input", p, err, sizeof(err)), 0);
	fclose(f);
}

/* Write @p with @fn into tmpdir/@name. */
/* OpenMetrics, every site, the default source label. */
static int om_out(FILE *out, const struct kp_profile *p)
{
	struct kp_metrics_opts o = { .openmetrics = true };

	return kp_out_metrics(out, p, &o);
}

static void write_out(int (*fn)(FILE *, const struct kp_profile *),
		      const struct kp_profile *p, const char *name)
{
	char path[512];
	FILE *f;

	tmp_path(path, sizeof(path), name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fn(f, p), 0);
	assert_int_equal(fclose(f), 0);
}

static void read_file(const char *name, char *buf, size_t len)
{
	char path[512];
	size_t n;
	FILE *f;

	tmp_path(path, sizeof(path), name);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* jq @filter on tmpdir/@name prints exactly @want. */
static void jq_is(const char *name, const char *filter, const char *want)
{
	char out[4096], path[512];

	tmp_path(path, sizeof(path), name);
	assert_int_equal(run(out, sizeof(out), "jq %s %s", filter, path), 0);
	assert_string_equal(out, want);
}

/* @haystack holds @needle. */
static void has(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle))
		fail_msg("no \"%s\" in the output", needle);
}

/*
 * A hostile site: quotes, backslash, newline, a control byte, markup,
 * a comma, valid UTF-8 (U+00E9, U+20AC) and a byte that is not UTF-8.
 */
static const char hostile[] =
	"kmemprof - version: 1.0\n# cols\n         100        2 we\"ird\\x,<&>\xc3\xa9\xe2\x82\xac\xff\x01+0x1/0x2 [m'od] func:f kind:slab allocs:3 frees:1 bytes:300 req:200\n";

/* JSON */

static const char json_hog[] =
	"{\"site\":\"hog_alloc+0x38/0x48\",\"module\":\"kmemprof_hog\",\"func\":\"hog_alloc\",\"kind\":\"page\",\"srcline\":null,\"srcfunc\":null,\"live_bytes\":524288,\"live_objects\":64,\"allocs\":64,\"frees\":0,\"bytes_total\":524288,\"req_total\":524288,\"callers\":[\"hog_init+0xb8/0x1000[kmemprof_hog]\"],\"accurate\":true,\"sampled\":false,\"unloaded\":true}\n";

static void json_fixture(void **state)
{
	long long live = 0, objs = 0;
	struct kp_profile p;
	char want[256];
	size_t i;

	(void)state;
	load("kmemprof-6.12.txt", &p);
	for (i = 0; i < p.n; i++) {
		live += p.sites[i].bytes;
		objs += p.sites[i].objs;
	}
	write_out(kp_out_json, &p, "p.json");
	snprintf(want, sizeof(want), "1\tkmemprof\t1.0\t138\t138\t%lld\t%lld\n",
		 live, objs);
	jq_is("p.json",
	      "-r '[.schema, .source, .version, .totals.sites, (.sites|length), .totals.live_bytes, .totals.live_objects] | @tsv'",
	      want);
	assert_string_equal(want, "1\tkmemprof\t1.0\t138\t138\t1022504\t609\n");
	jq_is("p.json", "-c '.sites[] | select(.func == \"hog_alloc\")'",
	      json_hog);
	jq_is("p.json",
	      "-c '.sites[17] | [.site, .live_bytes, .allocs, .frees, .callers]'",
	      "[\"prepare_creds+0x30/0x140\",408,103,100,[\"copy_creds+0x64/0xd0\"]]\n");
	kp_free(&p);
}

static void json_allocinfo(void **state)
{
	struct kp_profile p;

	(void)state;
	load("allocinfo-2.0.txt", &p);
	write_out(kp_out_json, &p, "a.json");
	jq_is("a.json", "-c '[.source, .version, .sites[12]]'",
	      "[\"allocinfo\",\"2.0\",{\"site\":\"arch/arm64/mm/fault.c:928\",\"module\":null,\"func\":\"vma_alloc_zeroed_movable_folio\",\"kind\":null,\"srcline\":null,\"srcfunc\":null,\"live_bytes\":135168,\"live_objects\":33,\"allocs\":null,\"frees\":null,\"bytes_total\":null,\"req_total\":null,\"callers\":[],\"accurate\":false,\"sampled\":false,\"unloaded\":false}]\n");
	kp_free(&p);
}

static void json_escaping(void **state)
{
	struct kp_profile p;
	char out[4096];

	(void)state;
	load_str(hostile, &p);
	write_out(kp_out_json, &p, "h.json");
	read_file("h.json", out, sizeof(out));
	/* The exact escapes: \" \\ \u0001, UTF-8 kept, 0xff (not UTF-8) as U+FFFD. */
	has(out, "\"site\":\"we\\\"ird\\\\x,<&>\xc3\xa9\xe2\x82\xac\\ufffd\\u0001+0x1/0x2\"");
	jq_is("h.json", "-j '.sites[0].site, \"|\", .sites[0].module'",
	      "we\"ird\\x,<&>\xc3\xa9\xe2\x82\xac\xef\xbf\xbd\x01+0x1/0x2|m'od");
	kp_free(&p);
}

/* CSV */

static void csv_fixture(void **state)
{
	static const char head[] =
		"site,module,func,kind,srcline,live_bytes,live_objects,allocs,frees,bytes_total,req_total,callers,accurate,sampled,unloaded,srcfunc\r\n"
		"tracepoint_add_func+0x12c/0x418,,tracepoint_add_func,slab,,448,7,7,0,448,448,,1,0,0,\r\n";
	struct kp_profile p;
	static char out[65536];

	(void)state;
	load("kmemprof-6.12.txt", &p);
	write_out(kp_out_csv, &p, "p.csv");
	read_file("p.csv", out, sizeof(out));
	assert_memory_equal(out, head, sizeof(head) - 1);
	has(out, "\r\nhog_alloc+0x38/0x48,kmemprof_hog,hog_alloc,page,,524288,64,64,0,524288,524288,hog_init+0xb8/0x1000[kmemprof_hog],1,0,1,\r\n");
	kp_free(&p);
	load("allocinfo-1.0.txt", &p);
	write_out(kp_out_csv, &p, "a.csv");
	read_file("a.csv", out, sizeof(out));
	has(out, "\r\narch/arm64/mm/fault.c:928,,vma_alloc_zeroed_movable_folio,,,135168,33,,,,,,1,0,0,\r\n");
	kp_free(&p);
}

static void csv_quoting(void **state)
{
	struct kp_profile p;
	char out[4096], *saved;

	(void)state;
	load_str(hostile, &p);
	/* The parser owns its strings: lend it one, and take it back. */
	saved = p.sites[0].callers;
	p.sites[0].callers = (char *)"a+0x1/0x2,b+0x3/0x4";
	p.sites[0].srcline = (char *)"x.c:1";
	p.sites[0].srcfunc = (char *)"in\"lined,";
	write_out(kp_out_csv, &p, "h.csv");
	p.sites[0].callers = saved;
	p.sites[0].srcline = NULL;
	p.sites[0].srcfunc = NULL;
	read_file("h.csv", out, sizeof(out));
	/* 0xff, not UTF-8, as U+FFFD, as in every output (escape.c). */
	assert_string_equal(strchr(out, '\n') + 1,
			    "\"we\"\"ird\\x,<&>\xc3\xa9\xe2\x82\xac\xef\xbf\xbd\x01+0x1/0x2\",m'od,f,slab,x.c:1,100,2,3,1,300,200,\"a+0x1/0x2,b+0x3/0x4\",1,0,0,\"in\"\"lined,\"\r\n");
	kp_free(&p);
}

/* OpenMetrics */

static void om_fixture(void **state)
{
	static char out[262144];
	struct kp_profile p;
	char *eof;

	(void)state;
	load("kmemprof-6.12.txt", &p);
	write_out(om_out, &p, "p.om");
	read_file("p.om", out, sizeof(out));
	assert_memory_equal(out, "# HELP kmemprof_sites ", 22);
	has(out, "\n# TYPE kmemprof_sites gauge\nkmemprof_sites{source=\"kmemprof\"} 138\n");
	has(out, "\n# TYPE kmemprof_live_bytes gauge\n# UNIT kmemprof_live_bytes bytes\n");
	has(out, "\n# HELP kmemprof_allocs Allocations at the call site since load or reset.\n# TYPE kmemprof_allocs counter\nkmemprof_allocs_total{");
	has(out, "\nkmemprof_live_bytes{source=\"kmemprof\",site=\"hog_alloc+0x38/0x48\",func=\"hog_alloc\",module=\"kmemprof_hog\",kind=\"page\",callers=\"hog_init+0xb8/0x1000[kmemprof_hog]\"} 524288\n");
	has(out, "\nkmemprof_allocs_total{source=\"kmemprof\",site=\"hog_alloc+0x38/0x48\",func=\"hog_alloc\",module=\"kmemprof_hog\",kind=\"page\",callers=\"hog_init+0xb8/0x1000[kmemprof_hog]\"} 64\n");
	has(out, "\nkmemprof_requested_bytes_total{source=\"kmemprof\",site=\"tracepoint_add_func+0x12c/0x418\",func=\"tracepoint_add_func\",module=\"\",kind=\"slab\"} 448\n");
	eof = strstr(out, "# EOF\n");
	assert_non_null(eof);
	assert_int_equal(eof[6], '\0');
	kp_free(&p);
}

/* allocinfo repeats lines: one series each, summed. */
static void om_allocinfo_dedup(void **state)
{
	static const char dups[] =
		"allocinfo - version: 1.0\n#\n   10  1 a.c:1 func:f\n   20  2 a.c:1 func:f\n   40  4 a.c:2 func:f\n";
	const char *key = "kmemprof_live_bytes{source=\"allocinfo\",site=\"include/kunit/resource.h:288\"";
	static char out[262144];
	struct kp_profile p;
	const char *s;
	int n = 0;

	(void)state;
	load("allocinfo-1.0.txt", &p);
	write_out(om_out, &p, "a.om");
	read_file("a.om", out, sizeof(out));
	for (s = out; (s = strstr(s, key)); s++)
		n++;
	assert_int_equal(n, 1);
	assert_null(strstr(out, "kmemprof_allocs_total"));
	has(out, "\nkmemprof_live_bytes{source=\"allocinfo\",site=\"arch/arm64/mm/fault.c:928\",func=\"vma_alloc_zeroed_movable_folio\",module=\"\"} 135168\n");
	kp_free(&p);
	load_str(dups, &p);
	write_out(om_out, &p, "d.om");
	read_file("d.om", out, sizeof(out));
	has(out, "\nkmemprof_live_bytes{source=\"allocinfo\",site=\"a.c:1\",func=\"f\",module=\"\"} 30\nkmemprof_live_bytes{source=\"allocinfo\",site=\"a.c:2\",func=\"f\",module=\"\"} 40\n");
	has(out, "\nkmemprof_live_objects{source=\"allocinfo\",site=\"a.c:1\",func=\"f\",module=\"\"} 3\n");
	kp_free(&p);
}

static void om_escaping(void **state)
{
	struct kp_profile p;
	char out[8192], *saved;

	(void)state;
	load_str(hostile, &p);
	saved = p.sites[0].func;
	p.sites[0].func = (char *)"new\nline";
	write_out(om_out, &p, "h.om");
	p.sites[0].func = saved;
	read_file("h.om", out, sizeof(out));
	/* 0xff as U+FFFD (escape.c), the control byte as it is. */
	has(out, "\nkmemprof_live_bytes{source=\"kmemprof\",site=\"we\\\"ird\\\\x,<&>\xc3\xa9\xe2\x82\xac\xef\xbf\xbd\x01+0x1/0x2\",func=\"new\\nline\",module=\"m'od\",kind=\"slab\"} 100\n");
	kp_free(&p);
}

/* pprof, decoded by protoc */

#ifdef KP_HAVE_PPROF
/* The sum of each value over the samples. */
static const char sums_awk[] =
	"| awk '/^sample \\{/ {i=0} /^  value:/ {s[i++] += $2} END {print s[0], s[1], s[2], s[3]}'";

/*
 * The samples whose leaf is @leaf, as "fn<fn<... v0 v1 v2 v3" lines: the
 * location ids followed to their functions' names in the string table.
 */
static const char frames_awk[] =
	"| awk '/^function \\{/ {f=1} f && /id:/ {id=$2} f && /name:/ && !/system/ {fn[id]=$2; f=0} /^location \\{/ {l=1} l && /^  id:/ {lid=$2} l && /function_id:/ {lf[lid]=$2; l=0} /^string_table:/ {st[ns++]=$2} /^sample \\{/ {n++} n && /location_id:/ {loc[n]=loc[n] \" \" $2} n && /^  value:/ {v[n]=v[n] \" \" $2} END {for (i = 1; i <= n; i++) {s=\"\"; k=split(loc[i], a, \" \"); for (j = 1; j <= k; j++) s=s st[fn[lf[a[j]]]] \"<\"; if (s ~ /^\"%s\"</) print s v[i]}}'";

/* gunzip | protoc --decode of tmpdir/@name, through @filter, is @want. */
static void decoded_is(const char *name, const char *filter, const char *want)
{
	static char out[1 << 20];
	char path[512];

	tmp_path(path, sizeof(path), name);
	assert_int_equal(run(out, sizeof(out),
			     "gunzip -c %s | protoc --proto_path=%s --decode perftools.profiles.Profile profile.proto %s",
			     path, proto_dir, filter), 0);
	assert_string_equal(out, want);
}

static void frames_are(const char *name, const char *leaf, const char *want)
{
	char filter[2048];

	snprintf(filter, sizeof(filter), frames_awk, leaf);
	decoded_is(name, filter, want);
}
#endif

static void pprof_sites(void **state)
{
#ifdef KP_HAVE_PPROF
	struct kp_profile p;
	char err[256], path[512];

	(void)state;
	load("kmemprof-6.12.txt", &p);
	tmp_path(path, sizeof(path), "p.pb.gz");
	assert_int_equal(kp_out_pprof(path, &p, NULL, NULL, 0600, err, sizeof(err)), 0);
	decoded_is("p.pb.gz", "| grep -c '^sample {'", "138\n");
	/* The sample types, in order, and the string table's "" first. */
	decoded_is("p.pb.gz", "| grep -A3 '^sample_type' | tr -d ' \\n'",
		   "sample_type{type:1unit:2}sample_type{type:3unit:4}sample_type{type:5unit:2}sample_type{type:6unit:4}");
	decoded_is("p.pb.gz", "| grep string_table | head -7 | tr '\\n' ' '",
		   "string_table: \"\" string_table: \"alloc_objects\" string_table: \"count\" string_table: \"alloc_space\" string_table: \"bytes\" string_table: \"inuse_objects\" string_table: \"inuse_space\" ");
	/* hog_alloc: two frames, the site then its caller: key. */
	frames_are("p.pb.gz", "hog_alloc",
		   "\"hog_alloc\"<\"hog_init\"< 64 524288 64 524288\n");
	/* The four kunit_filter_suites tags, one sample each. */
	frames_are("p.pb.gz", "kunit_filter_suites",
		   "\"kunit_filter_suites\"< 1 8 0 0\n\"kunit_filter_suites\"< 1 8 0 0\n\"kunit_filter_suites\"<\"kunit_module_notify\"< 1 8 0 0\n\"kunit_filter_suites\"<\"kunit_module_notify\"< 1 8 0 0\n");
	/*
	 * The sums of each value over all samples are the profile's (awk
	 * over the fixture's allocs:, bytes: and live columns).
	 */
	decoded_is("p.pb.gz", sums_awk, "13493 24370848 609 1022504\n");
	kp_free(&p);
#else
	(void)state;
	skip();
#endif
}

static void pprof_stacks(void **state)
{
#ifdef KP_HAVE_PPROF
	long long sum[4] = { 0 };
	struct kp_profile p;
	struct kp_stacks st;
	char err[256], path[512], out[64];
	size_t i;
	FILE *f;

	(void)state;
	load("out-snapshot-b.txt", &p);
	snprintf(path, sizeof(path), "%s/out-stacks.txt", fixtures);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(kp_parse_stacks(f, "out-stacks.txt", &st, err,
					 sizeof(err)), 0);
	fclose(f);
	for (i = 0; i < p.n; i++) {
		const struct kp_site *s = &p.sites[i];

		sum[0] += s->allocs;
		sum[1] += s->total;
		sum[2] += s->objs;
		sum[3] += s->bytes;
	}
	tmp_path(path, sizeof(path), "s.pb.gz");
	assert_int_equal(kp_out_pprof(path, &p, &st, NULL, 0600, err, sizeof(err)), 0);
	/* Split by stack, the values still add up to the profile's. */
	snprintf(out, sizeof(out), "%lld %lld %lld %lld\n", sum[0], sum[1],
		 sum[2], sum[3]);
	decoded_is("s.pb.gz", sums_awk, out);
	/* More samples than sites: the stacks' frames are locations. */
	snprintf(out, sizeof(out), "| grep -c '^sample {' | awk '{print ($1 > %zu)}'",
		 p.n);
	decoded_is("s.pb.gz", out, "1\n");
	/*
	 * hog_alloc's one stack: hog_alloc <- hog_init <- do_one_initcall
	 * <- do_init_module, with all of the site's values.
	 */
	frames_are("s.pb.gz", "hog_alloc",
		   "\"hog_alloc\"<\"hog_init\"<\"do_one_initcall\"<\"do_init_module\"< 256 2097152 256 2097152\n");
	kp_free(&p);
	kp_stacks_free(&st);
#else
	(void)state;
	skip();
#endif
}

/*
 * With the owners view: each site split by owner, labelled owner, what no
 * line holds unlabelled; the sums are still the profile's. The owner
 * line of copy_process+0x16c has a caller: the profile's has none, so
 * it is another tag, and labels nothing.
 */
static void pprof_owners(void **state)
{
#ifdef KP_HAVE_PPROF
	/* inuse_objects and inuse_space per owner label, and unlabelled. */
	static const char by_owner[] =
		"| awk '/^string_table:/ {st[ns++]=$2} /^sample \\{/ {n++; i=0} /^  value:/ {v[n,i++]=$2} /^    key:/ {k=$2} /^    str:/ {s[n,k]=$2} END {for (j = 1; j <= n; j++) {o=\"-\"; for (x = 0; x < ns; x++) if (st[x] == \"\\\"owner\\\"\" && (j SUBSEP x) in s) o=st[s[j,x]]; a[o]+=v[j,2]; b[o]+=v[j,3]} for (o in a) print o, a[o], b[o]}' | sort";
	struct kp_profile p;
	struct kp_owners ow;
	char err[256], path[512];
	FILE *f;

	(void)state;
	load("snap-b.txt", &p);
	snprintf(path, sizeof(path), "%s/view-owners.txt", fixtures);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(kp_parse_owners(f, "view-owners.txt", &ow, err,
					 sizeof(err)), 0);
	fclose(f);
	tmp_path(path, sizeof(path), "o.pb.gz");
	assert_int_equal(kp_out_pprof(path, &p, NULL, &ow, 0600, err,
				      sizeof(err)), 0);
	decoded_is("o.pb.gz", sums_awk, "38739 72209456 704 2795664\n");
	decoded_is("o.pb.gz", by_owner,
		   "\"[irq]\" 1 192\n"
		   "\"[kthreadd]\" 16 131072\n"
		   "\"[kworker]\" 8 65536\n"
		   "\"[softirq]\" 1 4096\n"
		   "\"kmp_own_a[212]\" 153 1253376\n"
		   "\"kmp_own_b[213]\" 96 786432\n"
		   "\"my\\\\x20app[301]\" 4 256\n"
		   "- 425 554704\n");
	/* hog_alloc: three owners and the rest, the site's values in all. */
	frames_are("o.pb.gz", "hog_alloc",
		   "\"hog_alloc\"< 128 1048576 128 1048576\n"
		   "\"hog_alloc\"< 100 819200 96 786432\n"
		   "\"hog_alloc\"< 16 131072 16 131072\n"
		   "\"hog_alloc\"< 12 98304 16 131072\n");
	kp_owners_free(&ow);
	kp_free(&p);
#else
	(void)state;
	skip();
#endif
}

/* pprof's strings are proto3 strings: valid UTF-8, 0xff as U+FFFD. */
static void pprof_escaping(void **state)
{
#ifdef KP_HAVE_PPROF
	struct kp_profile p;
	char err[256], path[512];

	(void)state;
	load_str(hostile, &p);
	tmp_path(path, sizeof(path), "h.pb.gz");
	assert_int_equal(kp_out_pprof(path, &p, NULL, NULL, 0600, err, sizeof(err)), 0);
	/* protoc prints a string's bytes past ASCII in octal. */
	decoded_is("h.pb.gz", "| grep 'string_table: .we'",
		   "string_table: \"we\\\"ird\\\\x,<&>\\303\\251\\342\\202\\254\\357\\277\\275\\001\"\n");
	kp_free(&p);
#else
	(void)state;
	skip();
#endif
}

static void pprof_errors(void **state)
{
	struct kp_profile p;
	char err[256], path[512];
	int ret;

	(void)state;
	load("allocinfo-1.0.txt", &p);
	tmp_path(path, sizeof(path), "no/such/dir/p.pb.gz");
	ret = kp_out_pprof(path, &p, NULL, NULL, 0600, err, sizeof(err));
#ifdef KP_HAVE_PPROF
	assert_int_equal(ret, -ENOENT);
	has(err, "cannot write");
	has(err, "no/such/dir/p.pb.gz");
#else
	assert_int_equal(ret, -ENOTSUP);
	assert_string_equal(err, "built without protobuf-c and zlib (pprof)");
#endif
	kp_free(&p);
}

/* SVG, read back by xmllint */

/* tmpdir/@name is well-formed XML and @xpath on it is @want. */
static void xpath_is(const char *name, const char *xpath, const char *want)
{
	char out[4096], path[512];

	tmp_path(path, sizeof(path), name);
	assert_int_equal(run(out, sizeof(out),
			     "xmllint --noout %s && xmllint --xpath \"%s\" %s",
			     path, xpath, path), 0);
	out[strcspn(out, "\n")] = '\0';
	assert_string_equal(out, want);
}

static FILE *svg_file(const char *name)
{
	char path[512];
	FILE *f;

	tmp_path(path, sizeof(path), name);
	f = fopen(path, "w");
	assert_non_null(f);
	return f;
}

static void plot_top(void **state)
{
	struct kp_profile p;
	FILE *f;

	(void)state;
	load("kmemprof-6.12.txt", &p);
	kp_sort(&p, KP_BYTES);
	f = svg_file("top.svg");
	assert_int_equal(kp_plot_top(f, &p, 12), 0);
	fclose(f);
	xpath_is("top.svg", "string(/*[local-name()='svg']/@viewBox)",
		 "0 0 1000 378");
	xpath_is("top.svg", "count(//*[local-name()='rect'][@class='bar'])",
		 "12");
	xpath_is("top.svg", "count(//*[local-name()='text'][@class='label'])",
		 "12");
	xpath_is("top.svg",
		 "string((//*[local-name()='text'][@class='label'])[1])",
		 "hog_alloc+0x38/0x48 [kmemprof_hog] <- hog_init+0\u2026");
	/*
	 * Every label fits the 380 px margin: 370 px at 12 px, 0.62 em a
	 * character, is 49 (48 and the ellipsis), not 56 (56 x 7.44 px is
	 * 417 px: its left edge was lost).
	 */
	xpath_is("top.svg",
		 "count(//*[local-name()='text'][@class='label'][string-length(.) > 49])",
		 "0");
	xpath_is("top.svg",
		 "string((//*[local-name()='text'][@class='label'])[1]/@x)",
		 "374");
	/* The largest site has the full width, 1000 - 380 - 90. */
	xpath_is("top.svg",
		 "string((//*[local-name()='rect'][@class='bar'])[1]/@width)",
		 "530.0");
	xpath_is("top.svg",
		 "string((//*[local-name()='rect'][@class='bar'])[1]/@data-bytes)",
		 "524288");
	xpath_is("top.svg", "count(//*[local-name()='g'][@class='axis'])", "1");
	xpath_is("top.svg",
		 "string(//*[local-name()='text'][@class='axis-title'])",
		 "live bytes");
	kp_free(&p);
}

static void plot_top_escaping(void **state)
{
	struct kp_profile p;
	FILE *f;

	(void)state;
	load_str(hostile, &p);
	f = svg_file("h.svg");
	assert_int_equal(kp_plot_top(f, &p, 0), 0);
	fclose(f);
	xpath_is("h.svg", "count(//*[local-name()='rect'][@class='bar'])", "1");
	/* 0xff and the control byte XML 1.0 forbids as U+FFFD (escape.c). */
	xpath_is("h.svg", "string(//*[local-name()='text'][@class='label'])",
		 "we\"ird\\x,<&>\xc3\xa9\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd+0x1/0x2 [m'od]");
	kp_free(&p);
}

static void plot_hist(void **state)
{
	char path[512], err[256];
	struct kp_hists h;
	size_t i, nz = 0;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/out-hist.txt", fixtures);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(kp_parse_hist(f, "out-hist.txt", &h, err,
				       sizeof(err)), 0);
	fclose(f);
	assert_string_equal(h.v[0].site, "all");
	assert_string_equal(h.v[0].kind, "slab");
	for (i = 0; i < h.v[0].nsize; i++)
		nz += !!h.v[0].size[i];
	for (i = 0; i < h.v[0].nlife; i++)
		nz += !!h.v[0].life[i];
	assert_int_equal(nz, 11 + 20);
	f = svg_file("hist.svg");
	assert_int_equal(kp_plot_hist(f, &h.v[0]), 0);
	fclose(f);
	xpath_is("hist.svg", "count(//*[local-name()='rect'][@class='bar'])",
		 "31");
	xpath_is("hist.svg", "count(//*[local-name()='g'][@class='panel'])",
		 "2");
	/* Every bucket is labelled: 20 sizes, 36 lifetimes. */
	xpath_is("hist.svg",
		 "count(//*[local-name()='text'][@class='bucket'])", "56");
	/* The tallest size bar: bucket 5 (128 < size <= 256), 8534 objects. */
	xpath_is("hist.svg",
		 "string((//*[local-name()='rect'][@class='bar'])[6]/@data-count)",
		 "8534");
	xpath_is("hist.svg",
		 "string((//*[local-name()='rect'][@class='bar'])[6]/*)",
		 "256: 8534");
	xpath_is("hist.svg", "string(//*[local-name()='text'][@class='title'])",
		 "kmemprof: all kind:slab");

	/* hog_alloc: 256 blocks of order 1, none freed. */
	for (i = 0; i < h.n; i++)
		if (!strcmp(h.v[i].site, "hog_alloc+0x38/0x48"))
			break;
	assert_true(i < h.n);
	f = svg_file("hist.svg");
	assert_int_equal(kp_plot_hist(f, &h.v[i]), 0);
	fclose(f);
	xpath_is("hist.svg", "count(//*[local-name()='rect'][@class='bar'])",
		 "1");
	xpath_is("hist.svg", "string(//*[local-name()='rect'][@class='bar']/*)",
		 "8.0K: 256");
	/*
	 * Its page orders run to the buddy's largest, order 10 (4.0M), not
	 * to the view's 20th bucket (2.0G): 11 and 36 lifetimes.
	 */
	xpath_is("hist.svg",
		 "count(//*[local-name()='text'][@class='bucket'])", "47");
	xpath_is("hist.svg",
		 "string((//*[local-name()='text'][@class='bucket'])[11])",
		 "4.0M");
	/* Lifetimes in one rule of units: ... 34s 1.1m ... 37m 1.2h */
	xpath_is("hist.svg",
		 "concat((//*[local-name()='text'][@class='bucket'])[11 + 27], ' ', "
		 "(//*[local-name()='text'][@class='bucket'])[11 + 28], ' ', "
		 "(//*[local-name()='text'][@class='bucket'])[11 + 33], ' ', "
		 "(//*[local-name()='text'][@class='bucket'])[11 + 34], ' ', "
		 "(//*[local-name()='text'][@class='bucket'])[11 + 35])",
		 "34s 1.1m 37m 1.2h 2.4h");
	xpath_is("hist.svg", "string(//*[local-name()='text'][@class='empty'])",
		 "none counted");
	kp_hists_free(&h);
}

static void plot_series(void **state)
{
	char path[512], err[256];
	struct kp_series s;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/out-record.txt", fixtures);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(kp_series_load(f, "out-record.txt", &s, err,
					sizeof(err)), 0);
	fclose(f);
	assert_int_equal(s.nt, 2);
	f = svg_file("series.svg");
	assert_int_equal(kp_plot_series(f, &s), 0);
	fclose(f);
	xpath_is("series.svg",
		 "count(//*[local-name()='polyline'][@class='line'])", "10");
	/*
	 * The largest: hog_alloc, absent from the first snapshot, 2 MiB in
	 * the second, the top of the axis. Two points, 12.5 s apart: x from
	 * 80 to 680, y from 450 (0) to 50.
	 */
	xpath_is("series.svg", "string((//*[local-name()='polyline'])[1]/@points)",
		 "80.0,450.0 680.0,50.0");
	xpath_is("series.svg", "string((//*[local-name()='polyline'])[1]/*)",
		 "hog_alloc+0x38/0x48 [kmemprof_hog] kind:page");
	/* 100 distinct tags in the two snapshots (sort -u of their keys). */
	xpath_is("series.svg",
		 "string(//*[local-name()='text'][@class='title'])",
		 "kmemprof: live bytes over 12 s, top 10 of 100 call sites");
	kp_series_free(&s);
}

/* DWARF resolution, of arm64 objects built with -g */

#ifdef KP_HAVE_DW
/*
 * fx_alloc's size, and the offset of the return address of its first BL,
 * read with binutils: readelf -s and objdump -d.
 */
static void first_call(const char *obj, unsigned long *ret,
		       unsigned long *size)
{
	unsigned long val, bl;
	char out[256], *end;

	assert_int_equal(run(out, sizeof(out),
			     "aarch64-linux-gnu-readelf -sW %s | awk '$8 == \"fx_alloc\" {print $2, $3}'",
			     obj), 0);
	val = strtoul(out, &end, 16);
	assert_int_equal(*end, ' ');
	*size = strtoul(end + 1, &end, 10);
	assert_int_equal(*end, '\n');
	assert_int_equal(run(out, sizeof(out),
			     "aarch64-linux-gnu-objdump -d %s | awk '/<fx_alloc>:/ {f=1; next} f && /\\tbl\\t/ {sub(/:.*/, \"\", $1); print $1; exit}'",
			     obj), 0);
	bl = strtoul(out, &end, 16);
	assert_int_equal(*end, '\n');
	*ret = bl - val + 4;
}

/* A profile of fx_alloc's call site: in out_resolve, another, the kernel. */
static void site_text(char *buf, size_t len, unsigned long ret,
		      unsigned long size)
{
	snprintf(buf, len,
		 "kmemprof - version: 1.0\n#\n  64 1 fx_alloc+0x%lx/0x%lx [out_resolve] func:fx_alloc kind:slab\n  64 1 fx_alloc+0x%lx/0x%lx [other] func:fx_alloc kind:slab\n  64 1 fx_alloc+0x%lx/0x%lx func:fx_alloc kind:slab\n  64 1 fx_nothing+0x4/0x8 [out_resolve] func:fx_nothing kind:slab\n",
		 ret, size, ret, size, ret, size);
}

static int marker_line(const char *marker)
{
	char path[512], line[256];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/out-resolve.c", fixtures);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return -1;
}
#endif

static void resolve_arm64(void **state)
{
#ifdef KP_HAVE_DW
	char out[1024], obj[512], text[1024], err[256], want[64];
	unsigned long ret, size;
	struct kp_profile p;

	(void)state;
	tmp_path(obj, sizeof(obj), "out_resolve.ko");
	if (run(out, sizeof(out),
		"cd %s && aarch64-linux-gnu-gcc -g -O2 -c -o %s out-resolve.c 2>&1",
		fixtures, obj)) {
		print_message("no aarch64-linux-gnu-gcc: %s\n", out);
		skip();
	}
	first_call(obj, &ret, &size);
	assert_true(ret > 0);
	site_text(text, sizeof(text), ret, size);
	load_str(text, &p);
	assert_int_equal(kp_resolve(&p, obj, err, sizeof(err)), 1);
	snprintf(want, sizeof(want), "out-resolve.c:%d",
		 marker_line("/* SITE-A */"));
	assert_string_equal(p.sites[0].srcline, want);
	/* the line's function, inlined into fx_alloc */
	assert_string_equal(p.sites[0].srcfunc, "fx_twice");
	assert_null(p.sites[1].srcline);	/* another module */
	assert_null(p.sites[2].srcline);	/* the kernel: no vmlinux */
	assert_null(p.sites[3].srcline);	/* no such symbol */
	kp_free(&p);

	/*
	 * Linked into an executable, as vmlinux is, it serves the kernel's
	 * sites: the third line, which has no module.
	 */
	tmp_path(obj, sizeof(obj), "vmlinux");
	assert_int_equal(run(out, sizeof(out),
			     "cd %s && aarch64-linux-gnu-gcc -g -O2 -nostdlib -static -Wl,-e,fx_alloc -Wl,--unresolved-symbols=ignore-all -o %s out-resolve.c 2>&1",
			     fixtures, obj), 0);
	first_call(obj, &ret, &size);
	site_text(text, sizeof(text), ret, size);
	load_str(text, &p);
	assert_int_equal(kp_resolve(&p, obj, err, sizeof(err)), 1);
	assert_null(p.sites[0].srcline);
	assert_string_equal(p.sites[2].srcline, want);
	assert_string_equal(p.sites[2].srcfunc, "fx_twice");
	kp_free(&p);

	/* Built without -g: nothing resolves, and that is not an error. */
	tmp_path(obj, sizeof(obj), "nodebug/out_resolve.ko");
	assert_int_equal(run(out, sizeof(out),
			     "mkdir -p %s/nodebug && cd %s && aarch64-linux-gnu-gcc -O2 -c -o %s out-resolve.c 2>&1",
			     tmpdir, fixtures, obj), 0);
	load_str(text, &p);
	assert_int_equal(kp_resolve(&p, obj, err, sizeof(err)), 0);
	assert_null(p.sites[0].srcline);
	kp_free(&p);
#else
	(void)state;
	skip();
#endif
}

/*
 * file:line without asking, for the kernel: a vmlinux with -g at
 * /lib/modules/R/build/vmlinux (a build tree) under $KMEMPROF_ROOT, its
 * build id in /sys/kernel/notes, serves the kernel's sites; the modules,
 * without notes, keep their symbols.
 */
static void resolve_auto_kernel(void **state)
{
#ifdef KP_HAVE_DW
	char out[1024], root[512], text[1024], want[128];
	unsigned long ret, size;
	struct kp_profile p;

	(void)state;
	snprintf(want, sizeof(want), "out-resolve.c:%d", marker_line("SITE-A"));
	tmp_path(root, sizeof(root), "autoroot");
	assert_int_equal(run(out, sizeof(out),
			     "rm -rf %s && mkdir -p %s/proc/sys/kernel %s/sys/kernel %s/lib/modules/6.12.0-test/build && echo 6.12.0-test > %s/proc/sys/kernel/osrelease && cd %s && aarch64-linux-gnu-gcc -g -O2 -nostdlib -static -Wl,--build-id=sha1 -Wl,-e,fx_alloc -Wl,--unresolved-symbols=ignore-all -o %s/lib/modules/6.12.0-test/build/vmlinux out-resolve.c 2>&1 && aarch64-linux-gnu-objcopy -O binary --only-section=.note.gnu.build-id %s/lib/modules/6.12.0-test/build/vmlinux %s/sys/kernel/notes 2>&1",
			     root, root, root, root, root, fixtures, root, root,
			     root), 0);
	snprintf(text, sizeof(text), "%s/lib/modules/6.12.0-test/build/vmlinux",
		 root);
	first_call(text, &ret, &size);
	site_text(text, sizeof(text), ret, size);
	setenv("KMEMPROF_ROOT", root, 1);
	load_str(text, &p);
	assert_int_equal(kp_resolve_auto(&p), 1);
	assert_null(p.sites[0].srcline);
	assert_string_equal(p.sites[2].srcline, want);
	assert_string_equal(p.sites[2].srcfunc, "fx_twice");
	kp_free(&p);
	/* Another build id in the notes: the file is not used. */
	assert_int_equal(run(out, sizeof(out),
			     "printf '\\004\\0\\0\\0\\024\\0\\0\\0\\003\\0\\0\\0GNU\\0abcdefghijklmnopqrst' > %s/sys/kernel/notes",
			     root), 0);
	load_str(text, &p);
	assert_int_equal(kp_resolve_auto(&p), 0);
	assert_null(p.sites[2].srcline);
	kp_free(&p);
	unsetenv("KMEMPROF_ROOT");
#else
	(void)state;
	skip();
#endif
}

/*
 * The rig's own test module, built for the 6.12 guest with -g (and
 * -ffile-prefix-map, for relative paths), code identical to the one the
 * snapshot was taken with: its three sites in the snapshot resolve to the
 * lines the last line of aarch64-linux-gnu-addr2line -i gives, the call in
 * kmemprof_hog.c itself, not the inlined slab.h or gfp.h helper.
 */
static void resolve_real_module(void **state)
{
#ifdef KP_HAVE_DW
	static const char *const want[][2] = {
		{ "hog_alloc+0x38/0x48", "tests/modules/kmemprof_hog.c:28" },
		{ "hog_init+0x58/0x1000", "tests/modules/kmemprof_hog.c:48" },
		{ "hog_init+0x7c/0x1000", "tests/modules/kmemprof_hog.c:49" },
	};
	char out[1024], ko[512], err[256];
	struct kp_profile p;
	size_t i, j, n = 0;

	(void)state;
	tmp_path(ko, sizeof(ko), "kmemprof_hog.ko");
	assert_int_equal(run(out, sizeof(out),
			     "cp %s/out-kmemprof_hog-6.12-g.elf %s",
			     fixtures, ko), 0);
	load("out-snapshot-b.txt", &p);
	assert_int_equal(kp_resolve(&p, ko, err, sizeof(err)), 3);
	for (i = 0; i < p.n; i++) {
		const struct kp_site *s = &p.sites[i];

		if (!s->module || strcmp(s->module, "kmemprof_hog")) {
			assert_null(s->srcline);
			continue;
		}
		for (j = 0; j < 3 && strcmp(s->site, want[j][0]); j++)
			;
		assert_true(j < 3);
		assert_string_equal(s->srcline, want[j][1]);
		/* each call is in the module's own function, none inlined */
		assert_null(s->srcfunc);
		n++;
	}
	assert_int_equal(n, 3);
	kp_free(&p);
#else
	(void)state;
	skip();
#endif
}

static void resolve_errors(void **state)
{
	struct kp_profile p;
	char err[256];
	int ret;

	(void)state;
	load("kmemprof-6.12.txt", &p);
	ret = kp_resolve(&p, "/nonexistent/vmlinux", err, sizeof(err));
#ifdef KP_HAVE_DW
	assert_int_equal(ret, -ENOENT);
	assert_string_equal(err,
			    "cannot read /nonexistent/vmlinux: No such file or directory");
#else
	assert_int_equal(ret, -ENOTSUP);
	assert_string_equal(err, "built without libdw (--resolve)");
#endif
	kp_free(&p);
}

static void features(void **state)
{
	const char *f = kp_out_features();

	(void)state;
#ifdef KP_HAVE_PPROF
	assert_non_null(strstr(f, "pprof"));
#else
	assert_null(strstr(f, "pprof"));
#endif
#ifdef KP_HAVE_DW
	assert_non_null(strstr(f, "resolve"));
#else
	assert_null(strstr(f, "resolve"));
#endif
	assert_memory_equal(f, "json csv openmetrics svg", 24);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_fixture),
		cmocka_unit_test(json_allocinfo),
		cmocka_unit_test(json_escaping),
		cmocka_unit_test(csv_fixture),
		cmocka_unit_test(csv_quoting),
		cmocka_unit_test(om_fixture),
		cmocka_unit_test(om_allocinfo_dedup),
		cmocka_unit_test(om_escaping),
		cmocka_unit_test(pprof_sites),
		cmocka_unit_test(pprof_stacks),
		cmocka_unit_test(pprof_owners),
		cmocka_unit_test(pprof_escaping),
		cmocka_unit_test(pprof_errors),
		cmocka_unit_test(plot_top),
		cmocka_unit_test(plot_top_escaping),
		cmocka_unit_test(plot_hist),
		cmocka_unit_test(plot_series),
		cmocka_unit_test(resolve_arm64),
		cmocka_unit_test(resolve_real_module),
		cmocka_unit_test(resolve_auto_kernel),
		cmocka_unit_test(resolve_errors),
		cmocka_unit_test(features),
	};
	char out[16];
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: test_output FIXTURE_DIR\n");
		return 2;
	}
	fixtures = argv[1];
	snprintf(proto_dir, sizeof(proto_dir), "%s/../../../tools/kmemprof",
		 fixtures);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/kp-test-output.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	run(out, sizeof(out), "rm -rf %s", tmpdir);
	return ret;
}
