#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The whole-RAM account (issue 22, part 4): kmemprof meminfo, the static
# reader, after a small load (file churn, kmemprof_hog's 2 MiB, 4 MiB held
# from the CMA dma-buf heap). Its lines add up to MemTotal exactly, live
# and on copies of the three files it reads; on the copies, each line is
# what awk makes of the files; and kmemprof's lines hold at least the
# meminfo categories they claim (Slab, PageTables, AnonPages, Cached,
# Buffers, VmallocUsed: pages kmemprof sees whole, before load or since).
# What nothing tracks, untracked, is within 1% of MemTotal. The kernel
# stacks and percpu chunks lines hold meminfo's KernelStack and Percpu
# (less what nothing can find: idle tasks' stacks, the first chunk).
. /tests/lib.sh
keep_module

rmmod kmemprof_hog 2>/dev/null
# A fresh load: the before_load lines as the scan at load makes them.
reload || fail "insmod kmemprof"
insmod /modules/kmemprof_hog.ko pages=256 order=1 || fail "insmod hog"
workload 50
# 4 MiB from the CMA heap, held until the end (or until the shell exits,
# which closes the fifo): CMA in use, on the heap's line, since load.
heap=$(cma_heaps | awk 'NR == 1 { print $1 }')
# A kernel without dma-buf heaps (Debian's) has no /dev/dma_heap: no CMA
# is held there, and the checks below take 0 for it.
[ -n "$heap" ] || [ ! -e /dev/dma_heap ] || fail "no CMA heap in /dev/dma_heap"
CMA=0
[ -n "$heap" ] || echo "INFO no /dev/dma_heap (no CONFIG_DMABUF_HEAPS): no CMA held"
if [ -n "$heap" ]; then
CMA=4194304
rm -f /tmp/mi-heap.in /tmp/mi-heap.out
mkfifo /tmp/mi-heap.in
kmpheap $heap $CMA < /tmp/mi-heap.in > /tmp/mi-heap.out 2>&1 &
heap_pid=$!
exec 3> /tmp/mi-heap.in
i=0
until grep -q '^allocated ' /tmp/mi-heap.out; do
	kill -0 $heap_pid 2>/dev/null || fail "kmpheap: $(cat /tmp/mi-heap.out)"
	[ $i -lt 100 ] || fail "kmpheap did not allocate in 10 s"
	sleep 0.1
	i=$((i + 1))
done
fi

# series FILE CATEGORY [FAMILY]: a kmemprof_meminfo_* series' value.
series() {
	awk -v f="kmemprof_meminfo_${3:-bytes}" -v c="category=\"$2\"" '
		index($0, f "{") == 1 && index($0, c) { print $NF; n++ }
		END { if (!n) print "none" }' "$1"
}
# lines FILE: how many lines, and their sum.
lines() {
	awk '/^kmemprof_meminfo_bytes\{/ { n++; s += $NF } END { print n, s }' "$1"
}
kb() { awk -v k="$1:" '$1 == k { print $2 * 1024; n++ } END { if (!n) print 0 }' "$2"; }

# Live: the lines add up to MemTotal, which is /proc/meminfo's.
kmemprof meminfo -H || fail "kmemprof meminfo"
kmemprof meminfo --prometheus > /tmp/mi.prom || fail "kmemprof meminfo --prometheus"
mt=$(kb MemTotal /proc/meminfo)
expect_eq "live: 12 lines adding up to MemTotal" "$(lines /tmp/mi.prom)" "12 $mt"
expect_eq "live: kmemprof_meminfo_total_bytes" \
	"$(awk '/^kmemprof_meminfo_total_bytes\{/ { print $NF }' /tmp/mi.prom)" "$mt"
# small_untracked FILE: what nothing tracks is within 1% of MemTotal,
# either way (the sum is MemTotal whatever it is).
small_untracked() {
	u=$(series "$1" untracked)
	echo "INFO $1: untracked $u of MemTotal $mt"
	[ "$u" != none ] && [ $(((u < 0 ? -u : u) * 100)) -le "$mt" ] ||
		fail "$1: untracked $u, more than 1% of MemTotal $mt"
}
small_untracked /tmp/mi.prom

# On copies, every line as awk makes it of the files. One process reads
# the three, /proc/kmemprof last: its own pages (anonymous, page tables)
# are in both reads, and the copy it writes (page cache, as every file
# here is) is on kmemprof's lines too, so that they hold at least what
# meminfo says of the same pages. meminfo's counters are kept per CPU and
# folded now and then (off by up to zoneinfo's "vm stats threshold" pages
# a CPU each): reading vm.stat_refresh folds them first.
R=/tmp/mroot
rm -rf $R
mkdir -p $R/proc
cat /proc/sys/vm/stat_refresh /proc/meminfo /proc/zoneinfo /proc/kmemprof > $R/all
awk -v d=$R/proc '/^Node [0-9]/ { z = 1 } /^kmemprof - version/ { k = 1 }
	{ print > (d "/" (k ? "kmemprof" : z ? "zoneinfo" : "meminfo")) }' $R/all
