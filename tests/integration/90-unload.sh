#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rmmod detaches cleanly: the module goes, its files go, allocations go on,
# and it loads and unloads again.
. /tests/lib.sh

grep -q '^kmemprof ' /proc/modules || fail "kmemprof is not loaded"
rmmod kmemprof || fail "rmmod kmemprof failed"
grep -q '^kmemprof ' /proc/modules && fail "kmemprof still listed"
[ -e "$KMP_DEBUGFS" ] && fail "$KMP_DEBUGFS survived the unload"
workload 20
i=0
while [ $i -lt 5 ]; do
	insmod /modules/kmemprof.ko || fail "insmod #$i failed"
	workload 5
	rmmod kmemprof || fail "rmmod #$i failed"
	i=$((i + 1))
done
insmod /modules/kmemprof.ko enabled=0 || fail "insmod enabled=0 failed"
expect_eq "enabled after enabled=0" "$(stat_value enabled)" 0
before=$(stat_value events.kmalloc)
workload 5
expect_eq "events.kmalloc while disabled" "$(stat_value events.kmalloc)" "$before"
rmmod kmemprof || fail "final rmmod failed"
