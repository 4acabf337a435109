#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the host packages the rig needs, and fetch an arm64 busybox.
# Idempotent: does nothing when everything is already present.
set -euo pipefail

CACHE=${KMEMPROF_CACHE:-$HOME/.cache/kmemprof}

PKGS="make gcc bc bison flex cpio kmod xz-utils python3 rsync
      libssl-dev libelf-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      qemu-system-arm linux-source-6.1 linux-source-6.12 sparse"

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

# busybox for the guest: busybox-static:arm64, fetched through a private
# apt configuration so nothing under /etc changes.
BB=$CACHE/busybox/busybox
if [ ! -x "$BB" ]; then
	apt_dir=$CACHE/apt-arm64
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" \
		"$CACHE/busybox"
	cat > "$apt_dir/apt.conf" <<CONF
APT::Architectures { "amd64"; "arm64"; };
Dir::State::Lists "$apt_dir/lists";
Dir::Cache "$apt_dir";
Dir::State::status "/var/lib/dpkg/status";
CONF
	export APT_CONFIG=$apt_dir/apt.conf
	apt-get update -qq
	(cd "$CACHE/busybox" && apt-get download -qq busybox-static:arm64)
	deb=$(ls "$CACHE"/busybox/busybox-static_*_arm64.deb | head -n 1)
	dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./bin/busybox > "$BB.tmp"
	chmod +x "$BB.tmp"
	mv "$BB.tmp" "$BB"
	echo "deps: busybox from $(basename "$deb")"
fi
