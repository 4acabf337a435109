#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kmemprof serve (the guest's dynamic build, kmemprof-serve) against the
# live module, read with busybox wget: /metrics agrees with /proc/kmemprof
# (the hog's page tag exactly, and every site that held still while it was
# read), /debug/pprof/heap is gzip, an unknown path is 404, a request
# without the token 401, and SIGTERM stops it with exit 0. The token is
# made by serve --make-token in a file of this test's.
. /tests/lib.sh

K=/bin/kmemprof-serve
[ -x $K ] || { echo "SKIP: no $K in this guest"; exit 77; }
# The rig's 6.12 and later kernels are built without TCP/IP (CONFIG_INET;
# 9p over virtio needs no network): nothing to listen on there.
[ -e /proc/net/tcp ] || { echo "SKIP: this kernel has no TCP/IP (CONFIG_INET)"; exit 77; }
[ -r /proc/kmemprof ] || fail "no /proc/kmemprof (module not loaded?)"

LOG=/tmp/serve.log
TOKEN=/tmp/serve.token
pid=
made_etc=
lo_was_down=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	rmmod kmemprof_hog 2>/dev/null
	[ -n "$made_etc" ] && rm -rf /etc
	[ -n "$lo_was_down" ] && ip link set lo down
	rm -f $LOG /tmp/serve.metrics /tmp/serve.a /tmp/serve.b /tmp/serve.heap \
		$TOKEN
}
trap cleanup EXIT

# serve drops to nobody, which the bare guest has no /etc/passwd for; and
# it listens on loopback, which is down until something brings it up.
if [ ! -e /etc ]; then
	made_etc=1
	mkdir /etc
	echo 'root:x:0:0:root:/:/bin/sh' > /etc/passwd
	echo 'nobody:x:65534:65534:nobody:/:/bin/false' >> /etc/passwd
	echo 'root:x:0:' > /etc/group
	echo 'nogroup:x:65534:' >> /etc/group
fi
grep -q '^nobody:' /etc/passwd || fail "no user nobody in /etc/passwd"
if ! ip link show lo | grep -q '<.*UP'; then
	lo_was_down=1
	ip link set lo up || fail "cannot bring lo up"
fi

rm -f $TOKEN
$K serve --make-token --token-file $TOKEN || fail "serve --make-token"
expect_eq "token file: mode, one line of 64 hex digits" \
	"$(stat -c %a $TOKEN) $(grep -c '^[0-9a-f]\{64\}$' $TOKEN)" "600 1"
tok=$(cat $TOKEN)

# get PATH: the body of http://127.0.0.1:$port/PATH with the token as a
# basic auth password, bounded by timeout (Debian's static busybox 1.35
# crashes on wget -T).
get() {
	timeout 20 busybox wget -q -O- "http://kmemprof:$tok@127.0.0.1:$port$1"
}

rmmod kmemprof_hog 2>/dev/null
insmod /modules/kmemprof_hog.ko pages=64 order=0 || fail "insmod hog"

# -n: a series for every site, past the default guard of 1000.
$K serve --listen 127.0.0.1:0 -n 1000000 --token-file $TOKEN 2> $LOG &
pid=$!
i=0
while ! grep -q 'listening on' $LOG; do
	i=$((i + 1))
	[ $i -le 100 ] && kill -0 $pid 2>/dev/null ||
		fail "serve did not start: $(cat $LOG)"
	sleep 0.1
done
cat $LOG
port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' $LOG)
[ -n "$port" ] && [ "$port" -gt 0 ] || fail "no port in: $(cat $LOG)"
grep -q "reading /proc/kmemprof and $KMP_DEBUGFS/stacks, as uid 65534$" $LOG ||
	fail "serve log: $(cat $LOG)"

# The hog's page tag: 64 pages of order 0, exactly.
get /metrics > /tmp/serve.metrics || fail "GET /metrics"
hog=$(grep '^kmemprof_live_bytes{' /tmp/serve.metrics |
	grep 'func="hog_alloc",module="kmemprof_hog",kind="page"')
echo "$hog"
expect_eq "hog series" "$(echo "$hog" | wc -l)" 1
expect_eq "hog live bytes" "${hog##* }" 262144
expect_eq "hog in /proc/kmemprof" \
	"$(proc_line hog_alloc | grep ' kind:page ' | awk '{ print $1 }')" 262144

