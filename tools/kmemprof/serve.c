// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof serve: a scrape target for Prometheus and for pprof scrapers
 * (go tool pprof, Parca, Pyroscope), over HTTP(S) through libmicrohttpd.
 *
 *   GET /metrics             the Prometheus text format 0.0.4, or
 *                            OpenMetrics 1.0 when Accept asks for it
 *   GET /debug/pprof/heap    gzipped pprof, inuse_space the default type
 *   GET /debug/pprof/allocs  the same, alloc_space the default type;
 *                            ?seconds=N (1 to MAX_SECONDS): the
 *                            allocations of the next N s, MAX_DELTAS such
 *                            requests at once (503 beyond)
 *
 * Any other path is 404, any other method 405; any request without
 * credentials 401, whatever its path. On the live /proc/kmemprof,
 * /metrics has the whole-RAM account too (meminfo.c), from /proc/meminfo
 * and /proc/zoneinfo, which anyone may read: they are opened per request,
 * after the drop (the rule below is for the files only root may read).
 *
 * Security. What serve hands out is what /proc/kmemprof (0400) holds:
 * per-site live counts, which help to groom the heap. So:
 *
 * - Every request needs credentials: basic auth against the web
 *   configuration's basic_auth_users (webauth.c), else the token of the
 *   token file (root's, 0600), as a bearer token or a basic auth
 *   password. Without TLS (tls_server_config) it listens on loopback
 *   only: credentials never cross a network in clear.
 * - Order at start: read the web configuration, its certificate and key
 *   and the token; bind and listen; open the profile and the stacks view;
 *   drop to --user (nobody by default) for good: no supplementary groups,
 *   no capabilities, setuid(0) checked to fail, no_new_privs, not
 *   dumpable; only then start libmicrohttpd, on the socket bound before,
 *   so that no thread ever runs as root and no request is answered
 *   before the drop. Each request reads the descriptors opened before
 *   the drop again from offset 0 (a seq_file such as /proc/kmemprof
 *   builds its text anew then). It never writes a knob.
 * - A site the kernel could not name is printed as its address ("0x"
 *   and 16 hex digits; sprint_symbol() and %pS ignore kptr_restrict):
 *   every such word is replaced, in sites, functions, callers and stack
 *   frames, by "unknown#N", N the order in which serve first met that
 *   address (stable while it runs, up to KP_REDACT_MAX, "unknown" past
 *   that), before any output is made. Errors name no path or value to
 *   the client (the log has them).
 * - libmicrohttpd bounds the rest: the request's size (headers
 *   included) to REQ_MEMORY, the connections to MAX_CONN (MAX_PER_IP
 *   from one address), and an idle connection's life to IDLE_SECS.
 *
 * Owners: with the owners view (debugfs's, opened with the stacks view,
 * or --owners FILE), /metrics has the owner series (--owner-series, the
 * rest in owner="other") and pprof an owner label a site's share; they
 * name processes and cgroups, as the root-only view does.
 *
 * Locking: @lock serialises the reads of the three descriptors (their file
 * offset is shared); parsing and rendering work on each request's own
 * copy of the text, in the connection's thread. @state_lock guards
 * @deltas and @stopping (with @wake, which ends a delta's wait at
 * SIGTERM); the redactor has its own lock (redact.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "webauth.h"

static int make_token(const struct kp_opts *o)
{
	char path[512], err[600];

	if (o->token_file)
		snprintf(path, sizeof(path), "%s", o->token_file);
	else
		kp_path(KP_TOKEN_FILE, path, sizeof(path));
	if (kp_token_make(path, err, sizeof(err))) {
		fprintf(stderr, "kmemprof: serve --make-token: %s\n", err);
		return 1;
	}
	fprintf(stderr, "kmemprof serve: a new token in %s (mode 0600)\n",
		path);
	return 0;
}

#ifndef KP_HAVE_SERVE

static int run(struct kp_opts *o)
{
	if (o->make_token)
		return make_token(o);
	fprintf(stderr, "kmemprof: this build has no serve (built without libmicrohttpd)\n");
	return 2;
}

#else

#include <ctype.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

#include "meminfo.h"
#include "output.h"
#include "redact.h"

#define DEFAULT_LISTEN "127.0.0.1:9465"
#define REQ_MEMORY (32 * 1024)	/* a request's headers and buffers */
#define MAX_CONN 32
#define MAX_PER_IP 16
#define IDLE_SECS 10
#define MAX_SECONDS 60		/* ?seconds= on allocs */
#define MAX_DELTAS 2		/* ?seconds= requests at once */
#define STOP_MS 1000		/* at SIGTERM, for the answers under way */
#define REALM "kmemprof"

#define CT_PROM "text/plain; version=0.0.4; charset=utf-8"
#define CT_OM "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define CT_TEXT "text/plain; charset=utf-8"

struct serve {
	const struct kp_opts *o;
	int prof_fd, stacks_fd;	/* stacks_fd -1: no stacks view */
	int owners_fd;		/* -1: no owners view */
	char prof[512], stacks[512], owners[512];
	size_t max;		/* sites with series */
	pthread_mutex_t lock;	/* the reads of the three descriptors */
	/* Credentials: @web's users if it has any, else @token. */
	struct kp_web *web;	/* its cache and bcrypt slots change */
	const char *token;
	size_t token_len;
	pthread_mutex_t state_lock;
	pthread_cond_t wake;
	int deltas;		/* ?seconds= requests under way */
	bool stopping;
	struct kp_redactor red;	/* the unnamed addresses (redact.c) */
};

/* The whole text behind @fd, read again from offset 0. */
static char *reread(struct serve *sv, int fd, size_t *size)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t got = 0;

	if (!buf)
		return NULL;
	pthread_mutex_lock(&sv->lock);
	if (lseek(fd, 0, SEEK_SET) < 0)
		got = -1;
	while (got >= 0) {
		if (n == cap) {
			nb = realloc(buf, 2 * cap + 1);
			if (!nb) {
				got = -1;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		got = read(fd, buf + n, cap - n);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	pthread_mutex_unlock(&sv->lock);
	if (got < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*size = n;
	return buf;
}

/* Parse the text behind @fd with @parse; @err says why not. */
static int load_fd(struct serve *sv, int fd, const char *name,
		   int (*parse)(FILE *, const char *, void *, char *, size_t),
		   void *out, char *err, size_t errlen)
{
	size_t n = 0;
	char *text = reread(sv, fd, &n);
	FILE *f;
	int rc;

	if (!text) {
		snprintf(err, errlen, "reading %s: %s", name, strerror(errno));
		return -1;
	}
	f = fmemopen(text, n ? n : 1, "r");
	if (!f) {
		free(text);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!n)
		fgetc(f);
	rc = parse(f, name, out, err, errlen);
	fclose(f);
	free(text);
	return rc;
}

static int parse_profile(FILE *f, const char *name, void *p, char *err,
			 size_t errlen)
{
	return kp_parse(f, name, p, err, errlen);
}

static int parse_stacks(FILE *f, const char *name, void *s, char *err,
			size_t errlen)
{
	return kp_parse_stacks(f, name, s, err, errlen);
}

static int parse_owners(FILE *f, const char *name, void *o, char *err,
			size_t errlen)
{
	return kp_parse_owners(f, name, o, err, errlen);
}

/* The profile now, with no address in it. */
static int load_profile(struct serve *sv, struct kp_profile *p, char *err,
			size_t errlen)
{
	if (load_fd(sv, sv->prof_fd, sv->prof, parse_profile, p, err,
		    errlen))
		return -1;
	kp_redact_profile(&sv->red, p);
	return 0;
}

static int load_stacks(struct serve *sv, struct kp_stacks *st, char *err,
		       size_t errlen)
{
	if (load_fd(sv, sv->stacks_fd, sv->stacks, parse_stacks, st, err,
		    errlen))
		return -1;
	kp_redact_stacks(&sv->red, st);
	return 0;
}

/*
 * The owners view now, summed per owner, with no address in its tags;
 * nothing (@d->on false) without the view, or if it does not read
 * (serve's log says why: the rest of the answer stands).
 */
static void load_owners(struct serve *sv, struct kp_owner_data *d)
{
	char err[600];

	memset(d, 0, sizeof(*d));
	if (sv->owners_fd < 0)
		return;
	if (load_fd(sv, sv->owners_fd, sv->owners, parse_owners, &d->ow, err,
		    sizeof(err))) {
		fprintf(stderr, "kmemprof serve: no owners: %s\n", err);
		return;
	}
	kp_redact_owners(&sv->red, &d->ow);
	if (!d->ow.off && !kp_owner_data_sum(sv->o, d))
		d->on = true;
}

static struct MHD_Response *response(void *buf, size_t len,
				     const char *type)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(buf);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (!strcmp(type, "application/octet-stream"))
		MHD_add_response_header(r, "Content-Disposition",
					"attachment; filename=\"profile\"");
	return r;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     void *buf, size_t len, const char *type)
{
	struct MHD_Response *r = response(buf, len, type);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned int status,
			    const char *msg)
{
	char *buf = strdup(msg);

	if (!buf)
		return MHD_NO;
	return reply(c, status, buf, strlen(buf), CT_TEXT);
}

/* @err to the log only: it may name a path or quote the profile. */
static enum MHD_Result failed(struct MHD_Connection *c, const char *err)
{
	fprintf(stderr, "kmemprof serve: %s\n", err);
	return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
		    "kmemprof: cannot read the profile (serve's log says why)\n");
}

/*
 * Credentials: the token or a user's, as the configuration asks;
 * KP_AUTH_BUSY when the bcrypt slots stayed taken (webauth.c).
 */
static enum kp_auth authorized(struct serve *sv, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_AUTHORIZATION);
	char *user, *pass = NULL;
	enum kp_auth ok = KP_AUTH_BAD;

	if (!h)
		return KP_AUTH_BAD;
	if (!sv->web && !strncasecmp(h, "Bearer ", 7)) {
		for (h += 7; *h == ' '; h++)
			;
		return kp_ct_equal(h, strlen(h), sv->token, sv->token_len) ?
			KP_AUTH_OK : KP_AUTH_BAD;
	}
	user = MHD_basic_auth_get_username_password(c, &pass);
	if (user && pass)
		ok = sv->web ? kp_web_check(sv->web, user, pass) :
			kp_ct_equal(pass, strlen(pass), sv->token,
				    sv->token_len) ? KP_AUTH_OK : KP_AUTH_BAD;
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return ok;
}

static enum MHD_Result unauthorized(struct MHD_Connection *c)
{
	static const char msg[] = "kmemprof: credentials needed (basic auth, or the token as a bearer token)\n";
	char *buf = strdup(msg);
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = buf ? response(buf, strlen(buf), CT_TEXT) : NULL;
	if (!r)
		return MHD_NO;
	ret = MHD_queue_basic_auth_fail_response(c, REALM, r);
	MHD_destroy_response(r);
	return ret;
}

/* The whole-RAM account of the live @p; -1 (said once) if none. */
static int meminfo_account(const struct kp_profile *p, struct kp_account *a)
{
	static bool said;
	struct kp_meminfo m;
	struct kp_zoneinfo z;
	char err[600];

	if (p->source != KP_KMEMPROF)
		return -1;	/* allocinfo: no page lines to count */
	if (!kp_read_meminfo(&m, &z, err, sizeof(err)) &&
	    !kp_account(p, &m, &z, 0, a, err, sizeof(err)))
		return 0;
	/* connections have threads of their own */
	if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		fprintf(stderr, "kmemprof serve: no whole-RAM account: %s\n",
			err);
	return -1;
}

static enum MHD_Result metrics(struct serve *sv, struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						MHD_HTTP_HEADER_ACCEPT);
	struct kp_metrics_opts mo = { .source = sv->o->source, .max = sv->max };
	struct kp_owner_data od;
	struct kp_account account;
	struct kp_profile p;
	char err[600], *buf = NULL;
	size_t len = 0;
	FILE *out;
	int rc;

	mo.openmetrics = accept && strstr(accept, "application/openmetrics-text");
	if (load_profile(sv, &p, err, sizeof(err)))
		return failed(c, err);
	kp_sort(&p, KP_BYTES);	/* the guard keeps the largest */
	if (!sv->o->input && !meminfo_account(&p, &account))
		mo.account = &account;
	load_owners(sv, &od);
	if (od.on) {
		mo.owners_on = true;
		mo.owners = od.sums;
		mo.nowners = od.nsums;
		mo.owners_max = kp_owner_series(sv->o);
	}
	out = open_memstream(&buf, &len);
	rc = out ? kp_out_metrics(out, &p, &mo) : -ENOMEM;
	if (out && fclose(out) && !rc)
		rc = -ENOMEM;
	kp_owner_data_free(&od);
	kp_free(&p);
	if (rc) {
		free(buf);
		snprintf(err, sizeof(err), "/metrics: %s", strerror(-rc));
		return failed(c, err);
	}
	return reply(c, MHD_HTTP_OK, buf, len, mo.openmetrics ? CT_OM : CT_PROM);
}

