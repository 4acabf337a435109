#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The reader (the static arm64 build) against the live module: top, stats,
# hist, leaks, stacks, snapshot and diff, watch, the knob commands, and
# the kernel's own /proc/allocinfo where the kernel has one.
. /tests/lib.sh
keep_knobs enabled stack_depth leak_age_ms hist lifetimes
keep_module

# restore KNOB VALUE: put a knob back, whatever happened.
restore() {
	write_knob $KMP_SYSCTL/$1 "$2" || fail "cannot restore $1=$2"
}

IDENT='\+0x[0-9a-f]+/0x[0-9a-f]+'
rmmod kmemprof_hog 2>/dev/null
write_knob $KMP_SYSCTL/enabled 1 || fail "enabled=1"
restore stack_depth 0
# ages, leaks and hist read data that is kept only with these on.
restore hist 1
restore lifetimes 1

kmemprof help | grep -q '^commands:$' || fail "kmemprof help"
for c in top watch snapshot diff leaks stacks hist stats ages cpus set plot; do
	kmemprof $c --help | grep -q "^usage: kmemprof $c " ||
		fail "kmemprof $c --help"
done
kmemprof frobnicate > /dev/null 2>&1 && fail "took an unknown command"

# top: the hog's 128 blocks of order 3 (32 KiB each), exactly.
insmod /modules/kmemprof_hog.ko pages=128 order=3 || fail "insmod hog"
out=$(kmemprof -n 3 -H) || fail "kmemprof failed: $out"
echo "$out"
expect_eq "header" "$(echo "$out" | sed -n 1p)" \
	"        LIVE     OBJS       AVG    ALLOCS KIND   SITE"
expect_eq "lines with -n 3" "$(echo "$out" | wc -l)" 4
# The hog's line, exactly (slab pages may outweigh it on a debug kernel).
out=$(kmemprof top -n 1 -H --module kmemprof_hog)
echo "$out" | sed -n 2p | grep -Eq "^ +4\.0M +128 +32K +128 page +hog_alloc$IDENT \[kmemprof_hog\]$" ||
	fail "hog line: $(echo "$out" | sed -n 2p)"
out=$(kmemprof --kind page --module kmemprof_hog -s calls)
expect_eq "filtered, live module" "$(echo "$out" | sed 1d | grep -vc "(unloaded)")" 1
kmemprof --sort size > /dev/null 2>&1 && fail "took --sort size"
# top --sort rate reads twice, a second apart.
kmemprof top --sort rate -d 0.5 -n 2 | sed -n 1p | grep -q ' ALLOCS/S KIND ' ||
	fail "top --sort rate"

# stats: the module's own view, formatted.
out=$(kmemprof stats) || fail "kmemprof stats"
echo "$out" | sed -n 1p | grep -Eq '^kmemprof is enabled; events [a-z,]+; unavailable [a-z,]+$' ||
	fail "stats: $(echo "$out" | sed -n 1p)"
tags_max=$(stat_value tags.max)
echo "$out" | grep -Eq "^  tags +[0-9]+ +$tags_max +[0-9]+\.[0-9]% +[0-9]+$" ||
	fail "stats pools: $(echo "$out" | grep '^  tags')"
expect_eq "stats: kmalloc events listed" \
	"$(echo "$out" | grep -c '^  kmalloc  ')" 1

# cpus: the guest's 4 CPUs with the clusters the module found (two of two,
# or one on 5.10, which cannot read QEMU's cpu-map); ages: the hog is there.
out=$(kmemprof cpus) || fail "kmemprof cpus: $out"
echo "$out"
expect_eq "cpus header" "$(echo "$out" | sed -n 1p)" \
	" CPU  CLUSTER       ALLOCS        FREES       REMOTE       %     XCLUSTER       %"
expect_eq "cpus clusters" "$(echo "$out" | sed 1d | awk '{ printf "%s:%s ", $1, $2 }')" \
	"$(sed 1,2d $KMP_DEBUGFS/cpus | grep -v '^#' | awk '{ printf "%s:%s ", $1, $2 }')"
expect_eq "cpus: four" "$(echo "$out" | sed 1d | wc -l)" 4
kmemprof ages -n 0 | grep -Eq "^ +4194304 +128 +[^ ]+ +[^ ]+ page +hog_alloc$IDENT \[kmemprof_hog\]$" ||
	fail "ages: no hog"

# hist: the hog's 128 allocations of order 3, one full bar. Tags of hogs
# loaded before (other tests) have histograms of their own: take ours.
out=$(kmemprof hist hog_alloc --kind page) || fail "kmemprof hist: $out"
out=$(echo "$out" | grep -B1 -A1 '^  allocations by size (page order): 128$')
echo "$out"
expect_eq "hist: one hog of 128" "$(echo "$out" | wc -l)" 3
echo "$out" | sed -n 1p | grep -Eq "^hog_alloc$IDENT \[kmemprof_hog\] kind:page: xcpu 0, xcluster 0, frag 0\.0%, waste 0 bytes$" ||
	fail "hist title: $(echo "$out" | sed -n 1p)"
