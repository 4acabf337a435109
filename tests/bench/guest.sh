#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, in the guest: every mode, interleaved, in one boot.
#
# benchcpus=1,2,4 on the kernel command line picks the CPU counts and
# benchrounds=N the rounds. Each round runs every mode once, in the same
# order (A B C A B C ...), so that drift hits every mode alike. The RESULT
# lines go to /out/bench.txt for the host to tabulate.
. /tests/lib.sh

cpus_list=1
rounds=3
MODES="bare disabled default hist lifetimes stack8 key2 sample64 owners owners-cg allocinfo ftrace"
WORKLOADS=kmalloc32,kmalloc256,kmalloc2048,sites1000,kmem_cache,bulk16,kfree_rcu,pages0,pagesbulk16,pages2,leaky100k,xcpu,name10k
CALIB=calib_loop,calib_irq,calib_percpu,calib_lock,calib_clock,calib_stack6,calib_stack12,calib_tp_kmalloc32,calib_tp_pages0
procread=1
MACRO_MODES="bare allocinfo ftrace disabled default hist lifetimes stack8 key2 sample64 owners owners-cg ref ref-hist ref-stack8 paths"
macro_scale=1
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	benchcpus=*) cpus_list=$(echo "${arg#benchcpus=}" | tr , ' ') ;;
	benchrounds=*) rounds=${arg#benchrounds=} ;;
	benchmodes=*) MODES=$(echo "${arg#benchmodes=}" | tr , ' ') ;;
	benchworkloads=*) WORKLOADS=${arg#benchworkloads=} ;;
	benchcalib=*) CALIB=${arg#benchcalib=} ;;
	benchprocread=*) procread=${arg#benchprocread=} ;;
	benchmacro=*) MACRO_MODES=$(echo "${arg#benchmacro=}" | tr , ' ') ;;
	benchmacroscale=*) macro_scale=${arg#benchmacroscale=} ;;
	esac
done
T=/sys/kernel/tracing
PROF=/proc/sys/vm/mem_profiling
EVENTS="kmalloc kfree kmem_cache_alloc kmem_cache_free mm_page_alloc mm_page_free"

# Every mode starts from nothing: no kmemprof, no allocinfo, no ftrace.
quiet() {
	rmmod kmemprof 2>/dev/null
	[ -w $PROF ] && echo 0 > $PROF
	for e in $EVENTS; do echo 0 > $T/events/kmem/$e/enable; done
	echo 0 > $T/tracing_on
	echo > $T/trace
}

# The live table as large as before it was sized from the RAM (65536 on
# this 1 GiB guest), so that leaky100k's 100k objects fit and every mode
# measures its paths, not drops.
P="max_live=524288"

set_mode() {
	quiet
	case "$1" in
	bare) ;;
	disabled) insmod /modules/kmemprof.ko $P enabled=0 ;;
	default) insmod /modules/kmemprof.ko $P ;;
	hist) insmod /modules/kmemprof.ko $P && echo 1 > $KMP_SYSCTL/hist ;;
	lifetimes) insmod /modules/kmemprof.ko $P &&
		echo 1 > $KMP_SYSCTL/lifetimes ;;
	stack8) insmod /modules/kmemprof.ko $P && echo 8 > $KMP_SYSCTL/stack_depth ;;
	key2) insmod /modules/kmemprof.ko $P && echo 2 > $KMP_SYSCTL/key_depth ;;
	sample64) insmod /modules/kmemprof.ko $P && echo 64 > $KMP_SYSCTL/sample_rate ;;
	# issue 41's cost: every event charged to its task or cgroup
	owners) insmod /modules/kmemprof.ko $P && echo task > $KMP_SYSCTL/owners ;;
	owners-cg) insmod /modules/kmemprof.ko $P &&
		echo cgroup > $KMP_SYSCTL/owners ;;
	# The reference commit's module (tools/rig/bench.sh: BENCH_REF),
	# built for this kernel, and the path build of this one (paths.h).
	ref | ref-*)
		[ -e /modules/ref/kmemprof.ko ] || return 1
		insmod /modules/ref/kmemprof.ko $P || return 1
		case "$1" in
		ref-hist) echo 1 > $KMP_SYSCTL/hist ;;
		ref-stack8) echo 8 > $KMP_SYSCTL/stack_depth ;;
		esac ;;
	paths)
		[ -e /modules/paths/kmemprof.ko ] || return 1
		insmod /modules/paths/kmemprof.ko $P ;;
	allocinfo) [ -w $PROF ] && echo 1 > $PROF ;;
	ftrace)
		echo 1 > $T/tracing_on
		for e in $EVENTS; do echo 1 > $T/events/kmem/$e/enable; done ;;
	esac
}

# The macro load (tests/qemu/kmpload.c), every mode of MACRO_MODES in
# each round, interleaved like the pairs. One run first, untimed, so
# that the first mode does not pay for faulting the program in.
if [ -n "$MACRO_MODES" ]; then
	# kmpload's messages go over TCP on loopback where there is no
	# CONFIG_UNIX (the rig's kernels have it).
	ip link set lo up 2>/dev/null
	quiet
	kmpload /tmp "$macro_scale" > /dev/null
	r=1
	while [ $r -le "$rounds" ]; do
		for m in $MACRO_MODES; do
			set_mode $m || continue
			kmpload /tmp "$macro_scale" | while read -r phase ns; do
				echo "RESULT $m macro_$phase 1 $ns"
			done
			# the path build's counts of this round's load
			if [ "$m" = paths ]; then
				sed "s/^/PATH $r /" $KMP_DEBUGFS/paths
				for k in hooks.alloc hook.kmem_cache_alloc_bulk.calls \
					 hook.kmem_cache_free_bulk.calls \
					 hook.alloc_pages_bulk.calls hook.migrate.calls \
					 unpaired.page page_returned page_split; do
					echo "PATHSTAT $r $k $(stat_value $k)"
				done
			fi
		done
		echo "bench: macro round $r done"
		r=$((r + 1))
	done
	quiet
fi

r=1
while [ $r -le "$rounds" ]; do
	for m in $MODES; do
		set_mode $m || continue
		for c in $cpus_list; do
			insmod /modules/kmemprof_bench.ko label=$m cpus=$c reps=1 \
				workloads=$WORKLOADS
			rmmod kmemprof_bench
		done
	done
	echo "bench: round $r done"
	r=$((r + 1))
done
quiet

# What the building blocks cost, once, bare.
if [ -n "$CALIB" ]; then
	insmod /modules/kmemprof_bench.ko label=bare workloads=$CALIB reps=3
	rmmod kmemprof_bench
fi

# /proc/kmemprof with 10k tags: 1000 sites x 10 callers, key_depth=2.
if [ "$procread" = 1 ]; then
	insmod /modules/kmemprof.ko
	echo 2 > $KMP_SYSCTL/key_depth
	insmod /modules/kmemprof_bench.ko label=default workloads=procread10k reps=4
	rmmod kmemprof_bench
	echo "STAT tags.used $(stat_value tags.used)"
	echo "STAT live.bytes $(stat_value live.bytes)"
	echo "STAT live.max $(stat_value live.max)"
	# what owners add to each live slot (issue 41: at most 8 bytes)
	echo task > $KMP_SYSCTL/owners
	echo "STAT live.bytes.owners $(stat_value live.bytes)"
	quiet
fi
dmesg | grep 'kmemprof_bench: RESULT' | sed 's/.*RESULT /RESULT /'
