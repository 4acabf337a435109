// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof enable, disable, reset and set: the commands that write the
 * module's knobs under /proc/sys/kmemprof (knobs.c does the writing).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#endif

static int knob(const char *k, const char *v)
{
	char err[512];

	if (kp_knob_write(k, v, err, sizeof(err))) {
		fprintf(stderr, "kmemprof: %s\n", err);
		return 1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Every knob the module has, by name: the files of /proc/sys/kmemprof but
 * reset, which is an action, not a setting.
 */
static int list_knobs(void)
{
	char dir[512], v[64], **names = NULL, **nv;
	size_t i, n = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	d = opendir(kp_path("/proc/sys/kmemprof", dir, sizeof(dir)));
	if (!d) {
		fprintf(stderr, "kmemprof: the kmemprof module is not loaded (no %s)\n",
			dir);
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "reset"))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			nv = realloc(names, cap * sizeof(*names));
			if (!nv)
				break;
			names = nv;
		}
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (kp_knob_read(names[i], v, sizeof(v)))
			snprintf(v, sizeof(v), "(%s)", strerror(errno));
		printf("%s=%s\n", names[i], v);
		free(names[i]);
	}
	free(names);
	return 0;
}

static int set_run(struct kp_opts *o)
{
	int i, rc = 0;

	if (!o->nargs)
		return list_knobs();
	for (i = 0; i < o->nargs; i++) {
		if (!strchr(o->args[i], '=') || o->args[i][0] == '=') {
			kp_err("%s: expected KEY=VALUE", o->args[i]);
			return 2;
		}
	}
	for (i = 0; i < o->nargs && !rc; i++) {
		char *eq = strchr(o->args[i], '=');

		if (!eq)
			return 2;
		*eq = '\0';
		rc = knob(o->args[i], eq + 1);
		*eq = '=';
	}
	return rc;
}


static int enable_run(struct kp_opts *o)
{
	(void)o;
	return knob("enabled", "1");
}

static int disable_run(struct kp_opts *o)
{
	(void)o;
	return knob("enabled", "0");
}

static int reset_run(struct kp_opts *o)
{
	(void)o;
	return knob("reset", "1");
}

const struct kp_cmd kp_cmd_enable = {
	.name = "enable", .args = "", .what = "attach the probes (enabled=1)",
	.run = enable_run,
};

const struct kp_cmd kp_cmd_disable = {
	.name = "disable", .args = "", .what = "detach the probes (enabled=0)",
	.run = disable_run,
};

const struct kp_cmd kp_cmd_reset = {
	.name = "reset", .args = "", .what = "zero every counter (reset=1)",
	.run = reset_run,
};

const struct kp_cmd kp_cmd_set = {
	.name = "set", .args = "[KEY=VALUE]...",
	.what = "write knobs, e.g. hist=1 lifetimes=1; without arguments, "
		"list them",
	.max_args = 64, .run = set_run,
};
