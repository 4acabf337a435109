#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the arm64 guest once and leave its results in OUTDIR.
#
#   tests/qemu/run.sh KVER MODE MODDIR OUTDIR
#
# KVER picks the cached kernel (tools/rig/kernel.sh), MODE is the guest's
# rigmode (check, demo, dt, capture or bench), MODDIR holds the built .ko files. OUTDIR gets
# console.log and, through the 9p share, kunit/ and shell/.
set -euo pipefail

KVER=${1:?usage: run.sh KVER MODE MODDIR OUTDIR}
MODE=${2:?}
MODDIR=${3:?}
OUT=${4:?}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${KMEMPROF_CACHE:-$HOME/.cache/kmemprof}
# Two clusters of two cores, so cross-cluster frees can be tested.
SMP=${KMEMPROF_SMP:-4,sockets=1,clusters=2,cores=2,threads=1}
TIMEOUT=${KMEMPROF_TIMEOUT:-600}

# KMEMPROF_IMAGE boots that kernel image instead of the rig's build of
# KVER (tools/rig/distro.sh: Debian's own), and KMEMPROF_ROOT_EXTRA is a
# directory copied into the initramfs (the image's boot-modules/).
KDIR=
if [ -n "${KMEMPROF_IMAGE:-}" ]; then
	IMAGE=$KMEMPROF_IMAGE
else
	KDIR=$("$TOP/tools/rig/kernel.sh" "$KVER")
	IMAGE=$KDIR/arch/arm64/boot/Image
fi
# Every guest has a CMA area (tests/qemu/kernel.config), 32 MiB of its
# 1 GiB as a board's is a share of its RAM; its heap is
# /dev/dma_heap/reserved. The debug flavour checks every slab object too.
# The vendor flavour has pseudo-NMI, which needs a GICv3 and the command
# line to turn it on.
# Every guest has a hugetlb pool too, 16 pages of 2 MiB, as a board's
# image sets one up; the 6.1 guests (the board's kernel) and the debug one
# have transparent huge pages always on, the others on madvise() alone.
# KMEMPROF_MEM sets the guest's RAM (1G).
EXTRA_APPEND="cma=32M hugepages=16"
MEM=${KMEMPROF_MEM:-1G}
MACHINE=virt
case "$KVER" in
6.1 | 6.1-* | *-debug) EXTRA_APPEND="$EXTRA_APPEND transparent_hugepage=always" ;;
esac
case "$KVER" in
*-debug) EXTRA_APPEND="$EXTRA_APPEND slub_debug=FZPU kasan_multi_shot" ;;
*-vendor)
	EXTRA_APPEND="$EXTRA_APPEND irqchip.gicv3_pseudo_nmi=1"
	MACHINE=virt,gic-version=3
	;;
bsp)
	# A vendor's tree (tools/rig/bsp.sh): a GICv3 where it has the driver
	# (the RK3588's is one), pseudo-NMI on where it is built in, as on
	# the board; the rest of the command line as every guest's.
	if grep -qx CONFIG_ARM_GIC_V3=y "$KDIR/.config"; then
		MACHINE=virt,gic-version=3
		grep -qx CONFIG_ARM64_PSEUDO_NMI=y "$KDIR/.config" &&
			EXTRA_APPEND="$EXTRA_APPEND irqchip.gicv3_pseudo_nmi=1"
	fi
	;;
esac
rm -rf "$OUT"
mkdir -p "$OUT/root"/{bin,dev,proc,sys,tmp,modules,tests/bench} "$OUT/share"
root=$OUT/root
cp "$CACHE/guest/busybox" "$root/bin/busybox"
mkdir -p "$root/lib" "$root/usr/bin"
cp "$CACHE/guest/numfmt" "$root/usr/bin/numfmt"
cp /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 /usr/aarch64-linux-gnu/lib/libc.so.6 "$root/lib/"
# The reader, static for arm64, to run against the live module: the
# board's build (pprof from the sysroot's static protobuf-c and zlib).
"$TOP/tools/rig/board-reader.sh" "$OUT/reader-arm64" "$CACHE/guest/sysroot"
cp "$OUT/reader-arm64/kmemprof" "$root/bin/"
# And the full reader as kmemprof-serve: dynamic, against the arm64
# libraries tools/rig/deps.sh unpacks (libmicrohttpd, protobuf-c, zlib),
# with every library it needs, found through DT_NEEDED, in /lib.
# Without that sysroot (deps.sh not run since), the guest has none and
# 26-serve.sh skips.
sysroot=$CACHE/guest/sysroot
if [ ! -f "$sysroot/.pkgs" ]; then
	echo "rig: no $sysroot (tools/rig/deps.sh): no kmemprof-serve in the guest" >&2
else
	libdirs="$sysroot/usr/lib/aarch64-linux-gnu $sysroot/lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib"
	PKG_CONFIG_SYSROOT_DIR=$sysroot \
	PKG_CONFIG_LIBDIR=$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig \
		make -s -C "$TOP/tools/kmemprof" CC=aarch64-linux-gnu-gcc \
		PKG_CONFIG=pkg-config O="$(cd "$OUT" && pwd)/reader-arm64-serve" \
		LDFLAGS="-Wl,-rpath-link,$(echo $libdirs | tr ' ' :)"
	cp "$OUT/reader-arm64-serve/kmemprof" "$root/bin/kmemprof-serve"
	needed() {
		aarch64-linux-gnu-readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
	}
	todo=$(needed "$root/bin/kmemprof-serve")
	while [ -n "$todo" ]; do
		cur=$todo
		todo=
		for lib in $cur; do
			[ -e "$root/lib/$lib" ] && continue
			for d in $libdirs; do
				[ -e "$d/$lib" ] || continue
				cp -L "$d/$lib" "$root/lib/$lib"
				todo="$todo $(needed "$root/lib/$lib")"
				break
			done
			[ -e "$root/lib/$lib" ] ||
				{ echo "rig: kmemprof-serve needs $lib, not found" >&2; exit 1; }
		done
	done
