// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: read and sort what the kmemprof module (or the kernel's own
 * /proc/allocinfo) says about kernel memory, per call site. Subcommands
 * in the perf style; `kmemprof help` lists them.
 *
 * $KMEMPROF_ROOT, when set, is put in front of every /proc and /sys path
 * (the tests point it at a fake tree).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#endif

enum cmd {
	C_TOP, C_WATCH, C_SNAPSHOT, C_DIFF, C_LEAKS, C_STACKS, C_HIST,
	C_STATS, C_AGES, C_CPUS, C_ENABLE, C_DISABLE, C_RESET, C_SET, C_PLOT,
	C_SERVE, C_HELP, C_NR
};

#define M(c) (1u << (c))
#define PROFILE_CMDS (M(C_TOP) | M(C_WATCH) | M(C_DIFF))
#define VIEW_CMDS (M(C_LEAKS) | M(C_STACKS) | M(C_HIST) | M(C_STATS) | \
		   M(C_AGES) | M(C_CPUS))

static const struct cmdinfo {
	const char *name, *args, *what;
} cmds[C_NR] = {
	[C_TOP] = { "top", "", "call sites by live memory (the default)" },
	[C_WATCH] = { "watch", "", "top, refreshed, with rates per second" },
	[C_SNAPSHOT] = { "snapshot", "", "save /proc/kmemprof with its time" },
	[C_DIFF] = { "diff", "A B", "growth per site between two snapshots" },
	[C_LEAKS] = { "leaks", "", "leak suspects: objects live too long" },
	[C_STACKS] = { "stacks", "[SITE]", "sampled stacks of each site" },
	[C_HIST] = { "hist", "[SITE]",
		     "size and lifetime histograms (all kinds, or SITE's)" },
	[C_STATS] = { "stats", "", "the module's counters and pools" },
	[C_AGES] = { "ages", "", "the sites whose live objects are oldest" },
	[C_CPUS] = { "cpus", "", "allocations and frees per CPU, remote frees" },
	[C_ENABLE] = { "enable", "", "attach the probes (enabled=1)" },
	[C_DISABLE] = { "disable", "", "detach the probes (enabled=0)" },
	[C_RESET] = { "reset", "", "zero every counter (reset=1)" },
	[C_SET] = { "set", "[KEY=VALUE]...",
		    "write sysctl knobs; without arguments, list them" },
	[C_PLOT] = { "plot", "top|hist SITE|series RECORD",
		     "draw an SVG (-o FILE.svg)" },
	[C_SERVE] = { "serve", "", "a Prometheus and pprof scrape target over HTTP" },
	[C_HELP] = { "help", "[COMMAND]", "this, or a command's options" },
};

enum {
	O_KIND = 256, O_MODULE, O_FUNC, O_MINB, O_JSON, O_CSV, O_OM, O_PPROF,
	O_RESOLVE, O_SINCE, O_AGES, O_RECORD, O_STACKS, O_PROM, O_SOURCE,
	O_PROMFILE, O_LISTEN, O_USER,
};

static const struct optinfo {
	const char *name;
	int has_arg, val;
	unsigned int cmds;
	const char *arg, *help;
} optinfo[] = {
	{ "input", 1, 'i', M(C_TOP) | M(C_SNAPSHOT) | VIEW_CMDS | M(C_PLOT) |
	  M(C_WATCH) | M(C_SERVE), "FILE",
	  "read FILE (a snapshot, a saved view, /proc/allocinfo; "
	  "- is stdin)" },
	{ "count", 1, 'c', M(C_WATCH), "N", "stop after N refreshes" },
	{ "record", 1, O_RECORD, M(C_WATCH), "FILE",
	  "append each refresh to FILE as a snapshot (for plot series)" },
	{ "output", 1, 'o', M(C_SNAPSHOT) | M(C_PLOT), "FILE",
	  "write to FILE instead of stdout" },
	{ "sort", 1, 's', PROFILE_CMDS, "KEY",
	  "bytes (live, default), calls, avg, allocs, frag, rate, age; "
	  "growth (watch, diff)" },
	{ "delay", 1, 'd', M(C_TOP) | M(C_WATCH), "SECS",
	  "watch: seconds between refreshes (default 2); top --sort rate: "
	  "between the two reads (default 1)" },
	{ "since", 1, O_SINCE, M(C_TOP), "FILE",
	  "--sort rate: the earlier snapshot (rates to -i FILE or now)" },
	{ "ages", 1, O_AGES, M(C_TOP), "FILE",
	  "--sort age: the ages view to use (default: debugfs)" },
	{ "lines", 1, 'n', PROFILE_CMDS | VIEW_CMDS | M(C_PLOT) | M(C_SERVE),
	  "N", "the first N entries (tables: default 20; --json, --csv, "
	  "--pprof: all; series: 1000, said on stderr; 0: all)" },
	{ "human", 0, 'H', PROFILE_CMDS | VIEW_CMDS, NULL,
	  "sizes in IEC units, as numfmt --to=iec" },
	{ "kind", 1, O_KIND, PROFILE_CMDS | VIEW_CMDS | M(C_PLOT), "KIND",
	  "slab, page or percpu" },
	{ "module", 1, O_MODULE, PROFILE_CMDS | M(C_LEAKS) | M(C_PLOT), "NAME",
	  "sites in module NAME" },
	{ "func", 1, O_FUNC, PROFILE_CMDS | M(C_PLOT), "REGEX",
	  "sites whose function matches REGEX (extended)" },
	{ "min-bytes", 1, O_MINB, PROFILE_CMDS | M(C_PLOT), "N",
	  "sites holding at least N live bytes (diff: growing by N)" },
	{ "json", 0, O_JSON, M(C_TOP) | M(C_DIFF) | VIEW_CMDS, NULL,
	  "one JSON document (Documentation/kmemprof-output.rst)" },
	{ "csv", 0, O_CSV, M(C_TOP) | M(C_DIFF), NULL, "CSV with a header" },
	{ "prometheus", 0, O_PROM, M(C_TOP) | M(C_DIFF), NULL,
	  "the Prometheus text format, for node_exporter's textfile "
	  "collector" },
	{ "openmetrics", 0, O_OM, M(C_TOP) | M(C_DIFF), NULL,
	  "OpenMetrics 1.0 text" },
	{ "source", 1, O_SOURCE, M(C_TOP) | M(C_DIFF) | M(C_WATCH) | M(C_SERVE),
	  "NAME", "the series' source label (default: kmemprof or "
	  "allocinfo)" },
	{ "prometheus-file", 1, O_PROMFILE, M(C_WATCH), "FILE",
	  "keep FILE (a .prom in node_exporter's textfile directory) "
	  "current: written to FILE.tmp, renamed into place" },
	{ "pprof", 1, O_PPROF, M(C_TOP), "FILE",
	  "write a gzipped pprof profile (with stacks when they exist)" },
	{ "stacks", 1, O_STACKS, M(C_TOP) | M(C_SERVE), "FILE",
	  "--pprof: the stacks view to use (default: debugfs, when live)" },
	{ "listen", 1, O_LISTEN, M(C_SERVE), "ADDR:PORT",
	  "where to listen (default 127.0.0.1:9465)" },
	{ "user", 1, O_USER, M(C_SERVE), "NAME",
	  "run as NAME once the files are open (default, as root: nobody)" },
	{ "resolve", 2, O_RESOLVE, M(C_TOP) | M(C_DIFF) | M(C_PLOT),
	  "SPEC", "file:line of each site through DWARF; SPEC is "
	  "VMLINUX[,MOD.ko...] (default: the running kernel's)" },
	{ "help", 0, 'h', ~0u, NULL, "this help" },
};

