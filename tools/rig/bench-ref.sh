#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the module of a reference commit for one rig kernel, for make
# bench's macro table (tools/rig/bench.sh, BENCH_REF): its module/ and
# include/ from git archive into .build/ref-<commit>/src (never in the
# work tree, never committed), built as that commit's own rig built it
# (KMEMPROF_TESTS=m, W=1; warnings are not errors here, since a newer
# kernel's may be new to old code). Prints the .ko's path; reuses a build
# for the same kernel tree.
#
#   tools/rig/bench-ref.sh COMMIT KVER
set -euo pipefail

REF=${1:?usage: bench-ref.sh COMMIT KVER}
KVER=${2:?}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
KDIR=$("$TOP/tools/rig/kernel.sh" "$KVER")
sha=$(git -C "$TOP" rev-parse --verify -q "$REF^{commit}") ||
	{ echo "bench-ref: no commit $REF in this repository" >&2; exit 1; }
short=${sha:0:7}
D=$TOP/.build/ref-$short
B=$D/$KVER
stamp="$sha $(readlink -f "$KDIR")"
if [ -f "$B/module/kmemprof.ko" ] && [ "$(cat "$B/.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$B/module/kmemprof.ko"
	exit 0
fi
rm -rf "$B"
mkdir -p "$B"
git -C "$TOP" archive "$sha" module include | tar -x -C "$B"
echo "bench-ref: building $short's module for $KVER" >&2
make -s -C "$KDIR" M="$B/module" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	W=1 KMEMPROF_TESTS=m modules >&2
echo "$stamp" > "$B/.stamp"
echo "$B/module/kmemprof.ko"
