#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the rig's arm64 kernel for one version.
#
#   tools/rig/kernel.sh 6.12        # prints the build directory on stdout
#   tools/rig/kernel.sh 6.12-debug  # 6.12 plus tests/qemu/kernel-debug.config
#
# The source comes from Debian's linux-source-VER package, is unpacked into
# $KMEMPROF_CACHE/src, configured from allnoconfig plus the fragments in
# tests/qemu/ and built out of tree into $KMEMPROF_CACHE/build/VER-KEY, where
# KEY hashes the package version and the fragments. A finished build leaves a
# stamp; a build with the same key is reused as it is.
set -euo pipefail

VER=${1:?usage: kernel.sh VERSION[-FLAVOUR]}
FLAVOUR=
case "$VER" in
*-*) FLAVOUR=${VER#*-}; VER=${VER%%-*} ;;
esac
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${KMEMPROF_CACHE:-$HOME/.cache/kmemprof}
JOBS=${KMEMPROF_JOBS:-$(($(nproc) + 1))}
ARCHV="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"

log() { echo "kernel $VER${FLAVOUR:+-$FLAVOUR}: $*" >&2; }

pkg=linux-source-$VER
read -r pkgver tarball < <("$TOP/tools/rig/source.sh" "$VER") ||
	{ log "no source for $VER (run tools/rig/deps.sh)"; exit 1; }

frags="$TOP/tests/qemu/kernel.config"
[ -f "$TOP/tests/qemu/kernel-$VER.config" ] &&
	frags="$frags $TOP/tests/qemu/kernel-$VER.config"
[ -n "$FLAVOUR" ] && frags="$frags $TOP/tests/qemu/kernel-$FLAVOUR.config"

key=$( (echo "$pkg $pkgver"; cat $frags) | sha256sum | cut -c1-12)
name=$VER${FLAVOUR:+-$FLAVOUR}
B=$CACHE/build/$name-$key
SRC=$CACHE/src/linux-$pkgver

if [ -f "$B/.kmemprof-stamp" ]; then
	touch "$B/.kmemprof-stamp"	# in use: see the clean-up below
	ln -sfn "$B" "$CACHE/kernel-$name"
	echo "$B"
	exit 0
fi

if [ ! -f "$SRC/Makefile" ]; then
	log "unpacking $pkg $pkgver"
	rm -rf "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar -xf "$tarball" -C "$SRC.tmp" \
		--strip-components=1
	mv "$SRC.tmp" "$SRC"
fi

# Older builds of this version are dead weight once the key changes, but
# another checkout (a branch, a git worktree) may be building or booting
# one: only a finished build unused for 14 days goes (its stamp is touched
# at each use), and never one in progress. NAME-KEY only, where KEY is 12
# hex digits, so that a build of 6.12 leaves 6.12-debug's alone.
for old in "$CACHE/build/$name-"????????????; do
	if [[ ${old##*/} =~ ^$name-[0-9a-f]{12}$ ]] &&
	   [ -n "$(find "$old/.kmemprof-stamp" -mtime +14 2>/dev/null)" ]; then
		rm -rf "$old"
	fi
done
mkdir -p "$B"
# A version fragment may drop a line of the base one, for options an
# older kernel lacks: '# kmemprof-drop CONFIG_FOO'.
drops=$(sed -n 's/^# kmemprof-drop //p' $frags)
cat $frags | grep -vxF -f <(for d in $drops; do echo "$d=y"; done; echo '#nothing') \
	> "$B/fragment.config"

log "configuring ($key)"
make -s -C "$SRC" O="$B" $ARCHV KCONFIG_ALLCONFIG="$B/fragment.config" \
	allnoconfig >/dev/null

# A fragment line that did not survive means a missing dependency.
bad=0
while read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qxF "$line" "$B/.config" ||
		{ log "config line dropped: $line"; bad=1; } ;;
	esac
done < "$B/fragment.config"
[ $bad -eq 0 ] || exit 1

log "building Image modules with -j$JOBS (several minutes)"
start=$(date +%s)
# (yielding to other work on the machine: tools/rig/yield.sh)
if ! "$(dirname "$0")/yield.sh" make -s -C "$SRC" O="$B" $ARCHV -j"$JOBS" Image modules \
	> "$B/build.log" 2>&1; then
	tail -n 40 "$B/build.log" >&2
	log "build failed; log in $B/build.log"
	exit 1
fi
log "built in $(($(date +%s) - start)) s"
echo "$key" > "$B/.kmemprof-stamp"
ln -sfn "$B" "$CACHE/kernel-$name"
echo "$B"