#define NOPTS (sizeof(optinfo) / sizeof(optinfo[0]))

/* "  LEFT  text...", the text wrapped at 79 columns under itself. */
static void wrap(FILE *out, int indent, const char *left, const char *text)
{
	const char *w = text;
	size_t n;
	int col;

	if ((int)strlen(left) > indent - 3)
		col = fprintf(out, "  %s\n%*s", left, indent, "") -
		      (int)strlen(left) - 3;
	else
		col = fprintf(out, "  %-*s ", indent - 3, left);
	while (*w) {
		n = strcspn(w, " ");
		if (col > indent && col + 1 + (int)n > 79) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		col += fprintf(out, "%.*s", (int)n, w);
		w += n;
		w += strspn(w, " ");
	}
	fputc('\n', out);
}

static void usage(FILE *out)
{
	size_t i;

	fputs("usage: kmemprof [COMMAND] [OPTIONS]\n\n"
	      "Kernel memory per call site, from /proc/kmemprof (or the\n"
	      "kernel's /proc/allocinfo) and the debugfs views of kmemprof.\n\n"
	      "commands:\n", out);
	for (i = 0; i < C_NR; i++) {
		char left[64];

		snprintf(left, sizeof(left), "%s %s", cmds[i].name,
			 cmds[i].args);
		wrap(out, 24, left, cmds[i].what);
	}
	fputs("\n'kmemprof COMMAND --help' shows a command's options.\n"
	      "KMEMPROF_ROOT=DIR reads and writes DIR/proc/... and "
	      "DIR/sys/... instead.\n", out);
#ifdef KP_HAVE_OUTPUTS
	fprintf(out, "Outputs in this build: %s%s.\n", kp_out_features(),
#ifdef KP_HAVE_SERVE
		" serve"
#else
		""
#endif
		);
#else
	fputs("This build has no machine outputs, plots or resolution.\n", out);
#endif
}

static void cmd_usage(enum cmd c, FILE *out)
{
	char left[64];
	size_t i;

	fprintf(out, "usage: kmemprof %s %s%s[OPTIONS]\n\n%s.\n\n",
		cmds[c].name, cmds[c].args, *cmds[c].args ? " " : "",
		cmds[c].what);
	for (i = 0; i < NOPTS; i++) {
		const struct optinfo *o = &optinfo[i];

		if (!(o->cmds & M(c)))
			continue;
		if (o->val < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s%s",
				 o->val, o->name, o->has_arg == 2 ? "[=" :
				 o->arg ? " " : "", o->arg ? o->arg : "",
				 o->has_arg == 2 ? "]" : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s%s", o->name,
				 o->has_arg == 2 ? "[=" : o->arg ? " " : "",
				 o->arg ? o->arg : "",
				 o->has_arg == 2 ? "]" : "");
		wrap(out, 30, left, o->help);
	}
}

/* Helpers shared with viewcmd.c */

/* A directory opens for reading, and reads as empty: it is no input. */
static bool is_dir(FILE *f)
{
	struct stat st;

	return !fstat(fileno(f), &st) && S_ISDIR(st.st_mode);
}

char *kp_slurp(const char *path, size_t *size)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "r");
	char *buf = NULL, *nb;
	size_t cap = 0, n = 0, got;

	if (!f || is_dir(f)) {
		fprintf(stderr, "kmemprof: cannot open %s: %s%s\n", path,
			strerror(f ? EISDIR : errno), f ? "" : errno == EACCES ?
			" (it is root only)" : "");
		if (f && !is_stdin)
			fclose(f);
		return NULL;
	}
	do {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 1 << 18;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				fprintf(stderr, "kmemprof: %s: out of memory\n",
					path);
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	if (buf && ferror(f)) {
		fprintf(stderr, "kmemprof: reading %s: %s\n", path,
			strerror(errno));
		free(buf);
		buf = NULL;
	}
	if (!is_stdin)
		fclose(f);
	if (buf) {
		buf[n] = '\0';
		*size = n;
	}
	return buf;
}

const char *kp_view_path(const struct kp_opts *o, const char *view,
			 char *buf, size_t len)
{
	char rel[128];

	if (o->input) {
		snprintf(buf, len, "%s", o->input);
		return buf;
	}
	snprintf(rel, sizeof(rel), DEBUGFS "/%s", view);
	return kp_path(rel, buf, len);
}

FILE *kp_open(const char *path)
{
	char dir[512];
	bool view;
	FILE *f;
	int e;

	if (!strcmp(path, "-")) {
		int fd = dup(0);

		f = fd < 0 ? NULL : fdopen(fd, "r");
		if (!f && fd >= 0)
			close(fd);
		if (!f)
			fprintf(stderr, "kmemprof: stdin: %s\n", strerror(errno));
		return f;
	}
	f = fopen(path, "r");
	if (f && !is_dir(f))
		return f;
	e = f ? EISDIR : errno;
	if (f)
		fclose(f);
	kp_path(DEBUGFS, dir, sizeof(dir));
	view = !strncmp(path, dir, strlen(dir));
	fprintf(stderr, "kmemprof: cannot open %s: %s%s\n", path, strerror(e),
		e == EACCES ? " (it is root only)" :
		e == ENOENT && view ?
		" (is debugfs mounted and the kmemprof module loaded?)" :
		e == ENOENT && strstr(path, "/proc/kmemprof") ?
		" (is the kmemprof module loaded?)" : "");
	return NULL;
}

void kp_cell(int64_t v, bool human, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else if (human)
		kp_iec(v, buf, len);
	else
		snprintf(buf, len, "%" PRId64, v);
}

static void print_site_name(FILE *out, const char *site, const char *module,
			    const char *func, const char *callers)
{
	fputs(site, out);
	if (module)
		fprintf(out, " [%s]", module);
	if (func && strcmp(func, site) &&
	    strncmp(site, func, strlen(func)))
		fprintf(out, " %s", func);
	if (callers)
		fprintf(out, " <- %s", callers);
}

void kp_print_tag(FILE *out, const struct kp_site *t)
{
	print_site_name(out, t->site, t->module, t->func, t->callers);
}

bool kp_tag_match(const struct kp_site *t, const char *want)
{
	size_t n = strlen(want);

	if (t->func && !strcmp(t->func, want))
		return true;
	return !strncmp(t->site, want, n) &&
	       (t->site[n] == '\0' || t->site[n] == '+' || t->site[n] == '/');
}

/* Profiles */

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *kp_live_path(char *buf, size_t len)
{
	static bool said;
	char alt[512];

	kp_path("/proc/kmemprof", buf, len);
	if (!access(buf, F_OK) || access(kp_path("/proc/allocinfo", alt,
						 sizeof(alt)), F_OK))
		return buf;
	if (!said)
		fprintf(stderr, "kmemprof: no %s (is the kmemprof module loaded?): reading %s\n",
			buf, alt);
	said = true;
	snprintf(buf, len, "%s", alt);
	return buf;
}