/* The allocations between @a and @b as a profile; live values are @b's. */
static int delta(const struct kp_profile *a, const struct kp_profile *b,
		 struct kp_profile *g, struct kp_diff *d)
{
	size_t i;

	if (kp_diff(a, b, d))
		return -1;
	*g = (struct kp_profile){ .source = b->source, .time = b->time };
	snprintf(g->version, sizeof(g->version), "%s", b->version);
	g->sites = calloc(d->n + 1, sizeof(*g->sites));
	if (!g->sites) {
		kp_diff_free(d);
		return -1;
	}
	for (i = 0; i < d->n; i++) {
		if (!d->v[i].b)
			continue;	/* gone: nothing allocated there now */
		g->sites[g->n] = *d->v[i].b;
		g->sites[g->n].allocs = d->v[i].allocs;
		g->sites[g->n].total = d->v[i].total;
		g->n++;
	}
	return 0;
}

#define STR_(x) #x
#define STR(x) STR_(x)

/*
 * A slot for a delta request: NULL, or why not (MAX_DELTAS under way,
 * or serve stopping: the same answer as for a delta it ends).
 */
static const char *delta_begin(struct serve *sv)
{
	const char *why = NULL;

	pthread_mutex_lock(&sv->state_lock);
	if (sv->stopping)
		why = "kmemprof: serve is stopping\n";
	else if (sv->deltas >= MAX_DELTAS)
		why = "kmemprof: " STR(MAX_DELTAS) " delta profiles (?seconds=) are under way already; try again later\n";
	else
		sv->deltas++;
	pthread_mutex_unlock(&sv->state_lock);
	return why;
}

