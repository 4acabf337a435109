// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the options that several commands take, and the one
 * parser of a command's options. A command lists the options it takes
 * (struct kp_cmd.opts, in the order its --help shows them): these, and
 * any of its own, defined in its builtin-*.c. Each option stores its
 * value in struct kp_opts itself; --help is every command's.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cli.h"
#include "outfile.h"

/*
 * Whether @spec (VMLINUX[,MOD.ko...]) names an ELF file first: what a
 * command with arguments of its own takes as "--resolve SPEC" (a snapshot
 * is text), and a .ko's name (it may be compressed).
 */
static bool resolve_spec(const char *spec)
{
	char path[4096], magic[4];
	size_t n = strcspn(spec, ",");
	bool elf = false;
	FILE *f;

	snprintf(path, sizeof(path), "%.*s", (int)n, spec);
	if (strstr(path, ".ko"))
		return true;
	f = fopen(path, "r");
	if (f) {
		elf = fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);
		fclose(f);
	}
	return elf;
}

const char *kp_cmd_name = "top";

void kp_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kmemprof %s: ", kp_cmd_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static bool busy;

void kp_busy(const char *fmt, ...)
{
	va_list ap;

	if (!isatty(2))
		return;
	fprintf(stderr, "kmemprof %s: ", kp_cmd_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("...", stderr);
	busy = true;
}

void kp_busy_end(void)
{
	if (busy)
		fputs("\r\033[K", stderr);
	busy = false;
}

int kp_arg_number(const char *opt, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(*v) || *v < 0) {
		kp_err("%s %s: expected a number", opt, s);
		return -1;
	}
	return 0;
}

int kp_arg_count(const char *opt, const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || *end || end == s || *v < 0) {
		kp_err("%s %s: expected a count", opt, s);
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
		kp_err("%s %s: expected a size (4096, 4K, 2M, 1G)", opt, s);
		return -1;
	}
	*v = (int64_t)d;
	return 0;
}

/* The setters: @arg into @o, or 2 with a message. */
#define SET_STR(fn, field)					\
static int fn(struct kp_opts *o, const char *arg)		\
{								\
	o->field = arg;						\
	return 0;						\
}
#define SET_FLAG(fn, field)					\
static int fn(struct kp_opts *o, const char *arg)		\
{								\
	(void)arg;						\
	o->field = true;					\
	return 0;						\
}
SET_STR(set_input, input)
SET_STR(set_output, output)
SET_STR(set_module, filter.module)
SET_STR(set_func, filter.func_re)
SET_STR(set_source, source)
SET_STR(set_stacks, stacks)
SET_STR(set_owners, owners)
SET_FLAG(set_human, human)
SET_FLAG(set_json, json)
SET_FLAG(set_csv, csv)
SET_FLAG(set_prometheus, prometheus)
SET_FLAG(set_openmetrics, openmetrics)

static int set_lines(struct kp_opts *o, const char *arg)
{
	if (kp_arg_count("-n", arg, &o->n))
		return 2;
	o->n_set = true;
	return 0;
}

static int set_owner_series(struct kp_opts *o, const char *arg)
{
	if (kp_arg_count("--owner-series", arg, &o->owner_series))
		return 2;
	o->owner_series_set = true;
	return 0;
}

static int set_delay(struct kp_opts *o, const char *arg)
{
	return kp_arg_number("-d", arg, &o->interval) ? 2 : 0;
}

static int set_kind(struct kp_opts *o, const char *arg)
{
	if (strcmp(arg, "slab") && strcmp(arg, "page") &&
	    strcmp(arg, "percpu")) {
		kp_err("--kind %s: expected slab, page or percpu", arg);
		return 2;
	}
	o->filter.kind = arg;
	return 0;
}

static int set_min_bytes(struct kp_opts *o, const char *arg)
{
	return size("--min-bytes", arg, &o->filter.min_bytes) ? 2 : 0;
}

static int set_file_mode(struct kp_opts *o, const char *arg)
{
	if (kp_file_mode(arg, &o->file_mode)) {
		kp_err("--file-mode %s: expected 0600, 0640, 0604 or 0644 (others may read, never write)",
		       arg);
		return 2;
	}
	return 0;
}

