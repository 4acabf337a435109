/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof reader: machine outputs (JSON, CSV, OpenMetrics, pprof), SVG
 * plots and DWARF resolution of call sites. The formats are documented in
 * Documentation/kmemprof-output.rst.
 *
 * Every function returns 0 or a negative errno. A feature left out of the
 * build (no protobuf-c or zlib for pprof, no libdw for resolution) returns
 * -ENOTSUP and says so in @err, or on stderr where there is no @err.
 */
#ifndef KP_OUTPUT_H
#define KP_OUTPUT_H

#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "jsonstr.h"

struct kp_profile;
struct kp_stacks;
struct kp_hist;
struct kp_series;
struct kp_account;
struct kp_osum;
struct kp_owners;

/* The "schema" value of the JSON document; bumped on incompatible change. */
#define KP_JSON_SCHEMA 1

int kp_out_json(FILE *out, const struct kp_profile *p);
int kp_out_csv(FILE *out, const struct kp_profile *p);
/* A CSV field as kp_out_csv() writes it: quoted where it must be. */
void kp_csv_str(FILE *out, const char *s);

/*
 * The profile as metrics: the Prometheus text format 0.0.4 (what
 * node_exporter's textfile collector and promtool read), or OpenMetrics
 * 1.0. Every series carries source="@source" (NULL: "kmemprof" or
 * "allocinfo", after the profile's kind). Only the first @max sites get
 * series (0: all); kmemprof_sites counts them all. A profile of deltas
 * (diff) writes gauges named *_delta.
 */
struct kp_metrics_opts {
	const char *source;
	size_t max;
	bool openmetrics;
	/* If not NULL, the whole-RAM account's gauges too (serve). */
	const struct kp_account *account;
	/*
	 * With @owners_on, the owners' gauges too: the first @owners_max
	 * (0: all) of the @nowners of @owners (kp_owner_sums(): largest
	 * first), a series each, the rest summed in owner="other".
	 */
	bool owners_on;
	const struct kp_osum *owners;
	size_t nowners, owners_max;
};

int kp_out_metrics(FILE *out, const struct kp_profile *p,
		   const struct kp_metrics_opts *o);
/* The owners' gauges alone (top --by owner --prometheus). */
int kp_out_owner_metrics(FILE *out, const struct kp_metrics_opts *o);
/* The whole-RAM account's gauges alone (kmemprof meminfo --prometheus). */
int kp_out_account_metrics(FILE *out, const struct kp_account *a,
			   const struct kp_metrics_opts *o);

/*
 * A gzipped pprof profile in a malloc()ed buffer; @st may be NULL (one
 * frame a site), @ow too (no owner labels). @deflt is the default sample
 * type: "inuse_space" (heap) or "alloc_space" (allocs).
 */
int kp_pprof_gz(const struct kp_profile *p, const struct kp_stacks *st,
		const struct kp_owners *ow, const char *deflt, void **buf,
		size_t *len, char *err, size_t errlen);
/*
 * The same, written to @path (heap: inuse_space the default), made as
 * outfile.c makes every file, mode @mode.
 */
int kp_out_pprof(const char *path, const struct kp_profile *p,
		 const struct kp_stacks *st, const struct kp_owners *ow,
		 mode_t mode, char *err, size_t errlen);

/* SVG: the first @n sites of @p as bars (0: all, at most 50). */
int kp_plot_top(FILE *out, const struct kp_profile *p, size_t n);
/* SVG: one tag's size and lifetime histograms. */
int kp_plot_hist(FILE *out, const struct kp_hist *h);
/* SVG: live bytes per site over time, from a watch --record file. */
int kp_plot_series(FILE *out, const struct kp_series *s);
/* SVG: where all of RAM is, the whole-RAM account as stacked bars. */
int kp_plot_meminfo(FILE *out, const struct kp_account *a);

/*
 * Map each site's "sym+0xoff/0xlen [module]" to file:line through DWARF.
 * @spec is "VMLINUX[,MOD.ko...]", or NULL for
 * /usr/lib/debug/boot/vmlinux-$(uname -r) and the modules under
 * /lib/modules/$(uname -r). Sets site->srcline where found, and
 * site->srcfunc when that line is in a function inlined at the site; sites
 * that cannot be resolved keep NULL. Returns the number of sites resolved.
 */
int kp_resolve(struct kp_profile *p, const char *spec, char *err,
	       size_t errlen);

/*
 * The same without asking: the debug files of the running kernel and its
 * modules, found by build id (see resolve.c), silently. Returns the
 * number of sites resolved, 0 when nothing is at hand.
 */
int kp_resolve_auto(struct kp_profile *p);

/*
 * The GNU build id in @b, a blob of ELF notes in native byte order (what
 * /sys/kernel/notes holds), into @id (at least KP_BUILD_ID_MAX bytes):
 * its length, 0 if none. resolve.c; only with libdw.
 */
#define KP_BUILD_ID_MAX 64
size_t kp_note_build_id(const unsigned char *b, size_t len,
			unsigned char *id);

/* Which optional features this build has, e.g. "pprof resolve". */
const char *kp_out_features(void);


#endif /* KP_OUTPUT_H */
