#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The storm: allocations from kthreads, timers and irq_work on every CPU,
# with readers of every view, a toggler of every knob, and kmemprof
# unloaded and loaded again and again, all at once. Then the pools are
# made tiny and it all runs again. Pass: no splat on the console (the
# host scans it), no hang, no tag with more frees than allocations, and
# the exactness suite still passes afterwards.
. /tests/lib.sh

# Load cycles: as many as the storm lasts for, up to CYCLES, and at least
# MIN_CYCLES. A reload registers the ftrace hooks and waits for RCU-tasks
# on the way out: about 2 s on the 6.12 guest in the storm, more on the
# debug kernel, where 100 cycles took 8 minutes.
SECONDS_STORM=${STORM_SECONDS:-20}
CYCLES=${STORM_CYCLES:-100}
MIN_CYCLES=${STORM_MIN_CYCLES:-10}
D=$KMP_DEBUGFS
S=$KMP_SYSCTL

readers() {
	while [ ! -e /tmp/storm.done ]; do
		for f in /proc/kmemprof $D/stats $D/hist $D/ages $D/leaks \
			 $D/cpus $D/stacks; do
			cat $f > /dev/null 2>&1
		done
	done
}

knob() {
	echo "$2" 2>/dev/null > $S/$1
}

toggler() {
	i=0
	while [ ! -e /tmp/storm.done ]; do
		knob enabled $((i % 2))
		case $((i % 4)) in
		0) knob events slab,page,percpu ;;
		1) knob events slab ;;
		2) knob events page,percpu ;;
		3) knob events none ;;
		esac
		knob stack_depth $((i % 17))
		knob key_depth $((i % 5))
		knob sample_rate $((i % 3 + 1))
		[ $((i % 10)) -eq 0 ] && knob reset 1
		i=$((i + 1))
		usleep 3000
	done
	echo "toggler: $i rounds"
}

# Readers keep kmemprof's files open for a moment, which holds the
# module: rmmod then says EAGAIN, and is tried again.
unload() {
	n=0
	until rmmod kmemprof 2>/dev/null; do
		grep -q '^kmemprof ' /proc/modules || return 0
		n=$((n + 1))
		[ $n -lt 2000 ] || return 1
		usleep 1000
	done
}

# Whatever happens, the background jobs stop with this script, and
# kmemprof is left loaded with its defaults.
keep_module
trap 'touch /tmp/storm.done; kill $(jobs -p) 2>/dev/null; wait
	rmmod kmemprof_test 2>/dev/null; restore_state' EXIT

storm() { # storm SECONDS CYCLES MODULE-ARGS...
	secs=$1 cycles=$2
	shift 2
	rm -f /tmp/storm.done
	insmod /modules/kmemprof_stress.ko seconds=$secs &
	storm_pid=$!
	readers & r1=$!
	readers & r2=$!
	toggler & tg=$!
	c=0
	while [ $c -lt "$cycles" ]; do
		# Cycles race the storm: once it is over, only up to the least.
		kill -0 $storm_pid 2>/dev/null || [ $c -lt "$MIN_CYCLES" ] ||
			break
		unload || fail "rmmod kmemprof kept failing at cycle $c"
		insmod /modules/kmemprof.ko "$@" || fail "insmod #$c failed"
		c=$((c + 1))
	done
	wait $storm_pid || fail "the storm failed"
	touch /tmp/storm.done
	wait $r1 $r2 $tg
	rmmod kmemprof_stress
	echo "storm: $secs s, $c load cycles: $(dmesg | grep 'storm over' | tail -n 1 | sed 's/.*storm over: //')"
}

# No tag may show more frees than allocations, unless it says its counts
# are estimates (sampled:yes) or that pairing was lost (accurate:no).
no_negative() {
	bad=$(sed 1,2d /proc/kmemprof | grep -v -e ' sampled:yes' -e ' accurate:no' | awk '{
		a = f = 0
		for (i = 3; i <= NF; i++) {
			if ($i ~ /^allocs:/) { split($i, x, ":"); a = x[2] }
			if ($i ~ /^frees:/) { split($i, x, ":"); f = x[2] }
		}
		if (f > a) print }' | head -n 3)
	[ -z "$bad" ] || fail "more frees than allocations: $bad"
}

storm "$SECONDS_STORM" "$CYCLES" max_live=65536
grep -q '^kmemprof ' /proc/modules || insmod /modules/kmemprof.ko max_live=65536
no_negative
for k in drop.tags drop.live drop.stacks unpaired.slab stale; do
	echo "$k $(stat_value $k)"
done

# Pools that overflow at once.
storm $((SECONDS_STORM / 2)) 10 max_tags=64 max_live=256 live_grow=0 max_stacks=32 max_hist=16
grep -q '^kmemprof ' /proc/modules ||
	insmod /modules/kmemprof.ko max_tags=64 max_live=256 live_grow=0 max_stacks=32 max_hist=16
for k in drop.tags drop.live; do
	[ "$(stat_value $k)" -gt 0 ] || echo "note: no $k in the tiny-pool storm"
done
no_negative

# Quiet again: a fresh load, a reset, and the exactness suite, where it
# was built: the KUnit suites need a kernel with KUnit (Debian's have
# none, tools/rig/distro.sh).
unload
insmod /modules/kmemprof.ko || fail "insmod after the storms"
write_knob $S/reset 1 || fail "reset"
if [ ! -e /modules/kmemprof_test.ko ]; then
	echo "no kmemprof_test.ko (a kernel without KUnit): the exactness suite after the storm is left out"
	no_negative
	exit 0
fi
args=
grep -q slub_debug= /proc/cmdline && args=slub_debug=1
insmod /modules/kmemprof_test.ko $args 2>/dev/null
bad=
for s in kmemprof_core kmemprof_hist; do
	r=/sys/kernel/debug/kunit/$s/results
	tail -n 1 $r | grep -Eq "^ok 1 (- )?$s$" ||
		bad="$bad$s after the storm: $(grep -B8 'not ok' $r | head -n 30)"
done
# Unloaded either way, so that the tests after this one can unload kmemprof.
rmmod kmemprof_test
[ -z "$bad" ] || fail "$bad"
no_negative
