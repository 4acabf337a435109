// SPDX-License-Identifier: GPL-2.0
/*
 * kmpcompact: anonymous memory with holes in it, for the guest test
 * 62-migrate to compact.
 *
 *   kmpcompact MIB [STRIDE]
 *
 * prints "started", then runs the commands it reads from stdin, a line
 * each, and answers each with a line:
 *
 *   take      map MIB MiB of private anonymous memory (no transparent huge
 *             pages), write every page, give back all but one page in
 *             STRIDE (2 by default) with MADV_DONTNEED (munmap() where
 *             there is no madvise()), so that the pages
 *             it keeps lie between free ones; answers
 *             "ready held=BYTES pages=N pagesize=P pfns=LOW-HIGH"
 *   copy SRC DST  copy the file SRC to DST (created or truncated); answers
 *             "copied BYTES", or "error: WHY"
 *   anything else, or the end of stdin: check that every kept page still
 *             holds what was written, answer "moved=M of N" and exit 0
 *
 * M counts the kept pages whose page frame changed since "take". Frames
 * come from /proc/self/pagemap, which shows them to root only: without
 * them, pfns= is left out and "moved=unknown of N" answered. Any failure
 * prints why (on stdout, the test's one pipe from it) and exits 1.
 *
 * The test counts the anonymous pages of every process, this one's too,
 * and copies /proc/kmemprof with "copy" so that no command need be forked
 * between its counts. So this program touches nothing new after "take":
 * its buffers are written before, its stdin is read with read(2), not
 * stdio (whose buffer would be allocated on the first read), and it runs
 * on one CPU and, once the holes are made, writes a few more pages, whose
 * folios push the ones it gave back out of that CPU's LRU cache (which
 * holds a reference to each folio it caches): those are freed then, not at
 * the next drain.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* /proc/PID/pagemap: bits 0-54 the frame, bit 63 present. */
#define PM_PFN_MASK	0x007fffffffffffffULL
#define PM_PRESENT	0x8000000000000000ULL

/* More than a CPU's LRU cache holds: 15 folios, 31 from 6.6. */
#define FLUSH_PAGES	64

static size_t page_size, npages, stride, kept;
static unsigned char *mem;
static unsigned long long *pfns, *now;
static int known;

static unsigned char *kept_page(size_t k)
{
	return mem + k * stride * page_size;
}

/* The frame of every kept page into @out; -1 when one is not known. */
static int read_pfns(unsigned long long *out)
{
	unsigned long long e;
	size_t k;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -1;
	for (k = 0; k < kept; k++) {
		off_t off = (unsigned long)kept_page(k) / page_size * sizeof(e);

		if (pread(fd, &e, sizeof(e), off) != sizeof(e) ||
		    !(e & PM_PRESENT) || !(e & PM_PFN_MASK)) {
			close(fd);
			return -1;
		}
		out[k] = e & PM_PFN_MASK;
	}
	close(fd);
	return 0;
}

static void print_range(const unsigned long long *p)
{
	unsigned long long lo = p[0], hi = p[0];
	size_t k;

	for (k = 1; k < kept; k++) {
		if (p[k] < lo)
			lo = p[k];
		if (p[k] > hi)
			hi = p[k];
	}
	printf(" pfns=%#llx-%#llx", lo, hi);
}