fi
# stress-ng (tools/rig/deps.sh: Debian's arm64 package, unpacked), with
# the libraries it needs, only for the boots that run 69-stress-ng: those
# told to with rigstress= (tools/rig/check.sh: STRESS_KERNELS), or whose
# rigtests= names it. The others stay small (stress-ng and its libraries
# are 5 MB), and 69-stress-ng skips there.
stressng=$CACHE/guest/stress-ng
want_stressng=
case " ${KMEMPROF_APPEND:-} " in
*" rigstress="*) want_stressng=1 ;;
esac
case ",$(echo "${KMEMPROF_APPEND:-}" | sed -n 's/.*rigtests=\([^ ]*\).*/\1/p')," in
*,69-stress-ng,*) want_stressng=1 ;;
esac
if [ -n "$want_stressng" ] && [ ! -f "$stressng/.version" ]; then
	echo "rig: no $stressng (tools/rig/deps.sh): no stress-ng in the guest" >&2
elif [ -n "$want_stressng" ]; then
	cp "$stressng/usr/bin/stress-ng" "$root/usr/bin/"
	sdirs="/usr/aarch64-linux-gnu/lib $stressng/usr/lib/aarch64-linux-gnu $stressng/lib/aarch64-linux-gnu"
	sneeded() {
		aarch64-linux-gnu-readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
	}
	todo=$(sneeded "$root/usr/bin/stress-ng")
	while [ -n "$todo" ]; do
		cur=$todo
		todo=
		for lib in $cur; do
			[ -e "$root/lib/$lib" ] && continue
			for d in $sdirs; do
				[ -e "$d/$lib" ] || continue
				cp -L "$d/$lib" "$root/lib/$lib"
				todo="$todo $(sneeded "$root/lib/$lib")"
				break
			done
			[ -e "$root/lib/$lib" ] ||
				{ echo "rig: stress-ng needs $lib, not found" >&2; exit 1; }
		done
	done
	echo "$(cat "$stressng/.version")" > "$root/usr/bin/stress-ng.version"
fi
for t in runas kmpio kmpheap kmpcompact kmpload kmpoom; do
	aarch64-linux-gnu-gcc -static -O2 -o "$root/bin/$t" "$TOP/tests/qemu/$t.c"
done
install -m 0755 "$TOP/tests/qemu/init" "$root/init"
find "$MODDIR" -name '*.ko' -exec cp {} "$root/modules/" \;
cp "$TOP"/tests/integration/*.sh "$root/tests/"
cp "$TOP"/tests/bench/*.sh "$root/tests/bench/"
[ -n "${KMEMPROF_ROOT_EXTRA:-}" ] && cp -r "$KMEMPROF_ROOT_EXTRA/." "$root/"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) \
	> "$OUT/initramfs.cpio.gz"

# KMEMPROF_DTSO: overlays (space-separated) applied to QEMU virt's own DTB,
# dumped with the same machine options, and booted with -dtb.
DTB_ARGS=
if [ -n "${KMEMPROF_DTSO:-}" ]; then
	qemu-system-aarch64 -M "$MACHINE",dumpdtb="$OUT/virt.dtb" -cpu cortex-a76 \
		-smp "$SMP" -m "$MEM" -nographic -nic none > /dev/null 2>&1 ||
		{ echo "rig: cannot dump the virt DTB" >&2; exit 1; }
	dtbos=()
	for o in $KMEMPROF_DTSO; do
		dtbos+=("$OUT/$(basename "$o" .dtso).dtbo")
		dtc -q -@ -I dts -O dtb -o "${dtbos[-1]}" "$o"
	done
	fdtoverlay -i "$OUT/virt.dtb" -o "$OUT/guest.dtb" "${dtbos[@]}"
	DTB_ARGS="-dtb $OUT/guest.dtb"
fi

set +e
timeout --foreground -k 5 "$TIMEOUT" qemu-system-aarch64 \
	-M "$MACHINE" -cpu cortex-a76 -smp "$SMP" -m "$MEM" \
	-nographic -no-reboot -nic none \
	-kernel "$IMAGE" \
	-initrd "$OUT/initramfs.cpio.gz" \
	-fsdev local,id=fs0,path="$OUT/share",security_model=none \
	-device virtio-9p-device,fsdev=fs0,mount_tag=host0 \
	-append "console=ttyAMA0 panic=-1 oops=panic rigmode=$MODE $EXTRA_APPEND ${KMEMPROF_APPEND:-}" \
	$DTB_ARGS ${KMEMPROF_QEMU_EXTRA:-} \
	< /dev/null > "$OUT/console.log" 2>&1
rc=$?
set -e
[ $rc -eq 124 ] && echo "rig: guest timed out after ${TIMEOUT}s" >> "$OUT/console.log"
# The share is the guest's /out; move its results next to the console log.
cp -r "$OUT/share/." "$OUT/" 2>/dev/null || true
exit 0
