#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-bsp's input and configuration, on the host, without a kernel
# build (tools/rig/bsp.sh, and tools/rig/kernel.sh's bsp flavour):
#   - no KSRC, a KSRC that is not there, not a kernel tree, or one
#     configured in place: an error naming it;
#   - a BSP_DEFCONFIG word the tree lacks (the defconfig or a fragment):
#     an error naming it;
#   - the plan: the vendor's defconfig, its fragments, then the rig's QEMU
#     fragment and (BSP_TRIM=1, the default) the trim fragment, in order;
#     a tarball is unpacked into $KMEMPROF_CACHE;
#   - kernel.sh bsp runs those steps in that order on a fake tree, with a
#     stand-in make and merge_config.sh, and refuses a configuration
#     without an option the guest needs;
#   - bsp.sh report names the options and the tests that skipped.
# The real build is make check-bsp's. Prints 'P F S' last.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
p=0 f=0
Q=$TOP/tests/qemu

# expect NAME RC-WANT RC-GOT OUTPUT PATTERN...: the exit status, and each
# fixed string in the output.
expect() {
	local name=$1 want=$2 rc=$3 out=$4 s
	shift 4
	if [ "$rc" != "$want" ]; then
		echo "bsp: $name: exit $rc, want $want"
		echo "$out" | sed 's/^/    /' | tail -n 8
		f=$((f + 1))
		return
	fi
	for s in "$@"; do
		if ! grep -qF -- "$s" <<< "$out"; then
			echo "bsp: $name: no '$s' in:"
			echo "$out" | sed 's/^/    /' | tail -n 8
			f=$((f + 1))
			return
		fi
	done
	p=$((p + 1))
}

# same NAME WANT GOT: two texts alike, line for line.
same() {
	if [ "$2" = "$3" ]; then
		p=$((p + 1))
	else
		echo "bsp: $1: got"
		echo "$3" | sed 's/^/    /'
		echo "  want"
		echo "$2" | sed 's/^/    /'
		f=$((f + 1))
	fi
}

export KMEMPROF_CACHE=$T/cache
unset KSRC BSP_DEFCONFIG BSP_TRIM KMEMPROF_BSP_SRC KMEMPROF_BSP_DEFCONFIG \
	KMEMPROF_BSP_TRIM
# bsp ENV...: bsp.sh plan with those settings.
bsp() { env "$@" "$TOP/tools/rig/bsp.sh" plan 2>&1; }

# Through make, as a user types it.
out=$(make -s -C "$TOP" check-bsp 2>&1)
expect "make check-bsp without KSRC" 2 $? "$out" \
	"check-bsp: no KSRC: give KSRC=DIR"
out=$(make -s -C "$TOP" check-bsp KSRC="$T/nothing" 2>&1)
expect "KSRC that is not there" 2 $? "$out" \
	"check-bsp: KSRC=$T/nothing: no such file or directory"
mkdir -p "$T/notakernel"
echo hello > "$T/notakernel/README"
out=$(make -s -C "$TOP" check-bsp KSRC="$T/notakernel" 2>&1)
expect "KSRC not a kernel tree" 2 $? "$out" \
	"check-bsp: KSRC=$T/notakernel is not a kernel source tree (no Kconfig)"

# A fake vendor tree: what the plan looks at, and a merge_config.sh that
# logs what it merges and appends it (the real one's effect, for the
# lines kernel.sh checks).
K=$T/linux-vendor
mkdir -p "$K/arch/arm64/configs" "$K/kernel/configs" "$K/scripts/kconfig"
printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 141\n' > "$K/Makefile"
echo 'mainmenu "Linux"' > "$K/Kconfig"
echo 'config ARM64' > "$K/arch/arm64/Kconfig"
cat > "$K/arch/arm64/configs/rockchip_linux_defconfig" <<'CFG'
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_DEVTMPFS=y
CONFIG_TMPFS=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_DEBUG_FS=y
CONFIG_TRACEPOINTS=y
CONFIG_ARM_ARCH_TIMER=y
CONFIG_ARM64_PSEUDO_NMI=y
CONFIG_PREEMPT_VOLUNTARY=y
CONFIG_FUNCTION_TRACER=y
CONFIG_FUNCTION_GRAPH_TRACER=y
CONFIG_DYNAMIC_FTRACE=y
CONFIG_CMA=y
CONFIG_HOTPLUG_CPU=y
CFG
echo 'CONFIG_BCMDHD_PCIE=y' > "$K/arch/arm64/configs/rk3588_linux.config"
echo 'CONFIG_MEMCG=y' > "$K/kernel/configs/docker.config"
cat > "$K/scripts/kconfig/merge_config.sh" <<STUB
#!/bin/sh
# merge_config.sh -m BASE FRAGMENT...
[ "\$1" = -m ] && shift
base=\$1
shift
echo "merge \$*" >> "$T/steps"
cat "\$@" >> "\$base"
STUB
chmod +x "$K/scripts/kconfig/merge_config.sh"

