#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: kmemprof's cost per event against a bare kernel, allocinfo
# and ftrace, every mode in one boot, on each kernel of BENCH_KERNELS.
#
# Two boots per kernel: -smp 1 under -icount (instruction counts, exact
# and repeatable), and -smp 4 under multi-threaded TCG (scaling from 1 to
# 4 CPUs, ratios only; BENCH_MTTCG=0 leaves it out). The tables go to stdout and to
# .build/bench/results/<kernel>-<date>.md.
#
# A quick look at part of it: BENCH_MODES="bare default" (comma or space
# separated), BENCH_WORKLOADS=kmalloc32,pages0, BENCH_CALIB= (none) or a
# list, BENCH_PROCREAD=0 leaves out the read of 10k tags.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KERNELS=${BENCH_KERNELS:-6.12 6.1}
part=
[ -n "${BENCH_MODES:-}" ] && part="$part benchmodes=$(echo $BENCH_MODES | tr ' ' ,)"
[ -n "${BENCH_WORKLOADS:-}" ] && part="$part benchworkloads=$BENCH_WORKLOADS"
[ -n "${BENCH_CALIB+set}" ] && part="$part benchcalib=$BENCH_CALIB"
[ -n "${BENCH_PROCREAD:-}" ] && part="$part benchprocread=$BENCH_PROCREAD"
[ -n "${BENCH_MACRO+set}" ] && part="$part benchmacro=$(echo $BENCH_MACRO | tr ' ' ,)"
ROUNDS=${BENCH_ROUNDS:-3}
MTTCG=${BENCH_MTTCG:-1}
OUT=$TOP/.build/bench
mkdir -p "$OUT/results"
"$TOP/tools/rig/deps.sh"

for k in $KERNELS; do
	"$TOP/tools/rig/kernel.sh" "$k" > /dev/null
	"$TOP/tools/rig/build.sh" "$k" "$TOP/.build/$k"
	echo "bench $k: icount, 1 CPU, $ROUNDS rounds" >&2
	KMEMPROF_SMP=1 KMEMPROF_TIMEOUT=3000 \
	KMEMPROF_QEMU_EXTRA="-icount shift=0,align=off,sleep=off" \
	KMEMPROF_APPEND="benchcpus=1 benchrounds=$ROUNDS$part" \
		"$TOP/tests/qemu/run.sh" "$k" bench "$TOP/.build/$k" "$OUT/$k-icount"
	runs=icount
	if [ "$MTTCG" = 1 ]; then
		echo "bench $k: multi-threaded TCG, 4 CPUs, $ROUNDS rounds" >&2
		KMEMPROF_TIMEOUT=3000 \
		KMEMPROF_APPEND="benchcpus=1,2,4 benchrounds=$ROUNDS$part benchmacro=" \
			"$TOP/tests/qemu/run.sh" "$k" bench "$TOP/.build/$k" \
			"$OUT/$k-mttcg"
		runs="icount mttcg"
	fi
	for r in $runs; do
		grep -q '^RESULT' "$OUT/$k-$r/bench.txt" 2>/dev/null || {
			echo "bench $k ($r) produced no results:" >&2
			tail -n 30 "$OUT/$k-$r/console.log" >&2
			exit 1
		}
	done
	md=$OUT/results/$k-$(date +%Y%m%d-%H%M).md
	"$TOP/tools/rig/benchtable.py" "$k" "$OUT/$k-icount/bench.txt" \
		$([ "$MTTCG" = 1 ] && echo "$OUT/$k-mttcg/bench.txt") | tee "$md"
	echo
	echo "(written to ${md#"$TOP"/})"
	echo
done