# Every site: /metrics against /proc/kmemprof read just before and just
# after. Tags are never taken away, so the sites of the first read are all
# there and nothing is there that the second read lacks. The sites of
# modules (kmemprof's own, the hog's) that held still between the two
# reads have their values exactly. The core kernel's sites are left out of
# that: reading /proc/kmemprof, here or in serve, moves them (seq_file
# buffers, the readers' own pages and VMAs), so no two reads agree.
# Key: site, module and kind.
proc_sums() {
	awk 'NR > 2 {
		mod = ""
		if ($4 ~ /^\[.*\]$/) mod = substr($4, 2, length($4) - 2)
		kind = ""
		for (i = 4; i <= NF; i++)
			if ($i ~ /^kind:/) kind = substr($i, 6)
		sum[$3 "|" mod "|" kind] += $1
	} END { for (k in sum) print k, sum[k] }' /proc/kmemprof
}
proc_sums > /tmp/serve.a
get /metrics > /tmp/serve.metrics || fail "GET /metrics"
proc_sums > /tmp/serve.b
out=$(awk '
function label(s, name,   i, r) {
	i = index(s, "," name "=\"")
	if (!i) i = index(s, "{" name "=\"")
	if (!i) return ""
	r = substr(s, i + length(name) + 3)
	return substr(r, 1, index(r, "\"") - 1)
}
function bad(msg) {
	if (++nbad <= 5) print msg
}
FILENAME == ARGV[1] { a[$1] = $2; next }
FILENAME == ARGV[2] { b[$1] = $2; next }
/^kmemprof_live_bytes\{/ {
	k = label($0, "site") "|" label($0, "module") "|" label($0, "kind")
	m[k] += $NF
	total += $NF
}
END {
	for (k in a) { na++; if (!(k in m)) bad("not in /metrics: " k) }
	for (k in m) {
		nm++
		if (!(k in b)) bad("not in /proc/kmemprof: " k)
		if (k ~ /^[^|]*\|\|/ || !(k in a) || a[k] != b[k])
			continue
		nmod++
		if (m[k] + 0 != b[k] + 0)
			bad("differs: " k ": " m[k] " in /metrics, " b[k] " in /proc/kmemprof")
	}
	for (k in b) nb++
	printf "sites: %d, %d, %d; module sites compared %d; live bytes %d; bad %d\n", na, nm, nb, nmod, total, nbad
}' /tmp/serve.a /tmp/serve.b /tmp/serve.metrics)
echo "$out"
echo "$out" | grep -q '; bad 0$' || fail "/metrics against /proc/kmemprof: $out"
nmod=$(echo "$out" | sed -n 's/.*module sites compared \([0-9]*\);.*/\1/p')
[ "$nmod" -ge 2 ] || fail "only $nmod module sites compared: $out"
# A series for every site the scrape read.
expect_eq "kmemprof_sites" \
	"$(sed -n 's/^kmemprof_sites{.*} //p' /tmp/serve.metrics)" \
	"$(grep -c '^kmemprof_live_bytes{' /tmp/serve.metrics)"

# pprof: gzip, the hog's stacks or not.
get /debug/pprof/heap > /tmp/serve.heap || fail "GET /debug/pprof/heap"
expect_eq "heap gzip magic" "$(head -c 2 /tmp/serve.heap | od -An -tx1 | tr -d ' ')" 1f8b
[ "$(wc -c < /tmp/serve.heap)" -gt 100 ] || fail "heap: $(wc -c < /tmp/serve.heap) bytes"

# An unknown path.
out=$(timeout 20 busybox wget -S -O /dev/null "http://kmemprof:$tok@127.0.0.1:$port/nope" 2>&1) &&
	fail "GET /nope succeeded: $out"
echo "$out" | grep -q 'HTTP/1\.[01] 404 ' || fail "GET /nope: $out"

# Without the token, and with a wrong one: 401.
for u in "" "kmemprof:x$tok@"; do
	out=$(timeout 20 busybox wget -S -O /dev/null "http://${u}127.0.0.1:$port/metrics" 2>&1) &&
		fail "GET /metrics without the token succeeded: $out"
	echo "$out" | grep -q 'HTTP/1\.[01] 401 ' || fail "GET /metrics without the token: $out"
done

# SIGTERM: a clean stop, exit 0, within 10 s.
kill -TERM $pid
i=0
while kill -0 $pid 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 100 ] || fail "serve still running 10 s after SIGTERM"
	sleep 0.1
done
wait $pid
rc=$?
pid=
expect_eq "exit status after SIGTERM" $rc 0
echo "serve: ok on port $port"
exit 0
