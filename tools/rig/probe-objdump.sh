#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The probes' machine code, to check that a change of the source leaves
# the hot path as it was (tools/rig/probe-objdump.py says what is compared
# and how addresses are taken out).
#
#   tools/rig/probe-objdump.sh KVER OUT        # build and dump OUT/{prod,test}
#   tools/rig/probe-objdump.sh --compare A B   # compare two such dumps
#
# prod is the module as DKMS and make install build it (no KMEMPROF_TESTS),
# test the rig's test build (build.sh's KMEMPROF_TESTS=m, test hooks in).
# Each is built with build.sh, W=1 and -Werror, into OUT/build-FLAVOUR.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PY=$TOP/tools/rig/probe-objdump.py

if [ "${1:-}" = --compare ]; then
	A=${2:?usage: probe-objdump.sh --compare A B} B=${3:?}
	rc=0
	for fl in prod test; do
		echo "== $fl"
		"$PY" compare "$A/$fl" "$B/$fl" || rc=1
	done
	exit $rc
fi

KVER=${1:?usage: probe-objdump.sh KVER OUT} OUT=$(realpath -m "${2:?}")
mkdir -p "$OUT"
for fl in prod test; do
	args=()
	[ "$fl" = prod ] && args=(KMEMPROF_TESTS=)
	# With address-space randomisation off: GCC's code for probes.c
	# moved from build to build with it on (6.12's production build:
	# three builds of one commit, kmp_probe_kmem_cache_alloc by a mov,
	# both _opts paths and kmp_probes_init), and not with it off.
	setarch -R "$TOP/tools/rig/build.sh" "$KVER" "$OUT/build-$fl" \
		-j"$(nproc)" "${args[@]}"
	echo -n "$KVER $fl: "
	"$PY" dump "$OUT/build-$fl/module/kmemprof.ko" "$OUT/$fl"
done