/* One line of stdin, without its newline; -1 at the end or on an error. */
static int read_line(char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	char c;

	for (;;) {
		n = read(0, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = 0;
		if (n <= 0)
			return -1;
		if (c == '\n')
			break;
		if (len + 1 < size)
			buf[len++] = c;
	}
	buf[len] = '\0';
	return 0;
}

static char copy_buf[65536];

static void copy(const char *src, const char *dst)
{
	unsigned long long total = 0;
	int in, out;
	ssize_t n;

	in = open(src, O_RDONLY);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (in < 0 || out < 0) {
		printf("error: open %s: %s\n", in < 0 ? src : dst,
		       strerror(errno));
		goto out;
	}
	while ((n = read(in, copy_buf, sizeof(copy_buf))) > 0) {
		if (write(out, copy_buf, n) != n) {
			printf("error: write %s: %s\n", dst, strerror(errno));
			goto out;
		}
		total += n;
	}
	if (n < 0)
		printf("error: read %s: %s\n", src, strerror(errno));
	else
		printf("copied %llu\n", total);
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

static int take(void)
{
	size_t i;

	for (i = 0; i < npages; i++)
		memset(mem + i * page_size, (int)(i % 251) + 1, page_size);
	for (i = 0; i < npages; i++) {
		if (i % stride == 0)
			continue;
		/* no madvise() without ADVISE_SYSCALLS (the 5.10 guest) */
		if (madvise(mem + i * page_size, page_size, MADV_DONTNEED) &&
		    munmap(mem + i * page_size, page_size)) {
			printf("kmpcompact: MADV_DONTNEED: %s\n", strerror(errno));
			return -1;
		}
	}
	for (i = npages; i < npages + FLUSH_PAGES; i++)
		mem[i * page_size] = 1;
	known = !read_pfns(pfns);
	printf("ready held=%zu pages=%zu pagesize=%zu", kept * page_size,
	       kept, page_size);
	if (known)
		print_range(pfns);
	printf("\n");
	return 0;
}

static int finish(void)
{
	size_t k, moved = 0;

	for (k = 0; k < kept; k++) {
		unsigned char *p = kept_page(k);

		if (p[0] != (unsigned char)(k * stride % 251 + 1) ||
		    memcmp(p, p + 1, page_size - 1)) {
			printf("kmpcompact: page %zu changed\n", k * stride);
			return 1;
		}
	}
	if (!known || read_pfns(now)) {
		printf("moved=unknown of %zu\n", kept);
		return 0;
	}
	for (k = 0; k < kept; k++)
		moved += now[k] != pfns[k];
	printf("moved=%zu of %zu\n", moved, kept);
	return 0;
}

int main(int argc, char **argv)
{
	char line[512], *dst;
	bool taken = false;
	cpu_set_t one;
	long mib;
	int cpu;

	mib = argc >= 2 ? strtol(argv[1], NULL, 10) : 0;
	stride = argc >= 3 ? strtoul(argv[2], NULL, 10) : 2;
	if (mib <= 0 || stride < 1 || argc > 3) {
		fprintf(stderr, "usage: kmpcompact MIB [STRIDE]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	npages = (size_t)mib * 1024 * 1024 / page_size;
	kept = (npages + stride - 1) / stride;
	mem = mmap(NULL, (npages + FLUSH_PAGES) * page_size,
		   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pfns = calloc(kept, sizeof(*pfns));
	now = calloc(kept, sizeof(*now));
	if (mem == MAP_FAILED || !pfns || !now) {
		printf("kmpcompact: %ld MiB: %s\n", mib, strerror(errno));
		return 1;
	}
	/* Base pages, each its own folio: not a kernel without THP's error. */
	madvise(mem, (npages + FLUSH_PAGES) * page_size, MADV_NOHUGEPAGE);
	cpu = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		printf("kmpcompact: sched_setaffinity: %s\n", strerror(errno));
		return 1;
	}
	/* Written now, so that nothing later takes a page. */
	memset(pfns, 0, kept * sizeof(*pfns));
	memset(now, 0, kept * sizeof(*now));
	memset(copy_buf, 0, sizeof(copy_buf));
	printf("started\n");

	for (;;) {
		if (read_line(line, sizeof(line))) {
			if (errno) {
				printf("kmpcompact: reading stdin: %s\n",
				       strerror(errno));
				return 1;
			}
			break;
		}
		if (!strcmp(line, "take") && !taken) {
			if (take())
				return 1;
			taken = true;
		} else if (!strncmp(line, "copy ", 5) && strchr(line + 5, ' ')) {
			dst = strchr(line + 5, ' ');
			*dst++ = '\0';
			copy(line + 5, dst);
		} else {
			break;
		}
	}
	return finish();
}
