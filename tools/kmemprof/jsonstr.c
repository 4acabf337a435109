// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: JSON strings, for every --json output (the profile's and
 * the views'). Escaped per RFC 8259 (escape.c's kp_gr_json): '"', '\\' and
 * control characters; a byte that is not part of valid UTF-8 becomes
 * U+FFFD, as in every output (escape.c), so the output is valid JSON (and
 * valid UTF-8) whatever a site name holds.
 *
 * Not jansson: its json_string() refuses a string that is not valid
 * UTF-8 (the replacement above would still be ours), every string would
 * be an allocation, and the --json of the views is in the static board
 * build, which links no optional library.
 */
#include <string.h>

#include "escape.h"
#include "jsonstr.h"
#include "profile.h"

/* The first @len bytes of @str as a JSON string. */
void kp_json_strn(FILE *out, const char *str, size_t len)
{
	fputc('"', out);
	kp_escape(out, str, len, &kp_gr_json);
	fputc('"', out);
}

void kp_json_str(FILE *out, const char *str)
{
	if (str)
		kp_json_strn(out, str, strlen(str));
	else
		fputs("null", out);
}


void kp_json_tag_names(FILE *out, const struct kp_site *t)
{
	fputs("\"site\":", out);
	kp_json_str(out, t->site);
	fputs(",\"module\":", out);
	kp_json_str(out, t->module);
	fputs(",\"func\":", out);
	kp_json_str(out, t->func);
	fputs(",\"kind\":", out);
	kp_json_str(out, t->kind);
}

void kp_json_callers(FILE *out, const char *callers)
{
	const char *c = callers, *comma;

	fputs(",\"callers\":[", out);
	for (; c && *c; c = comma ? comma + 1 : NULL) {
		comma = strchr(c, ',');
		if (c != callers)
			fputc(',', out);
		kp_json_strn(out, c, comma ? (size_t)(comma - c) : strlen(c));
	}
	fputc(']', out);
}

void kp_json_srcline(FILE *out, const struct kp_site *t, bool always)
{
	if (always || t->srcline) {
		fputs(",\"srcline\":", out);
		kp_json_str(out, t->srcline);
	}
	if (always || t->srcfunc) {
		fputs(",\"srcfunc\":", out);
		kp_json_str(out, t->srcfunc);
	}
}
