// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: read and sort what the kmemprof module (or the kernel's own
 * /proc/allocinfo) says about kernel memory, per call site. Subcommands
 * in the perf style: each is a struct kp_cmd in a file of its own
 * (builtin-*.c, viewcmd.c for the debugfs views, serve.c), with the
 * options it takes; this file lists them and dispatches. `kmemprof help`
 * lists them.
 *
 * $KMEMPROF_ROOT, when set, is put in front of every /proc and /sys path
 * (the tests point it at a fake tree).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#endif

static int help_run(struct kp_opts *o);

static const struct kp_cmd cmd_help = {
	.name = "help", .args = "[COMMAND]",
	.what = "this, or a command's options", .max_args = 1,
	.run = help_run,
};

/* In the order `kmemprof help` lists them; the first is the default. */
static const struct kp_cmd *const commands[] = {
	&kp_cmd_top, &kp_cmd_watch, &kp_cmd_snapshot, &kp_cmd_diff,
	&kp_cmd_leaks, &kp_cmd_stacks, &kp_cmd_owners, &kp_cmd_hist,
	&kp_cmd_stats,
	&kp_cmd_meminfo,
	&kp_cmd_ages, &kp_cmd_cpus, &kp_cmd_enable, &kp_cmd_disable,
	&kp_cmd_reset, &kp_cmd_set, &kp_cmd_plot, &kp_cmd_serve, &cmd_help,
};

#define NCMDS (sizeof(commands) / sizeof(commands[0]))

static const struct kp_cmd *find(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	return NULL;
}

static void usage(FILE *out)
{
	size_t i;

	fputs("usage: kmemprof [COMMAND] [OPTIONS]\n\n"
	      "Kernel memory per call site, from /proc/kmemprof (or the\n"
	      "kernel's /proc/allocinfo) and the debugfs views of kmemprof.\n\n"
	      "commands:\n", out);
	for (i = 0; i < NCMDS; i++) {
		char left[64];

		snprintf(left, sizeof(left), "%s %s", commands[i]->name,
			 commands[i]->args);
		kp_wrap(out, 24, left, commands[i]->what);
	}
	fputs("\n'kmemprof COMMAND --help' shows a command's options.\n"
	      "KMEMPROF_ROOT=DIR reads and writes DIR/proc/... and "
	      "DIR/sys/... instead.\n", out);
#ifdef KP_HAVE_OUTPUTS
	fprintf(out, "Outputs in this build: %s%s.\n", kp_out_features(),
#ifdef KP_HAVE_SERVE
		" serve"
#else
		""
#endif
		);
#else
	fputs("This build has no machine outputs, plots or resolution.\n", out);
#endif
}

static int help_run(struct kp_opts *o)
{
	const struct kp_cmd *c = o->nargs ? find(o->args[0]) : NULL;

	if (c) {
		kp_cmd_usage(c, stdout);
		return 0;
	}
	if (o->nargs) {
		fprintf(stderr, "kmemprof: no command '%s'\n", o->args[0]);
		return 2;
	}
	usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct kp_opts o = { .n = 20 };
	const struct kp_cmd *c = NULL;
	int rc;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("kmemprof " KP_VERSION "\n");
		return 0;
	}
	if (argc > 1)
		c = find(argv[1]);
	if (c) {
		argv++;
		argc--;
	} else {
		c = commands[0];
	}
	/* A word after "kmemprof" or "kmemprof top" names a command. */
	if (c == commands[0] && argc > 1 && argv[1][0] != '-') {
		fprintf(stderr, "kmemprof: unknown command '%s' (kmemprof help lists them)\n",
			argv[1]);
		return 2;
	}
	rc = kp_parse_opts(c, argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (o.nargs > c->max_args) {
		fprintf(stderr, "kmemprof %s: unexpected argument '%s'\n",
			c->name, o.args[c->max_args]);
		return 2;
	}
	return c->run(&o);
}
