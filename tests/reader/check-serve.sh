#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmemprof serve over a fake root ($KMEMPROF_ROOT: proc/kmemprof and the
# debugfs stacks view), read by its real consumers, all on loopback and
# bounded in time: curl and promtool on /metrics, a Prometheus server with
# a temporary configuration scraping it (a query through its HTTP API gives
# the input's sums, then the new sums once the file changes), go tool pprof
# on /debug/pprof/heap and /debug/pprof/allocs, and the hostile side: an
# oversized request, 100 concurrent connections, a slow client, unknown
# paths and methods. Expected values come from the fixtures through awk.
# Prints 'P F S' last.
#
#   check-serve.sh KMEMPROF [FIXTURE_DIR]
set -uo pipefail
K=${1:?usage: check-serve.sh KMEMPROF [FIXTURE_DIR]}
K=$(cd "$(dirname "$K")" && pwd)/$(basename "$K")
HERE=$(cd "$(dirname "$0")" && pwd)
F=${2:-$HERE/fixtures}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
T=$(mktemp -d /tmp/kp-check-serve.XXXXXX)
pids=()
cleanup() {
	local p

	for p in "${pids[@]}"; do
		kill "$p" 2> /dev/null
		wait "$p" 2> /dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
pass=0 fail=0 skip=0

ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
sk() { echo "SKIP $1${2:+: $2}"; skip=$((skip + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else ko "$1" "want '$2', got '$3'"; fi; }
finish() { echo "$pass $fail $skip"; [ "$fail" -eq 0 ]; exit; }

# Lines, live bytes, live objects, allocs: and bytes: of a profile.
sums() {
	awk 'NR > 2 && !/^#/ { n++; b += $1; o += $2
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^allocs:/) { split($i, a, ":"); al += a[2] }
			if ($i ~ /^bytes:/) { split($i, a, ":"); by += a[2] }
		} } END { print n, b, o, al + 0, by + 0 }' "$1"
}
# A free TCP port on loopback.
free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# curl, bounded: status code and body into $T/body, headers into $T/hdr.
get() { curl -s -m 10 -o "$T/body" -D "$T/hdr" -w '%{http_code}' "$@"; }
# Wait up to $1 seconds for "$2..." to succeed.
wait_for() {
	local n=$(($1 * 5))

	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}

if ! "$K" serve --help > /dev/null 2>&1 ||
	"$K" serve -i /nonexistent 2>&1 | grep -q "no serve"; then
	sk serve "this build has no serve (libmicrohttpd)"
	finish
fi
for tool in curl promtool prometheus go; do
	command -v "$tool" > /dev/null ||
		{ ko "$tool" "not installed (tools/rig/deps.sh)"; finish; }
done

# The fake root. The files are rewritten in place (same inode), as the
# kernel's seq_files are: serve holds their descriptors.
R=$T/root
mkdir -p "$R/proc" "$R/sys/kernel/debug/kmemprof"
cp "$F/out-snapshot-b.txt" "$R/proc/kmemprof"
cp "$F/out-stacks.txt" "$R/sys/kernel/debug/kmemprof/stacks"
chmod 600 "$R/proc/kmemprof" "$R/sys/kernel/debug/kmemprof/stacks"
# World-readable, as the kernel's are, and read on each /metrics after the
# drop: the whole-RAM account's. The directories let anyone through.
cp "$F/meminfo-6.12.txt" "$R/proc/meminfo"
cp "$F/zoneinfo-6.12.txt" "$R/proc/zoneinfo"
chmod 644 "$R/proc/meminfo" "$R/proc/zoneinfo"
chmod 711 "$T" "$R" "$R/proc"
read -r n b o al by < <(sums "$F/out-snapshot-b.txt")

KMEMPROF_ROOT=$R timeout 300 "$K" serve --listen 127.0.0.1:0 \
	> "$T/serve.log" 2>&1 &
spid=$!
pids+=("$spid")
port=
wait_for 10 grep -q "listening on" "$T/serve.log" &&
	port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$T/serve.log")
if [ -z "$port" ]; then
	ko "serve starts" "$(cat "$T/serve.log")"
	finish
fi
ok "serve listens on 127.0.0.1:$port"
kpid=$(ps -o pid= --ppid "$spid" | tr -d ' ')
U=http://127.0.0.1:$port

# Root only: the files are 0600 root's, read after the drop to nobody.
if [ "$(id -u)" -eq 0 ]; then
	u=$(id -u nobody)
	check "serve runs as nobody once the files are open (uids, groups)" \
		"$u $u $u $u|" "$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$kpid/status")|$(awk '/^Groups:/ { $1 = ""; print substr($0, 2) }' "/proc/$kpid/status")"
else
	sk "privilege drop" "not root"
fi

