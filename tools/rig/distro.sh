#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-distro: kmemprof on Debian's own prebuilt arm64 kernels.
#
#   tools/rig/distro.sh [6.1|6.12 ...]     (default: both)
#
# For each, bookworm-security's newest linux-image-6.1.0-N-arm64 or
# linux-image-6.12.*+deb12-arm64 is fetched with its headers, the common
# headers and the amd64 linux-kbuild, through the private apt configuration
# in $KMEMPROF_CACHE/apt-arm64 (the one tools/rig/deps.sh uses; nothing
# under /etc changes), into $KMEMPROF_CACHE/distro/RELEASE. kmemprof is
# built against the headers the way Documentation/building.rst tells a user
# (unpack with dpkg -x, point the headers' Makefile at the common tree,
# make KDIR=...), installed with make install into a staging root, and the
# kernel image is booted as it is: Debian's kernel is modular, so the
# guest's initramfs carries the image's own virtio-mmio and 9p modules
# (tests/qemu/init loads them first). Every guest test runs
# (tests/integration/[0-9]*.sh, or TESTS); there is no KUnit on these
# kernels, and the tests skip where the kernel lacks what they need.
#
# Prints one line per suite, as make check does. TALLY=FILE appends the
# counts there (tools/rig/check.sh, for KERNELS=debian-6.1); without it
# the script prints its own 'N passed, N failed' and exits non-zero when
# anything failed.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${KMEMPROF_CACHE:-$HOME/.cache/kmemprof}
VERS=${*:-6.1 6.12}
TESTS=$(echo "${TESTS:-}" | tr ', ' '  ')
OUT=$TOP/.build/distro
own_tally=
if [ -z "${TALLY:-}" ]; then
	mkdir -p "$OUT"
	TALLY=$OUT/tally
	: > "$TALLY"
	own_tally=1
fi
start=$(date +%s)

fail_suite() {
	echo "FAIL $1"
	shift
	printf '     %s\n' "$@"
	echo "0 1 0" >> "$TALLY"
}
pass_suite() {
	echo "PASS $1"
	echo "1 0 0" >> "$TALLY"
}

# The private apt configuration, as deps.sh writes it, with lists no older
# than an hour: security updates replace the packages (the old ones go
# from the archive). Without the network, the old lists are used.
A=$CACHE/apt-arm64
mkdir -p "$A/lists/partial" "$A/archives/partial"
cat > "$A/apt.conf" <<CONF
APT::Architectures { "amd64"; "arm64"; };
APT::Sandbox::User "root";
Dir::State::Lists "$A/lists";
Dir::Cache "$A";
Dir::State::status "/var/lib/dpkg/status";
CONF
export APT_CONFIG=$A/apt.conf
if [ -z "$(find "$A/lists" -maxdepth 1 -name '*security*Packages*' -mmin -60)" ]; then
	apt-get update -qq 2>/dev/null || echo "distro: apt-get update failed, using the old lists" >&2
fi

# pkg_dep PACKAGE PATTERN: the name of PACKAGE's dependency matching PATTERN.
pkg_dep() {
	apt-cache show --no-all-versions "$1" | sed -n 's/^Depends: //p' |
		tr ',|' '\n\n' | sed 's/^ *//; s/ .*//' | grep -E "$2" | head -n 1
}