static bool is_stopping(struct serve *sv)
{
	bool stopping;

	pthread_mutex_lock(&sv->state_lock);
	stopping = sv->stopping;
	pthread_mutex_unlock(&sv->state_lock);
	return stopping;
}

static void delta_end(struct serve *sv)
{
	pthread_mutex_lock(&sv->state_lock);
	sv->deltas--;
	pthread_mutex_unlock(&sv->state_lock);
}

/* Wait @seconds, or less if serve stops: false then. */
static bool delta_wait(struct serve *sv, long seconds)
{
	struct timespec end;
	bool stopped;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	pthread_mutex_lock(&sv->state_lock);
	while (!sv->stopping &&
	       pthread_cond_timedwait(&sv->wake, &sv->state_lock, &end) !=
	       ETIMEDOUT)
		;
	stopped = sv->stopping;
	pthread_mutex_unlock(&sv->state_lock);
	return !stopped;
}

static enum MHD_Result busy(struct MHD_Connection *c, const char *msg)
{
	char *buf = strdup(msg);
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = buf ? response(buf, strlen(buf), CT_TEXT) : NULL;
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "10");
	ret = MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result pprof(struct serve *sv, struct MHD_Connection *c,
			     bool allocs)
{
	const char *secs = MHD_lookup_connection_value(c,
						MHD_GET_ARGUMENT_KIND, "seconds");
	struct kp_owner_data od = { .on = false };
	struct kp_profile a, b, g;
	struct kp_stacks st;
	struct kp_diff d;
	bool have_st = false, stopped;
	char err[600], *end;
	long seconds = 0;
	void *buf;
	size_t len;
	int rc;

	if (secs) {
		errno = 0;
		seconds = strtol(secs, &end, 10);
		if (!allocs || errno || *end || end == secs || seconds < 1 ||
		    seconds > MAX_SECONDS)
			return text(c, MHD_HTTP_BAD_REQUEST, allocs ?
				    "kmemprof: seconds: expected 1 to " STR(MAX_SECONDS) "\n" :
				    "kmemprof: seconds is for /debug/pprof/allocs\n");
		const char *why = delta_begin(sv);

		if (why)
			return busy(c, why);
	}
	if (load_profile(sv, &b, err, sizeof(err))) {
		if (seconds)
			delta_end(sv);
		return failed(c, err);
	}
	if (seconds) {
		a = b;
		stopped = !delta_wait(sv, seconds);
		delta_end(sv);
		if (stopped) {
			kp_free(&a);
			return busy(c, "kmemprof: serve is stopping\n");
		}
		if (load_profile(sv, &b, err, sizeof(err))) {
			kp_free(&a);
			return failed(c, err);
		}
	}
	/* Stacks only for the state now: a delta is per site. */
	if (sv->stacks_fd >= 0 && !seconds &&
	    !load_stacks(sv, &st, err, sizeof(err)))
		have_st = true;
	if (seconds && delta(&a, &b, &g, &d)) {
		kp_free(&a);
		kp_free(&b);
		return failed(c, "out of memory");
	}
	/* Owners, as stacks, for the state now. */
	if (!seconds)
		load_owners(sv, &od);
	rc = kp_pprof_gz(seconds ? &g : &b, have_st ? &st : NULL,
			 od.on ? &od.ow : NULL,
			 allocs ? "alloc_space" : "inuse_space", &buf, &len,
			 err, sizeof(err));
	kp_owner_data_free(&od);
	if (seconds) {
		free(g.sites);
		kp_diff_free(&d);
		kp_free(&a);
	}
	if (have_st)
		kp_stacks_free(&st);
	kp_free(&b);
	if (rc)
		return failed(c, err);
	return reply(c, MHD_HTTP_OK, buf, len, "application/octet-stream");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	static int started, body;
	struct serve *sv = cls;
	enum kp_auth auth;

	(void)version;
	(void)upload;
	if (!*con_cls) {
		/* The headers are in: refuse now, before any body, or answer
		 * on the next call.
		 */
		auth = authorized(sv, c);
		if (auth == KP_AUTH_BUSY)
			return busy(c, "kmemprof: too many credential checks under way; try again\n");
		if (auth != KP_AUTH_OK)
			return unauthorized(c);
		if (strcmp(method, MHD_HTTP_METHOD_GET) &&
		    strcmp(method, MHD_HTTP_METHOD_HEAD))
			return text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "kmemprof: GET only\n");
		/* A body announced: refused before it is read. */
		if (MHD_lookup_connection_value(c, MHD_HEADER_KIND,
				MHD_HTTP_HEADER_CONTENT_LENGTH) ||
		    MHD_lookup_connection_value(c, MHD_HEADER_KIND,
				MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
			const char *cl = MHD_lookup_connection_value(c,
				MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

			if (!cl || strcmp(cl, "0"))
				return text(c, MHD_HTTP_BAD_REQUEST,
					    "kmemprof: a GET has no body\n");
		}
		*con_cls = &started;
		return MHD_YES;
	}
	if (*upload_size) {
		/* Read and dropped; the answer once it is all in. */
		*upload_size = 0;
		*con_cls = &body;
		return MHD_YES;
	}
	if (*con_cls == &body)
		return text(c, MHD_HTTP_BAD_REQUEST,
			    "kmemprof: a GET has no body\n");
	/*
	 * A request read after SIGTERM, on a connection taken before it:
	 * answered as the deltas under way are, whichever came first.
	 */
	if (is_stopping(sv))
		return busy(c, "kmemprof: serve is stopping\n");
	if (!strcmp(url, "/metrics"))
		return metrics(sv, c);
	if (!strcmp(url, "/debug/pprof/heap"))
		return pprof(sv, c, false);
	if (!strcmp(url, "/debug/pprof/allocs"))
		return pprof(sv, c, true);
	return text(c, MHD_HTTP_NOT_FOUND, "kmemprof: not found; try /metrics, /debug/pprof/heap or /debug/pprof/allocs\n");
}

/* "ADDR:PORT", "[ADDR6]:PORT" or ":PORT" (all addresses). */
static int listen_addr(const char *spec, struct sockaddr_storage *ss,
		       socklen_t *len)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
				  AI_PASSIVE, .ai_socktype = SOCK_STREAM };
	char host[128];
	const char *colon = strrchr(spec, ':');
	struct addrinfo *ai;
	size_t hl;

	if (!colon || !colon[1])
		return -1;
	hl = (size_t)(colon - spec);
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, spec, hl);
	host[hl] = '\0';
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		memmove(host, host + 1, hl - 2);
		host[hl - 2] = '\0';
	}
	/* localhost is loopback, without asking a resolver. */
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	if (getaddrinfo(*host ? host : NULL, colon + 1, &hints, &ai))
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static bool loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const void *)ss;
	const struct sockaddr_in *s4 = (const void *)ss;
	const uint8_t *b = s6->sin6_addr.s6_addr;

	if (ss->ss_family == AF_INET)
		return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
	       (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) && b[12] == 127);
}

