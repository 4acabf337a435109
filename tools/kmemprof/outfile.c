// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: every file the reader writes (-o, --pprof,
 * --prometheus-file, --record, serve --make-token).
 *
 * What it writes comes from root-only files (/proc/kmemprof is 0400), and
 * it usually runs as root, in directories others may write to (a
 * textfile collector's, /tmp). So a file is never opened by its name:
 * it is made with mkstemp() beside its target (O_EXCL: no symlink or
 * file planted there is followed or reused), given its mode with fchmod()
 * (0600 unless the user asks for more, umask or not), written, and
 * renamed over the target, which a reader such as node_exporter sees
 * whole or not at all; a symlink at the target is replaced, not followed.
 *
 * A device or a FIFO (-o /dev/null, /dev/stdout, a named pipe) has
 * nothing to replace: it is written through, if it is one already and
 * any symlink to it is root's or the caller's (/dev/stdout is root's; a
 * symlink planted by someone else to /dev/sda is not followed).
 *
 * A record (watch --record) grows by appends: rewriting it at each
 * refresh would cost the square of its length. It is made the same way
 * when missing; an existing one is opened with O_NOFOLLOW, and must be a
 * regular file of the caller's whose mode grants no more than asked.
 *
 * No state: each kp_outfile is its caller's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* "DIR/.NAME.XXXXXX" beside @path. */
static int tmp_name(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	int n;

	if (!*base)
		return -EISDIR;
	n = snprintf(buf, len, "%.*s.%s.XXXXXX", dirlen, path, base);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* @path is a device or FIFO, reached through our own or root's symlink. */
static bool is_stream(const char *path)
{
	struct stat l, st;

	if (lstat(path, &l) || stat(path, &st))
		return false;
	if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
		return false;
	return !S_ISLNK(l.st_mode) || !l.st_uid || l.st_uid == geteuid();
}

int kp_outfile_open(struct kp_outfile *of, const char *path, mode_t mode,
		    char *err, size_t errlen)
{
	int fd, e;

	memset(of, 0, sizeof(*of));
	if (!path || !strcmp(path, "-")) {
		of->f = stdout;
		return 0;
	}
	if (is_stream(path)) {
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		of->f = fd < 0 ? NULL : fdopen(fd, "w");
		if (!of->f) {
			e = -errno;
			if (fd >= 0)
				close(fd);
			snprintf(err, errlen, "cannot write %s: %s", path,
				 strerror(-e));
			return e;
		}
		of->stream = true;
		return 0;
	}
	e = tmp_name(path, of->tmp, sizeof(of->tmp));
	if (!e && strlen(path) >= sizeof(of->path))
		e = -ENAMETOOLONG;
	if (e) {
		snprintf(err, errlen, "%s: %s", path, strerror(-e));
		return e;
	}
	snprintf(of->path, sizeof(of->path), "%s", path);
	fd = mkostemp(of->tmp, O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(-e));
		return e;
	}
	if (fchmod(fd, mode & 07777) || !(of->f = fdopen(fd, "w"))) {
		e = -errno;
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(-e));
		close(fd);
		unlink(of->tmp);
		return e;
	}
	return 0;
}

int kp_outfile_close(struct kp_outfile *of, bool ok, bool replace,
		     char *err, size_t errlen)
{
	int e = 0;

	if (!of->f)
		return -EBADF;
	if (of->f == stdout) {
		of->f = NULL;
		if (fflush(stdout) && ok) {
			e = errno;
			snprintf(err, errlen, "writing the output: %s",
				 strerror(e));
			return -e;
		}
		return ok ? 0 : -ECANCELED;
	}
	if (of->stream) {
		if ((fclose(of->f) || !ok) && ok) {
			e = errno;
			of->f = NULL;
			snprintf(err, errlen, "writing the output: %s",
				 strerror(e));
			return -e;
		}
		of->f = NULL;
		return ok ? 0 : -ECANCELED;
	}
	errno = 0;
	if (fflush(of->f) || ferror(of->f) || fsync(fileno(of->f)))
		e = errno ? errno : EIO;
	if (fclose(of->f) && !e)
		e = errno;
	of->f = NULL;
	if (ok && !e) {
		if (replace ? rename(of->tmp, of->path) :
		    renameat2(AT_FDCWD, of->tmp, AT_FDCWD, of->path,
			      RENAME_NOREPLACE))
			e = errno;
		else
			return 0;
	}
	unlink(of->tmp);
	if (!ok)
		return -ECANCELED;
	snprintf(err, errlen, e == EEXIST ? "%s exists" :
		 "cannot write %s: %s", of->path, strerror(e));
	return -e;
}

FILE *kp_outfile_append(const char *path, mode_t mode, char *err,
			size_t errlen)
{
	struct kp_outfile of;
	struct stat st;
	FILE *f;
	int fd;

	fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY |
		  O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT) {
		/* A new one, empty, made as any other and kept open. */
		if (kp_outfile_open(&of, path, mode, err, errlen))
			return NULL;
		fd = dup(fileno(of.f));
		if (fd < 0 || kp_outfile_close(&of, true, false, err,
					       errlen)) {
			if (fd < 0)
				snprintf(err, errlen, "cannot write %s: %s",
					 path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return NULL;
		}
		if (fcntl(fd, F_SETFL, O_APPEND))
			goto fail;
	} else if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s%s", path,
			 strerror(errno), errno == ELOOP ?
			 " (a symlink: not followed)" : "");
		return NULL;
	} else if (fstat(fd, &st)) {
		goto fail;
	} else if (!S_ISREG(st.st_mode) ||
		   st.st_uid != geteuid() || (st.st_mode & 07777 & ~mode)) {
		snprintf(err, errlen,
			 !S_ISREG(st.st_mode) ? "%s: not a regular file" :
			 st.st_uid != geteuid() ? "%s: not the caller's file" :
			 "%s: its mode %04o lets more read it than %04o (--file-mode)",
			 path, (unsigned)(st.st_mode & 07777), (unsigned)mode);
		close(fd);
		return NULL;
	} else if (fcntl(fd, F_SETFL, O_APPEND)) {
		goto fail;
	}
	f = fdopen(fd, "a");
	if (f)
		return f;
fail:
	snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	close(fd);
	return NULL;
}

int kp_file_mode(const char *s, mode_t *mode)
{
	unsigned long m;
	char *end;

	errno = 0;
	m = strtoul(s, &end, 8);
	if (errno || end == s || *end || (m & ~(unsigned long)0644) ||
	    (m & 0600) != 0600)
		return -1;
	*mode = (mode_t)m;
	return 0;
}
