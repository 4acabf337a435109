#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Memory sized to the machine: at load, kmemprof's tables take at most
# 0.5% of MemTotal; the pools are sized from the RAM as kmemprof.rst says;
# stats' memory.bytes is the sum of the pools'; the histogram pool and the
# live table's times come only with hist=1 (the times with lifetimes=1
# too).
. /tests/lib.sh

reload || fail "insmod"
total_kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
mem=$(stat_value memory.bytes)
[ -n "$mem" ] || fail "stats has no memory.bytes"
sum=0
for k in tags.bytes live.bytes hist.bytes stacks.bytes pfnmap.bytes percpu.bytes; do
	v=$(stat_value $k)
	[ -n "$v" ] || fail "stats has no $k"
	sum=$((sum + v))
done
expect_eq "memory.bytes is the sum of the pools" "$mem" "$sum"
# The bound is on the RAM (System RAM in /proc/iomem), not MemTotal, from
# which a KASAN kernel takes its shadow (an eighth).
ram=0
for r in $(grep ': System RAM$' /proc/iomem | sed 's/^ *//; s/ .*//'); do
	ram=$((ram + 0x${r#*-} - 0x${r%-*} + 1))
done
[ "$ram" -gt 0 ] || ram=$((total_kb * 1024))
echo "memory at load: $mem bytes of RAM $ram (MemTotal $((total_kb * 1024)))"
[ $((mem * 200)) -le "$ram" ] ||
	fail "memory at load $mem is over 0.5% of the RAM, $ram bytes"
expect_eq "live.max from the RAM" "$(stat_value live.max)" "$(default_max_live)"
# At most 32 bytes a live object at the defaults: 24-byte slots, 32-byte
# spill entries and their share of the rest (kmemprof.rst, "Memory").
lb=$(stat_value live.bytes)
lm=$(stat_value live.max)
echo "live table: $lb bytes for $lm objects"
[ "$lb" -le $((lm * 32)) ] ||
	fail "live.bytes $lb is over 32 bytes an object of live.max $lm"
# The slots: a power of two groups of 4, under seven eighths of max_live.
groups=1
while [ $((groups * 2)) -le $((lm / 8 * 7 / 4)) ]; do
	groups=$((groups * 2))
done
if [ "$total_kb" -lt $((2 * 1024 * 1024)) ]; then want_tags=8192; else want_tags=16384; fi
expect_eq "tags.max from the RAM" "$(stat_value tags.max)" $want_tags
expect_eq "no histogram pool at load" "$(stat_value hist.bytes)" 0

# The histogram pool at the first hist=1, kept when it goes off again.
echo 1 > $KMP_SYSCTL/hist || fail "hist=1"
hb=$(stat_value hist.bytes)
[ "$hb" -gt 0 ] || fail "hist=1 left hist.bytes at $hb"
# The live table's times with it, 8 bytes a slot, kept too.
expect_eq "times at the first hist=1" "$(stat_value live.bytes)" \
	$((lb + groups * 4 * 8))
echo 0 > $KMP_SYSCTL/hist
expect_eq "hist pool kept" "$(stat_value hist.bytes)" "$hb"
expect_eq "times kept" "$(stat_value live.bytes)" $((lb + groups * 4 * 8))
echo 1 > $KMP_SYSCTL/lifetimes || fail "lifetimes=1"
expect_eq "times made once" "$(stat_value live.bytes)" $((lb + groups * 4 * 8))
echo 0 > $KMP_SYSCTL/lifetimes

# Parameters still size the pools exactly.
reload max_live=4096 max_tags=512 || fail "insmod max_live=4096 max_tags=512"
expect_eq "live.max from the parameter" "$(stat_value live.max)" 4096
expect_eq "tags.max from the parameter" "$(stat_value tags.max)" 512
reload || fail "insmod"

# Room for other modules' static per-CPU data: every module's comes from
# one reserve of the kernel's (8 KiB without allocinfo), which kmemprof's
# own per-CPU buffers would nearly fill if they were static too.
insmod /modules/kmemprof_pcpu.ko ||
	fail "a module with 4 KiB of static per-CPU data does not load beside kmemprof"
rmmod kmemprof_pcpu