/* A socket bound to @ss and listening, its port in @port; -1 if not. */
static int bind_listen(const struct sockaddr_storage *ss, socklen_t len,
		       unsigned int *port)
{
	struct sockaddr_storage got;
	socklen_t gl = sizeof(got);
	int fd, one = 1;

	/* Non-blocking: a connection gone before accept() blocks nothing. */
	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	/* [::]: IPv6 only, as libmicrohttpd's own socket was. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ss->ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (const struct sockaddr *)ss, len) ||
	    listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&got, &gl)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	*port = ntohs(got.ss_family == AF_INET6 ?
		      ((struct sockaddr_in6 *)&got)->sin6_port :
		      ((struct sockaddr_in *)&got)->sin_port);
	return fd;
}

/* No capability left, effective or permitted. */
static bool no_caps(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return false;
	return !d[0].effective && !d[0].permitted && !d[1].effective &&
	       !d[1].permitted;
}

/*
 * Become @user (nobody by default) for good, if root: no supplementary
 * groups, no capabilities, no way back (checked). Before any thread.
 */
static int drop(const char *user)
{
	const char *name = user ? user : "nobody";
	uid_t r, e, s;
	gid_t rg, eg, sg;
	struct passwd *pw;

	if (geteuid()) {
		if (user) {
			fprintf(stderr, "kmemprof: serve --user %s: only root can change users\n",
				user);
			return -1;
		}
		return 0;
	}
	pw = getpwnam(name);
	if (!pw) {
		fprintf(stderr, "kmemprof: serve: no user '%s'\n", name);
		return -1;
	}
	if (!pw->pw_uid || !pw->pw_gid) {
		fprintf(stderr, "kmemprof: serve --user %s: that is root's uid or gid; serve does not answer as root\n",
			name);
		return -1;
	}
	if (setgroups(0, NULL) || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid)) {
		fprintf(stderr, "kmemprof: serve: cannot become %s: %s\n", name,
			strerror(errno));
		return -1;
	}
	if (getresuid(&r, &e, &s) || getresgid(&rg, &eg, &sg) || !r || !e ||
	    !s || !rg || !eg || !sg || !setuid(0) || !setgid(0) ||
	    !setgroups(0, NULL) || !no_caps()) {
		fprintf(stderr, "kmemprof: serve: still privileged after becoming %s\n",
			name);
		return -1;
	}
	return 0;
}

