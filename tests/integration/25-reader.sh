#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The reader (the arm64 build) against the live /proc/kmemprof.
. /tests/lib.sh

rmmod kmemprof_hog 2>/dev/null
insmod /modules/kmemprof_hog.ko pages=128 order=3 || fail "insmod hog"
out=$(kmemprof -n 3 -H) || fail "kmemprof failed: $out"
echo "$out"
expect_eq "header" "$(echo "$out" | sed -n 1p)" \
	"        LIVE     OBJS       AVG    ALLOCS KIND   SITE"
expect_eq "lines with -n 3" "$(echo "$out" | wc -l)" 4
# The hog's line, exactly (slab pages may outweigh it on a debug kernel).
out=$(kmemprof -n 1 -H --module kmemprof_hog)
echo "$out" | sed -n 2p | grep -Eq '^ +4\.0M +128 +32K +128 page +hog_alloc\+0x[0-9a-f]+/0x[0-9a-f]+ \[kmemprof_hog\]$' ||
	fail "hog line: $(echo "$out" | sed -n 2p)"
out=$(kmemprof --kind page --module kmemprof_hog -s calls)
expect_eq "filtered, live module" "$(echo "$out" | sed 1d | grep -vc "(unloaded)")" 1
kmemprof --sort size > /dev/null 2>&1 && fail "took --sort size"
rmmod kmemprof_hog
