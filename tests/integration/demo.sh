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
# hist and lifetimes are off by default (each sends every event to the
# general path): on for the load, so that hist, ages and leaks have data.
echo "=== knobs for the load (kmemprof set hist=1 lifetimes=1 stack_depth=4):"
for k in hist=1 lifetimes=1 stack_depth=4; do
	echo ${k#*=} > $KMP_SYSCTL/${k%=*}
	echo "echo ${k#*=} > $KMP_SYSCTL/${k%=*}"
done
echo "=== load: 200 rounds of file churn, and a module holding 1024 x 16 KiB"
workload 200
insmod /modules/kmemprof_hog.ko pages=1024 order=2
echo 0 > $KMP_SYSCTL/stack_depth
echo "=== after the load: $(ev); stack_depth back to 0, hist and lifetimes stay on"
echo
# CMA and migration (Documentation/kmemprof.rst, "Pages"): a buffer from
# the CMA dma-buf heap enters on the heap's site, and pages that compaction
# moves keep their owners.
heap=$(cma_heaps | awk 'NR == 1 { print $1 }')
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
	# Rockchip's kernel (BOARD=rock5b) has CMA but no compaction.
	if [ -w /proc/sys/vm/compact_memory ]; then
		echo 1 > /proc/sys/vm/compact_memory
	else
		echo "(no compaction in this kernel: CMA's own migration only)"
	fi
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
# The reader (tools/kmemprof, static in the guest) formats the views.
echo "=== kmemprof top -H -n 8: the sites holding the most now"
kmemprof top -H -n 8
echo
echo "=== $D/hist: the 'all' lines, without their buckets"
sed -rn '/^all /s/ (size|req|life):[^ ]*//gp' $D/hist
echo
echo "=== kmemprof hist hog_alloc: the hog's line of $D/hist"
kmemprof hist hog_alloc
echo
echo "=== kmemprof ages -H -n 5: the sites whose live objects are oldest ($D/ages)"
kmemprof ages -H -n 5
echo
echo "=== $D/cpus"
cat $D/cpus
echo
echo 1000 > $KMP_SYSCTL/leak_age_ms
sleep 2
echo "=== kmemprof leaks -H -n 3: leak suspects, leak_age_ms=1000 ($D/leaks)"
kmemprof leaks -H -n 3
echo
echo "=== $D/stacks (stack_depth was 4 during the load), first 16 lines"
head -n 16 $D/stacks
echo
echo "=== kmemprof stats -H ($D/stats)"
kmemprof stats -H
echo
cat <<EOF
=== next: the reader, kmemprof (kmemprof help; kmemprof COMMAND --help)
  kmemprof top -H                what holds kernel memory now, by call site
  kmemprof watch -d 2            the same, refreshed, with rates
  kmemprof snapshot -o a.snap    and later: kmemprof diff a.snap b.snap -H
  kmemprof leaks -H              objects older than leak_age_ms (lifetimes=1)
  kmemprof ages -H               sites by their oldest live object (lifetimes=1)
  kmemprof hist SITE             size and lifetime histograms (hist=1)
  kmemprof stacks SITE           sampled stacks (stack_depth=4 or more)
  kmemprof set hist=0 lifetimes=0   back to the cheap defaults
EOF
echo
echo "=== where all of RAM is: kmemprof meminfo -H (its lines add up to MemTotal)"
kmemprof meminfo -H
if [ -r /proc/allocinfo ]; then
	# allocinfo never sees memblock's pages (before_load:reserved) nor,
	# when it was on from boot, anything kmemprof calls before_load.
	echo
	echo "=== the sum of /proc/kmemprof against the sum of /proc/allocinfo (MiB)"
	awk -v MiB=1048576 '
		FNR == NR { if ($1 ~ /^[0-9]+$/) a += $1; next }
		$1 !~ /^[0-9]+$/ { next }
		{ k += $1 }
		/before_load:reserved / { r += $1 }
		/kmemprof:tables / { t += $1 }
		END {
			printf "allocinfo %.1f, kmemprof %.1f: %.1f without before_load:reserved (%+.1f%%), of which its own tables %.1f\n",
			       a / MiB, k / MiB, (k - r) / MiB,
			       a ? ((k - r) / a - 1) * 100 : 0, t / MiB
		}' /proc/allocinfo /proc/kmemprof
fi
