// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof serve: a scrape target for Prometheus and for pprof scrapers
 * (go tool pprof, Parca, Pyroscope), over HTTP through libmicrohttpd.
 *
 *   GET /metrics             the Prometheus text format 0.0.4, or
 *                            OpenMetrics 1.0 when Accept asks for it
 *   GET /debug/pprof/heap    gzipped pprof, inuse_space the default type
 *   GET /debug/pprof/allocs  the same, alloc_space the default type;
 *                            ?seconds=N: the allocations of the next N s
 *
 * Any other path is 404, any other method 405. On the live /proc/kmemprof,
 * /metrics has the whole-RAM account too (meminfo.c), from /proc/meminfo
 * and /proc/zoneinfo, which anyone may read: they are opened per request.
 *
 * Security. It listens on 127.0.0.1 unless --listen says otherwise. It
 * opens the files it reads (the profile and the stacks view) at start,
 * as root if it is run so, then drops to --user (nobody by default) with
 * no supplementary groups and no_new_privs, and reads the same
 * descriptors again on every request, from offset 0 (a seq_file such as
 * /proc/kmemprof builds its text anew then). It never writes a knob.
 * libmicrohttpd bounds the rest: the request's size (headers included)
 * to REQ_MEMORY, the connections to MAX_CONN (MAX_PER_IP from one
 * address), and an idle connection's life to IDLE_SECS.
 *
 * Locking: @lock serialises the reads of the two descriptors (their file
 * offset is shared); parsing and rendering work on each request's own
 * copy of the text, in the connection's thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifndef KP_HAVE_SERVE

static int run(struct kp_opts *o)
{
	(void)o;
	fprintf(stderr, "kmemprof: this build has no serve (built without libmicrohttpd)\n");
	return 2;
}

#else

#include <fcntl.h>
#include <grp.h>
#include <netdb.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

#include "meminfo.h"
#include "output.h"

#define DEFAULT_LISTEN "127.0.0.1:9465"
#define REQ_MEMORY (32 * 1024)	/* a request's headers and buffers */
#define MAX_CONN 32
#define MAX_PER_IP 16
#define IDLE_SECS 10
#define MAX_SECONDS 300		/* ?seconds= on allocs */

#define CT_PROM "text/plain; version=0.0.4; charset=utf-8"
#define CT_OM "application/openmetrics-text; version=1.0.0; charset=utf-8"

struct serve {
	const struct kp_opts *o;
	int prof_fd, stacks_fd;	/* stacks_fd -1: no stacks view */
	char prof[512], stacks[512];
	size_t max;		/* sites with series */
	pthread_mutex_t lock;	/* the reads of prof_fd and stacks_fd */
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

static int load_profile(struct serve *sv, struct kp_profile *p, char *err,
			size_t errlen)
{
	return load_fd(sv, sv->prof_fd, sv->prof, parse_profile, p, err,
		       errlen);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     void *buf, size_t len, const char *type)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (!strcmp(type, "application/octet-stream"))
		MHD_add_response_header(r, "Content-Disposition",
					"attachment; filename=\"profile\"");
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
	return reply(c, status, buf, strlen(buf), "text/plain; charset=utf-8");
}

static enum MHD_Result failed(struct MHD_Connection *c, const char *err)
{
	char msg[600];

	fprintf(stderr, "kmemprof serve: %s\n", err);
	snprintf(msg, sizeof(msg), "kmemprof: %s\n", err);
	return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, msg);
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
	out = open_memstream(&buf, &len);
	rc = out ? kp_out_metrics(out, &p, &mo) : -ENOMEM;
	if (out && fclose(out) && !rc)
		rc = -ENOMEM;
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

