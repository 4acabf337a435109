#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: load kmemprof, run a load, show what it saw.
. /tests/lib.sh

insmod /modules/kmemprof.ko || exit 1
ev() { echo "kmalloc $(stat_value events.kmalloc), page allocs $(stat_value events.mm_page_alloc), tags $(stat_value tags.used), live objects $(stat_value live.used)"; }
echo "=== kmemprof loaded: $(ev)"
echo "=== load: 200 rounds of file churn, and a module holding 1024 x 16 KiB"
workload 200
insmod /modules/kmemprof_hog.ko pages=1024 order=2
echo "=== after the load: $(ev)"
echo
echo "=== sort -g /proc/kmemprof | tail -n 12 | numfmt --to=iec"
sort -g /proc/kmemprof | tail -n 12 | numfmt --to=iec
echo
echo "=== the busiest sites by allocations since load"
sed 1,2d /proc/kmemprof | awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^allocs:/) { split($i, a, ":"); print a[2], $0 } }' |
	sort -rn | head -n 5 | cut -d' ' -f2-
echo
echo "=== /sys/kernel/debug/kmemprof/stats"
cat "$KMP_DEBUGFS/stats"
