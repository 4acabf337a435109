// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: strings written in each output grammar, with one policy
 * for what a site name may hold (a -i file can hold anything).
 *
 *   - A byte that does not begin a valid UTF-8 sequence (RFC 3629: no
 *     overlong form, no surrogate, nothing past U+10FFFF) is one U+FFFD,
 *     the replacement character, in every output: JSON, CSV, OpenMetrics
 *     and Prometheus text, SVG and pprof. Each output is then valid UTF-8,
 *     as its readers require (jq, Python's csv, prometheus_client, XML
 *     parsers, protobuf's proto3 strings), and the damage shows where it
 *     was, one character a byte, as the Unicode standard recommends.
 *   - A character the grammar cannot hold as it is, is escaped where the
 *     grammar has an escape (JSON: \" \\ \n \t \u00XX; OpenMetrics: \\ \"
 *     \n; CSV: "" in a quoted field; XML: &amp; &lt; &gt; &quot; &apos;),
 *     and is U+FFFD where it has none (XML 1.0's control characters).
 *
 * The grammars are tables of the ASCII bytes (a string for each that is
 * not written as it is) and how each writes U+FFFD. Hand-written, not a
 * library's: jansson refuses a string that is not UTF-8 and libxml2 or
 * libunistring would be a new dependency of the static board build for
 * the few lines of kp_utf8_len(); glibc's mbrtowc() needs a UTF-8 locale
 * that a static binary may not find.
 */
#include <stdlib.h>
#include <string.h>

#include "escape.h"

#define FFFD "\xef\xbf\xbd"	/* U+FFFD in UTF-8 */

const struct kp_grammar kp_gr_json = {
	.ascii = {
		"\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004",
		"\\u0005", "\\u0006", "\\u0007", "\\u0008", "\\t",
		"\\n", "\\u000b", "\\u000c", "\\u000d", "\\u000e",
		"\\u000f", "\\u0010", "\\u0011", "\\u0012", "\\u0013",
		"\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018",
		"\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d",
		"\\u001e", "\\u001f",
		['"'] = "\\\"", ['\\'] = "\\\\", [0x7f] = "\\u007f",
	},
	.fffd = "\\ufffd",
};

/* A label value (OpenMetrics 1.0 and the Prometheus text format). */
const struct kp_grammar kp_gr_om = {
	.ascii = { ['\n'] = "\\n", ['"'] = "\\\"", ['\\'] = "\\\\" },
	.fffd = FFFD,
};

/* XML 1.0 character data and attribute values. */
const struct kp_grammar kp_gr_xml = {
	.ascii = {
		FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD,
		FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD,
		FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD, FFFD,
		FFFD, FFFD,
		['"'] = "&quot;", ['&'] = "&amp;", ['\''] = "&apos;",
		['<'] = "&lt;", ['>'] = "&gt;", [0x7f] = FFFD,
	},
	.fffd = FFFD,
};

/* A CSV field (RFC 4180); the caller quotes it (kp_csv_needs_quotes()). */
const struct kp_grammar kp_gr_csv = {
	.ascii = { ['"'] = "\"\"" },
	.fffd = FFFD,
};

/* Bytes as they are, only made valid UTF-8 (pprof's strings). */
const struct kp_grammar kp_gr_utf8 = {
	.fffd = FFFD,
};

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

/* The valid sequence at @s, within @end; 0 if there is none. */
static size_t seq_len(const unsigned char *s, const unsigned char *end)
{
	size_t n = kp_utf8_len(s);

	return n <= (size_t)(end - s) ? n : 0;
}

void kp_escape(FILE *out, const char *str, size_t len,
	       const struct kp_grammar *g)
{
	const unsigned char *s = (const unsigned char *)str;
	const unsigned char *end = s + len;
	size_t n;

	while (s < end && *s) {
		const unsigned char *run = s;

		/* What goes out as it is, a run at a time. */
		while (s < end && *s && *s < 0x80 && !g->ascii[*s])
			s++;
		while (s < end && *s >= 0x80 && (n = seq_len(s, end)))
			s += n;
		if (s > run) {
			fwrite(run, 1, s - run, out);
			continue;
		}
		if (*s < 0x80)
			fputs(g->ascii[*s], out);
		else
			fputs(g->fffd, out);
		s++;
	}
}

size_t kp_utf8_cut(const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n, at = 0, chars = 0;

	for (; *s; chars++) {
		n = kp_utf8_len(s);
		n = n ? n : 1;
		if (max && chars + 1 == max && s[n])
			return at;
		s += n;
		at += n;
	}
	return at;
}

char *kp_utf8_fixed(const char *str, char **copy)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n, len;
	FILE *mem;

	*copy = NULL;
	for (; *s; s += n)
		if (!(n = kp_utf8_len(s)))
			break;
	if (!*s)
		return (char *)str;
	mem = open_memstream(copy, &len);
	if (!mem)
		return NULL;
	kp_escape(mem, str, strlen(str), &kp_gr_utf8);
	if (fclose(mem)) {
		free(*copy);
		*copy = NULL;
	}
	return *copy;
}
