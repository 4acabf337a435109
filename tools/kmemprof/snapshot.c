// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: snapshots. A snapshot is the text of /proc/kmemprof (or
 * /proc/allocinfo) with one comment line added after the version line,
 *
 *   # snapshot time:1763781234.567 source:/proc/kmemprof
 *
 * so that it still parses as what it was taken from. A record is
 * snapshots concatenated: each starts at its version line (series.c
 * reads one). What two of them differ by is diff.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

int kp_snapshot_write(FILE *out, FILE *in, const char *name, double time,
		      char *err, size_t errlen)
{
	struct kp_lines l = { .in = in, .name = name };
	struct kp_profile p;
	char *text = NULL;
	size_t size = 0;
	FILE *mem, *rd;
	int rc;

	/* Read it whole, leaving out an older snapshot line. */
	mem = open_memstream(&text, &size);
	if (!mem)
		return kp_fail(err, errlen, name, 0, "out of memory");
	while ((rc = kp_next(&l, err, errlen)) > 0) {
		if (!strncmp(l.line, "# snapshot ", 11))
			continue;
		fprintf(mem, "%s\n", l.line);
		if (l.no == 1)
			fprintf(mem, "# snapshot time:%.3f source:%s\n", time,
				name);
	}
	free(l.line);
	if (fclose(mem) || rc < 0) {
		free(text);
		return rc < 0 ? -1 :
		       kp_fail(err, errlen, name, 0, "out of memory");
	}
	/* Only what parses is a snapshot. */
	rd = fmemopen(text, size ? size : 1, "r");
	if (!rd || kp_parse(rd, name, &p, err, errlen)) {
		if (rd)
			fclose(rd);
		else
			kp_fail(err, errlen, name, 0, "out of memory");
		free(text);
		return -1;
	}
	fclose(rd);
	kp_free(&p);
	rc = fwrite(text, 1, size, out) == size ? 0 : -1;
	free(text);
	return rc;
}
