#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-agree: kmemprof against the kernel's own allocinfo, file:line
# for file:line (issue 22), on a kernel with DWARF.
#
#   tools/rig/agree.sh [KVER] [agree.py options]   (KVER: 6.12-dbginfo)
#
# The kernel is the rig's 6.12 plus tests/qemu/kernel-dbginfo.config, a key
# of its own (tools/rig/kernel.sh), so no other rig kernel rebuilds for it.
# The guest boots with rigtests=agree: /init loads kmemprof first, then
# tests/integration/agree.sh runs a load and writes both views; the host's
# full reader resolves kmemprof's sites against the vmlinux and
# tools/rig/agree.py compares. Prints 'P F S' last.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
K=${1:-6.12-dbginfo}
[ $# -gt 0 ] && shift
OUT=$TOP/.build/check-agree/$K
start=$(date +%s)
mkdir -p "$OUT"

KDIR=$("$TOP/tools/rig/kernel.sh" "$K") || { echo "0 1 0"; exit 1; }
"$TOP/tools/rig/build.sh" "$K" "$TOP/.build/$K" > "$OUT/build.log" 2>&1 ||
	{ tail -n 30 "$OUT/build.log"; echo "0 1 0"; exit 1; }
make -s -C "$TOP/tools/kmemprof" O="$OUT/reader" "$OUT/reader/kmemprof" ||
	{ echo "0 1 0"; exit 1; }
"$OUT/reader/kmemprof" --help 2>/dev/null | grep -q "^Outputs.* resolve" || {
	echo "FAIL the host's reader has no DWARF resolution (libdw-dev)"
	echo "0 1 0"
	exit 1
}
KMEMPROF_TIMEOUT=900 KMEMPROF_APPEND="rigtests=agree" \
	"$TOP/tests/qemu/run.sh" "$K" check "$TOP/.build/$K" "$OUT/guest"
T=$OUT/tally
: > "$T"
"$TOP/tools/rig/results.py" "$OUT/guest" "$K/agree" --tally "$T" --want agree
cat "$OUT/guest/shell/agree.log" 2>/dev/null | grep '^INFO'
if [ -s "$OUT/guest/agree/kmemprof-1.txt" ]; then
	"$TOP/tools/rig/agree.py" "$OUT/guest/agree" "$OUT/reader/kmemprof" \
		"$KDIR/vmlinux" --allow "$TOP/tests/agree-allow.txt" "$@" |
		tee "$OUT/agree.txt"
	tail -n 1 "$OUT/agree.txt" >> "$T"
fi
read -r P F S < <(awk '{ p += $1; f += $2; s += $3 } END { print p + 0, f + 0, s + 0 }' "$T")
echo "(check-agree $K: $(($(date +%s) - start)) s)"
echo "$P $F $S"
[ "$F" -eq 0 ] && [ "$P" -gt 0 ]