/* Read and parse a profile; its text in @text if asked. */
static int load(const char *path, struct kp_profile *p, char **text,
		size_t *size)
{
	char err[512], *buf = NULL;
	size_t n = 0;
	FILE *f;
	int rc;

	if (text) {
		/* Keep the text: read it whole, parse from memory. */
		buf = kp_slurp(path, &n);
		if (!buf)
			return -1;
		f = fmemopen(buf, n ? n : 1, "r");
		if (f && !n)
			fgetc(f);	/* fmemopen() needs a size: read past it */
	} else {
		f = kp_open(path);
		if (!f)
			return -1;
	}
	if (!f) {
		free(buf);
		fprintf(stderr, "kmemprof: %s: out of memory\n", path);
		return -1;
	}
	rc = kp_parse(f, path, p, err, sizeof(err));
	fclose(f);
	if (rc)
		fprintf(stderr, "kmemprof: %s\n", err);
	if (text && !rc) {
		*text = buf;
		*size = n;
	} else {
		free(buf);
	}
	return rc;
}

static int filter(struct kp_profile *p, const struct kp_opts *o)
{
	char err[512];

	if (kp_filter_apply(p, &o->filter, err, sizeof(err))) {
		fprintf(stderr, "kmemprof: %s\n", err);
		return -1;
	}
	return 0;
}

static bool series(const struct kp_opts *o)
{
	return o->openmetrics || o->prometheus;
}

static bool machine(const struct kp_opts *o)
{
	return o->json || o->csv || series(o);
}

/*
 * How many sites a machine output carries: -n, else all of them, but
 * for the series outputs, whose guard says so when it cuts.
 */
static size_t machine_sites(const struct kp_opts *o, size_t n)
{
	size_t max = o->n_set ? (size_t)o->n : series(o) ? KP_SERIES_GUARD : 0;

	if (!max || max >= n)
		return n;
	if (series(o))
		fprintf(stderr, "kmemprof: --%s: the first %zu of %zu sites (-n 0: all)\n",
			o->openmetrics ? "openmetrics" : "prometheus", max, n);
	return max;
}

#ifdef KP_HAVE_OUTPUTS
static int emit(const struct kp_opts *o, const struct kp_profile *p,
		size_t max)
{
	struct kp_metrics_opts mo = {
		.source = o->source, .max = max, .openmetrics = o->openmetrics,
	};
	int rc = 0;

	if (o->json)
		rc = kp_out_json(stdout, p);
	else if (o->csv)
		rc = kp_out_csv(stdout, p);
	else if (series(o))
		rc = kp_out_metrics(stdout, p, &mo);
	if (rc)
		fprintf(stderr, "kmemprof: writing the output: %s\n",
			strerror(-rc));
	return rc ? 1 : 0;
}

static int resolve(const struct kp_opts *o, struct kp_profile *p)
{
	char err[512] = "";
	int rc;

	if (!o->do_resolve)
		return 0;
	rc = kp_resolve(p, o->resolve, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "kmemprof: --resolve: %s\n",
			*err ? err : strerror(-rc));
		return -1;
	}
	return 0;
}
#else
static int no_outputs(void)
{
	fprintf(stderr, "kmemprof: this build has no machine outputs, plots or resolution\n");
	return 2;
}

static int emit(const struct kp_opts *o, const struct kp_profile *p,
		size_t max)
{
	(void)o;
	(void)p;
	(void)max;
	return no_outputs();
}

static int resolve(const struct kp_opts *o, struct kp_profile *p)
{
	(void)p;
	return o->do_resolve ? -no_outputs() : 0;
}
#endif

/* The oldest live object of each site, from the ages view. */
static int add_ages(struct kp_profile *p, const struct kp_opts *o)
{
	char path[512], err[512];
	struct kp_ages a;
	struct kp_diff d;
	struct kp_profile ap = { 0 }, live = { 0 };
	size_t i, b, *idx;
	FILE *in;
	int rc;

	if (o->ages)
		snprintf(path, sizeof(path), "%s", o->ages);
	else
		kp_path(DEBUGFS "/ages", path, sizeof(path));
	in = kp_open(path);
	if (!in)
		return -1;
	rc = kp_parse_ages(in, path, &a, err, sizeof(err));
	fclose(in);
	if (rc) {
		fprintf(stderr, "kmemprof: %s\n", err);
		return -1;
	}
	/* Match through kp_diff: the ages as a profile of age_ms. */
	ap.sites = calloc(a.n + 1, sizeof(*ap.sites));
	if (!ap.sites) {
		kp_ages_free(&a);
		return -1;
	}
	for (i = 0; i < a.n; i++) {
		struct kp_site *s = &ap.sites[ap.n++];

		s->site = a.v[i].tag.site;
		s->module = a.v[i].tag.module;
		s->func = a.v[i].tag.func;
		s->kind = a.v[i].tag.kind;
		s->callers = a.v[i].tag.callers;
		for (b = a.v[i].nage; b > 0; b--)
			if (a.v[i].age[b - 1])
				break;
		s->age_ms = b ? (int64_t)(kp_hist_lower(KP_B_LIFE, b - 1) /
					  1000000) : 0;
	}
	/*
	 * The view lists the tags with live objects only: match it against
	 * those, so that repeated tags (a module loaded again) pair in order.
	 */
	live.sites = calloc(p->n + 1, sizeof(*live.sites));
	idx = calloc(p->n + 1, sizeof(*idx));
	rc = -1;
	if (live.sites && idx) {
		for (i = 0; i < p->n; i++) {
			if (p->sites[i].objs <= 0)
				continue;
			idx[live.n] = i;
			live.sites[live.n++] = p->sites[i];
		}
		rc = kp_diff(&ap, &live, &d);
	}
	if (!rc) {
		for (i = 0; i < d.n; i++)
			if (d.v[i].a && d.v[i].b)
				p->sites[idx[d.v[i].b - live.sites]].age_ms =
					d.v[i].a->age_ms;
		kp_diff_free(&d);
	}
	free(live.sites);
	free(idx);
	free(ap.sites);
	kp_ages_free(&a);
	return rc;
}

/*
 * top's lines, built in a buffer and written a buffer at a time: printf
 * would parse its format again on every line. printf() on a buffered
 * stdout runs 3.6 times the instructions for 100k lines (the numbers are
 * in sort.c, above kp_sort()).
 */
struct obuf {
	FILE *out;
	char *p;		/* the end of what is in buf */
	char buf[1 << 16];
};

static void ob_flush(struct obuf *o)
{
	if (o->p > o->buf)
		fwrite(o->buf, 1, (size_t)(o->p - o->buf), o->out);
	o->p = o->buf;
}

/* Room for @len more bytes, if the buffer has it. */
static inline bool ob_room(struct obuf *o, size_t len)
{
	if ((size_t)(o->buf + sizeof(o->buf) - o->p) < len)
		ob_flush(o);
	return len <= sizeof(o->buf);
}

static inline void ob_put(struct obuf *o, const char *s, size_t len)
{
	if (!ob_room(o, len)) {
		fwrite(s, 1, len, o->out);
		return;
	}
	memcpy(o->p, s, len);
	o->p += len;
}

