// SPDX-License-Identifier: GPL-2.0
/*
 * kmpheap: hold one dma-buf from a dma-buf heap, for the guest test 61-cma.
 *
 *   kmpheap HEAP BYTES
 *
 * allocates BYTES from /dev/dma_heap/HEAP (or from HEAP, a path) with
 * DMA_HEAP_IOCTL_ALLOC, prints "allocated BYTES from PATH", holds the
 * buffer until a line (or the end) arrives on stdin, closes it, prints
 * "closed" and exits 0. Any failure prints why on stderr and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-heap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/*
 * Wait for a line, or the end, on stdin: read(2) a byte at a time, not
 * stdio, whose buffer would be allocated (a page touched) only now.
 */
static int wait_line(void)
{
	ssize_t n;
	char c;

	do {
		n = read(0, &c, 1);
	} while ((n == 1 && c != '\n') || (n < 0 && errno == EINTR));
	return n < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct dma_heap_allocation_data data;
	char path[256];
	unsigned long long len;
	char *end;
	int heap;

	if (argc != 3) {
		fprintf(stderr, "usage: kmpheap HEAP BYTES\n");
		return 2;
	}
	errno = 0;
	len = strtoull(argv[2], &end, 0);
	if (errno || *end || !len) {
		fprintf(stderr, "kmpheap: bad size '%s'\n", argv[2]);
		return 2;
	}
	if (strchr(argv[1], '/'))
		snprintf(path, sizeof(path), "%s", argv[1]);
	else
		snprintf(path, sizeof(path), "/dev/dma_heap/%s", argv[1]);

	heap = open(path, O_RDONLY | O_CLOEXEC);
	if (heap < 0) {
		fprintf(stderr, "kmpheap: open %s: %s\n", path, strerror(errno));
		return 1;
	}
	memset(&data, 0, sizeof(data));
	data.len = len;
	data.fd_flags = O_RDWR | O_CLOEXEC;
	if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data) < 0) {
		fprintf(stderr, "kmpheap: DMA_HEAP_IOCTL_ALLOC of %llu bytes from %s: %s\n",
			len, path, strerror(errno));
		return 1;
	}
	close(heap);
	printf("allocated %llu from %s\n", len, path);
	fflush(stdout);

	if (wait_line()) {
		fprintf(stderr, "kmpheap: reading stdin: %s\n", strerror(errno));
		return 1;
	}
	if (close(data.fd) < 0) {
		fprintf(stderr, "kmpheap: close: %s\n", strerror(errno));
		return 1;
	}
	printf("closed\n");
	return 0;
}
