/* SPDX-License-Identifier: GPL-2.0 */
/* kmemprof reader: JSON strings (jsonstr.c). */
#ifndef KP_JSONSTR_H
#define KP_JSONSTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "escape.h"

struct kp_site;

/* The first @len bytes of @str (up to a NUL) as a JSON string. */
void kp_json_strn(FILE *out, const char *str, size_t len);
/* @str as a JSON string; null for NULL. */
void kp_json_str(FILE *out, const char *str);

/*
 * A tag's fields, written once for the profile's JSON (json.c) and the
 * views' (viewcmd.c), which order them differently: "site", "module",
 * "func" and "kind", after the object's '{';
 */
void kp_json_tag_names(FILE *out, const struct kp_site *t);
/* ,"callers":["a","b"] from "a,b"; [] for none; */
void kp_json_callers(FILE *out, const char *callers);
/*
 * ,"srcline":...,"srcfunc":...: both, null where unresolved, if @always;
 * else only those it has.
 */
void kp_json_srcline(FILE *out, const struct kp_site *t, bool always);

#endif /* KP_JSONSTR_H */
