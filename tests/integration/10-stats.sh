#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The stats view exists, has every event, and its counts move under load.
. /tests/lib.sh

[ -r "$KMP_DEBUGFS/stats" ] || fail "no $KMP_DEBUGFS/stats"
expect_eq enabled "$(stat_value enabled)" 1
for ev in kmalloc kmem_cache_alloc kfree kmem_cache_free \
	  mm_page_alloc mm_page_free; do
	before=$(stat_value events.$ev)
	[ -n "$before" ] || fail "stats has no events.$ev"
	eval "before_$ev=$before"
done
workload 50
for ev in kmalloc kfree kmem_cache_alloc kmem_cache_free mm_page_alloc; do
	eval "before=\$before_$ev"
	now=$(stat_value events.$ev)
	[ "$now" -gt "$before" ] || fail "events.$ev did not move ($before -> $now)"
	echo "events.$ev: $before -> $now"
done
