#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/prometheus/'s rules: promtool check rules, then promtool test
# rules on their unit tests (kmemprof.rules.test.yml), and that the
# series they name are ones the reader writes (a renamed metric fails
# here). Prints 'P F S' last.
#
#   check-rules.sh KMEMPROF
set -uo pipefail
K=${1:?usage: check-rules.sh KMEMPROF}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
D=$TOP/tools/prometheus
pass=0 fail=0 skip=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
if ! command -v promtool > /dev/null; then
	echo "SKIP rules: no promtool (Debian's prometheus package)"
	echo "0 0 1"
	exit 0
fi
if out=$(promtool check rules "$D/kmemprof.rules.yml" 2>&1); then
	ok "rules: promtool check rules ($(echo "$out" | sed -n 's/.*SUCCESS: \([0-9]*\) rules found/\1/p') rules)"
else
	ko "rules: promtool check rules" "$out"
fi
if out=$(cd "$D" && promtool test rules kmemprof.rules.test.yml 2>&1); then
	ok "rules: promtool test rules kmemprof.rules.test.yml"
else
	ko "rules: promtool test rules kmemprof.rules.test.yml" "$(echo "$out" | head -30)"
fi
# Every kmemprof_ series the rules read, from the reader's own outputs.
F=$TOP/tests/reader/fixtures
R=$(mktemp -d /tmp/kp-check-rules.XXXXXX)
trap 'rm -rf "$R"' EXIT
mkdir -p "$R/proc"
cp "$F/meminfo-6.12.txt" "$R/proc/meminfo"
cp "$F/zoneinfo-6.12.txt" "$R/proc/zoneinfo"
cp "$F/kmemprof-meminfo-6.12.txt" "$R/proc/kmemprof"
have=$( { "$K" top -i "$F/kmemprof-6.12.txt" --prometheus -n 0
	KMEMPROF_ROOT=$R "$K" meminfo --prometheus; } 2>/dev/null |
	sed -n 's/^# TYPE \(kmemprof_[a-z_]*\) .*/\1/p' | sort -u)
used=$(grep -o 'kmemprof_[a-z_]*' "$D/kmemprof.rules.yml" | sort -u)
missing=$(comm -23 <(echo "$used") <(echo "$have") | tr '\n' ' ')
if [ -z "$missing" ]; then
	ok "rules: every series they read is the reader's ($(echo $used | wc -w))"
else
	ko "rules: every series they read is the reader's" "not written: $missing"
fi
echo "$pass $fail $skip"
