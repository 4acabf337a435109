#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check-install, inside the Debian arm64 guest (tools/rig/install-test.sh
# puts it in the image as /usr/local/sbin/rig-check, run at boot by
# rig-check.service). The phase comes from the kernel command line,
# rig.phase=N. Every result is a line "RIG ok NAME" or "RIG FAIL NAME: why"
# on the serial console; numbers are "RIG data KEY=VALUE"; the last line is
# "RIG done"; then the guest powers off.
#
# Phase 1: kmemprof-dkms and kmemprof-tools were installed with apt in
# the image, /etc/modules-load.d/kmemprof.conf uncommented: the module is
# loaded at boot by systemd-modules-load, top and serve work. Then
# KMEMPROF_INITRAMFS=yes, update-initramfs, and modules-load.d commented
# again.
# Phase 2 (booted with the initramfs phase 1 made): the module was loaded
# from the initramfs, before the root was mounted; then apt remove and
# apt purge leave nothing behind.
PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH DEBIAN_FRONTEND=noninteractive
phase=$(sed -n 's/.*rig\.phase=\([0-9]*\).*/\1/p' /proc/cmdline)
rel=$(uname -r)
failed=0

ok() { echo "RIG ok $*"; }
bad() { echo "RIG FAIL $*"; failed=$((failed + 1)); }
check() { # check NAME COMMAND...: ok when COMMAND succeeds
	name=$1
	shift
	if out=$("$@" 2>&1); then ok "$name"; else bad "$name: $(echo "$out" | tail -n 3 | tr '\n' ' ')"; fi
}
data() { echo "RIG data $*"; }
finish() {
	echo "RIG phase $phase: $failed failed"
	echo "RIG done"
	sync
	systemctl poweroff --no-block
	exit 0
}

# Seconds since boot at the kernel's line matching PATTERN, from dmesg.
dmesg_time() {
	dmesg | grep -m 1 -E "$1" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'
}

# Bytes on the before_load:* lines (reserved apart) and on kmemprof:tables.
profile_numbers() {
	awk '$3 ~ /^before_load:/ && $3 != "before_load:reserved" { b += $1 }
	     $3 == "before_load:reserved" { r += $1 }
	     $3 == "kmemprof:tables" { t += $1 }
	     END { printf "before_load=%d before_load_reserved=%d tables=%d\n", b, r, t }' /proc/kmemprof
}

# load_numbers HOW: the uptimes of the load and of the root mount, in
# $load and $root, and what kmemprof found from before its load.
load_numbers() {
	load=$(dmesg_time 'kmemprof: loaded:')
	root=$(dmesg_time 'EXT4-fs \(vda\): mounted filesystem')
	data "$1 load_uptime=$load root_mount_uptime=$root $(profile_numbers)"
	data "$1 prior_pages=$(sed -n 's/^prior_pages[: ]*//p' /sys/kernel/debug/kmemprof/stats 2>/dev/null | head -n 1)"
}

echo "RIG phase $phase on $rel"
dmesg | grep -E 'kmemprof|EXT4-fs \(vda\)|Run /init|Run /sbin/init|systemd\[1\]: systemd ' | sed 's/^/RIG log /'

mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug

common_checks() {
	check lsmod sh -c 'lsmod | grep -q "^kmemprof "'
	check "module-from-dkms" sh -c "[ \"\$(modinfo -n kmemprof)\" = /lib/modules/$rel/updates/dkms/kmemprof.ko ]"
	check "dkms-status" sh -c "dkms status kmemprof | grep -q '$rel.*installed'"
	dkms status kmemprof | sed 's/^/RIG log /'
	if out=$(kmemprof top -H -n 5 2>&1) && [ "$(echo "$out" | wc -l)" -ge 5 ]; then
		ok "kmemprof-top"
		echo "$out" | sed 's/^/RIG log /'
	else
		bad "kmemprof-top: $out"
	fi
	check serve-enable systemctl enable --now kmemprof-serve.service
	i=0
	until curl -fsS -o /dev/null -H "Authorization: Bearer $(cat /etc/kmemprof/serve.token)" \
		http://127.0.0.1:9465/metrics 2>/dev/null || [ $i -ge 30 ]; do
		sleep 1
		i=$((i + 1))
	done
	m=$(curl -sS -H "Authorization: Bearer $(cat /etc/kmemprof/serve.token)" \
		http://127.0.0.1:9465/metrics 2>&1)
	if echo "$m" | grep -q '^kmemprof_'; then
		ok "serve-metrics ($(echo "$m" | grep -c '^kmemprof_') kmemprof_ samples)"
	else
		bad "serve-metrics: $(echo "$m" | head -n 3)"
	fi
	code=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9465/metrics)
	if [ "$code" = 401 ]; then ok serve-needs-token; else bad "serve-needs-token: HTTP $code"; fi
}

