// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: JSON strings, for every --json output (the profile's and
 * the views'). Escaped per RFC 8259: '"', '\\' and control characters; a
 * byte that is not part of valid UTF-8 becomes U+FFFD, the replacement
 * character, so the output is valid JSON (and valid UTF-8) whatever a
 * site name holds.
 *
 * Not jansson: its json_string() refuses a string that is not valid
 * UTF-8 (the replacement above would still be ours), every string would
 * be an allocation, and the --json of the views is in the static board
 * build, which links no optional library.
 */
#include <inttypes.h>
#include <string.h>

#include "jsonstr.h"
#include "profile.h"

/* Length of the valid UTF-8 sequence at @s, or 0 if there is none. */
size_t kp_utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* The first @len bytes of @str as a JSON string. */
void kp_json_strn(FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	const unsigned char *end = s + len;
	size_t n;

	fputc('"', out);
	while (s < end && *s) {
		const unsigned char *run = s;

		/* Plain ASCII goes out as it is, a run at a time. */
		while (s < end && *s >= 0x20 && *s < 0x7f && *s != '"' &&
		       *s != '\\')
			s++;
		if (s > run)
			fwrite(run, 1, s - run, out);
		if (s == end || !*s)
			break;
		if (*s == '"' || *s == '\\') {
			fprintf(out, "\\%c", *s++);
		} else if (*s == '\n') {
			fputs("\\n", out);
			s++;
		} else if (*s == '\t') {
			fputs("\\t", out);
			s++;
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(out, "\\u%04x", *s++);
		} else if ((n = kp_utf8_len(s))) {
			fwrite(s, 1, n, out);
			s += n;
		} else {
			fputs("\\ufffd", out);	/* not UTF-8: U+FFFD */
			s++;
		}
	}
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
