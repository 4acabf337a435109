#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Agreement with allocinfo (issue 22), the guest's half: make check-agree
# (tools/rig/agree.sh) boots the 6.12-dbginfo kernel, whose allocinfo is on
# from boot, with rigtests=agree; /init loads kmemprof before anything else
# runs, as early as the rig's initramfs allows. Not numbered: make check
# never runs it (it needs the host's vmlinux with DWARF to mean anything).
#
# It snapshots /proc/allocinfo and /proc/kmemprof at the start (just after
# kmemprof loaded), runs a load and holds it: 1000 directories of files
# kept in a tmpfs and 200 sleeping processes (the issue measured 40; 200
# keeps a site's noise of an object or two under 2%). Then both views
# again, one just after the other, and the stats, into /out/agree for the
# host to compare, file:line against file:line through the reader's
# resolution.
. /tests/lib.sh

[ -r /proc/allocinfo ] || { echo "SKIP: no /proc/allocinfo"; exit 77; }
O=/out/agree
mkdir -p $O
cat /proc/allocinfo > $O/allocinfo-load.txt
cat /proc/kmemprof > $O/kmemprof-load.txt
cp /proc/uptime $O/uptime-load.txt

# The load, held while both views are read.
mkdir -p /tmp/agree
i=0
while [ $i -lt 1000 ]; do
	mkdir -p /tmp/agree/$i
	cat /proc/meminfo > /tmp/agree/$i/m
	dd if=/dev/zero of=/tmp/agree/$i/z bs=4096 count=4 2>/dev/null
	i=$((i + 1))
done
workload 200
pids=
i=0
while [ $i -lt 200 ]; do
	sleep 600 &
	pids="$pids $!"
	i=$((i + 1))
done
sleep 2
# The two views a moment apart; twice, so that the host can see how much
# moves in that moment.
for n in 1 2; do
	cat /proc/allocinfo > $O/allocinfo-$n.txt
	cat /proc/kmemprof > $O/kmemprof-$n.txt
done
cat $KMP_DEBUGFS/stats > $O/stats.txt
cat /proc/meminfo > $O/meminfo.txt
kill $pids
wait 2>/dev/null
rm -rf /tmp/agree
echo "INFO allocinfo $(awk '$1 ~ /^[0-9]+$/ { s += $1 } END { print s }' $O/allocinfo-1.txt)" \
	"kmemprof $(awk '$1 ~ /^[0-9]+$/ { s += $1 } END { print s }' $O/kmemprof-1.txt)"