static void ob_str(struct obuf *o, const char *s)
{
	ob_put(o, s, strlen(s));
}

/*
 * A cell as "%*s" prints it, at @q: @v in decimal (as "%" PRId64), "-"
 * if @dash and @v is negative, or as kp_iec() if @human. At most
 * max(@width, 31) bytes; returns their end.
 */
static char *put_cell(char *q, int64_t v, bool dash, bool human, int width)
{
	char tmp[32], *t = tmp + sizeof(tmp);
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
	unsigned int r;
	size_t len;

	if (dash && v < 0) {
		*--t = '-';
	} else if (human) {
		kp_iec(v, tmp, sizeof(tmp));
		t = tmp;
	} else {
		/* Two digits a 64-bit division. */
		for (; m >= 100; m /= 100) {
			r = (unsigned int)(m % 100);
			*--t = (char)('0' + r % 10);
			*--t = (char)('0' + r / 10);
		}
		if (m >= 10)
			*--t = (char)('0' + m % 10);
		*--t = (char)('0' + (m >= 10 ? m / 10 : m));
		if (v < 0)
			*--t = '-';
	}
	len = t == tmp ? strlen(tmp) : (size_t)(tmp + sizeof(tmp) - t);
	if (len < (size_t)width) {
		memset(q, ' ', (size_t)width - len);
		q += (size_t)width - len;
	}
	memcpy(q, t, len);
	return q + len;
}

/* Live bytes an object, or -1 for none. */
static int64_t avg(const struct kp_site *s)
{
	if (s->objs <= 0 || s->bytes < 0)
		return -1;
	/* A 32-bit division is the faster, where it does. */
	if (!(((uint64_t)s->bytes | (uint64_t)s->objs) >> 32))
		return (uint32_t)s->bytes / (uint32_t)s->objs;
	return s->bytes / s->objs;
}

/* Sites ahead whose text top fetches before it prints them. */
#define PREFETCH 8

static void print_top(const struct kp_profile *p, const struct kp_opts *o)
{
	static struct obuf ob;
	char x[32] = "";
	bool rate = o->key == KP_RATE, age = o->key == KP_AGE;
	size_t i, k, n = p->n;
	char *q;

	printf("%12s %8s %9s %9s ", "LIVE", "OBJS", "AVG", "ALLOCS");
	if (rate || age)
		printf("%9s ", rate ? "ALLOCS/S" : "AGE>=");
	printf("%-6s %s\n", "KIND", "SITE");
	if (o->n && (size_t)o->n < n)
		n = (size_t)o->n;
	ob.out = stdout;
	ob.p = ob.buf;
	for (i = 0; i < n; i++) {
		const struct kp_site *s = &p->sites[i];
		const char *f = s->func, *t = s->site;

		if (i + PREFETCH < n) {
			__builtin_prefetch(s[PREFETCH].site);
			__builtin_prefetch(s[PREFETCH].kind);
		}
		/* The function, unless the site starts with it. */
		while (f && *f && *f == *t) {
			f++;
			t++;
		}
		if (rate)
			snprintf(x, sizeof(x), "%9.1f ", s->rate);
		else if (age)
			snprintf(x, sizeof(x), "%7" PRId64 "ms ", s->age_ms);
		/*
		 * As printf("%12s %8s %9s %9s %s%-6s %s" and the optional
		 * parts, "\n") would: four cells of up to 31 bytes and x.
		 */
		ob_room(&ob, 4 * 32 + sizeof(x));
		q = put_cell(ob.p, s->bytes, false, o->human, 12);
		*q++ = ' ';
		q = put_cell(q, s->objs, true, false, 8);
		*q++ = ' ';
		q = put_cell(q, avg(s), true, o->human, 9);
		*q++ = ' ';
		q = put_cell(q, s->allocs, true, false, 9);
		*q++ = ' ';
		k = strlen(x);
		memcpy(q, x, k);
		ob.p = q + k;
		t = s->kind ? s->kind : "-";
		k = strlen(t);
		ob_put(&ob, t, k);
		ob_put(&ob, "       ", k < 6 ? 7 - k : 1);
		ob_str(&ob, s->site);
		if (s->module) {
			ob_put(&ob, " [", 2);
			ob_str(&ob, s->module);
			ob_put(&ob, "]", 1);
		}
		if (f && *f) {
			ob_put(&ob, " ", 1);
			ob_str(&ob, s->func);
		}
		if (s->callers) {
			ob_put(&ob, " <- ", 4);
			ob_str(&ob, s->callers);
		}
		if (s->srcline) {
			ob_put(&ob, " (", 2);
			ob_str(&ob, s->srcline);
			ob_put(&ob, ")", 1);
		}
		if (s->inaccurate)
			ob_put(&ob, " (inaccurate)", 13);
		if (s->unloaded)
			ob_put(&ob, " (unloaded)", 11);
		ob_put(&ob, "\n", 1);
	}
	ob_flush(&ob);
}

