#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the reader out of tree, run its cmocka unit tests, the external
# consumers (check-outputs.sh, check-serve.sh), the man page against
# --help (check-man.sh), the static build with pprof and the optional
# libraries one by one (check-static.sh), the Prometheus rules' unit tests
# (check-rules.sh)
# and a bounded libFuzzer run
# over every parser; print 'P F S' last.
#   KMEMPROF_FUZZ_TIME=SECS  fuzzing time (default 20; 0 skips it)
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
O=${KMEMPROF_READER_OUT:-$TOP/.build/reader}
FUZZ_TIME=${KMEMPROF_FUZZ_TIME:-20}
M="make -s -C $TOP/tools/kmemprof O=$O"
$M kmemprof test_reader || { echo "0 1 0"; exit 1; }
out=$("$O/test_reader" "$TOP/tests/reader/fixtures" "$O/kmemprof" 2>&1)
rc=$?
echo "$out"
run=$(echo "$out" | sed -n 's/^\[==========\] \([0-9]*\) test(s) run\./\1/p')
failed=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s).*/\1/p')
run=${run:-0}
failed=${failed:-0}
[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
pass=$((run - failed))
skip=0

# The outputs: test_output's cmocka cases, then the external validators.
$M test_output || echo "FAIL: building test_output"
res=$("$TOP/tests/reader/check-outputs.sh" "$O/kmemprof" "$O/test_output")
echo "$res"
read -r p f s <<< "$(echo "$res" | tail -1)"
pass=$((pass + p)) failed=$((failed + f)) skip=$((skip + s))

# kmemprof serve over a fake root, scraped by Prometheus and go tool pprof.
res=$(timeout 300 "$TOP/tests/reader/check-serve.sh" "$O/kmemprof")
echo "$res"
read -r p f s <<< "$(echo "$res" | tail -1)"
pass=$((pass + ${p:-0})) failed=$((failed + ${f:-1})) skip=$((skip + ${s:-0}))

# The man page against --help (tools/kmemprof/man.sh makes its commands).
res=$("$TOP/tests/reader/check-man.sh" "$O/kmemprof")
echo "$res"
read -r p f s <<< "$(echo "$res" | tail -1)"
pass=$((pass + ${p:-0})) failed=$((failed + ${f:-1})) skip=$((skip + ${s:-0}))

# One switch a library, and the static build with pprof (the board's).
res=$("$TOP/tests/reader/check-static.sh")
echo "$res"
read -r p f s <<< "$(echo "$res" | tail -1)"
pass=$((pass + ${p:-0})) failed=$((failed + ${f:-1})) skip=$((skip + ${s:-0}))

# tools/prometheus/'s rules, by promtool's unit tests.
res=$("$TOP/tests/reader/check-rules.sh" "$O/kmemprof")
echo "$res"
read -r p f s <<< "$(echo "$res" | tail -1)"
pass=$((pass + ${p:-0})) failed=$((failed + ${f:-1})) skip=$((skip + ${s:-0}))

# The fuzz run is one more test case: any crash, leak or UB fails it.
if [ "$FUZZ_TIME" -gt 0 ]; then
	if $M fuzz FUZZ_TIME="$FUZZ_TIME" > "$O/fuzz.log" 2>&1; then
		echo "fuzz: $(grep -E '^(Done|#[0-9]+ +DONE)' "$O/fuzz.log" | tail -1)"
		pass=$((pass + 1))
	else
		tail -40 "$O/fuzz.log"
		echo "fuzz: FAILED (log: $O/fuzz.log)"
		failed=$((failed + 1))
	fi
else
	skip=1
fi
echo "$pass $failed $skip"
[ "$failed" -eq 0 ]
