// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof cpus: allocations and frees per CPU, remote and cross-cluster frees.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonstr.h"
#include "viewcmd.h"

static int cpus_run(struct kp_opts *o)
{
	struct kp_view_in v;
	struct kp_cpus c;
	size_t i;

	if (kp_view_open(o, "cpus", &v) ||
	    kp_view_close(&v, kp_parse_cpus(v.in, v.path, &c, v.err,
					    sizeof(v.err))))
		return 1;
	kp_view_begin(o, "cpus", NULL, 0, 0);	/* no tags */
	if (o->json) {
		fputs(",\"cpus\":[", stdout);
		for (i = 0; i < c.n; i++)
			printf("%s\n{\"cpu\":%d,\"cluster\":%d,\"allocs\":%"
			       PRId64 ",\"frees\":%" PRId64 ",\"remote\":%"
			       PRId64 ",\"xcluster\":%" PRId64 "}",
			       i ? "," : "", c.v[i].cpu, c.v[i].cluster,
			       c.v[i].allocs, c.v[i].frees, c.v[i].remote,
			       c.v[i].xcluster);
		fputs("\n]", stdout);
		kp_cpus_free(&c);
		return kp_view_json_end();
	}
	printf("%4s %8s %12s %12s %12s %7s %12s %7s\n", "CPU", "CLUSTER",
	       "ALLOCS", "FREES", "REMOTE", "%", "XCLUSTER", "%");
	for (i = 0; i < c.n; i++) {
		const struct kp_cpu *x = &c.v[i];

		printf("%4d %8d %12" PRId64 " %12" PRId64 " %12" PRId64
		       " %6.1f%% %12" PRId64 " %6.1f%%\n", x->cpu, x->cluster,
		       x->allocs, x->frees, x->remote,
		       x->frees ? 100.0 * x->remote / x->frees : 0,
		       x->xcluster,
		       x->frees ? 100.0 * x->xcluster / x->frees : 0);
	}
	kp_cpus_free(&c);
	return 0;
}

const struct kp_cmd kp_cmd_cpus = {
	.name = "cpus", .args = "",
	.what = "allocations and frees per CPU, remote frees",
	.opts = (const struct kp_option *const[]){
		&kp_opt_view_input, &kp_opt_json, NULL,
	}, .run = cpus_run,
};
