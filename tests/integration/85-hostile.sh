#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hostile input on every knob: each bad write fails with EINVAL and leaves
# the value as it was; odd-offset and 1-byte reads stay consistent.
. /tests/lib.sh

S=$KMP_SYSCTL
KNOBS="enabled events reset leak_age_ms stack_depth stack_sample key_depth sample_rate min_size max_size hist lifetimes self_timing owners oom_report"
keep_knobs $(echo "$KNOBS" | sed "s/ reset//")
n=0
for k in $KNOBS; do
	before=$(cat $S/$k)
	for v in "" -1 18446744073709551616 18446744073709551617 0x10 abc 1abc \
		 "1 2" " " "1,"; do
		got=$(kmpio write $S/$k 0 "$v")
		expect_eq "$k='$v'" "$got" "err EINVAL"
		n=$((n + 1))
	done
	expect_eq "$k after 64 KiB" "$(kmpio writelen $S/$k 0 65536)" "err EINVAL"
	# A good value at an odd offset is refused too: writes are whole.
	expect_eq "$k at offset 3" "$(kmpio write $S/$k 3 1)" "err EINVAL"
	expect_eq "$k at offset 1" "$(kmpio write $S/$k 1 slab)" "err EINVAL"
	expect_eq "$k unchanged" "$(cat $S/$k)" "$before"
	# Reads: at offset 0 the value, past it nothing.
	expect_eq "$k read" "$(kmpio read $S/$k 0 64)" "$before"
	expect_eq "$k read past the end" "$(kmpio read $S/$k 100 64)" ""
	n=$((n + 4))
done
# The owners knob takes a word: near misses of its words, and oom_report
# past its 64 sites, are refused the same way.
ob=$(cat $S/owners) rb=$(cat $S/oom_report)
for v in 1 2 tasks Task TASK cgroups cgroup2 "task cgroup" " task" "task," \
	 "cgroup 0" "0 task" none off; do
	expect_eq "owners='$v'" "$(kmpio write $S/owners 0 "$v")" "err EINVAL"
	n=$((n + 1))
done
expect_eq "owners unchanged" "$(cat $S/owners)" "$ob"
expect_eq "oom_report=65" "$(kmpio write $S/oom_report 0 65)" "err EINVAL"
expect_eq "oom_report unchanged" "$(cat $S/oom_report)" "$rb"
n=$((n + 1))
echo "$n hostile writes refused"

# 1-byte reads of a file give what one read gives: the stable headers.
for f in /proc/kmemprof $KMP_DEBUGFS/hist $KMP_DEBUGFS/cpus; do
	want=$(head -n 1 $f)
	got=$(dd if=$f bs=1 count=${#want} 2>/dev/null)
	expect_eq "1-byte reads of $f" "$got" "$want"
	got=$(dd if=$f bs=1 skip=3 count=5 2>/dev/null)
	expect_eq "odd-offset read of $f" "$got" "$(echo "$want" | cut -c4-8)"
	expect_eq "read past the end of $f" "$(kmpio read $f 100000000 16)" ""
done
