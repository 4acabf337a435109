#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A non-root user can neither read the profile nor touch the knobs.
. /tests/lib.sh
keep_knobs enabled events leak_age_ms stack_depth stack_sample key_depth \
	sample_rate min_size max_size

out=$(runas 65534 cat /proc/kmemprof 2>&1) && fail "nobody read /proc/kmemprof"
case "$out" in *"Permission denied"*) ;; *) fail "reading: $out" ;; esac
for f in $KMP_DEBUGFS/stats $KMP_DEBUGFS/hist $KMP_DEBUGFS/leaks; do
	runas 65534 cat $f > /dev/null 2>&1 && fail "nobody read $f"
done
for k in enabled events reset leak_age_ms stack_depth stack_sample \
	 key_depth sample_rate min_size max_size; do
	out=$(runas 65534 sh -c "echo 0 > $KMP_SYSCTL/$k" 2>&1) &&
		fail "nobody wrote $k"
	case "$out" in *"Permission denied"*) ;; *) fail "$k: $out" ;; esac
done
out=$(runas 65534 cat $KMP_SYSCTL/enabled 2>&1) && fail "nobody read enabled"
expect_eq "enabled" "$(cat $KMP_SYSCTL/enabled)" 1
expect_eq "events" "$(cat $KMP_SYSCTL/events)" "slab,page,percpu"
