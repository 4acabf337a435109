/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof serve's credentials (webauth.c): the web configuration file
 * that Prometheus exporters share, and the token file. Not an API.
 */
#ifndef KP_WEBAUTH_H
#define KP_WEBAUTH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* The token file when --token-file does not name one (under $KMEMPROF_ROOT). */
#define KP_TOKEN_FILE "/etc/kmemprof/serve.token"

struct kp_web_user {
	char *name, *hash;	/* hash: bcrypt, "$2y$10$..." */
};

/*
 * The bounds on what credentials cost: a bcrypt cost above
 * KP_BCRYPT_COST_MAX is refused at load (14: about 1.3 s of one core
 * here; htpasswd makes 5, exporter-toolkit's examples 10); a user's good
 * password is remembered for KP_AUTH_TTL seconds, KP_AUTH_CACHE of them
 * (as exporter-toolkit's cache); at most KP_HASH_MAX bcrypt computations
 * run at once, and a check waits at most KP_HASH_WAIT_MS for its turn.
 */
#define KP_BCRYPT_COST_MAX 14
#define KP_AUTH_CACHE 16
#define KP_AUTH_TTL 300
#define KP_HASH_MAX 1
#define KP_HASH_WAIT_MS 2000

struct kp_web_good {
	size_t user;		/* its index in @users */
	char *pass;		/* NULL: a free slot */
	size_t len;
	struct timespec until;	/* CLOCK_MONOTONIC */
};

/*
 * exporter-toolkit's --web.config.file, as far as serve supports it.
 * Locking: @lock guards @cache and the counts below it; @turn wakes a
 * check waiting for a bcrypt slot. The rest is read-only once loaded.
 */
struct kp_web {
	char *cert, *key;	/* PEM text; NULL: no tls_server_config */
	char priorities[96];	/* GnuTLS priorities: the TLS versions */
	struct kp_web_user *users;
	size_t nusers;
	char *dummy;		/* a hash of no user's, as costly as theirs */
	bool locks;		/* @lock and @turn initialised */
	pthread_mutex_t lock;
	pthread_cond_t turn;
	struct kp_web_good cache[KP_AUTH_CACHE];
	unsigned int hashing;	/* bcrypt computations under way */
	/* For the tests: computations made, the most at once. */
	unsigned long hashes;
	unsigned int hashing_max;
};

enum kp_auth { KP_AUTH_BAD, KP_AUTH_OK, KP_AUTH_BUSY };

/*
 * Read and check @path. @err gets "path:line: key: why". Files it names
 * (cert_file, key_file) are read now, relative to @path's directory.
 * -1 on error, -2 if this build cannot (no libyaml or libcrypt).
 */
int kp_web_load(const char *path, struct kp_web *w, char *err,
		size_t errlen);
void kp_web_free(struct kp_web *w);
/*
 * @user with @pass, against basic_auth_users: a good password
 * remembered, else one bcrypt computation whether or not the user
 * exists, KP_HASH_MAX at once; KP_AUTH_BUSY if its turn did not come.
 */
enum kp_auth kp_web_check(struct kp_web *w, const char *user,
			  const char *pass);

/*
 * The token in @path: a regular file of the caller's (root's when root
 * runs it) that no group or other user may read or write, holding one
 * line of 16 to 1024 printable characters. -1 with @err.
 */
int kp_token_load(const char *path, char **token, char *err, size_t errlen);
/* A new token of 32 random bytes in hex into @path, which must not exist. */
int kp_token_make(const char *path, char *err, size_t errlen);

/* @a (@alen bytes) equals @b (@blen), in time that depends on @blen only. */
bool kp_ct_equal(const char *a, size_t alen, const char *b, size_t blen);

#endif /* KP_WEBAUTH_H */
