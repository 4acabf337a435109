// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof serve's credentials: the web configuration file and the token.
 *
 * The web configuration file (--web.config.file) is the one Prometheus
 * exporters share (exporter-toolkit's, as node_exporter reads it):
 *
 *   tls_server_config:
 *     cert_file: serve.crt    # PEM, relative to this file's directory
 *     key_file: serve.key
 *     min_version: TLS12      # the default; TLS10 to TLS13
 *     max_version: TLS13
 *   basic_auth_users:
 *     prometheus: $2y$10$...  # bcrypt: htpasswd -nBC 10 "" | tr -d ':\n'
 *
 * parsed with libyaml; the hashes are checked with libcrypt's crypt_rn()
 * ($2y$, $2b$ and $2a$ are one algorithm). A key that exporter-toolkit
 * knows but serve does not do (client certificates, cipher suites,
 * http_server_config) is an error naming its line, as is an unknown key:
 * a file written for another exporter is never half obeyed.
 *
 * The token file (KP_TOKEN_FILE unless --token-file) holds one line that
 * clients present as "Authorization: Bearer <token>", or as the password
 * of basic auth with any user name. It must be the caller's and nobody
 * else's (mode 0600 or less), as ssh wants of a private key.
 *
 * Comparisons of secrets (kp_ct_equal()) take a time that depends only on
 * the secret's length; an unknown user costs one bcrypt computation as a
 * known one does (against @dummy).
 *
 * Costs (webauth.h has the numbers): a hash of a cost above
 * KP_BCRYPT_COST_MAX is refused, naming its line; a user's good password
 * is remembered for a while, so a scraper pays one bcrypt per
 * KP_AUTH_TTL, not one per request; and KP_HASH_MAX computations run at
 * once, the other checks waiting their turn for at most KP_HASH_WAIT_MS
 * (then 503): clients without credentials cannot keep every core busy.
 * A bad password is never remembered: each costs its bcrypt.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "util.h"
#include "webauth.h"

#define TOKEN_MIN 16
#define TOKEN_MAX 1024
#define PEM_MAX (1 << 20)

bool kp_ct_equal(const char *a, size_t alen, const char *b, size_t blen)
{
	/* volatile: no early exit once @d is set */
	volatile unsigned char d = alen != blen;
	size_t i;

	for (i = 0; i < blen; i++)
		d |= (unsigned char)b[i] ^ (unsigned char)(i < alen ? a[i] : 0);
	return !d;
}

int kp_token_load(const char *path, char **token, char *err, size_t errlen)
{
	char buf[TOKEN_MAX + 4];
	struct stat st;
	size_t len, i;
	ssize_t n;
	int fd;

	*token = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open the token file %s: %s%s",
			 path, strerror(errno), errno == ENOENT ?
			 " (kmemprof serve --make-token makes one)" : "");
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "the token file %s is not a regular file",
			 path);
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "the token file %s is uid %u's, not uid %u's (the one serve starts as)",
			 path, (unsigned int)st.st_uid,
			 (unsigned int)geteuid());
		goto fail;
	}
	if (st.st_mode & 077) {
		snprintf(err, errlen, "the token file %s has mode %04o: others could read or change it (chmod 600 %s)",
			 path, (unsigned int)(st.st_mode & 07777), path);
		goto fail;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		snprintf(err, errlen, "reading the token file %s: %s", path,
			 strerror(errno));
		goto fail;
	}
	close(fd);
	len = (size_t)n;
	if (len && buf[len - 1] == '\n')
		len--;
	if (len && buf[len - 1] == '\r')
		len--;
	for (i = 0; i < len; i++)
		if (buf[i] <= ' ' || buf[i] > '~')
			break;
	if (i < len || len < TOKEN_MIN || len > TOKEN_MAX) {
		snprintf(err, errlen, "the token file %s: expected one line of %d to %d printable characters, no spaces",
			 path, TOKEN_MIN, TOKEN_MAX);
		explicit_bzero(buf, sizeof(buf));
		return -1;
	}
	*token = strndup(buf, len);
	explicit_bzero(buf, sizeof(buf));
	if (!*token) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