# /metrics: the Prometheus text format by default, OpenMetrics if asked.
code=$(get "$U/metrics")
check "/metrics: 200, the text format 0.0.4" \
	"200 text/plain; version=0.0.4; charset=utf-8" \
	"$code $(sed -n 's/^Content-Type: \(.*\)\r$/\1/ip' "$T/hdr")"
lint=$(promtool check metrics < "$T/body" 2>&1) && ok "/metrics: promtool check metrics" ||
	ko "/metrics: promtool check metrics" "$lint"
check "/metrics: sites, live bytes, allocs" "$n $b $al" \
	"$(awk '/^kmemprof_sites\{/ { s = $NF } /^kmemprof_live_bytes\{/ { b += $NF }
		/^kmemprof_allocs_total\{/ { a += $NF } END { print s, b, a }' "$T/body")"
# The whole-RAM account, read by the user serve runs as: 11 lines that add
# up to MemTotal, the page lines of the profile on them.
check "/metrics: the whole-RAM account adds up to MemTotal" \
	"11 $(awk '$1 == "MemTotal:" { print $2 * 1024 }' "$F/meminfo-6.12.txt") $(awk 'NR > 2 && / kind:page / { s += $1 } END { print s }' "$F/out-snapshot-b.txt")" \
	"$(awk '/^kmemprof_meminfo_bytes\{/ { n++; s += $NF
		if ($0 !~ /category="(free|free_pcp|untracked)"/) p += $NF }
		END { print n, s, p }' "$T/body")"
code=$(get -H 'Accept: application/openmetrics-text; version=1.0.0' "$U/metrics")
check "/metrics, Accept OpenMetrics: 200, its type, # EOF, the OM parser" \
	"200 application/openmetrics-text; version=1.0.0; charset=utf-8 # EOF $b" \
	"$code $(sed -n 's/^Content-Type: \(.*\)\r$/\1/ip' "$T/hdr") $(tail -1 "$T/body") $("$PY" -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
f = {m.name: m for m in om(open(sys.argv[1]).read())}
print(int(sum(s.value for s in f["kmemprof_live_bytes"].samples)))' "$T/body" 2>&1)"

# go tool pprof against the endpoints, as it scrapes them.
export PPROF_TMPDIR=$T HOME=$T
pt() { timeout 60 go tool pprof -symbolize=none "$@" 2>&1; }
KMEMPROF_ROOT=$R "$K" top --pprof "$T/file.pb.gz"
nloc() { pt -raw "$1" | awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 }
	l && /^ +[0-9]+: / { n++ } END { print n }'; }
check "go tool pprof -top $U/debug/pprof/heap: inuse_space, the input's live bytes" \
	"inuse_space $b" \
	"$(pt -top -unit=B "$U/debug/pprof/heap" | sed -n 's/^Type: //p; s/.* of \([0-9]*\)B total$/\1/p' | tr '\n' ' ' | sed 's/ $//')"
check "go tool pprof -raw $U/debug/pprof/heap: the locations of --pprof, with stacks" \
	"$(nloc "$T/file.pb.gz")" "$(nloc "$U/debug/pprof/heap")"
check "go tool pprof -top $U/debug/pprof/allocs: alloc_space, the input's bytes:" \
	"alloc_space $by" \
	"$(pt -top -unit=B "$U/debug/pprof/allocs" | sed -n 's/^Type: //p; s/.* of \([0-9]*\)B total$/\1/p' | tr '\n' ' ' | sed 's/ $//')"
# ?seconds=2: 3 allocations of 4096 bytes at hog_alloc meanwhile.
awk '/hog_alloc\+0x38/ { $1 += 12288; $2 += 3
	for (i = 4; i <= NF; i++) {
		if ($i ~ /^allocs:/) { split($i, a, ":"); $i = "allocs:" a[2] + 3 }
		if ($i ~ /^bytes:/) { split($i, a, ":"); $i = "bytes:" a[2] + 12288 }
		if ($i ~ /^req:/) { split($i, a, ":"); $i = "req:" a[2] + 12288 } } }
	{ print }' "$F/out-snapshot-b.txt" > "$T/more.txt"
code=$(curl -s -m 20 -o "$T/delta.pb.gz" -w '%{http_code}' "$U/debug/pprof/allocs?seconds=2" &
	sleep 0.5
	cat "$T/more.txt" > "$R/proc/kmemprof"
	wait)
check "/debug/pprof/allocs?seconds=2: 200, the allocations of those 2 s" \
	"200 alloc_space 12288 3" \
	"$code $(pt -top -unit=B "$T/delta.pb.gz" | sed -n 's/^Type: //p; s/.* of \([0-9]*\)B total$/\1/p' | tr '\n' ' ')$(pt -top -sample_index=alloc_objects "$T/delta.pb.gz" | sed -n 's/.* of \([0-9]*\) total$/\1/p')"
cat "$F/out-snapshot-b.txt" > "$R/proc/kmemprof"
check "?seconds=0 and on heap: 400" "400 400" \
	"$(get "$U/debug/pprof/allocs?seconds=0") $(get "$U/debug/pprof/heap?seconds=1")"

