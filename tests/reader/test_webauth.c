// SPDX-License-Identifier: GPL-2.0
/*
 * serve's credentials (webauth.c), the costs bounded (issue 43): a
 * bcrypt cost above the cap is refused at load, naming its line, without
 * the computation; a good password is remembered, a bad one never; and
 * no more than KP_HASH_MAX bcrypt computations run at once, however many
 * clients ask.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <cmocka.h>

#include "tests.h"
#include "webauth.h"

#ifdef KP_HAVE_WEBCONFIG
#include <crypt.h>

static char path[64];

/* A bcrypt hash of @pass at @cost, from libcrypt (not from webauth.c). */
static void hash_of(const char *pass, int cost, char *buf, size_t len)
{
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data cd;
	const char *out;

	memset(&cd, 0, sizeof(cd));
	assert_non_null(crypt_gensalt_rn("$2b$", (unsigned long)cost, NULL, 0,
					 setting, sizeof(setting)));
	out = crypt_rn(pass, setting, &cd, sizeof(cd));
	assert_non_null(out);
	snprintf(buf, len, "%s", out);
}

static void write_config(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/kp-webauth-XXXXXX");
	assert_true(mkstemp(path) >= 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Cost 15 and 31 refused at once, the line and the cap named. */
static void cost_capped(void **state)
{
	/* A cost-31 hash: its salt and digest as bcrypt prints them. */
	static const char c31[] =
		"$2b$31$abcdefghijklmnopqrstuuKn7RycvHnU4Lw0lkcnpvaB9pqKMVuPO";
	char text[512], err[600], want[700];
	struct kp_web w;
	double t0;

	(void)state;
	snprintf(text, sizeof(text),
		 "# users\nbasic_auth_users:\n  alice: '%s'\n", c31);
	write_config(text);
	t0 = now();
	assert_int_equal(kp_web_load(path, &w, err, sizeof(err)), -1);
	assert_true(now() - t0 < 1.0);
	snprintf(want, sizeof(want), "%s:3: basic_auth_users: alice: bcrypt cost 31 is above 14 (each check would take days; htpasswd -nBC 10 makes one of 10)",
		 path);
	assert_string_equal(err, want);
	unlink(path);

	memcpy(text + strlen("# users\nbasic_auth_users:\n  alice: '$2b$"),
	       "15", 2);
	write_config(text);
	assert_int_equal(kp_web_load(path, &w, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:3: basic_auth_users: alice: bcrypt cost 15 is above 14 (each check would take seconds; htpasswd -nBC 10 makes one of 10)",
		 path);
	assert_string_equal(err, want);
	unlink(path);
}

static void load_alice(struct kp_web *w, int cost)
{
	char text[512], hash[128], err[600];

	hash_of("alicepw", cost, hash, sizeof(hash));
	snprintf(text, sizeof(text), "basic_auth_users:\n  alice: '%s'\n",
		 hash);
	write_config(text);
	if (kp_web_load(path, w, err, sizeof(err)))
		fail_msg("%s", err);
	unlink(path);
}

/* One bcrypt for a good password, however often; one for each bad one. */
static void good_remembered(void **state)
{
	struct kp_web w;
	int i;

	(void)state;
	load_alice(&w, 6);
	assert_int_equal(w.hashes, 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(kp_web_check(&w, "alice", "alicepw"),
				 KP_AUTH_OK);
	assert_int_equal(w.hashes, 1);
	for (i = 0; i < 3; i++)
		assert_int_equal(kp_web_check(&w, "alice", "wrong"),
				 KP_AUTH_BAD);
	assert_int_equal(w.hashes, 4);
	/* Remembered for alice only, and only that password. */
	assert_int_equal(kp_web_check(&w, "bob", "alicepw"), KP_AUTH_BAD);
	assert_int_equal(kp_web_check(&w, "alice", "alicepw2"), KP_AUTH_BAD);
	assert_int_equal(kp_web_check(&w, "alice", "alicep"), KP_AUTH_BAD);
	assert_int_equal(w.hashes, 7);
	assert_int_equal(kp_web_check(&w, "alice", "alicepw"), KP_AUTH_OK);
	assert_int_equal(w.hashes, 7);
	kp_web_free(&w);
}

struct checker {
	struct kp_web *w;
	enum kp_auth got;
};

static void *check_one(void *arg)
{
	struct checker *c = arg;

	c->got = kp_web_check(c->w, "alice", "wrong");
	return NULL;
}

/* 8 clients with a bad password at once: KP_HASH_MAX bcrypts at a time. */
static void hashes_bounded(void **state)
{
	struct checker c[8];
	pthread_t t[8];
	struct kp_web w;
	size_t i, bad = 0, busy = 0;

	(void)state;
	load_alice(&w, 8);
	for (i = 0; i < 8; i++) {
		c[i].w = &w;
		assert_int_equal(pthread_create(&t[i], NULL, check_one, &c[i]),
				 0);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		bad += c[i].got == KP_AUTH_BAD;
		busy += c[i].got == KP_AUTH_BUSY;
	}
	assert_int_equal(bad + busy, 8);
	assert_int_equal(w.hashing_max, KP_HASH_MAX);
	assert_int_equal(w.hashes, bad);
	assert_int_equal(w.hashing, 0);
	kp_web_free(&w);
}
#else
static void no_webconfig(void **state)
{
	(void)state;
	skip();
}
#endif

const struct CMUnitTest kp_webauth_tests[] = {
#ifdef KP_HAVE_WEBCONFIG
	cmocka_unit_test(cost_capped),
	cmocka_unit_test(good_remembered),
	cmocka_unit_test(hashes_bounded),
#else
	cmocka_unit_test(no_webconfig),
#endif
};

const size_t kp_webauth_ntests =
	sizeof(kp_webauth_tests) / sizeof(kp_webauth_tests[0]);