expect_eq "hist bar" "$(echo "$out" | sed -n 3p)" \
	"       32K |################################################## 128"
out=$(kmemprof hist)
for k in slab page; do
	echo "$out" | grep -q "^all $k allocations: xcpu " || fail "hist: no all $k"
done
kmemprof hist no_such_function > /dev/null 2>&1 && fail "hist of nothing"

# leaks: the hog's blocks, once older than leak_age_ms.
kmemprof set leak_age_ms=300 || fail "set leak_age_ms=300"
expect_eq "leak_age_ms" "$(cat $KMP_SYSCTL/leak_age_ms)" 300
sleep 1
out=$(kmemprof leaks --module kmemprof_hog --kind page -n 1) || fail "leaks: $out"
echo "$out"
echo "$out" | sed -n 1p | grep -Eq '^Leak suspects, live longer than 300 ms: [0-9]+ objects, [0-9]+ bytes, [0-9]+ sites$' ||
	fail "leaks summary: $(echo "$out" | sed -n 1p)"
expect_eq "leaks columns" "$(echo "$out" | sed -n 2p)" \
	"        LIVE     OBJS   OLDEST KIND   SITE"
echo "$out" | sed -n 3p | grep -Eq "^ +4194304 +128 +[0-9.]+m?s page +hog_alloc$IDENT \[kmemprof_hog\]$" ||
	fail "leaks hog: $(echo "$out" | sed -n 3p)"
# (%p: a hash, or "(____ptrval____)" until the kernel's RNG is ready, as
# on the 5.10 guest, which has little entropy)
expect_eq "leaks: objects shown" \
	"$(echo "$out" | sed 1,3d | grep -Ec '^ +32768 {10,}[0-9.]+m?s {10}object ([0-9a-f]+|\(____ptrval____\)) on cpu[0-3]$')" 5
restore leak_age_ms 10000

# stacks: set stack_depth through the reader, load the hog again.
rmmod kmemprof_hog
kmemprof set stack_depth=4 || fail "set stack_depth=4"
expect_eq "stack_depth" "$(cat $KMP_SYSCTL/stack_depth)" 4
out=$(kmemprof set stack_depth=abc 2>&1) && fail "set stack_depth=abc took it"
expect_eq "EINVAL message" "$out" \
	"kmemprof: the module refused stack_depth=abc (EINVAL)"
expect_eq "stack_depth unchanged" "$(cat $KMP_SYSCTL/stack_depth)" 4
# An empty stack store and live table first (the KUnit suites ran before).
kmemprof reset || fail "kmemprof reset"
expect_eq "enabled after reset" "$(cat $KMP_SYSCTL/enabled)" 1
kmemprof snapshot -o /tmp/a.snap || fail "snapshot a"
insmod /modules/kmemprof_hog.ko pages=128 order=3 || fail "insmod hog"
kmemprof set stack_depth=0 || fail "set stack_depth=0"
kmemprof snapshot -o /tmp/b.snap || fail "snapshot b"
out=$(kmemprof stacks hog_alloc) || fail "kmemprof stacks: $out"
echo "$out"
echo "$out" | sed -n 1p | grep -Eq "^hog_alloc$IDENT \[kmemprof_hog\] kind:page: 128 allocs, 4194304 bytes sampled$" ||
	fail "stacks tag: $(echo "$out" | sed -n 1p)"
echo "$out" | sed -n 2p | grep -Eq '^  100\.0% +4194304 bytes +128 allocs$' ||
	fail "stacks stack: $(echo "$out" | sed -n 2p)"
echo "$out" | sed -n 3p | grep -Eq "^        hog_alloc$IDENT \[kmemprof_hog\]$" ||
	fail "stacks frame 0: $(echo "$out" | sed -n 3p)"
echo "$out" | sed -n 4p | grep -Eq "^        hog_init$IDENT \[kmemprof_hog\]$" ||
	fail "stacks frame 1: $(echo "$out" | sed -n 4p)"
# The live views, for the host's full build to read after the boot (the
# outputs the static arm64 build leaves out, and pprof against them):
# tools/rig/reader-live.sh.
if [ -d /out ]; then
	mkdir -p /out/reader
	cat /proc/kmemprof > /out/reader/kmemprof.txt
	cat $KMP_DEBUGFS/stacks > /out/reader/stacks.txt
fi

# snapshot and diff: the hog's new tag grew by its 4 MiB, from nothing.
expect_eq "snapshot header" "$(sed -n 1p /tmp/b.snap)" "kmemprof - version: 1.0"
sed -n 2p /tmp/b.snap | grep -Eq '^# snapshot time:[0-9]+\.[0-9]{3} source:/proc/kmemprof$' ||
	fail "snapshot time line: $(sed -n 2p /tmp/b.snap)"
out=$(kmemprof diff /tmp/a.snap /tmp/b.snap --module kmemprof_hog --kind page) ||
	fail "kmemprof diff: $out"