fail:
	close(fd);
	return -1;
}

int kp_token_make(const char *path, char *err, size_t errlen)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char rnd[32];
	char hex[2 * sizeof(rnd) + 1], dir[4096], *slash;
	struct kp_outfile of;
	char sbuf[256];
	size_t i;
	int fd;

	/* /etc/kmemprof and up: the file's mode keeps it private. */
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "cannot make %s: %s", dir,
				 strerror(errno));
			return -1;
		}
		*slash = '/';
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		snprintf(err, errlen, "getrandom: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(rnd); i++) {
		hex[2 * i] = digits[rnd[i] >> 4];
		hex[2 * i + 1] = digits[rnd[i] & 15];
	}
	hex[2 * sizeof(rnd)] = '\n';
	explicit_bzero(rnd, sizeof(rnd));
	/*
	 * Made beside it, 0600, and linked into place only if nothing is
	 * there (outfile.c): never a half-written token, never an old one
	 * replaced.
	 */
	if (!access(path, F_OK) || errno != ENOENT) {
		snprintf(err, errlen, "%s exists: serve reads it as it is (remove it first for a new token)",
			 path);
		explicit_bzero(hex, sizeof(hex));
		return -1;
	}
	if (kp_outfile_open(&of, path, 0600, err, errlen)) {
		explicit_bzero(hex, sizeof(hex));
		return -1;
	}
	/* stdio's buffer is ours, to be wiped as the token is. */
	setvbuf(of.f, sbuf, _IOFBF, sizeof(sbuf));
	fd = fwrite(hex, 1, sizeof(hex), of.f) == sizeof(hex) ? 0 : -1;
	explicit_bzero(hex, sizeof(hex));
	fd = kp_outfile_close(&of, !fd, false, err, errlen) ? fd ? fd : -2 : 0;
	explicit_bzero(sbuf, sizeof(sbuf));
	if (fd) {
		if (fd == -1)
			snprintf(err, errlen, "writing %s: %s", path,
				 strerror(EIO));
		else if (strstr(err, " exists"))
			snprintf(err, errlen, "%s exists: serve reads it as it is (remove it first for a new token)",
				 path);
		return -1;
	}
	return 0;
}

#ifndef KP_HAVE_WEBCONFIG

int kp_web_load(const char *path, struct kp_web *w, char *err,
		size_t errlen)
{
	(void)path;
	*w = (struct kp_web){ 0 };
	snprintf(err, errlen, "this build has no --web.config.file (built without libyaml or libcrypt)");
	return -2;
}

void kp_web_free(struct kp_web *w)
{
	(void)w;
}

enum kp_auth kp_web_check(struct kp_web *w, const char *user,
			  const char *pass)
{
	(void)w;
	(void)user;
	(void)pass;
	return KP_AUTH_BAD;
}

#else

#include <crypt.h>
#include <yaml.h>

/* The loader: the file, its document, where errors go. */
struct wl {
	const char *path;
	yaml_document_t doc;
	char *err;
	size_t errlen;
};

#define FAIL(l, n, ...) \
	kp_fail((l)->err, (l)->errlen, (l)->path, (n)->start_mark.line + 1, \
		__VA_ARGS__)

static yaml_node_t *node(struct wl *l, int id)
{
	return yaml_document_get_node(&l->doc, id);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ?
		(const char *)n->data.scalar.value : NULL;
}

/* An empty value, "~" or null (a key with nothing after it). */
static bool is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") ||
		!strcmp(s, "Null") || !strcmp(s, "NULL"));
}

/* A mapping's pairs: for (p = first(m); p < end(m); p++). */
#define PAIRS(m, p) \
	for ((p) = (m)->data.mapping.pairs.start; \
	     (p) < (m)->data.mapping.pairs.top; (p)++)