static void sleep_for(double secs)
{
	struct timespec ts = {
		.tv_sec = (time_t)secs,
		.tv_nsec = (long)((secs - floor(secs)) * 1e9),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int cmd_top(struct kp_opts *o)
{
	struct kp_profile p, a;
	char path[512];
	double t0 = 0;
	int rc = 1;

	if (o->key == KP_RATE && !o->since && o->input) {
		fprintf(stderr, "kmemprof: --sort rate needs two reads: the live file, or --since A.snap -i B.snap\n");
		return 2;
	}
	if (o->key == KP_RATE) {
		/* The earlier read: --since, or the live file now. */
		if (load(o->since ? o->since : kp_live_path(path, sizeof(path)),
			 &a, NULL, NULL))
			return 1;
		if (!o->since) {
			t0 = now(CLOCK_MONOTONIC);
			sleep_for(o->interval > 0 ? o->interval : 1);
		}
	}
	if (load(o->input ? o->input : kp_live_path(path, sizeof(path)), &p,
		 NULL, NULL))
		goto out_a;
	if (o->key == KP_RATE) {
		double dt = o->since ? (p.time > 0 ? p.time : now(CLOCK_REALTIME))
				       - a.time : now(CLOCK_MONOTONIC) - t0;

		if (o->since && (a.time <= 0 || dt <= 0)) {
			fprintf(stderr, "kmemprof: --since %s: no snapshot time before %s's\n",
				o->since, o->input ? o->input : "now");
			goto out;
		}
		kp_rates(&p, &a, dt);
	}
	if (o->key == KP_AGE && add_ages(&p, o))
		goto out;
	if (filter(&p, o) || resolve(o, &p))
		goto out;
	kp_sort(&p, o->key);
	if (!machine(o) && !o->pprof) {
		print_top(&p, o);
		rc = 0;
		goto out;
	}
	/* Every site, unless -n says otherwise; series have a guard. */
	if (series(o)) {
		rc = emit(o, &p, machine_sites(o, p.n));
		goto out;
	}
	if (machine_sites(o, p.n) < p.n) {
		size_t i;

		for (i = (size_t)o->n; i < p.n; i++)
			kp_site_release(&p.sites[i]);
		p.n = (size_t)o->n;
	}
	if (!o->pprof) {
		rc = emit(o, &p, 0);
		goto out;
	}
#ifdef KP_HAVE_OUTPUTS
	{
		struct kp_stacks st, *stp = NULL;
		char err[512], sp[512];
		FILE *in;

		/* Stacks: --stacks FILE, else the live view if it reads. */
		if (o->stacks)
			snprintf(sp, sizeof(sp), "%s", o->stacks);
		else
			kp_path(DEBUGFS "/stacks", sp, sizeof(sp));
		in = o->stacks ? kp_open(sp) : o->input ? NULL : fopen(sp, "r");
		if (in && !kp_parse_stacks(in, sp, &st, err, sizeof(err)))
			stp = &st;
		if (in)
			fclose(in);
		if (o->stacks && !stp) {
			if (in)
				fprintf(stderr, "kmemprof: %s\n", err);
			goto out;
		}
		rc = kp_out_pprof(o->pprof, &p, stp, err, sizeof(err));
		if (rc)
			fprintf(stderr, "kmemprof: --pprof %s: %s\n", o->pprof,
				err);
		rc = rc ? 1 : 0;
		if (stp)
			kp_stacks_free(stp);
	}
#else
	rc = no_outputs();
#endif
out:
	kp_free(&p);
out_a:
	if (o->key == KP_RATE)
		kp_free(&a);
	return rc;
}

/* snapshot */

static int cmd_snapshot(struct kp_opts *o)
{
	char path[512], err[512];
	const char *src = o->input ? o->input : kp_live_path(path, sizeof(path));
	size_t n = 0;
	char *text = kp_slurp(src, &n);
	FILE *in, *out;
	int rc;

	if (!text)
		return 1;
	in = fmemopen(text, n ? n : 1, "r");
	out = o->output ? fopen(o->output, "w") : stdout;
	if (!in || !out) {
		fprintf(stderr, "kmemprof: %s: %s\n",
			out ? "out of memory" : o->output, strerror(errno));
		if (in)
			fclose(in);
		free(text);
		return 1;
	}
	if (!n)
		fgetc(in);
	rc = kp_snapshot_write(out, in, src, now(CLOCK_REALTIME), err,
			       sizeof(err));
	fclose(in);
	free(text);
	if (rc)
		fprintf(stderr, "kmemprof: %s\n", err);
	if (out != stdout && fclose(out) && !rc) {
		fprintf(stderr, "kmemprof: writing %s: %s\n", o->output,
			strerror(errno));
		rc = -1;
	}
	return rc ? 1 : 0;
}

/* diff */

static const struct kp_site *delta_site(const struct kp_delta *d)
{
	return d->b ? d->b : d->a;
}

static int diff_cmp_allocs(const void *x, const void *y)
{
	const struct kp_delta *a = x, *b = y;

	if (a->allocs != b->allocs)
		return a->allocs < b->allocs ? 1 : -1;
	return strcmp(delta_site(a)->site, delta_site(b)->site);
}

static int diff_machine(const struct kp_diff *d, const struct kp_opts *o)
{
	struct kp_profile g = { .source = KP_KMEMPROF, .version = "1.0",
				.delta = true };
	size_t i, n = series(o) ? d->n : machine_sites(o, d->n);
	int rc;

	/* The growth as a profile: each value is B - A. */
	g.sites = calloc(d->n + 1, sizeof(*g.sites));
	if (!g.sites)
		return 1;
	for (i = 0; i < n; i++) {
		struct kp_site *s = &g.sites[g.n++];

		*s = *delta_site(&d->v[i]);
		s->srcline = NULL;
		s->bytes = d->v[i].bytes;
		s->objs = d->v[i].objs;
		s->allocs = d->v[i].allocs;
		s->frees = d->v[i].frees;
		s->total = d->v[i].total;
		s->req = -1;
	}
	rc = emit(o, &g, series(o) ? machine_sites(o, g.n) : 0);
	free(g.sites);
	return rc;
}

static int cmd_diff(struct kp_opts *o)
{
	struct kp_profile a, b;
	char g[32], la[32], lb[32];
	int64_t sum = 0;
	size_t i, grew = 0, born = 0, gone = 0, shown = 0;
	struct kp_diff d;
	int rc = 1;

	if (o->nargs != 2) {
		fprintf(stderr, "kmemprof: diff takes two snapshots: kmemprof diff A B\n");
		return 2;
	}
	if (load(o->args[0], &a, NULL, NULL))
		return 1;
	if (load(o->args[1], &b, NULL, NULL))
		goto out_a;
	if (a.source != b.source) {
		fprintf(stderr, "kmemprof: diff: %s is %s profile and %s %s one; their sites cannot match\n",
			o->args[0], a.source == KP_ALLOCINFO ? "an allocinfo" :
			"a kmemprof", o->args[1], b.source == KP_ALLOCINFO ?
			"an allocinfo" : "a kmemprof");
		goto out_b;
	}
	{
		/* --min-bytes is about growth here, not live bytes. */
		struct kp_opts fo = *o;

		fo.filter.min_bytes = 0;
		if (filter(&a, &fo) || filter(&b, &fo) || resolve(o, &b))
			goto out_b;
	}
	if (kp_diff(&a, &b, &d)) {
		fprintf(stderr, "kmemprof: out of memory\n");
		goto out_b;
	}
	if (o->key_set && !o->growth &&
	    (o->key == KP_ALLOCS || o->key == KP_RATE))
		qsort(d.v, d.n, sizeof(*d.v), diff_cmp_allocs);
	if (o->filter.min_bytes) {
		size_t k = 0;

		for (i = 0; i < d.n; i++)
			if (d.v[i].bytes >= o->filter.min_bytes)
				d.v[k++] = d.v[i];
		d.n = k;
	}
	if (machine(o)) {
		rc = diff_machine(&d, o);
		goto out_d;
	}
	for (i = 0; i < d.n; i++) {
		sum += d.v[i].bytes;
		grew += d.v[i].bytes > 0;
		born += !d.v[i].a;
		gone += !d.v[i].b;
	}
	kp_cell(sum < 0 ? -sum : sum, o->human, g, sizeof(g));
	printf("%s -> %s", o->args[0], o->args[1]);
	if (d.dt > 0)
		printf(" (%.1f s)", d.dt);
	printf(": live %s%s bytes; %zu sites grew, %zu new, %zu gone\n",
	       sum < 0 ? "-" : "+", g, grew, born, gone);
	printf("%12s %12s %12s %9s %9s %-6s %s\n", "GROWTH", "LIVE A",
	       "LIVE B", "OBJS", "ALLOCS", "KIND", "SITE");
	for (i = 0; i < d.n && (!o->n || shown < (size_t)o->n); i++) {
		const struct kp_delta *x = &d.v[i];
		const struct kp_site *s = delta_site(x);
		char gb[40];

		if (!x->bytes && !x->allocs && !x->objs)
			continue;	/* nothing happened here */
		shown++;
		kp_cell(x->bytes < 0 ? -x->bytes : x->bytes, o->human, g,
			sizeof(g));
		snprintf(gb, sizeof(gb), "%s%s", x->bytes < 0 ? "-" :
			 x->bytes ? "+" : "", g);
		kp_cell(x->a ? x->a->bytes : 0, o->human, la, sizeof(la));
		kp_cell(x->b ? x->b->bytes : 0, o->human, lb, sizeof(lb));
		printf("%12s %12s %12s %+9" PRId64 " %+9" PRId64 " %-6s ", gb,
		       x->a ? la : "(new)", x->b ? lb : "(gone)", x->objs,
		       x->allocs, s->kind ? s->kind : "-");
		print_site_name(stdout, s->site, s->module, s->func,
				s->callers);
		if (s->srcline)
			printf(" (%s)", s->srcline);
		putchar('\n');
	}
	rc = 0;
out_d:
	kp_diff_free(&d);
out_b:
	kp_free(&b);
out_a:
	kp_free(&a);
	return rc;
}

/* watch */

struct wrow {
	const struct kp_delta *d;
	double key;
};

static int wrow_cmp(const void *x, const void *y)
{
	const struct wrow *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? 1 : -1;
	return strcmp(delta_site(a->d)->site, delta_site(b->d)->site);
}

static void watch_frame(const struct kp_profile *p, const struct kp_diff *d,
			double dt, const struct kp_opts *o, bool tty)
{
	char live[32], gr[32], bs[32], tb[32];
	int64_t total = 0, growth = 0, allocs = 0;
	struct wrow *rows = calloc(d->n + 1, sizeof(*rows));
	time_t t = time(NULL);
	struct tm tm;
	size_t i, n = 0;

	if (!rows)
		return;
	for (i = 0; i < p->n; i++)
		total += p->sites[i].bytes;
	for (i = 0; i < d->n; i++) {
		const struct kp_delta *x = &d->v[i];

		if (!x->b)
			continue;	/* gone: not on this screen */
		growth += x->bytes;
		allocs += x->allocs > 0 ? x->allocs : 0;
		rows[n].d = x;
		rows[n].key = o->growth ? (double)x->bytes :
			      o->key == KP_RATE || o->key == KP_ALLOCS ?
			      (double)x->allocs : (double)x->b->bytes;
		n++;
	}
	qsort(rows, n, sizeof(*rows), wrow_cmp);
	if (tty)
		fputs("\033[H\033[2J", stdout);
	localtime_r(&t, &tm);
	strftime(tb, sizeof(tb), "%H:%M:%S", &tm);
	kp_cell(total, o->human, live, sizeof(live));
	printf("kmemprof watch  %s  every %.1fs  live %s bytes in %zu sites",
	       tb, o->interval, live, p->n);
	if (dt > 0) {
		kp_cell(llabs(growth), o->human, gr, sizeof(gr));
		printf("  %s%s/s  %.0f allocs/s", growth < 0 ? "-" : "+", gr,
		       allocs / dt);
	}
	printf("\n%12s %12s %10s %12s %-6s %s\n", "LIVE", "GROWTH/S",
	       "ALLOCS/S", "BYTES/S", "KIND", "SITE");
	for (i = 0; i < n && (!o->n || i < (size_t)o->n); i++) {
		const struct kp_delta *x = rows[i].d;
		const struct kp_site *s = x->b;
		char g2[40];

		kp_cell(s->bytes, o->human, live, sizeof(live));
		if (dt > 0) {
			struct kp_rate r;
			int64_t gps;

			kp_delta_rate(x, dt, &r);
			gps = (int64_t)llround(r.growth);
			kp_cell(llabs(gps), o->human, gr, sizeof(gr));
			snprintf(g2, sizeof(g2), "%s%s", gps < 0 ? "-" :
				 gps ? "+" : "", gr);
			kp_cell((int64_t)llround(r.bytes), o->human, bs,
				sizeof(bs));
			printf("%12s %12s %10.1f %12s ", live, g2, r.allocs, bs);
		} else {
			printf("%12s %12s %10s %12s ", live, "-", "-", "-");
		}
		printf("%-6s ", s->kind ? s->kind : "-");
		print_site_name(stdout, s->site, s->module, s->func,
				s->callers);
		putchar('\n');
	}
	if (!tty)
		putchar('\n');
	fflush(stdout);
	free(rows);
}

static int record(const struct kp_opts *o, const char *src, char *text,
		  size_t n, double t)
{
	char err[512];
	FILE *in = fmemopen(text, n ? n : 1, "r");
	FILE *out = fopen(o->record, "a");
	int rc = -1;

	if (in && out) {
		if (!n)
			fgetc(in);
		rc = kp_snapshot_write(out, in, src, t, err, sizeof(err));
		if (rc)
			fprintf(stderr, "kmemprof: %s\n", err);
	} else {
		fprintf(stderr, "kmemprof: --record %s: %s\n", o->record,
			strerror(errno));
	}
	if (in)
		fclose(in);
	if (out && fclose(out) && !rc) {
		fprintf(stderr, "kmemprof: --record %s: %s\n", o->record,
			strerror(errno));
		rc = -1;
	}
	return rc;
}

/*
 * The profile as a .prom file for node_exporter's textfile collector,
 * which may read it at any time: written beside it, renamed into place.
 */
static int prom_file(const struct kp_opts *o, const struct kp_profile *p)
{
#ifdef KP_HAVE_OUTPUTS
	struct kp_metrics_opts mo = { .source = o->source };
	char tmp[4096];
	FILE *f;
	int rc;

	mo.max = KP_SERIES_GUARD;	/* kmemprof_sites says how many in all */
	snprintf(tmp, sizeof(tmp), "%s.tmp", o->prom_file);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "kmemprof: --prometheus-file %s: %s\n", tmp,
			strerror(errno));
		return -1;
	}
	rc = kp_out_metrics(f, p, &mo);
	if (fclose(f) || rc || rename(tmp, o->prom_file)) {
		fprintf(stderr, "kmemprof: --prometheus-file %s: %s\n",
			o->prom_file, strerror(rc ? -rc : errno));
		unlink(tmp);
		return -1;
	}
	return 0;
#else
	(void)o;
	(void)p;
	return -no_outputs();
#endif
}

