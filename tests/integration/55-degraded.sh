#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kernel without the percpu tracepoints: kmemprof loads, says which kind
# is out in dmesg and stats, refuses to trace it, and works for the rest.
. /tests/lib.sh
keep_module

rmmod kmemprof_hog 2>/dev/null
reload test_missing=percpu_alloc_percpu || fail "insmod with a missing tracepoint"
dmesg | grep -q 'kmemprof: tracepoint percpu_alloc_percpu not found: percpu allocations are not traced' ||
	fail "no word in dmesg"
expect_eq "unavailable" "$(stat_value unavailable)" percpu
expect_eq "events" "$(cat $KMP_SYSCTL/events)" "slab,page"
write_knob $KMP_SYSCTL/events "slab,page,percpu" && fail "events took percpu"
expect_eq "events after" "$(cat $KMP_SYSCTL/events)" "slab,page"
insmod /modules/kmemprof_hog.ko pages=16 order=0 || fail "insmod hog"
set -- $(proc_line hog_alloc)
expect_eq "hog traced" "$2" 16
rmmod kmemprof_hog
expect_eq "no percpu events" "$(stat_value events.percpu_alloc_percpu)" 0

reload test_missing=kmalloc,kfree,kmem_cache_alloc,kmem_cache_free,mm_page_alloc,mm_page_free,percpu_alloc_percpu,percpu_free_percpu &&
	fail "loaded with no tracepoint at all"
reload || fail "insmod with defaults"
expect_eq "unavailable" "$(stat_value unavailable)" none