/* A key met before in the same mapping: its node, else NULL. */
static yaml_node_t *seen(struct wl *l, yaml_node_t *m, yaml_node_pair_t *upto,
			 const char *key)
{
	yaml_node_pair_t *p;

	PAIRS(m, p) {
		if (p == upto)
			break;
		if (scalar(node(l, p->key)) &&
		    !strcmp(scalar(node(l, p->key)), key))
			return node(l, p->key);
	}
	return NULL;
}

/* @file (relative to the configuration's directory), whole, if PEM. */
static char *read_pem(struct wl *l, yaml_node_t *n, const char *key,
		      const char *what)
{
	const char *file = scalar(n), *slash = strrchr(l->path, '/');
	char path[4096], *buf;
	struct stat st;
	ssize_t got;
	int fd;

	if (!file || !*file) {
		FAIL(l, n, "tls_server_config: %s: expected a file name", key);
		return NULL;
	}
	if (file[0] != '/' && slash)
		snprintf(path, sizeof(path), "%.*s/%s",
			 (int)(slash - l->path), l->path, file);
	else
		snprintf(path, sizeof(path), "%s", file);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size > PEM_MAX) {
		FAIL(l, n, "tls_server_config: %s: cannot read %s: %s", key,
		     path, fd < 0 ? strerror(errno) : "not a regular file of at most 1 MiB");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	got = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	if (got < 0) {
		FAIL(l, n, "tls_server_config: %s: reading %s: %s", key, path,
		     strerror(buf ? errno : ENOMEM));
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	if (!strstr(buf, "-----BEGIN ") || !strstr(buf, what)) {
		FAIL(l, n, "tls_server_config: %s: %s holds no PEM %s", key,
		     path, what);
		explicit_bzero(buf, (size_t)got);
		free(buf);
		return NULL;
	}
	return buf;
}

/* "TLS10" .. "TLS13": 0 .. 3, else -1. */
static int tls_version(const char *s)
{
	static const char *const v[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	int i;

	for (i = 0; s && i < 4; i++)
		if (!strcmp(s, v[i]))
			return i;
	return -1;
}

static int tls(struct wl *l, yaml_node_t *m, struct kp_web *w)
{
	static const char *const unsupported[] = {
		"cert", "key", "client_ca_file", "client_allowed_sans",
		"cipher_suites", "curve_preferences",
		"prefer_server_cipher_suites",
	};
	yaml_node_t *k, *v, *cert = NULL, *key = NULL, *d;
	int vmin = 2, vmax = 3, *ver, i;
	yaml_node_pair_t *p;
	const char *name;
	size_t u, n;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return FAIL(l, m, "tls_server_config: expected keys (cert_file, key_file, min_version, max_version)");
	PAIRS(m, p) {
		k = node(l, p->key);
		v = node(l, p->value);
		name = scalar(k);
		if (!name)
			return FAIL(l, k, "tls_server_config: expected a key");
		d = seen(l, m, p, name);
		if (d)
			return FAIL(l, k, "tls_server_config: %s given twice (line %zu too)",
				    name, d->start_mark.line + 1);
		for (u = 0; u < sizeof(unsupported) / sizeof(*unsupported); u++)
			if (!strcmp(name, unsupported[u]))
				return FAIL(l, k, "tls_server_config: %s: not supported by kmemprof serve (cert_file, key_file, min_version, max_version)",
					    name);
		if (!strcmp(name, "cert_file")) {
			cert = v;
		} else if (!strcmp(name, "key_file")) {
			key = v;
		} else if (!strcmp(name, "min_version") ||
			   !strcmp(name, "max_version")) {
			ver = name[1] == 'i' ? &vmin : &vmax;
			*ver = tls_version(scalar(v));
			if (*ver < 0)
				return FAIL(l, v, "tls_server_config: %s: expected TLS10, TLS11, TLS12 or TLS13",
					    name);
		} else if (!strcmp(name, "client_auth_type")) {
			if (!scalar(v) || (!is_null(v) &&
					   strcmp(scalar(v), "NoClientCert")))
				return FAIL(l, v, "tls_server_config: client_auth_type: kmemprof serve does not ask for client certificates (NoClientCert only)");
		} else {
			return FAIL(l, k, "tls_server_config: unknown key '%.64s' (cert_file, key_file, min_version, max_version)",
				    name);
		}
	}
	if (!cert || !key)
		return FAIL(l, m, "tls_server_config: %s is missing (cert_file and key_file are both needed)",
			    cert ? "key_file" : "cert_file");
	if (vmin > vmax)
		return FAIL(l, m, "tls_server_config: min_version is above max_version");
	w->cert = read_pem(l, cert, "cert_file", "CERTIFICATE");
	if (!w->cert)
		return -1;
	w->key = read_pem(l, key, "key_file", "PRIVATE KEY");
	if (!w->key)
		return -1;
	n = (size_t)snprintf(w->priorities, sizeof(w->priorities),
			     "NORMAL:-VERS-ALL");
	for (i = vmax; i >= vmin; i--)
		n += (size_t)snprintf(w->priorities + n,
				      sizeof(w->priorities) - n,
				      ":+VERS-TLS1.%d", i);
	return 0;
}

static void forget(struct kp_web_good *g)
{
	if (g->pass)
		explicit_bzero(g->pass, g->len);
	free(g->pass);
	g->pass = NULL;
}

static void web_locks(struct kp_web *w)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->turn, &ca);
	pthread_condattr_destroy(&ca);
	w->locks = true;
}

