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
#
#   tools/rig/kernel.sh bsp         # a vendor's tree (make check-bsp)
#
# bsp is the tree tools/rig/bsp.sh names (KMEMPROF_BSP_SRC, _DEFCONFIG,
# _TRIM): configured with the vendor's defconfig and fragments, then the
# rig's QEMU and trim fragments, in the order 'bsp.sh plan' gives, and
# built out of tree into $KMEMPROF_CACHE/build/bsp-KEY, where KEY hashes
# the tree's path, the plan and the files in it. A finished build is
# reused as it is, unless KMEMPROF_BSP_REFRESH=1, which runs kbuild on it
# again (what changed in the tree since is rebuilt).
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

if [ "$VER" = bsp ]; then
	# A vendor's tree: its path, and the plan, from bsp.sh (which checks
	# them and says what is wrong).
	plan=$("$TOP/tools/rig/bsp.sh" plan) || exit 2
	SRC=$(sed -n 's/^src //p' <<< "$plan")
	# (the rig's fragments by their names within the checkout, so that
	# every worktree of it keys the same build)
	key=$( (sed "s|$TOP/||" <<< "$plan"; sed -n 's/^[a-z]* //p' <<< "$plan" | sed 1d | xargs cat) |
		sha256sum | cut -c1-12)
else
	pkg=linux-source-$VER
	read -r pkgver tarball < <("$TOP/tools/rig/source.sh" "$VER") ||
		{ log "no source for $VER (run tools/rig/deps.sh)"; exit 1; }

	frags="$TOP/tests/qemu/kernel.config"
	[ -f "$TOP/tests/qemu/kernel-$VER.config" ] &&
		frags="$frags $TOP/tests/qemu/kernel-$VER.config"
	[ -n "$FLAVOUR" ] && frags="$frags $TOP/tests/qemu/kernel-$FLAVOUR.config"

	key=$( (echo "$pkg $pkgver"; cat $frags) | sha256sum | cut -c1-12)
	SRC=$CACHE/src/linux-$pkgver
fi
name=$VER${FLAVOUR:+-$FLAVOUR}
B=$CACHE/build/$name-$key

if [ -f "$B/.kmemprof-stamp" ] &&
   ! { [ "$VER" = bsp ] && [ "${KMEMPROF_BSP_REFRESH:-0}" = 1 ]; }; then
	touch "$B/.kmemprof-stamp"	# in use: see the clean-up below
	ln -sfn "$B" "$CACHE/kernel-$name"
	echo "$B"
	exit 0
fi

if [ "$VER" != bsp ] && [ ! -f "$SRC/Makefile" ]; then
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

# configure_rig: allnoconfig plus the rig's fragments.
configure_rig() {
	# A version fragment may drop a line of the base one, for options an
	# older kernel lacks: '# kmemprof-drop CONFIG_FOO'.
	drops=$(sed -n 's/^# kmemprof-drop //p' $frags)
	cat $frags | grep -vxF -f <(for d in $drops; do echo "$d=y"; done; echo '#nothing') \
		> "$B/fragment.config"

	log "configuring ($key)"
	make -s -C "$SRC" O="$B" $ARCHV KCONFIG_ALLCONFIG="$B/fragment.config" \
		allnoconfig >/dev/null
}

# configure_bsp: the plan's steps in order, as the vendor configures the
# tree ('make NAME_defconfig NAME.config', each target by itself), then the
# rig's fragments merged with the tree's own merge_config.sh, as its
# %.config target merges one, and olddefconfig. Logged in config.log.
configure_bsp() {
	local what path merges=()
	log "configuring $SRC ($key)"
	: > "$B/config.log"
	rm -f "$B/.config"
	while read -r what path; do
		case "$what" in
		defconfig | fragment)
			make -s -C "$SRC" O="$B" $ARCHV "$(basename "$path")" \
				>> "$B/config.log" 2>&1 ||
				{ tail -n 20 "$B/config.log" >&2; log "make $(basename "$path") failed"; exit 1; }
			;;
		copy)
			cp "$path" "$B/.config"
			make -s -C "$SRC" O="$B" $ARCHV olddefconfig >> "$B/config.log" 2>&1 ||
				{ tail -n 20 "$B/config.log" >&2; log "make olddefconfig on $path failed"; exit 1; }
			;;
		merge) merges+=("$path") ;;
		esac
	done <<< "$plan"
	(cd "$B" && "$SRC/scripts/kconfig/merge_config.sh" -m .config "${merges[@]}") \
		>> "$B/config.log" 2>&1 ||
		{ tail -n 20 "$B/config.log" >&2; log "merge_config.sh failed"; exit 1; }
	make -s -C "$SRC" O="$B" $ARCHV olddefconfig >> "$B/config.log" 2>&1 ||
		{ tail -n 20 "$B/config.log" >&2; log "make olddefconfig failed"; exit 1; }
	# The QEMU fragment's lines are checked below as the rig's are;
	# what the guest needs of the vendor's own must be on (kmemprof-need),
	# and a trim line that stayed on (something selects it) is said.
	cp "$TOP/tests/qemu/bsp-qemu.config" "$B/fragment.config"
	local need bad=0 sym
	for need in $(sed -n 's/^# kmemprof-need //p' "$B/fragment.config"); do
		grep -qxF "$need=y" "$B/.config" ||
			{ log "the configuration lacks $need=y, which the rig's guest needs (tests/qemu/bsp-qemu.config says why)"; bad=1; }
	done
	[ $bad -eq 0 ] || exit 1
	for sym in $(sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1/p' "${merges[@]}"); do
		! grep -qE "^$sym=[ym]$" "$B/.config" ||
			log "note: $sym stays on (another option selects it)"
	done
}

if [ "$VER" = bsp ] && [ -f "$B/.kmemprof-stamp" ]; then
	# KMEMPROF_BSP_REFRESH=1 on a finished build: configured already; its
	# stamp goes until kbuild has run through again.
	log "refreshing $B (kbuild rebuilds what changed in $SRC)"
	rm "$B/.kmemprof-stamp"
elif [ "$VER" = bsp ]; then
	configure_bsp
else
	configure_rig
fi

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
