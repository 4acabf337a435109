// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: what the commands that format a debugfs view (leaks,
 * stacks, hist, stats, cpus and ages: builtin-<view>.c) share: their
 * options and their JSON, one document whose "view" names it (its schema
 * is in Documentation/kmemprof-output.rst).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonstr.h"
#include "viewcmd.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#endif

/* The JSON views' schema; bumped on an incompatible change. */
#define VIEW_SCHEMA 1

void kp_view_json_begin(const char *view)
{
	printf("{\"schema\":%d,\"view\":\"%s\"", VIEW_SCHEMA, view);
}

int kp_view_json_end(void)
{
	fputs("}\n", stdout);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

/*
 * A tag's fields, "site" to "callers" (and "srcline" and "srcfunc" when
 * it has them), after the object's '{'.
 */
void kp_view_json_tag(const struct kp_site *t)
{
	kp_json_tag_names(stdout, t);
	kp_json_callers(stdout, t->callers);
	kp_json_srcline(stdout, t, false);
}

/*
 * file:line of the view's sites, as top finds them on a live read: by
 * build id (kp_resolve_auto()), unless the view was read from a file (-i:
 * a copy may come from another kernel) or --no-resolve said not to.
 */
int kp_view_resolve(const struct kp_opts *o, struct kp_site *first,
		    size_t n, size_t stride)
{
#ifdef KP_HAVE_OUTPUTS
	struct kp_profile p = { .source = KP_KMEMPROF };
	struct kp_site *t;
	size_t i;
	int rc = 0;

	/* --resolve SPEC as every command takes it; else by build id */
	if (!n || (!o->do_resolve && (o->input || o->no_resolve)))
		return 0;
	p.sites = calloc(n, sizeof(*p.sites));
	if (!p.sites)
		return 0;
	/*
	 * borrowed: resolution reads site and module, writes srcline and
	 * srcfunc
	 */
	for (i = 0, t = first; i < n;
	     i++, t = (struct kp_site *)((char *)t + stride)) {
		p.sites[i].site = t->site;
		p.sites[i].module = t->module;
		p.sites[i].unloaded = t->unloaded;
		p.sites[i].srcline = t->srcline;
		p.sites[i].srcfunc = t->srcfunc;
	}
	p.n = n;
	if (o->do_resolve)
		rc = kp_resolve_opt(o, &p);
	else
		kp_resolve_auto_busy(&p);
	for (i = 0, t = first; i < n;
	     i++, t = (struct kp_site *)((char *)t + stride)) {
		t->srcline = p.sites[i].srcline;
		t->srcfunc = p.sites[i].srcfunc;
	}
	free(p.sites);
	return rc;
#else
	(void)first;
	(void)n;
	(void)stride;
	return o->do_resolve ? -kp_no_outputs() : 0;
#endif
}

void kp_view_json_counts(const char *key, const uint64_t *v, size_t n)
{
	size_t i;

	printf(",\"%s\":[", key);
	for (i = 0; i < n; i++)
		printf("%s%" PRIu64, i ? "," : "", v[i]);
	putchar(']');
}

int kp_view_open(const struct kp_opts *o, const char *view,
		 struct kp_view_in *v)
{
	v->in = kp_open(kp_view_path(o, view, v->path, sizeof(v->path)));
	return v->in ? 0 : 1;
}

int kp_view_close(struct kp_view_in *v, int rc)
{
	fclose(v->in);
	v->in = NULL;
	if (rc)
		fprintf(stderr, "kmemprof: %s\n", v->err);
	return rc ? 1 : 0;
}

int kp_view_begin(const struct kp_opts *o, const char *view,
		  struct kp_site *first, size_t n, size_t stride)
{
	if (n && kp_view_resolve(o, first, n, stride))
		return 1;
	if (o->json)
		kp_view_json_begin(view);
	return 0;
}

/* An age in ms as "850ms", "4.3s", "12.5m", "3.1h". */
void kp_view_age(int64_t ms, char *buf, size_t len)
{
	if (ms < 1000)
		snprintf(buf, len, "%" PRId64 "ms", ms);
	else if (ms < 60000)
		snprintf(buf, len, "%.1fs", ms / 1000.0);
	else if (ms < 3600000)
		snprintf(buf, len, "%.1fm", ms / 60000.0);
	else
		snprintf(buf, len, "%.1fh", ms / 3600000.0);
}

const struct kp_option *const kp_view_opts[] = {
	&kp_opt_view_input, &kp_opt_view_lines, &kp_opt_human, &kp_opt_kind,
	&kp_opt_module, &kp_opt_json, &kp_opt_resolve, &kp_opt_no_resolve,
	NULL,
};

/* Whether a view's tag passes --kind and --module. */
bool kp_view_keep(const struct kp_opts *o, const struct kp_site *t)
{
	if (o->filter.kind && (!t->kind || strcmp(t->kind, o->filter.kind)))
		return false;
	return !o->filter.module ||
	       (t->module && !strcmp(t->module, o->filter.module));
}