/*
 * No new connection; the deltas under way end (503) and their answers go
 * out, for up to STOP_MS; then the rest is cut.
 */
static void stop(struct serve *sv, struct MHD_Daemon *d)
{
	const union MHD_DaemonInfo *info;
	struct timespec ts = { .tv_nsec = 50 * 1000 * 1000 };
	MHD_socket ls;
	int i;

	if (d) {
		ls = MHD_quiesce_daemon(d);
		if (ls != MHD_INVALID_SOCKET)
			close(ls);
	}
	pthread_mutex_lock(&sv->state_lock);
	sv->stopping = true;
	pthread_cond_broadcast(&sv->wake);
	pthread_mutex_unlock(&sv->state_lock);
	if (!d)
		return;
	for (i = 0; i < STOP_MS / 50; i++) {
		pthread_mutex_lock(&sv->state_lock);
		info = sv->deltas ? NULL :
			MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		pthread_mutex_unlock(&sv->state_lock);
		if (info && !info->num_connections)
			break;
		nanosleep(&ts, NULL);
	}
	MHD_stop_daemon(d);
}

/* libmicrohttpd on the bound socket @lfd, with @itc or not. */
static struct MHD_Daemon *start_daemon(struct serve *sv,
				       const struct kp_web *web,
				       struct MHD_OptionItem *tls, int lfd,
				       unsigned int itc)
{
	return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL |
				MHD_USE_ERROR_LOG | itc |
				(web->cert ? MHD_USE_TLS : 0),
				0, NULL, NULL, handle, sv,
				MHD_OPTION_LISTEN_SOCKET, (MHD_socket)lfd,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				(size_t)REQ_MEMORY,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONN,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				(unsigned int)MAX_PER_IP,
				MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)IDLE_SECS,
				MHD_OPTION_ARRAY, web->cert ? tls : tls + 3,
				MHD_OPTION_END);
}

