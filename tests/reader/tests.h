/* SPDX-License-Identifier: GPL-2.0 */
/* The reader's unit tests: one cmocka group over these tables. */
#ifndef KP_TESTS_H
#define KP_TESTS_H

#include <stddef.h>

struct CMUnitTest;

extern const char *kp_fixtures;	/* the fixture directory */
extern const char *kp_binary;	/* the kmemprof binary, for CLI tests */

extern const struct CMUnitTest kp_view_tests[];
extern const size_t kp_view_ntests;
extern const struct CMUnitTest kp_cli_tests[];
extern const size_t kp_cli_ntests;
extern const struct CMUnitTest kp_ux_tests[];
extern const size_t kp_ux_ntests;
extern const struct CMUnitTest kp_meminfo_tests[];	/* test_meminfo.c */
extern const size_t kp_meminfo_ntests;
extern const struct CMUnitTest kp_secure_tests[];	/* test_secure.c */
extern const size_t kp_secure_ntests;
extern const struct CMUnitTest kp_webauth_tests[];	/* test_webauth.c */
extern const size_t kp_webauth_ntests;

#endif /* KP_TESTS_H */