# prepare VER: fetch and unpack one kernel; sets REL, D, H (the headers).
prepare() {
	local pat img ver common kbuild p deb t
	case "$1" in
	6.1) pat='^linux-image-6\.1\.0-[0-9]+-arm64$' ;;
	6.12) pat='^linux-image-6\.12\.[0-9]+\+deb12-arm64$' ;;
	*) echo "distro: no Debian kernel known for $1 (6.1, 6.12)"; return 1 ;;
	esac
	img=$(apt-cache pkgnames linux-image-6. | grep -E "$pat" | sort -V | tail -n 1)
	[ -n "$img" ] || { echo "distro: no $pat in the lists"; return 1; }
	REL=${img#linux-image-}
	ver=$(apt-cache show --no-all-versions "$img:arm64" | sed -n 's/^Version: //p')
	common=$(pkg_dep "linux-headers-$REL:arm64" '^linux-headers-.*-common$')
	kbuild=$(pkg_dep "linux-headers-$REL:arm64" '^linux-kbuild-')
	D=$CACHE/distro/$REL
	H=$D/root/usr/src/linux-headers-$REL
	# The modules the guest loads at boot: virtio-mmio and 9p to mount
	# the share, and zram (with zsmalloc) for 69-stress-ng's swap, which
	# the rig's kernels have built in. The stamp holds the list too.
	local boot="virtio_mmio 9pnet_virtio 9p zram"
	if [ "$(cat "$D/.stamp" 2>/dev/null)" = "$ver $boot" ]; then
		return 0
	fi
	echo "distro: fetching $img $ver, linux-headers-$REL, $common, $kbuild:amd64"
	t=$(date +%s)
	rm -rf "$D"
	mkdir -p "$D/debs" "$D/root" "$D/boot-modules"
	(cd "$D/debs" && apt-get download -qq "$img:arm64=$ver" \
		"linux-headers-$REL:arm64=$ver" "$common=$ver" "$kbuild:amd64") ||
		{ echo "distro: apt-get download failed"; return 1; }
	# The recipe of Documentation/building.rst: the three headers
	# packages unpacked into one root, the headers' Makefile pointed at
	# the common tree there instead of /usr/src.
	for p in "linux-headers-$REL" "$common" "$kbuild"; do
		dpkg -x "$D/debs/${p}_"*.deb "$D/root" || return 1
	done
	sed -i "s|^include /usr/src/|include $D/root/usr/src/|" "$H/Makefile"
	# From the image: the kernel as it is, and the modules the guest needs
	# before it can mount the 9p share, with what they depend on.
	deb=$(ls "$D/debs/${img}_"*.deb)
	dpkg-deb -c "$deb" | awk '{ print $NF }' | grep '\.ko' > "$D/modules.list"
	dpkg-deb --fsys-tarfile "$deb" | tar -xf - -C "$D" "./boot/vmlinuz-$REL" ||
		return 1
	local want=$boot done_='' m d path
	: > "$D/boot-modules/edges"
	while [ -n "$want" ]; do
		set -- $want
		m=$1
		shift
		want="$*"
		case " $done_ " in *" $m "*) continue ;; esac
		path=$(grep -E "/$(echo "$m" | sed 's/[-_]/[-_]/g')\.ko(\.xz|\.zst|\.gz)?$" "$D/modules.list" | head -n 1)
		[ -n "$path" ] || { echo "distro: $m not in $img"; return 1; }
		dpkg-deb --fsys-tarfile "$deb" | tar -xf - -C "$D" "$path" || return 1
		case "$path" in
		*.xz) xz -dc "$D/$path" > "$D/boot-modules/$m.ko" ;;
		*.zst) zstd -qdc "$D/$path" > "$D/boot-modules/$m.ko" ;;
		*.gz) gzip -dc "$D/$path" > "$D/boot-modules/$m.ko" ;;
		*) cp "$D/$path" "$D/boot-modules/$m.ko" ;;
		esac
		done_="$done_ $m"
		echo "$m $m" >> "$D/boot-modules/edges"
		for d in $(modinfo -F depends "$D/boot-modules/$m.ko" | tr , ' '); do
			echo "$d $m" >> "$D/boot-modules/edges"
			want="$want $d"
		done
	done
	# The order they load in: each after what it depends on.
	tsort "$D/boot-modules/edges" | sed 's/$/.ko/' > "$D/boot-modules/order"
	rm "$D/boot-modules/edges"
	rm -rf "${D:?}/lib"
	echo "$ver $boot" > "$D/.stamp"
	echo "distro: fetched and unpacked in $(($(date +%s) - t))s"
}

# build: the user's build, then the guest tests' helper modules.
build() {
	local src=$1 tests=${2:-}
	rm -rf "$src"
	mkdir -p "$src"
	rsync -a --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
		--exclude='*.mod*' --exclude='modules.order' --exclude='Module.symvers' \
		"$TOP/Makefile" "$TOP/Kbuild" "$TOP/module" "$TOP/include" \
		"$TOP/tests" "$TOP/tools" "$src/"
	make -C "$src" KDIR="$H" ${tests:+KMEMPROF_TESTS=m}
}

