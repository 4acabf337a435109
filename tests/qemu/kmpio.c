// SPDX-License-Identifier: GPL-2.0
/*
 * kmpio: one write(2) or read(2) at a given offset, for the guest's
 * hostile-input tests; busybox's tools cannot make an empty write, a write
 * at an odd offset or a single read of a chosen size.
 *
 *   kmpio write FILE OFFSET DATA     prints "ok N" or "err ENAME"
 *   kmpio writelen FILE OFFSET LEN   LEN bytes of '1'
 *   kmpio read FILE OFFSET SIZE      the bytes read, or "err ENAME"
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *ename(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	default: return "EOTHER";
	}
}

int main(int argc, char **argv)
{
	off_t off;
	size_t len;
	ssize_t n;
	char *buf;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: kmpio write|writelen|read FILE OFFSET ARG\n");
		return 2;
	}
	off = strtoll(argv[3], NULL, 10);
	if (!strcmp(argv[1], "read")) {
		len = strtoul(argv[4], NULL, 10);
		buf = malloc(len + 1);
		fd = open(argv[2], O_RDONLY);
		if (!buf || fd < 0) {
			printf("err %s\n", ename(errno));
			return 1;
		}
		n = pread(fd, buf, len, off);
		if (n < 0) {
			printf("err %s\n", ename(errno));
			return 1;
		}
		fwrite(buf, 1, n, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "writelen")) {
		len = strtoul(argv[4], NULL, 10);
		buf = malloc(len + 1);
		if (!buf)
			return 2;
		memset(buf, '1', len);
	} else {
		buf = argv[4];
		len = strlen(buf);
	}
	fd = open(argv[2], O_WRONLY);
	if (fd < 0) {
		printf("err %s\n", ename(errno));
		return 1;
	}
	n = pwrite(fd, buf, len, off);
	if (n < 0) {
		printf("err %s\n", ename(errno));
		return 1;
	}
	printf("ok %zd\n", n);
	return 0;
}
