// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof watch: top, refreshed, with rates per second; --record and
 * --prometheus-file keep what it saw.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "cli.h"
#include "outfile.h"
#include "redact.h"
#include "util.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#endif

/*
 * @text to stdout, each line cut to @width columns (the sites are ASCII;
 * a byte a column), as top and slabtop cut theirs: a line that wrapped
 * would push the header off the screen.
 */
static void put_cut(const char *text, size_t len, size_t width)
{
	const char *end = text + len, *nl;

	while (text < end) {
		nl = memchr(text, '\n', (size_t)(end - text));
		if (!nl)
			nl = end;
		fwrite(text, 1, (size_t)(nl - text) < width ?
		       (size_t)(nl - text) : width, stdout);
		if (nl < end)
			putchar('\n');
		text = nl + 1;
	}
}

/* A frame; on a terminal (@width > 0) cut to its width. */
static void watch_frame(const struct kp_profile *p, const struct kp_diff *d,
			double dt, const struct kp_opts *o, bool tty,
			size_t width)
{
	char *frame = NULL;
	size_t flen = 0;
	FILE *out = width ? open_memstream(&frame, &flen) : stdout;

	char live[32], gr[32], bs[32], tb[32];
	int64_t total = 0, growth = 0, allocs = 0;
	struct kp_delta *rows = calloc(d->n + 1, sizeof(*rows));
	static const struct kp_keys by_live = { { KP_BYTES }, 1 };
	time_t t = time(NULL);
	struct tm tm;
	size_t i, n = 0;

	if (!rows || !out) {
		free(rows);
		if (out && out != stdout)
			fclose(out);
		free(frame);
		return;
	}
	for (i = 0; i < p->n; i++)
		total += p->sites[i].bytes;
	for (i = 0; i < d->n; i++) {
		const struct kp_delta *x = &d->v[i];

		if (!x->b)
			continue;	/* gone: not on this screen */
		growth += x->bytes;
		allocs += x->allocs > 0 ? x->allocs : 0;
		rows[n++] = *x;
	}
	/* The first frame has no change yet: its keys are live bytes. */
	kp_sort_deltas(rows, n, o->keys.n ? &o->keys : &by_live, dt <= 0);
	if (tty)
		fputs("\033[H\033[2J", stdout);
	localtime_r(&t, &tm);
	strftime(tb, sizeof(tb), "%H:%M:%S", &tm);
	kp_cell(total, o->human, live, sizeof(live));
	fprintf(out, "kmemprof watch  %s  every %.1fs  live %s bytes in %zu sites",
		tb, o->interval, live, p->n);
	if (dt > 0) {
		kp_cell(llabs(growth), o->human, gr, sizeof(gr));
		fprintf(out, "  %s%s/s  %.0f allocs/s", growth < 0 ? "-" : "+",
			gr, allocs / dt);
	}
	fprintf(out, "\n%12s %12s %10s %12s %-6s %s\n", "LIVE", "GROWTH/S",
		"ALLOCS/S", "BYTES/S", "KIND", "SITE");
	for (i = 0; i < n && (!o->n || i < (size_t)o->n); i++) {
		const struct kp_delta *x = &rows[i];
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
			fprintf(out, "%12s %12s %10.1f %12s ", live, g2,
				r.allocs, bs);
		} else {
			fprintf(out, "%12s %12s %10s %12s ", live, "-", "-",
				"-");
		}
		fprintf(out, "%-6s ", s->kind ? s->kind : "-");
		kp_print_site_name(out, s->site, s->module, s->func,
				   s->callers);
		fputc('\n', out);
	}
	if (out != stdout) {
		fclose(out);
		put_cut(frame, flen, width);
		free(frame);
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
	FILE *out = in ? kp_outfile_append(o->record, kp_mode(o), err,
					   sizeof(err)) : NULL;
	int rc = -1;

	if (in && out) {
		if (!n)
			fgetc(in);
		rc = kp_snapshot_write(out, in, src, t, err, sizeof(err));
		if (rc)
			fprintf(stderr, "kmemprof: %s\n", err);
	} else if (!in) {
		fprintf(stderr, "kmemprof: --record %s: %s\n", o->record,
			strerror(errno));
	} else {
		fprintf(stderr, "kmemprof: --record %s\n", err);
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
 * which may read it at any time: made beside it (outfile.c), renamed
 * into place. Its unnamed addresses are redacted as serve's, numbered
 * across the refreshes by @r, in a profile of its own parsed from @text:
 * the screen keeps them.
 */
static int prom_file(const struct kp_opts *o, const char *src, char *text,
		     size_t n, struct kp_redactor *r)
{
#ifdef KP_HAVE_OUTPUTS
	struct kp_metrics_opts mo = { .source = o->source };
	struct kp_owner_data od;
	struct kp_outfile of;
	struct kp_profile p;
	char err[4200];
	FILE *in;
	int rc;

	mo.max = KP_SERIES_GUARD;	/* kmemprof_sites says how many in all */
	in = fmemopen(text, n ? n : 1, "r");
	if (!in) {
		fprintf(stderr, "kmemprof: --prometheus-file: out of memory\n");
		return -1;
	}
	if (!n)
		fgetc(in);
	rc = kp_parse(in, src, &p, err, sizeof(err));
	fclose(in);
	if (rc) {
		fprintf(stderr, "kmemprof: %s\n", err);
		return -1;
	}
	if (kp_filter(&p, o)) {
		kp_free(&p);
		return -1;
	}
	kp_redact_profile(r, &p);
	/* The owners' series: the owners view at this refresh. */
	if (kp_owner_data_load(o, !o->input, &od) ||
	    (od.on && kp_owner_data_sum(o, &od))) {
		kp_owner_data_free(&od);
		kp_free(&p);
		return -1;
	}
	if (od.on) {
		mo.owners_on = true;
		mo.owners = od.sums;
		mo.nowners = od.nsums;
		mo.owners_max = kp_owner_series(o);
	}
	if (kp_outfile_open(&of, o->prom_file, kp_mode(o), err,
			    sizeof(err))) {
		fprintf(stderr, "kmemprof: --prometheus-file %s\n", err);
		kp_owner_data_free(&od);
		kp_free(&p);
		return -1;
	}
	rc = kp_out_metrics(of.f, &p, &mo);
	kp_owner_data_free(&od);
	kp_free(&p);
	if (kp_outfile_close(&of, !rc, true, err, sizeof(err))) {
		if (rc)
			fprintf(stderr, "kmemprof: --prometheus-file %s: %s\n",
				o->prom_file, strerror(-rc));
		else
			fprintf(stderr, "kmemprof: --prometheus-file %s\n",
				err);
		return -1;
	}
	return 0;
#else
	(void)o;
	(void)src;
	(void)text;
	(void)n;
	(void)r;
	return -kp_no_outputs();
#endif
}

static int run(struct kp_opts *o)
{
	struct kp_profile prev = { 0 }, cur;
	struct kp_redactor red;
	bool tty = isatty(1), have_prev = false;
	struct winsize ws;
	size_t width = 0;
	double t, tprev = 0;
	char path[512], *text;
	struct kp_diff d;
	size_t n;
	long i;
	int rc = 0;

	kp_redactor_init(&red);
	if (o->interval <= 0)
		o->interval = 2;
	if (tty && !ioctl(1, TIOCGWINSZ, &ws)) {
		/* the table fills the terminal, its lines cut to its width */
		if (!o->n_set && ws.ws_row > 4)
			o->n = ws.ws_row - 3;
		width = ws.ws_col;
	}
	if (o->input)
		snprintf(path, sizeof(path), "%s", o->input);
	else
		kp_live_path(path, sizeof(path));
	for (i = 0; !o->count || i < o->count; i++) {
		if (i)
			kp_sleep(o->interval);
		t = kp_now(CLOCK_MONOTONIC);
		if (kp_load(path, &cur, &text, &n)) {
			rc = 1;
			break;
		}
		if (!i && kp_keys_check(o, &cur, path)) {
			free(text);
			kp_free(&cur);
			rc = 2;
			break;
		}
		if (o->record && record(o, path, text, n, kp_now(CLOCK_REALTIME))) {
			free(text);
			kp_free(&cur);
			rc = 1;
			break;
		}
		if (kp_filter(&cur, o)) {
			free(text);
			kp_free(&cur);
			rc = 2;
			break;
		}
		if (o->prom_file && prom_file(o, path, text, n, &red)) {
			free(text);
			kp_free(&cur);
			rc = 1;
			break;
		}
		free(text);
		if (kp_diff(have_prev ? &prev : &cur, &cur, &d)) {
			kp_free(&cur);
			rc = 1;
			break;
		}
		watch_frame(&cur, &d, have_prev ? t - tprev : 0, o, tty,
			    width);
		kp_diff_free(&d);
		if (have_prev)
			kp_free(&prev);
		prev = cur;
		have_prev = true;
		tprev = t;
	}
	if (have_prev)
		kp_free(&prev);
	kp_redactor_destroy(&red);
	return rc;
}


static int set_count(struct kp_opts *o, const char *arg)
{
	return kp_arg_count("-c", arg, &o->count) ? 2 : 0;
}

static int set_record(struct kp_opts *o, const char *arg)
{
	o->record = arg;
	return 0;
}

static int set_delay(struct kp_opts *o, const char *arg)
{
	if (kp_arg_number("-d", arg, &o->interval))
		return 2;
	if (o->interval < 0.1) {
		kp_err("-d %s: at least 0.1 s", arg);
		return 2;
	}
	return 0;
}

static int set_prom_file(struct kp_opts *o, const char *arg)
{
	o->prom_file = arg;
	return 0;
}

static const struct kp_option opt_count = {
	"count", 1, 'c', "N", "stop after N refreshes", set_count,
};

static const struct kp_option opt_record = {
	"record", 1, 0, "FILE",
	"append each refresh to FILE as a snapshot (for plot series)",
	set_record,
};

static const struct kp_option opt_delay = {
	"delay", 1, 'd', "SECS",
	"seconds between refreshes (default 2, at least 0.1)", set_delay,
};

static int set_lines(struct kp_opts *o, const char *arg)
{
	if (kp_arg_count("-n", arg, &o->n))
		return 2;
	o->n_set = true;
	return 0;
}

static const struct kp_option opt_lines = {
	"lines", 1, 'n', "N",
	"the first N sites (default: what fits the terminal, whose width cuts "
	"the lines; 20 when not a "
	"terminal; 0: all)", set_lines,
};

static const struct kp_option opt_prom_file = {
	"prometheus-file", 1, 0, "FILE",
	"keep FILE (a .prom in node_exporter's textfile directory) "
	"current: made beside it (mode 0600 unless --file-mode), renamed "
	"into place; addresses the kernel could not name redacted as "
	"serve's (unknown#N)", set_prom_file,
};

const struct kp_cmd kp_cmd_watch = {
	.name = "watch", .args = "", .what = "top, refreshed, with rates per second",
	.opts = (const struct kp_option *const[]){
		&kp_opt_input, &opt_count, &opt_record, &kp_opt_sort,
		&opt_delay, &opt_lines, &kp_opt_human, &kp_opt_kind,
		&kp_opt_module, &kp_opt_func, &kp_opt_min_bytes,
		&kp_opt_source, &opt_prom_file, &kp_opt_owners,
		&kp_opt_owner_series, &kp_opt_file_mode, NULL,
	},
	.run = run,
};
