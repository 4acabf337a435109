#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The allocator's untraced paths are paired (hooks.c): after make demo's
# load, no live entry was ever found stale, and the maple tree's bulk site
# (mas_alloc_nodes, which allocates with kmem_cache_alloc_bulk() from 6.1
# to 6.17) is accurate.
. /tests/lib.sh
keep_module

reload || fail "insmod"
echo 4 > $KMP_SYSCTL/stack_depth
workload 200
insmod /modules/kmemprof_hog.ko pages=1024 order=2 || fail "insmod hog"
echo 0 > $KMP_SYSCTL/stack_depth
rmmod kmemprof_hog
workload 50
for k in stale unpaired.slab unpaired.page unpaired.percpu skip.nmi hooks untraced; do
	echo "INFO $k $(stat_value $k)"
done
echo "INFO accurate:no sites: $(grep -c ' accurate:no' /proc/kmemprof)"
grep ' accurate:no' /proc/kmemprof | sed 's/^/INFO   /' | head -n 20
expect_eq "stale" "$(stat_value stale)" 0
line=$(proc_line mas_alloc_nodes)
[ -z "$line" ] && echo "INFO no mas_alloc_nodes site on this kernel"
expect_eq "mas_alloc_nodes accurate" "$(line_key "$line" accurate)" ""
