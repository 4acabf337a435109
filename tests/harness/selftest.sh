#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness judges correctly: a KTAP file or guest run that failed must be
# reported as failed, one that passed as passed. Fixtures named pass-* must
# pass and fail-* must fail. Prints 'P F S' last.
set -u
H=$(cd "$(dirname "$0")" && pwd)
R=$H/../../tools/rig/results.py
p=0 f=0

check() { # check NAME WANT-RC GOT-RC
	if [ "$2" = "$3" ]; then
		p=$((p + 1))
	else
		echo "harness: $1: exit $3, want $2"
		f=$((f + 1))
	fi
}

# Each fixture through the parser results.py picks (the kernel's
# kunit_parser for the 6.1+ form, when a kernel source is unpacked) and
# through the private parser alone: both must judge alike.
for parser in auto private; do
	for k in "$H"/ktap/*.ktap; do
		case $(basename "$k") in
		pass-*) want=0 ;;
		*) want=1 ;;
		esac
		KMEMPROF_KTAP_PARSER=$parser "$R" --ktap "$k" > /dev/null
		rc=$?
		check "${k##*/} ($parser)" $want $rc
	done
done

# A tree's kunit_parser whose Test has no ok_status(), as the Rockchip
# 6.1.141 tree's: results.py judged nothing then ("'Test' object has no
# attribute 'ok_status'"). A stand-in with that tree's interface alone
# (Test's status, name, subtests and log, TestStatus, TestCounts), which
# reads the cases of a suite from "ok"/"not ok" lines.
old=$(mktemp -d)
cat > "$old/kunit_printer.py" <<'PY'
class Printer:
	def __init__(self):
		self._output = None
stdout = Printer()
PY
cat > "$old/kunit_parser.py" <<'PY'
import re
from enum import Enum, auto
class TestStatus(Enum):
	SUCCESS = auto()
	FAILURE = auto()
	SKIPPED = auto()
	TEST_CRASHED = auto()
	NO_TESTS = auto()
	FAILURE_TO_PARSE_TESTS = auto()
class TestCounts:
	def __init__(self):
		self.passed = self.failed = self.crashed = 0
		self.skipped = self.errors = 0
	def total(self):
		return self.passed + self.failed + self.crashed + self.skipped
class Test:
	def __init__(self):
		self.status = TestStatus.TEST_CRASHED
		self.name = ''
		self.subtests = []
		self.log = []
		self.counts = TestCounts()
def parse_run_tests(lines):
	root = Test()
	suite = Test()
	root.subtests.append(suite)
	for ln in lines:
		m = re.match(r'^\s{4,}(not ok|ok) \d+ (\S+)(.*)', ln)
		if not m:
			continue
		t = Test()
		t.name = m.group(2)
		if '# SKIP' in m.group(3):
			t.status = TestStatus.SKIPPED
			root.counts.skipped += 1
		elif m.group(1) == 'ok':
			t.status = TestStatus.SUCCESS
			root.counts.passed += 1
		else:
			t.status = TestStatus.FAILURE
			root.counts.failed += 1
		suite.subtests.append(t)
	return root
PY
for k in "$H"/ktap/pass-6.12-param.ktap "$H"/ktap/fail-6.12-param.ktap; do
	case $(basename "$k") in
	pass-*) want=0 ;;
	*) want=1 ;;
	esac
	KMEMPROF_KUNIT_TOOL=$old "$R" --ktap "$k" > "$old/out" 2>&1
	rc=$?
	grep -q 'Traceback' "$old/out" && rc=2
	check "${k##*/} (a parser without ok_status)" $want $rc
done
rm -rf "$old"

# A skipped case is counted as skipped, not passed.
out=$("$R" --ktap "$H/ktap/pass-suite.ktap")
case "$out" in
*"2 passed, 0 failed, 1 skipped"*) p=$((p + 1)) ;;
*) echo "harness: skip not counted: $out"; f=$((f + 1)) ;;
esac

# Whole guest runs: console scan, end marker, shell results.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
guest() { # guest NAME: a fake guest output dir
	mkdir -p "$tmp/$1/kunit" "$tmp/$1/shell"
	cp "$H/ktap/pass-suite.ktap" "$tmp/$1/kunit/demo.ktap"
	printf 'boot\nKMEMPROF-RIG-DONE\n' > "$tmp/$1/console.log"
	echo 0 > "$tmp/$1/shell/10-x.rc"
	echo "$tmp/$1"
}
d=$(guest ok)
"$R" "$d" t > /dev/null
check "clean guest run" 0 $?
d=$(guest warn)
sed -i '1a WARNING: CPU: 1 PID: 7 at mm/slub.c:1 x+0x0/0x4' "$d/console.log"
"$R" "$d" t > /dev/null
check "WARNING on the console" 1 $?
d=$(guest banner)
sed -i '1a [    0.000000] rcu: 	RCU lockdep checking is enabled.' "$d/console.log"
"$R" "$d" t > /dev/null
check "lockdep's boot banner is no finding" 0 $?
d=$(guest lockdep)
sed -i '1a WARNING: possible circular locking dependency detected' "$d/console.log"
"$R" "$d" t > /dev/null
check "a lockdep report" 1 $?
d=$(guest hang)
echo boot > "$d/console.log"
"$R" "$d" t > /dev/null
check "no end marker" 1 $?
d=$(guest shellfail)
echo 1 > "$d/shell/10-x.rc"
"$R" "$d" t > /dev/null
check "failing shell test" 1 $?
d=$(guest kunitfail)
cp "$H/ktap/fail-case.ktap" "$d/kunit/demo.ktap"
"$R" "$d" t > /dev/null
check "failing KUnit case" 1 $?
# make check TESTS=...: what was asked for must have left a result.
d=$(guest asked)
"$R" "$d" t --want 10-x,kunit > /dev/null
check "asked-for tests ran" 0 $?
"$R" "$d" t --want 30-knobs > /dev/null
check "an asked-for shell test left no result" 1 $?
rm -r "$d/kunit"
"$R" "$d" t --want kunit > /dev/null
check "asked-for KUnit left no result" 1 $?
echo "$p $f 0"
