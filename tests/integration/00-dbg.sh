#!/bin/sh
. /tests/lib.sh
echo 2 > $KMP_SYSCTL/key_depth
insmod /modules/kmemprof_bench.ko label=default workloads=procread10k reps=4
rmmod kmemprof_bench
dmesg | grep RESULT
