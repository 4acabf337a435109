#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel style on kmemprof's kernel sources: checkpatch --strict and sparse,
# both from the rig's kernel tree for KVER, and the module's call graph
# (layers, no circle). Prints 'P F S' last.
set -uo pipefail

KVER=${1:-6.12}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
KDIR=$("$TOP/tools/rig/kernel.sh" "$KVER") || exit 1
SRC=$(readlink -f "$KDIR/source")
p=0 f=0

cd "$TOP"
files=$(git ls-files 'module/*.c' 'module/*.h' 'include/*.h' \
	'tests/*.c' 'tests/*.h' \
	':!tests/reader' 2>/dev/null ||
	find module include tests -name '*.[ch]')
# compat.h is the one place that must test LINUX_VERSION_CODE, and its
# shims keep the signatures of the kernel macros they stand in for, used
# arguments or not.
cp_one() {
	local ignore=FILE_PATH_CHANGES
	[ "${1##*/}" = compat.h ] &&
		ignore=$ignore,LINUX_VERSION_CODE,CONSTANT_COMPARISON,MACRO_ARG_UNUSED,MACRO_ARG_REUSE
	perl "$SRC/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types --ignore "$ignore" -f "$1" 2>&1
}
if out=$(for f in $files; do cp_one "$f"; done |
	grep -E ':[0-9]+: (ERROR|WARNING|CHECK)'); then
	echo "checkpatch --strict:"
	echo "$out"
	f=$((f + 1))
else
	echo "checkpatch --strict: clean"
	p=$((p + 1))
fi

dest=$TOP/.build/sparse-$KVER
# A build that fails fails the check too, whatever its output says.
bout=$("$TOP/tools/rig/build.sh" "$KVER" "$dest" C=2 2>&1)
brc=$?
if out=$(echo "$bout" | grep -E 'warning:|error:') || [ $brc -ne 0 ]; then
	echo "sparse (C=2):"
	echo "${out:-$(echo "$bout" | tail -n 20)}"
	f=$((f + 1))
else
	echo "sparse (C=2): clean"
	p=$((p + 1))
fi
# The module's files, each with its own header, use each other by layer and
# in no circle (tools/rig/callgraph.py: its LAYERS, and KNOWN, what is left).
if out=$("$TOP/tools/rig/callgraph.py" "$dest/module" 2>&1); then
	echo "call graph: $(echo "$out" | tail -n 1)"
	p=$((p + 1))
else
	echo "call graph:"
	echo "$out"
	f=$((f + 1))
fi
# Static per-CPU data of every module comes from one reserve of the
# kernel's (PERCPU_MODULE_RESERVE, 8 KiB without allocinfo): kmemprof's
# large per-CPU buffers are allocated at load, and what stays static is
# kept to a small share of it (1 KiB). Allocinfo's own counters for the
# module's call sites (_alloc_tag_cntr) are the kernel's, and come with
# a reserve eight times as large.
pcpu=
for h in $(aarch64-linux-gnu-objdump -t "$dest/module/kmemprof.ko" 2>/dev/null |
	awk 'NF >= 4 && $(NF - 2) == ".data..percpu" &&
	     $NF !~ /^_alloc_tag_cntr/ { print $(NF - 1) }'); do
	pcpu=$((${pcpu:-0} + 0x$h))
done
if [ -n "$pcpu" ] && [ "$pcpu" -le 1024 ]; then
	echo "static per-CPU data: $pcpu bytes (at most 1024)"
	p=$((p + 1))
else
	echo "static per-CPU data: ${pcpu:-not found} bytes, over 1024"
	f=$((f + 1))
fi
# the tally for make check's host suites, and the exit status for make lint
echo "$p $f 0"
[ "$f" -eq 0 ]
