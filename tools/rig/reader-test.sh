#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the reader and run its cmocka unit tests; print 'P F S' last.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
make -s -C "$TOP/tools/kmemprof" kmemprof test_reader || { echo "0 1 0"; exit 1; }
out=$("$TOP/tools/kmemprof/test_reader" "$TOP/tests/reader/fixtures" 2>&1)
rc=$?
echo "$out"
run=$(echo "$out" | sed -n 's/^\[==========\] \([0-9]*\) test(s) run\./\1/p')
failed=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s).*/\1/p')
run=${run:-0}
failed=${failed:-0}
[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
echo "$((run - failed)) $failed 0"
