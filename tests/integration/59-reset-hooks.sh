#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# reset against a bulk allocation in flight in a hook's wrapper. The
# wrapper enters its objects only after the function returns, and the
# function may sleep (GFP_KERNEL): reset must wait for it, and what it
# allocated before the reset must not be written into the tables after
# them (nor while they are emptied, which relinks the spill without its
# locks). The test build's test_wrap_delay makes insmod's bulk call sleep
# in the wrapper for the window.
. /tests/lib.sh
need_test_build "test_wrap_delay="
keep_module

reload test_wrap_delay=1500 || fail "insmod kmemprof test_wrap_delay=1500"
if [ "$(stat_value hooks.alloc)" != wrapper ]; then
	echo "SKIP: allocations are not hooked through a wrapper here"
	exit 77
fi
insmod /modules/kmemprof_hog.ko pages=0 bulk=64 &
hog=$!
# The hog's bulk call is in the wrapper once its cache exists.
n=0
until grep -q '^kmemprof_hog ' /proc/modules; do
	n=$((n + 1))
	[ $n -lt 100 ] || fail "the hog never started"
	sleep 0.05
done
sleep 0.3
write_knob $KMP_SYSCTL/reset 1 || fail "reset"
# The reset waited for the wrapper, which saw it and entered nothing.
expect_eq "hog_bulk after reset" "$(proc_line hog_bulk)" ""
wait $hog || fail "insmod hog bulk=64"
expect_eq "hog_bulk once loaded" "$(proc_line hog_bulk)" ""
rmmod kmemprof_hog
exit 0
