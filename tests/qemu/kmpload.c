// SPDX-License-Identifier: GPL-2.0
/*
 * kmpload: a fixed, kernel-heavy load for make bench's macro table.
 *
 *   kmpload DIR [SCALE]
 *
 * Three phases, each a fixed amount of work, timed with CLOCK_MONOTONIC
 * (under -icount shift=0 a guest ns is one instruction):
 *
 *   msg   hackbench's pattern: 10 sender and 10 receiver processes, each
 *         sender writes 100-byte messages to every receiver over a unix
 *         stream socket pair, or, on a kernel without CONFIG_UNIX, over a
 *         TCP connection on loopback (which must be up);
 *   fork  fork() and _exit() of a child, waited for, one after another;
 *   file  create, write 4 KiB, fstat, close, stat and unlink of files in
 *         DIR (a tmpfs), a batch of 64 at a time.
 *
 * It prints "PHASE NS" for each phase and "total NS".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GROUP	10
#define MSGSZ	100

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void full_write(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write");
		buf += n;
		len -= n;
	}
}

/* A connected pair: a unix socket pair, else TCP over loopback. */
static void stream_pair(int sv[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int l, one = 1;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0)
		return;
	if (errno != EAFNOSUPPORT)
		die("socketpair");
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(l, 1) < 0 || getsockname(l, (struct sockaddr *)&a, &len) < 0)
		die("tcp listen");
	sv[1] = socket(AF_INET, SOCK_STREAM, 0);
	if (sv[1] < 0 || connect(sv[1], (struct sockaddr *)&a, sizeof(a)) < 0)
		die("tcp connect");
	sv[0] = accept(l, NULL, NULL);
	if (sv[0] < 0)
		die("tcp accept");
	/* each write a segment of its own, as a unix socket's is a message */
	setsockopt(sv[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(l);
}

/* Each receiver reads what GROUP senders write to it, loops times each. */
static void phase_msg(int loops)
{
	int fds[GROUP][2], i, j, status;
	char buf[MSGSZ];
	pid_t pid;

	memset(buf, 'k', sizeof(buf));
	for (i = 0; i < GROUP; i++)
		stream_pair(fds[i]);
	for (i = 0; i < GROUP; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			size_t left = (size_t)GROUP * loops * MSGSZ;

			for (j = 0; j < GROUP; j++)
				close(fds[j][1]);
			while (left) {
				ssize_t n = read(fds[i][0], buf,
						 left < sizeof(buf) ? left : sizeof(buf));

				if (n < 0 && errno == EINTR)
					continue;
				if (n <= 0)
					die("read");
				left -= n;
			}
			_exit(0);
		}
	}
	for (i = 0; i < GROUP; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			int l;

			for (j = 0; j < GROUP; j++)
				close(fds[j][0]);
			for (l = 0; l < loops; l++)
				for (j = 0; j < GROUP; j++)
					full_write(fds[j][1], buf, MSGSZ);
			_exit(0);
		}
	}
	for (i = 0; i < GROUP; i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
	for (i = 0; i < 2 * GROUP; i++)
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			die("msg child");
}

static void phase_fork(int n)
{
	int i, status;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
	}
}

static void phase_file(const char *dir, int batches)
{
	static char data[4096];
	char path[256];
	struct stat st;
	int b, i, fd;

	memset(data, 'f', sizeof(data));
	for (b = 0; b < batches; b++) {
		for (i = 0; i < 64; i++) {
			snprintf(path, sizeof(path), "%s/kmpload.%d", dir, i);
			fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
			if (fd < 0)
				die(path);
			full_write(fd, data, sizeof(data));
			if (fstat(fd, &st) < 0)
				die("fstat");
			close(fd);
		}
		for (i = 0; i < 64; i++) {
			snprintf(path, sizeof(path), "%s/kmpload.%d", dir, i);
			if (stat(path, &st) < 0 || unlink(path) < 0)
				die(path);
		}
	}
}

int main(int argc, char **argv)
{
	long long t0, t1, t2, t3;
	int scale;

	if (argc < 2) {
		fprintf(stderr, "usage: kmpload DIR [SCALE]\n");
		return 2;
	}
	scale = argc > 2 ? atoi(argv[2]) : 1;
	if (scale < 1) {
		fprintf(stderr, "kmpload: SCALE must be a positive number\n");
		return 2;
	}
	t0 = now_ns();
	phase_msg(20 * scale);
	t1 = now_ns();
	phase_fork(100 * scale);
	t2 = now_ns();
	phase_file(argv[1], 16 * scale);
	t3 = now_ns();
	printf("msg %lld\nfork %lld\nfile %lld\ntotal %lld\n",
	       t1 - t0, t2 - t1, t3 - t2, t3 - t0);
	return 0;
}
