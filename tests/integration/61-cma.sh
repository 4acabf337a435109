#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CMA allocations are paired (issue 21). cma_alloc() takes its pages off
# the free lists with no mm_page_alloc event, and cma_release() frees them
# one mm_page_free a page. Three users of CMA, each held and given back:
#   (a) dma_alloc_coherent() of 1 MiB, which dma-direct takes from CMA for
#       a device with no IOMMU (kmemprof_cma coherent=);
#   (b) cma_alloc() of 64 pages on the default area, where the kernel
#       exports it (kmemprof_cma pages=);
#   (c) 2 MiB from the CMA dma-buf heap (kmpheap).
# While held, the caller's site (kmpcma_coherent, kmpcma_pages, the heap's
# cma_heap_allocate) has exactly those bytes live; after the release it has
# none, and unpaired.page has not moved.
. /tests/lib.sh

grep -q '^CmaTotal:' /proc/meminfo ||
	{ echo "SKIP: no CONFIG_CMA on this kernel"; exit 77; }

[ "$(awk '$1 == "CmaTotal:" { print $2 }' /proc/meminfo)" -gt 0 ] ||
	fail "CmaTotal is 0 kB: the kernel has no CMA area (cma= on its command line?)"
PAGE=$(awk '$1 == "KernelPageSize:" { print $2 * 1024; exit }' /proc/self/smaps)
PAGE=${PAGE:-4096}

# live_bytes FUNC: live bytes of FUNC's page tags, of loaded and unloaded
# modules alike (a module loaded twice has a tag per load).
live_bytes() {
	awk -v f=" func:$1 kind:page " 'index($0, f) { s += $1 } END { print s + 0 }' \
		/proc/kmemprof
}

# Each allocation must come out of CMA, or the test proves nothing: the
# CMA trace events say so (cma_alloc_finish; cma_alloc on 5.10), with the
# number of pages. CmaFree cannot: pages freed to the per-CPU lists are
# not free in its count until drained.
T=/sys/kernel/tracing
[ -w $T/events/cma/enable ] || fail "no CMA trace events in $T/events/cma"
echo 1 > $T/events/cma/enable || fail "cannot enable the CMA trace events"
echo > $T/trace

# cma_taken WHAT PAGES: the trace since the last call shows an allocation
# of PAGES pages from CMA.
cma_taken() {
	ev=$(grep -E ' cma_alloc(_finish)?: ' $T/trace)
	echo > $T/trace
	echo "INFO $1: $(echo "$ev" | sed 's/.* \(cma_alloc[a-z_]*: \)/\1/' | tr '\n' ' ')"
	echo "$ev" | grep -Eq " count=$2 " ||
		fail "$1: no CMA allocation of $2 pages in the trace: not taken from CMA"
}

rmmod kmemprof_cma 2>/dev/null
trap 'rmmod kmemprof_cma 2>/dev/null; echo 0 > $T/events/cma/enable' EXIT

# unpaired_same WHAT BEFORE: unpaired.page is BEFORE again; else says by
# how much it moved, and is false. Pages allocated before kmemprof was
# loaded (or reloaded, by an earlier test) and freed meanwhile count there
# too (slub_debug and KASAN free slabs at any time on 6.12-debug), so a
# part whose count moved runs again, up to 3 times; a release that is not
# paired moves it by at least the pages released, every time.
unpaired_same() {
	now=$(stat_value unpaired.page)
	[ "$now" = "$2" ] && return 0
	echo "INFO unpaired.page across $1: $2 -> $now"
	return 1
}

# (a) dma_alloc_coherent().
coherent() {
	unpaired=$(stat_value unpaired.page)
	insmod /modules/kmemprof_cma.ko coherent=1048576 ||
		fail "insmod kmemprof_cma coherent=1048576"
	cma_taken coherent 256
	echo "INFO held: $(proc_line kmpcma_coherent)"
	expect_eq "kmpcma_coherent live bytes" "$(live_bytes kmpcma_coherent)" 1048576
	rmmod kmemprof_cma || fail "rmmod kmemprof_cma"
	echo "INFO released: $(grep ' func:kmpcma_coherent ' /proc/kmemprof | tail -n 1)"
	expect_eq "kmpcma_coherent live bytes after rmmod" "$(live_bytes kmpcma_coherent)" 0
	unpaired_same "dma_alloc_coherent()/dma_free_coherent()" "$unpaired"
}