# The plan: defconfig, vendor fragments, the rig's two, in that order.
out=$(bsp KMEMPROF_BSP_SRC="$K")
same "plan, the defaults" "src $K
defconfig $K/arch/arm64/configs/rockchip_linux_defconfig
fragment $K/arch/arm64/configs/rk3588_linux.config
merge $Q/bsp-qemu.config
merge $Q/bsp-trim.config" "$out"
out=$(bsp KMEMPROF_BSP_SRC="$K" KMEMPROF_BSP_TRIM=0 \
	KMEMPROF_BSP_DEFCONFIG="rockchip_linux_defconfig docker.config rk3588_linux.config")
same "plan, two fragments (one from kernel/configs), no trim" "src $K
defconfig $K/arch/arm64/configs/rockchip_linux_defconfig
fragment $K/kernel/configs/docker.config
fragment $K/arch/arm64/configs/rk3588_linux.config
merge $Q/bsp-qemu.config" "$out"
cp "$K/arch/arm64/configs/rockchip_linux_defconfig" "$T/board.config"
echo 'CONFIG_LOCALVERSION="-board"' > "$T/extra.config"
out=$(cd "$T" && bsp KMEMPROF_BSP_SRC="$K" \
	KMEMPROF_BSP_DEFCONFIG="./board.config rk3588_linux.config ./extra.config")
same "plan, files of one's own" "src $K
copy $T/board.config
fragment $K/arch/arm64/configs/rk3588_linux.config
merge $T/extra.config
merge $Q/bsp-qemu.config
merge $Q/bsp-trim.config" "$out"

# A BSP_DEFCONFIG word the tree lacks.
out=$(make -s -C "$TOP" check-bsp KSRC="$K" BSP_DEFCONFIG="rk9999_defconfig" 2>&1)
expect "a defconfig the tree lacks" 2 $? "$out" \
	"check-bsp: BSP_DEFCONFIG: no rk9999_defconfig in $K/arch/arm64/configs" \
	"rockchip_linux_defconfig"
out=$(bsp KMEMPROF_BSP_SRC="$K" KMEMPROF_BSP_DEFCONFIG="rockchip_linux_defconfig rk9999_linux.config")
expect "a fragment the tree lacks" 2 $? "$out" \
	"check-bsp: BSP_DEFCONFIG: no rk9999_linux.config in $K/arch/arm64/configs or $K/kernel/configs"
out=$(bsp KMEMPROF_BSP_SRC="$K" KMEMPROF_BSP_DEFCONFIG="rk3588_linux.config")
expect "a fragment first" 2 $? "$out" \
	"check-bsp: BSP_DEFCONFIG: the first word, rk3588_linux.config, is not a defconfig"
out=$(bsp KMEMPROF_BSP_SRC="$K" KMEMPROF_BSP_DEFCONFIG="rockchip_linux_defconfig ./none.config")
expect "a file that is not there" 2 $? "$out" \
	"check-bsp: BSP_DEFCONFIG: no file ./none.config"
out=$(bsp KMEMPROF_BSP_SRC="$K" KMEMPROF_BSP_TRIM=yes)
expect "BSP_TRIM not 0 or 1" 2 $? "$out" "check-bsp: BSP_TRIM=yes: 0 or 1"

# A tree configured in place: kbuild's O= refuses it, so the plan does.
cp -r "$K" "$T/inplace"
touch "$T/inplace/.config"
out=$(bsp KMEMPROF_BSP_SRC="$T/inplace")
expect "a tree configured in place" 2 $? "$out" \
	"check-bsp: KSRC=$T/inplace has been configured in place ($T/inplace/.config)"

# A tarball, as a vendor ships one: unpacked once into the cache, its one
# top directory taken as the tree.
tar -czf "$T/linux-vendor.tar.gz" -C "$T" linux-vendor
out=$(bsp KMEMPROF_BSP_SRC="$T/linux-vendor.tar.gz")
rc=$?
src=$(sed -n 's/^src //p' <<< "$out")
expect "a tarball, unpacked" 0 $rc "$out" "src $KMEMPROF_CACHE/bsp-src/linux-vendor-"
expect "a tarball's tree" 0 "$([ -f "$src/arch/arm64/configs/rk3588_linux.config" ]; echo $?)" "$src"
expect "a tarball, said so" 0 $rc "$out" "check-bsp: unpacking $T/linux-vendor.tar.gz"
out2=$(bsp KMEMPROF_BSP_SRC="$T/linux-vendor.tar.gz")
same "a tarball, the same tree the second time, not unpacked again" \
	"$(grep -v '^check-bsp: unpacking' <<< "$out")" "$out2"

