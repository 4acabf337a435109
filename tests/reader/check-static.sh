#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The reader's optional libraries, one switch each (NO_PROTOBUF, NO_LIBDW,
# NO_MICROHTTPD, NO_WEBCONFIG; NO_OPTIONAL=1 all of them), and the static
# build with pprof: the board's recipe (tools/rig/board-reader.sh) built
# for this host and run, its --pprof read back by protoc and go tool
# pprof; then the board's arm64 build itself, linked with pprof when the
# arm64 sysroot is there (not run: no arm64 here). Prints 'P F S' last.
#
#   check-static.sh [FIXTURE_DIR]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
F=${1:-$HERE/fixtures}
KP=$TOP/tools/kmemprof
CACHE=${KMEMPROF_CACHE:-$HOME/.cache/kmemprof}
T=$(mktemp -d /tmp/kp-check-static.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0

ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
sk() { echo "SKIP $1${2:+: $2}"; skip=$((skip + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else ko "$1" "want '$2', got '$3'"; fi; }
feat() { make -s -C "$KP" "$@" features 2>&1; }

# Each switch leaves out its library alone (this host has them all).
all=$(feat)
if ! echo "$all" | grep -Eqx '(pprof|resolve|serve|web-config)=(yes|no)( (resolve|serve|web-config)=(yes|no)){3}'; then
	ko "features: what the build has" "make features: '$all'"
elif [ "$all" != "pprof=yes resolve=yes serve=yes web-config=yes" ]; then
	sk "features: one switch a library" "this host lacks one: $all"
else
	check "features: NO_PROTOBUF=1 leaves pprof out (and serve, which serves it)" \
		"pprof=no resolve=yes serve=no web-config=no" "$(feat NO_PROTOBUF=1)"
	check "features: NO_LIBDW=1 leaves --resolve out" \
		"pprof=yes resolve=no serve=yes web-config=yes" "$(feat NO_LIBDW=1)"
	check "features: NO_MICROHTTPD=1 leaves serve out" \
		"pprof=yes resolve=yes serve=no web-config=no" "$(feat NO_MICROHTTPD=1)"
	check "features: NO_WEBCONFIG=1 leaves the web configuration out" \
		"pprof=yes resolve=yes serve=yes web-config=no" "$(feat NO_WEBCONFIG=1)"
	check "features: NO_OPTIONAL=1 leaves every one out" \
		"pprof=no resolve=no serve=no web-config=no" "$(feat NO_OPTIONAL=1)"
fi

# The fixture's sites and sums, by awk: lines, live bytes, live objects,
# allocs: and bytes: (as check-outputs.sh).
sums() {
	awk 'NR > 2 && !/^#/ { n++; b += $1; o += $2
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^allocs:/) { split($i, a, ":"); al += a[2] }
			if ($i ~ /^bytes:/) { split($i, a, ":"); by += a[2] }
		} } END { print n, b, o, al + 0, by + 0 }' "$1"
}

# The board's recipe on this host: static, pprof in, the rest out.
S=$T/static
if ! make -s -C "$KP" LDFLAGS=-static NO_LIBDW=1 NO_MICROHTTPD=1 \
	NO_WEBCONFIG=1 O="$S" kmemprof > "$T/build" 2>&1; then
	ko "static build with pprof" "$(tail -5 "$T/build")"
else
	check "static build: no dynamic section" "0" \
		"$(readelf -d "$S/kmemprof" 2>/dev/null | grep -c NEEDED)"
	fx=$F/kmemprof-6.12.txt
	if "$S/kmemprof" top -i "$fx" -n 0 --pprof "$T/p.pb.gz" 2> "$T/err"; then
		read -r n b o al by < <(sums "$fx")
		check "static --pprof: gzip, protoc --decode: samples and value sums" \
			"$n $al $by $o $b" \
			"$(gunzip -c "$T/p.pb.gz" | protoc --proto_path="$KP" \
			--decode perftools.profiles.Profile profile.proto |
			awk '/^sample \{/ { n++; i = 0 }
			     /^  value:/ { s[i++] += $2 }
			     END { print n, s[0], s[1], s[2], s[3] }')"
		if command -v go > /dev/null; then
			pt() { PPROF_TMPDIR=$T HOME=$T timeout 60 go tool pprof \
				-symbolize=none "$@" 2>&1; }
			check "static --pprof: go tool pprof -top, in use bytes, File:" \
				"$b [kernel.kallsyms]" \
				"$(pt -top -unit=B -sample_index=inuse_space "$T/p.pb.gz" |
				sed -n 's/.* of \([0-9]*\)B total$/\1/p') $(pt -top \
				"$T/p.pb.gz" | sed -n 's/^File: //p')"
		else
			sk "static --pprof: go tool pprof" "no go"
		fi
	else
		ko "static --pprof" "$(cat "$T/err")"
	fi
	"$S/kmemprof" top -i "$F/kmemprof-6.12.txt" --resolve=/nonexistent \
		> /dev/null 2> "$T/err"
	check "static build: --resolve left out, and says so" \
		"kmemprof: --resolve: built without libdw (--resolve)" "$(cat "$T/err")"
fi

# NO_OPTIONAL=1 as before the split: static, and no pprof.
S=$T/none
if ! make -s -C "$KP" LDFLAGS=-static NO_OPTIONAL=1 O="$S" kmemprof \
	> "$T/build" 2>&1; then
	ko "static build, NO_OPTIONAL=1" "$(tail -5 "$T/build")"
else
	"$S/kmemprof" top -i "$F/kmemprof-6.12.txt" --pprof "$T/n.pb.gz" \
		2> "$T/err"
	check "NO_OPTIONAL=1: --pprof says it was left out" \
		"kmemprof: --pprof $T/n.pb.gz: built without protobuf-c and zlib (pprof)" \
		"$(cat "$T/err")"
fi

# The board's own build, arm64: pprof linked in from the sysroot.
if ! command -v aarch64-linux-gnu-gcc > /dev/null; then
	sk "board build" "no aarch64-linux-gnu-gcc"
elif [ ! -f "$CACHE/guest/sysroot/usr/lib/aarch64-linux-gnu/libprotobuf-c.a" ]; then
	sk "board build" "no arm64 sysroot with libprotobuf-c.a (tools/rig/deps.sh)"
elif ! "$TOP/tools/rig/board-reader.sh" "$T/board" "$CACHE/guest/sysroot" \
	> "$T/build" 2>&1; then
	ko "board build" "$(tail -5 "$T/build")"
else
	check "board build: arm64, static, with protobuf-c and zlib linked in" \
		"AArch64 0 2" \
		"$(readelf -h "$T/board/kmemprof" | sed -n 's/^ *Machine: *//p') $(
		readelf -d "$T/board/kmemprof" | grep -c NEEDED) $(
		aarch64-linux-gnu-nm "$T/board/kmemprof" |
		grep -cw 'T protobuf_c_message_pack\|T deflateInit2_')"
fi
echo "$pass $fail $skip"
[ "$fail" -eq 0 ]