/*
 * A bcrypt hash that crypt_rn() takes: its cost, else -1. A cost above
 * the cap is returned as it is, without the computation that would
 * check the rest (days, at 31).
 */
static int bcrypt_cost(const char *hash, struct crypt_data *cd)
{
	const char *out;
	int cost;

	if (strlen(hash) != 60 || hash[0] != '$' || hash[1] != '2' ||
	    !strchr("aby", hash[2]) || hash[3] != '$' ||
	    hash[4] < '0' || hash[4] > '3' || hash[5] < '0' ||
	    hash[5] > '9' || hash[6] != '$')
		return -1;
	cost = (hash[4] - '0') * 10 + hash[5] - '0';
	if (cost > KP_BCRYPT_COST_MAX)
		return cost;
	out = crypt_rn("", hash, cd, sizeof(*cd));
	if (!out || out[0] == '*' || strncmp(out, hash, 29))
		return -1;
	return cost;
}

static int users(struct wl *l, yaml_node_t *m, struct kp_web *w)
{
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd;
	struct kp_web_user *u;
	yaml_node_t *k, *v, *d;
	yaml_node_pair_t *p;
	const char *name, *hash, *out;
	int cost, max = 0, rc = -1;
	size_t n = 0;

	if (is_null(m))
		return 0;
	if (m->type != YAML_MAPPING_NODE)
		return FAIL(l, m, "basic_auth_users: expected user: bcrypt hash pairs");
	PAIRS(m, p)
		n++;
	w->users = calloc(n + 1, sizeof(*w->users));
	cd = calloc(1, sizeof(*cd));
	if (!w->users || !cd) {
		free(cd);
		return FAIL(l, m, "out of memory");
	}
	PAIRS(m, p) {
		k = node(l, p->key);
		v = node(l, p->value);
		name = scalar(k);
		hash = scalar(v);
		if (!name || !*name || strchr(name, ':')) {
			FAIL(l, k, "basic_auth_users: expected a user name (no ':')");
			goto out;
		}
		d = seen(l, m, p, name);
		if (d) {
			FAIL(l, k, "basic_auth_users: %.64s given twice (line %zu too)",
			     name, d->start_mark.line + 1);
			goto out;
		}
		cost = hash ? bcrypt_cost(hash, cd) : -1;
		if (cost < 0) {
			FAIL(l, v, "basic_auth_users: %.64s: expected a bcrypt hash ($2y$, $2b$ or $2a$; htpasswd -nBC 10 \"\" | tr -d ':\\n' makes one)",
			     name);
			goto out;
		}
		if (cost > KP_BCRYPT_COST_MAX) {
			FAIL(l, v, "basic_auth_users: %.64s: bcrypt cost %d is above %d (each check would take %s; htpasswd -nBC 10 makes one of 10)",
			     name, cost, KP_BCRYPT_COST_MAX,
			     cost < 18 ? "seconds" : cost < 24 ? "minutes" :
			     cost < 28 ? "hours" : "days");
			goto out;
		}
		max = cost > max ? cost : max;
		u = &w->users[w->nusers++];
		u->name = strdup(name);
		u->hash = strdup(hash);
		if (!u->name || !u->hash) {
			FAIL(l, v, "out of memory");
			goto out;
		}
	}
	if (!w->nusers) {
		rc = 0;
		goto out;
	}
	/* What an unknown user's password is checked against. */
	out = crypt_gensalt_rn("$2b$", (unsigned long)max, NULL, 0, setting,
			       sizeof(setting));
	out = out ? crypt_rn("no user's password", setting, cd, sizeof(*cd)) :
		NULL;
	w->dummy = out && out[0] != '*' ? strdup(out) : NULL;
	if (!w->dummy)
		FAIL(l, m, "basic_auth_users: libcrypt makes no bcrypt hash: %s",
		     strerror(errno));
	else
		rc = 0;
out:
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return rc;
}

