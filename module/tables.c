// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof: the root of the words every event reads, kmp_tab. tables.h
 * says what each word is and where it is set; this file only holds it,
 * so that tables.h belongs to a file of its own below every table.
 */
#include "internal.h"
#include "tables.h"

struct kmp_tables kmp_tab __read_mostly;
