#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-bsp: kmemprof on a vendor's kernel tree (a board support
# package), configured as the vendor configures it, before it goes on a
# board.
#
#   make check-bsp KSRC=DIR [BSP_DEFCONFIG="rockchip_linux_defconfig rk3588_linux.config"] [BSP_TRIM=1]
#
#   tools/rig/bsp.sh                  make check-bsp (the settings below)
#   tools/rig/bsp.sh plan             the configuration's steps, one a line
#   tools/rig/bsp.sh report KDIR OUTDIR...   the options that matter to
#                                     kmemprof, and what skipped in OUTDIR
#   tools/rig/bsp.sh board-dtb KDIR   the board overlay on the tree's own
#                                     DTB of the board (a host suite)
#
# The settings come from the environment (the Makefile passes them):
#   KMEMPROF_BSP_SRC        the tree (KSRC): a directory, or a tarball of
#                           one, unpacked once into $KMEMPROF_CACHE/bsp-src
#   KMEMPROF_BSP_DEFCONFIG  the vendor's defconfig, then its fragments, as
#                           'make' takes them (NAME_defconfig from
#                           arch/arm64/configs, NAME.config from there or
#                           kernel/configs); a word with a / is a file of
#                           one's own (the first: a whole configuration,
#                           such as a board's /proc/config.gz unpacked)
#   KMEMPROF_BSP_TRIM       1 (default): also turn off the driver groups
#                           that cannot probe under QEMU
#                           (tests/qemu/bsp-trim.config); 0: the vendor's all
#
# The plan is, in order: the defconfig, the vendor's fragments, the rig's
# QEMU fragment (tests/qemu/bsp-qemu.config: console, 9p share, KUnit) and
# the trim fragment. tools/rig/kernel.sh bsp carries it out, out of tree
# (O=) into $KMEMPROF_CACHE/build/bsp-KEY: the source tree is only read.
# Then tools/rig/check.sh runs on KERNELS=bsp as on any rig kernel: kmemprof
# and its tests built with W=1, warnings as errors (tools/rig/build.sh),
# the whole guest suite, KUnit's boot and the device-tree boot
# (tests/qemu/run.sh: a GICv3, with pseudo-NMI where the tree has it), the
# board overlay on the tree's DTB of the Rock 5B+, and this script's report. Bad input stops with 'check-bsp: ...' naming it,
# exit status 2.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${KMEMPROF_CACHE:-$HOME/.cache/kmemprof}
SRCARCH=arm64
DEFAULT_DEFCONFIG="rockchip_linux_defconfig rk3588_linux.config"

die() { echo "check-bsp: $*" >&2; exit 2; }

# unpack TARBALL: the tree inside it, unpacked once into the cache (keyed by
# the tarball's path, size and time); prints the tree's directory.
unpack() {
	local tarball key name dest tmp top
	tarball=$(realpath "$1")
	key=$(stat -c '%n %s %Y' "$tarball" | sha256sum | cut -c1-12)
	name=$(basename "$tarball")
	name=${name%%.tar*}
	name=${name%.tgz}
	dest=$CACHE/bsp-src/$name-$key
	if [ ! -f "$dest/.kmemprof-unpacked" ]; then
		echo "check-bsp: unpacking $tarball into $dest" >&2
		tmp=$dest.tmp
		rm -rf "$tmp" "$dest"
		mkdir -p "$tmp"
		tar -xf "$tarball" -C "$tmp" ||
			die "KSRC=$1: tar cannot unpack it"
		# A tarball of one directory (linux-6.1.141/, a git archive's
		# prefix): that directory is the tree.
		top=$(find "$tmp" -mindepth 1 -maxdepth 1)
		if [ "$(echo "$top" | wc -l)" = 1 ] && [ -d "$top" ]; then
			mv "$top" "$dest"
			rmdir "$tmp"
		else
			mv "$tmp" "$dest"
		fi
		touch "$dest/.kmemprof-unpacked"
	fi
	echo "$dest"
}