static int set_resolve(struct kp_opts *o, const char *arg)
{
	o->do_resolve = true;
	o->resolve = arg;
	return 0;
}

static int set_no_resolve(struct kp_opts *o, const char *arg)
{
	(void)arg;
	o->no_resolve = true;
	return 0;
}

/*
 * -s KEY[,KEY...]: one set of keys for top, watch and diff. What a
 * command cannot sort by: growth is a change between two reads, which top
 * has not (diff and watch have); age is the ages view's, which only top
 * reads.
 */
static int set_sort(struct kp_opts *o, const char *arg)
{
	char bad[64];
	size_t i;
	int rc;

	o->key_set = true;
	rc = kp_keys_parse(arg, &o->keys, bad, sizeof(bad));
	if (rc) {
		if (rc == -2)
			kp_err("-s %s: at most %d keys", arg, KP_MAX_KEYS);
		else
			kp_err("-s %s: expected growth, bytes, objs (or calls), avg, allocs, frag, rate or age, or a comma list of them", bad);
		return 2;
	}
	for (i = 0; i < o->keys.n; i++) {
		enum kp_key k = o->keys.k[i];

		if (k == KP_GROWTH && !strcmp(kp_cmd_name, "top")) {
			kp_err("-s growth: top reads once; growth is between two reads (kmemprof diff A B, or watch)");
			return 2;
		}
		if (k == KP_AGE && strcmp(kp_cmd_name, "top")) {
			kp_err("-s age: %s reads no ages (top -s age does)",
			       kp_cmd_name);
			return 2;
		}
	}
	o->key = o->keys.k[0];
	return 0;
}

int kp_keys_check(const struct kp_opts *o, const struct kp_profile *p,
		  const char *name)
{
	static const struct {
		enum kp_key key;
		const char *why;
	} none[] = {
		{ KP_ALLOCS, "counts no allocations" },
		{ KP_RATE, "counts no allocations" },
		{ KP_FRAG, "has no requested sizes" },
		{ KP_AGE, "has no ages" },
	};
	size_t i;

	if (p->source != KP_ALLOCINFO)
		return 0;
	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (kp_keys_has(&o->keys, none[i].key)) {
			kp_err("-s %s: %s is allocinfo's, which %s (bytes, objs or avg)",
			       kp_key_name(none[i].key), name, none[i].why);
			return 2;
		}
	return 0;
}

