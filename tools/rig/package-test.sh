#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packaging suite: make deb, the packages' contents, lintian, a DKMS
# build of kmemprof-dkms against the rig's 6.12 tree, and make install
# into a staging root. One PASS/FAIL/SKIP line per check, then 'P F S'.
#
# Nothing is written to /usr/src, /var/lib/dkms or /lib/modules: DKMS gets
# its trees with --dkmstree, --sourcetree and --installtree, and make
# install gets INSTALL_MOD_PATH, all in a temporary directory.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
DEB=$TOP/.build/deb
KVER=${KVER:-6.12}
KARGS=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
T=$(mktemp -d /tmp/kmemprof-package.XXXXXX)
trap 'rm -rf "$T"' EXIT

P=0 F=0 S=0
pass() { echo "PASS $1"; P=$((P + 1)); }
fail() {
	echo "FAIL $1"
	shift
	[ $# -eq 0 ] || printf '     %s\n' "$@"
	F=$((F + 1))
}
finish() {
	echo "$P $F $S"
	[ "$F" -eq 0 ]
	exit
}

# The files of the work tree that a package is built from (see deb.sh).
tree_files() {
	if git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$TOP" ls-files --cached --others --exclude-standard -- "$@" |
			while read -r f; do [ -e "$TOP/$f" ] && echo "$f"; done
	else
		(cd "$TOP" && find "$@" -type f ! -name '*.o' ! -name '*.ko' \
			! -name '.*.cmd' ! -name '*.mod*' ! -name modules.order \
			! -name Module.symvers)
	fi
}

# The regular files and symlinks of a .deb, docs and man pages without
# their .gz (dh_compress compresses by size).
deb_files() {
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' |
		sed -E 's|^\./|/|; s@^(/usr/share/(doc|man)/.*)\.gz$@\1@' | sort
}

# --- versions ---------------------------------------------------------
ver=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version 2>/dev/null)
upstream=${ver%-*}
dkms_ver=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$TOP/dkms.conf")
mod_ver=$(sed -n 's/^MODULE_VERSION("\(.*\)");/\1/p' "$TOP"/module/*.c)
if [ -z "$ver" ]; then
	fail version "no version in debian/changelog"
elif [ "$dkms_ver" != "$upstream" ]; then
	fail version "dkms.conf has '$dkms_ver', debian/changelog '$ver'"
elif [ -n "$mod_ver" ] && [ "$mod_ver" != "$upstream" ]; then
	fail version "MODULE_VERSION is '$mod_ver', debian/changelog '$ver'"
else
	pass "version ($upstream${mod_ver:+, MODULE_VERSION too})"
fi
ver=${ver:-0}
upstream=${upstream:-0}

# --- make deb ---------------------------------------------------------
dkms_deb=$DEB/kmemprof-dkms_${ver}_all.deb
touch "$T/start"
t0=$(date +%s)
if make -s -C "$TOP" deb > "$T/deb.log" 2>&1; then
	tools_deb=$(find "$DEB" -maxdepth 1 -name "kmemprof-tools_${ver}_*.deb" | head -n 1)
	if [ -f "$dkms_deb" ] && [ -f "$tools_deb" ]; then
		pass "make-deb ($(($(date +%s) - t0)) s)"
	else
		fail make-deb "missing packages in $DEB:" "$(ls "$DEB")"
		finish
	fi
else
	fail make-deb "$(tail -n 20 "$T/deb.log")"
	finish
fi

# --- contents ---------------------------------------------------------
src=/usr/src/kmemprof-$upstream
{
	echo "$src/dkms.conf"
	tree_files module include | sed "s|^|$src/|"
	printf '/usr/share/doc/kmemprof-dkms/%s\n' changelog copyright install.rst \
		examples/kmemprof.conf
	# Loading at boot: both off until the user asks (install.rst).
	echo /etc/default/kmemprof
	echo /etc/modules-load.d/kmemprof.conf
	echo /usr/share/initramfs-tools/hooks/kmemprof
} | sort > "$T/want-dkms"
deb_files "$dkms_deb" > "$T/got-dkms"
if ! diff -u "$T/want-dkms" "$T/got-dkms" > "$T/diff-dkms"; then
	fail contents/kmemprof-dkms "$(tail -n +3 "$T/diff-dkms")"
else
	pass "contents/kmemprof-dkms ($(wc -l < "$T/got-dkms") files)"
fi
# Only the module's sources: no tests, tools, docs or build output.
leak=$(grep "^/usr/src/" "$T/got-dkms" |
	grep -E '/(tests|tools|Documentation|debian|dts)/|\.(o|ko|a|cmd|mod|mod\.c)$|/(modules\.order|Module\.symvers)$')
if [ -n "$leak" ]; then
	fail contents/dkms-sources-only "$leak"
else
	pass contents/dkms-sources-only
fi

printf '%s\n' /usr/bin/kmemprof /usr/share/man/man1/kmemprof.1 \
	/lib/systemd/system/kmemprof-serve.service \
	/usr/share/doc/kmemprof-tools/{changelog,copyright,README.md,kmemprof.rst,kmemprof-output.rst,install.rst} |
	sort > "$T/want-tools"
deb_files "$tools_deb" > "$T/got-tools"
if ! diff -u "$T/want-tools" "$T/got-tools" > "$T/diff-tools"; then
	fail contents/kmemprof-tools "$(tail -n +3 "$T/diff-tools")"
else
	pass "contents/kmemprof-tools ($(wc -l < "$T/got-tools") files)"
fi

# --- lintian ----------------------------------------------------------
if ! command -v lintian >/dev/null; then
	fail lintian "lintian is not installed (tools/rig/deps.sh)"
else
	lintian --fail-on error "$dkms_deb" "$tools_deb" > "$T/lintian.log" 2>&1
	rc=$?
	errors=$(grep -c '^E: ' "$T/lintian.log")
	warnings=$(grep -c '^W: ' "$T/lintian.log")
	if [ "$rc" -ne 0 ] || [ "$errors" -gt 0 ]; then
		fail lintian "$(grep -v '^running with root' "$T/lintian.log")"
	else
		pass "lintian (0 errors, $warnings warnings)"
	fi
fi

# --- the serve unit ----------------------------------------------------
# systemd-analyze verify, then the hardening: every option the unit
# promises, and systemd-analyze security's exposure score.
if ! command -v systemd-analyze >/dev/null; then
	fail systemd-unit "systemd-analyze is not installed (tools/rig/deps.sh)"
else
	mkdir -p "$T/tools-root"
	dpkg-deb -x "$tools_deb" "$T/tools-root"
	unit=$T/tools-root/lib/systemd/system/kmemprof-serve.service
	# Its ExecStart pointed at the package's binary, under the same name;
	# a parse warning is output with status 0, so any output fails it.
	mkdir -p "$T/unit"
	sed "s|/usr/bin/kmemprof|$T/tools-root/usr/bin/kmemprof|" "$unit" \
		> "$T/unit/kmemprof-serve.service" 2>/dev/null
	if ! out=$(systemd-analyze verify --man=no \
		"$T/unit/kmemprof-serve.service" 2>&1) || [ -n "$out" ]; then
		fail systemd-unit "systemd-analyze verify:" "$out"
	else
		missing=""
		for o in ProtectSystem=strict NoNewPrivileges=yes ProtectHome=yes \
			PrivateDevices=yes ProtectKernelTunables=yes \
			ProtectKernelModules=yes RestrictAddressFamilies= \
			SystemCallFilter=@system-service \
			"CapabilityBoundingSet=CAP_SETUID CAP_SETGID"; do
			grep -q "^$o" "$unit" || missing="$missing $o"
		done
		grep -q '^ExecStart=/usr/bin/kmemprof serve --listen 127\.0\.0\.1:' "$unit" ||
			missing="$missing ExecStart-on-loopback"
		if [ -n "$missing" ]; then
			fail systemd-unit "missing:$missing"
		else
			score=$(systemd-analyze security --offline=yes \
				--root="$T/tools-root" "$unit" 2>/dev/null |
				sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
			pass "systemd-unit (verify clean; exposure ${score:-?})"
		fi
	fi
fi

# --- dkms build against the rig tree -----------------------------------
if ! KDIR=$("$TOP/tools/rig/kernel.sh" "$KVER" 2> "$T/kernel.log"); then
	fail "dkms-build" "no $KVER kernel: $(tail -n 5 "$T/kernel.log")"
	fail "make-install" "no $KVER kernel"
	finish
fi
rel=$(cat "$KDIR/include/config/kernel.release")

# The vermagic the kernel accepts: the one it carries itself.
kernel_vm=
[ -f "$KDIR/vmlinux" ] &&
	kernel_vm=$(strings -a "$KDIR/vmlinux" | sed 's/ *$//' |
		awk -v r="$rel " 'index($0, r) == 1' | sort -u)
vermagic_ok() { # vermagic_ok KO
	local vm
	vm=$(modinfo -F vermagic "$1" 2>/dev/null | sed 's/ *$//')
	[ "${vm%% *}" = "$rel" ] || { echo "vermagic '$vm', release $rel"; return 1; }
	if [ -n "$kernel_vm" ] && ! grep -qxF "$vm" <<< "$kernel_vm"; then
		echo "vermagic '$vm' is not the kernel's ($kernel_vm)"
		return 1
	fi
	echo "$vm"
}
elf_kind() { # "ELF64 REL AArch64"
	LC_ALL=C readelf -h "$1" 2>/dev/null |
		awk '/Class:/ { c = $2 } /Type:/ { t = $2 } /Machine:/ { m = $2 }
		     END { print c, t, m }'
}
is_arm64_ko() { [ "$(elf_kind "$1")" = "ELF64 REL AArch64" ]; }

# The test build's code (module/Kbuild: KMEMPROF_TESTS) never reaches a
# module that is installed: no test_missing parameter, none of the KUnit
# suites' hooks (testhooks.c's, kmemprof_set_clock() among them, and the
# clock override behind it), and nothing exported for the suites from the
# module's other files (their functions stay, for the module's own use).
hooks_test=$(sed -n 's/^kmp_export_test_hook(\(.*\));$/\1/p' "$TOP"/module/testhooks.c)
hooks_all=$(sed -n 's/^kmp_export_test_hook(\(.*\));$/\1/p' "$TOP"/module/*.c)
no_test_code() { # no_test_code NAME KO
	local found
	found=$({
		modinfo -F parm "$2" 2>/dev/null |
			sed -n 's/^\(test_missing\):.*/parameter:\1/p'
		aarch64-linux-gnu-nm "$2" 2>/dev/null |
			awk -v test="$hooks_test kmp_clock_set kmp_test_missing" \
				-v all="$hooks_all" '
			BEGIN {
				n = split(test, a); for (i = 1; i <= n; i++) t[a[i]] = 1
				n = split(all, a); for (i = 1; i <= n; i++) x[a[i]] = 1
			}
			$NF in t { print "symbol:" $NF }
			$NF ~ /^__ksymtab_/ && substr($NF, 11) in x {
				print "export:" substr($NF, 11)
			}'
	} | sort -u)
	if [ -z "$hooks_test" ]; then
		fail "$1" "no kmp_export_test_hook() in module/testhooks.c"
	elif [ -n "$found" ]; then
		mapfile -t found < <(echo $found | fold -s -w 72)
		fail "$1" "$(basename "$2") has test code:" "${found[@]}"
	else
		pass "$1"
	fi
}

