// SPDX-License-Identifier: GPL-2.0
/*
 * kmpcompact: anonymous memory with holes in it, for the guest test
 * 62-migrate to compact.
 *
 *   kmpcompact MIB
 *
 * maps MIB MiB of private anonymous memory (no transparent huge pages),
 * writes every page, then gives every other page back with MADV_DONTNEED,
 * so that the pages it keeps lie between free ones. It prints
 *
 *   ready held=BYTES pages=N pagesize=P
 *
 * and waits for a line (or the end) on stdin. Then it checks that every
 * page it kept still holds what it wrote, prints
 *
 *   moved=M of N
 *
 * where M counts the kept pages whose page frame changed meanwhile (read
 * from /proc/self/pagemap, which shows frames to root only; "moved=unknown"
 * elsewhere), and exits 0. Any failure prints why on stderr and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* /proc/PID/pagemap: bits 0-54 the frame, bit 63 present. */
#define PM_PFN_MASK	0x007fffffffffffffULL
#define PM_PRESENT	0x8000000000000000ULL

static size_t page_size;
static unsigned char *mem;
static size_t npages;	/* mapped */

/* The frame of every kept (odd) page, 0 when not known. */
static int read_pfns(unsigned long long *pfns)
{
	unsigned long long e;
	size_t i;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -1;
	for (i = 1; i < npages; i += 2) {
		off_t off = ((unsigned long)mem / page_size + i) * sizeof(e);

		if (pread(fd, &e, sizeof(e), off) != sizeof(e)) {
			close(fd);
			return -1;
		}
		pfns[i / 2] = (e & PM_PRESENT) ? (e & PM_PFN_MASK) : 0;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long *before, *after;
	size_t i, kept, moved;
	char line[64];
	int known;
	long mib;

	mib = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
	if (mib <= 0) {
		fprintf(stderr, "usage: kmpcompact MIB\n");
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	npages = (size_t)mib * 1024 * 1024 / page_size;
	kept = npages / 2;
	mem = mmap(NULL, npages * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	before = calloc(kept, sizeof(*before));
	after = calloc(kept, sizeof(*after));
	if (mem == MAP_FAILED || !before || !after) {
		fprintf(stderr, "kmpcompact: %ld MiB: %s\n", mib, strerror(errno));
		return 1;
	}
	/* Base pages, each its own folio: not a kernel without THP's error. */
	madvise(mem, npages * page_size, MADV_NOHUGEPAGE);
	for (i = 0; i < npages; i++)
		memset(mem + i * page_size, (int)(i % 251) + 1, page_size);
	for (i = 0; i < npages; i += 2) {
		if (madvise(mem + i * page_size, page_size, MADV_DONTNEED)) {
			fprintf(stderr, "kmpcompact: MADV_DONTNEED: %s\n",
				strerror(errno));
			return 1;
		}
	}
	known = !read_pfns(before);
	for (i = 0; known && i < kept; i++)
		known = before[i] != 0;
	printf("ready held=%zu pages=%zu pagesize=%zu\n", kept * page_size,
	       kept, page_size);
	fflush(stdout);

	if (!fgets(line, sizeof(line), stdin) && ferror(stdin)) {
		fprintf(stderr, "kmpcompact: reading stdin: %s\n", strerror(errno));
		return 1;
	}
	for (i = 1; i < npages; i += 2) {
		unsigned char *p = mem + i * page_size;

		if (p[0] != (unsigned char)(i % 251 + 1) ||
		    memcmp(p, p + 1, page_size - 1)) {
			fprintf(stderr, "kmpcompact: page %zu changed\n", i);
			return 1;
		}
	}
	if (!known || read_pfns(after)) {
		printf("moved=unknown of %zu\n", kept);
		return 0;
	}
	moved = 0;
	for (i = 0; i < kept; i++)
		moved += after[i] != before[i];
	printf("moved=%zu of %zu\n", moved, kept);
	return 0;
}