const struct kp_option kp_opt_input = {
	"input", 1, 'i', "FILE",
	"read FILE (a snapshot, a saved view, /proc/allocinfo; - is stdin)",
	set_input,
};
const struct kp_option kp_opt_output = {
	"output", 1, 'o', "FILE", "write to FILE instead of stdout",
	set_output,
};
const struct kp_option kp_opt_sort = {
	"sort", 1, 's', "KEY[,KEY]",
	"growth (live bytes gained between two reads: diff's default; diff, "
	"watch), bytes (live: top's and watch's default), objs (live objects, "
	"also calls; diff and watch: gained), avg (live bytes an object), "
	"allocs (since load; diff and watch: between the reads), frag "
	"(1 - requested/allocated bytes since load), rate (allocations a "
	"second; top: -d or --since), age (the oldest live object; top: "
	"--ages); a comma list sorts ties by the next key, as perf's; sites "
	"with no avg or frag (no live objects) last",
	set_sort,
};
const struct kp_option kp_opt_delay = {
	"delay", 1, 'd', "SECS",
	"--sort rate: seconds between the two reads (default 1)", set_delay,
};
const struct kp_option kp_opt_lines = {
	"lines", 1, 'n', "N",
	"the first N entries (tables: default 20; --json, --csv, --pprof: "
	"all; series: 1000, said on stderr; 0: all)", set_lines,
};
const struct kp_option kp_opt_view_input = {
	"input", 1, 'i', "FILE",
	"read FILE, a saved copy of the view (- is stdin), not debugfs",
	set_input,
};
const struct kp_option kp_opt_view_lines = {
	"lines", 1, 'n', "N", "the first N sites (default 20; 0: all)",
	set_lines,
};
const struct kp_option kp_opt_file_mode = {
	"file-mode", 1, 0, "MODE",
	"the mode of the files written (default 0600: what they hold is "
	"root-only; 0640 or 0644 to let others read them)", set_file_mode,
};
const struct kp_option kp_opt_human = {
	"human", 0, 'H', NULL, "sizes in IEC units, as numfmt --to=iec",
	set_human,
};
const struct kp_option kp_opt_kind = {
	"kind", 1, 0, "KIND", "slab, page or percpu", set_kind,
};
const struct kp_option kp_opt_module = {
	"module", 1, 0, "NAME", "sites in module NAME", set_module,
};
const struct kp_option kp_opt_func = {
	"func", 1, 0, "REGEX",
	"sites whose function matches REGEX (extended)", set_func,
};
const struct kp_option kp_opt_min_bytes = {
	"min-bytes", 1, 0, "N",
	"sites holding at least N live bytes (4096, 4K, 2M)", set_min_bytes,
};
const struct kp_option kp_opt_min_growth = {
	"min-bytes", 1, 0, "N",
	"sites whose live bytes grew by at least N (4096, 4K, 2M)",
	set_min_bytes,
};
const struct kp_option kp_opt_json = {
	"json", 0, 0, NULL,
	"one JSON document (kmemprof(1) OUTPUTS; its fields in "
	"kmemprof-output.rst, /usr/share/doc/kmemprof-tools)", set_json,
};
const struct kp_option kp_opt_csv = {
	"csv", 0, 0, NULL, "CSV with a header", set_csv,
};
const struct kp_option kp_opt_prometheus = {
	"prometheus", 0, 0, NULL,
	"the Prometheus text format, for node_exporter's textfile collector "
	"(unnamed addresses redacted: unknown#N)",
	set_prometheus,
};
const struct kp_option kp_opt_openmetrics = {
	"openmetrics", 0, 0, NULL,
	"OpenMetrics 1.0 text (unnamed addresses redacted: unknown#N)",
	set_openmetrics,
};
const struct kp_option kp_opt_source = {
	"source", 1, 0, "NAME",
	"the series' source label (default: kmemprof or allocinfo)",
	set_source,
};
const struct kp_option kp_opt_stacks = {
	"stacks", 1, 0, "FILE",
	"--pprof: the stacks view to use (default: debugfs, when live)",
	set_stacks,
};
const struct kp_option kp_opt_owners = {
	"owners", 1, 0, "FILE",
	"the owners view, for the owner series and pprof's owner labels "
	"(default: debugfs's, when live and owners are on)", set_owners,
};
const struct kp_option kp_opt_owner_series = {
	"owner-series", 1, 0, "N",
	"series for the N owners with the most live bytes (default 20; 0: "
	"all), the rest summed in owner=\"other\"", set_owner_series,
};
const struct kp_option kp_opt_resolve = {
	"resolve", 2, 0, "SPEC",
	"file:line of each site through DWARF; SPEC is VMLINUX[,MOD.ko...] "
	"(default: the running kernel's)", set_resolve,
};
const struct kp_option kp_opt_no_resolve = {
	"no-resolve", 0, 0, NULL,
	"no file:line from debug files found by build id (the live read "
	"looks for them by itself)", set_no_resolve,
};
static const struct kp_option opt_help = {
	"help", 0, 'h', NULL, "this help", NULL,
};
static const struct kp_option opt_version = {
	"version", 0, 'V', NULL, "the reader's version", NULL,
};

/* "  LEFT  text...", the text wrapped at 79 columns under itself. */
void kp_wrap(FILE *out, int indent, const char *left, const char *text)
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

/* The options of @c, --version and --help last; returns how many. */
static size_t opts_of(const struct kp_cmd *c, const struct kp_option **v,
		      size_t max)
{
	size_t n = 0;

	while (c->opts && c->opts[n] && n + 2 < max) {
		v[n] = c->opts[n];
		n++;
	}
	v[n++] = &opt_version;
	v[n++] = &opt_help;
	return n;
}

#define MAX_OPTS 32

