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
/* A parser's @rc, its message @err on stderr if it failed. */
int kp_view_parsed(int rc, const char *err);
/* An age in ms as "850ms", "4.3s", "12.5m", "3.1h". */
void kp_view_age(int64_t ms, char *buf, size_t len);

#endif /* KP_VIEWCMD_H */
