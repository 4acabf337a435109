#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The board's overlay (dts/rock-5b-plus-kmemprof.dtso) on the host: it
# compiles without a warning, applies to a real DTB (QEMU virt's, as the
# board's own is not at hand) and gives the /kmemprof node the module
# reads. Its effect in a booted kernel is the guest's dt suite. Prints
# 'P F S' last.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
p=0 f=0

check() { # check NAME COMMAND...
	local name=$1
	shift
	if "$@" > "$T/out" 2>&1; then
		echo "PASS $name"
		p=$((p + 1))
	else
		echo "FAIL $name"
		sed 's/^/     /' "$T/out" | tail -n 10
		f=$((f + 1))
	fi
}

quiet_dtc() { # quiet_dtc IN OUT: dtc, failing on any warning
	dtc -@ -I dts -O dtb -o "$2" "$1" 2> "$T/dtc.err"
	local rc=$?
	cat "$T/dtc.err"
	[ $rc -eq 0 ] && [ ! -s "$T/dtc.err" ]
}

prop() { # prop NAME TYPE WANT
	local got
	got=$(fdtget -t "$2" "$T/board.dtb" /kmemprof "$1") || return 1
	[ "$got" = "$3" ] || { echo "$1: got '$got', want '$3'"; return 1; }
}

absent() { # absent NAME: the node has no such property
	! fdtget "$T/board.dtb" /kmemprof "$1" 2> /dev/null
}

check "board overlay compiles without warnings" \
	quiet_dtc "$TOP/dts/rock-5b-plus-kmemprof.dtso" "$T/board.dtbo"
check "test overlay compiles without warnings" \
	quiet_dtc "$TOP/tests/qemu/kmemprof-test.dtso" "$T/test.dtbo"
check "virt DTB dumped" qemu-system-aarch64 -M virt,dumpdtb="$T/virt.dtb" \
	-cpu cortex-a76 -m 1G -nographic -nic none
check "board overlay applies" \
	fdtoverlay -i "$T/virt.dtb" -o "$T/board.dtb" "$T/board.dtbo"
check "compatible" prop compatible s kmemprof
check "enabled" prop enabled u 1
check "events" prop events s slab,page,percpu
check "no max-live: sized from the RAM" absent max-live
check "no max-tags: sized from the RAM" absent max-tags
check "stack-depth" prop stack-depth u 0
check "key-depth" prop key-depth u 0
check "sample-rate" prop sample-rate u 1
echo "$p $f 0"
[ $f -eq 0 ]
