// SPDX-License-Identifier: GPL-2.0
/*
 * runas UID COMMAND [ARG...]: run COMMAND as UID (and GID UID) with no
 * supplementary groups and no capabilities. For the guest's permission
 * tests; busybox has no such applet.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t id;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID COMMAND [ARG...]\n");
		return 2;
	}
	id = (uid_t)strtoul(argv[1], NULL, 10);
	if (setgroups(0, NULL) || setgid(id) || setuid(id)) {
		perror("runas");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror("runas: exec");
	return 127;
}