# config_file WORD: the file a make config target names in the tree, as
# scripts/kconfig/Makefile finds it.
config_file() {
	local w=$1 f
	case "$w" in
	*defconfig)
		f=$SRC/arch/$SRCARCH/configs/$w
		[ -f "$f" ] && { echo "$f"; return; }
		die "BSP_DEFCONFIG: no $w in $SRC/arch/$SRCARCH/configs (there:" \
			"$(cd "$SRC/arch/$SRCARCH/configs" && printf '%s ' *defconfig | sed 's/ $//'))"
		;;
	*.config)
		for f in "$SRC/kernel/configs/$w" "$SRC/arch/$SRCARCH/configs/$w"; do
			[ -f "$f" ] && { echo "$f"; return; }
		done
		die "BSP_DEFCONFIG: no $w in $SRC/arch/$SRCARCH/configs or $SRC/kernel/configs"
		;;
	*) die "BSP_DEFCONFIG: $w is neither NAME_defconfig, NAME.config nor a file (a word with a /)" ;;
	esac
}

# plan: check the settings and print the steps of the configuration.
plan() {
	local src=${KMEMPROF_BSP_SRC:-} trim=${KMEMPROF_BSP_TRIM:-1} w f first=1
	[ -n "$src" ] ||
		die "no KSRC: give KSRC=DIR, a kernel source tree (or a tarball of one)"
	[ -e "$src" ] || die "KSRC=$src: no such file or directory"
	case "$trim" in
	0 | 1) ;;
	*) die "BSP_TRIM=$trim: 0 or 1" ;;
	esac
	# (die in a $(...) ends only that subshell: hence the || exit.)
	if [ -f "$src" ]; then
		SRC=$(unpack "$src") || exit 2
	else
		SRC=$(realpath "$src")
	fi
	# What a tree that kbuild can configure for arm64 has.
	for w in Kconfig Makefile arch/$SRCARCH/Kconfig scripts/kconfig/merge_config.sh; do
		[ -f "$SRC/$w" ] ||
			die "KSRC=$src is not a kernel source tree (no $w$([ "$SRC" = "$src" ] || echo " in $SRC"))"
	done
	# A built tree, or a distribution's headers, is not the source.
	[ ! -f "$SRC/Module.symvers" ] ||
		die "KSRC=$src is a built tree or a headers package ($SRC/Module.symvers):" \
			"check-bsp builds the kernel itself, from its source tree"
	case "$SRC" in
	*' '* | *:*) die "KSRC=$src: kbuild takes no tree whose path has a space or a colon" ;;
	esac
	# An O= build refuses a tree configured in place ('make mrproper').
	for w in .config include/config; do
		[ ! -e "$SRC/$w" ] ||
			die "KSRC=$src has been configured in place ($SRC/$w): an O= build" \
				"needs a clean source tree; give a clean copy of it (make -C" \
				"$SRC mrproper would delete that configuration)"
	done
	echo "src $SRC"
	for w in ${KMEMPROF_BSP_DEFCONFIG:-$DEFAULT_DEFCONFIG}; do
		case "$w" in
		*/*)
			[ -f "$w" ] || die "BSP_DEFCONFIG: no file $w"
			if [ $first = 1 ]; then
				echo "copy $(realpath "$w")"
			else
				echo "merge $(realpath "$w")"
			fi
			;;
		*defconfig)
			f=$(config_file "$w") || exit 2
			echo "defconfig $f"
			;;
		*)
			[ $first = 0 ] ||
				die "BSP_DEFCONFIG: the first word, $w, is not a defconfig" \
					"(NAME_defconfig, defconfig, or a file of yours)"
			f=$(config_file "$w") || exit 2
			echo "fragment $f"
			;;
		esac
		first=0
	done
	[ $first = 0 ] || die "BSP_DEFCONFIG is empty"
	echo "merge $TOP/tests/qemu/bsp-qemu.config"
	[ "$trim" = 0 ] || echo "merge $TOP/tests/qemu/bsp-trim.config"
}

# option KDIR NAME: the value of CONFIG_NAME in KDIR's .config (y, m, a
# value, or 'off').
option() {
	local v
	v=$(sed -n "s/^CONFIG_$2=//p" "$1/.config")
	echo "${v:-off}"
}

# report KDIR OUTDIR...: the vendor's options that matter to kmemprof, with
# what each changes and the tests it turns off, then what skipped in the
# runs and the parts of tests left out.
report() {
	local k=$1 o preempt name v what d t
	shift
	[ -f "$k/.config" ] || die "report: no $k/.config"
	echo "bsp: $(cat "$k/include/config/kernel.release" 2>/dev/null || echo "?"), the options that matter to kmemprof:"
	preempt=off
	for o in PREEMPT_NONE PREEMPT_VOLUNTARY PREEMPT PREEMPT_RT; do
		[ "$(option "$k" $o)" = off ] || preempt=$o
	done
	printf '     %-24s %-5s %s\n' "preemption" "" "$preempt"
	# NAME|what it means when on|when off|the tests that skip when off
	local skips=
	while IFS='|' read -r name on off tests; do
		v=$(option "$k" "$name")
		if [ "$v" = off ]; then
			what=$off
			[ -z "$tests" ] || skips="$skips${skips:+, }$tests ($name off)"
		else
			what=$on
		fi
		printf '     %-24s %-5s %s\n' "$name" "$v" "$what"
	done <<'TABLE'
MODVERSIONS|symbol CRCs: build kmemprof against this very tree (its Module.symvers)|vermagic only: any build of this tree's release and options loads|
ARM64_PSEUDO_NMI|NMIs under interrupts off (perf): kmemprof's NMI path; booted with irqchip.gicv3_pseudo_nmi=1|no NMI on arm64|
FUNCTION_TRACER|the ftrace function API, for the hooks|no hooks: the bulk paths are untraced|58-coexist
DYNAMIC_FTRACE|patched call sites, for the hooks|no hooks: the bulk paths are untraced|58-coexist
DYNAMIC_FTRACE_WITH_REGS|the hooks on the untraced paths (kmem_cache_*_bulk, alloc_pages_bulk)|no hooks: the bulk paths are untraced|58-coexist
FUNCTION_GRAPH_TRACER|58-coexist's function_graph part runs|58-coexist leaves its function_graph part out|
FPROBE|exit hooks (6.14 and later), sharing functions with a livepatch|wrapper hooks, which need IPMODIFY|
KPROBES|not used by kmemprof (kretprobe returns in stacks are put back)|not needed|
KALLSYMS_ALL|kmemprof names text only: no change|no change (text symbols are in KALLSYMS)|
CMA|61-cma, CMA pages in 65-meminfo|no CMA pages|61-cma
DMABUF_HEAPS_CMA|61-cma's dma-buf heap part|61-cma leaves its heap part out|
MEMCG|__GFP_ACCOUNT paths (a percpu size may count memcg's share)|no kmem accounting: those paths are not exercised|
COMPACTION|62-migrate and 68-zram: pages that move|no compaction: only CMA's migration moves pages|62-migrate, 68-zram
ZRAM|68-zram: zsmalloc's pages|no zram|68-zram
TRANSPARENT_HUGEPAGE|THP pages as compound blocks|no THP (69-stress-ng, which wants THP, is not run on bsp)|
HUGETLBFS|65-meminfo's hugetlb pool line|65-meminfo's hugetlb line is 0|
KASAN_GENERIC|57-leaks: every leak suspect checked against KASAN's shadow|no generic KASAN|57-leaks
HOTPLUG_CPU|71-hotplug: a CPU offline and back during a load|no CPU hotplug|71-hotplug
INET|26-serve: kmemprof serve over TCP on loopback|no TCP/IP|26-serve
TABLE
	echo "     skip for these options: ${skips:-none}"
	for d in "$@"; do
		[ -d "$d/shell" ] || continue
		for t in "$d"/shell/*.rc; do
			[ -e "$t" ] || continue
			name=$(basename "$t" .rc)
			if [ "$(cat "$t")" = 77 ]; then
				echo "     skipped: $name: $(grep -m 1 '^SKIP' "${t%.rc}.log" 2>/dev/null || echo "(no reason given)")"
			fi
			grep -E '^note: |^INFO .*left out' "${t%.rc}.log" 2>/dev/null |
				sed "s/^INFO /     part left out: $name: /; s/^note: /     part left out: $name: note: /" ||
				true
		done
	done
	return 0
}

# board_dtb KDIR: the board's overlay (dts/rock-5b-plus-kmemprof.dtso) on
# the tree's own device tree for the board it names (its metadata's
# compatible), built from the tree: it applies, and gives the /kmemprof
# node. tools/rig/dt-test.sh does the same on QEMU virt's DTB, for want of
# the board's. Prints 'P F S' last (a tree without the board: skipped).
board_dtb() {
	local k=$1 dtso=$TOP/dts/rock-5b-plus-kmemprof.dtso compat dts rel T
	local src
	src=$(readlink -f "$k/source")
	compat=$(sed -n 's/^[[:space:]]*compatible = "\(radxa,[^"]*\)";/\1/p' "$dtso" | head -n 1)
	dts=$(grep -lE "compatible = \"$compat\"" "$src"/arch/$SRCARCH/boot/dts/*/*.dts 2>/dev/null | head -n 1)
	if [ -z "$dts" ]; then
		echo "no device tree for $compat in the tree: the board overlay's check left out"
		echo "0 0 1"
		return 0
	fi
	rel=${dts#"$src/arch/$SRCARCH/boot/dts/"}
	T=$(mktemp -d)
	if make -s -C "$src" O="$k" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
			"${rel%.dts}.dtb" > "$T/log" 2>&1 &&
		dtc -q -@ -I dts -O dtb -o "$T/kmemprof.dtbo" "$dtso" &&
		fdtoverlay -i "$k/arch/$SRCARCH/boot/dts/${rel%.dts}.dtb" -o "$T/board.dtb" \
			"$T/kmemprof.dtbo" >> "$T/log" 2>&1 &&
		[ "$(fdtget -t s "$T/board.dtb" /kmemprof compatible 2>> "$T/log")" = kmemprof ]; then
		echo "PASS the board overlay on ${rel%.dts}.dtb, built from the tree: /kmemprof is there"
		rm -rf "$T"
		echo "1 0 0"
	else
		echo "FAIL the board overlay on ${rel%.dts}.dtb"
		tail -n 10 "$T/log"
		rm -rf "$T"
		echo "0 1 0"
		return 1
	fi
}

