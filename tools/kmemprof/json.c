// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the profile as one JSON document. The schema is in
 * Documentation/kmemprof-output.rst and is versioned by "schema".
 *
 * Strings are escaped by kp_json_str() (jsonstr.c): the output is valid
 * JSON whatever a site name holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "jsonstr.h"
#include "output.h"
#include "profile.h"

/* A count, or null where the source has none (-1; a delta is signed). */
static void json_int(FILE *out, const char *key, int64_t v, bool delta)
{
	if (v < 0 && !delta)
		fprintf(out, ",\"%s\":null", key);
	else
		fprintf(out, ",\"%s\":%" PRId64, key, v);
}

int kp_out_json(FILE *out, const struct kp_profile *p)
{
	int64_t live = 0, objs = 0;
	size_t i;

	/* The sums of the sites' values, as the table's header gives them. */
	for (i = 0; i < p->n; i++) {
		live += p->sites[i].bytes;
		objs += p->sites[i].objs;
	}
	fprintf(out, "{\"schema\":%d,\"source\":\"%s\",\"delta\":%s,"
		"\"version\":", KP_JSON_SCHEMA,
		p->source == KP_ALLOCINFO ? "allocinfo" : "kmemprof",
		p->delta ? "true" : "false");
	kp_json_str(out, p->version);
	fprintf(out, ",\"totals\":{\"sites\":%zu,\"live_bytes\":%" PRId64
		",\"live_objects\":%" PRId64 "},\n\"sites\":[", p->n, live, objs);
	for (i = 0; i < p->n; i++) {
		const struct kp_site *s = &p->sites[i];

		fputs(i ? ",\n{" : "\n{", out);
		kp_json_tag_names(out, s);
		kp_json_srcline(out, s, true);
		fprintf(out, ",\"live_bytes\":%" PRId64 ",\"live_objects\":%"
			PRId64, s->bytes, s->objs);
		json_int(out, "allocs", s->allocs, p->delta);
		json_int(out, "frees", s->frees, p->delta);
		json_int(out, "bytes_total", s->total, p->delta);
		json_int(out, "req_total", p->delta ? -1 : s->req, false);
		kp_json_callers(out, s->callers);
		fprintf(out, ",\"accurate\":%s,\"sampled\":%s,\"unloaded\":%s}",
			s->inaccurate ? "false" : "true",
			s->sampled ? "true" : "false",
			s->unloaded ? "true" : "false");
	}
	fputs("\n]}\n", out);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

const char *kp_out_features(void)
{
	return "json csv openmetrics svg"
#ifdef KP_HAVE_PPROF
		" pprof"
#endif
#ifdef KP_HAVE_DW
		" resolve"
#endif
		;
}