case "$phase" in
1)
	# systemd-modules-load's line may reach the journal after this unit
	# starts: wait for it, 30 s at most.
	check "modules-load" sh -c "for i in \$(seq 30); do journalctl -b -u systemd-modules-load.service | grep -q \"Inserted module 'kmemprof'\" && exit 0; sleep 1; done; exit 1"
	journalctl -b -u systemd-modules-load.service | grep kmemprof | sed 's/^/RIG log /'
	load_numbers modules-load
	# After the root mount: systemd-modules-load runs from the root.
	check "loaded-after-root-mount" awk -v l="$load" -v r="$root" 'BEGIN { exit !(l != "" && r != "" && l > r) }'
	common_checks
	systemctl disable --now kmemprof-serve.service >/dev/null 2>&1
	# The user's switch to the initramfs: the file, then update-initramfs.
	sed -i 's/^KMEMPROF_INITRAMFS=.*/KMEMPROF_INITRAMFS=yes/' /etc/default/kmemprof
	sed -i 's/^kmemprof$/#kmemprof/' /etc/modules-load.d/kmemprof.conf
	check update-initramfs update-initramfs -u -k "$rel"
	check "initramfs-has-module" sh -c "lsinitramfs /boot/initrd.img-$rel | grep -q 'updates/dkms/kmemprof.ko'"
	check "initramfs-lists-module" sh -c "unmkinitramfs /boot/initrd.img-$rel /tmp/ird && grep -qx kmemprof /tmp/ird/main/conf/modules 2>/dev/null || grep -qx kmemprof /tmp/ird/conf/modules"
	;;
2)
	check "not-by-modules-load" sh -c "! journalctl -b -u systemd-modules-load.service | grep -q \"Inserted module 'kmemprof'\""
	load_numbers initramfs
	check "loaded-before-root-mount" awk -v l="$load" -v r="$root" 'BEGIN { exit !(l != "" && r != "" && l < r) }'
	common_checks
	echo "RIG log apt remove:"
	apt-get remove -y kmemprof-dkms kmemprof-tools 2>&1 | sed 's/^/RIG log /'
	check "removed-module" sh -c '! ls /lib/modules/*/updates/dkms/kmemprof.ko* 2>/dev/null | grep -q .'
	check "removed-dkms-tree" sh -c '[ ! -e /var/lib/dkms/kmemprof ] && [ -z "$(ls -d /usr/src/kmemprof-* 2>/dev/null)" ]'
	check "removed-unit" sh -c '[ -z "$(ls /lib/systemd/system/kmemprof* /usr/lib/systemd/system/kmemprof* 2>/dev/null)" ] && ! systemctl is-active -q kmemprof-serve.service'
	check "removed-from-initramfs" sh -c "! lsinitramfs /boot/initrd.img-$rel | grep -q kmemprof"
	check "removed-modinfo" sh -c '! modinfo -n kmemprof >/dev/null 2>&1'
	check "remove-keeps-conffiles" test -e /etc/default/kmemprof
	echo "RIG log apt purge:"
	apt-get purge -y kmemprof-dkms kmemprof-tools 2>&1 | sed 's/^/RIG log /'
	left=$(find / -xdev \( -name '*kmemprof*' -o -path '/etc/kmemprof' \) \
		-not -path '/proc/*' -not -path '/sys/*' 2>/dev/null)
	if [ -z "$left" ]; then ok "purge-leaves-nothing"; else bad "purge-leaves-nothing: $(echo $left)"; fi
	check "purge-dpkg" sh -c '! dpkg -l "kmemprof*" 2>/dev/null | grep -q "^[a-z][a-z] "'
	check rmmod rmmod kmemprof
	;;
*)
	bad "phase: '$phase' (rig.phase= on the command line)"
	;;
esac
finish
