// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof snapshot: save /proc/kmemprof (or a file) with the time it was read.
 */
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

static int run(struct kp_opts *o)
{
	char path[512], err[512];
	const char *src = o->input ? o->input : kp_live_path(path, sizeof(path));
	size_t n = 0;
	char *text = kp_slurp(src, &n);
	FILE *in, *out;
	int rc;

	if (!text)
		return 1;
	in = fmemopen(text, n ? n : 1, "r");
	out = o->output ? fopen(o->output, "w") : stdout;
	if (!in || !out) {
		fprintf(stderr, "kmemprof: %s: %s\n",
			out ? "out of memory" : o->output, strerror(errno));
		if (in)
			fclose(in);
		free(text);
		return 1;
	}
	if (!n)
		fgetc(in);
	rc = kp_snapshot_write(out, in, src, kp_now(CLOCK_REALTIME), err,
			       sizeof(err));
	fclose(in);
	free(text);
	if (rc)
		fprintf(stderr, "kmemprof: %s\n", err);
	if (out != stdout && fclose(out) && !rc) {
		fprintf(stderr, "kmemprof: writing %s: %s\n", o->output,
			strerror(errno));
		rc = -1;
	}
	return rc ? 1 : 0;
}


const struct kp_cmd kp_cmd_snapshot = {
	.name = "snapshot", .args = "", .what = "save /proc/kmemprof with its time",
	.opts = (const struct kp_option *const[]){
		&kp_opt_input, &kp_opt_output, NULL,
	},
	.run = run,
};