static enum MHD_Result pprof(struct serve *sv, struct MHD_Connection *c,
			     bool allocs)
{
	const char *secs = MHD_lookup_connection_value(c,
						MHD_GET_ARGUMENT_KIND, "seconds");
	struct kp_profile a, b, g;
	struct kp_stacks st;
	struct kp_diff d;
	bool have_st = false;
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
				    "kmemprof: seconds: expected 1 to 300\n" :
				    "kmemprof: seconds is for /debug/pprof/allocs\n");
	}
	if (load_profile(sv, &b, err, sizeof(err)))
		return failed(c, err);
	if (seconds) {
		struct timespec ts = { .tv_sec = seconds };

		a = b;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		if (load_profile(sv, &b, err, sizeof(err))) {
			kp_free(&a);
			return failed(c, err);
		}
	}
	/* Stacks only for the state now: a delta is per site. */
	if (sv->stacks_fd >= 0 && !seconds &&
	    !load_fd(sv, sv->stacks_fd, sv->stacks, parse_stacks, &st, err,
		     sizeof(err)))
		have_st = true;
	if (seconds && delta(&a, &b, &g, &d)) {
		kp_free(&a);
		kp_free(&b);
		return failed(c, "out of memory");
	}
	rc = kp_pprof_gz(seconds ? &g : &b, have_st ? &st : NULL,
			 allocs ? "alloc_space" : "inuse_space", &buf, &len,
			 err, sizeof(err));
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
	static int started;
	struct serve *sv = cls;

	(void)version;
	(void)upload;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			    "kmemprof: GET only\n");
	if (!*con_cls) {
		/* The headers are in; answer on the next call. */
		*con_cls = &started;
		return MHD_YES;
	}
	if (*upload_size)
		return text(c, MHD_HTTP_BAD_REQUEST, "kmemprof: no body\n");
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
	if (getaddrinfo(*host ? host : NULL, colon + 1, &hints, &ai))
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* Become @user (nobody by default) for good, if root. */
static int drop(const char *user)
{
	const char *name = user ? user : "nobody";
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
	if (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid) ||
	    !setuid(0)) {
		fprintf(stderr, "kmemprof: serve: cannot become %s: %s\n", name,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int run(struct kp_opts *o)
{
	struct serve sv = { .o = o, .prof_fd = -1, .stacks_fd = -1 };
	const char *spec = o->listen ? o->listen : DEFAULT_LISTEN;
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;
	socklen_t sslen;
	sigset_t sigs;
	int sig, rc = 1;

	if (listen_addr(spec, &ss, &sslen)) {
		fprintf(stderr, "kmemprof: serve --listen %s: expected ADDR:PORT, e.g. 127.0.0.1:9465 or [::1]:9465\n",
			spec);
		return 2;
	}
	sv.max = o->n_set ? (size_t)o->n : KP_SERIES_GUARD;
	pthread_mutex_init(&sv.lock, NULL);
	/* The files, opened now, while we may be root. */
	if (o->input)
		snprintf(sv.prof, sizeof(sv.prof), "%s", o->input);
	else
		kp_live_path(sv.prof, sizeof(sv.prof));
	sv.prof_fd = open(sv.prof, O_RDONLY | O_CLOEXEC);
	if (sv.prof_fd < 0) {
		fprintf(stderr, "kmemprof: serve: cannot open %s: %s\n", sv.prof,
			strerror(errno));
		return 1;
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
	/* The threads inherit this mask: only sigwait() below sees them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL |
			     MHD_USE_ERROR_LOG |
			     (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
			     0, NULL, NULL, handle, &sv,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQ_MEMORY,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONN,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT,
			     (unsigned int)MAX_PER_IP,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)IDLE_SECS,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "kmemprof: serve: cannot listen on %s: %s\n",
			spec, strerror(errno));
		goto out;
	}
	if (drop(o->user) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		MHD_stop_daemon(d);
		goto out;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	fprintf(stderr, "kmemprof serve: listening on %.*s:%u, reading %s%s%s, as uid %u\n",
		(int)(strrchr(spec, ':') - spec), spec,
		info ? info->port : 0, sv.prof,
		sv.stacks_fd >= 0 ? " and " : "",
		sv.stacks_fd >= 0 ? sv.stacks : "", (unsigned int)getuid());
	while (sigwait(&sigs, &sig) || sig == SIGHUP)
		;
	MHD_stop_daemon(d);
	rc = 0;
out:
	if (sv.stacks_fd >= 0)
		close(sv.stacks_fd);
	close(sv.prof_fd);
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

static const struct kp_option opt_listen = {
	"listen", 1, 0, "ADDR:PORT", "where to listen (default 127.0.0.1:9465)",
	set_listen,
};

static const struct kp_option opt_user = {
	"user", 1, 0, "NAME",
	"run as NAME once the files are open (default, as root: nobody)",
	set_user,
};

const struct kp_cmd kp_cmd_serve = {
	.name = "serve", .args = "",
	.what = "a Prometheus and pprof scrape target over HTTP",
	.opts = (const struct kp_option *const[]){
		&kp_opt_input, &kp_opt_lines, &kp_opt_source, &kp_opt_stacks,
		&opt_listen, &opt_user, NULL,
	},
	.run = run,
};