case "${1:-}" in
board-dtb)
	board_dtb "${2:?usage: bsp.sh board-dtb KDIR}"
	exit
	;;
plan)
	plan
	exit 0
	;;
report)
	shift
	report "$@"
	exit 0
	;;
'') ;;
*) echo "usage: bsp.sh [plan | report KDIR OUTDIR... | board-dtb KDIR]" >&2; exit 2 ;;
esac

# make check-bsp: the plan first, so that bad input stops here at once.
steps=$(plan)
SRC=$(sed -n 's/^src //p' <<< "$steps")
export KMEMPROF_BSP_SRC=$SRC KMEMPROF_BSP_DEFCONFIG=${KMEMPROF_BSP_DEFCONFIG:-$DEFAULT_DEFCONFIG}
export KMEMPROF_BSP_TRIM=${KMEMPROF_BSP_TRIM:-1}
echo "check-bsp: $SRC, configured by:"
sed -n 's/^\(defconfig\|fragment\|copy\|merge\) /     \1 /p' <<< "$steps"
"$TOP/tools/rig/deps.sh"
# The kernel, built here, where its progress shows (it takes the longest);
# KMEMPROF_BSP_REFRESH: run kbuild even on a finished build, which
# rebuilds what changed in the tree since.
start=$(date +%s)
if ! KDIR=$(KMEMPROF_BSP_REFRESH=1 "$TOP/tools/rig/kernel.sh" bsp); then
	echo "check-bsp: the kernel did not build or configure (above)" >&2
	exit 1
fi
echo "check-bsp: kernel $(cat "$KDIR/include/config/kernel.release") in $KDIR ($(($(date +%s) - start)) s)"
# The module, its tests and the guests, as make check runs them on the
# rig's kernels; check.sh prints the report after the bsp kernel's boots.
# 69-stress-ng is left out (it wants THP, KSM and zram, which a vendor's
# kernel may lack), and the host suites are make check's.
KERNELS=bsp KMEMPROF_HOST_SUITES=0 KMEMPROF_BSP_REFRESH=0 \
	KMEMPROF_STRESS_KERNELS=none exec "$TOP/tools/rig/check.sh"
