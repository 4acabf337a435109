/* SPDX-License-Identifier: GPL-2.0 */
/* kmemprof reader: strings in each output grammar (escape.c: the policy). */
#ifndef KP_ESCAPE_H
#define KP_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * An output grammar: what each ASCII byte is written as (NULL: as it is;
 * NUL ends the string) and how U+FFFD is, which stands for each byte that
 * is not part of valid UTF-8.
 */
struct kp_grammar {
	const char *ascii[128];
	const char *fffd;
};

extern const struct kp_grammar kp_gr_json;	/* a JSON string's body */
extern const struct kp_grammar kp_gr_om;	/* an OpenMetrics label value */
extern const struct kp_grammar kp_gr_xml;	/* XML text and attributes */
extern const struct kp_grammar kp_gr_csv;	/* a CSV field, quoted or not */
extern const struct kp_grammar kp_gr_utf8;	/* valid UTF-8, nothing else */

/* Length of the valid UTF-8 sequence at @s, 0 if there is none. */
size_t kp_utf8_len(const unsigned char *s);
/* The first @len bytes of @str (up to a NUL) in grammar @g. */
void kp_escape(FILE *out, const char *str, size_t len,
	       const struct kp_grammar *g);
/*
 * Where to cut @str for @max characters with an ellipsis: the bytes of its
 * first @max - 1 characters (an invalid byte is one) if it has more than
 * @max, else all of it; @max 0 is no limit.
 */
size_t kp_utf8_cut(const char *str, size_t max);
/*
 * @str if it is valid UTF-8; else a malloc()ed copy in *@copy with U+FFFD
 * for each invalid byte, or NULL (ENOMEM). free(*@copy) after.
 */
char *kp_utf8_fixed(const char *str, char **copy);

#endif /* KP_ESCAPE_H */
