#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the host packages the rig needs, and fetch an arm64 busybox.
# Idempotent: does nothing when everything is already present.
set -euo pipefail

CACHE=${KMEMPROF_CACHE:-$HOME/.cache/kmemprof}

PKGS="make gcc bc bison flex cpio kmod xz-utils python3 rsync
      libssl-dev libelf-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      qemu-system-arm linux-source-6.1 linux-source-6.12 sparse libcmocka-dev
      pkg-config libdw-dev libprotobuf-c-dev protobuf-c-compiler
      protobuf-compiler zlib1g-dev jq libxml2-utils librsvg2-bin clang
      libncurses-dev python3-prometheus-client
      libmicrohttpd-dev libyaml-dev libcrypt-dev openssl prometheus golang-go
      curl dwarves groff-base bsdutils
      debhelper dh-dkms dkms lintian device-tree-compiler fakeroot"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
fi

# Guest programs from Debian's arm64 packages, fetched through a private
# apt configuration so nothing under /etc changes: busybox, and coreutils'
# numfmt (dynamic; the guest gets libc from libc6-arm64-cross).
G=$CACHE/guest
arm64_get() { # arm64_get PACKAGE "PATH-IN-PACKAGE..." DEST: the first path there
	local apt_dir=$CACHE/apt-arm64 deb path
	[ -x "$3" ] && return 0
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$G"
	cat > "$apt_dir/apt.conf" <<CONF
APT::Architectures { "amd64"; "arm64"; };
APT::Sandbox::User "root";
Dir::State::Lists "$apt_dir/lists";
Dir::Cache "$apt_dir";
Dir::State::status "/var/lib/dpkg/status";
CONF
	[ -n "$(ls "$apt_dir/lists" 2>/dev/null | grep -v partial)" ] ||
		APT_CONFIG=$apt_dir/apt.conf apt-get update -qq
	rm -f "$G/$1"_*.deb
	(cd "$G" && APT_CONFIG=$apt_dir/apt.conf apt-get download -qq "$1:arm64")
	deb=$(ls "$G/$1"_*_arm64.deb | head -n 1)
	path=$(dpkg-deb -c "$deb" | awk '{ print $6 }' |
		grep -Fx -f <(printf '%s\n' $2) | head -n 1)
	[ -n "$path" ] || { echo "deps: none of $2 in $(basename "$deb")" >&2; return 1; }
	dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "$path" > "$3.tmp"
	chmod +x "$3.tmp"
	mv "$3.tmp" "$3"
	echo "deps: $(basename "$3") from $(basename "$deb")"
}
# busybox-static has it in ./bin up to Debian 12, in ./usr/bin from 13.
arm64_get busybox-static "./bin/busybox ./usr/bin/busybox" "$G/busybox"
arm64_get coreutils "./usr/bin/numfmt ./bin/numfmt" "$G/numfmt"

# A sysroot for the guest's dynamic reader, the one with serve and pprof
# (tests/qemu/run.sh builds it as kmemprof-serve): libmicrohttpd with its
# GnuTLS chain, protobuf-c and zlib, libraries and -dev files, unpacked
# from Debian's arm64 packages into $G/sysroot.
SYSROOT_PKGS="libmicrohttpd12 libmicrohttpd-dev libgnutls30 libgmp10
	      libhogweed6 libnettle8 libidn2-0 libunistring2 libp11-kit0
	      libtasn1-6 libffi8 libprotobuf-c1 libprotobuf-c-dev zlib1g
	      zlib1g-dev"
arm64_sysroot() {
	local apt_dir=$CACHE/apt-arm64 dir=$G/debs p deb
	[ "$(cat "$G/sysroot/.pkgs" 2>/dev/null)" = "$SYSROOT_PKGS" ] &&
		return 0
	rm -rf "$G/sysroot" "$dir"
	mkdir -p "$G/sysroot" "$dir"
	for p in $SYSROOT_PKGS; do
		(cd "$dir" &&
		 APT_CONFIG=$apt_dir/apt.conf apt-get download -qq "$p:arm64")
	done
	for deb in "$dir"/*.deb; do
		dpkg-deb -x "$deb" "$G/sysroot"
	done
	rm -rf "$dir"
	# A dynamic link needs neither GnuTLS's .pc (Requires.private) nor
	# an absolute libz.so link into the host's /lib.
	sed -i '/^Requires.private:/d' \
		"$G/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig/libmicrohttpd.pc"
	ln -sf ../../../lib/aarch64-linux-gnu/libz.so.1 \
		"$G/sysroot/usr/lib/aarch64-linux-gnu/libz.so"
	echo "$SYSROOT_PKGS" > "$G/sysroot/.pkgs"
	echo "deps: arm64 sysroot for kmemprof-serve in $G/sysroot"
}
arm64_sysroot

# stress-ng for the guest's third-party load (tests/integration/69-stress-ng.sh,
# issue 38): Debian's arm64 package and every package it depends on, found
# by apt through the private configuration (apt-cache depends --recurse),
# fetched as .debs and unpacked into $G/stress-ng. The C library is left
# out: the guest has the cross toolchain's (libc6-arm64-cross, the same
# glibc 2.36 as bookworm's libc6), which tests/qemu/run.sh copies. run.sh
# copies stress-ng and the libraries it needs (DT_NEEDED, recursively)
# into the initramfs only for a boot that runs that test. About 6 MB of
# packages; the stamp is stress-ng's version, so a new one is fetched anew.
arm64_stressng() {
	local apt_dir=$CACHE/apt-arm64 dir=$G/stress-ng.debs ver pkgs deb
	ver=$(APT_CONFIG=$apt_dir/apt.conf apt-cache show --no-all-versions \
		stress-ng:arm64 2>/dev/null | sed -n 's/^Version: //p')
	[ -n "$ver" ] || { echo "deps: no stress-ng:arm64 in the lists" >&2; return 1; }
	[ "$(cat "$G/stress-ng/.version" 2>/dev/null)" = "$ver" ] && return 0
	pkgs=$(APT_CONFIG=$apt_dir/apt.conf apt-cache depends --recurse \
		--no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances --no-pre-depends stress-ng:arm64 |
		grep -v -e '^ ' -e '^<' | sort -u |
		grep -v -E '^(libc6|libgcc-s1|gcc-12-base|libc6-dev)(:arm64)?$')
	rm -rf "$G/stress-ng" "$dir"
	mkdir -p "$G/stress-ng" "$dir"
	(cd "$dir" && APT_CONFIG=$apt_dir/apt.conf apt-get download -qq $pkgs) ||
		{ echo "deps: cannot fetch stress-ng:arm64 and its libraries" >&2; return 1; }
	for deb in "$dir"/*.deb; do
		dpkg-deb -x "$deb" "$G/stress-ng"
	done
	rm -rf "$dir" "$G/stress-ng/usr/share"
	[ -x "$G/stress-ng/usr/bin/stress-ng" ] ||
		{ echo "deps: no usr/bin/stress-ng in stress-ng:arm64" >&2; return 1; }
	echo "$ver" > "$G/stress-ng/.version"
	echo "deps: stress-ng $ver for the guest in $G/stress-ng ($(echo $pkgs | wc -w) packages)"
}
arm64_stressng
