#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Attaching pairs every allocation it sees. kmemprof attaches what ends or
# moves objects (the free events and hooks, migration) before the
# allocations', and detaches them after, so that no allocation is seen
# whose free is not. kmemprof_churn allocates and at once frees, from four
# sites, for as long as it is loaded; kmemprof attaches while it runs: at
# load, at enabled=1 and at reset. Once the churn is gone, each site must
# have been seen, with no object live and its counts exact, and no entry
# may have been found stale. Before the order was so, a kvmalloc() of
# kmemprof's own naming worker during its load went stale on Debian's 6.12.
. /tests/lib.sh
keep_module
trap 'rmmod kmemprof_churn 2>/dev/null; restore_state' EXIT

churn_start() {
	insmod /modules/kmemprof_churn.ko || fail "insmod kmemprof_churn"
	sleep 0.2
}

# What a failing round leaves to find its cause by: the statistics that a
# lost pairing moves, the hooks, and what dmesg said of them.
diagnose() {
	echo "INFO $1: $(grep -E '^(unpaired|stale|drop|page_|skip|hooks|untraced)' \
		"$KMP_DEBUGFS/stats" | tr '\n' ' ')"
	echo "INFO $1: dmesg: $(dmesg | grep -E 'kmemprof: (cannot|tracepoint)' | tail -n 5 | tr '\n' ' ')"
	echo "INFO $1: accurate:no lines: $(grep -c 'accurate:no' /proc/kmemprof)"
	grep 'accurate:no' /proc/kmemprof | head -n 5 | sed "s/^/INFO $1: /"
	# Events by kind, and allocs and frees by CPU: a CPU with allocations
	# and no frees took none of its free events.
	grep '^events\.' "$KMP_DEBUGFS/stats" | tr '\n' ' ' | sed "s/^/INFO $1: /"
	echo
	sed "s/^/INFO $1: cpus: /" "$KMP_DEBUGFS/cpus"
}

# While a round's churn still runs: does the kernel fire kmem:kfree for
# it on the CPU it runs on (ftrace's own probe, beside kmemprof's)? If
# ftrace sees churn's kfree() and kmemprof not, kmemprof's probe missed
# them; if neither, the CPU never took the tracepoint's branch.
T=/sys/kernel/tracing
[ -d $T/events/kmem ] || T=/sys/kernel/debug/tracing
ftrace_kfree() {
	[ -w $T/events/kmem/kfree/enable ] || return 0
	echo > $T/trace
	echo 1 > $T/events/kmem/kfree/enable
	sleep 0.1
	echo 0 > $T/events/kmem/kfree/enable
	echo "INFO $1: ftrace kfree by kmp_churn: $(grep -c 'kmp_churn.*kfree' $T/trace), by CPU: $(grep 'kmp_churn.*kfree' $T/trace | sed 's/.*\[\([0-9]*\)\].*/\1/' | sort | uniq -c | tr '\n' ' ')"
}

# check WHEN: the churn stopped, what kmemprof says of its sites.
check() {
	stale=$(stat_value stale)
	[ "$stale" = 0 ] || ftrace_kfree "$1"
	rmmod kmemprof_churn || fail "$1: rmmod kmemprof_churn"
	for f in churn_kmalloc churn_cache_alloc churn_page churn_percpu; do
		lines=$(grep " func:$f " /proc/kmemprof)
		[ -n "$lines" ] || fail "$1: $f was not seen"
		got=$(echo "$lines" | awk '{ b += $1; n += $2 } END { print b, n }')
		if [ "$got" != "0 0" ]; then
			diagnose "$1"
			fail "$1: $f live bytes, objects: got '$got', want '0 0': $lines"
		fi
		case "$lines" in
		*accurate:no*) diagnose "$1"; fail "$1: $f is marked accurate:no: $lines" ;;
		esac
	done
	stale=$(stat_value stale)
	[ "$stale" = 0 ] || { diagnose "$1"; fail "$1: stale: got '$stale', want '0'"; }
	echo "$1: $(dmesg | grep 'kmemprof_churn: .* rounds' | tail -n 1 | sed 's/.*churn: //')"
}

#
# Still open (issue 38): in about one round in four, every kfree() of
# churn_kmalloc's object is missed for the whole round, while its
# kmem_cache_free() twin pairs: each kmalloc() finds the last object still
# live (stale grows by the churn's rounds, unpaired.slab stays flat), on
# 6.12 with and without the page review's fixes. So the test runs only
# when asked, with attach_rounds=N on the guest's command line, which
# runs the whole set N times:
#   make check KERNELS=6.12 TESTS=83-attach KMEMPROF_APPEND=attach_rounds=50
REPS=$(sed -n 's/.*attach_rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
[ -n "$REPS" ] || { echo "SKIP: attach_rounds=N not given"; exit 77; }
rep=1
while [ "$rep" -le "$REPS" ]; do
for round in 1 2 3; do
	churn_start
	reload || fail "insmod kmemprof"
	sleep 0.5
	check "load $round"
done

for round in 1 2; do
	reload enabled=0 || fail "insmod kmemprof enabled=0"
	churn_start
	write_knob $KMP_SYSCTL/enabled 1 || fail "enabled=1"
	sleep 0.5
	check "enabled=1, $round"
done

for round in 1 2; do
	reload || fail "insmod kmemprof"
	churn_start
	write_knob $KMP_SYSCTL/reset 1 || fail "reset"
	sleep 0.5
	check "reset $round"
done
rep=$((rep + 1))
done
exit 0
