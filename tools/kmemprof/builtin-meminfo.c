// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof meminfo: the whole-RAM account, /proc/meminfo's categories
 * beside what kmemprof attributes, in lines that add up to MemTotal
 * (meminfo.c has the arithmetic). Reads /proc/kmemprof, /proc/meminfo and
 * /proc/zoneinfo under $KMEMPROF_ROOT.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonstr.h"
#include "meminfo.h"
#include "viewcmd.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#endif

/* What a line without a meminfo category is, beside it. */
static const char *const notes[KP_ML_NR] = {
	[KP_ML_PCP] = "(zoneinfo)",
	[KP_ML_SELF] = "(kmemprof:tables)",
	[KP_ML_UNTRACKED] = "(the rest)",
};

enum { PART_MEMINFO, PART_ZONEINFO, PART_PROFILE, NPARTS };

/* Which part a capture's line starts, or -1 (it goes on in the last). */
static int part_of(const char *line)
{
	if (!strncmp(line, "MemTotal:", 9))
		return PART_MEMINFO;
	if (!strncmp(line, "Node ", 5) && line[5] >= '0' && line[5] <= '9')
		return PART_ZONEINFO;
	if (!strncmp(line, "kmemprof - version", 18) ||
	    !strncmp(line, "allocinfo - version", 19))
		return PART_PROFILE;
	return -1;
}

/* The three parts of a capture: -1 after a message. */
static int load_capture(const char *path, struct kp_meminfo *m,
			struct kp_zoneinfo *z, struct kp_profile *p)
{
	static const char *const names[NPARTS] = {
		"/proc/meminfo", "/proc/zoneinfo", "/proc/kmemprof",
	};
	char *text, *line, *start[NPARTS] = { NULL }, *end[NPARTS] = { NULL };
	char err[1200], name[600];
	size_t n, i;
	int cur = -1, k, rc = 0;
	FILE *f;

	text = kp_slurp(path, &n);
	if (!text)
		return -1;
	for (line = text; line < text + n; line = strchrnul(line, '\n') + 1) {
		k = part_of(line);
		/* a part's first line starts it, once */
		if (k >= 0 && k != cur && !start[k]) {
			if (cur >= 0)
				end[cur] = line;
			cur = k;
			start[k] = line;
		} else if (cur < 0 && line[strspn(line, " \t\n")]) {
			kp_err("-i %s:1: not a capture of /proc/meminfo, /proc/zoneinfo and /proc/kmemprof (cat them into one file)",
			       path);
			free(text);
			return -1;
		}
	}
	if (cur >= 0)
		end[cur] = text + n;
	for (i = 0; i < NPARTS; i++) {
		if (!start[i] && i != PART_ZONEINFO) {
			kp_err("-i %s: no %s in it (cat /proc/meminfo /proc/zoneinfo /proc/kmemprof > FILE)",
			       path, names[i]);
			rc = -1;
			break;
		}
		if (!start[i])
			continue;
		snprintf(name, sizeof(name), "%s (its %s)", path, names[i]);
		f = fmemopen(start[i], (size_t)(end[i] - start[i]), "r");
		if (!f) {
			kp_err("-i %s: out of memory", path);
			rc = -1;
			break;
		}
		rc = i == PART_MEMINFO ? kp_parse_meminfo(f, name, m, err, sizeof(err)) :
		     i == PART_ZONEINFO ? kp_parse_zoneinfo(f, name, z, err, sizeof(err)) :
		     kp_parse(f, name, p, err, sizeof(err));
		fclose(f);
		/* the profile is the last: nothing to free before it */
		if (rc) {
			fprintf(stderr, "kmemprof: %s\n", err);
			break;
		}
	}
	free(text);
	return rc ? -1 : 0;
}

int kp_meminfo_load(const char *capture, struct kp_account *a)
{
	struct kp_meminfo m;
	struct kp_zoneinfo z;
	struct kp_profile p;
	char path[512], err[600];
	int rc;

	if (capture) {
		memset(&z, 0, sizeof(z));
		if (load_capture(capture, &m, &z, &p))
			return -1;
		rc = kp_account(&p, &m, &z, 0, a, err, sizeof(err));
		kp_free(&p);
		if (rc)
			fprintf(stderr, "kmemprof: %s\n", err);
		return rc;
	}
	kp_path("/proc/kmemprof", path, sizeof(path));
	if (kp_load(path, &p, NULL, NULL))
		return -1;
	rc = kp_read_meminfo(&m, &z, err, sizeof(err));
	if (!rc)
		rc = kp_account(&p, &m, &z, 0, a, err, sizeof(err));
	kp_free(&p);
	if (rc)
		fprintf(stderr, "kmemprof: %s\n", err);
	return rc;
}

