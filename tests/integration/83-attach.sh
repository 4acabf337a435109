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

# check WHEN: the churn stopped, what kmemprof says of its sites.
check() {
	rmmod kmemprof_churn || fail "$1: rmmod kmemprof_churn"
	for f in churn_kmalloc churn_cache_alloc churn_page churn_percpu; do
		lines=$(grep " func:$f " /proc/kmemprof)
		[ -n "$lines" ] || fail "$1: $f was not seen"
		expect_eq "$1: $f live bytes, objects" \
			"$(echo "$lines" | awk '{ b += $1; n += $2 } END { print b, n }')" "0 0"
		case "$lines" in
		*accurate:no*) fail "$1: $f is marked accurate:no: $lines" ;;
		esac
	done
	expect_eq "$1: stale" "$(stat_value stale)" 0
	echo "$1: $(dmesg | grep 'kmemprof_churn: .* rounds' | tail -n 1 | sed 's/.*churn: //')"
}

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
exit 0
