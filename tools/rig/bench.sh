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
# list, BENCH_PROCREAD=0 leaves out the read of 10k tags, BENCH_MACRO
# the macro load's modes (none: BENCH_MACRO=), BENCH_MACRO_SCALE=N runs
# N times its work.
#
# The macro load also runs, in the same boot, the module of a fixed
# reference commit (BENCH_REF, 886faf1: the defaults before CMA, migration,
# callers and before-load), built for the same kernel from git archive
# into .build/ref-<commit>/ (never committed), as modes ref, ref-hist and
# ref-stack8; BENCH_REF= leaves it out. And the path build of today's
# module (module/paths.h: KMEMPROF_PATHS=1, into .build/<kernel>-paths),
# as mode paths, whose counts give the table of where the defaults' cost
# goes (benchtable.py).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KERNELS=${BENCH_KERNELS:-6.12 6.1}
part=
[ -n "${BENCH_MODES:-}" ] && part="$part benchmodes=$(echo $BENCH_MODES | tr ' ' ,)"
[ -n "${BENCH_WORKLOADS:-}" ] && part="$part benchworkloads=$BENCH_WORKLOADS"
[ -n "${BENCH_CALIB+set}" ] && part="$part benchcalib=$BENCH_CALIB"
[ -n "${BENCH_PROCREAD:-}" ] && part="$part benchprocread=$BENCH_PROCREAD"
[ -n "${BENCH_MACRO+set}" ] && part="$part benchmacro=$(echo $BENCH_MACRO | tr ' ' ,)"
[ -n "${BENCH_MACRO_SCALE:-}" ] && part="$part benchmacroscale=$BENCH_MACRO_SCALE"
ROUNDS=${BENCH_ROUNDS:-3}
REF=${BENCH_REF-886faf1}
MTTCG=${BENCH_MTTCG:-1}
OUT=$TOP/.build/bench
mkdir -p "$OUT/results"
"$TOP/tools/rig/deps.sh"

for k in $KERNELS; do
	"$TOP/tools/rig/kernel.sh" "$k" > /dev/null
	"$TOP/tools/rig/build.sh" "$k" "$TOP/.build/$k"
	# The guest's /modules/paths and /modules/ref (tests/bench/guest.sh).
	extra=$OUT/$k-extra
	rm -rf "$extra"
	mkdir -p "$extra/modules/paths"
	"$TOP/tools/rig/build.sh" "$k" "$TOP/.build/$k-paths" KMEMPROF_PATHS=1
	cp "$TOP/.build/$k-paths/module/kmemprof.ko" "$extra/modules/paths/"
	if [ -n "$REF" ]; then
		ko=$("$TOP/tools/rig/bench-ref.sh" "$REF" "$k") &&
			mkdir -p "$extra/modules/ref" &&
			cp "$ko" "$extra/modules/ref/" ||
			echo "bench $k: no module of $REF: no ref modes" >&2
	fi
	echo "bench $k: icount, 1 CPU, $ROUNDS rounds" >&2
	KMEMPROF_ROOT_EXTRA=$extra \
	KMEMPROF_SMP=1 KMEMPROF_TIMEOUT=3000 \
	KMEMPROF_QEMU_EXTRA="-icount shift=0,align=off,sleep=off" \
	KMEMPROF_APPEND="benchcpus=1 benchrounds=$ROUNDS$part" \
		"$TOP/tests/qemu/run.sh" "$k" bench "$TOP/.build/$k" "$OUT/$k-icount"
	runs=icount
	if [ "$MTTCG" = 1 ]; then
		echo "bench $k: multi-threaded TCG, 4 CPUs, $ROUNDS rounds" >&2
		KMEMPROF_ROOT_EXTRA=$extra KMEMPROF_TIMEOUT=3000 \
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
	"$TOP/tools/rig/benchtable.py" ${REF:+--ref=$REF} "$k" \
		"$OUT/$k-icount/bench.txt" \
		$([ "$MTTCG" = 1 ] && echo "$OUT/$k-mttcg/bench.txt") | tee "$md"
	echo
	echo "(written to ${md#"$TOP"/})"
	echo
done