/* The credentials serve asks for: @w's users, else the token. */
static int credentials(const struct kp_opts *o, struct kp_web *w,
		       char **token, char *what, size_t wlen)
{
	char path[512], err[700];
	int rc;

	if (o->web_config) {
		rc = kp_web_load(o->web_config, w, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "kmemprof: serve --web.config.file: %s\n",
				err);
			return rc == -2 ? 2 : 1;
		}
		if (w->nusers) {
			snprintf(what, wlen, "basic auth (%zu user%s of %s)",
				 w->nusers, w->nusers == 1 ? "" : "s",
				 o->web_config);
			return 0;
		}
	}
	if (o->token_file)
		snprintf(path, sizeof(path), "%s", o->token_file);
	else
		kp_path(KP_TOKEN_FILE, path, sizeof(path));
	if (kp_token_load(path, token, err, sizeof(err))) {
		fprintf(stderr, "kmemprof: serve: %s\n", err);
		return 1;
	}
	snprintf(what, wlen, "the token in %s (bearer, or basic auth password)",
		 path);
	return 0;
}

static int run(struct kp_opts *o)
{
	struct serve sv = { .o = o, .prof_fd = -1, .stacks_fd = -1,
			    .owners_fd = -1 };
	const char *spec = o->listen ? o->listen : DEFAULT_LISTEN;
	struct sockaddr_storage ss;
	struct kp_web web = { 0 };
	struct MHD_Daemon *d = NULL;
	char *token = NULL, what[700];
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, NULL },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, NULL },
		{ MHD_OPTION_HTTPS_PRIORITIES, 0, web.priorities },
		{ MHD_OPTION_END, 0, NULL },
	};
	pthread_condattr_t ca;
	unsigned int port = 0;
	int sig, lfd = -1, efd, rc;
	socklen_t sslen;
	sigset_t sigs;

	if (o->make_token)
		return make_token(o);
	pthread_mutex_init(&sv.lock, NULL);
	pthread_mutex_init(&sv.state_lock, NULL);
	kp_redactor_init(&sv.red);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sv.wake, &ca);
	pthread_condattr_destroy(&ca);
	rc = 2;
	if (listen_addr(spec, &ss, &sslen)) {
		fprintf(stderr, "kmemprof: serve --listen %s: expected ADDR:PORT, e.g. 127.0.0.1:9465 or [::1]:9465\n",
			spec);
		goto out;
	}
	/* The credentials and the TLS key, while we may be root. */
	rc = credentials(o, &web, &token, what, sizeof(what));
	if (rc)
		goto out;
	rc = 2;
	if (!web.cert && !loopback(&ss)) {
		fprintf(stderr, "kmemprof: serve --listen %s: beyond loopback only with TLS (--web.config.file with tls_server_config): credentials never cross a network in clear\n",
			spec);
		goto out;
	}
	if (web.cert && !MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		fprintf(stderr, "kmemprof: serve: this libmicrohttpd has no TLS (tls_server_config)\n");
		goto out;
	}
	rc = 1;
	sv.web = web.nusers ? &web : NULL;
	sv.token = token;
	sv.token_len = token ? strlen(token) : 0;
	sv.max = o->n_set ? (size_t)o->n : KP_SERIES_GUARD;
	tls[0].ptr_value = web.cert;
	tls[1].ptr_value = web.key;
	/* Bind now: a port below 1024 needs root. */
	lfd = bind_listen(&ss, sslen, &port);
	if (lfd < 0) {
		fprintf(stderr, "kmemprof: serve: cannot listen on %s: %s\n",
			spec, strerror(errno));
		goto out;
	}
	/* The files, opened now, while we may be root. */
	if (o->input)
		snprintf(sv.prof, sizeof(sv.prof), "%s", o->input);
	else
		kp_live_path(sv.prof, sizeof(sv.prof));
	sv.prof_fd = open(sv.prof, O_RDONLY | O_CLOEXEC);
	if (sv.prof_fd < 0) {
		fprintf(stderr, "kmemprof: serve: cannot open %s: %s\n", sv.prof,
			strerror(errno));
		goto out;
	}
	if (o->stacks)
		snprintf(sv.stacks, sizeof(sv.stacks), "%s", o->stacks);
	else
		kp_path(DEBUGFS "/stacks", sv.stacks, sizeof(sv.stacks));
	if (!o->input || o->stacks) {
		sv.stacks_fd = open(sv.stacks, O_RDONLY | O_CLOEXEC);
		if (sv.stacks_fd < 0 && o->stacks) {
			fprintf(stderr, "kmemprof: serve: cannot open %s: %s\n",
				sv.stacks, strerror(errno));
			goto out;
		}
	}
	/* The owners view: --owners FILE, else debugfs's when live. */
	if (o->owners)
		snprintf(sv.owners, sizeof(sv.owners), "%s", o->owners);
	else
		kp_path(DEBUGFS "/owners", sv.owners, sizeof(sv.owners));
	if (!o->input || o->owners) {
		sv.owners_fd = open(sv.owners, O_RDONLY | O_CLOEXEC);
		if (sv.owners_fd < 0 && o->owners) {
			fprintf(stderr, "kmemprof: serve: cannot open %s: %s\n",
				sv.owners, strerror(errno));
			goto out;
		}
	}
	/* Root no more, and still one thread. */
	if (drop(o->user) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		goto out;
	/* The threads inherit this mask: only sigwait() below sees them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	/*
	 * MHD_USE_ITC lets stop() quiesce the daemon; libmicrohttpd makes it
	 * an eventfd, which a kernel without EVENTFD (an EXPERT config, as
	 * the 5.10 guest's) does not have, and libmicrohttpd then fails:
	 * serve runs without it there, and stop() cuts what is under way
	 * after STOP_MS.
	 */
	efd = eventfd(0, EFD_CLOEXEC);
	if (efd >= 0)
		close(efd);
	d = start_daemon(&sv, &web, tls, lfd, efd >= 0 ? MHD_USE_ITC : 0);
	if (!d) {
		fprintf(stderr, "kmemprof: serve: cannot start on %s%s\n", spec,
			web.cert ? " (do cert_file and key_file make a pair?)" : "");
		goto out;
	}
	lfd = -1;		/* libmicrohttpd's now */
	fprintf(stderr, "kmemprof serve: listening on %.*s:%u, reading %s%s%s, as uid %u\n",
		(int)(strrchr(spec, ':') - spec), spec, port, sv.prof,
		sv.stacks_fd >= 0 ? " and " : "",
		sv.stacks_fd >= 0 ? sv.stacks : "", (unsigned int)getuid());
	fprintf(stderr, "kmemprof serve: %s, clients need %s\n",
		web.cert ? "HTTPS" : "HTTP on loopback", what);
	while (sigwait(&sigs, &sig) || sig == SIGHUP)
		;
	rc = 0;
out:
	stop(&sv, d);
	if (lfd >= 0)
		close(lfd);
	if (sv.owners_fd >= 0)
		close(sv.owners_fd);
	if (sv.stacks_fd >= 0)
		close(sv.stacks_fd);
	if (sv.prof_fd >= 0)
		close(sv.prof_fd);
	if (token) {
		explicit_bzero(token, strlen(token));
		free(token);
	}
	kp_web_free(&web);
	pthread_cond_destroy(&sv.wake);
	kp_redactor_destroy(&sv.red);
	pthread_mutex_destroy(&sv.state_lock);
	pthread_mutex_destroy(&sv.lock);
	return rc;
}

