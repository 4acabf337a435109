#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The reader's machine outputs, read back by independent parsers, through
# the command line: JSON by jq, CSV by Python's csv module, OpenMetrics by
# prometheus_client's OpenMetrics parser and its Prometheus text parser
# (what node_exporter's textfile collector reads), pprof by protoc
# --decode, SVG by xmllint, and --resolve against binutils' addr2line on
# an arm64 object built with -g. Expected values come from the fixtures
# through awk, not from the reader. With TEST_OUTPUT, runs those cmocka
# tests first and counts each of their cases. Prints 'P F S' last.
#
#   check-outputs.sh KMEMPROF [TEST_OUTPUT [FIXTURE_DIR]]
set -uo pipefail
K=${1:?usage: check-outputs.sh KMEMPROF [TEST_OUTPUT [FIXTURE_DIR]]}
K=$(cd "$(dirname "$K")" && pwd)/$(basename "$K")
TEST_OUTPUT=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
F=${3:-$HERE/fixtures}
PROTO_DIR=$HERE/../../tools/kmemprof
# Debian's python3, which has python3-prometheus-client (not a pyenv one).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T=$(mktemp -d /tmp/kp-check-outputs.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0

ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
sk() { echo "SKIP $1${2:+: $2}"; skip=$((skip + 1)); }
# check NAME EXPECTED ACTUAL
check() { if [ "$2" = "$3" ]; then ok "$1"; else ko "$1" "want '$2', got '$3'"; fi; }

# The fixture's sites and sums, by awk: lines, live bytes, live objects,
# allocs: and bytes: (0 where absent).
sums() {
	awk 'NR > 2 && !/^#/ { n++; b += $1; o += $2
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^allocs:/) { split($i, a, ":"); al += a[2] }
			if ($i ~ /^bytes:/) { split($i, a, ":"); by += a[2] }
		} } END { print n, b, o, al + 0, by + 0 }' "$1"
}

# The cmocka tests of test_output.c, one count per case.
if [ -n "$TEST_OUTPUT" ]; then
	out=$("$TEST_OUTPUT" "$F" 2>&1)
	rc=$?
	echo "$out"
	r=$(echo "$out" | sed -n 's/^\[==========\] \([0-9]*\) test(s) run\./\1/p')
	f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s).*/\1/p')
	s=$(echo "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s).*/\1/p')
	r=${r:-0} f=${f:-0} s=${s:-0}
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
	pass=$((pass + r - f - s)) fail=$((fail + f)) skip=$((skip + s))
fi

FIXTURES="kmemprof-6.12.txt out-snapshot-b.txt allocinfo-1.0.txt allocinfo-2.0.txt"

# JSON
for fx in $FIXTURES; do
	read -r n b o _ _ < <(sums "$F/$fx")
	if ! "$K" top -i "$F/$fx" -n 0 --json > "$T/out.json" 2> "$T/err"; then
		ko "json $fx" "$(cat "$T/err")"
		continue
	fi
	got=$(jq -r '[.schema, (.sites | length), .totals.sites,
		([.sites[].live_bytes] | add), .totals.live_bytes,
		([.sites[].live_objects] | add)] | @tsv' "$T/out.json")
	check "json $fx: schema, sites, bytes, objects" \
		"$(printf '1\t%s\t%s\t%s\t%s\t%s' "$n" "$n" "$b" "$b" "$o")" "$got"
done
"$K" top -i "$F/kmemprof-6.12.txt" -n 0 --json > "$T/out.json"
check "json: hog_alloc's counts" "524288 64 64 0 524288 true" \
	"$(jq -r '.sites[] | select(.func == "hog_alloc") | [.live_bytes,
	.live_objects, .allocs, .frees, .bytes_total, .unloaded] |
	map(tostring) | join(" ")' "$T/out.json")"

# CSV
for fx in kmemprof-6.12.txt allocinfo-2.0.txt; do
	read -r n b _ _ _ < <(sums "$F/$fx")
	"$K" top -i "$F/$fx" -n 0 --csv > "$T/out.csv"
	got=$("$PY" - "$T/out.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
head, body = rows[0], rows[1:]
widths = {len(r) for r in rows}
print(len(body), sum(int(r[head.index('live_bytes')]) for r in body),
      ','.join(str(w) for w in sorted(widths)))
EOF
)
	check "csv $fx: rows, bytes, columns" "$n $b 16" "$got"
done