int kp_web_load(const char *path, struct kp_web *w, char *err,
		size_t errlen)
{
	struct wl l = { .path = path, .err = err, .errlen = errlen };
	yaml_node_t *root, *k, *v, *d;
	yaml_parser_t ps;
	yaml_node_pair_t *p;
	const char *name;
	FILE *f;
	int rc = -1;

	*w = (struct kp_web){ 0 };
	web_locks(w);
	f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path,
			 strerror(errno));
		return -1;
	}
	if (!yaml_parser_initialize(&ps)) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	yaml_parser_set_input_file(&ps, f);
	if (!yaml_parser_load(&ps, &l.doc)) {
		kp_fail(err, errlen, path, ps.problem_mark.line + 1,
			"not YAML: %s%s%s", ps.problem ? ps.problem : "?",
			ps.context ? " " : "", ps.context ? ps.context : "");
		yaml_parser_delete(&ps);
		fclose(f);
		return -1;
	}
	yaml_parser_delete(&ps);
	fclose(f);
	root = yaml_document_get_root_node(&l.doc);
	if (!root || is_null(root)) {
		rc = 0;		/* an empty file: nothing asked */
		goto out;
	}
	if (root->type != YAML_MAPPING_NODE) {
		FAIL(&l, root, "expected keys (tls_server_config, basic_auth_users)");
		goto out;
	}
	PAIRS(root, p) {
		k = node(&l, p->key);
		v = node(&l, p->value);
		name = scalar(k);
		if (!name) {
			FAIL(&l, k, "expected a key");
			goto out;
		}
		d = seen(&l, root, p, name);
		if (d) {
			FAIL(&l, k, "%.64s given twice (line %zu too)", name,
			     d->start_mark.line + 1);
			goto out;
		}
		if (!strcmp(name, "tls_server_config")) {
			if (tls(&l, v, w))
				goto out;
		} else if (!strcmp(name, "basic_auth_users")) {
			if (users(&l, v, w))
				goto out;
		} else if (!strcmp(name, "http_server_config") ||
			   !strcmp(name, "rate_limit")) {
			FAIL(&l, k, "%s: not supported by kmemprof serve (tls_server_config, basic_auth_users)",
			     name);
			goto out;
		} else {
			FAIL(&l, k, "unknown key '%.64s' (tls_server_config, basic_auth_users)",
			     name);
			goto out;
		}
	}
	rc = 0;
out:
	yaml_document_delete(&l.doc);
	if (rc)
		kp_web_free(w);
	return rc;
}