# kernel.sh bsp on the fake tree: a make on PATH that logs its goals,
# writes the defconfig's .config and an Image.
mkdir -p "$T/bin"
cat > "$T/bin/make" <<STUB
#!/bin/bash
# make [-s] -C SRC O=DIR VAR=... GOAL...
out= goals=()
while [ \$# -gt 0 ]; do
	case "\$1" in
	-C) shift ;;
	O=*) out=\${1#O=} ;;
	-s | -j* | *=*) ;;
	*) goals+=("\$1") ;;
	esac
	shift
done
echo "make \${goals[*]}" >> "$T/steps"
for g in "\${goals[@]}"; do
	case "\$g" in
	*_defconfig) cp "$K/arch/arm64/configs/\$g" "\$out/.config" ;;
	*.config) cat "$K/arch/arm64/configs/\$g" >> "\$out/.config" ;;
	Image) mkdir -p "\$out/arch/arm64/boot" && touch "\$out/arch/arm64/boot/Image" ;;
	esac
done
STUB
chmod +x "$T/bin/make"
: > "$T/steps"
out=$(PATH=$T/bin:$PATH KMEMPROF_YIELD=0 KMEMPROF_BSP_SRC="$K" \
	"$TOP/tools/rig/kernel.sh" bsp 2>&1)
rc=$?
expect "kernel.sh bsp, a fake tree" 0 $rc "$out" "$KMEMPROF_CACHE/build/bsp-"
same "kernel.sh bsp, its steps in order" "make rockchip_linux_defconfig
make rk3588_linux.config
merge $Q/bsp-qemu.config $Q/bsp-trim.config
make olddefconfig
make Image modules" "$(cat "$T/steps")"
B=$(tail -n 1 <<< "$out")
expect "kernel.sh bsp, the QEMU options in" 0 \
	"$(grep -qxF CONFIG_VIRTIO_MMIO=y "$B/.config"; echo $?)" "$B/.config"
expect "kernel.sh bsp, linked as the bsp kernel" 0 \
	"$([ "$(readlink "$KMEMPROF_CACHE/kernel-bsp")" = "$B" ]; echo $?)" "$B"
# Built, and asked again: reused, with no step.
: > "$T/steps"
out=$(PATH=$T/bin:$PATH KMEMPROF_YIELD=0 KMEMPROF_BSP_SRC="$K" \
	"$TOP/tools/rig/kernel.sh" bsp 2>&1)
same "kernel.sh bsp, reused" "$B" "$out"
same "kernel.sh bsp, reused: no step" "" "$(cat "$T/steps")"
# Without an option the guest needs (an initramfs): refused, named.
sed -i '/BLK_DEV_INITRD/d' "$K/arch/arm64/configs/rockchip_linux_defconfig"
out=$(PATH=$T/bin:$PATH KMEMPROF_YIELD=0 KMEMPROF_BSP_SRC="$K" \
	"$TOP/tools/rig/kernel.sh" bsp 2>&1)
expect "kernel.sh bsp, an option the guest needs off" 1 $? "$out" \
	"kernel bsp: the configuration lacks CONFIG_BLK_DEV_INITRD=y"

# The report: the options as the tree has them, and what skipped.
R=$T/run
mkdir -p "$R/shell"
echo 77 > "$R/shell/57-leaks.rc"
echo "SKIP: no generic KASAN on this kernel" > "$R/shell/57-leaks.log"
echo 0 > "$R/shell/58-coexist.rc"
echo "note: no function_graph tracer on this kernel" > "$R/shell/58-coexist.log"
out=$("$TOP/tools/rig/bsp.sh" report "$B" "$R" 2>&1)
expect "report" 0 $? "$out" \
	"MODVERSIONS" "off" "ARM64_PSEUDO_NMI" "PREEMPT_VOLUNTARY" \
	"FUNCTION_GRAPH_TRACER" "KASAN" "COMPACTION" \
	"skip for these options: 58-coexist (DYNAMIC_FTRACE_WITH_REGS off), 62-migrate, 68-zram (COMPACTION off)" \
	"57-leaks: SKIP: no generic KASAN on this kernel" \
	"58-coexist: note: no function_graph tracer on this kernel"

echo "$p $f 0"
[ $f -eq 0 ]