# OpenMetrics: the strict parser, the Prometheus text parser, unique series
for fx in kmemprof-6.12.txt allocinfo-1.0.txt; do
	read -r n b _ al _ < <(sums "$F/$fx")
	"$K" top -i "$F/$fx" -n 0 --openmetrics > "$T/out.om"
	got=$("$PY" - "$T/out.om" <<'EOF' 2>&1
import sys
from prometheus_client.openmetrics.parser import \
	text_string_to_metric_families as om
from prometheus_client.parser import text_string_to_metric_families as prom
text = open(sys.argv[1]).read()
fams = {f.name: f for f in om(text)}
seen = set()
for f in fams.values():
	for s in f.samples:
		key = (s.name, tuple(sorted(s.labels.items())))
		if key in seen:
			sys.exit('duplicate series %s' % (key,))
		seen.add(key)
live = fams['kmemprof_live_bytes']
allocs = fams.get('kmemprof_allocs')
# The older text format: what node_exporter's textfile collector reads.
p = {f.name: f for f in prom(text)}
assert p['kmemprof_live_bytes'].type == 'gauge'
print(int(fams['kmemprof_sites'].samples[0].value), live.type, live.unit,
      int(sum(s.value for s in live.samples)),
      int(sum(s.value for s in allocs.samples)) if allocs else 0,
      allocs.type if allocs else '-')
EOF
)
	if [ "$fx" = allocinfo-1.0.txt ]; then want="$n gauge bytes $b 0 -"
	else want="$n gauge bytes $b $al counter"; fi
	check "openmetrics $fx: parsers, sites, live bytes, allocs" "$want" "$got"
done
printf 'kmemprof - version: 1.0\n#\n 5 1 a"b\\c+0x1/0x2 [m] func:f kind:slab allocs:1 frees:0 bytes:5 req:5\n' \
	> "$T/esc.txt"
"$K" top -i "$T/esc.txt" --openmetrics > "$T/esc.om"
check "openmetrics: label escaping read back" 'a"b\c+0x1/0x2 m' \
	"$("$PY" -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
for f in om(open(sys.argv[1]).read()):
	if f.name == "kmemprof_live_bytes":
		s = f.samples[0]
		print(s.labels["site"], s.labels["module"])' "$T/esc.om" 2>&1)"