echo "INFO the page lines of call sites:"
awk 'NR > 2 && / kind:page / && $1 > 0 && $3 !~ /^(before_load|kmemprof):/' $R/proc/kmemprof
KMEMPROF_ROOT=$R kmemprof meminfo --prometheus > /tmp/mic.prom ||
	fail "kmemprof meminfo on the copies"
P=$R/proc/kmemprof M=$R/proc/meminfo
managed=$(awk '$1 == "managed" { s += $2 } END { print s }' $R/proc/zoneinfo)
page=$((mt / managed))
expect_eq "MemTotal is whole pages" "$((page * managed))" "$mt"
pcp=$(awk -v p=$page '$1 == "count:" { s += $2 } END { print s * p }' $R/proc/zoneinfo)
# live bytes of page lines: site WHAT, or all but before_load:reserved
site() { awk -v s="$1" '$3 == s && / kind:page / { b += $1 } END { print b + 0 }' $P; }
pages=$(awk 'NR > 2 && / kind:page / && $3 != "before_load:reserved" { s += $1 } END { print s + 0 }' $P)
since=$(awk 'NR > 2 && / kind:page / && $3 !~ /^(before_load|kmemprof):/ { s += $1 } END { print s + 0 }' $P)
free=$(kb MemFree $M)
echo "INFO MemTotal $mt, MemFree $free, per-CPU lists $pcp (page $page), page lines $pages (since load $since)"
expect_eq "copies: 12 lines adding up to MemTotal" "$(lines /tmp/mic.prom)" "12 $mt"
expect_eq "free" "$(series /tmp/mic.prom free)" "$free"
expect_eq "free in per-CPU lists" "$(series /tmp/mic.prom free_pcp)" "$pcp"
expect_eq "kmemprof's tables" "$(series /tmp/mic.prom kmemprof)" "$(site kmemprof:tables)"
expect_eq "untracked" "$(series /tmp/mic.prom untracked)" "$((mt - free - pcp - pages))"
small_untracked /tmp/mic.prom
expect_eq "reserved, outside MemTotal" \
	"$(awk '/^kmemprof_meminfo_reserved_bytes\{/ { print $NF }' /tmp/mic.prom)" \
	"$(site before_load:reserved)"
for w in slab:slab pagetable:pagetables anon:anon file:file hugetlb:hugetlb \
	stack:stacks percpu:percpu other:other; do
	expect_eq "before load: before_load:${w%%:*}" \
		"$(series /tmp/mic.prom ${w#*:} before_load_bytes)" \
		"$(site before_load:${w%%:*})"
done
expect_eq "since load: the call sites' page lines" \
	"$(awk '/^kmemprof_meminfo_since_load_bytes\{/ { s += $NF } END { print s }' /tmp/mic.prom)" \
	"$since"
# the hog's 256 blocks of 8 KiB and the heap's 4 MiB, since load, on other;
# the heap's pages are CMA's, in use
heap_line=$(awk '$3 ~ /^cma_heap_allocate\+/ && / kind:page / { s += $1 } END { print s + 0 }' $P)
expect_eq "the heap's line" "$heap_line" $CMA
other=$(series /tmp/mic.prom other since_load_bytes)
[ "$other" -ge $((256 * 2 * page + CMA)) ] ||
	fail "other since load: $other, not the hog's $((256 * 2 * page)) and the heap's $CMA"
cma=$(($(kb CmaTotal $M) - $(kb CmaFree $M)))
echo "INFO CMA in use $cma"
[ "$cma" -ge $CMA ] || fail "CMA in use $cma, not the heap's $CMA"

# The hugetlb pool (the guests boot with hugepages=16, 2 MiB each): its
# pages from before load and those its allocators added since are the
# line, all of meminfo's Hugetlb (0 on a kernel without hugetlb).
expect_eq "hugetlb pool: meminfo's Hugetlb" "$(series /tmp/mic.prom hugetlb)" \
	"$(kb Hugetlb $M)"
expect_eq "hugetlb pool beside it" \
	"$(series /tmp/mic.prom hugetlb reported_bytes)" "$(kb Hugetlb $M)"

# What kmemprof attributes holds at least the categories its lines claim.
claimed=$(($(kb Slab $M) + $(kb PageTables $M) + $(kb AnonPages $M) +
	$(kb Cached $M) + $(kb Buffers $M) + $(kb VmallocUsed $M)))
echo "INFO attributed $pages, claimed by meminfo (Slab PageTables AnonPages Cached Buffers VmallocUsed) $claimed"
[ "$pages" -ge "$claimed" ] ||
	fail "kmemprof's page lines $pages, less than meminfo's $claimed"