static int cmd_watch(struct kp_opts *o)
{
	struct kp_profile prev = { 0 }, cur;
	bool tty = isatty(1), have_prev = false;
	struct winsize ws;
	double t, tprev = 0;
	char path[512], *text;
	struct kp_diff d;
	size_t n;
	long i;
	int rc = 0;

	if (o->interval <= 0)
		o->interval = 2;
	if (tty && !o->n_set && !ioctl(1, TIOCGWINSZ, &ws) && ws.ws_row > 4)
		o->n = ws.ws_row - 3;	/* the table fills the terminal */
	if (o->input)
		snprintf(path, sizeof(path), "%s", o->input);
	else
		kp_live_path(path, sizeof(path));
	for (i = 0; !o->count || i < o->count; i++) {
		if (i)
			sleep_for(o->interval);
		t = now(CLOCK_MONOTONIC);
		if (load(path, &cur, &text, &n)) {
			rc = 1;
			break;
		}
		if (o->record && record(o, path, text, n, now(CLOCK_REALTIME))) {
			free(text);
			kp_free(&cur);
			rc = 1;
			break;
		}
		free(text);
		if (filter(&cur, o)) {
			kp_free(&cur);
			rc = 2;
			break;
		}
		if (o->prom_file && prom_file(o, &cur)) {
			kp_free(&cur);
			rc = 1;
			break;
		}
		if (kp_diff(have_prev ? &prev : &cur, &cur, &d)) {
			kp_free(&cur);
			rc = 1;
			break;
		}
		watch_frame(&cur, &d, have_prev ? t - tprev : 0, o, tty);
		kp_diff_free(&d);
		if (have_prev)
			kp_free(&prev);
		prev = cur;
		have_prev = true;
		tprev = t;
	}
	if (have_prev)
		kp_free(&prev);
	return rc;
}

