#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: load kmemprof, run a load, show what it saw.
. /tests/lib.sh

insmod /modules/kmemprof.ko || exit 1
echo "=== kmemprof loaded; stats before the load ==="
cat "$KMP_DEBUGFS/stats"
echo "=== running a load: 200 rounds of file churn ==="
workload 200
echo "=== stats after the load ==="
cat "$KMP_DEBUGFS/stats"
if [ -r /proc/kmemprof ]; then
	echo "=== top 15 allocation sites by live bytes (sort -g /proc/kmemprof | tail -15) ==="
	sort -g /proc/kmemprof | tail -15
fi