# pprof
if "$K" top -i "$F/kmemprof-6.12.txt" -n 0 --pprof "$T/p.pb.gz" \
	2> "$T/err"; then
	read -r n b o al by < <(sums "$F/kmemprof-6.12.txt")
	got=$(gunzip -c "$T/p.pb.gz" | protoc --proto_path="$PROTO_DIR" \
		--decode perftools.profiles.Profile profile.proto |
		awk '/^sample \{/ { n++; i = 0 }
		     /^  value:/ { s[i++] += $2 }
		     END { print n, s[0], s[1], s[2], s[3] }')
	check "pprof: protoc --decode: samples and value sums" \
		"$n $al $by $o $b" "$got"
elif grep -q "built without" "$T/err"; then
	sk pprof "$(cat "$T/err")"
else
	ko pprof "$(cat "$T/err")"
fi
# With the stacks view, from a fake root: more samples, the same sums,
# and hog_alloc's stack as frames.
R=$T/root
mkdir -p "$R/proc" "$R/sys/kernel/debug/kmemprof"
cp "$F/out-snapshot-b.txt" "$R/proc/kmemprof"
cp "$F/out-stacks.txt" "$R/sys/kernel/debug/kmemprof/stacks"
if KMEMPROF_ROOT=$R "$K" top -n 0 --pprof "$T/s.pb.gz" 2> "$T/err"; then
	read -r n b o al by < <(sums "$F/out-snapshot-b.txt")
	gunzip -c "$T/s.pb.gz" | protoc --proto_path="$PROTO_DIR" \
		--decode perftools.profiles.Profile profile.proto > "$T/s.txt"
	got=$(awk '/^sample \{/ { n++; i = 0 }
		   /^  value:/ { s[i++] += $2 }
		   END { print (n > '"$n"'), s[0], s[1], s[2], s[3] }' "$T/s.txt")
	check "pprof with stacks: more samples, the same sums" \
		"1 $al $by $o $b" "$got"
	check "pprof with stacks: the frames of hog_alloc's stack" \
		"4" "$(awk '/^string_table:/ { print $2 }' "$T/s.txt" |
		grep -cxE '"(hog_alloc|hog_init|do_one_initcall|do_init_module)"')"
elif grep -q "built without" "$T/err"; then
	sk "pprof with stacks" "$(cat "$T/err")"
else
	ko "pprof with stacks" "$(cat "$T/err")"
fi

# The Prometheus text format, as promtool lints it (what node_exporter's
# textfile collector reads): every fixture, a diff, watch's .prom file.
if ! command -v promtool > /dev/null; then
	ko promtool "no promtool (Debian's prometheus package; tools/rig/deps.sh)"
else
	for fx in $FIXTURES; do
		read -r n b _ al _ < <(sums "$F/$fx")
		"$K" top -i "$F/$fx" --prometheus > "$T/out.prom" 2> "$T/err"
		if ! lint=$(promtool check metrics < "$T/out.prom" 2>&1); then
			ko "promtool check metrics: top --prometheus $fx" "$lint"
			continue
		fi
		src=kmemprof
		case $fx in allocinfo*) src=allocinfo ;; esac
		# node_exporter's parser: the counters typed, every series labelled.
		got=$("$PY" - "$T/out.prom" <<'PYEOF'
import sys
from prometheus_client.parser import text_string_to_metric_families as prom
fams = {f.name: f for f in prom(open(sys.argv[1]).read())}
allocs = fams.get('kmemprof_allocs')
srcs = {s.labels.get('source') for f in fams.values() for s in f.samples}
print(int(fams['kmemprof_sites'].samples[0].value),
      int(sum(s.value for s in fams['kmemprof_live_bytes'].samples)),
      int(sum(s.value for s in allocs.samples)) if allocs else 0,
      allocs.type if allocs else '-', ','.join(sorted(map(str, srcs))))
PYEOF
)
		case $fx in allocinfo*) want="$n $b 0 - $src" ;;
			*) want="$n $b $al counter $src" ;; esac
		check "promtool, prometheus text $fx: sites, live bytes, allocs, source" \
			"$want" "$got"
	done
	# diff: the growth as *_delta gauges, summing to the live bytes' change.
	"$K" diff "$F/snap-a.txt" "$F/snap-b.txt" --prometheus > "$T/diff.prom"
	read -r _ ba _ _ _ < <(sums "$F/snap-a.txt")
	read -r _ bb _ _ _ < <(sums "$F/snap-b.txt")
	if lint=$(promtool check metrics < "$T/diff.prom" 2>&1); then
		check "promtool: diff --prometheus, deltas as gauges" \
			"gauge $((bb - ba))" \
			"$(awk '/^# TYPE kmemprof_live_bytes_delta / { t = $4 }
				/^kmemprof_live_bytes_delta\{/ { s += $NF }
				END { print t, s }' "$T/diff.prom")"
	else
		ko "promtool check metrics: diff --prometheus" "$lint"
	fi
	# OpenMetrics names a counter's family without _total and its series
	# with it; promtool reads only the older text format, to which they
	# are two families. These four lines, and nothing else, are what it
	# says (making it quiet would break OpenMetrics: "Clashing name").
	"$K" top -i "$F/kmemprof-6.12.txt" --openmetrics > "$T/out.om"
	promtool check metrics < "$T/out.om" > "$T/lint" 2>&1
	check "promtool on --openmetrics: only the text format's view of OM counters" \
		"3|kmemprof_allocated_bytes_total no help text kmemprof_allocs_total no help text kmemprof_frees_total no help text kmemprof_requested_bytes_total no help text" \
		"$?|$(sort "$T/lint" | tr '\n' ' ' | sed 's/ $//')"
	# The owner series: promtool on them, and the OpenMetrics parser.
	"$K" top -i "$F/kmemprof-6.12.txt" --owners "$F/view-owners.txt" \
		--owner-series 3 --prometheus > "$T/own.prom"
	if lint=$(promtool check metrics < "$T/own.prom" 2>&1); then
		"$K" top -i "$F/kmemprof-6.12.txt" --owners "$F/view-owners.txt" \
			--owner-series 3 --openmetrics > "$T/own.om"
		check "promtool, openmetrics parser: the owner series, the rest in other" \
			"7 4 2244352 other" "$("$PY" - "$T/own.om" <<'PYEOF' 2>&1
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
fams = {f.name: f for f in om(open(sys.argv[1]).read())}
b = fams['kmemprof_owner_live_bytes'].samples
print(int(fams['kmemprof_owners'].samples[0].value), len(b),
      int(sum(s.value for s in b)), b[-1].labels['owner'])
PYEOF
)"
	else
		ko "promtool check metrics: the owner series" "$lint"
	fi
	# watch keeps a .prom file current, renamed into place.
	mkdir -p "$T/tf"
	"$K" watch -i "$F/kmemprof-6.12.txt" -d 0.1 -c 2 --source node-a \
		--prometheus-file "$T/tf/kmemprof.prom" > /dev/null
	if lint=$(promtool check metrics < "$T/tf/kmemprof.prom" 2>&1); then
		check "promtool: watch --prometheus-file, renamed into place" \
			"kmemprof.prom|kmemprof_sites{source=\"node-a\"} $(sums "$F/kmemprof-6.12.txt" | cut -d' ' -f1)" \
			"$(ls "$T/tf" | tr '\n' ' ' | sed 's/ $//')|$(grep '^kmemprof_sites' "$T/tf/kmemprof.prom")"
	else
		ko "promtool check metrics: watch --prometheus-file" "$lint"
	fi
