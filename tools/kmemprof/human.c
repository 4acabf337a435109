// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: sizes in IEC units as `numfmt --to=iec` prints them:
 * below 1024 as they are; above, in the largest unit that keeps the
 * number under 1024, rounded away from zero, with one decimal below 10.
 */
#include <inttypes.h>
#include <stdio.h>

#include "profile.h"

void kp_iec(int64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	const char *sign = v < 0 ? "-" : "";
	uint64_t scale = 1, tenths;
	int u = -1;

	if (mag < 1024) {
		snprintf(buf, len, "%" PRId64, v);
		return;
	}
	while (u < 5 && mag >= scale * 1024) {
		scale *= 1024;
		u++;
	}
	/* Tenths of the unit, rounded up. */
	tenths = mag / scale * 10 + ((mag % scale) * 10 + scale - 1) / scale;
	if (tenths >= 100) {
		/* Ten or more: whole units, rounded up. */
		uint64_t whole = (mag + scale - 1) / scale;

		if (whole >= 1024 && u < 5) {
			scale *= 1024;
			u++;
			tenths = mag / scale * 10 +
				 ((mag % scale) * 10 + scale - 1) / scale;
			snprintf(buf, len, "%s%" PRIu64 ".%" PRIu64 "%c", sign,
				 tenths / 10, tenths % 10, units[u]);
			return;
		}
		snprintf(buf, len, "%s%" PRIu64 "%c", sign, whole, units[u]);
		return;
	}
	snprintf(buf, len, "%s%" PRIu64 ".%" PRIu64 "%c", sign, tenths / 10,
		 tenths % 10, units[u]);
}
