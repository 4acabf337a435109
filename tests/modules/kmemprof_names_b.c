// SPDX-License-Identifier: GPL-2.0
/* One of two modules of the same code: see kmemprof_names.h. */
#define KMPNAMES_FN(i)	kmpnames_b_##i
#define KMPNAMES_WIDE
#include "kmemprof_names.h"