# (b) cma_alloc(), where exported.
cma_pages() {
	unpaired=$(stat_value unpaired.page)
	out=$(insmod /modules/kmemprof_cma.ko pages=64 2>&1) || return 2
	cma_taken cma_alloc 64
	echo "INFO held: $(proc_line kmpcma_pages)"
	expect_eq "kmpcma_pages live bytes" "$(live_bytes kmpcma_pages)" $((64 * PAGE))
	rmmod kmemprof_cma || fail "rmmod kmemprof_cma"
	echo "INFO released: $(grep ' func:kmpcma_pages ' /proc/kmemprof | tail -n 1)"
	expect_eq "kmpcma_pages live bytes after rmmod" "$(live_bytes kmpcma_pages)" 0
	unpaired_same "cma_alloc()/cma_release()" "$unpaired"
}

# (c) each CMA dma-buf heap (cma_heaps, lib.sh), with the function that
# allocates from it. A kernel without dma-buf heaps (CONFIG_DMABUF_HEAPS,
# none in Debian's) has no /dev/dma_heap at all: (c) is left out there.
heaps=$(cma_heaps)
[ -n "$heaps" ] || [ ! -e /dev/dma_heap ] ||
	fail "no CMA heap in /dev/dma_heap: '$(ls /dev/dma_heap 2>&1 | tr '\n' ' ')'"
BYTES=2097152
dma_heap() {
	unpaired=$(stat_value unpaired.page)
	rm -f /tmp/kmpheap.in /tmp/kmpheap.out
	mkfifo /tmp/kmpheap.in
	kmpheap "$heap" $BYTES < /tmp/kmpheap.in > /tmp/kmpheap.out 2>&1 &
	pid=$!
	exec 3> /tmp/kmpheap.in
	i=0
	until grep -q '^allocated ' /tmp/kmpheap.out; do
		kill -0 $pid 2>/dev/null || fail "kmpheap: $(cat /tmp/kmpheap.out)"
		[ $i -lt 100 ] || fail "kmpheap did not allocate in 10 s"
		sleep 0.1
		i=$((i + 1))
	done
	echo "INFO $(cat /tmp/kmpheap.out)"
	cma_taken "heap $heap" $((BYTES / PAGE))
	echo "INFO held: $(proc_line $site | grep ' kind:page ')"
	expect_eq "$site live bytes" "$(live_bytes $site)" $BYTES
	echo >&3
	exec 3>&-
	wait $pid
	rc=$?
	expect_eq "kmpheap exit status ($(tr '\n' ' ' < /tmp/kmpheap.out))" $rc 0
	echo "INFO released: $(proc_line $site | grep ' kind:page ')"
	expect_eq "$site live bytes after close" "$(live_bytes $site)" 0
	unpaired_same "the heap's allocation and release" "$unpaired"
}

# tries PART: PART, up to 3 times while only unpaired.page failed it.
tries() {
	for try in 1 2 3; do
		"$1"
		case $? in
		0) return 0 ;;
		2) return 2 ;;
		esac
	done
	fail "$1: unpaired.page moved in 3 tries of 3"
}

tries coherent
if ! tries cma_pages; then
	case "$out" in
	*"Operation not supported"*)
		echo "INFO cma_alloc() is not exported by this kernel: (b) left out" ;;
	*) fail "insmod kmemprof_cma pages=64: $out" ;;
	esac
fi
if [ -n "$heaps" ]; then
	echo "$heaps" > /tmp/kmpheaps
	while read -r heap site; do
		tries dma_heap
	done < /tmp/kmpheaps
else
	echo "INFO no /dev/dma_heap (no CONFIG_DMABUF_HEAPS): (c) left out"
fi
echo "INFO page_returned $(stat_value page_returned)"
