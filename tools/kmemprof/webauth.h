/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemprof serve's credentials (webauth.c): the web configuration file
 * that Prometheus exporters share, and the token file. Not an API.
 */
#ifndef KP_WEBAUTH_H
#define KP_WEBAUTH_H

#include <stdbool.h>
#include <stddef.h>

/* The token file when --token-file does not name one (under $KMEMPROF_ROOT). */
#define KP_TOKEN_FILE "/etc/kmemprof/serve.token"

struct kp_web_user {
	char *name, *hash;	/* hash: bcrypt, "$2y$10$..." */
};

/* exporter-toolkit's --web.config.file, as far as serve supports it. */
struct kp_web {
	char *cert, *key;	/* PEM text; NULL: no tls_server_config */
	char priorities[96];	/* GnuTLS priorities: the TLS versions */
	struct kp_web_user *users;
	size_t nusers;
	char *dummy;		/* a hash of no user's, as costly as theirs */
};

/*
 * Read and check @path. @err gets "path:line: key: why". Files it names
 * (cert_file, key_file) are read now, relative to @path's directory.
 * -1 on error, -2 if this build cannot (no libyaml or libcrypt).
 */
int kp_web_load(const char *path, struct kp_web *w, char *err,
		size_t errlen);
void kp_web_free(struct kp_web *w);
/*
 * @user with @pass, against basic_auth_users: one bcrypt computation
 * whether or not the user exists.
 */
bool kp_web_check(const struct kp_web *w, const char *user,
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
