/* SPDX-License-Identifier: GPL-2.0 */
/* kmemprof reader: JSON strings (jsonstr.c). */
#ifndef KP_JSONSTR_H
#define KP_JSONSTR_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at @s, 0 if there is none. */
size_t kp_utf8_len(const unsigned char *s);
/* The first @len bytes of @str (up to a NUL) as a JSON string. */
void kp_json_strn(FILE *out, const char *str, size_t len);
/* @str as a JSON string; null for NULL. */
void kp_json_str(FILE *out, const char *str);

#endif /* KP_JSONSTR_H */
