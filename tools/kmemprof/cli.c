// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: what the commands (builtin-*.c, viewcmd.c, serve.c)
 * share: opening and loading the inputs, the live profile's path, the
 * machine outputs, a tag's name as the tables print it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#include "redact.h"
#endif

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

void kp_ob_flush(struct kp_obuf *o)
{
	if (o->p > o->buf)
		fwrite(o->buf, 1, (size_t)(o->p - o->buf), o->out);
	o->p = o->buf;
}

char *kp_put_cell(char *q, int64_t v, bool dash, bool human, int width)
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

void kp_cell(int64_t v, bool human, char *buf, size_t len)
{
	char tmp[32];

	*kp_put_cell(tmp, v, true, human, 0) = '\0';
	snprintf(buf, len, "%s", tmp);
}

void kp_ob_site_name(struct kp_obuf *o, const char *site, const char *module,
		     const char *func, const char *callers)
{
	const char *f = func, *t = site;

	/* The function, unless the site starts with it. */
	while (f && *f && *f == *t) {
		f++;
		t++;
	}
	kp_ob_str(o, site);
	if (module) {
		kp_ob_put(o, " [", 2);
		kp_ob_str(o, module);
		kp_ob_put(o, "]", 1);
	}
	if (f && *f) {
		kp_ob_put(o, " ", 1);
		kp_ob_str(o, func);
	}
	if (callers) {
		kp_ob_put(o, " <- ", 4);
		kp_ob_str(o, callers);
	}
}

void kp_ob_srcline(struct kp_obuf *o, const char *srcline, const char *srcfunc)
{
	if (!srcline)
		return;
	kp_ob_put(o, " (", 2);
	kp_ob_str(o, srcline);
	kp_ob_put(o, ")", 1);
	if (srcfunc) {
		kp_ob_put(o, " inlined:", 9);
		kp_ob_str(o, srcfunc);
	}
}

void kp_ob_tag(struct kp_obuf *o, const struct kp_site *t)
{
	kp_ob_site_name(o, t->site, t->module, t->func, t->callers);
	kp_ob_srcline(o, t->srcline, t->srcfunc);
}

/* The same on @out, through a line's buffer on the stack. */
void kp_print_site_name(FILE *out, const char *site, const char *module,
			const char *func, const char *callers)
{
	char line[512];
	struct kp_obuf ob = KP_OBUF(out, line);

	kp_ob_site_name(&ob, site, module, func, callers);
	kp_ob_flush(&ob);
}

void kp_print_srcline(FILE *out, const char *srcline, const char *srcfunc)
{
	char line[512];
	struct kp_obuf ob = KP_OBUF(out, line);

	kp_ob_srcline(&ob, srcline, srcfunc);
	kp_ob_flush(&ob);
}

void kp_print_tag(FILE *out, const struct kp_site *t)
{
	char line[512];
	struct kp_obuf ob = KP_OBUF(out, line);

	kp_ob_tag(&ob, t);
	kp_ob_flush(&ob);
}

bool kp_tag_match(const struct kp_site *t, const char *want)
{
	size_t n = strlen(want);

	if (t->func && !strcmp(t->func, want))
		return true;
	return !strncmp(t->site, want, n) &&
	       (t->site[n] == '\0' || t->site[n] == '+' || t->site[n] == '/');
}

int64_t kp_delta_key(const struct kp_delta *d, enum kp_key key, bool first)
{
	switch (key) {
	case KP_GROWTH:
	case KP_OBJS:
	case KP_ALLOCS:
	case KP_RATE:
		if (first)
			return d->b ? d->b->bytes : INT64_MIN;
		return key == KP_GROWTH ? d->bytes : key == KP_OBJS ? d->objs :
		       d->allocs;
	default:
		return d->b ? kp_key_value(d->b, key) : INT64_MIN;
	}
}

static _Thread_local const struct kp_keys *sort_keys;
static _Thread_local bool sort_first;

static int delta_cmp(const void *x, const void *y)
{
	const struct kp_delta *a = x, *b = y;
	size_t i;

	for (i = 0; i < sort_keys->n; i++) {
		int64_t va = kp_delta_key(a, sort_keys->k[i], sort_first);
		int64_t vb = kp_delta_key(b, sort_keys->k[i], sort_first);

		if (va != vb)
			return va < vb ? 1 : -1;
	}
	return strcmp(kp_delta_site(a)->site, kp_delta_site(b)->site);
}

void kp_sort_deltas(struct kp_delta *v, size_t n, const struct kp_keys *keys,
		    bool first)
{
	sort_keys = keys;
	sort_first = first;
	qsort(v, n, sizeof(*v), delta_cmp);
}

