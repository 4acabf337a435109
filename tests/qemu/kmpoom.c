// SPDX-License-Identifier: GPL-2.0
/*
 * kmpoom: allocate anonymous memory until the OOM killer takes us, for the
 * guest test 73-oom.
 *
 *   kmpoom [MIB]
 *
 * maps and touches 1 MiB of anonymous memory at a time, up to MIB (0 or
 * none: no bound), printing "held N MiB" every 16; it never frees. A
 * bound reached prints "bound reached" and holds until killed. Exits 1
 * if a mapping fails (no OOM then: overcommit refused it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB	(1024UL * 1024)

int main(int argc, char **argv)
{
	unsigned long bound = argc > 1 ? strtoul(argv[1], NULL, 0) : 0, n;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (n = 0; !bound || n < bound; n++) {
		char *p = mmap(NULL, MIB, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("kmpoom: mmap");
			return 1;
		}
		memset(p, 0x5a, MIB);
		if (!(n % 16))
			printf("held %lu MiB\n", n);
	}
	printf("bound reached\n");
	for (;;)
		pause();
}
