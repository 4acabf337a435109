// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the profile as CSV (RFC 4180): a header row, then one
 * row per site, CRLF line ends. A field holding a comma, a quote, CR or LF
 * is quoted, with quotes doubled; a byte that is not valid UTF-8 is U+FFFD
 * (escape.c). Counts the source does not have are empty fields. Columns:
 * Documentation/kmemprof-output.rst.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "escape.h"
#include "output.h"
#include "profile.h"

void kp_csv_str(FILE *out, const char *s)
{
	bool quote;

	if (!s)
		return;
	quote = s[strcspn(s, ",\"\r\n")];
	if (quote)
		fputc('"', out);
	kp_escape(out, s, strlen(s), &kp_gr_csv);
	if (quote)
		fputc('"', out);
}

static void csv_int(FILE *out, int64_t v, bool absent_if_negative)
{
	fputc(',', out);
	if (v >= 0 || !absent_if_negative)
		fprintf(out, "%" PRId64, v);
}

int kp_out_csv(FILE *out, const struct kp_profile *p)
{
	size_t i;

	fputs("site,module,func,kind,srcline,live_bytes,live_objects,allocs,"
	      "frees,bytes_total,req_total,callers,accurate,sampled,unloaded,"
	      "srcfunc\r\n",
	      out);
	for (i = 0; i < p->n; i++) {
		const struct kp_site *s = &p->sites[i];

		kp_csv_str(out, s->site);
		fputc(',', out);
		kp_csv_str(out, s->module);
		fputc(',', out);
		kp_csv_str(out, s->func);
		fputc(',', out);
		kp_csv_str(out, s->kind);
		fputc(',', out);
		kp_csv_str(out, s->srcline);
		csv_int(out, s->bytes, false);
		csv_int(out, s->objs, false);
		csv_int(out, s->allocs, true);
		csv_int(out, s->frees, true);
		csv_int(out, s->total, true);
		csv_int(out, s->req, true);
		fputc(',', out);
		kp_csv_str(out, s->callers);
		fprintf(out, ",%d,%d,%d,", !s->inaccurate, s->sampled,
			s->unloaded);
		kp_csv_str(out, s->srcfunc);
		fputs("\r\n", out);
	}
	return fflush(out) || ferror(out) ? -EIO : 0;
}
