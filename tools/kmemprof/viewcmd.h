/* SPDX-License-Identifier: GPL-2.0 */
/* kmemprof reader: what the view commands share (viewcmd.c). */
#ifndef KP_VIEWCMD_H
#define KP_VIEWCMD_H

#include "cli.h"

/* -i, -n, -H, --kind, --module, --json: the views of sites' options. */
extern const struct kp_option *const kp_view_opts[];
/* Whether a view's tag passes --kind and --module. */
bool kp_view_keep(const struct kp_opts *o, const struct kp_site *t);

/*
 * file:line of @n tags, @stride bytes apart from @first, into their
 * srcline and srcfunc, on a live read (viewcmd.c).
 */
int kp_view_resolve(const struct kp_opts *o, struct kp_site *first,
		    size_t n, size_t stride);
/* {"schema":N,"view":"@view" ... then the caller's fields. */
void kp_view_json_begin(const char *view);
/* The closing "}\n"; 0, or 1 if stdout failed. */
int kp_view_json_end(void);
/*
 * A tag's fields, "site" to "callers" (and "srcline" and "srcfunc" when
 * it has them), after the object's '{'.
 */
void kp_view_json_tag(const struct kp_site *t);
/* ,"@key":[counts] */
void kp_view_json_counts(const char *key, const uint64_t *v, size_t n);
/*
 * The preamble every view command shares, in three steps around its own
 * parser (whose types differ):
 *
 *	if (kp_view_open(o, "ages", &v) ||
 *	    kp_view_close(&v, kp_parse_ages(v.in, v.path, &a, v.err,
 *					    sizeof(v.err))))
 *		return 1;
 *	if (kp_view_begin(o, "ages", &a.v[0].tag, a.n, sizeof(a.v[0])))
 *		free and return 1;
 */
struct kp_view_in {
	FILE *in;
	char path[512];		/* -i FILE, or the debugfs view */
	char err[512];		/* the parser's message */
};
/* Open -i FILE or debugfs' @view: 0, or 1 after a message. */
int kp_view_open(const struct kp_opts *o, const char *view,
		 struct kp_view_in *v);
/* Close it after its parser's @rc: 0, or 1 after the parser's message. */
int kp_view_close(struct kp_view_in *v, int rc);
/*
 * file:line of the @n tags (kp_view_resolve(); @first is not read when
 * @n is 0), then, with --json, the document's start
 * (kp_view_json_begin()): 0, or 1 if resolution failed.
 */
int kp_view_begin(const struct kp_opts *o, const char *view,
		  struct kp_site *first, size_t n, size_t stride);
/* An age in ms as "850ms", "4.3s", "12.5m", "3.1h". */
void kp_view_age(int64_t ms, char *buf, size_t len);
/* The owners view without lines, as the tables say it (builtin-owners.c). */
const char *kp_owners_none(const struct kp_owners *ow);

#endif /* KP_VIEWCMD_H */