fi

# go tool pprof on --pprof files: the totals of the input, one location
# per distinct frame (a site is one), [kernel.kallsyms] the File:, and
# symbols as long as the kernel makes them (KSYM_NAME_LEN).
export PPROF_TMPDIR=$T HOME=$T
pt() { timeout 60 go tool pprof -symbolize=none "$@" 2>&1; }
# Distinct frames of a profile: its sites and their caller: frames.
frames() {
	awk 'NR > 2 && !/^#/ { mod = ""
		for (i = 4; i <= NF; i++)
			if ($i ~ /^\[.*\]$/) mod = substr($i, 2, length($i) - 2)
		loc[$3 "|" mod] = 1
		for (i = 4; i <= NF; i++) if ($i ~ /^caller:/) {
			c = substr($i, 8); m = ""
			if (c ~ /\[/) { m = c; sub(/^[^[]*\[/, "", m)
				sub(/\]$/, "", m); sub(/\[.*/, "", c) }
			loc[c "|" m] = 1 } } END { print length(loc) }' "$1"
}
if ! command -v go > /dev/null; then
	ko "go tool pprof" "no go (Debian's golang-go package; tools/rig/deps.sh)"
elif "$K" top -i "$F/kmemprof-6.12.txt" --pprof "$T/g.pb.gz" 2> "$T/err"; then
	read -r _ b _ _ by < <(sums "$F/kmemprof-6.12.txt")
	got="$(pt -top -unit=B -sample_index=inuse_space "$T/g.pb.gz" |
		sed -n 's/.* of \([0-9]*\)B total$/\1/p') $(pt -top -unit=B \
		-sample_index=alloc_space "$T/g.pb.gz" |
		sed -n 's/.* of \([0-9]*\)B total$/\1/p') $(pt -top "$T/g.pb.gz" |
		sed -n 's/^File: //p')"
	check "go tool pprof -top: every site (no -n), in use, allocated, File:" \
		"$b $by [kernel.kallsyms]" "$got"
	pt -raw "$T/g.pb.gz" > "$T/raw"
	check "go tool pprof -raw: distinct locations; two sites of one function" \
		"$(frames "$F/kmemprof-6.12.txt") 0x98,0xac" \
		"$(awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 }
			l && /^ +[0-9]+: / { n++ }
			l && / kunit_filter_suites / { a = a (a ? "," : "") $2 }
			END { print n, a }' "$T/raw")"
	long=$(printf 'k%.0s' $(seq 1 500))
	printf 'kmemprof - version: 1.0\n#\n 64 1 %s+0x10/0x80 func:%s kind:slab allocs:1 frees:0 bytes:64 req:64\n' \
		"$long" "$long" > "$T/long.txt"
	"$K" top -i "$T/long.txt" --pprof "$T/long.pb.gz"
	check "go tool pprof: a 500-byte symbol whole" "500" \
		"$(pt -raw "$T/long.pb.gz" | awk '/^Locations/ { l = 1; next }
			l && / 0x10 M=1 / { print length($4); exit }')"
elif grep -q "built without" "$T/err"; then
	sk "go tool pprof" "$(cat "$T/err")"
else
	ko "go tool pprof" "$(cat "$T/err")"
fi

# The views' JSON, read back by jq against awk's reading of the view.
for v in leaks stacks hist ages cpus stats; do
	all="-n 0"	# cpus and stats have no sites to cut
	case $v in cpus|stats) all= ;; esac
	if ! "$K" "$v" --json $all -i "$F/view-$v.txt" > "$T/$v.json" 2> "$T/err"; then
		ko "json $v" "$(cat "$T/err")"
		continue
	fi
	case $v in
	leaks) q='.summary.objects, ([.sites[].live_objects] | add)'
		exp=$(awk 'NR == 2 { for (i = 1; i < NF; i++)
			if ($(i + 1) ~ /^objects,?$/) o = $i }
			NR > 2 && $2 ~ /^[0-9]+$/ && $1 ~ /^[0-9]+$/ { s += $2 }
			END { print o, s }' "$F/view-leaks.txt") ;;
	stacks) q='([.tags[].stacks[].frames | length] | add)'
		exp=$(awk '/^    / { n++ } END { print n }' "$F/view-stacks.txt") ;;
	hist) q='(.hists | length), ([.hists[].size | add] | add)'
		exp=$(awk 'NR > 2 && $1 == "all" { n++
			for (i = 1; i <= NF; i++) if ($i ~ /^size:/) {
				sub(/^size:/, "", $i); k = split($i, a, ",")
				for (j = 1; j <= k; j++) s += a[j] } }
			END { print n, s }' "$F/view-hist.txt") ;;
	ages) q='(.sites | length), ([.sites[].live_bytes] | add)'
		exp=$(awk 'NR > 2 && !/^#/ { n++; b += $1 } END { print n, b }' \
			"$F/view-ages.txt") ;;
	cpus) q='(.cpus | length), ([.cpus[].allocs] | add)'
		exp=$(awk 'NR > 2 && !/^#/ { n++; a += $3 } END { print n, a }' \
			"$F/view-cpus.txt") ;;
	stats) q='.stats.enabled, .stats["events.kmalloc"]'
		exp=$(awk '$1 == "enabled" { e = $2 } $1 == "events.kmalloc" { k = $2 }
			END { print e, k }' "$F/view-stats.txt") ;;
	esac
	check "json $v: schema, view, values" "1 $v $exp" \
		"$(jq -r "[.schema, .view, $q] | map(tostring) | join(\" \")" "$T/$v.json")"
done

# SVG
"$K" plot top -i "$F/kmemprof-6.12.txt" -n 7 -o "$T/top.svg" &&
	xmllint --noout "$T/top.svg" &&
	check "svg top: 7 bars" 7 "$(xmllint --xpath \
		"count(//*[local-name()='rect'][@class='bar'])" "$T/top.svg")" ||
	ko "svg top"
"$K" plot hist all --kind page -i "$F/out-hist.txt" -o "$T/hist.svg" &&
	xmllint --noout "$T/hist.svg" &&
	check "svg hist: all kind:page, bars of the nonzero buckets" \
		"$(awk '$1 == "all" && $2 == "kind:page" {
			for (i = 3; i <= 5; i += 2) {
				sub(/^[a-z]*:/, "", $i); k = split($i, a, ",")
				for (j = 1; j <= k; j++) n += a[j] > 0
			} print n }' "$F/out-hist.txt")" \
		"$(xmllint --xpath \
		"count(//*[local-name()='rect'][@class='bar'])" "$T/hist.svg")" ||
	ko "svg hist"
"$K" plot series "$F/out-record.txt" -o "$T/series.svg" &&
	xmllint --noout "$T/series.svg" &&
	check "svg series: 10 lines of 2 points" "10 20" \
		"$(xmllint --xpath \
		"count(//*[local-name()='polyline'])" "$T/series.svg") $(xmllint \
		--xpath "count(//*[local-name()='circle'])" "$T/series.svg")" ||
	ko "svg series"

# The whole-RAM account (kmemprof meminfo) on a fake root of the capture:
# JSON by jq, the metrics by promtool and the OpenMetrics parser, the SVG
# by xmllint. Every one adds up to MemTotal; awk's reading of the files:
# MemTotal, and the page lines but before_load:reserved.
M=$T/mroot
mkdir -p "$M/proc"
cp "$F/meminfo-6.12.txt" "$M/proc/meminfo"
cp "$F/zoneinfo-6.12.txt" "$M/proc/zoneinfo"
cp "$F/kmemprof-meminfo-6.12.txt" "$M/proc/kmemprof"
mt=$(awk '$1 == "MemTotal:" { print $2 * 1024 }' "$F/meminfo-6.12.txt")
pg=$(awk 'NR > 2 && / kind:page / && $3 != "before_load:reserved" { s += $1 }
	END { print s }' "$F/kmemprof-meminfo-6.12.txt")
if KMEMPROF_ROOT=$M "$K" meminfo --json > "$T/mi.json" 2> "$T/err"; then
	check "json meminfo: lines add up to memtotal; attributed" \
		"1 meminfo 12 $mt $mt $pg" \
		"$(jq -r '[.schema, .view, (.lines | length), .memtotal,
			([.lines[].bytes] | add), .attributed] | map(tostring) |
			join(" ")' "$T/mi.json")"
else
	ko "json meminfo" "$(cat "$T/err")"
fi
KMEMPROF_ROOT=$M "$K" meminfo --prometheus > "$T/mi.prom"
if ! command -v promtool > /dev/null; then
	ko "promtool: meminfo" "no promtool"
elif lint=$(promtool check metrics < "$T/mi.prom" 2>&1); then
	check "promtool: meminfo --prometheus, the lines add up to MemTotal" \
		"$mt $mt" "$(awk '/^kmemprof_meminfo_total_bytes\{/ { t = $NF }
			/^kmemprof_meminfo_bytes\{/ { s += $NF }
			END { print t, s }' "$T/mi.prom")"
else
	ko "promtool check metrics: meminfo --prometheus" "$lint"
fi
KMEMPROF_ROOT=$M "$K" meminfo --openmetrics > "$T/mi.om"
check "openmetrics meminfo: the OM parser, gauges in bytes, MemTotal" \
	"gauge bytes 12 $mt" "$("$PY" - "$T/mi.om" <<'EOF' 2>&1
import sys
from prometheus_client.openmetrics.parser import \
	text_string_to_metric_families as om
f = {m.name: m for m in om(open(sys.argv[1]).read())}
b = f['kmemprof_meminfo_bytes']
print(b.type, b.unit, len(b.samples), int(sum(s.value for s in b.samples)))
EOF
)"
if KMEMPROF_ROOT=$M "$K" plot meminfo -o "$T/mi.svg" 2> "$T/err" &&
	xmllint --noout "$T/mi.svg"; then
	bar() { xmllint --xpath "count(//*[local-name()='g'][@class='account-bar'][$1]/*[@class='segment'])" "$T/mi.svg"; }
	check "svg meminfo: 12 segments of all of RAM adding up to MemTotal, 10 in use" \
		"12 $mt 10" "$(bar 1) $(grep -o 'data-bytes="[-0-9]*"' "$T/mi.svg" |
		head -n 12 | sed 's/.*="\(.*\)"/\1/' | awk '{ s += $1 } END { print s }') $(bar 2)"
