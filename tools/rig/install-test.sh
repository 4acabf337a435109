#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-install: the user's install path, end to end, on a real
# Debian bookworm arm64 system under QEMU.
#
#   tools/rig/install-test.sh [OUT]     # default OUT: .build/install
#
# 1. A Debian bookworm arm64 root file system, made with mmdebstrap through
#    qemu-user (qemu-user-static and binfmt_misc): systemd, Debian's own
#    kernel and headers (linux-image-arm64, linux-headers-arm64, the same
#    version), dkms, initramfs-tools, curl. It is cached as a tarball in
#    $KMEMPROF_CACHE/install/, so later runs start from it.
# 2. kmemprof-tools for arm64, built by "make deb" (tools/rig/deb.sh) in a
#    second arm64 root with the build dependencies, as on a board (cached
#    too, by the hash of the sources it is built from); kmemprof-dkms from
#    "make deb" on this machine (Architecture: all).
# 3. "apt install ./kmemprof-dkms_*.deb ./kmemprof-tools_*_arm64.deb" in a
#    fresh copy of the root: DKMS builds kmemprof.ko natively (arm64 gcc
#    under qemu-user) against linux-headers-arm64, and signs it with the
#    MOK key it makes (openssl is installed first). Its transcript is
#    OUT/apt-install.log. Then, as a user would, the line of
#    /etc/modules-load.d/kmemprof.conf is uncommented.
# 4. The root becomes an ext4 image (mkfs.ext4 -d) that boots under
#    qemu-system-aarch64 (TCG, -M virt, cortex-a76) with the image's own
#    kernel and initrd and systemd as init. rig-check.service
#    (tests/install/guest-check.sh) runs the checks of the phase named on
#    the command line and writes them to the serial console:
#      phase 1: loaded at boot by systemd-modules-load, kmemprof top,
#               kmemprof-serve.service answers on loopback; then
#               KMEMPROF_INITRAMFS=yes in /etc/default/kmemprof and
#               update-initramfs;
#      phase 2: booted with the initrd phase 1 made (read back from the
#               image with debugfs): kmemprof was loaded from the
#               initramfs, before the root mount; then apt remove and
#               apt purge leave nothing behind.
#
# Needs root (mmdebstrap's root mode, chroot, mounts). It installs what it
# needs with apt-get (mmdebstrap and arch-test, qemu-user-static, qemu-system-arm,
# e2fsprogs, zstd) and, when binfmt_misc is not mounted or qemu-aarch64 is
# not registered, mounts /proc/sys/fs/binfmt_misc and registers
# qemu-aarch64 from qemu-user-static's /usr/lib/binfmt.d/qemu-aarch64.conf
# (flag F: the interpreter is opened once, so chroots need no copy of it).
# Both are idempotent and change nothing when already done.
#
# Every step is bounded with timeout. KMEMPROF_QEMU_LOCK=FILE runs the two
# boots under flock FILE (the rig's shared QEMU lock), and only them; the
# wait for it is bounded too (an hour).
# KMEMPROF_INSTALL_REFRESH=1 rebuilds the cached roots.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${KMEMPROF_CACHE:-$HOME/.cache/kmemprof}
OUT=$(realpath -m "${1:-$TOP/.build/install}")
IC=$CACHE/install
SUITE=bookworm
MIRRORS=("deb http://deb.debian.org/debian $SUITE main"
	 "deb http://deb.debian.org/debian $SUITE-updates main"
	 "deb http://deb.debian.org/debian-security $SUITE-security main")
BASE_PKGS="systemd-sysv,udev,kmod,e2fsprogs,procps,curl,initramfs-tools,zstd,linux-image-arm64,linux-headers-arm64,dkms,make,gcc"
# The reader's build: debian/control's Build-Depends, and deb.sh's tools.
BUILD_PKGS="build-essential,dpkg-dev,debhelper,dh-dkms,rsync,libcmocka-dev,libcrypt-dev,libdw-dev,libmicrohttpd-dev,libprotobuf-c-dev,libyaml-dev,pkg-config,protobuf-c-compiler,zlib1g-dev"
QLOCK=${KMEMPROF_QEMU_LOCK:-}
# The image's initramfs holds the modules this guest needs and no others
# (MODULES=list): with Debian's default, MODULES=most, mkinitramfs takes
# over 20 minutes under qemu-user and minutes under TCG.
INITRAMFS_CONF="MODULES=list"
INITRAMFS_MODULES="virtio_mmio virtio_pci virtio_blk crc32c_generic ext4"

