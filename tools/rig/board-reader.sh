#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The board's reader: kmemprof for arm64, static, with pprof when arm64's
# static protobuf-c and zlib are there. tools/rig/deps.sh unpacks Debian's
# arm64 libprotobuf-c-dev and zlib1g-dev (libprotobuf-c.a, libz.a) into
# SYSROOT; without it, aarch64-linux-gnu-pkg-config (multiarch -dev
# packages) is asked, and pprof is left out if it finds nothing. libdw,
# libmicrohttpd and the web configuration stay out: Debian ships no static
# arm64 GnuTLS, and the board reads its profile with the host's --resolve.
# tests/qemu/run.sh puts it in the guest as /bin/kmemprof.
#
#   board-reader.sh OUT_DIR [SYSROOT]   (default: deps.sh's guest sysroot)
#   BOARD_CC=...                        the compiler (aarch64-linux-gnu-gcc)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:?usage: board-reader.sh OUT_DIR [SYSROOT]}
CACHE=${KMEMPROF_CACHE:-$HOME/.cache/kmemprof}
SYSROOT=${2:-$CACHE/guest/sysroot}
CC=${BOARD_CC:-aarch64-linux-gnu-gcc}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
pc=$SYSROOT/usr/lib/aarch64-linux-gnu/pkgconfig
if [ -f "$pc/libprotobuf-c.pc" ] && [ -f "$pc/zlib.pc" ]; then
	export PKG_CONFIG_SYSROOT_DIR=$SYSROOT PKG_CONFIG_LIBDIR=$pc
	set -- PKG_CONFIG=pkg-config
else
	set --
fi
make -s -C "$TOP/tools/kmemprof" CC="$CC" LDFLAGS=-static \
	NO_LIBDW=1 NO_MICROHTTPD=1 NO_WEBCONFIG=1 O="$OUT" "$@" kmemprof