else
	ko "svg meminfo" "$(cat "$T/err")"
fi

# --resolve, against addr2line on an arm64 object built with -g
if ! command -v aarch64-linux-gnu-gcc > /dev/null; then
	sk resolve "no aarch64-linux-gnu-gcc"
else
	(cd "$F" && aarch64-linux-gnu-gcc -g -O2 -c -o "$T/out_resolve.ko" \
		out-resolve.c)
	# fx_alloc's value and size, and the return address of its first bl.
	read -r val size < <(aarch64-linux-gnu-readelf -sW "$T/out_resolve.ko" |
		awk '$8 == "fx_alloc" { print $2, $3 }')
	ret=$(aarch64-linux-gnu-objdump -d "$T/out_resolve.ko" |
		awk '/<fx_alloc>:/ { f = 1; next } f && /\tbl\t/ {
			sub(/:.*/, "", $1); print $1; exit }')
	off=$(( 0x$ret - 0x$val + 4 ))
	# The line that calls the allocator's inline wrapper, in the helper
	# inlined into fx_alloc: addr2line -i's second line (the first is
	# in the wrapper, the last in fx_alloc), and with -f the function
	# it is in, the helper: the second name.
	a2l=$(aarch64-linux-gnu-addr2line -f -i -e "$T/out_resolve.ko" -j .text \
		"$(printf '0x%x' $(( 0x$ret + 3 )))")
	want=$(echo "$a2l" | sed -n 4p)
	wfunc=$(echo "$a2l" | sed -n 3p)
	printf 'kmemprof - version: 1.0\n#\n 64 1 fx_alloc+0x%x/0x%x [out_resolve] func:fx_alloc kind:slab\n' \
		"$off" "$size" > "$T/res.txt"
	got=$("$K" top -i "$T/res.txt" --resolve="$T/out_resolve.ko" --json \
		2> "$T/err" | jq -r '.sites[0] | "\(.srcline) \(.srcfunc)"')
	if grep -q "built without" "$T/err"; then
		sk resolve "$(cat "$T/err")"
	else
		check "resolve: fx_alloc+0x$(printf %x $off) as addr2line -f says" \
			"$(basename "${want%% *}") $wfunc" "$got"
		# srcfunc is the last column, after those there were before it
		check "resolve: --csv's srcline and srcfunc" \
			"$(basename "${want%% *}") unloaded,srcfunc $wfunc" \
			"$("$K" top -i "$T/res.txt" --resolve="$T/out_resolve.ko" \
			--csv 2>&1 | "$PY" -c 'import csv, sys