/* Knobs */

static int knob(const char *k, const char *v)
{
	char err[512];

	if (kp_knob_write(k, v, err, sizeof(err))) {
		fprintf(stderr, "kmemprof: %s\n", err);
		return 1;
	}
	return 0;
}

static int list_knobs(void)
{
	static const char *const knobs[] = {
		"enabled", "events", "key_depth", "leak_age_ms", "max_size",
		"min_size", "sample_rate", "stack_depth", "stack_sample",
	};
	char dir[512], v[64];
	size_t i;

	if (access(kp_path("/proc/sys/kmemprof", dir, sizeof(dir)), F_OK)) {
		fprintf(stderr, "kmemprof: the kmemprof module is not loaded (no %s)\n",
			dir);
		return 1;
	}
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		if (kp_knob_read(knobs[i], v, sizeof(v)))
			snprintf(v, sizeof(v), "(%s)", strerror(errno));
		printf("%s=%s\n", knobs[i], v);
	}
	return 0;
}

static int cmd_set(struct kp_opts *o)
{
	int i, rc = 0;

	if (!o->nargs)
		return list_knobs();
	for (i = 0; i < o->nargs; i++) {
		if (!strchr(o->args[i], '=') || o->args[i][0] == '=') {
			fprintf(stderr, "kmemprof: set %s: expected KEY=VALUE\n",
				o->args[i]);
			return 2;
		}
	}
	for (i = 0; i < o->nargs && !rc; i++) {
		char *eq = strchr(o->args[i], '=');

		if (!eq)
			return 2;
		*eq = '\0';
		rc = knob(o->args[i], eq + 1);
		*eq = '=';
	}
	return rc;
}

/* plot */

static int cmd_plot(struct kp_opts *o)
{
#ifdef KP_HAVE_OUTPUTS
	const char *what = o->nargs ? o->args[0] : "";
	char path[512], err[512];
	FILE *in, *out;
	int rc = -1;

	if (!strcmp(what, "top") && o->nargs == 1) {
		struct kp_profile p;

		if (load(o->input ? o->input : kp_live_path(path, sizeof(path)),
			 &p, NULL, NULL))
			return 1;
		if (filter(&p, o) || resolve(o, &p)) {
			kp_free(&p);
			return 1;
		}
		kp_sort(&p, KP_BYTES);
		out = o->output ? fopen(o->output, "w") : stdout;
		if (out)
			rc = kp_plot_top(out, &p, o->n > 0 ? (size_t)o->n : 20);
		kp_free(&p);
	} else if (!strcmp(what, "hist") && o->nargs == 2) {
		struct kp_hists h;
		size_t i;

		in = kp_open(kp_view_path(o, "hist", path, sizeof(path)));
		if (!in)
			return 1;
		rc = kp_parse_hist(in, path, &h, err, sizeof(err));
		fclose(in);
		if (rc) {
			fprintf(stderr, "kmemprof: %s\n", err);
			return 1;
		}
		for (i = 0; i < h.n; i++)
			if ((!strcmp(o->args[1], "all") ?
			     !strcmp(h.v[i].site, "all") :
			     kp_tag_match(&h.v[i].tag, o->args[1])) &&
			    (!o->filter.kind ||
			     !strcmp(h.v[i].kind, o->filter.kind)))
				break;
		if (i == h.n) {
			fprintf(stderr, "kmemprof: no histograms for '%s' in %s\n",
				o->args[1], path);
			kp_hists_free(&h);
			return 1;
		}
		out = o->output ? fopen(o->output, "w") : stdout;
		rc = out ? kp_plot_hist(out, &h.v[i]) : -1;
		kp_hists_free(&h);
	} else if (!strcmp(what, "series") && o->nargs == 2) {
		struct kp_series s;

		in = kp_open(o->args[1]);
		if (!in)
			return 1;
		rc = kp_series_load(in, o->args[1], &s, err, sizeof(err));
		fclose(in);
		if (rc) {
			fprintf(stderr, "kmemprof: %s\n", err);
			return 1;
		}
		out = o->output ? fopen(o->output, "w") : stdout;
		rc = out ? kp_plot_series(out, &s) : -1;
		kp_series_free(&s);
	} else {
		fprintf(stderr, "kmemprof: plot top | plot hist SITE | plot series RECORD, with -o FILE.svg\n");
		return 2;
	}
	if (!out) {
		fprintf(stderr, "kmemprof: %s: %s\n", o->output,
			strerror(errno));
		return 1;
	}
	if (rc)
		fprintf(stderr, "kmemprof: plot: %s\n", strerror(rc < 0 ? -rc : EIO));
	if (out != stdout && fclose(out) && !rc) {
		fprintf(stderr, "kmemprof: writing %s: %s\n", o->output,
			strerror(errno));
		rc = -1;
	}
	return rc ? 1 : 0;
#else
	(void)o;
	return no_outputs();
#endif
}

/* Options */

static int number(const char *opt, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(*v) || *v < 0) {
		fprintf(stderr, "kmemprof: %s %s: expected a number\n", opt, s);
		return -1;
	}
	return 0;
}

static int count(const char *opt, const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || *end || end == s || *v < 0) {
		fprintf(stderr, "kmemprof: %s %s: expected a count\n", opt, s);
		return -1;
	}
	return 0;
}

/* A size: bytes, or with an IEC suffix as -H prints it (4K, 2M, 1.5G). */
static int size(const char *opt, const char *s, int64_t *v)
{
	static const char units[] = "KMGTPE";
	const char *u;
	double d;
	char *end;

	errno = 0;
	d = strtod(s, &end);
	if (*end && !errno && end != s && (u = strchr(units, *end)) &&
	    (!end[1] || !strcmp(end + 1, "i") || !strcmp(end + 1, "iB")))
		d = ldexp(d, 10 * (int)(u - units + 1));
	else if (*end)
		errno = EINVAL;
	if (errno || end == s || !isfinite(d) || d < 0 || d >= 0x1p63) {
		fprintf(stderr, "kmemprof: %s %s: expected a size (4096, 4K, 2M, 1G)\n",
			opt, s);
		return -1;
	}
	*v = (int64_t)d;
	return 0;
}

/* The option that takes @val, for messages. */
static const struct optinfo *opt_of(enum cmd c, int val)
{
	size_t i;

	for (i = 0; i < NOPTS; i++)
		if (optinfo[i].val == val && (optinfo[i].cmds & M(c)))
			return &optinfo[i];
	return NULL;
}

