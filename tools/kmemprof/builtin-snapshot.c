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
#include "outfile.h"
#include "util.h"
#ifdef KP_HAVE_OUTPUTS
#include "output.h"
#endif

static int run(struct kp_opts *o)
{
	char path[512], err[4200];
	const char *src = o->input ? o->input : kp_live_path(path, sizeof(path));
	size_t n = 0;
	char *text = kp_slurp(src, &n);
	struct kp_outfile of;
	FILE *in;
	int rc;

	if (!text)
		return 1;
	in = fmemopen(text, n ? n : 1, "r");
	if (!in) {
		fprintf(stderr, "kmemprof: snapshot: out of memory\n");
		free(text);
		return 1;
	}
	/* Made beside -o FILE, renamed into place once whole. */
	if (kp_outfile_open(&of, o->output, kp_mode(o), err, sizeof(err))) {
		fprintf(stderr, "kmemprof: snapshot: %s\n", err);
		fclose(in);
		free(text);
		return 1;
	}
	if (!n)
		fgetc(in);
	rc = kp_snapshot_write(of.f, in, src, kp_now(CLOCK_REALTIME), err,
			       sizeof(err));
	fclose(in);
	free(text);
	if (rc)
		fprintf(stderr, "kmemprof: %s\n", err);
	if (kp_outfile_close(&of, !rc, true, err, sizeof(err)) && !rc) {
		fprintf(stderr, "kmemprof: snapshot: %s\n", err);
		rc = -1;
	}
	return rc ? 1 : 0;
}


const struct kp_cmd kp_cmd_snapshot = {
	.name = "snapshot", .args = "", .what = "save /proc/kmemprof with its time",
	.opts = (const struct kp_option *const[]){
		&kp_opt_input, &kp_opt_output, &kp_opt_file_mode, NULL,
	},
	.run = run,
};