r = list(csv.DictReader(sys.stdin))[0]
print(r["srcline"], ",".join(list(r)[-2:]), r["srcfunc"])')"
		check "resolve: top's table" \
			"$(printf 'fx_alloc+0x%x/0x%x' "$off" "$size") [out_resolve] ($(basename "${want%% *}")) inlined:$wfunc" \
			"$("$K" top -i "$T/res.txt" --resolve="$T/out_resolve.ko" \
			2>&1 | tail -n 1 | sed 's/.* slab   //')"
		# pprof: the inlined function as the location's first line,
		# the symbol's its caller, as go tool pprof shows inlined calls
		if ! command -v go > /dev/null; then
			sk "resolve: go tool pprof" "no go"
		elif "$K" top -i "$T/res.txt" --resolve="$T/out_resolve.ko" \
			--pprof "$T/res.pb.gz" 2> "$T/err"; then
			check "resolve: go tool pprof -traces, inlined function and caller" \
				"64B   $wfunc (inline)|fx_alloc" \
				"$(pt -traces "$T/res.pb.gz" | awk '/^ +64B / {
					sub(/^ +/, ""); a = $0; getline
					sub(/^ +/, ""); print a "|" $0 }')"
		else
			ko "resolve: go tool pprof" "$(cat "$T/err")"
		fi
	fi
