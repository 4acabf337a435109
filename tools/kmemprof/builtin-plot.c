// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof plot: SVG charts of a profile, a site's histograms, a record, or
 * the whole-RAM account (plot meminfo: where all of RAM is).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "meminfo.h"
#include "outfile.h"
#include "util.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#endif

#ifdef KP_HAVE_OUTPUTS
/* -o FILE made beside it (outfile.c), or stdout; NULL after a message. */
static FILE *open_out(const struct kp_opts *o, struct kp_outfile *of)
{
	char err[4200];

	if (kp_outfile_open(of, o->output, kp_mode(o), err, sizeof(err))) {
		fprintf(stderr, "kmemprof: plot: %s\n", err);
		return NULL;
	}
	return of->f;
}
#endif

/* plot draws SVG: -o FILE.png (or any other suffix) is refused. */
static int check(struct kp_opts *o)
{
	const char *base, *dot;

	if (!o->output)
		return 0;
	base = strrchr(o->output, '/');
	base = base ? base + 1 : o->output;
	dot = strrchr(base, '.');
	if (dot && dot != base && strcasecmp(dot, ".svg")) {
		fprintf(stderr, "kmemprof plot: -o %s: plot writes SVG only (name the file .svg; rsvg-convert makes a PNG of it)\n",
			o->output);
		return 2;
	}
	return 0;
}

static int run(struct kp_opts *o)
{
#ifdef KP_HAVE_OUTPUTS
	const char *what = o->nargs ? o->args[0] : "";
	char path[512], err[4200];
	struct kp_outfile of;
	FILE *in, *out = NULL;
	int rc = -1;

	if (!strcmp(what, "top") && o->nargs == 1) {
		struct kp_profile p;

		if (kp_load(o->input ? o->input : kp_live_path(path, sizeof(path)),
			 &p, NULL, NULL))
			return 1;
		if (kp_filter(&p, o) || kp_resolve_opt(o, &p)) {
			kp_free(&p);
			return 1;
		}
		kp_sort(&p, KP_BYTES);
		/* the live read: file:line by build id, as top's */
		if (!o->input && !o->do_resolve && !o->no_resolve) {
			size_t all = p.n;

			if (o->n > 0 && (size_t)o->n < p.n)
				p.n = (size_t)o->n;
			else if (p.n > 20)
				p.n = 20;
			kp_resolve_auto_busy(&p);
			p.n = all;
		}
		out = open_out(o, &of);
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
		out = open_out(o, &of);
		if (out)
			rc = kp_plot_hist(out, &h.v[i]);
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
		out = open_out(o, &of);
		if (out)
			rc = kp_plot_series(out, &s);
		kp_series_free(&s);
	} else if (!strcmp(what, "meminfo") && o->nargs == 1) {
		struct kp_account a;

		if (kp_meminfo_load(o->input, &a))
			return 1;
		out = open_out(o, &of);
		if (out)
			rc = kp_plot_meminfo(out, &a);
	} else {
		kp_err("plot top | plot hist SITE | plot series RECORD | plot meminfo, with -o FILE.svg");
		return 2;
	}
	if (!out)
		return 1;
	if (rc)
		fprintf(stderr, "kmemprof: plot: %s\n", strerror(rc < 0 ? -rc : EIO));
	if (kp_outfile_close(&of, !rc, true, err, sizeof(err)) && !rc) {
		fprintf(stderr, "kmemprof: plot: %s\n", err);
		rc = -1;
	}
	return rc ? 1 : 0;
#else
	(void)o;
	return kp_no_outputs();
#endif
}


const struct kp_cmd kp_cmd_plot = {
	.name = "plot", .args = "top|hist SITE|series RECORD|meminfo",
	.what = "draw an SVG (-o FILE.svg)", .max_args = 2,
	.opts = (const struct kp_option *const[]){
		&kp_opt_input, &kp_opt_output, &kp_opt_file_mode,
		&kp_opt_lines, &kp_opt_kind,
		&kp_opt_module, &kp_opt_func, &kp_opt_min_bytes,
		&kp_opt_resolve, &kp_opt_no_resolve, NULL,
	},
	.check = check, .run = run,
};
