#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build kmemprof and its test modules for one rig kernel, out of the source
# tree, with W=1 and warnings as errors.
#
#   tools/rig/build.sh KVER DEST [make arguments...]
#
# The sources are copied to DEST first, so builds for several kernels never
# share objects and the work tree stays clean.
set -euo pipefail

KVER=${1:?usage: build.sh KVER DEST [make args]}
DEST=$(realpath -m "${2:?}")
shift 2
TOP=$(cd "$(dirname "$0")/../.." && pwd)

KDIR=$("$TOP/tools/rig/kernel.sh" "$KVER")
mkdir -p "$DEST"
rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
	--exclude='*.mod*' --exclude='modules.order' --exclude='Module.symvers' \
	"$TOP/Kbuild" "$TOP/module" "$TOP/include" "$TOP/tests" "$DEST/"
# 5.10's own mmzone.h (movable_only_nodes) sets a variable it never uses,
# which W=1 reports in every file that includes it: not ours to fix, and
# the other kernels keep the warning on for our code.
kcflags=
case "$KVER" in
5.10*) kcflags=-Wno-unused-but-set-variable ;;
esac
"$TOP/tools/rig/yield.sh" make -s -C "$KDIR" M="$DEST" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	W=1 KMEMPROF_WERROR=1 KMEMPROF_TESTS=m KCFLAGS="$kcflags" "$@" modules