# dkms strips what it builds with 'strip': the cross one, for arm64.
mkdir -p "$T/bin"
ln -s "$(command -v aarch64-linux-gnu-strip)" "$T/bin/strip"
before=$(ls -A /var/lib/dkms 2>/dev/null)

# dkms_check NAME SOURCE-TREE [dkms add arguments...]: add, build for the
# rig kernel, install (no depmod: depmod -b on the staging root instead).
# SOURCE-TREE holds kmemprof-VERSION, or is where 'dkms add DIR' copies to.
dkms_check() {
	local name=$1 srctree=$2 d=$T/$1 ko vm t0
	shift 2
	local trees=(--dkmstree "$d/dkms" --sourcetree "$srctree"
		--installtree "$d/root/lib/modules")
	mkdir -p "$d/dkms" "$srctree" "$d/root/lib/modules/$rel"
	t0=$(date +%s)
	# sign_file: never sign (and never make a key in /var/lib/dkms).
	if ! { dkms add "$@" "${trees[@]}" &&
		env PATH="$T/bin:$PATH" "${KARGS[@]}" sign_file=/nonexistent \
			dkms build -m kmemprof -v "$upstream" -k "$rel" -a aarch64 \
			--kernelsourcedir "$KDIR" "${trees[@]}" &&
		dkms install -m kmemprof -v "$upstream" -k "$rel" -a aarch64 \
			--kernelsourcedir "$KDIR" --no-depmod "${trees[@]}" &&
		depmod -b "$d/root" "$rel"; } > "$d/dkms.log" 2>&1; then
		fail "$name" "$(grep -v '^$' "$d/dkms.log" | tail -n 15)" \
			"$(tail -n 15 "$d"/dkms/kmemprof/*/build/make.log 2>/dev/null)"
		return
	fi
	ko=$d/dkms/kmemprof/$upstream/$rel/aarch64/module/kmemprof.ko
	if [ ! -f "$ko" ]; then
		fail "$name" "no kmemprof.ko:" "$(find "$d/dkms" -name '*.ko*')"
	elif ! is_arm64_ko "$ko"; then
		fail "$name" "not an arm64 module: $(elf_kind "$ko")"
	elif ! vm=$(vermagic_ok "$ko"); then
		fail "$name" "$vm"
	elif ! grep -qx 'updates/dkms/kmemprof.ko:.*' \
		"$d/root/lib/modules/$rel/modules.dep" 2>/dev/null; then
		fail "$name" "not installed: modules.dep does not list updates/dkms/kmemprof.ko"
	else
		pass "$name ($rel, $vm, $(($(date +%s) - t0)) s)"
		no_test_code "no-test-code/${name#dkms-build/}" "$ko"
	fi
}