for v in $VERS; do
	t0=$(date +%s)
	label=debian-$v
	o=$OUT/$v
	mkdir -p "$o"
	if ! prepare "$v" > "$o/prepare.log" 2>&1; then
		fail_suite "$label/fetch" "$(tail -n 20 "$o/prepare.log")"
		continue
	fi
	sed 's/^/     /' "$o/prepare.log"
	label="$label ($REL)"
	if ! build "$o/src" > "$o/build.log" 2>&1; then
		fail_suite "$label/build" "$(tail -n 30 "$o/build.log")"
		continue
	fi
	pass_suite "$label/build (make KDIR=.../linux-headers-$REL)"
	# make install against the headers: into a staging root, quietly,
	# with a word on the signing key Debian keeps to itself.
	rm -rf "$o/staging"
	make -C "$o/src" install KDIR="$H" INSTALL_MOD_PATH="$o/staging" \
		> "$o/install.log" 2>&1
	rc=$?
	# Installed compressed where the tree says so (Debian's 6.12: .ko.xz).
	if [ $rc -ne 0 ] ||
		! ls "$o/staging/lib/modules/$REL/extra/kmemprof.ko"* > /dev/null 2>&1 ||
		! grep -Eq '^extra/kmemprof\.ko(\.xz|\.zst|\.gz)?:' "$o/staging/lib/modules/$REL/modules.dep" ||
		grep -Eqi 'ssl|sign-file|error' "$o/install.log" ||
		! grep -q 'not signed' "$o/install.log"; then
		fail_suite "$label/install" "$(tail -n 20 "$o/install.log")"
	else
		pass_suite "$label/install (make install INSTALL_MOD_PATH=..., unsigned, said so)"
	fi
	# Signed with a key of one's own (Documentation/building.rst, Signed,
	# for Secure Boot): a throw-away key, the tree's sign-file.
	rm -rf "$o/staging-signed"
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 2 -outform DER \
		-keyout "$o/MOK.priv" -out "$o/MOK.der" \
		-subj "/CN=kmemprof check-distro/" > "$o/sign.log" 2>&1
	make -C "$o/src" install KDIR="$H" INSTALL_MOD_PATH="$o/staging-signed" \
		SIGN_KEY="$o/MOK.priv" SIGN_CERT="$o/MOK.der" >> "$o/sign.log" 2>&1
	ko=$(ls "$o/staging-signed/lib/modules/$REL/extra/kmemprof.ko"* 2>/dev/null)
	case "$ko" in
	*.xz) cat="xz -dc" ;; *.zst) cat="zstd -qdc" ;; *.gz) cat="gzip -dc" ;; *) cat="cat" ;;
	esac
	if [ "$(modinfo -F signer "$ko" 2>&1)" = "kmemprof check-distro" ] &&
		[ "$($cat "$ko" 2>/dev/null | tail -c 28)" = "~Module signature appended~" ] &&
		! grep -Eqi 'ssl|error' "$o/sign.log"; then
		pass_suite "$label/sign (make install SIGN_KEY= SIGN_CERT=)"
	else
		fail_suite "$label/sign" "$(tail -n 20 "$o/sign.log")" \
			"signer: $(modinfo -F signer "$ko" 2>&1)"
	fi
	if ! build "$o/src-tests" tests > "$o/build-tests.log" 2>&1; then
		fail_suite "$label/build-tests" "$(tail -n 30 "$o/build-tests.log")"
		continue
	fi
	# The guest boots the user's kmemprof.ko and the test build's helpers.
	rm -rf "$o/mods" "$o/extra"
	mkdir -p "$o/mods" "$o/extra"
	cp "$o/src/module/kmemprof.ko" "$o/mods/"
	find "$o/src-tests/tests" -name '*.ko' ! -name '*_test.ko' -exec cp {} "$o/mods/" \;
	cp -r "$D/boot-modules" "$o/extra/boot-modules"
	want='' append=''
	for t in $TESTS; do
		t=${t%.sh}
		want=$want${want:+,}$t
	done
	[ -n "$want" ] && append="rigtests=$want"
	KMEMPROF_IMAGE=$D/boot/vmlinuz-$REL KMEMPROF_ROOT_EXTRA=$o/extra \
	KMEMPROF_TIMEOUT=${KMEMPROF_TIMEOUT:-1800} \
	KMEMPROF_APPEND="${KMEMPROF_APPEND:-} $append" \
		"$TOP/tests/qemu/run.sh" "debian-$v" check "$o/mods" "$o/guest"
	"$TOP/tools/rig/results.py" "$o/guest" "debian-$v" --tally "$TALLY" \
		--want "$want"
	echo "     (debian-$v: $(($(date +%s) - t0)) s)"
done

# The vendor-tree recipe's make install, with the board's release
# (Documentation/building.rst): against the rig's 6.1-vendor tree, where
# it is built, as if it were Radxa's 6.1.84-1-rk2410.
vendor_install() {
	local k=$CACHE/kernel-6.1-vendor rel=6.1.84-1-rk2410 o=$OUT/vendor H
	if [ ! -f "$k/.kmemprof-stamp" ]; then
		echo "     (no 6.1-vendor tree built: its KERNELRELEASE= install left out)"
		return
	fi
	H=$(cd "$k" && pwd -P)
	mkdir -p "$o"
	build "$o/src" > "$o/build.log" 2>&1 &&
		make -C "$o/src" install KDIR="$H" KERNELRELEASE=$rel \
			INSTALL_MOD_PATH="$o/staging" >> "$o/build.log" 2>&1
	if [ $? -eq 0 ] &&
		[ -f "$o/staging/lib/modules/$rel/extra/kmemprof.ko" ] &&
		grep -q '^extra/kmemprof.ko:' "$o/staging/lib/modules/$rel/modules.dep"; then
		pass_suite "6.1-vendor/install (make install KERNELRELEASE=$rel)"
	else
		fail_suite "6.1-vendor/install (KERNELRELEASE=$rel)" "$(tail -n 20 "$o/build.log")"
	fi
}
case " $VERS " in
*" 6.1 "*) [ -n "$TESTS" ] || vendor_install ;;
esac

if [ -n "$own_tally" ]; then
	read -r P F S < <(awk '{ p += $1; f += $2; s += $3 } END { print p+0, f+0, s+0 }' "$TALLY")
	echo "(make check-distro: $(($(date +%s) - start)) s)"
	if [ "$S" -gt 0 ]; then
		echo "$P passed, $F failed, $S skipped"
	else
		echo "$P passed, $F failed"
	fi
	[ "$F" -eq 0 ]
fi
