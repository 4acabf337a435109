#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A module's call sites are named from an index of its symbols (names.c),
# which goes when the module goes: a module loaded where another was is
# named as itself, never from the other's symbols. kmemprof_names_a and _b
# are the same functions under two names (kmemprof_names.h), longer in _b:
# each holds one kmalloc() from each of kmpnames_X_0 .. kmpnames_X_3, of
# 64, 96, 128 and 192 bytes. The kernel loads _b where _a was, so _b's call
# sites are where _a had other functions. Each site must be named after
# the function that allocated its size. (The KUnit suite kmemprof_names
# checks the names themselves against the kernel's, function by function.)
. /tests/lib.sh

N=4
rmmod kmemprof_names_a kmemprof_names_b 2>/dev/null
trap 'rmmod kmemprof_names_a kmemprof_names_b 2>/dev/null' EXIT

# sites X: "kmpnames_X_I+0xOFF/0xSIZE [kmemprof_names_X] func:kmpnames_X_I"
# of the loaded module's call sites, one a line, in order.
sites() {
	grep -v ' module:unloaded$' /proc/kmemprof |
		grep -oE "[^ ]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[kmemprof_names_[ab]\] func:kmpnames_[ab]_[0-9]+" |
		grep "kmemprof_names_$1" | sort
}

SIZES="64 96 128 192"

# check X: module X's sites, each function's once, each with the size that
# function allocates, and no other name.
check() {
	s=$(sites "$1")
	expect_eq "call sites of kmemprof_names_$1" "$(echo "$s" | grep -c .)" $N
	i=0
	for size in $SIZES; do
		echo "$s" | grep -qE "^kmpnames_$1_$i\+0x[0-9a-f]+/0x[0-9a-f]+ \[kmemprof_names_$1\] func:kmpnames_$1_$i$" ||
			fail "no site named kmpnames_$1_$i: $s"
		line=$(proc_line "kmpnames_$1_$i")
		expect_eq "req: of kmpnames_$1_$i" "$(line_key "$line" req)" $size
		i=$((i + 1))
	done
	other=a
	[ "$1" = a ] && other=b
	grep -v ' module:unloaded$' /proc/kmemprof | grep -q "kmpnames_$other" &&
		fail "kmemprof_names_$other is not loaded, but a site is named after it"
	return 0
}

insmod /modules/kmemprof_names_a.ko || fail "insmod kmemprof_names_a failed"
text_a=$(cat /sys/module/kmemprof_names_a/sections/.text)
check a
names_a=$(sites a)
rmmod kmemprof_names_a || fail "rmmod kmemprof_names_a failed"
# _a's sites keep _a's names, as unloaded
expect_eq "unloaded sites of kmemprof_names_a" \
	"$(grep ' module:unloaded$' /proc/kmemprof | grep -c 'func:kmpnames_a_')" $N

insmod /modules/kmemprof_names_b.ko || fail "insmod kmemprof_names_b failed"
expect_eq "kmemprof_names_b's text, where _a's was" \
	"$(cat /sys/module/kmemprof_names_b/sections/.text)" "$text_a"
check b

# and back: _a where _b was
rmmod kmemprof_names_b || fail "rmmod kmemprof_names_b failed"
insmod /modules/kmemprof_names_a.ko || fail "insmod kmemprof_names_a again failed"
expect_eq "kmemprof_names_a's text, again" \
	"$(cat /sys/module/kmemprof_names_a/sections/.text)" "$text_a"
check a
expect_eq "kmemprof_names_a's sites, again" "$(sites a)" "$names_a"
