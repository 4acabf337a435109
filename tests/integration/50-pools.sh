#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Pools that fill up count their drops, mark what they touch and never
# crash; bad module parameters are refused.
. /tests/lib.sh
keep_module

for arg in max_tags=1 max_live=2 live_grow=17 events=foo "events=slab,,page"; do
	rmmod kmemprof 2>/dev/null
	insmod /modules/kmemprof.ko "$arg" 2>/dev/null && fail "insmod took $arg"
done

reload max_tags=16 || fail "insmod max_tags=16"
workload 20
expect_eq "tags.used" "$(stat_value tags.used)" 16
[ "$(stat_value drop.tags)" -gt 0 ] || fail "no tag drops counted"
expect_eq "tag lines" "$(sed 1,2d /proc/kmemprof | wc -l)" 16

# max_live bounds the table of slab and percpu objects where it may not
# grow (live_grow=0). Page blocks go to the PFN map, which has a place
# for every page of RAM: they never drop.
reload max_live=64 live_grow=0 || fail "insmod max_live=64 live_grow=0"
expect_eq "live.grow_max with live_grow=0" "$(stat_value live.grow_max)" 0
rmmod kmemprof_hog 2>/dev/null
insmod /modules/kmemprof_hog.ko pages=256 order=0 objs=256 || fail "insmod hog"
[ "$(stat_value drop.live)" -gt 0 ] || fail "no live drops counted"
[ "$(stat_value live.used)" -le 64 ] || fail "live.used over max_live"
proc_line hog_kmalloc | grep -q ' accurate:no' ||
	fail "hog's slab tag not marked: $(proc_line hog_kmalloc)"
line=$(proc_line hog_alloc)
set -- $line
expect_eq "hog pages, live" "$2" 256
echo "$line" | grep -q ' accurate:no' && fail "hog's page tag marked: $line"
expect_eq "live.grown with live_grow=0" "$(stat_value live.grown)" 0
rmmod kmemprof_hog
workload 20

# A load that holds more objects than max_live: the table grows by chunks
# (512 entries at max_live=4096, 16 times max_live in all), so after the
# first bursts it holds a hog of twice max_live whole, with exact counts
# and no drop. A table that cannot grow drops in every round.
reload max_live=4096 live_grow=16 || fail "insmod max_live=4096 live_grow=16"
expect_eq "live.grow_max" "$(stat_value live.grow_max)" 65536
exact=0
round=0
while [ $round -lt 6 ] && [ $exact = 0 ]; do
	round=$((round + 1))
	write_knob $KMP_SYSCTL/reset 1 || fail "reset"
	d0=$(stat_value drop.live)
	insmod /modules/kmemprof_hog.ko pages=0 objs=8192 size=64 ||
		fail "insmod hog, round $round"
	d1=$(stat_value drop.live)
	line=$(proc_line hog_kmalloc)
	set -- $line
	echo "round $round: drop.live +$((d1 - d0)), live.grown" \
		"$(stat_value live.grown), hog_kmalloc $1 bytes $2 objects"
	if [ "$d1" = "$d0" ]; then
		expect_eq "hog's objects, live" "$2" 8192
		expect_eq "hog's allocations" "$(line_key "$line" allocs)" 8192
		# requested: the bytes counted are the cache's (more with
		# slub_debug's red zones)
		expect_eq "hog's bytes requested" "$(line_key "$line" req)" \
			$((8192 * 64))
		echo "$line" | grep -q ' accurate:no' &&
			fail "hog's slab tag marked with no drop: $line"
		exact=1
	fi
	rmmod kmemprof_hog
done
[ $exact = 1 ] || fail "the live table dropped in each of $round rounds"
[ "$(stat_value live.grown)" -ge 4096 ] ||
	fail "live.grown $(stat_value live.grown) is under max_live"
[ "$(stat_value live.grown)" -le 65536 ] ||
	fail "live.grown $(stat_value live.grown) is over live.grow_max"

reload max_stacks=16 || fail "insmod max_stacks=16"
write_knob $KMP_SYSCTL/stack_depth 16 || fail "stack_depth=16"
workload 20
expect_eq "stacks.used" "$(stat_value stacks.used)" 16
[ "$(stat_value drop.stacks)" -gt 0 ] || fail "no stack drops counted"
cat $KMP_DEBUGFS/stacks > /dev/null || fail "stacks view with a full store"

reload || fail "insmod with defaults"