double kp_now(clockid_t clk)
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
int kp_load(const char *path, struct kp_profile *p, char **text,
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

int kp_filter(struct kp_profile *p, const struct kp_opts *o)
{
	char err[512];

	if (kp_filter_apply(p, &o->filter, err, sizeof(err))) {
		fprintf(stderr, "kmemprof: %s\n", err);
		return -1;
	}
	return 0;
}

bool kp_series(const struct kp_opts *o)
{
	return o->openmetrics || o->prometheus;
}

bool kp_machine(const struct kp_opts *o)
{
	return o->json || o->csv || kp_series(o);
}

/*
 * How many sites a machine output carries: -n, else all of them, but
 * for the series outputs, whose guard says so when it cuts.
 */
size_t kp_machine_sites(const struct kp_opts *o, size_t n)
{
	size_t max = o->n_set ? (size_t)o->n : kp_series(o) ? KP_SERIES_GUARD : 0;

	if (!max || max >= n)
		return n;
	if (kp_series(o))
		fprintf(stderr, "kmemprof: --%s: the first %zu of %zu sites (-n 0: all)\n",
			o->openmetrics ? "openmetrics" : "prometheus", max, n);
	return max;
}

int kp_owner_data_load(const struct kp_opts *o, bool live,
		       struct kp_owner_data *d)
{
	char path[512], err[512];
	FILE *in;
	int rc;

	memset(d, 0, sizeof(*d));
	if (o->owners)
		snprintf(path, sizeof(path), "%s", o->owners);
	else if (live)
		kp_path(DEBUGFS "/owners", path, sizeof(path));
	else
		return 0;
	/* The live view is there only with a module that has it. */
	in = o->owners ? kp_open(path) : fopen(path, "r");
	if (!in)
		return o->owners ? -1 : 0;
	rc = kp_parse_owners(in, path, &d->ow, err, sizeof(err));
	fclose(in);
	if (rc) {
		fprintf(stderr, "kmemprof: %s\n", err);
		return -1;
	}
	d->on = !d->ow.off;
	return 0;
}

int kp_owner_data_sum(const struct kp_opts *o, struct kp_owner_data *d)
{
	struct kp_filter f = o->filter;
	bool *keep = calloc(d->ow.n + 1, sizeof(*keep));
	char err[512];
	int rc = -1;

	f.min_bytes = 0;	/* a site's threshold, not a line's */
	free(d->sums);
	d->sums = NULL;
	d->nsums = 0;
	if (!keep) {
		fprintf(stderr, "kmemprof: out of memory\n");
		return -1;
	}
	if (kp_filter_keep(d->ow.n ? &d->ow.v[0].tag : NULL, d->ow.n,
			   sizeof(*d->ow.v), &f, keep, err, sizeof(err)))
		fprintf(stderr, "kmemprof: %s\n", err);
	else if (kp_owner_sums(&d->ow, keep, &d->sums, &d->nsums))
		fprintf(stderr, "kmemprof: out of memory\n");
	else
		rc = 0;
	free(keep);
	return rc;
}

void kp_owner_data_free(struct kp_owner_data *d)
{
	kp_owners_free(&d->ow);
	free(d->sums);
	memset(d, 0, sizeof(*d));
}

size_t kp_owner_series(const struct kp_opts *o)
{
	return o->owner_series_set ? (size_t)o->owner_series :
	       KP_OWNER_SERIES;
}

#ifdef KP_HAVE_OUTPUTS
int kp_emit(const struct kp_opts *o, struct kp_profile *p, size_t max,
	    const struct kp_owner_data *od)
{
	struct kp_metrics_opts mo = {
		.source = o->source, .max = max, .openmetrics = o->openmetrics,
	};
	struct kp_redactor r;
	int rc = 0;

	if (o->json) {
		rc = kp_out_json(stdout, p);
	} else if (o->csv) {
		rc = kp_out_csv(stdout, p);
	} else if (kp_series(o)) {
		if (od && od->on) {
			mo.owners_on = true;
			mo.owners = od->sums;
			mo.nowners = od->nsums;
			mo.owners_max = kp_owner_series(o);
		}
		kp_redactor_init(&r);
		kp_redact_profile(&r, p);
		kp_redactor_destroy(&r);
		rc = kp_out_metrics(stdout, p, &mo);
	}
	if (rc)
		fprintf(stderr, "kmemprof: writing the output: %s\n",
			strerror(-rc));
	return rc ? 1 : 0;
}

void kp_resolve_auto_busy(struct kp_profile *p)
{
	kp_busy("looking for debug files by build id (--no-resolve: not)");
	kp_resolve_auto(p);
	kp_busy_end();
}

int kp_resolve_opt(const struct kp_opts *o, struct kp_profile *p)
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
int kp_no_outputs(void)
{
	fprintf(stderr, "kmemprof: this build has no machine outputs, plots or resolution\n");
	return 2;
}

int kp_emit(const struct kp_opts *o, struct kp_profile *p, size_t max,
	    const struct kp_owner_data *od)
{
	(void)o;
	(void)p;
	(void)max;
	(void)od;
	return kp_no_outputs();
}

int kp_resolve_opt(const struct kp_opts *o, struct kp_profile *p)
{
	(void)p;
	return o->do_resolve ? -kp_no_outputs() : 0;
}
#endif

void kp_sleep(double secs)
{
	struct timespec ts = {
		.tv_sec = (time_t)secs,
		.tv_nsec = (long)((secs - floor(secs)) * 1e9),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}
