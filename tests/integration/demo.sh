#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: load kmemprof, run a load, show what it saw.
. /tests/lib.sh

D=$KMP_DEBUGFS
E=/sys/kernel/tracing/events/kmem
echo "=== kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
echo "=== the kmalloc event's fields (Documentation/rock5b.rst, step 3)"
sed -n 's/^\tfield:\([^;]*\);.*/\1/p' $E/kmalloc/format | tail -n 6 | tr '\n' ',' | sed 's/,$/\n/'
echo "kmalloc_node event: $([ -d $E/kmalloc_node ] && echo yes || echo no)"
if [ -d /proc/device-tree/kmemprof ]; then
	echo "=== /proc/device-tree/kmemprof (the board's overlay)"
	for f in /proc/device-tree/kmemprof/*; do
		case ${f##*/} in
		name|compatible|events) v=$(tr -d '\0' < $f) ;;
		*) v=$((0x$(od -An -tx1 $f | tr -d ' \n'))) ;;
		esac
		echo "${f##*/} = $v"
	done
fi
echo
insmod /modules/kmemprof.ko || exit 1
dmesg | grep 'kmemprof: defaults from' | sed 's/^\[[^]]*\] //'
ev() { echo "kmalloc $(stat_value events.kmalloc), page allocs $(stat_value events.mm_page_alloc), tags $(stat_value tags.used), live objects $(stat_value live.used)"; }
echo "=== kmemprof loaded: $(ev)"
echo "=== load: 200 rounds of file churn, and a module holding 1024 x 16 KiB"
echo 4 > $KMP_SYSCTL/stack_depth
workload 200
insmod /modules/kmemprof_hog.ko pages=1024 order=2
echo 0 > $KMP_SYSCTL/stack_depth
echo "=== after the load: $(ev)"
echo
# CMA and migration (Documentation/kmemprof.rst, "Pages"): a buffer from
# the CMA dma-buf heap enters on the heap's site, and pages that compaction
# moves keep their owners.
heap=
for h in reserved default_cma_region; do
	[ -e /dev/dma_heap/$h ] && { heap=$h; break; }
done
pgmig() { awk '$1 == "pgmigrate_success" { print $2 }' /proc/vmstat; }
if [ -n "$heap" ]; then
	echo "=== CMA: 4 MiB held from the dma-buf heap $heap, then compact_memory"
	rm -f /tmp/heap.in /tmp/heap.out
	mkfifo /tmp/heap.in
	kmpheap $heap 4194304 < /tmp/heap.in > /tmp/heap.out 2>&1 &
	exec 3> /tmp/heap.in
	i=0
	until grep -q '^allocated ' /tmp/heap.out || [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	mig=$(pgmig)
	echo 1 > /proc/sys/vm/compact_memory
	echo "pgmigrate_success +$(($(pgmig) - ${mig:-0})), hook.migrate.calls" \
		"$(stat_value hook.migrate.calls), page_moved $(stat_value page_moved)," \
		"page_returned $(stat_value page_returned), unpaired.page $(stat_value unpaired.page)"
	grep ' func:cma_heap_allocate ' /proc/kmemprof
	echo >&3
	exec 3>&-
	wait
	echo "closed: $(grep ' func:cma_heap_allocate ' /proc/kmemprof)"
fi
echo
echo "=== sort -g /proc/kmemprof | tail -n 12 | numfmt --to=iec"
sort -g /proc/kmemprof | tail -n 12 | numfmt --to=iec
echo
echo "=== the busiest sites by allocations since load"
sed 1,2d /proc/kmemprof | awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^allocs:/) { split($i, a, ":"); print a[2], $0 } }' |
	sort -rn | head -n 5 | cut -d' ' -f2-
echo
echo "=== $D/hist (the three 'all' lines)"
sed -n '1,5p' $D/hist | cut -c1-400
echo
echo "=== $D/hist, the hog's line"
grep 'func:hog_alloc ' $D/hist | cut -c1-400
echo
echo "=== $D/ages, first 5 lines"
head -n 5 $D/ages | cut -c1-300
echo
echo "=== $D/cpus"
cat $D/cpus
echo
echo 1000 > $KMP_SYSCTL/leak_age_ms
sleep 2
echo "=== $D/leaks (leak_age_ms=1000), first 12 lines"
head -n 12 $D/leaks
echo
echo "=== $D/stacks (stack_depth was 4 during the load), first 16 lines"
head -n 16 $D/stacks
echo
echo "=== $D/stats"
cat $D/stats
echo
echo "=== where all of RAM is: kmemprof meminfo -H (its lines add up to MemTotal)"
kmemprof meminfo -H
