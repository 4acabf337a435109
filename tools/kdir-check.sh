#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Can kmemprof be built against this kernel tree, here? Run by the
# Makefile before it hands the build to the tree (make, make board, make
# install), so that what a tree lacks is said in a sentence instead of a
# kbuild error:
#
#   tools/kdir-check.sh WHAT KDIR
#
# WHAT names the target in the messages. Exits 0 when the tree looks
# usable, 1 (with the reason on stderr) when it is not:
#   - no tree at all (no headers package for the running kernel);
#   - a distribution's headers package unpacked outside /usr/src, whose
#     Makefile includes the common tree by an absolute path (Debian);
#   - the tree's build tools built for another architecture (an arm64
#     headers package on a PC: scripts/basic/fixdep: Exec format error);
#   - BTF for modules without pahole (Debian's 6.12: Error 127).
# Documentation/building.rst gives each recipe in full.
what=$1
kdir=$2
doc="Documentation/building.rst"

say() {
	echo "$what: $*" >&2
}

if [ ! -f "$kdir/Makefile" ]; then
	say "no prepared kernel tree at $kdir"
	case "$kdir" in
	*/lib/modules/*/build)
		rel=${kdir##*/lib/modules/}
		rel=${rel%/build}
		say "install the headers of the running kernel: linux-headers-$rel" \
			"(Debian, Radxa OS; Armbian: its linux-headers-BRANCH-FAMILY)," \
			"or build against a prepared tree with make KDIR=DIR ($doc)"
		;;
	*)
		say "give KDIR=a kernel tree built with 'make modules', or a" \
			"headers package's tree ($doc)"
		;;
	esac
	exit 1
fi

# Debian's linux-headers-RELEASE: 'include /usr/src/linux-headers-X-common/Makefile'.
inc=$(sed -n 's/^include \(\/[^ ]*\)$/\1/p' "$kdir/Makefile" | head -n 1)
if [ -n "$inc" ] && [ ! -f "$inc" ]; then
	common=$(dirname "$inc")
	here=$(cd "$kdir/.." && pwd)
	say "$kdir/Makefile includes $inc, which is not there:" \
		"a distribution's headers package unpacked away from /usr/src."
	if [ -f "$here/$(basename "$common")/Makefile" ]; then
		say "the common tree is beside it; point the include there:"
		say "  sed -i 's|^include $(dirname "$common")/|include $here/|' $kdir/Makefile"
	else
		say "unpack $(basename "$common") (dpkg -x) into the same root," \
			"then point the include there:"
		say "  sed -i 's|^include $(dirname "$common")/|include ROOT$(dirname "$common")/|' $kdir/Makefile"
	fi
	say "($doc, \"On a PC, against a distribution's headers package\")"
	exit 1
fi

# The tree's host tools must run here. fixdep with no arguments prints
# its usage and exits 1; a binary of another architecture gets 126 from
# the shell (Exec format error), 127 (no such interpreter, e.g.
# /lib/ld-linux-aarch64.so.1), or 255 from qemu-user's binfmt handler
# when the interpreter is missing.
fixdep=$kdir/scripts/basic/fixdep
if [ -f "$fixdep" ]; then
	"$fixdep" > /dev/null 2>&1
	rc=$?
	if [ $rc -ne 1 ]; then
		kind=
		command -v file > /dev/null &&
			kind=" ($(file -bL "$fixdep" | cut -d, -f1-2))"
		host=$(dpkg --print-architecture 2>/dev/null || uname -m)
		kbuild=$(readlink "$kdir/scripts" 2>/dev/null |
			sed -n 's|.*/\(linux-kbuild-[^/]*\)/scripts$|\1|p')
		say "$kdir's build tools do not run on this $host machine:" \
			"scripts/basic/fixdep$kind."
		if [ -n "$kbuild" ]; then
			say "this is a headers package for another architecture's" \
				"own builds: put the $host $kbuild (Multi-Arch: foreign," \
				"the same version) in place of the one it came with:"
			say "  apt-get download $kbuild:$host && dpkg -x ${kbuild}_*_$host.deb ROOT"
			say "where ROOT is the directory the headers were unpacked into" \
				"($doc, \"On a PC, against a distribution's headers package\")"
		else
			say "rebuild the tree's host tools here:" \
				"make -C $kdir ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules_prepare"
		fi
		exit 1
	fi
fi

# BTF for modules: kbuild runs pahole when the tree has a vmlinux.
conf=$kdir/include/config/auto.conf
[ -f "$conf" ] || conf=$kdir/.config
if [ -f "$kdir/vmlinux" ] && ! command -v pahole > /dev/null &&
	grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$conf" 2>/dev/null; then
	say "$kdir has CONFIG_DEBUG_INFO_BTF_MODULES and a vmlinux: the build" \
		"runs pahole, which is not installed (Debian: apt install dwarves)"
	exit 1
fi
exit 0