/* A signed cell: "-" for KP_NONE. */
static void cell(int64_t v, bool human, char *buf, size_t len)
{
	if (v == KP_NONE)
		snprintf(buf, len, "-");
	else if (human)
		kp_iec(v, buf, len);
	else
		snprintf(buf, len, "%" PRId64, v);
}

static void row(const char *label, int64_t bytes, int64_t since,
		int64_t before, int64_t meminfo, const char *what, bool human)
{
	char c[4][32];

	cell(bytes, human, c[0], sizeof(c[0]));
	cell(since, human, c[1], sizeof(c[1]));
	cell(before, human, c[2], sizeof(c[2]));
	cell(meminfo, human, c[3], sizeof(c[3]));
	printf("%-22s %12s %12s %12s %12s%s%s\n", label, c[0], c[1], c[2],
	       c[3], what ? "  " : "", what ? what : "");
}

static void aside(const char *label, int64_t v, const char *what,
		  bool human)
{
	char c[32];

	if (v == KP_NONE)
		return;
	cell(v, human, c, sizeof(c));
	printf("  %-34s %12s  %s\n", label, c, what);
}

static int human_out(const struct kp_account *a, bool human)
{
	char t[5][32];
	size_t i;

	cell(a->memtotal, human, t[0], sizeof(t[0]));
	cell(a->l[KP_ML_FREE].bytes + a->l[KP_ML_PCP].bytes, human, t[1],
	     sizeof(t[1]));
	cell(a->attributed, human, t[2], sizeof(t[2]));
	cell(a->l[KP_ML_UNTRACKED].bytes, human, t[3], sizeof(t[3]));
	printf("MemTotal %s = free %s + on kmemprof's page lines %s + untracked %s\n",
	       t[0], t[1], t[2], t[3]);
	cell(a->attributed - a->before_load - a->l[KP_ML_SELF].bytes, human,
	     t[0], sizeof(t[0]));
	cell(a->before_load, human, t[1], sizeof(t[1]));
	cell(a->l[KP_ML_SELF].bytes, human, t[2], sizeof(t[2]));
	printf("kmemprof's page lines: %s since load, %s from before load, %s its own tables%s\n\n",
	       t[0], t[1], t[2], a->have_prior ? "" :
	       " (no before_load lines: this module does not enter them)");
	printf("%-22s %12s %12s %12s %12s\n", "LINE", "BYTES", "SINCE LOAD",
	       "BEFORE LOAD", "MEMINFO");
	for (i = 0; i < KP_ML_NR; i++) {
		const struct kp_mline_info *mi = kp_mline_info(i);
		const struct kp_account_line *l = &a->l[i];

		if (i == KP_ML_PCP && !a->have_zoneinfo) {
			row(mi->label, KP_NONE, KP_NONE, KP_NONE, KP_NONE,
			    "(no zoneinfo)", human);
			continue;
		}
		row(mi->label, l->bytes, l->since, l->before, l->meminfo,
		    mi->field ? mi->field : notes[i], human);
	}
	row("= MemTotal", a->memtotal, KP_NONE, KP_NONE, a->memtotal,
	    "MemTotal", human);
	printf("\n%s"
	       "untracked: MemTotal minus the lines above: pages allocated between the\n"
	       "reads of the files (below zero when more were freed), and pages off the\n"
	       "free lists that no line holds: alloc_contig_pages(), drop.tags, skip.nmi,\n"
	       "isolated free pages (Documentation/kmemprof-output.rst lists them all).\n"
	       "\nBeside the account, not added (outside MemTotal, or inside the lines):\n",
	       a->have_zoneinfo ?
	       "free in per-CPU lists: zoneinfo's pagesets, which MemFree leaves out.\n" :
	       "free in per-CPU lists: no /proc/zoneinfo to read, so in untracked.\n");
	aside("reserved: memblock, kernel, memmap", a->reserved,
	      "outside MemTotal", human);
	aside("VmallocUsed", a->vmalloc, "on vmalloc's callers' lines",
	      human);
	aside("CMA in use (CmaTotal - CmaFree)", a->cma_used,
	      "on its holders' lines", human);
	aside("slab objects (kind:slab lines)", a->slab_objects,
	      "inside the slab pages", human);
	aside("percpu objects (kind:percpu lines)", a->percpu_objects,
	      "inside percpu chunks", human);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

static void json_num(const char *key, int64_t v, bool comma)
{
	printf("%s\"%s\":", comma ? "," : "", key);
	if (v == KP_NONE)
		fputs("null", stdout);
	else
		printf("%" PRId64, v);
}

static int json_out(const struct kp_account *a)
{
	static const struct {
		const char *name;
		size_t off;
	} beside[] = {
		{ "reserved", offsetof(struct kp_account, reserved) },
		{ "VmallocUsed", offsetof(struct kp_account, vmalloc) },
		{ "CmaUsed", offsetof(struct kp_account, cma_used) },
		{ "slab_objects", offsetof(struct kp_account, slab_objects) },
		{ "percpu_objects", offsetof(struct kp_account, percpu_objects) },
	};
	size_t i;

	kp_view_json_begin("meminfo");
	json_num("memtotal", a->memtotal, true);
	json_num("page_size", a->page_size, true);
	json_num("attributed", a->attributed, true);
	json_num("before_load", a->before_load, true);
	printf(",\"zoneinfo\":%s,\"lines\":[",
	       a->have_zoneinfo ? "true" : "false");
	for (i = 0; i < KP_ML_NR; i++) {
		const struct kp_mline_info *mi = kp_mline_info(i);
		const struct kp_account_line *l = &a->l[i];

		printf("%s\n{\"category\":\"%s\",\"label\":", i ? "," : "",
		       mi->id);
		kp_json_str(stdout, mi->label);
		json_num("bytes", l->bytes, true);
		json_num("since_load", l->since, true);
		json_num("before_load", l->before, true);
		fputs(",\"meminfo_field\":", stdout);
		kp_json_str(stdout, mi->field);
		json_num("meminfo", l->meminfo, true);
		if (l->since != KP_NONE)
			printf(",\"sites\":%zu", l->sites);
		putchar('}');
	}
	fputs("\n],\"beside\":{", stdout);
	for (i = 0; i < sizeof(beside) / sizeof(beside[0]); i++)
		json_num(beside[i].name,
			 *(const int64_t *)((const char *)a + beside[i].off),
			 i);
	putchar('}');
	return kp_view_json_end();
}

static int set_input(struct kp_opts *o, const char *arg)
{
	o->input = arg;
	return 0;
}

static const struct kp_option opt_input = {
	"input", 1, 'i', "FILE",
	"read the account from FILE, a capture of the three files (cat "
	"/proc/meminfo /proc/zoneinfo /proc/kmemprof > FILE; - is stdin), "
	"not the live ones", set_input,
};

static int run(struct kp_opts *o)
{
	struct kp_account a;

	if (kp_meminfo_load(o->input, &a))
		return 1;
	if (o->json)
		return json_out(&a);
	if (kp_series(o)) {
#ifdef KP_HAVE_OUTPUTS
		struct kp_metrics_opts mo = {
			.source = o->source, .openmetrics = o->openmetrics,
		};
		int rc = kp_out_account_metrics(stdout, &a, &mo);

		if (rc)
			fprintf(stderr, "kmemprof: writing the output: %s\n",
				strerror(-rc));
		return rc ? 1 : 0;
#else
		return kp_no_outputs();
#endif
	}
	return human_out(&a, o->human);
}

const struct kp_cmd kp_cmd_meminfo = {
	.name = "meminfo", .args = "",
	.what = "all of RAM: /proc/meminfo beside what kmemprof attributes, "
		"in lines that add up to MemTotal",
	.opts = (const struct kp_option *const[]){
		&opt_input, &kp_opt_human, &kp_opt_json, &kp_opt_prometheus,
		&kp_opt_openmetrics, &kp_opt_source, NULL,
	},
	.run = run,
};
