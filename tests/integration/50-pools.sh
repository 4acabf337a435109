#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Pools that fill up count their drops, mark what they touch and never
# crash; bad module parameters are refused.
. /tests/lib.sh
keep_module

for arg in max_tags=1 max_live=2 events=foo "events=slab,,page"; do
	rmmod kmemprof 2>/dev/null
	insmod /modules/kmemprof.ko "$arg" 2>/dev/null && fail "insmod took $arg"
done

reload max_tags=16 || fail "insmod max_tags=16"
workload 20
expect_eq "tags.used" "$(stat_value tags.used)" 16
[ "$(stat_value drop.tags)" -gt 0 ] || fail "no tag drops counted"
expect_eq "tag lines" "$(sed 1,2d /proc/kmemprof | wc -l)" 16

# max_live bounds the table of slab and percpu objects. Page blocks go
# to the PFN map, which has a place for every page of RAM: they never drop.
reload max_live=64 || fail "insmod max_live=64"
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
rmmod kmemprof_hog
workload 20

reload max_stacks=16 || fail "insmod max_stacks=16"
write_knob $KMP_SYSCTL/stack_depth 16 || fail "stack_depth=16"
workload 20
expect_eq "stacks.used" "$(stat_value stacks.used)" 16
[ "$(stat_value drop.stacks)" -gt 0 ] || fail "no stack drops counted"
cat $KMP_DEBUGFS/stacks > /dev/null || fail "stacks view with a full store"

reload || fail "insmod with defaults"
