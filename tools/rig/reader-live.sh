#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host's full build of the reader on views the guest's live module
# wrote during the same make check (tests/integration/25-reader.sh puts
# /proc/kmemprof and the stacks view in OUTDIR/reader, with the hog module
# holding 128 order-3 blocks and stack_depth 4). Covers what the static
# arm64 build leaves out (pprof), and reads every output back with an
# independent parser. Prints 'P F S' last.
#
#   reader-live.sh OUTDIR
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
D=${1:?usage: reader-live.sh OUTDIR}/reader
K=$TOP/tools/kmemprof/kmemprof
PY=/usr/bin/python3
T=$(mktemp -d /tmp/kp-live.XXXXXX)
trap 'rm -rf "$T"' EXIT
p=0 f=0

check() { # check NAME WANT GOT
	if [ "$2" = "$3" ]; then
		echo "PASS $1"
		p=$((p + 1))
	else
		echo "FAIL $1: want '$2', got '$3'"
		f=$((f + 1))
	fi
}

if [ ! -s "$D/kmemprof.txt" ] || [ ! -s "$D/stacks.txt" ]; then
	echo "FAIL the guest wrote no views into $D"
	echo "0 1 0"
	exit 1
fi
make -s -C "$TOP/tools/kmemprof" kmemprof || { echo "0 1 0"; exit 1; }
R=$T/root
mkdir -p "$R/proc" "$R/sys/kernel/debug/kmemprof"
cp "$D/kmemprof.txt" "$R/proc/kmemprof"
cp "$D/stacks.txt" "$R/sys/kernel/debug/kmemprof/stacks"
export KMEMPROF_ROOT=$R
hog='select(.func == "hog_alloc" and .module == "kmemprof_hog")'

# (kmemprof's own tables and the memory from before load outweigh it)
check "top: the hog first of its module" \
	"4194304 128" "$("$K" top -n 1 --module kmemprof_hog | awk 'NR == 2 { print $1, $2 }')"
# Summed over the hog's tags: an earlier load's may still be listed.
check "json: jq reads the hog" "4194304 128 128" \
	"$("$K" top -n 0 --json | jq -r "[.sites[] | $hog] |
		[(map(.live_bytes) | add), (map(.live_objects) | add),
		 (map(.allocs) | add)] | map(tostring) | join(\" \")")"
check "csv: as many rows as sites" \
	"$(sed 1,2d "$D/kmemprof.txt" | grep -vc '^#')" \
	"$("$K" top -n 0 --csv | "$PY" -c '
import csv, sys
print(sum(1 for _ in csv.DictReader(sys.stdin)))')"
check "openmetrics: the hog's live bytes" "4194304" \
	"$("$K" top -n 0 --openmetrics | "$PY" -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
v = 0
for fam in text_string_to_metric_families(sys.stdin.read()):
	for s in fam.samples:
		if s.name == "kmemprof_live_bytes" and \
		   s.labels.get("func") == "hog_alloc" and \
		   s.labels.get("module") == "kmemprof_hog":
			v += s.value
print(int(v))')"
if "$K" top -n 0 --pprof "$T/p.pb.gz" 2> "$T/err"; then
	gunzip -c "$T/p.pb.gz" | protoc --proto_path="$TOP/tools/kmemprof" \
		--decode perftools.profiles.Profile profile.proto > "$T/p.txt"
	check "pprof: protoc reads the hog's stack frames" 4 \
		"$(awk '/^string_table:/ { print $2 }' "$T/p.txt" |
		grep -cxE '"(hog_alloc|hog_init|do_one_initcall|do_init_module)"')"
	check "pprof: inuse_space sums to the live bytes" \
		"$(sed 1,2d "$D/kmemprof.txt" | awk '!/^#/ && $1 > 0 { s += $1 } END { print s }')" \
		"$(awk '/^sample \{/ { i = 0 } /^  value:/ { if (i++ == 3) s += $2 }
			END { print s }' "$T/p.txt")"
else
	check "pprof" "" "$(cat "$T/err")"
fi
"$K" plot top -n 5 -o "$T/top.svg" && xmllint --noout "$T/top.svg"
check "svg: five bars" 5 "$(xmllint --xpath \
	"count(//*[local-name()='rect'][@class='bar'])" "$T/top.svg" 2>&1)"
echo "$p $f 0"
[ $f -eq 0 ]