void kp_cmd_usage(const struct kp_cmd *c, FILE *out)
{
	const struct kp_option *v[MAX_OPTS];
	size_t i, n = opts_of(c, v, MAX_OPTS);
	char left[64];

	fprintf(out, "usage: kmemprof %s %s%s[OPTIONS]\n\n%s.\n\n",
		c->name, c->args, *c->args ? " " : "", c->what);
	for (i = 0; i < n; i++) {
		const struct kp_option *o = v[i];

		if (o->short_opt)
			snprintf(left, sizeof(left), "-%c, --%s%s%s%s",
				 o->short_opt, o->name, o->has_arg == 2 ? "[=" :
				 o->arg ? " " : "", o->arg ? o->arg : "",
				 o->has_arg == 2 ? "]" : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s%s", o->name,
				 o->has_arg == 2 ? "[=" : o->arg ? " " : "",
				 o->arg ? o->arg : "",
				 o->has_arg == 2 ? "]" : "");
		kp_wrap(out, 30, left, o->help);
	}
}

int kp_parse_opts(const struct kp_cmd *c, int argc, char **argv,
		  struct kp_opts *o)
{
	const struct kp_option *v[MAX_OPTS], *oi;
	struct option longs[MAX_OPTS + 1];
	char shorts[3 * MAX_OPTS + 2];
	size_t i, k, n = opts_of(c, v, MAX_OPTS), ns = 0;
	int ch, rc;

	memset(longs, 0, sizeof(longs));
	for (i = 0; i < n; i++) {
		/* getopt_long() returns the short letter, or 256 + i. */
		longs[i] = (struct option){ v[i]->name, v[i]->has_arg, NULL,
					    v[i]->short_opt ? v[i]->short_opt :
					    256 + (int)i };
		if (v[i]->short_opt) {
			shorts[ns++] = (char)v[i]->short_opt;
			for (k = 0; k < (size_t)v[i]->has_arg; k++)
				shorts[ns++] = ':';
		}
	}
	/* ':' first: a missing argument is told from an unknown option. */
	memmove(shorts + 1, shorts, ns + 1);
	shorts[0] = ':';
	kp_cmd_name = c->name;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		oi = NULL;
		for (i = 0; i < n && !oi; i++)
			if (ch == (v[i]->short_opt ? v[i]->short_opt :
				   256 + (int)i))
				oi = v[i];
		if (!oi) {
			const char *arg = argv[optind - 1];

			/* One error style: "kmemprof CMD: ...". */
			if (ch == ':')
				fprintf(stderr, "kmemprof %s: %s needs a value (kmemprof %s --help lists the options)\n",
					c->name, arg, c->name);
			else if (optopt && strncmp(arg, "--", 2))
				fprintf(stderr, "kmemprof %s: unknown option '-%c' (kmemprof %s --help lists the options)\n",
					c->name, optopt, c->name);
			else
				fprintf(stderr, "kmemprof %s: unknown option '%s' (kmemprof %s --help lists the options)\n",
					c->name, arg, c->name);
			return 2;
		}
		if (oi == &opt_version) {
			printf("kmemprof " KP_VERSION "\n");
			return -1;
		}
		/*
		 * "--resolve SPEC" as "--resolve=SPEC", in every command: the
		 * next word, where the command takes no arguments, or where
		 * it names an ELF file.
		 */
		if (oi->has_arg == 2 && !optarg && !strcmp(oi->name, "resolve") &&
		    optind < argc && argv[optind][0] != '-' &&
		    (!c->max_args || resolve_spec(argv[optind])))
			optarg = argv[optind++];
		/* "--pprof -i FILE": -i is no file name. */
		if (oi->arg && !strcmp(oi->arg, "FILE") && optarg &&
		    optarg[0] == '-' && optarg[1]) {
			kp_err("--%s: '%s' is an option, not a FILE (--%s=%s for a file so named)",
			       oi->name, optarg, oi->name, optarg);
			return 2;
		}
		if (oi == &opt_help) {
			kp_cmd_usage(c, stdout);
			return -1;
		}
		rc = oi->set(o, optarg);
		if (rc)
			return rc;
	}
	if (o->json + o->csv + o->openmetrics + o->prometheus + !!o->pprof > 1) {
		kp_err("one output at a time: --json, --csv, --openmetrics, --prometheus or --pprof");
		return 2;
	}
	o->args = argv + optind;
	o->nargs = argc - optind;
	return c->check ? c->check(o) : 0;
}
