#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# leaks reports no object that the kernel has already freed: after make
# demo's load, every slab object leaks lists is allocated, by the kernel's
# own account (KASAN's shadow, through kmemprof_objcheck). Needs generic
# KASAN: the 6.12-debug kernel.
. /tests/lib.sh
keep_module

rmmod kmemprof_objcheck 2>/dev/null
insmod /modules/kmemprof_objcheck.ko ||
	{ echo "SKIP: no generic KASAN on this kernel"; exit 77; }
P=/sys/module/kmemprof_objcheck/parameters

reload || fail "insmod"
echo 1 > $KMP_SYSCTL/lifetimes
workload 200
insmod /modules/kmemprof_hog.ko pages=16 order=0 objs=200 bulk=64 || fail "insmod hog"
echo 500 > $KMP_SYSCTL/leak_age_ms
sleep 1
# Real addresses for root: %pK with kptr_restrict 1. Objects are listed
# under their tag's line, which ends in kind:<kind>.
slab_objects() {
	old=$(cat /proc/sys/kernel/kptr_restrict)
	echo 1 > /proc/sys/kernel/kptr_restrict
	awk '/^[^ #]/ { slab = / kind:slab$/ } /^  [0-9a-f]/ && slab { print $1 }' \
		$KMP_DEBUGFS/leaks
	echo "$old" > /proc/sys/kernel/kptr_restrict
}
slab_objects > /tmp/leaks.txt
n=$(wc -l < /tmp/leaks.txt)
[ "$n" -gt 0 ] || fail "leaks listed no slab object"
while read -r a; do
	echo "$a" > $P/addr
done < /tmp/leaks.txt
echo "INFO checked $n: live $(cat $P/live), freed $(cat $P/freed), other $(cat $P/other)"
expect_eq "objects checked" "$(( $(cat $P/live) + $(cat $P/freed) + $(cat $P/other) ))" "$n"
# "other": large kmalloc()s are page blocks, not slab objects.
[ "$(cat $P/live)" -gt 0 ] || fail "no object checked was a live slab object"
# An object freed while this ran is no longer in leaks; one that still is,
# and that the kernel has freed, is a false positive.
slab_objects > /tmp/leaks2.txt
for a in $(dmesg | sed -n 's/.*kmemprof_objcheck: \([0-9a-f]*\): freed.*/\1/p'); do
	grep -q "^$a\$" /tmp/leaks2.txt && fail "leaks still lists $a, which the kernel freed"
done
rmmod kmemprof_hog
rmmod kmemprof_objcheck