static int parse_opts(enum cmd c, int argc, char **argv, struct kp_opts *o)
{
	const struct optinfo *oi;
	struct option longs[NOPTS + 1];
	char shorts[3 * NOPTS + 2] = "";
	size_t i, nl = 0, ns = 0;
	int ch;

	memset(longs, 0, sizeof(longs));
	for (i = 0; i < NOPTS; i++) {
		const struct optinfo *oi = &optinfo[i];

		if (!(oi->cmds & M(c)))
			continue;
		longs[nl++] = (struct option){ oi->name, oi->has_arg, NULL,
					       oi->val };
		if (oi->val < 256) {
			shorts[ns++] = (char)oi->val;
			if (oi->has_arg)
				shorts[ns++] = ':';
			if (oi->has_arg == 2)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	optind = 1;
	while ((ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		/* "--pprof -i FILE": -i is no file name. */
		oi = opt_of(c, ch);
		if (oi && oi->arg && !strcmp(oi->arg, "FILE") && optarg &&
		    optarg[0] == '-' && optarg[1]) {
			fprintf(stderr, "kmemprof: --%s: '%s' is an option, not a FILE (--%s=%s for a file so named)\n",
				oi->name, optarg, oi->name, optarg);
			return 2;
		}
		switch (ch) {
		case 'i':
			o->input = optarg;
			break;
		case 'd':
			if (number("-d", optarg, &o->interval))
				return 2;
			if (c == C_WATCH && o->interval < 0.1) {
				fprintf(stderr, "kmemprof: -d %s: at least 0.1 s\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			if (count("-c", optarg, &o->count))
				return 2;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 's':
			o->key_set = true;
			if (c != C_TOP && !strcmp(optarg, "growth")) {
				o->growth = true;
				break;
			}
			if (kp_key_parse(optarg, &o->key) ||
			    (c != C_TOP && o->key != KP_BYTES &&
			     o->key != KP_ALLOCS && o->key != KP_RATE)) {
				fprintf(stderr, "kmemprof: --sort %s: expected %s\n",
					optarg, c == C_TOP ?
					"bytes, calls, avg, allocs, frag, rate or age" :
					"growth, bytes, allocs or rate");
				return 2;
			}
			break;
		case 'n':
			if (count("-n", optarg, &o->n))
				return 2;
			o->n_set = true;
			break;
		case 'H':
			o->human = true;
			break;
		case O_KIND:
			if (strcmp(optarg, "slab") && strcmp(optarg, "page") &&
			    strcmp(optarg, "percpu")) {
				fprintf(stderr, "kmemprof: --kind %s: expected slab, page or percpu\n",
					optarg);
				return 2;
			}
			o->filter.kind = optarg;
			break;
		case O_MODULE:
			o->filter.module = optarg;
			break;
		case O_FUNC:
			o->filter.func_re = optarg;
			break;
		case O_MINB:
			if (size("--min-bytes", optarg, &o->filter.min_bytes))
				return 2;
			break;
		case O_JSON:
			o->json = true;
			break;
		case O_CSV:
			o->csv = true;
			break;
		case O_OM:
			o->openmetrics = true;
			break;
		case O_PROM:
			o->prometheus = true;
			break;
		case O_SOURCE:
			o->source = optarg;
			break;
		case O_PROMFILE:
			o->prom_file = optarg;
			break;
		case O_LISTEN:
			o->listen = optarg;
			break;
		case O_USER:
			o->user = optarg;
			break;
		case O_PPROF:
			o->pprof = optarg;
			break;
		case O_RESOLVE:
			o->do_resolve = true;
			o->resolve = optarg;
			break;
		case O_SINCE:
			o->since = optarg;
			break;
		case O_AGES:
			o->ages = optarg;
			break;
		case O_RECORD:
			o->record = optarg;
			break;
		case O_STACKS:
			o->stacks = optarg;
			break;
		case 'h':
			cmd_usage(c, stdout);
			return -1;
		default:
			fprintf(stderr, "kmemprof %s --help lists its options\n",
				cmds[c].name);
			return 2;
		}
	}
	/* --since and --ages say which sort they are for. */
	if (c == C_TOP && !o->key_set && (o->since || o->ages))
		o->key = o->since ? KP_RATE : KP_AGE;
	if (o->json + o->csv + o->openmetrics + o->prometheus + !!o->pprof > 1) {
		fprintf(stderr, "kmemprof: one output at a time: --json, --csv, --openmetrics, --prometheus or --pprof\n");
		return 2;
	}
	if (o->stacks && c == C_TOP && !o->pprof) {
		fprintf(stderr, "kmemprof: --stacks is for --pprof\n");
		return 2;
	}
	o->args = argv + optind;
	o->nargs = argc - optind;
	/* "--resolve VMLINUX" as well as "--resolve=VMLINUX" on top. */
	if (o->do_resolve && !o->resolve && c == C_TOP && o->nargs == 1) {
		o->resolve = o->args[0];
		o->nargs = 0;
	}
	return 0;
}

static int max_args(enum cmd c)
{
	switch (c) {
	case C_DIFF:
	case C_PLOT:
		return 2;
	case C_STACKS:
	case C_HIST:
	case C_HELP:
		return 1;
	case C_SET:
		return 64;
	default:
		return 0;
	}
}

int main(int argc, char **argv)
{
	struct kp_opts o = { .n = 20 };
	enum cmd c = C_TOP;
	int rc, i;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("kmemprof " KP_VERSION "\n");
		return 0;
	}
	for (i = 0; argc > 1 && i < C_NR; i++) {
		if (!strcmp(argv[1], cmds[i].name)) {
			c = (enum cmd)i;
			argv++;
			argc--;
			break;
		}
	}
	if (c == C_TOP && argc > 1 && argv[1][0] != '-') {
		fprintf(stderr, "kmemprof: unknown command '%s' (kmemprof help lists them)\n",
			argv[1]);
		return 2;
	}
	rc = parse_opts(c, argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (o.nargs > max_args(c)) {
		fprintf(stderr, "kmemprof %s: unexpected argument '%s'\n",
			cmds[c].name, o.args[max_args(c)]);
		return 2;
	}
	switch (c) {
	case C_TOP:
		return cmd_top(&o);
	case C_WATCH:
		return cmd_watch(&o);
	case C_SNAPSHOT:
		return cmd_snapshot(&o);
	case C_DIFF:
		return cmd_diff(&o);
	case C_LEAKS:
		return kp_cmd_leaks(&o);
	case C_STACKS:
		return kp_cmd_stacks(&o);
	case C_HIST:
		return kp_cmd_hist(&o);
	case C_STATS:
		return kp_cmd_stats(&o);
	case C_AGES:
		return kp_cmd_ages(&o);
	case C_CPUS:
		return kp_cmd_cpus(&o);
	case C_ENABLE:
		return knob("enabled", "1");
	case C_DISABLE:
		return knob("enabled", "0");
	case C_RESET:
		return knob("reset", "1");
	case C_SET:
		return cmd_set(&o);
	case C_PLOT:
		return cmd_plot(&o);
	case C_SERVE:
		return kp_cmd_serve(&o);
	case C_HELP:
	default:
		for (i = 0; o.nargs && i < C_NR; i++) {
			if (!strcmp(o.args[0], cmds[i].name)) {
				cmd_usage((enum cmd)i, stdout);
				return 0;
			}
		}
		if (o.nargs) {
			fprintf(stderr, "kmemprof: no command '%s'\n", o.args[0]);
			return 2;
		}
		usage(stdout);
		return 0;
	}
}