#endif /* KP_HAVE_SERVE */

static int set_listen(struct kp_opts *o, const char *arg)
{
	o->listen = arg;
	return 0;
}

static int set_user(struct kp_opts *o, const char *arg)
{
	o->user = arg;
	return 0;
}

static int set_web_config(struct kp_opts *o, const char *arg)
{
	o->web_config = arg;
	return 0;
}

static int set_token_file(struct kp_opts *o, const char *arg)
{
	o->token_file = arg;
	return 0;
}

static int set_make_token(struct kp_opts *o, const char *arg)
{
	(void)arg;
	o->make_token = true;
	return 0;
}

static const struct kp_option opt_web_config = {
	"web.config.file", 1, 0, "FILE",
	"TLS and basic auth, in the YAML Prometheus exporters share "
	"(tls_server_config, basic_auth_users)", set_web_config,
};

static const struct kp_option opt_token_file = {
	"token-file", 1, 0, "FILE",
	"without basic_auth_users, the token clients must present (default "
	KP_TOKEN_FILE ", 0600)", set_token_file,
};

static const struct kp_option opt_make_token = {
	"make-token", 0, 0, NULL,
	"write a new random token into the token file, which must not exist, "
	"and exit", set_make_token,
};

static int set_serve_input(struct kp_opts *o, const char *arg)
{
	if (!strcmp(arg, "-")) {
		fprintf(stderr, "kmemprof serve: -i -: serve reads its input again on each request; give a file\n");
		return 2;
	}
	o->input = arg;
	return 0;
}