[ "$(id -u)" -eq 0 ] || { echo "install-test: needs root (mmdebstrap, chroot, mounts)" >&2; exit 1; }

T0=$(date +%s)
LOG=$OUT/steps.log
rm -rf "$OUT"
mkdir -p "$OUT" "$IC"
: > "$LOG"
passed=0
failed=0
pass() { echo "PASS $*" | tee -a "$LOG"; passed=$((passed + 1)); }
fail() { echo "FAIL $*" | tee -a "$LOG"; failed=$((failed + 1)); }
say() { echo "install-test: [$(($(date +%s) - T0))s] $*" | tee -a "$LOG"; }
finish() {
	say "$passed passed, $failed failed (logs in $OUT)"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

# --- host tools and binfmt ---------------------------------------------
need=""
for p in mmdebstrap arch-test qemu-user-static qemu-system-arm e2fsprogs zstd; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		need="$need $p"
done
if [ -n "$need" ]; then
	say "installing$need"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq \
		--no-install-recommends $need >/dev/null
fi

BINFMT=/proc/sys/fs/binfmt_misc
if [ ! -e $BINFMT/register ]; then
	say "mounting binfmt_misc"
	mount -t binfmt_misc binfmt_misc $BINFMT
fi
if [ ! -e $BINFMT/qemu-aarch64 ]; then
	say "registering qemu-aarch64 with binfmt_misc"
	cat /usr/lib/binfmt.d/qemu-aarch64.conf > $BINFMT/register
fi
grep -q '^flags:.*F' $BINFMT/qemu-aarch64 ||
	{ fail "binfmt: qemu-aarch64 is registered without flag F"; finish; }

# --- chroot helpers ----------------------------------------------------
MOUNTED=()
chroot_up() { # chroot_up ROOT
	local r=$1
	mount -t proc proc "$r/proc"
	mount --rbind /sys "$r/sys"
	mount --make-rslave "$r/sys"
	mount --rbind /dev "$r/dev"
	mount --make-rslave "$r/dev"
	MOUNTED+=("$r")
	cp /etc/resolv.conf "$r/etc/resolv.conf"
}
chroot_down() { # chroot_down ROOT
	local r=$1
	umount -R "$r/dev" 2>/dev/null || umount -lR "$r/dev"
	umount -R "$r/sys" 2>/dev/null || umount -lR "$r/sys"
	umount "$r/proc" 2>/dev/null || umount -l "$r/proc"
	MOUNTED=("${MOUNTED[@]/$r}")
}
cleanup() {
	local r
	for r in "${MOUNTED[@]}"; do
		[ -n "$r" ] && chroot_down "$r" 2>/dev/null
	done
	return 0
}
trap cleanup EXIT

# in_root ROOT SECONDS COMMAND...: run COMMAND in the arm64 root.
in_root() {
	local r=$1 t=$2
	shift 2
	timeout "$t" chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# cached_root NAME PACKAGES [FROM]: the tarball $IC/NAME.tar.zst, made
# again when its package list (or FROM's) changes: by mmdebstrap, or from
# the root FROM with PACKAGES added by apt-get in a chroot.
cached_root() {
	local name=$1 pkgs=$2 from=${3:-} tar=$IC/$1.tar.zst key r
	# mmdebstrap picks the format by the name: .tar.zst
	local new=$IC/$1.new.tar.zst
	key=$(printf '%s\n' "$SUITE" "$pkgs" "${MIRRORS[@]}" "$INITRAMFS_CONF" "$INITRAMFS_MODULES" \
		"$(cat "$IC/$from.tar.zst.key" 2>/dev/null)" | sha256sum | cut -c1-16)
	if [ -z "${KMEMPROF_INSTALL_REFRESH:-}" ] && [ -s "$tar" ] &&
	   [ "$(cat "$tar.key" 2>/dev/null)" = "$key" ]; then
		say "$name: cached ($tar)"
		return 0
	fi
	rm -f "$tar" "$tar.key"
	if [ -z "$from" ]; then
		say "$name: mmdebstrap $SUITE arm64 (cold: 10 to 20 minutes)"
		if ! timeout 5400 mmdebstrap --arch=arm64 --variant=apt \
			--setup-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d"' \
			--setup-hook="printf '%s\\n' '$INITRAMFS_CONF' > \"\$1/etc/initramfs-tools/conf.d/rig.conf\"" \
			--setup-hook="printf '%s\\n' $INITRAMFS_MODULES > \"\$1/usr/share/initramfs-tools/modules.d/rig-guest\"" \
			--include="$pkgs" "$SUITE" "$new" "${MIRRORS[@]}" \
			> "$OUT/mmdebstrap-$name.log" 2>&1; then
			rm -f "$new"
			fail "rootfs/$name: $(tail -n 5 "$OUT/mmdebstrap-$name.log" | tr '\n' ' ')"
			finish
		fi
	else
		say "$name: $from and apt-get install ${pkgs//,/ }"
		r=$OUT/$name
		mkdir -p "$r"
		timeout 600 tar -C "$r" --zstd -xf "$IC/$from.tar.zst"
		chroot_up "$r"
		if ! { in_root "$r" 600 apt-get update &&
		       in_root "$r" 2400 apt-get install -y --no-install-recommends ${pkgs//,/ } &&
		       in_root "$r" 600 apt-get clean; } > "$OUT/apt-$name.log" 2>&1; then
			chroot_down "$r"
			fail "rootfs/$name: $(tail -n 5 "$OUT/apt-$name.log" | tr '\n' ' ')"
			finish
		fi
		chroot_down "$r"
		rm -f "$r/etc/resolv.conf"
		timeout 900 tar -C "$r" --zstd -cf "$new" .
		rm -rf "$r"
	fi
	mv "$new" "$tar"
	echo "$key" > "$tar.key"
	say "$name: $(du -h "$tar" | cut -f1)"
}

# --- 1. the roots --------------------------------------------------------
cached_root bookworm-arm64 "$BASE_PKGS"
cached_root bookworm-arm64-build "$BUILD_PKGS" bookworm-arm64
pass "rootfs (mmdebstrap $SUITE arm64)"

# --- 2. the packages -----------------------------------------------------
DEB=$OUT/deb
mkdir -p "$DEB"
say "make deb (kmemprof-dkms, Architecture: all) on this machine"
if ! KMEMPROF_DEB_BUILD=all timeout 600 "$TOP/tools/rig/deb.sh" "$OUT/deb-host" \
	> "$OUT/deb-host.log" 2>&1; then
	fail "make-deb/host: $(tail -n 5 "$OUT/deb-host.log" | tr '\n' ' ')"
	finish
fi
cp "$OUT"/deb-host/kmemprof-dkms_*_all.deb "$DEB/"

# kmemprof-tools for arm64, by make deb in the arm64 build root, cached by
# the hash of the sources that go into it.
src_key=$(cd "$TOP" && git ls-files -z --cached --others --exclude-standard \
	tools/kmemprof debian/control debian/rules debian/changelog \
	'debian/kmemprof-tools.*' debian/kmemprof.1 debian/source tools/rig/deb.sh |
	xargs -0 sha256sum 2>/dev/null | sha256sum | cut -c1-16)
tools_cache=$IC/tools-$src_key
if [ -z "${KMEMPROF_INSTALL_REFRESH:-}" ] &&
   ls "$tools_cache"/kmemprof-tools_*_arm64.deb >/dev/null 2>&1; then
	say "kmemprof-tools arm64: cached ($tools_cache)"
else
	say "make deb in the arm64 build root (kmemprof-tools arm64; cold: minutes)"
	B=$OUT/build-root
	mkdir -p "$B"
	timeout 600 tar -C "$B" --zstd -xf "$IC/bookworm-arm64-build.tar.zst"
	mkdir -p "$B/src"
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
		rsync -a --from0 --files-from=- --ignore-missing-args ./ "$B/src/")
	chroot_up "$B"
	if ! in_root "$B" 1800 sh -c 'cd /src && DEB_BUILD_OPTIONS=nocheck KMEMPROF_DEB_BUILD=any tools/rig/deb.sh /debout' \
		> "$OUT/deb-arm64.log" 2>&1; then
		chroot_down "$B"
		fail "make-deb/arm64: $(tail -n 5 "$OUT/deb-arm64.log" | tr '\n' ' ')"
		finish
	fi
	chroot_down "$B"
	rm -rf "$IC"/tools-*
	mkdir -p "$tools_cache"
	cp "$B"/debout/kmemprof-tools_*_arm64.deb "$tools_cache/"
	rm -rf "$B"
fi
cp "$tools_cache"/kmemprof-tools_*_arm64.deb "$DEB/"
pass "make-deb ($(cd "$DEB" && echo *.deb))"

# --- 3. apt install ------------------------------------------------------
R=$OUT/root
mkdir -p "$R"
say "unpacking the root"
timeout 600 tar -C "$R" --zstd -xf "$IC/bookworm-arm64.tar.zst"
krel=$(ls "$R/lib/modules" | sort -V | tail -n 1)
if [ "$(ls "$R/lib/modules" | wc -l)" -ne 1 ] || [ ! -e "$R/usr/src/linux-headers-$krel/Makefile" ]; then
	fail "kernel: $(ls "$R/lib/modules"), headers: $(ls "$R/usr/src")"
	finish
fi
say "kernel $krel (linux-image-arm64 and linux-headers-arm64)"
mkdir -p "$R/var/tmp/rig-debs"
cp "$DEB"/*.deb "$R/var/tmp/rig-debs/"
chroot_up "$R"
say "apt install ./kmemprof-dkms ./kmemprof-tools (DKMS builds under qemu-user)"
set +e
{
	echo "# $(date -u +%FT%TZ) in a Debian $SUITE arm64 root (chroot through qemu-user)"
	echo "# uname -m: $(in_root "$R" 60 uname -m); kernel packages:"
	in_root "$R" 60 dpkg-query -W 'linux-image-[0-9]*' 'linux-headers-[0-9]*' dkms
	echo "# apt install ./$(cd "$DEB" && ls kmemprof-dkms_*.deb) ./$(cd "$DEB" && ls kmemprof-tools_*.deb)"
	in_root "$R" 600 apt-get update -qq
	# openssl first, so that DKMS can make its MOK key and sign the module
	# (install.rst, "Signing for Secure Boot: MOK").
	echo "# apt install openssl"
	in_root "$R" 600 apt-get install -y -qq openssl
	in_root "$R" 1800 sh -c 'cd /var/tmp/rig-debs && apt-get install -y ./kmemprof-dkms_*.deb ./kmemprof-tools_*_arm64.deb'
	echo "# exit status: $?"
	echo "# dkms status"
	in_root "$R" 60 dkms status
	echo "# modinfo -k $krel kmemprof"
	in_root "$R" 60 modinfo -k "$krel" kmemprof
	echo "# ls -l /var/lib/dkms"
	in_root "$R" 60 ls -l /var/lib/dkms
} > "$OUT/apt-install.log" 2>&1
set -e
if grep -q '^# exit status: 0$' "$OUT/apt-install.log" &&
   ls "$R/lib/modules/$krel/updates/dkms/kmemprof.ko"* >/dev/null 2>&1; then
	pass "apt-install (DKMS built $(cd "$R/lib/modules/$krel" && ls updates/dkms/kmemprof.ko*))"
else
	fail "apt-install: $(tail -n 8 "$OUT/apt-install.log" | tr '\n' ' ')"
	finish
fi
rm -rf "$R/var/tmp/rig-debs"
if [ "$(in_root "$R" 60 modinfo -k "$krel" -F signer kmemprof)" = "DKMS module signing key" ]; then
	pass "dkms-signed (signer: DKMS module signing key, /var/lib/dkms/mok.key)"
else
	fail "dkms-signed: modinfo -F signer: '$(in_root "$R" 60 modinfo -k "$krel" -F signer kmemprof)'"
fi

# The guest: no network, no login on the console; the checks at boot.
echo "kmemprof-guest" > "$R/etc/hostname"
echo "/dev/vda / ext4 defaults 0 1" > "$R/etc/fstab"
install -m 0755 "$TOP/tests/install/guest-check.sh" "$R/usr/local/sbin/rig-check"
install -m 0644 "$TOP/tests/install/rig-check.service" "$R/etc/systemd/system/"
in_root "$R" 60 systemctl enable rig-check.service >/dev/null 2>&1
in_root "$R" 60 systemctl mask serial-getty@ttyAMA0.service getty@tty1.service \
	systemd-timesyncd.service apt-daily.timer apt-daily-upgrade.timer \
	e2scrub_all.timer fstrim.timer >/dev/null 2>&1 || true
# The user's choice: load kmemprof at every boot with systemd-modules-load.
sed -i 's/^#kmemprof$/kmemprof/' "$R/etc/modules-load.d/kmemprof.conf"
grep -qx kmemprof "$R/etc/modules-load.d/kmemprof.conf" ||
	{ fail "modules-load.d: no line to uncomment in /etc/modules-load.d/kmemprof.conf"; finish; }
chroot_down "$R"
cp "$R/boot/vmlinuz-$krel" "$OUT/vmlinuz"
cp "$R/boot/initrd.img-$krel" "$OUT/initrd-1"

# --- 4. the image and the boots ---------------------------------------------
IMG=$OUT/disk.img
size=$(( $(du -sm "$R" | cut -f1) + 1024 ))
say "mkfs.ext4 -d: ${size} MiB"
timeout 600 mkfs.ext4 -q -F -L root -d "$R" "$IMG" "${size}M"
rm -rf "$R"

boot() { # boot PHASE INITRD
	local log=$OUT/console-$1.log lock=()
	[ -n "$QLOCK" ] && lock=(flock -w 3600 "$QLOCK")
	say "boot $1 (qemu-system-aarch64, TCG)"
	"${lock[@]}" timeout 1500 qemu-system-aarch64 -M virt -cpu cortex-a76 \
		-smp 2 -m 2048 -nographic -no-reboot -nic none \
		-kernel "$OUT/vmlinuz" -initrd "$2" \
		-append "root=/dev/vda rw console=ttyAMA0 rig.phase=$1" \
		-drive "file=$IMG,format=raw,if=virtio" \
		> "$log" 2>&1 < /dev/null || true
	tr -d '\r' < "$log" > "$log.tmp" && mv "$log.tmp" "$log"
	grep -q '^RIG done' "$log" || fail "boot-$1: no 'RIG done' on the console (tail: $(tail -n 5 "$log" | tr '\n' ' '))"
	while read -r _ what rest; do
		case $what in
		ok) pass "guest$1/$rest" ;;
		FAIL) fail "guest$1/$rest" ;;
		esac
	done < <(grep -E '^RIG (ok|FAIL) ' "$log")
	grep '^RIG data ' "$log" | tee -a "$LOG" || true
}

boot 1 "$OUT/initrd-1"
# The initrd update-initramfs made in the guest, as its next boot takes it.
rm -f "$OUT/initrd-2"
timeout 120 debugfs -R "dump /boot/initrd.img-$krel $OUT/initrd-2" "$IMG" >/dev/null 2>&1 || true
if [ -s "$OUT/initrd-2" ] && ! cmp -s "$OUT/initrd-1" "$OUT/initrd-2"; then
	pass "initrd-updated-in-guest"
	boot 2 "$OUT/initrd-2"
else
	fail "initrd-updated-in-guest: /boot/initrd.img-$krel did not change"
fi
rm -f "$IMG"
finish