# The package's sources, as dpkg would unpack them into /usr/src.
dpkg-deb -x "$dkms_deb" "$T/pkg"
dkms_check dkms-build/package "$T/pkg/usr/src" -m kmemprof -v "$upstream"
# 'dkms add .' in a checkout: dkms copies it into the source tree.
mkdir -p "$T/checkout"
tree_files . | rsync -a --files-from=- "$TOP/" "$T/checkout/"
dkms_check dkms-build/checkout "$T/usrsrc" "$T/checkout"
if [ "$(ls -A /var/lib/dkms 2>/dev/null)" != "$before" ]; then
	fail dkms-isolated "/var/lib/dkms changed"
else
	pass dkms-isolated
fi

# --- make install into a staging root -----------------------------------
# From a copy of the sources, so no objects land in the work tree.
mkdir -p "$T/src"
tree_files . | rsync -a --files-from=- "$TOP/" "$T/src/"
t0=$(date +%s)
root=$T/install
if make -C "$T/src" install KDIR="$KDIR" "${KARGS[@]}" \
	INSTALL_MOD_PATH="$root" > "$T/install.log" 2>&1; then
	ko=$root/lib/modules/$rel/extra/kmemprof.ko
	if [ ! -f "$ko" ]; then
		fail make-install "no lib/modules/$rel/extra/kmemprof.ko:" \
			"$(cd "$root" && find . -name '*.ko')"
	elif ! grep -qx 'extra/kmemprof.ko:.*' "$root/lib/modules/$rel/modules.dep"; then
		fail make-install "modules.dep does not list extra/kmemprof.ko"
	elif [ "$(modinfo -b "$root" -k "$rel" -F filename kmemprof 2>/dev/null)" != "$ko" ]; then
		fail make-install "modinfo -b does not find kmemprof"
	elif ! is_arm64_ko "$ko" || ! vm=$(vermagic_ok "$ko"); then
		fail make-install "bad module: $(elf_kind "$ko") ${vm:-}"
	else
		pass "make-install (lib/modules/$rel/extra, depmod, $(($(date +%s) - t0)) s)"
		no_test_code no-test-code/make-install "$ko"
	fi
else
	fail make-install "$(tail -n 20 "$T/install.log")"
fi
# dpkg-buildpackage writes to the parent of the tree it builds: that must
# have been .build/deb, never the work tree's parent.
stray=$(find "$(dirname "$TOP")" -maxdepth 1 -newer "$T/start" \
	\( -name 'kmemprof*.deb' -o -name 'kmemprof*.changes' -o -name 'kmemprof*.buildinfo' \))
if [ -n "$stray" ]; then
	fail no-stray-output "$stray"
else
	pass no-stray-output
fi

finish