echo "$out"
echo "$out" | sed -n 1p | grep -Eq '^/tmp/a\.snap -> /tmp/b\.snap \([0-9.]+ s\): live \+[0-9]+ bytes; [0-9]+ sites? grew, [0-9]+ new, 0 gone$' ||
	fail "diff summary: $(echo "$out" | sed -n 1p)"
expect_eq "diff columns" "$(echo "$out" | sed -n 2p)" \
	"      GROWTH       LIVE A       LIVE B      OBJS    ALLOCS KIND   SITE"
echo "$out" | sed -n 3p | grep -Eq "^ +\+4194304 +\(new\) +4194304 +\+128 +\+128 page +hog_alloc$IDENT \[kmemprof_hog\]$" ||
	fail "diff hog: $(echo "$out" | sed -n 3p)"
kmemprof diff /tmp/a.snap > /dev/null 2>&1 && fail "diff of one file"

# watch: three refreshes, recorded; no ANSI when not on a terminal.
out=$(kmemprof watch -d 0.2 -c 3 -n 2 --record /tmp/rec) || fail "watch: $out"
expect_eq "watch frames" "$(echo "$out" | grep -c '^kmemprof watch ')" 3
expect_eq "watch: no escapes" "$(echo "$out" | grep -c "$(printf '\033')")" 0
expect_eq "record snapshots" "$(grep -c '^kmemprof - version: 1.0$' /tmp/rec)" 3
kmemprof plot series /tmp/rec -o /tmp/rec.svg || fail "plot series"
grep -q '<svg' /tmp/rec.svg || fail "plot series wrote no SVG"
kmemprof top -n 2 --json | grep -q '^{"schema":1,' || fail "top --json"

# The knob commands, as root and as nobody.
kmemprof disable || fail "kmemprof disable"
expect_eq "disabled" "$(cat $KMP_SYSCTL/enabled)" 0
kmemprof enable || fail "kmemprof enable"
expect_eq "enabled" "$(cat $KMP_SYSCTL/enabled)" 1
kmemprof set | grep -q '^stack_depth=0$' || fail "kmemprof set (list)"
out=$(runas 65534 kmemprof enable 2>&1) && fail "nobody enabled kmemprof"
expect_eq "not root" "$out" \
	"kmemprof: writing /proc/sys/kmemprof/enabled needs root"
out=$(runas 65534 kmemprof -n 1 2>&1) && fail "nobody read the profile"
expect_eq "not root, top" "$out" \
	"kmemprof: cannot open /proc/kmemprof: Permission denied (it is root only)"
out=$(kmemprof set no_such_knob=1 2>&1) && fail "set an unknown knob"
expect_eq "unknown knob" "$out" \
	"kmemprof: no knob 'no_such_knob' (see 'kmemprof set' for the list)"
rmmod kmemprof_hog

# The kernel's own /proc/allocinfo (6.10+ with memory allocation
# profiling): read with -i, and in place of /proc/kmemprof when the module
# is not loaded. Without the module, the knob commands say so.
if [ -r /proc/allocinfo ]; then
	out=$(kmemprof -i /proc/allocinfo -n 3) || fail "allocinfo: $out"
	echo "$out"
	expect_eq "allocinfo lines" "$(echo "$out" | wc -l)" 4
	echo "$out" | sed -n 2p | grep -Eq '^ +[0-9]+ +[0-9]+ +[0-9-]+ +- +- +[^ ]+:[0-9]+' ||
		fail "allocinfo line: $(echo "$out" | sed -n 2p)"
fi
rmmod kmemprof || fail "rmmod kmemprof"
out=$(kmemprof enable 2>&1) && fail "enable without the module"
expect_eq "module absent" "$out" \
	"kmemprof: the kmemprof module is not loaded (no /proc/sys/kmemprof)"
if [ -r /proc/allocinfo ]; then
	out=$(kmemprof -n 3 2> /tmp/fallback.err)
	rc=$?
	echo "$out"
	[ $rc -eq 0 ] || fail "no fallback to /proc/allocinfo: $out $(cat /tmp/fallback.err)"
	expect_eq "fallback note" "$(cat /tmp/fallback.err)" \
		"kmemprof: no /proc/kmemprof (is the kmemprof module loaded?): reading /proc/allocinfo"
	rm -f /tmp/fallback.err
	echo "$out" | sed -n 2p | grep -Eq '^ +[0-9]+ +[0-9]+ +[0-9-]+ +- +- +[^ ]+:[0-9]+' ||
		fail "allocinfo fallback: $(echo "$out" | sed -n 2p)"
else
	out=$(kmemprof -n 3 2>&1) && fail "read a profile without the module"
	expect_eq "no profile" "$out" \
		"kmemprof: cannot open /proc/kmemprof: No such file or directory (is the kmemprof module loaded?)"
fi
insmod /modules/kmemprof.ko || fail "insmod kmemprof"
rm -f /tmp/a.snap /tmp/b.snap /tmp/rec /tmp/rec.svg
exit 0
