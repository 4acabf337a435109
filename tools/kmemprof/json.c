// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the profile as one JSON document. The schema is in
 * Documentation/kmemprof-output.rst and is versioned by "schema".
 *
 * Strings are escaped per RFC 8259: '"', '\\' and control characters, and
 * any byte that is not part of valid UTF-8 is written as the code point
 * of the same value (\u00XX), so the output is always valid JSON, whatever
 * a site name holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "output.h"
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
static void json_strn(FILE *out, const char *str, size_t len)
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
			fprintf(out, "\\u%04x", *s++);
		}
	}
	fputc('"', out);
}

static void json_str(FILE *out, const char *str)
{
	if (str)
		json_strn(out, str, strlen(str));
	else
		fputs("null", out);
}

/* A count, or null where the source has none (-1). */
static void json_int(FILE *out, const char *key, int64_t v)
{
	if (v < 0)
		fprintf(out, ",\"%s\":null", key);
	else
		fprintf(out, ",\"%s\":%" PRId64, key, v);
}

/* "a,b" as ["a","b"]; [] for none. */
static void json_callers(FILE *out, const char *callers)
{
	const char *c = callers, *comma;
	bool first = true;

	fputs(",\"callers\":[", out);
	while (c && *c) {
		comma = strchr(c, ',');
		if (!first)
			fputc(',', out);
		json_strn(out, c, comma ? (size_t)(comma - c) : strlen(c));
		first = false;
		c = comma ? comma + 1 : NULL;
	}
	fputc(']', out);
}

int kp_out_json(FILE *out, const struct kp_profile *p)
{
	int64_t live = 0, objs = 0;
	size_t i;

	for (i = 0; i < p->n; i++) {
		live += p->sites[i].bytes > 0 ? p->sites[i].bytes : 0;
		objs += p->sites[i].objs > 0 ? p->sites[i].objs : 0;
	}
	fprintf(out, "{\"schema\":%d,\"source\":\"%s\",\"version\":",
		KP_JSON_SCHEMA,
		p->source == KP_ALLOCINFO ? "allocinfo" : "kmemprof");
	json_str(out, p->version);
	fprintf(out, ",\"totals\":{\"sites\":%zu,\"live_bytes\":%" PRId64
		",\"live_objects\":%" PRId64 "},\n\"sites\":[", p->n, live, objs);
	for (i = 0; i < p->n; i++) {
		const struct kp_site *s = &p->sites[i];

		fputs(i ? ",\n{\"site\":" : "\n{\"site\":", out);
		json_str(out, s->site);
		fputs(",\"module\":", out);
		json_str(out, s->module);
		fputs(",\"func\":", out);
		json_str(out, s->func);
		fputs(",\"kind\":", out);
		json_str(out, s->kind);
		fputs(",\"srcline\":", out);
		json_str(out, s->srcline);
		fprintf(out, ",\"live_bytes\":%" PRId64 ",\"live_objects\":%"
			PRId64, s->bytes, s->objs);
		json_int(out, "allocs", s->allocs);
		json_int(out, "frees", s->frees);
		json_int(out, "bytes_total", s->total);
		json_int(out, "req_total", s->req);
		json_callers(out, s->callers);
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
