// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the kmemprof reader: the debugfs view parsers on real
 * captures from the 6.12 guest and on every broken form, bucket labels,
 * snapshots, diff arithmetic, watch rates and recorded series.
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

static FILE *fixture(const char *file)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", kp_fixtures, file);
	f = fopen(path, "r");
	assert_non_null(f);
	return f;
}

static FILE *text(const char *s)
{
	FILE *f = fmemopen((void *)s, strlen(s) ? strlen(s) : 1, "r");

	assert_non_null(f);
	if (!*s)
		fgetc(f);
	return f;
}

static void hist_view(void **state)
{
	const struct kp_hist *hog = NULL;
	struct kp_hists h;
	char err[256];
	FILE *f = fixture("view-hist.txt");
	size_t i;

	(void)state;
	assert_int_equal(kp_parse_hist(f, "hist", &h, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(h.n, 106);
	assert_string_equal(h.v[0].site, "all");
	assert_string_equal(h.v[0].kind, "slab");
	assert_null(h.v[0].tag.func);
	assert_int_equal(h.v[0].nsize, 20);
	assert_int_equal(h.v[0].nreq, 20);
	assert_int_equal(h.v[0].nlife, 36);
	assert_int_equal(h.v[0].size[3], 7987);
	assert_int_equal(h.v[0].xcpu, 12709);
	assert_int_equal(h.v[0].xcluster, 12239);
	assert_true(h.v[0].frag > 5.49 && h.v[0].frag < 5.51);
	assert_int_equal(h.v[0].waste, 6491);
	assert_string_equal(h.v[1].kind, "page");
	assert_string_equal(h.v[2].kind, "percpu");
	for (i = 0; i < h.n; i++)
		if (h.v[i].tag.func && !strcmp(h.v[i].tag.func, "hog_alloc"))
			hog = &h.v[i];
	assert_non_null(hog);
	if (!hog)
		return;
	assert_string_equal(hog->site, "hog_alloc+0x38/0x48");
	assert_string_equal(hog->tag.module, "kmemprof_hog");
	assert_int_equal(hog->size[1], 256);	/* order 1 */
	kp_hists_free(&h);
}

static void ages_view(void **state)
{
	struct kp_ages a;
	char err[256];
	FILE *f = fixture("view-ages.txt");

	(void)state;
	assert_int_equal(kp_parse_ages(f, "ages", &a, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(a.n, 71);
	assert_int_equal(a.v[0].bytes, 448);
	assert_int_equal(a.v[0].objs, 7);
	assert_string_equal(a.v[0].tag.func, "tracepoint_add_func");
	assert_int_equal(a.v[0].nage, 36);
	assert_int_equal(a.v[0].age[23], 7);
	kp_ages_free(&a);
}

static void leaks_view(void **state)
{
	struct kp_leaks l;
	char err[256];
	FILE *f = fixture("view-leaks.txt");
	size_t i, objs = 0;

	(void)state;
	assert_int_equal(kp_parse_leaks(f, "leaks", &l, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(l.age_ms, 1000);
	assert_int_equal(l.objs, 586);
	assert_int_equal(l.bytes, 2535160);
	assert_int_equal(l.sites, 43);
	assert_int_equal(l.n, 43);
	for (i = 0; i < l.n; i++)
		objs += l.v[i].nobj;
	assert_int_equal(objs, 151 - 2 - 43);
	assert_int_equal(l.v[0].bytes, 2097152);
	assert_int_equal(l.v[0].objs, 256);
	assert_string_equal(l.v[0].tag.module, "kmemprof_hog");
	assert_string_equal(l.v[0].tag.kind, "page");
	assert_int_equal(l.v[0].nobj, 5);
	assert_string_equal(l.v[0].obj[0].addr, "000000003f609b8a");
	assert_int_equal(l.v[0].obj[0].size, 8192);
	assert_int_equal(l.v[0].obj[0].age_ms, 4338);
	assert_int_equal(l.v[0].obj[0].cpu, 3);
	kp_leaks_free(&l);
}

static void stats_view(void **state)
{
	struct kp_stats s;
	char err[256];
	FILE *f = fixture("view-stats.txt");

	(void)state;
	assert_int_equal(kp_parse_stats(f, "stats", &s, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(s.n, 37);
	assert_string_equal(s.v[0].key, "enabled");
	assert_string_equal(kp_stat(&s, "events"), "slab,page,percpu");
	assert_string_equal(kp_stat(&s, "live.max"), "524288");
	assert_string_equal(kp_stat(&s, "probe.ns_per_event"), "11807");
	assert_null(kp_stat(&s, "nope"));
	kp_stats_free(&s);
}

static void cpus_view(void **state)
{
	struct kp_cpus c;
	char err[256];
	FILE *f = fixture("view-cpus.txt");

	(void)state;
	assert_int_equal(kp_parse_cpus(f, "cpus", &c, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(c.n, 4);
	assert_int_equal(c.v[2].cpu, 2);
	assert_int_equal(c.v[2].cluster, 1);
	assert_int_equal(c.v[2].allocs, 9581);
	assert_int_equal(c.v[2].frees, 17268);
	assert_int_equal(c.v[2].remote, 8308);
	assert_int_equal(c.v[2].xcluster, 8053);
	kp_cpus_free(&c);
}

/*
 * The views with their knobs off (hist and lifetimes 0, self_timing 0):
 * a '#' line anywhere says so, and there may be no data lines at all.
 */
static void views_with_knobs_off(void **state)
{
	struct kp_hists h;
	struct kp_ages a;
	struct kp_leaks l;
	struct kp_cpus c;
	struct kp_stats s;
	char err[256];
	FILE *f;

	(void)state;
	f = text("kmemprof hist - version: 1.0\n"
		 "# <site> [<module>] func:<function> kind:<kind> size:<20 counts>\n"
		 "# histograms off: echo 1 > /proc/sys/kmemprof/hist\n");
	assert_int_equal(kp_parse_hist(f, "hist", &h, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(h.n, 0);
	kp_hists_free(&h);

	f = text("kmemprof ages - version: 1.0\n"
		 "# <live bytes> <live objects> <site> [<module>] func:<function> kind:<kind> age:<36 counts>\n"
		 "# lifetimes off: echo 1 > /proc/sys/kmemprof/lifetimes\n"
		 "448 7 f+0x1/0x2 func:f kind:slab age:0,7\n"
		 "# a comment between records\n"
		 "64 1 g+0x1/0x2 [m] func:g kind:slab age:1\n");
	assert_int_equal(kp_parse_ages(f, "ages", &a, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.v[1].tag.module, "m");
	kp_ages_free(&a);

	f = text("kmemprof leaks - version: 1.0\n"
		 "# live longer than 1000 ms: 0 objects, 0 bytes, 0 sites\n"
		 "# lifetimes off: echo 1 > /proc/sys/kmemprof/lifetimes\n");
	assert_int_equal(kp_parse_leaks(f, "leaks", &l, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.age_ms, 1000);
	kp_leaks_free(&l);

	f = text("kmemprof cpus - version: 1.0\n"
		 "# cpu cluster allocs frees remote xcluster\n"
		 "# remote, xcluster: counted only with hist on\n"
		 "0 0 7898 2637 0 0\n"
		 "# and one more\n"
		 "1 0 12653 4745 0 0\n");
	assert_int_equal(kp_parse_cpus(f, "cpus", &c, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.v[1].allocs, 12653);
	kp_cpus_free(&c);

	f = text("enabled 1\nevents slab,page,percpu\nunavailable none\n"
		 "# self_timing off\npfnmap.bytes 8192\ntags.used 1\n");
	assert_int_equal(kp_parse_stats(f, "stats", &s, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(s.n, 5);
	assert_string_equal(kp_stat(&s, "pfnmap.bytes"), "8192");
	assert_null(kp_stat(&s, "probe.samples"));
	kp_stats_free(&s);
}

static void stacks_view(void **state)
{
	struct kp_stacks s;
	char err[256];
	FILE *f = fixture("view-stacks.txt");
	const struct kp_stack *hog = NULL;
	size_t i;

	(void)state;
	assert_int_equal(kp_parse_stacks(f, "stacks", &s, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(s.depth, 4);
	assert_int_equal(s.sample, 1);
	assert_int_equal(s.n, 212);
	assert_string_equal(s.v[0].site, "__handle_mm_fault+0xd4c/0x1624");
	assert_int_equal(s.v[0].bytes, 12242944);
	assert_int_equal(s.v[0].allocs, 2989);
	assert_int_equal(s.v[0].live_bytes, -1);
	assert_int_equal(s.v[0].tag_bytes, 13520896);
	assert_int_equal(s.v[0].nframes, 4);
	assert_string_equal(s.v[0].frames[3], "do_mem_abort+0x40/0x8c");
	for (i = 0; i < s.n; i++)
		if (s.v[i].tag.func && !strcmp(s.v[i].tag.func, "hog_alloc"))
			hog = &s.v[i];
	assert_non_null(hog);
	if (!hog)
		return;
	assert_string_equal(hog->frames[0], "hog_alloc+0x38/0x48 [kmemprof_hog]");
	assert_string_equal(hog->tag.module, "kmemprof_hog");
	kp_stacks_free(&s);
}

/* Each broken form of each view, and the exact message. */
enum view { V_HIST, V_AGES, V_LEAKS, V_STATS, V_CPUS, V_STACKS, V_OWNERS };

static const struct {
	enum view v;
	const char *text, *error;
} broken[] = {
	{ V_HIST, "", "in:1: empty input" },
	{ V_HIST, "kmemprof ages - version: 1.0\n", "in:1: not a kmemprof hist view" },
	{ V_HIST, "kmemprof hist - version: 2.0\n", "in:1: unknown version 2.0" },
	{ V_HIST, "kmemprof hist - version: 1.0\nall kind:slab size:1 req:1\n",
	  "in:2: no size:, req: or life:" },
	{ V_HIST, "kmemprof hist - version: 1.0\nall kind:slab size:1,,2 req:1 life:1\n",
	  "in:2: bad counts" },
	{ V_HIST, "kmemprof hist - version: 1.0\nall kind:slab size:1,-2 req:1 life:1\n",
	  "in:2: bad counts" },
	{ V_HIST, "kmemprof hist - version: 1.0\nall kind:slab size:99999999999999999999999 req:1 life:1\n",
	  "in:2: bad counts" },
	{ V_HIST, "kmemprof hist - version: 1.0\nall size:1 req:1 life:1\n",
	  "in:2: no kind:" },
	{ V_HIST, "kmemprof hist - version: 1.0\nf+0/1 kind:slab size:1 req:1 life:1\n",
	  "in:2: no func:" },
	{ V_HIST, "kmemprof hist - version: 1.0\nall kind:slab size:1 req:1 life:1 frag:x\n",
	  "in:2: bad value for frag:" },
	{ V_HIST, "kmemprof hist - version: 1.0\nall kind:slab size:1 req:1 life:1 frag:nan\n",
	  "in:2: bad value for frag:" },
	{ V_HIST, "kmemprof hist - version: 1.0\nall kind:slab junk size:1 req:1 life:1\n",
	  "in:2: expected key:value" },
	{ V_AGES, "kmemprof ages - version: 1.0\nx 1 f func:f kind:slab age:1\n",
	  "in:2: bad live bytes" },
	{ V_AGES, "kmemprof ages - version: 1.0\n1 -1 f func:f kind:slab age:1\n",
	  "in:2: bad object count" },
	{ V_AGES, "kmemprof ages - version: 1.0\n1 1 f func:f kind:slab\n",
	  "in:2: no age:" },
	{ V_AGES, "kmemprof ages - version: 1.0\n1 1 f [m func:f kind:slab age:1\n",
	  "in:2: bad [module]" },
	{ V_AGES, "kmemprof ages - version: 1.0\n1 1\n", "in:2: no tag" },
	{ V_LEAKS, "kmemprof leaks - version: 1.0\n  0000 size:1 age_ms:1 cpu:0\n",
	  "in:2: object before any tag" },
	{ V_LEAKS, "kmemprof leaks - version: 1.0\n1 1 f func:f kind:page\n  0000 size:x age_ms:1 cpu:0\n",
	  "in:3: bad value for size:" },
	{ V_LEAKS, "kmemprof leaks - version: 1.0\n1 1 f func:f kind:page\n  0000 age_ms:1 cpu:0\n",
	  "in:3: no size: or age_ms:" },
	{ V_LEAKS, "kmemprof leaks - version: 1.0\n1 1 f func:f kind:page\n  0000 size:1 age_ms:1 cpu:99999999\n",
	  "in:3: bad value for cpu:" },
	{ V_LEAKS, "kmemprof leaks - version: 1.0\n1 1 f func:f kind:page x\n",
	  "in:2: expected key:value" },
	{ V_STATS, "", "in:1: empty input" },
	{ V_STATS, "enabled 1 2\n", "in:1: expected 'key value'" },
	{ V_STATS, "events x\n", "in:1: not a kmemprof stats view (no 'enabled')" },
	{ V_STATS, "enabled 1\nlonely\n", "in:2: expected 'key value'" },
	{ V_CPUS, "kmemprof cpus - version: 1.0\n0 0 1 2 3\n", "in:2: too few fields" },
	{ V_CPUS, "kmemprof cpus - version: 1.0\n0 0 1 2 3 4 5\n", "in:2: too many fields" },
	{ V_CPUS, "kmemprof cpus - version: 1.0\n0 0 1 2 x 4\n", "in:2: bad number" },
	{ V_CPUS, "kmemprof cpus - version: 1.0\n9999999 0 1 2 3 4\n",
	  "in:2: bad cpu or cluster" },
	{ V_STACKS, "kmemprof stacks - version: 1.0\nAllocate 1 (1.0%) bytes on 1 (1.0%) objects:\n",
	  "in:2: stack before any tag" },
	{ V_STACKS, "kmemprof stacks - version: 1.0\n    f+0/1\n",
	  "in:2: frame before any stack" },
	{ V_STACKS, "kmemprof stacks - version: 1.0\nf func:f kind:slab stacks:1\nAllocate 1 bytes on 1 objects:\n",
	  "in:3: bad Allocate line" },
	{ V_STACKS, "kmemprof stacks - version: 1.0\nf func:f kind:slab stacks:1\nAllocate 1 (1.0%) bytes on 1 (1.0%) objects: x\n",
	  "in:3: bad Allocate line" },
	{ V_STACKS, "kmemprof stacks - version: 1.0\nf func:f kind:slab allocs:x\n",
	  "in:2: bad value for allocs:" },
	{ V_STACKS, "kmemprof stacks - version: 1.0\nf func:f stacks:1\n",
	  "in:2: no kind:" },	{ V_OWNERS, "kmemprof owners - version: 2.0\n",
	  "in:1: unknown version 2.0" },
	{ V_OWNERS, "kmemprof stacks - version: 1.0\n",
	  "in:1: not a kmemprof owners view" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\nx 1 f func:f kind:slab owner:a tgid:1 allocs:1\n",
	  "in:2: bad live bytes" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 -1 f func:f kind:slab owner:a tgid:1 allocs:1\n",
	  "in:2: bad object count" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab allocs:1\n",
	  "in:2: no owner: or cgroup:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab owner: tgid:1 allocs:1\n",
	  "in:2: bad owner:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab cgroup: cgroup_id:1 allocs:1\n",
	  "in:2: bad cgroup:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab owner:a allocs:1\n",
	  "in:2: owner: with neither tgid: nor [name]" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab owner:a tgid:x allocs:1\n",
	  "in:2: bad value for tgid:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab owner:a tgid:1 tgid:2 allocs:1\n",
	  "in:2: more than one tgid:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab cgroup:/a tgid:1 allocs:1\n",
	  "in:2: tgid: without owner:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab cgroup:/a allocs:1\n",
	  "in:2: no cgroup_id:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab cgroup:/a cgroup_id:-4 allocs:1\n",
	  "in:2: bad value for cgroup_id:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab owner:a tgid:1 cgroup_id:4 allocs:1\n",
	  "in:2: cgroup_id: without cgroup:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab owner:a tgid:1 cgroup:/a cgroup_id:4 allocs:1\n",
	  "in:2: more than one owner" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab owner:a tgid:1\n",
	  "in:2: no allocs:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab owner:a tgid:1 allocs:1x\n",
	  "in:2: bad value for allocs:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab owner:a tgid:1 allocs:1 caller:\n",
	  "in:2: bad caller:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f kind:slab owner:a tgid:1 allocs:1 junk\n",
	  "in:2: expected key:value" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n1 1 f func:f owner:a tgid:1 allocs:1\n",
	  "in:2: no kind:" },
	{ V_OWNERS, "kmemprof owners - version: 1.0\n# c\n1 1 f func:f kind:slab owner:[kthreadd] allocs:1\n2 1 f func:f kind:page owner:[k allocs:1\n",
	  "in:4: owner: with neither tgid: nor [name]" },
};

/* owners: the layout of module/debugfs.c's owners_show(), task and cgroup */
static void owners_view(void **state)
{
	static const char off[] =
		"kmemprof owners - version: 1.0\n"
		"# owners off: echo task > /proc/sys/kmemprof/owners\n";
	const struct kp_oline *l;
	struct kp_owners o;
	char err[256];
	FILE *f;

	(void)state;
	f = fixture("view-owners.txt");
	assert_int_equal(kp_parse_owners(f, "view-owners.txt", &o, err,
					 sizeof(err)), 0);
	fclose(f);
	assert_int_equal(o.n, 9);
	assert_false(o.off);
	assert_true(o.task);
	assert_false(o.cgroup);
	l = &o.v[0];
	assert_string_equal(l->tag.site, "hog_alloc+0x38/0x48");
	assert_string_equal(l->tag.module, "kmemprof_hog");
	assert_string_equal(l->tag.func, "hog_alloc");
	assert_string_equal(l->tag.kind, "page");
	assert_int_equal(l->tag.bytes, 1048576);
	assert_int_equal(l->tag.objs, 128);
	assert_int_equal(l->tag.allocs, 128);
	assert_int_equal(l->tag.frees, -1);
	assert_int_equal(l->type, KP_OWN_TASK);
	assert_string_equal(l->name, "kmp_own_a");
	assert_int_equal(l->id, 212);
	assert_string_equal(l->owner, "kmp_own_a[212]");
	l = &o.v[2];
	assert_int_equal(l->type, KP_OWN_KERNEL);
	assert_string_equal(l->name, "[kthreadd]");
	assert_int_equal(l->id, -1);
	assert_string_equal(l->owner, "[kthreadd]");
	/* A caller: after allocs:, and an escaped comm kept as it is. */
	l = &o.v[6];
	assert_string_equal(l->tag.callers, "kernel_clone+0x80/0x330");
	assert_string_equal(l->name, "my\\x20app");
	assert_string_equal(l->owner, "my\\x20app[301]");
	assert_int_equal(l->tag.allocs, 2);
	kp_owners_free(&o);

	f = fixture("view-owners-cgroup.txt");
	assert_int_equal(kp_parse_owners(f, "c", &o, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(o.n, 5);
	assert_false(o.task);
	assert_true(o.cgroup);
	assert_int_equal(o.v[0].type, KP_OWN_CGROUP);
	assert_string_equal(o.v[0].name, "/kmp-a");
	assert_int_equal(o.v[0].id, 4711);
	assert_string_equal(o.v[0].owner, "/kmp-a");
	/* A group gone before the kernel made its path. */
	assert_string_equal(o.v[3].name, "?");
	assert_string_equal(o.v[3].owner, "cgroup_id:4713");
	assert_int_equal(o.v[4].type, KP_OWN_KERNEL);
	kp_owners_free(&o);

	f = text(off);
	assert_int_equal(kp_parse_owners(f, "off", &o, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(o.n, 0);
	assert_true(o.off);
	kp_owners_free(&o);
}

/* The lines summed per owner, by live bytes, and by the other keys. */
static void owner_sums(void **state)
{
	static const struct kp_keys by_objs = { { KP_OBJS }, 1 };
	static const struct kp_keys by_avg = { { KP_AVG }, 1 };
	struct kp_osum *v;
	struct kp_owners o;
	char err[256], got[1024];
	bool keep[9];
	size_t i, n, k = 0;
	FILE *f;

	(void)state;
	f = fixture("view-owners.txt");
	assert_int_equal(kp_parse_owners(f, "o", &o, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(kp_owner_sums(&o, NULL, &v, &n), 0);
	for (i = 0; i < n; i++)
		k += (size_t)snprintf(got + k, sizeof(got) - k,
				      "%s %s %lld %lld %lld %zu\n", v[i].owner,
				      kp_owner_type_name(v[i].type),
				      (long long)v[i].bytes,
				      (long long)v[i].objs,
				      (long long)v[i].allocs, v[i].lines);
	assert_string_equal(got,
		"kmp_own_a[212] task 1253376 153 158 2\n"
		"kmp_own_b[213] task 786432 96 100 1\n"
		"[kthreadd] kernel 131072 16 16 1\n"
		"[kworker] kernel 65536 8 8 1\n"
		"[softirq] kernel 4096 1 1 1\n"
		"my\\x20app[301] task 3648 5 6 2\n"
		"[irq] kernel 192 1 1 1\n");
	kp_osums_sort(v, n, &by_objs);
	assert_string_equal(v[0].owner, "kmp_own_a[212]");
	assert_string_equal(v[4].owner, "my\\x20app[301]");
	/* Ties by name: [irq] and [softirq] have one object each. */
	assert_string_equal(v[5].owner, "[irq]");
	assert_string_equal(v[6].owner, "[softirq]");
	kp_osums_sort(v, n, &by_avg);
	assert_string_equal(v[4].owner, "[softirq]");
	assert_string_equal(v[5].owner, "my\\x20app[301]");
	free(v);
	/* Only the slab lines. */
	for (i = 0; i < o.n; i++)
		keep[i] = !strcmp(o.v[i].tag.kind, "slab");
	assert_int_equal(kp_owner_sums(&o, keep, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].owner, "my\\x20app[301]");
	assert_int_equal(v[0].bytes, 3648);
	assert_string_equal(v[1].owner, "[irq]");
	free(v);
	kp_owners_free(&o);
}

static int parse_view(enum view v, FILE *f, char *err, size_t len)
{
	struct kp_hists h;
	struct kp_ages a;
	struct kp_leaks l;
	struct kp_stats s;
	struct kp_cpus c;
	struct kp_stacks st;
	struct kp_owners o;
	int rc;

	switch (v) {
	case V_HIST:
		rc = kp_parse_hist(f, "in", &h, err, len);
		if (!rc)
			kp_hists_free(&h);
		return rc;
	case V_AGES:
		rc = kp_parse_ages(f, "in", &a, err, len);
		if (!rc)
			kp_ages_free(&a);
		return rc;
	case V_LEAKS:
		rc = kp_parse_leaks(f, "in", &l, err, len);
		if (!rc)
			kp_leaks_free(&l);
		return rc;
	case V_STATS:
		rc = kp_parse_stats(f, "in", &s, err, len);
		if (!rc)
			kp_stats_free(&s);
		return rc;
	case V_CPUS:
		rc = kp_parse_cpus(f, "in", &c, err, len);
		if (!rc)
			kp_cpus_free(&c);
		return rc;
	case V_OWNERS:
		rc = kp_parse_owners(f, "in", &o, err, len);
		if (!rc)
			kp_owners_free(&o);
		return rc;
	case V_STACKS:
	default:
		rc = kp_parse_stacks(f, "in", &st, err, len);
		if (!rc)
			kp_stacks_free(&st);
		return rc;
	}
}

static void views_refuse_broken_input(void **state)
{
	char err[256];
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		err[0] = '\0';
		f = text(broken[i].text);
		if (parse_view(broken[i].v, f, err, sizeof(err)) != -1)
			fail_msg("case %zu parsed: %s", i, broken[i].text);
		fclose(f);
		if (strcmp(err, broken[i].error))
			fail_msg("case %zu: got '%s', want '%s'", i, err,
				 broken[i].error);
	}
}

static void views_refuse_nul_bytes(void **state)
{
	static const char t[] = "kmemprof cpus - version: 1.0\n0 0 1\0 2 3 4\n";
	FILE *f = fmemopen((void *)t, sizeof(t) - 1, "r");
	struct kp_cpus c;
	char err[256];

	(void)state;
	assert_int_equal(kp_parse_cpus(f, "nul", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "nul:2: NUL byte in line");
	fclose(f);
}

static void bucket_labels(void **state)
{
	static const struct {
		enum kp_bucket b;
		size_t i;
		const char *label;
		uint64_t lower;
	} cases[] = {
		{ KP_B_SIZE, 0, "<=8", 0 },
		{ KP_B_SIZE, 1, "16", 9 },
		{ KP_B_SIZE, 7, "1.0K", 513 },
		{ KP_B_SIZE, 18, "2.0M", 1048577 },
		{ KP_B_SIZE, 19, ">2M", 2097153 },
		{ KP_B_ORDER, 0, "4.0K", 4096 },
		{ KP_B_ORDER, 3, "32K", 32768 },
		{ KP_B_LIFE, 0, "<1us", 0 },
		{ KP_B_LIFE, 1, "1.0us", 1024 },
		{ KP_B_LIFE, 11, "1.0ms", 1048576 },
		{ KP_B_LIFE, 21, "1.1s", 1073741824 },
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		kp_hist_label(cases[i].b, cases[i].i, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].label);
		assert_int_equal(kp_hist_lower(cases[i].b, cases[i].i),
				 cases[i].lower);
	}
}

/* Snapshots, diff, rates, series */

static void snapshot_roundtrip(void **state)
{
	struct kp_profile p, q;
	char err[256], *buf = NULL;
	size_t size = 0;
	FILE *in = fixture("snap-b.txt"), *out = open_memstream(&buf, &size);

	(void)state;
	assert_int_equal(kp_snapshot_write(out, in, "/proc/kmemprof",
					   1763780000.25, err, sizeof(err)), 0);
	fclose(in);
	fclose(out);
	assert_non_null(strstr(buf, "kmemprof - version: 1.0\n"
			       "# snapshot time:1763780000.250 source:/proc/kmemprof\n"));
	in = text(buf);
	assert_int_equal(kp_parse(in, "snap", &p, err, sizeof(err)), 0);
	fclose(in);
	assert_true(p.time > 1763780000.24 && p.time < 1763780000.26);
	in = fixture("snap-b.txt");
	assert_int_equal(kp_parse(in, "b", &q, err, sizeof(err)), 0);
	fclose(in);
	assert_int_equal(p.n, q.n);
	assert_int_equal(q.time, 0);
	kp_free(&p);
	kp_free(&q);
	free(buf);

	/* What does not parse is no snapshot. */
	buf = NULL;
	out = open_memstream(&buf, &size);
	in = text("kmemprof - version: 1.0\n 1 x f func:f\n");
	assert_int_equal(kp_snapshot_write(out, in, "src", 1, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "src:3: bad object count");
	fclose(in);
	fclose(out);
	assert_int_equal(size, 0);
	free(buf);
}

static const char *const diff_a =
	"kmemprof - version: 1.0\n"
	"# snapshot time:100.000 source:x\n"
	"      1000       10 a+0x0/0x1 func:a kind:slab allocs:50 frees:40 bytes:5000 req:2500\n"
	"      8192        2 b+0x0/0x1 [m] func:b kind:page allocs:9 frees:7 bytes:36864 req:36864\n"
	"       300        3 c+0x0/0x1 func:c kind:slab allocs:700 frees:697 bytes:70000 req:69000\n"
	"       100        1 k+0x0/0x1 func:k kind:slab allocs:1 frees:0 bytes:100 req:100 caller:x+0x1/0x2\n";

static const char *const diff_b =
	"kmemprof - version: 1.0\n"
	"# snapshot time:110.000 source:x\n"
	"      3000       30 a+0x0/0x1 func:a kind:slab allocs:90 frees:60 bytes:9000 req:4500\n"
	"      8192        2 b+0x0/0x1 [m] func:b kind:page allocs:9 frees:7 bytes:36864 req:36864\n"
	"       500        5 a+0x0/0x1 func:a kind:page allocs:5 frees:0 bytes:500 req:500\n"
	"       100        1 k+0x0/0x1 func:k kind:slab allocs:1 frees:0 bytes:100 req:100 caller:y+0x1/0x2\n";

static void load_str(const char *s, struct kp_profile *p)
{
	char err[256];
	FILE *f = text(s);

	assert_int_equal(kp_parse(f, "t", p, err, sizeof(err)), 0);
	fclose(f);
}

static void diff_arithmetic(void **state)
{
	struct kp_profile a, b;
	struct kp_diff d;
	size_t i;

	(void)state;
	load_str(diff_a, &a);
	load_str(diff_b, &b);
	assert_int_equal(kp_diff(&a, &b, &d), 0);
	assert_true(d.dt > 9.99 && d.dt < 10.01);
	/* a/slab, a/page (new), b, c (gone), k<-x (gone), k<-y (new) */
	assert_int_equal(d.n, 6);
	/* by growth: a/slab +2000, a/page +500, k<-y +100, b 0, k<-x -100, c -300 */
	assert_string_equal(d.v[0].b->site, "a+0x0/0x1");
	assert_string_equal(d.v[0].b->kind, "slab");
	assert_int_equal(d.v[0].bytes, 2000);
	assert_int_equal(d.v[0].objs, 20);
	assert_int_equal(d.v[0].allocs, 40);
	assert_int_equal(d.v[0].frees, 20);
	assert_int_equal(d.v[0].total, 4000);
	assert_null(d.v[1].a);
	assert_string_equal(d.v[1].b->kind, "page");
	assert_int_equal(d.v[1].bytes, 500);
	assert_int_equal(d.v[1].allocs, 5);
	assert_null(d.v[2].a);
	assert_string_equal(d.v[2].b->callers, "y+0x1/0x2");
	assert_int_equal(d.v[2].bytes, 100);
	assert_int_equal(d.v[3].bytes, 0);
	assert_string_equal(d.v[3].b->module, "m");
	assert_null(d.v[4].b);
	assert_int_equal(d.v[4].bytes, -100);
	assert_null(d.v[5].b);
	assert_string_equal(d.v[5].a->site, "c+0x0/0x1");
	assert_int_equal(d.v[5].bytes, -300);
	assert_int_equal(d.v[5].allocs, -700);
	for (i = 0; i < d.n; i++)
		assert_true(d.v[i].a || d.v[i].b);
	kp_diff_free(&d);

	/* Watch's rates: allocations a second, a new site from zero. */
	kp_rates(&b, &a, 10);
	for (i = 0; i < b.n; i++) {
		double want = !strcmp(b.sites[i].kind, "page") &&
			      !strcmp(b.sites[i].site, "a+0x0/0x1") ? 0.5 :
			      !strcmp(b.sites[i].site, "a+0x0/0x1") ? 4.0 :
			      !strcmp(b.sites[i].site, "k+0x0/0x1") ? 0.1 : 0;

		if (b.sites[i].rate < want - 1e-9 || b.sites[i].rate > want + 1e-9)
			fail_msg("%s %s: rate %f, want %f", b.sites[i].site,
				 b.sites[i].kind, b.sites[i].rate, want);
	}
	/* watch's rates of the first delta: a/slab over 10 s */
	assert_int_equal(kp_diff(&a, &b, &d), 0);
	{
		struct kp_rate r;

		kp_delta_rate(&d.v[0], 10, &r);
		assert_true(r.growth == 200 && r.allocs == 4 && r.bytes == 400);
		kp_delta_rate(&d.v[d.n - 1], 10, &r);	/* c, gone: -300 */
		assert_true(r.growth == -30 && r.allocs == 0 && r.bytes == 0);
		kp_delta_rate(&d.v[0], 0, &r);
		assert_true(r.growth == 0 && r.allocs == 0 && r.bytes == 0);
	}
	kp_diff_free(&d);
	kp_rates(&b, &a, 0);	/* no time: no rates */
	for (i = 0; i < b.n; i++)
		assert_true(b.sites[i].rate == 0);
	kp_free(&a);
	kp_free(&b);
}

/* A module loaded again: new tags with the same text match in order. */
static void diff_reloaded_module(void **state)
{
	struct kp_profile a, b;
	struct kp_diff d;

	(void)state;
	load_str("kmemprof - version: 1.0\n"
		 "  100 1 h+0x1/0x2 [hog] func:h kind:page allocs:1 frees:0 bytes:100 req:100\n",
		 &a);
	load_str("kmemprof - version: 1.0\n"
		 "    0 0 h+0x1/0x2 [hog] func:h kind:page allocs:1 frees:1 bytes:100 req:100 module:unloaded\n"
		 "  300 3 h+0x1/0x2 [hog] func:h kind:page allocs:3 frees:0 bytes:300 req:300\n",
		 &b);
	assert_int_equal(kp_diff(&a, &b, &d), 0);
	assert_int_equal(d.n, 2);
	assert_int_equal(d.v[0].bytes, 300);
	assert_null(d.v[0].a);
	assert_ptr_equal(d.v[0].b, &b.sites[1]);
	assert_int_equal(d.v[1].bytes, -100);
	assert_ptr_equal(d.v[1].a, &a.sites[0]);
	assert_ptr_equal(d.v[1].b, &b.sites[0]);
	assert_int_equal(d.v[1].frees, 1);
	kp_diff_free(&d);
	kp_free(&a);
	kp_free(&b);
}

static void diff_real_snapshots(void **state)
{
	struct kp_profile a, b;
	struct kp_diff d;
	char err[256];
	FILE *f;
	size_t i, born = 0;
	int64_t sum = 0, live_a = 0, live_b = 0;

	(void)state;
	f = fixture("snap-a.txt");
	assert_int_equal(kp_parse(f, "a", &a, err, sizeof(err)), 0);
	fclose(f);
	f = fixture("snap-b.txt");
	assert_int_equal(kp_parse(f, "b", &b, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(kp_diff(&a, &b, &d), 0);
	for (i = 0; i < d.n; i++) {
		sum += d.v[i].bytes;
		born += !d.v[i].a;
	}
	for (i = 0; i < a.n; i++)
		live_a += a.sites[i].bytes;
	for (i = 0; i < b.n; i++)
		live_b += b.sites[i].bytes;
	assert_int_equal(sum, live_b - live_a);	/* growth adds up */
	assert_int_equal(born, 24);
	assert_string_equal(d.v[0].b->func, "hog_alloc");
	assert_int_equal(d.v[0].bytes, 2097152);
	kp_diff_free(&d);
	kp_free(&a);
	kp_free(&b);
}

static void series_record(void **state)
{
	char *rec = NULL, err[256];
	size_t size = 0, i, ka = 0;
	struct kp_series s;
	FILE *out = open_memstream(&rec, &size), *in;

	(void)state;
	in = text(diff_a);
	assert_int_equal(kp_snapshot_write(out, in, "x", 100, err, sizeof(err)), 0);
	fclose(in);
	in = text(diff_b);
	assert_int_equal(kp_snapshot_write(out, in, "x", 110, err, sizeof(err)), 0);
	fclose(in);
	in = text(diff_b);
	assert_int_equal(kp_snapshot_write(out, in, "x", 125.5, err, sizeof(err)), 0);
	fclose(in);
	fclose(out);
	in = text(rec);
	assert_int_equal(kp_series_load(in, "rec", &s, err, sizeof(err)), 0);
	fclose(in);
	assert_int_equal(s.nt, 3);
	assert_true(s.t[0] == 100 && s.t[1] == 110 && s.t[2] == 125.5);
	assert_int_equal(s.nsite, 6);
	for (i = 0; i < s.nsite; i++)
		if (!strcmp(s.site[i], "a+0x0/0x1 kind:slab"))
			ka = i + 1;
	assert_true(ka);
	assert_int_equal(s.live[(ka - 1) * s.nt + 0], 1000);
	assert_int_equal(s.live[(ka - 1) * s.nt + 1], 3000);
	assert_int_equal(s.live[(ka - 1) * s.nt + 2], 3000);
	kp_series_free(&s);
	free(rec);

	/* Errors name the line of the whole record. */
	in = text("kmemprof - version: 1.0\n# snapshot time:1 source:x\n"
		  " 1 1 f func:f\n"
		  "kmemprof - version: 1.0\n# snapshot time:2 source:x\n"
		  " 1 1 f func:f\n 1 1 f func:f allocs:y\n");
	assert_int_equal(kp_series_load(in, "rec", &s, err, sizeof(err)), -1);
	assert_string_equal(err, "rec:7: bad value for allocs: 'y'");
	fclose(in);
	in = text("kmemprof - version: 1.0\n 1 1 f func:f\n");
	assert_int_equal(kp_series_load(in, "rec", &s, err, sizeof(err)), -1);
	assert_string_equal(err, "rec:1: snapshot without a time line");
	fclose(in);
	in = text("junk\n");
	assert_int_equal(kp_series_load(in, "rec", &s, err, sizeof(err)), -1);
	assert_string_equal(err, "rec:1: not a kmemprof or allocinfo header");
	fclose(in);
	in = text("");
	assert_int_equal(kp_series_load(in, "rec", &s, err, sizeof(err)), -1);
	assert_string_equal(err, "rec:1: empty input");
	fclose(in);
}

/*
 * A long record, rows grown past their first columns and keys past the
 * map's first size: a site that comes late is 0 before it, one that goes
 * is 0 after; each snapshot holds 1100 sites, and 100 new ones come
 * with each of its 100 snapshots (11000 keys in all).
 */
static void series_long_record(void **state)
{
	char *rec = NULL, err[256];
	size_t size = 0, t, i, k, late = 0, first = 0;
	struct kp_series s;
	FILE *out = open_memstream(&rec, &size), *in;

	(void)state;
	for (t = 0; t < 100; t++) {
		fprintf(out, "kmemprof - version: 1.0\n# snapshot time:%zu source:x\n",
			1000 + t);
		for (i = 0; i < 1100; i++) {
			k = i < 1000 ? i : i + 100 * t;
			fprintf(out, " %zu 1 f%zu+0x0/0x1 func:f%zu kind:slab\n",
				64 * (t + 1), k, k);
		}
	}
	fclose(out);
	in = text(rec);
	assert_int_equal(kp_series_load(in, "rec", &s, err, sizeof(err)), 0);
	fclose(in);
	assert_int_equal(s.nt, 100);
	assert_int_equal(s.nsite, 1000 + 100 * 100);
	assert_true(s.t[0] == 1000 && s.t[99] == 1099);
	for (i = 0; i < s.nsite; i++) {
		if (!strcmp(s.site[i], "f0+0x0/0x1 kind:slab"))
			first = i + 1;
		if (!strcmp(s.site[i], "f10099+0x0/0x1 kind:slab"))
			late = i + 1;	/* snapshot 90's */
	}
	assert_true(first && late);
	for (t = 0; t < 100; t++) {
		assert_int_equal(s.live[(first - 1) * s.nt + t], 64 * (t + 1));
		assert_int_equal(s.live[(late - 1) * s.nt + t],
				 t == 90 ? 64 * 91 : 0);
	}
	kp_series_free(&s);
	free(rec);
}

static void sorts_by_rate_and_age(void **state)
{
	struct kp_profile a, b;
	enum kp_key key;

	(void)state;
	load_str(diff_a, &a);
	load_str(diff_b, &b);
	kp_rates(&b, &a, 10);
	assert_int_equal(kp_key_parse("rate", &key), 0);
	kp_sort(&b, key);
	assert_string_equal(b.sites[0].kind, "slab");	/* a: 4/s */
	assert_string_equal(b.sites[1].kind, "page");	/* a: 0.5/s */
	assert_string_equal(b.sites[2].site, "k+0x0/0x1");
	b.sites[3].age_ms = 5000;
	assert_int_equal(kp_key_parse("age", &key), 0);
	kp_sort(&b, key);
	assert_int_equal(b.sites[0].age_ms, 5000);
	kp_free(&a);
	kp_free(&b);
}

const struct CMUnitTest kp_view_tests[] = {
	cmocka_unit_test(hist_view),
	cmocka_unit_test(ages_view),
	cmocka_unit_test(leaks_view),
	cmocka_unit_test(stats_view),
	cmocka_unit_test(cpus_view),
	cmocka_unit_test(stacks_view),
	cmocka_unit_test(owners_view),
	cmocka_unit_test(owner_sums),
	cmocka_unit_test(views_with_knobs_off),
	cmocka_unit_test(views_refuse_broken_input),
	cmocka_unit_test(views_refuse_nul_bytes),
	cmocka_unit_test(bucket_labels),
	cmocka_unit_test(snapshot_roundtrip),
	cmocka_unit_test(diff_arithmetic),
	cmocka_unit_test(diff_reloaded_module),
	cmocka_unit_test(diff_real_snapshots),
	cmocka_unit_test(series_record),
	cmocka_unit_test(series_long_record),
	cmocka_unit_test(sorts_by_rate_and_age),
};

const size_t kp_view_ntests = sizeof(kp_view_tests) / sizeof(kp_view_tests[0]);