# A real Prometheus, scraping serve every second.
pport=$(free_port)
cat > "$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: kmemprof
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
promtool check config "$T/prometheus.yml" > /dev/null 2>&1 ||
	ko "promtool check config" "$(promtool check config "$T/prometheus.yml" 2>&1)"
timeout 120 prometheus --config.file="$T/prometheus.yml" \
	--storage.tsdb.path="$T/tsdb" --web.listen-address=127.0.0.1:$pport \
	> "$T/prometheus.log" 2>&1 &
pids+=("$!")
# q EXPR: the value of an instant query, through the HTTP API.
q() {
	curl -s -m 5 "http://127.0.0.1:$pport/api/v1/query" \
		--data-urlencode "query=$1" |
		jq -r '.data.result[0].value[1] // empty' 2> /dev/null
}
want_q() { [ "$(q "$1")" = "$2" ]; }
if wait_for 40 want_q 'sum(kmemprof_live_bytes)' "$b"; then
	check "prometheus: live bytes, objects, allocs, sites of the input" \
		"$b $o $al $n" \
		"$(q 'sum(kmemprof_live_bytes)') $(q 'sum(kmemprof_live_objects)') $(q 'sum(kmemprof_allocs_total)') $(q 'kmemprof_sites{source="kmemprof"}')"
else
	ko "prometheus: sum(kmemprof_live_bytes) = $b" \
		"got '$(q 'sum(kmemprof_live_bytes)')'; $(tail -3 "$T/prometheus.log")"
fi
check "prometheus: kmemprof_allocs is a counter (OpenMetrics negotiated)" \
	"counter" "$(curl -s -m 5 "http://127.0.0.1:$pport/api/v1/metadata?metric=kmemprof_allocs" |
		jq -r '.data.kmemprof_allocs[0].type // empty')"
cat "$T/more.txt" > "$R/proc/kmemprof"
if wait_for 20 want_q 'sum(kmemprof_live_bytes)' "$((b + 12288))"; then
	check "prometheus: the new sums once the file changes" \
		"$((b + 12288)) $((al + 3))" \
		"$(q 'sum(kmemprof_live_bytes)') $(q 'sum(kmemprof_allocs_total)')"
else
	ko "prometheus: sum(kmemprof_live_bytes) = $((b + 12288)) after the change" \
		"got '$(q 'sum(kmemprof_live_bytes)')'"
fi

# The hostile side. Unknown paths and methods:
check "unknown path: 404; POST: 405" "404 404 405" \
	"$(get "$U/") $(get "$U/debug/pprof/../../etc/passwd") $(get -X POST -d x "$U/metrics")"
# An oversized request: 64 KiB of header.
big=$(head -c 65536 /dev/zero | tr '\0' a)
code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -H "X-Big: $big" "$U/metrics")
case $code in 413 | 414 | 431 | 000) ok "oversized request refused ($code)" ;;
	*) ko "oversized request refused" "got $code" ;; esac
check "after it, /metrics still 200" 200 "$(get "$U/metrics")"
# 100 concurrent connections: the server caps them and stays up.
got=$("$PY" - "$port" <<'PYEOF'
import socket, sys
port = int(sys.argv[1])
socks, ok = [], 0
for i in range(100):
	s = socket.create_connection(("127.0.0.1", port), timeout=10)
	socks.append(s)
for s in socks:
	try:
		s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	except OSError:
		pass
for s in socks:
	try:
		if s.recv(64).startswith(b"HTTP/1.1 200"):
			ok += 1
	except OSError:
		pass
	s.close()
print("served" if 0 < ok < 100 else "all" if ok == 100 else "none", ok)
PYEOF
)
# Past the cap they wait in the listen backlog or are refused; how many a
# client sees served depends on how fast the server frees its slots, so
# only none at all is a failure (the server must stay up, checked below).
case $got in served* | all*) ok "100 concurrent connections: answered or refused ($got)" ;;
	*) ko "100 concurrent connections: answered or refused" "$got" ;; esac
# Their threads end as they close: within seconds, it answers again.
up200() { [ "$(get "$U/metrics")" = 200 ]; }
wait_for 5 up200 && ok "after them, /metrics 200 again" ||
	ko "after them, /metrics 200 again" "$(get "$U/metrics")"
# A slow client holds a connection; others are served meanwhile.
exec 3<> "/dev/tcp/127.0.0.1/$port"
printf 'GET /metr' >&3
check "a slow client does not hold the others up" 200 "$(get "$U/metrics")"
exec 3>&-
kill -0 "$kpid" 2> /dev/null && ok "serve is still up" || ko "serve is still up"
kill "$kpid"
wait "$spid" 2> /dev/null
check "serve exits 0 on SIGTERM" 0 "$?"
pids=("${pids[@]:1}")
finish