fi

# file:line without asking, in every command that prints the sites of a
# live read (leaks, ages, hist, stacks and its frames, plot top, as top):
# a vmlinux with -g in a build tree under $KMEMPROF_ROOT, its build id in
# /sys/kernel/notes; not from a copy (-i), nor with --no-resolve.
if ! command -v aarch64-linux-gnu-gcc > /dev/null; then
	sk "auto resolve" "no aarch64-linux-gnu-gcc"
else
	R=$T/autoroot
	D=$R/sys/kernel/debug/kmemprof
	V=$R/lib/modules/6.12.0-test/build/vmlinux
	mkdir -p "$R/proc/sys/kernel" "$D" "${V%/*}"
	echo 6.12.0-test > "$R/proc/sys/kernel/osrelease"
	(cd "$F" && aarch64-linux-gnu-gcc -g -O2 -nostdlib -static \
		-Wl,--build-id=sha1 -Wl,-e,fx_alloc \
		-Wl,--unresolved-symbols=ignore-all -o "$V" out-resolve.c)
	aarch64-linux-gnu-objcopy -O binary --only-section=.note.gnu.build-id \
		"$V" "$R/sys/kernel/notes"
	# fx_alloc's size, and the return address of its first call, in
	# fx_twice (inlined:); a second frame 4 bytes on, whose line addr2line
	# gives (the last of -i, the outermost function's: no inlined:); a
	# third, fx_release's first call, in fx_put (inlined:)
	read -r val size < <(aarch64-linux-gnu-readelf -sW "$V" |
		awk '$8 == "fx_alloc" { print $2, $3 }')
	r1=$(aarch64-linux-gnu-objdump -d "$V" |
		awk '/<fx_alloc>:/ { f = 1; next } f && /\tbl\t/ {
			sub(/:.*/, "", $1); print $1; exit }')
	s1=$(printf 'fx_alloc+0x%x/0x%x' $((0x$r1 - 0x$val + 4)) "$size")
	s2=$(printf 'fx_alloc+0x%x/0x%x' $((0x$r1 - 0x$val + 8)) "$size")
	read -r val3 size3 < <(aarch64-linux-gnu-readelf -sW "$V" |
		awk '$8 == "fx_release" { print $2, $3 }')
	r3=$(aarch64-linux-gnu-objdump -d "$V" |
		awk '/<fx_release>:/ { f = 1; next } f && /\tbl\t/ {
			sub(/:.*/, "", $1); print $1; exit }')
	s3=$(printf 'fx_release+0x%x/0x%x' $((0x$r3 - 0x$val3 + 4)) "$size3")
	la=out-resolve.c:$(grep -n 'SITE-A' "$F/out-resolve.c" | cut -d: -f1)
	lc=out-resolve.c:$(grep -n 'SITE-C' "$F/out-resolve.c" | cut -d: -f1)
	lb=$(aarch64-linux-gnu-addr2line -i -e "$V" \
		"$(printf '0x%x' $((0x$r1 + 7)))" | tail -n 1)
	lb=$(basename "${lb%% *}")
	c20=0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
	c36=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0
	printf 'kmemprof leaks - version: 1.0\n# live longer than 1000 ms: 2 objects, 128 bytes, 1 sites\n128 2 %s func:fx_alloc kind:slab\n  000000003f609b8a size:64 age_ms:4338 cpu:3\n' \
		"$s1" > "$D/leaks"
	printf 'kmemprof ages - version: 1.0\n#\n128 2 %s func:fx_alloc kind:slab age:%s\n' \
		"$s1" "$c36" > "$D/ages"
	printf 'kmemprof hist - version: 1.0\n#\n%s func:fx_alloc kind:slab size:%s req:%s life:%s xcpu:0 xcluster:0 frag:0.0 waste:0\n' \
		"$s1" "$c20" "$c20" "$c36" > "$D/hist"
	printf 'kmemprof stacks - version: 1.0\n# stack_depth:3 stack_sample:1 stacks:1 tags:1\n%s func:fx_alloc kind:slab stacks:1 allocs:2 bytes:128\nAllocate 128 (100.0%%) bytes on 2 (100.0%%) objects:\n    %s\n    %s\n    %s\n    fx_nothing+0x4/0x8\n' \
		"$s1" "$s1" "$s2" "$s3" > "$D/stacks"
	mkdir -p "$R/proc"
	printf 'kmemprof - version: 1.0\n#\n  128 2 %s func:fx_alloc kind:slab allocs:2 frees:0 bytes:128 req:128\n' \
		"$s1" > "$R/proc/kmemprof"
	run() { KMEMPROF_ROOT=$R "$K" "$@" 2>&1; }
	check "auto resolve: leaks" \
		"$(printf '%s\n' \
		'Leak suspects, live longer than 1000 ms: 2 objects, 128 bytes, 1 sites' \
		'        LIVE     OBJS   OLDEST KIND   SITE' \
		"         128        2     4.3s slab   $s1 ($la) inlined:fx_twice" \
		'          64              4.3s          object 000000003f609b8a on cpu3')" \
		"$(run leaks)"
	check "auto resolve: leaks --json" "$la fx_twice" \
		"$(run leaks --json | jq -r '.sites[0] | "\(.srcline) \(.srcfunc)"')"
	check "auto resolve: ages" \
		"$(printf '%s\n' \
		'        LIVE     OBJS OLDEST>= MEDIAN>= KIND   SITE' \
		"         128        2     4.3s     4.3s slab   $s1 ($la) inlined:fx_twice")" \
		"$(run ages)"
	check "auto resolve: ages --json" "$la fx_twice" \
		"$(run ages --json | jq -r '.sites[0] | "\(.srcline) \(.srcfunc)"')"
	check "auto resolve: hist SITE" \
		"$s1 ($la) inlined:fx_twice kind:slab: xcpu 0, xcluster 0, frag 0.0%, waste 0 bytes" \
		"$(run hist fx_alloc | head -n 1)"
	check "auto resolve: hist --json" "$la fx_twice" \
		"$(run hist fx_alloc --json | jq -r '.hists[0] | "\(.srcline) \(.srcfunc)"')"
	check "auto resolve: stacks, the tag and each frame" \
		"$(printf '%s\n' \
		"$s1 ($la) inlined:fx_twice kind:slab: 2 allocs, 128 bytes sampled" \
		'  100.0%        128 bytes        2 allocs' \
		"        $s1 ($la) inlined:fx_twice" "        $s2 ($lb)" \
		"        $s3 ($lc) inlined:fx_put" \
		'        fx_nothing+0x4/0x8')" \
		"$(run stacks)"
	check "auto resolve: stacks --json srclines" \
		"[\"$la\",\"$lb\",\"$lc\",null]" \
		"$(run stacks --json | jq -c '.tags[0].stacks[0].srclines')"
	check "auto resolve: stacks --json srcfuncs" \
		'[["fx_twice",null,"fx_put",null],"fx_twice"]' \
		"$(run stacks --json | jq -c '.tags[0] | [.stacks[0].srcfuncs, .srcfunc]')"
	check "auto resolve: top" \
		"         128        2        64         2 slab   $s1 ($la) inlined:fx_twice" \
		"$(run top | tail -n 1)"
	check "auto resolve: top --json" "$la fx_twice" \
		"$(run top --json | jq -r '.sites[0] | "\(.srcline) \(.srcfunc)"')"
	check "auto resolve: plot top's bar" \
		"<title>$s1 ($la) inlined:fx_twice kind:slab: 128 bytes, 2 objects</title>" \
		"$(run plot top | grep -o '<title>fx_alloc[^<]*</title>')"
	check "auto resolve: none from a copy (-i)" \
		"         128        2     4.3s slab   $s1" \
		"$(run leaks -i "$D/leaks" | sed -n 3p)"
	check "auto resolve: none with --no-resolve" \
		"         128        2     4.3s slab   $s1" \
		"$(run leaks --no-resolve | sed -n 3p)"
	check "auto resolve: stacks --no-resolve has no srclines" "[null,null]" \
		"$(run stacks --no-resolve --json | jq -c '.tags[0].stacks[0] | [.srclines, .srcfuncs]')"
fi

echo "$pass $fail $skip"
[ "$fail" -eq 0 ]
