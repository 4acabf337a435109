/* SPDX-License-Identifier: GPL-2.0 */
/* kmemprof reader: files written safely (outfile.c; not an API). */
#ifndef KP_OUTFILE_H
#define KP_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* The mode of what the reader writes, unless --file-mode says more. */
#define KP_FILE_MODE 0600

struct kp_outfile {
	FILE *f;		/* write here */
	char path[4096];	/* the target */
	char tmp[4096];		/* the file being written, beside it */
	bool stream;		/* a device or FIFO, written through */
};

/*
 * A file for @path made with mkstemp() beside it, mode @mode; NULL or
 * "-": stdout; a device or FIFO (/dev/null, /dev/stdout), written
 * through. 0, or a negative errno with @err.
 */
int kp_outfile_open(struct kp_outfile *of, const char *path, mode_t mode,
		    char *err, size_t errlen);
/*
 * Flush, fsync and close; if @ok, rename into place (over what is there
 * if @replace, else refused if anything is), else remove. 0 once in
 * place; a negative errno otherwise (with @err if @ok).
 */
int kp_outfile_close(struct kp_outfile *of, bool ok, bool replace,
		     char *err, size_t errlen);
/*
 * @path open for appends (a record): made as above if missing; else it
 * must be a regular file of the caller's, not a symlink, with no mode
 * bit beyond @mode. NULL with @err.
 */
FILE *kp_outfile_append(const char *path, mode_t mode, char *err,
			size_t errlen);
/* --file-mode: octal, 0600 with at most group and other read; -1 if not. */
int kp_file_mode(const char *s, mode_t *mode);

#endif /* KP_OUTFILE_H */
