#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rigmode=capture: save every view kmemprof has, under a load, for the
# reader's fixtures: two snapshots of /proc/kmemprof a load apart, the
# debugfs views, /proc/meminfo and /proc/zoneinfo beside the second
# snapshot, and /proc/allocinfo with the module unloaded.
. /tests/lib.sh

C=/out/capture
D=$KMP_DEBUGFS
mkdir -p $C
insmod /modules/kmemprof.ko || exit 1
echo 4 > $KMP_SYSCTL/stack_depth
workload 50
cat /proc/kmemprof > $C/snapshot-a.txt
insmod /modules/kmemprof_hog.ko pages=256 order=1
workload 100
cat /proc/kmemprof > $C/snapshot-b.txt
# the whole-RAM account's other inputs (kmemprof meminfo), just after
cat /proc/meminfo > $C/meminfo.txt
cat /proc/zoneinfo > $C/zoneinfo.txt
echo 1000 > $KMP_SYSCTL/leak_age_ms
sleep 2
for v in stats hist ages leaks cpus stacks; do
	cat $D/$v > $C/debugfs-$v.txt
done
for k in $KMP_SYSCTL/*; do
	echo "$(basename $k) $(cat $k)"
done > $C/sysctl.txt
rmmod kmemprof_hog
rmmod kmemprof
workload 20
[ -r /proc/allocinfo ] && cat /proc/allocinfo > $C/allocinfo.txt
uname -r > $C/uname.txt
ls -l $C