void kp_web_free(struct kp_web *w)
{
	size_t i;

	if (w->key)
		explicit_bzero(w->key, strlen(w->key));
	free(w->key);
	free(w->cert);
	for (i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	free(w->dummy);
	for (i = 0; i < KP_AUTH_CACHE; i++)
		forget(&w->cache[i]);
	if (w->locks) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->turn);
	}
	*w = (struct kp_web){ 0 };
}

static void now_plus(struct timespec *t, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += (ms % 1000) * 1000000;
	if (t->tv_nsec >= 1000000000) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000;
	}
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Under @lock: whether user @ui's @pass is remembered, unexpired. */
static bool remembered(struct kp_web *w, size_t ui, const char *pass,
		       size_t len)
{
	struct timespec now;
	bool hit = false;
	size_t i;

	now_plus(&now, 0);
	for (i = 0; i < KP_AUTH_CACHE; i++) {
		struct kp_web_good *g = &w->cache[i];

		if (!g->pass)
			continue;
		if (before(&g->until, &now))
			forget(g);
		else if (g->user == ui &&
			 kp_ct_equal(pass, len, g->pass, g->len))
			hit = true;
	}
	return hit;
}

/* Under @lock: remember user @ui's good @pass, in a free or the oldest slot. */
static void remember(struct kp_web *w, size_t ui, const char *pass,
		     size_t len)
{
	struct kp_web_good *g = &w->cache[0];
	size_t i;

	for (i = 0; i < KP_AUTH_CACHE; i++) {
		if (!w->cache[i].pass) {
			g = &w->cache[i];
			break;
		}
		if (before(&w->cache[i].until, &g->until))
			g = &w->cache[i];
	}
	forget(g);
	g->pass = strndup(pass, len);
	if (!g->pass)
		return;
	g->user = ui;
	g->len = len;
	now_plus(&g->until, KP_AUTH_TTL * 1000L);
}

enum kp_auth kp_web_check(struct kp_web *w, const char *user,
			  const char *pass)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	size_t i, ui = w->nusers, len = strlen(pass);
	struct timespec deadline;
	const char *hash, *out;
	bool ok;

	if (!cd || !w->dummy || !w->locks) {
		free(cd);
		return KP_AUTH_BAD;
	}
	for (i = 0; i < w->nusers && ui == w->nusers; i++)
		if (!strcmp(w->users[i].name, user))
			ui = i;
	pthread_mutex_lock(&w->lock);
	if (ui < w->nusers && remembered(w, ui, pass, len)) {
		pthread_mutex_unlock(&w->lock);
		free(cd);
		return KP_AUTH_OK;
	}
	/* A bcrypt slot, or KP_AUTH_BUSY: no queue of connection threads. */
	now_plus(&deadline, KP_HASH_WAIT_MS);
	while (w->hashing >= KP_HASH_MAX) {
		if (pthread_cond_timedwait(&w->turn, &w->lock, &deadline) ==
		    ETIMEDOUT && w->hashing >= KP_HASH_MAX) {
			pthread_mutex_unlock(&w->lock);
			free(cd);
			return KP_AUTH_BUSY;
		}
	}
	w->hashing++;
	w->hashes++;
	if (w->hashing > w->hashing_max)
		w->hashing_max = w->hashing;
	pthread_mutex_unlock(&w->lock);

	hash = ui < w->nusers ? w->users[ui].hash : w->dummy;
	out = crypt_rn(pass, hash, cd, sizeof(*cd));
	ok = ui < w->nusers && out &&
	     kp_ct_equal(out, strlen(out), hash, strlen(hash));
	explicit_bzero(cd, sizeof(*cd));
	free(cd);

	pthread_mutex_lock(&w->lock);
	w->hashing--;
	pthread_cond_signal(&w->turn);
	if (ok)
		remember(w, ui, pass, len);
	pthread_mutex_unlock(&w->lock);
	return ok ? KP_AUTH_OK : KP_AUTH_BAD;
}

#endif /* KP_HAVE_WEBCONFIG */