static int set_serve_lines(struct kp_opts *o, const char *arg)
{
	if (kp_arg_count("-n", arg, &o->n))
		return 2;
	o->n_set = true;
	return 0;
}

static int set_serve_stacks(struct kp_opts *o, const char *arg)
{
	o->stacks = arg;
	return 0;
}

static const struct kp_option opt_serve_input = {
	"input", 1, 'i', "FILE",
	"serve FILE (a snapshot, or /proc/allocinfo), read again on each "
	"request, instead of /proc/kmemprof", set_serve_input,
};

static const struct kp_option opt_serve_lines = {
	"lines", 1, 'n', "N",
	"series for the first N sites on /metrics (default 1000; 0: all)",
	set_serve_lines,
};

static const struct kp_option opt_serve_stacks = {
	"stacks", 1, 0, "FILE",
	"the stacks view for /debug/pprof (default: debugfs's, when live)",
	set_serve_stacks,
};

static const struct kp_option opt_listen = {
	"listen", 1, 0, "ADDR:PORT",
	"where to listen: ADDR is an IPv4 or [IPv6] address or localhost "
	"(default 127.0.0.1:9465; beyond loopback only with TLS)",
	set_listen,
};

static const struct kp_option opt_user = {
	"user", 1, 0, "NAME",
	"run as NAME once the files are open (default, as root: nobody)",
	set_user,
};

const struct kp_cmd kp_cmd_serve = {
	.name = "serve", .args = "",
	.what = "a Prometheus and pprof scrape target over HTTP(S), for clients with credentials",
	.opts = (const struct kp_option *const[]){
		&opt_serve_input, &opt_serve_lines, &kp_opt_source,
		&opt_serve_stacks, &kp_opt_owners, &kp_opt_owner_series,
		&opt_listen, &opt_user, &opt_web_config, &opt_token_file,
		&opt_make_token, NULL,
	},
	.run = run,
};
