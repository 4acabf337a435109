#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rigmode=dt: the guest booted with tests/qemu/kmemprof-test.dtso applied
# to its DTB. The node's good values are the module's defaults, its bad
# ones are refused with a message, and module parameters beat it.
. /tests/lib.sh

[ -d /proc/device-tree/kmemprof ] || fail "no /kmemprof node in the DTB"
expect_eq "node compatible" "$(tr -d '\0' < /proc/device-tree/kmemprof/compatible)" kmemprof

dmesg -c > /dev/null
insmod /modules/kmemprof.ko || fail "insmod"
log=$(dmesg)
echo "$log"
expect_eq "enabled from the DT" "$(cat $KMP_SYSCTL/enabled)" 0
expect_eq "events from the DT" "$(cat $KMP_SYSCTL/events)" slab,page
expect_eq "max-tags from the DT" "$(stat_value tags.max)" 4096
expect_eq "stack-depth from the DT" "$(cat $KMP_SYSCTL/stack_depth)" 4
expect_eq "sample-rate from the DT" "$(cat $KMP_SYSCTL/sample_rate)" 4
expect_eq "live-grow from the DT" "$(stat_value live.grow_max)" 0
# The bad ones: refused, named in dmesg, the built-in default kept.
expect_eq "max-live refused" "$(stat_value live.max)" "$(default_max_live)"
expect_eq "key-depth refused" "$(cat $KMP_SYSCTL/key_depth)" 0
echo "$log" | grep -q "kmemprof: defaults from the device tree: /kmemprof$" ||
	fail "no 'defaults from the device tree' line"
echo "$log" | grep -q "kmemprof: device tree: /kmemprof/max-live is not one u32 cell; ignored$" ||
	fail "no message for max-live"
echo "$log" | grep -q "kmemprof: device tree: /kmemprof/key-depth = 99: refused by key_depth; ignored$" ||
	fail "no message for key-depth"
expect_eq "warnings in all" "$(echo "$log" | grep -c 'kmemprof: device tree:.*ignored$')" 2

# Module parameters beat the device tree; what they leave, it still sets.
rmmod kmemprof || fail "rmmod"
insmod /modules/kmemprof.ko enabled=1 events=slab max_tags=1024 max_live=2048 ||
	fail "insmod with parameters"
expect_eq "enabled from the parameter" "$(cat $KMP_SYSCTL/enabled)" 1
expect_eq "events from the parameter" "$(cat $KMP_SYSCTL/events)" slab
expect_eq "max_tags from the parameter" "$(stat_value tags.max)" 1024
expect_eq "max_live from the parameter" "$(stat_value live.max)" 2048
expect_eq "live-grow still from the DT" "$(stat_value live.grow_max)" 0
expect_eq "stack-depth still from the DT" "$(cat $KMP_SYSCTL/stack_depth)" 4
expect_eq "parameter shown" "$(cat /sys/module/kmemprof/parameters/max_tags)" 1024
rmmod kmemprof || fail "rmmod"
echo "dt-overlay: ok"
