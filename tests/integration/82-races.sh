#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The two races of the module's lifetimes, driven on purpose (the debug
# kernel's KASAN and lockdep judge them; the host scans the console):
#
# 1. kmemprof unloading while another module loads or goes: the module
#    notifier must never run against a table already torn down.
# 2. reset while readers walk ages and leaks over a full live table: the
#    table must never be emptied under a walk.
#
# Pass: no splat, no hang, both loops run to the end, and kmemprof still
# answers afterwards.
. /tests/lib.sh
keep_module

# race_cycles=N on the guest's command line: fewer reloads (make check's
# debug guest, where each reload's hooks and page walk take seconds).
CYCLES=$(sed -n 's/.*race_cycles=\([0-9]*\).*/\1/p' /proc/cmdline)
CYCLES=${RACE_CYCLES:-${CYCLES:-40}}
RESETS=${RACE_RESETS:-60}

# 1. A module comes and goes, with init text freed each time (LIVE) and
# its sites named on the way out (GOING), while kmemprof is unloaded and
# loaded again with stacks on, so that every table has code addresses.
churn() {
	while [ ! -e /tmp/race.done ]; do
		insmod /modules/kmemprof_hog.ko pages=1 order=0 2>/dev/null
		rmmod kmemprof_hog 2>/dev/null
	done
}
rm -f /tmp/race.done
churn &
churner=$!
# (workload uses i: this loop counts in n.)
n=0
while [ $n -lt "$CYCLES" ]; do
	rmmod kmemprof 2>/dev/null
	insmod /modules/kmemprof.ko ||
		{ touch /tmp/race.done; fail "insmod #$n"; }
	write_knob $KMP_SYSCTL/stack_depth 4
	workload 2
	n=$((n + 1))
done
touch /tmp/race.done
wait $churner
rmmod kmemprof_hog 2>/dev/null
echo "unload race: $CYCLES reloads while a module came and went"

# 2. A full live table (max_live is small, and the hog holds more objects
# than it has room for), three readers of ages and leaks, and resets.
reload max_live=2048 live_grow=0 || fail "insmod max_live=2048 live_grow=0"
write_knob $KMP_SYSCTL/lifetimes 1 || fail "lifetimes=1"
insmod /modules/kmemprof_hog.ko pages=0 objs=4096 || fail "insmod hog"
[ "$(stat_value drop.live)" -gt 0 ] || fail "the live table is not full"
rm -f /tmp/race.done
readers() {
	while [ ! -e /tmp/race.done ]; do
		cat $KMP_DEBUGFS/ages > /dev/null
		cat $KMP_DEBUGFS/leaks > /dev/null
	done
}
readers &
r1=$!
readers &
r2=$!
readers &
r3=$!
n=0
while [ $n -lt "$RESETS" ]; do
	write_knob $KMP_SYSCTL/reset 1 || { touch /tmp/race.done; fail "reset #$n"; }
	# Refill what the reset emptied: the hog's objects are freed and
	# taken again, so the table is full for the next walk.
	rmmod kmemprof_hog
	insmod /modules/kmemprof_hog.ko pages=0 objs=4096 ||
		{ touch /tmp/race.done; fail "insmod hog #$n"; }
	n=$((n + 1))
done
touch /tmp/race.done
wait $r1 $r2 $r3
rmmod kmemprof_hog
head -n 1 $KMP_DEBUGFS/ages | grep -q '^kmemprof ages' || fail "ages after the resets"
echo "reset race: $RESETS resets under three readers of a full table"
