// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: read and sort what the kmemprof module (or the kernel's own
 * /proc/allocinfo) says about kernel memory, per call site.
 *
 *   kmemprof [top] [-i FILE] [-s KEY] [-n N] [-H] [--kind K]
 *            [--module M] [--func REGEX] [--min-bytes N]
 *   kmemprof help
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static void usage(FILE *out)
{
	fputs("usage: kmemprof [top] [options]\n"
	      "       kmemprof help\n\n"
	      "top: the call sites holding the most memory, largest first.\n\n"
	      "  -i, --input FILE    read FILE (a snapshot, or /proc/allocinfo)\n"
	      "                      instead of /proc/kmemprof\n"
	      "  -s, --sort KEY      bytes (live, the default), calls (live\n"
	      "                      objects), avg, allocs, frag\n"
	      "  -n N                show the first N sites (default 20; 0: all)\n"
	      "  -H, --human         sizes in IEC units, as numfmt --to=iec\n"
	      "      --kind KIND     slab, page or percpu\n"
	      "      --module NAME   sites in module NAME\n"
	      "      --func REGEX    sites whose function matches REGEX\n"
	      "      --min-bytes N   sites holding at least N live bytes\n",
	      out);
}

static FILE *open_input(const char *path, const char **name)
{
	FILE *f;

	if (path) {
		*name = path;
		return strcmp(path, "-") ? fopen(path, "r") : stdin;
	}
	*name = "/proc/kmemprof";
	f = fopen(*name, "r");
	if (!f && errno == ENOENT) {
		*name = "/proc/allocinfo";
		f = fopen(*name, "r");
		if (!f && errno == ENOENT) {
			*name = "/proc/kmemprof";
			errno = ENOENT;
		}
	}
	return f;
}

static void cell(int64_t v, bool human, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else if (human)
		kp_iec(v, buf, len);
	else
		snprintf(buf, len, "%" PRId64, v);
}

static void print_top(const struct kp_profile *p, size_t n, bool human)
{
	char b[32], o[32], a[32], c[32];
	size_t i;

	printf("%12s %8s %9s %9s %-6s %s\n", "LIVE", "OBJS", "AVG", "ALLOCS",
	       "KIND", "SITE");
	for (i = 0; i < p->n && (!n || i < n); i++) {
		const struct kp_site *s = &p->sites[i];

		cell(s->bytes, human, b, sizeof(b));
		cell(s->objs, false, o, sizeof(o));
		cell(s->objs > 0 ? s->bytes / s->objs : -1, human, a, sizeof(a));
		cell(s->allocs, false, c, sizeof(c));
		printf("%12s %8s %9s %9s %-6s %s", b, o, a, c,
		       s->kind ? s->kind : "-", s->site);
		if (s->module)
			printf(" [%s]", s->module);
		if (strcmp(s->func, s->site) &&
		    strncmp(s->site, s->func, strlen(s->func)))
			printf(" %s", s->func);
		if (s->callers)
			printf(" <- %s", s->callers);
		if (s->inaccurate)
			printf(" (inaccurate)");
		if (s->unloaded)
			printf(" (unloaded)");
		putchar('\n');
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "human", no_argument, NULL, 'H' },
		{ "kind", required_argument, NULL, 'k' },
		{ "module", required_argument, NULL, 'm' },
		{ "func", required_argument, NULL, 'f' },
		{ "min-bytes", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kp_filter filter = { 0 };
	const char *input = NULL, *name;
	enum kp_key key = KP_BYTES;
	struct kp_profile p;
	bool human = false;
	char err[512], *end;
	long n = 20;
	FILE *in;
	int c;

	if (argc > 1 && !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "top")) {
		argv++;
		argc--;
	}
	while ((c = getopt_long(argc, argv, "i:s:n:Hh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 's':
			if (kp_key_parse(optarg, &key)) {
				fprintf(stderr, "kmemprof: --sort %s: expected bytes, calls, avg, allocs or frag\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			n = strtol(optarg, &end, 10);
			if (*end || n < 0) {
				fprintf(stderr, "kmemprof: -n %s: expected a count\n",
					optarg);
				return 2;
			}
			break;
		case 'H':
			human = true;
			break;
		case 'k':
			filter.kind = optarg;
			break;
		case 'm':
			filter.module = optarg;
			break;
		case 'f':
			filter.func_re = optarg;
			break;
		case 'b':
			filter.min_bytes = strtoll(optarg, &end, 10);
			if (*end || filter.min_bytes < 0) {
				fprintf(stderr, "kmemprof: --min-bytes %s: expected bytes\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "kmemprof: unknown command or argument '%s'\n",
			argv[optind]);
		return 2;
	}
	in = open_input(input, &name);
	if (!in) {
		fprintf(stderr, "kmemprof: cannot open %s: %s%s\n", name,
			strerror(errno),
			errno == EACCES ? " (it is root only)" :
			errno == ENOENT && !input ?
			" (is the kmemprof module loaded?)" : "");
		return 1;
	}
	if (kp_parse(in, name, &p, err, sizeof(err))) {
		fprintf(stderr, "kmemprof: %s\n", err);
		return 1;
	}
	if (in != stdin)
		fclose(in);
	if (kp_filter_apply(&p, &filter, err, sizeof(err))) {
		fprintf(stderr, "kmemprof: %s\n", err);
		kp_free(&p);
		return 2;
	}
	kp_sort(&p, key);
	print_top(&p, n, human);
	kp_free(&p);
	return 0;
}
