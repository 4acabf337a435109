// SPDX-License-Identifier: GPL-2.0
/*
 * kmemprof reader: the sysctl knobs under /proc/sys/kmemprof/, written as
 * the module wants them: the whole value in one write(2) at offset 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"

#define KNOB_DIR "/proc/sys/kmemprof"

/* The message for a failed write of @knob=@value, from @e (an errno). */
void kp_knob_error(const char *path, const char *knob, const char *value,
		   int e, char *err, size_t errlen)
{
	char dir[512];
	struct stat st;

	switch (e) {
	case EACCES:
	case EPERM:
		snprintf(err, errlen, "writing %s needs root", path);
		return;
	case ENOENT:
		if (stat(kp_path(KNOB_DIR, dir, sizeof(dir)), &st))
			snprintf(err, errlen,
				 "the kmemprof module is not loaded (no %s)",
				 dir);
		else
			snprintf(err, errlen,
				 "no knob '%s' (see 'kmemprof set' for the list)",
				 knob);
		return;
	case EINVAL:
		snprintf(err, errlen, "the module refused %s=%s (EINVAL)", knob,
			 value);
		return;
	default:
		snprintf(err, errlen, "writing %s: %s", path, strerror(e));
	}
}

static int knob_path(const char *knob, char *path, size_t len, char *err,
		     size_t errlen)
{
	char rel[256];

	if (!*knob || strchr(knob, '/') || knob[0] == '.' ||
	    strlen(knob) > 64) {
		snprintf(err, errlen, "no knob '%s'", knob);
		return -1;
	}
	snprintf(rel, sizeof(rel), KNOB_DIR "/%s", knob);
	kp_path(rel, path, len);
	return 0;
}

int kp_knob_write(const char *knob, const char *value, char *err,
		  size_t errlen)
{
	size_t len = strlen(value);
	char path[512];
	ssize_t n;
	int fd, e;

	if (knob_path(knob, path, sizeof(path), err, errlen))
		return -1;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		kp_knob_error(path, knob, value, errno, err, errlen);
		return -1;
	}
	n = write(fd, value, len);
	e = errno;
	if (close(fd) && n >= 0) {
		e = errno;
		n = -1;
	}
	if (n < 0 || (size_t)n != len) {
		kp_knob_error(path, knob, value, n < 0 ? e : EIO, err, errlen);
		return -1;
	}
	return 0;
}

int kp_knob_read(const char *knob, char *buf, size_t len)
{
	char path[512], err[64];
	ssize_t n;
	int fd;

	if (!len || knob_path(knob, path, sizeof(path), err, sizeof(err)))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}
