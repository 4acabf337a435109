#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The build's own scripts, on the host, in a second or two:
#   - make board without headers says what to install (tools/kdir-check.sh);
#   - make KDIR= on a distribution's headers unpacked away from /usr/src,
#     or with build tools of another architecture, says what it needs;
#   - tools/rig/deps.sh finds busybox where Debian 13's busybox-static
#     puts it (./usr/bin) as well as Debian 12's (./bin).
# The real headers packages are tools/rig/distro.sh's (make check-distro).
# Prints 'P F S' last.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
p=0 f=0

# expect NAME RC-WANT RC-GOT OUTPUT PATTERN...: the exit status, and each
# fixed string in the output.
expect() {
	local name=$1 want=$2 rc=$3 out=$4 s
	shift 4
	if [ "$rc" != "$want" ]; then
		echo "recipes: $name: exit $rc, want $want"
		echo "$out" | sed 's/^/    /' | tail -n 5
		f=$((f + 1))
		return
	fi
	for s in "$@"; do
		if ! grep -qF -- "$s" <<< "$out"; then
			echo "recipes: $name: no '$s' in:"
			echo "$out" | sed 's/^/    /' | tail -n 5
			f=$((f + 1))
			return
		fi
	done
	p=$((p + 1))
}

# make board on a machine without the running kernel's headers.
out=$(make -s -C "$TOP" board BOARD_KDIR="$T/lib/modules/9.9.9-test/build" 2>&1)
expect "make board without headers" 2 $? "$out" \
	"board: no prepared kernel tree at $T/lib/modules/9.9.9-test/build" \
	"install the headers of the running kernel: linux-headers-9.9.9-test"

# A Debian headers tree unpacked into $T/root: its Makefile still includes
# the common tree from /usr/src.
H=$T/root/usr/src/linux-headers-9.9.9-test-arm64
mkdir -p "$H" "$T/root/usr/src/linux-headers-9.9.9-test-common" \
	"$T/root/usr/lib/linux-kbuild-9.9/scripts/basic"
echo "include /usr/src/linux-headers-9.9.9-test-common/Makefile" > "$H/Makefile"
touch "$T/root/usr/src/linux-headers-9.9.9-test-common/Makefile"
ln -s ../../lib/linux-kbuild-9.9/scripts "$H/scripts"
out=$(make -s -C "$TOP" KDIR="$H" 2>&1)
expect "headers away from /usr/src" 2 $? "$out" \
	"includes /usr/src/linux-headers-9.9.9-test-common/Makefile, which is not there" \
	"sed -i 's|^include /usr/src/|include $T/root/usr/src/|' $H/Makefile"

# The same, its include fixed, with build tools for another architecture
# (an ELF header the host cannot run: Exec format error).
sed -i "s|^include /usr/src/|include $T/root/usr/src/|" "$H/Makefile"
printf '\177ELF\002\001\001\000' > "$T/root/usr/lib/linux-kbuild-9.9/scripts/basic/fixdep"
chmod +x "$T/root/usr/lib/linux-kbuild-9.9/scripts/basic/fixdep"
host=$(dpkg --print-architecture 2>/dev/null || uname -m)
out=$(make -s -C "$TOP" KDIR="$H" 2>&1)
expect "build tools of another architecture" 2 $? "$out" \
	"build tools do not run on this $host machine" \
	"apt-get download linux-kbuild-9.9:$host"

# deps.sh on a Debian 13 host: busybox-static has ./usr/bin/busybox. apt
# and dpkg-query are stubs: everything is installed, and the one package
# fetched is a made-up busybox-static.
C=$T/cache
mkdir -p "$T/bin" "$C/apt-arm64/lists" "$C/guest/sysroot" "$T/pkg/usr/bin" "$T/pkg/DEBIAN"
touch "$C/apt-arm64/lists/some_Packages"
printf '#!/bin/sh\necho "install ok installed"\n' > "$T/bin/dpkg-query"
cat > "$T/bin/apt-get" <<STUB
#!/bin/sh
# apt-get download busybox-static:arm64, into the current directory
[ "\$1" = download ] || [ "\$2" = download ] || exit 0
cp "$T/busybox-static_1.37.0-6_arm64.deb" .
STUB
chmod +x "$T/bin/dpkg-query" "$T/bin/apt-get"
printf '#!/bin/sh\necho busybox from usr/bin\n' > "$T/pkg/usr/bin/busybox"
chmod +x "$T/pkg/usr/bin/busybox"
printf 'Package: busybox-static\nVersion: 1.37.0-6\nArchitecture: arm64\nMaintainer: t <t@t>\nDescription: t\n' \
	> "$T/pkg/DEBIAN/control"
dpkg-deb -Zgzip --build "$T/pkg" "$T/busybox-static_1.37.0-6_arm64.deb" > /dev/null
# numfmt, the sysroot and stress-ng are there already: only busybox is
# fetched (apt-cache gives stress-ng's version, which its stamp holds).
printf '#!/bin/sh\necho "Version: 9.9-1"\n' > "$T/bin/apt-cache"
chmod +x "$T/bin/apt-cache"
mkdir -p "$C/guest/stress-ng"
echo 9.9-1 > "$C/guest/stress-ng/.version"
echo numfmt > "$C/guest/numfmt"
chmod +x "$C/guest/numfmt"
sed -n '/^SYSROOT_PKGS="/,/"$/p' "$TOP/tools/rig/deps.sh" > "$T/pkgs.sh"
(. "$T/pkgs.sh" && echo "$SYSROOT_PKGS") > "$C/guest/sysroot/.pkgs"
out=$(PATH=$T/bin:$PATH KMEMPROF_CACHE=$C "$TOP/tools/rig/deps.sh" 2>&1)
rc=$?
out="$out
$(cat "$C/guest/busybox" 2>&1)"
expect "deps.sh, busybox in ./usr/bin" 0 $rc "$out" \
	"deps: busybox from busybox-static_1.37.0-6_arm64.deb" \
	"echo busybox from usr/bin"

echo "$p $f 0"