# Line by line where the function tells the kind apart: the page cache
# (shmem's own functions); anonymous memory and page tables together, since
# a fault's prealloc page table may be inlined into the function of an
# anonymous fault (__handle_mm_fault); slab with before_load:other, which
# holds large kmalloc()s from before load (no PageSlab on them).
want=$(($(kb Cached $M) + $(kb Buffers $M)))
got=$(series /tmp/mic.prom file)
echo "INFO page cache $got, meminfo Cached+Buffers $want"
[ "$got" -ge "$want" ] || fail "page cache: $got, less than meminfo's $want"
want=$(($(kb AnonPages $M) + $(kb PageTables $M)))
got=$(($(series /tmp/mic.prom anon) + $(series /tmp/mic.prom pagetables)))
echo "INFO anonymous + page tables $got, meminfo AnonPages+PageTables $want"
[ "$got" -ge "$want" ] ||
	fail "anonymous + page tables: $got, less than meminfo's $want"
want=$(kb Slab $M)
got=$(($(series /tmp/mic.prom slab) + $(site before_load:other)))
echo "INFO slab + before_load:other $got, meminfo Slab $want"
[ "$got" -ge "$want" ] || fail "slab: $got, less than meminfo's $want"

# Kernel stacks (issue 38): those from before load on before_load:stack,
# those since on fork's sites. The line is meminfo's KernelStack less the
# idle tasks' stacks of the other online CPUs (no PID: on other), give or
# take what fork's per-CPU cache holds (2 stacks a CPU: on the line, not in
# KernelStack, or taken from the cache at load, on other) and the stacks
# of tasks that exited a grace period ago at most (not yet freed).
T=$(cat /sys/module/kmemprof_hog/parameters/stack_size)
NCPU=$(tr ',' '\n' < /sys/devices/system/cpu/possible |
	awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }')
online=$(tr ',' '\n' < /sys/devices/system/cpu/online |
	awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }')
want=$(($(kb KernelStack $M) - (online - 1) * T))
got=$(series /tmp/mic.prom stacks)
echo "INFO kernel stacks $got (before load $(site before_load:stack)), meminfo KernelStack $(kb KernelStack $M) less $((online - 1)) idle stacks: $want"
d=$((got - want))
[ ${d#-} -le $(((2 * NCPU + 4) * T)) ] ||
	fail "kernel stacks: $got, not KernelStack's $want within $((2 * NCPU + 4)) stacks"
expect_eq "kernel stacks beside it" \
	"$(series /tmp/mic.prom stacks reported_bytes)" "$(kb KernelStack $M)"
# percpu chunks: the dynamic chunks' pages, before load and since; with
# the first chunk's size from the boot log (percpu: Embedded N pages/cpu),
# meminfo's Percpu less it and less the pages of kmemprof's own counter
# blocks (per-CPU tables, on kmemprof:tables: 2 at load and one more per
# 256 tags, 12 KiB a CPU each, under 2 pages more where they lie), within
# 4 pages a CPU (percpu's balance work populates and frees pages when it
# likes, between the reads)
got=$(series /tmp/mic.prom percpu)
pcpu=$(kb Percpu $M)
first=$(dmesg | sed -n 's/.*percpu: Embedded \([0-9]*\) pages\/cpu.*/\1/p' | head -1)
echo "INFO percpu chunks $got (before load $(site before_load:percpu)), meminfo Percpu $pcpu, first chunk ${first:-?} pages a CPU"
[ "$got" -ge 0 ] && [ "$got" -le "$pcpu" ] ||
	fail "percpu chunks: $got, not between 0 and meminfo's Percpu $pcpu"
if [ -n "$first" ]; then
	want=$((pcpu - first * NCPU * page))
	blocks=$((2 + ($(stat_value tags.used) + 255) / 256))
	self=$((blocks * (12288 + 2 * page) * NCPU))
	d=$((want - got))
	echo "INFO percpu chunks: Percpu less the first chunk $want, $d more than the line; kmemprof's counter blocks $blocks, at most $self"
	# 0 only where the dynamic chunks may hold kmemprof's blocks alone
	# (a kernel with few percpu users at boot, as without MEMCG)
	[ "$got" -gt 0 ] || [ $want -le $((self + 4 * NCPU * page)) ] ||
		fail "percpu chunks: none, where Percpu less the first chunk, $want, is more than kmemprof's blocks (up to $self)"
	[ $d -ge $((-4 * NCPU * page)) ] && [ $d -le $((self + 4 * NCPU * page)) ] ||
		fail "percpu chunks: $got, not Percpu less the first chunk, $want, less kmemprof's blocks (up to $self), within 4 pages a CPU"
fi

# The picture: two bars, the first of the 12 lines.
kmemprof plot meminfo -o /tmp/mi.svg || fail "kmemprof plot meminfo"
expect_eq "plot: segments" "$(grep -c 'class="segment"' /tmp/mi.svg)" 22

if [ -n "$heap" ]; then
echo >&3
exec 3>&-
wait $heap_pid
rc=$?
expect_eq "kmpheap exit status ($(tr '\n' ' ' < /tmp/mi-heap.out))" $rc 0
fi
rm -rf $R /tmp/mi.prom /tmp/mic.prom /tmp/mi.svg /tmp/mi-heap.in /tmp/mi-heap.out
