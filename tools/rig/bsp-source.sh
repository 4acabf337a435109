#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rig's reference BSP tree: a public Rockchip 6.1 vendor kernel, at a
# pinned commit, which make check-matrix runs check-bsp on (as the kernel
# 'bsp') when it is in the cache.
#
#   tools/rig/bsp-source.sh             its directory, if it is there at the
#                                       pinned commit; else one line saying
#                                       so, and exit status 1
#   tools/rig/bsp-source.sh fetch       fetch it once (git, the one commit)
#   tools/rig/bsp-source.sh --defconfig its configuration, as BSP_DEFCONFIG
#
# The tree: Linux 6.1.141 with Rockchip's BSP and Radxa's
# rk3588-rock-5b-plus.dts (../shared/research/vendor-bsp.md ran kmemprof
# on it by hand). By hand, the same as 'fetch':
#
#   git init ~/.cache/kmemprof/bsp-src/linux-6.1.y-rockchip
#   cd ~/.cache/kmemprof/bsp-src/linux-6.1.y-rockchip
#   git fetch --depth 1 https://github.com/Zane-E/linux-6.1.y-rockchip \
#       fc8ec2815b55d926c914fd425f8253c113816c21
#   git checkout FETCH_HEAD
#
# (or a full 'git clone' of it there, and 'git checkout' of the commit).
# A tree exported without git (git archive) is taken when its
# .kmemprof-commit file holds the commit.
set -euo pipefail

BSP_REF_REPO=https://github.com/Zane-E/linux-6.1.y-rockchip
BSP_REF_COMMIT=fc8ec2815b55d926c914fd425f8253c113816c21
BSP_REF_DEFCONFIG="rockchip_linux_defconfig rk3588_linux.config"
CACHE=${KMEMPROF_CACHE:-$HOME/.cache/kmemprof}
DIR=$CACHE/bsp-src/linux-6.1.y-rockchip

# commit: the commit the tree in DIR is at, or nothing.
commit() {
	if [ -d "$DIR/.git" ]; then
		git -C "$DIR" rev-parse HEAD 2>/dev/null || true
	elif [ -f "$DIR/.kmemprof-commit" ]; then
		cat "$DIR/.kmemprof-commit"
	fi
}

case "${1:-}" in
'')
	have=$(commit)
	if [ "$have" = "$BSP_REF_COMMIT" ]; then
		echo "$DIR"
		exit 0
	fi
	if [ -n "$have" ]; then
		echo "bsp: left out: $DIR is at ${have:0:12}, not the pinned ${BSP_REF_COMMIT:0:12} (tools/rig/bsp-source.sh fetch)" >&2
	else
		echo "bsp: left out: the reference tree (${BSP_REF_REPO#https://github.com/} at ${BSP_REF_COMMIT:0:12}) is not in $DIR (tools/rig/bsp-source.sh fetch fetches it: a few hundred MB)" >&2
	fi
	exit 1
	;;
fetch)
	[ "$(commit)" = "$BSP_REF_COMMIT" ] && { echo "$DIR"; exit 0; }
	mkdir -p "$DIR"
	[ -d "$DIR/.git" ] || git init -q "$DIR"
	echo "bsp: fetching ${BSP_REF_COMMIT:0:12} of $BSP_REF_REPO into $DIR" >&2
	git -C "$DIR" fetch --depth 1 "$BSP_REF_REPO" "$BSP_REF_COMMIT"
	git -C "$DIR" checkout -q -f FETCH_HEAD
	echo "$DIR"
	;;
--defconfig) echo "$BSP_REF_DEFCONFIG" ;;
--commit) echo "$BSP_REF_COMMIT" ;;
*) echo "usage: bsp-source.sh [fetch | --defconfig | --commit]" >&2; exit 2 ;;
esac
