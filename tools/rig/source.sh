#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Find the kernel source tarball for one version of the matrix.
#
#   tools/rig/source.sh 6.12   # prints "PACKAGE-VERSION TARBALL"
#
# 6.1 and 6.12 are Debian 12's own linux-source packages (deps.sh installs
# them). Other versions come from other Debian suites through a private apt
# configuration under $KMEMPROF_CACHE, so nothing under /etc changes:
#   5.10   linux-source-5.10 from bullseye-security
#   7.x    the newest linux-source-7.* in sid
# The .deb is downloaded once per package version and its tarball kept.
set -euo pipefail

VER=${1:?usage: source.sh VERSION}
CACHE=${KMEMPROF_CACHE:-$HOME/.cache/kmemprof}

if pkgver=$(dpkg-query -W -f='${Version}' "linux-source-$VER" 2>/dev/null) &&
	[ -f "/usr/src/linux-source-$VER.tar.xz" ]; then
	echo "$pkgver /usr/src/linux-source-$VER.tar.xz"
	exit 0
fi

A=$CACHE/apt-src
case "$VER" in
5.10) suite="http://deb.debian.org/debian-security bullseye-security" ;;
7.x) suite="http://deb.debian.org/debian sid" ;;
*) echo "source: no suite known for $VER" >&2; exit 1 ;;
esac
mkdir -p "$A/lists/partial" "$A/archives/partial" "$CACHE/debs"
cat > "$A/sources.list" <<LIST
deb http://deb.debian.org/debian-security bullseye-security main
deb http://deb.debian.org/debian sid main
LIST
cat > "$A/apt.conf" <<CONF
APT::Sandbox::User "root";
Dir::State::Lists "$A/lists";
Dir::Cache "$A";
Dir::Etc::SourceList "$A/sources.list";
Dir::Etc::SourceParts "/nonexistent";
Dir::State::status "/var/lib/dpkg/status";
CONF
export APT_CONFIG=$A/apt.conf
# Security updates move the version: refresh the lists once an hour, and
# go on with the old lists when the network is away.
if [ -z "$(find "$A/lists" -maxdepth 1 -name '*Packages*' -mmin -60)" ]; then
	apt-get update -qq 2>/dev/null || echo "source: apt-get update failed" >&2
fi

pkg=linux-source-$VER
if [ "$VER" = 7.x ]; then
	pkg=$(apt-cache pkgnames linux-source-7. | sort -V | tail -n 1)
	[ -n "$pkg" ] || { echo "source: no linux-source-7.* in sid" >&2; exit 1; }
fi
pkgver=$(apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p')
[ -n "$pkgver" ] && [ "$pkgver" != "(none)" ] ||
	{ echo "source: $pkg not found in $suite" >&2; exit 1; }
tarball=$CACHE/debs/$pkg-$pkgver.tar.xz
if [ ! -f "$tarball" ]; then
	echo "source: downloading $pkg $pkgver" >&2
	(cd "$CACHE/debs" && apt-get download -qq "$pkg=$pkgver")
	deb=$(ls "$CACHE/debs/${pkg}_"*.deb | head -n 1)
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xOf - "./usr/src/$pkg.tar.xz" > "$tarball.tmp"
	mv "$tarball.tmp" "$tarball"
	rm -f "$deb"
fi
echo "$pkgver $tarball"
