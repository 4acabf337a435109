#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The debugfs views: formats, the clusters of the -smp 4 two-cluster guest,
# and leak suspects that appear after leak_age_ms and not before.
. /tests/lib.sh
keep_knobs leak_age_ms hist lifetimes self_timing

D=$KMP_DEBUGFS
S=$KMP_SYSCTL
for f in stats hist ages leaks cpus; do
	[ -r $D/$f ] || fail "no $D/$f"
	expect_eq "mode of $f" "$(stat -c %a $D/$f)" 400
done

# Histograms, lifetimes and self-timing are opt-in. Off, each view says so
# under its header and prints no numbers for them.
write_knob $S/reset 1 || fail "reset"
expect_eq "hist off" "$(sed 1,2d $D/hist)" \
	"# histograms off: echo 1 > /proc/sys/kmemprof/hist"
expect_eq "ages off" "$(sed -n 3p $D/ages)" \
	"# lifetimes off: echo 1 > /proc/sys/kmemprof/lifetimes"
expect_eq "ages off, lines" "$(sed 1,3d $D/ages | wc -l)" 0
expect_eq "leaks off" "$(sed -n 2p $D/leaks)" \
	"# lifetimes off: echo 1 > /proc/sys/kmemprof/lifetimes"
expect_eq "cpus off" "$(sed -n 3p $D/cpus)" \
	"# remote, xcluster: counted only with hist on"
[ -z "$(stat_value probe.samples)" ] || fail "probe.samples while self_timing is off"
write_knob $S/hist 1 || fail "hist=1"
write_knob $S/lifetimes 1 || fail "lifetimes=1"
write_knob $S/self_timing 1 || fail "self_timing=1"
workload 20

expect_eq "hist header" "$(sed -n 1p $D/hist)" "kmemprof hist - version: 1.0"
N20='[0-9]+(,[0-9]+){19}'
N36='[0-9]+(,[0-9]+){35}'
HIST=" kind:(slab|page|percpu) size:$N20 req:$N20 life:$N36 xcpu:[0-9]+ xcluster:[0-9]+ frag:[0-9]+\.[0-9] waste:[0-9]+$"
expect_eq "all lines" "$(sed -n '3,5p' $D/hist | cut -d' ' -f1-2 | tr '\n' ' ')" \
	"all kind:slab all kind:page all kind:percpu "
bad=$(sed 1,2d $D/hist | grep -Ev "^(all|[^ ]+\+0x[0-9a-f]+/0x[0-9a-f]+( \[[^] ]+\])? func:[^ ]+)$HIST" | head -n 2)
[ -z "$bad" ] || fail "hist lines: $bad"

expect_eq "ages header" "$(sed -n 1p $D/ages)" "kmemprof ages - version: 1.0"
bad=$(sed 1,2d $D/ages | grep -Ev "^[0-9]+ [0-9]+ [^ ]+\+0x[0-9a-f]+/0x[0-9a-f]+( \[[^] ]+\])? func:[^ ]+ kind:(slab|page|percpu) age:$N36$" | head -n 2)
[ -z "$bad" ] || fail "ages lines: $bad"

# cpus: 4 CPUs in two clusters of two, from the guest's topology; on 5.10,
# which cannot read QEMU's socket-level cpu-map (no cluster_id in sysfs,
# one package), one cluster.
expect_eq "cpus header" "$(sed -n 1p $D/cpus)" "kmemprof cpus - version: 1.0"
want="0 0 1 0 2 1 3 1 "
T=/sys/devices/system/cpu/cpu2/topology
[ -e $T/cluster_id ] || [ "$(cat $T/physical_package_id)" != 0 ] ||
	want="0 0 1 0 2 0 3 0 "
expect_eq "clusters" "$(sed 1,2d $D/cpus | cut -d' ' -f1-2 | tr '\n' ' ')" "$want"

# leaks: the hog's 256 pages are suspects after leak_age_ms, not before.
rmmod kmemprof_hog 2>/dev/null
write_knob $KMP_SYSCTL/leak_age_ms 600000 || fail "leak_age_ms refused"
insmod /modules/kmemprof_hog.ko pages=256 order=0 || fail "insmod hog"
expect_eq "leaks header" "$(sed -n 1p $D/leaks)" "kmemprof leaks - version: 1.0"
grep -q 'func:hog_alloc ' $D/leaks && fail "hog listed before leak_age_ms"
write_knob $KMP_SYSCTL/leak_age_ms 300 || fail "leak_age_ms refused"
sleep 1
sed -n 2p $D/leaks | grep -Eq '^# live longer than 300 ms: [0-9]+ objects, [0-9]+ bytes, [0-9]+ sites$' ||
	fail "leaks summary: $(sed -n 2p $D/leaks)"
line=$(grep 'func:hog_alloc ' $D/leaks)
echo "leak: $line"
set -- $line
expect_eq "leaked bytes" "$1" $((256 * 4096))
expect_eq "leaked objects" "$2" 256
samples=$(grep -A5 'func:hog_alloc ' $D/leaks | sed 1d | grep -c '^  ')
expect_eq "samples shown" "$samples" 5
grep -A1 'func:hog_alloc ' $D/leaks | sed -n 2p |
	grep -Eq '^  ([0-9a-fx]+|\(____ptrval____\)) size:4096 age_ms:[0-9]+ cpu:[0-3]$' ||
	fail "sample: $(grep -A1 'func:hog_alloc ' $D/leaks | sed -n 2p)"
for v in -1 abc 2147483648 0x10; do
	write_knob $KMP_SYSCTL/leak_age_ms "$v" && fail "leak_age_ms took $v"
done
expect_eq "leak_age_ms" "$(cat $KMP_SYSCTL/leak_age_ms)" 300
rmmod kmemprof_hog

# stats: the new pools and the probe's own cost (one event in 1024 timed).
workload 100
for k in hist.used hist.max hist.bytes probe.samples probe.ns_per_event; do
	[ -n "$(stat_value $k)" ] || fail "stats has no $k"
done
[ "$(stat_value probe.samples)" -gt 0 ] || fail "no probe timed"
echo "probe.ns_per_event $(stat_value probe.ns_per_event)"
