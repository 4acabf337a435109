# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest's shell tests. Each test is a script that exits 0 on
# success, 77 to skip, anything else on failure, and says why on stdout.

KMP_DEBUGFS=/sys/kernel/debug/kmemprof

fail() {
	echo "FAIL: $*"
	exit 1
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# stat_value KEY: one value from the debugfs stats file.
stat_value() {
	awk -v k="$1" '$1 == k { print $2 }' "$KMP_DEBUGFS/stats"
}

# A small load that touches slab and pages: file and directory churn.
workload() {
	i=0
	while [ $i -lt "${1:-20}" ]; do
		mkdir -p /tmp/load/$i
		echo "$i" > /tmp/load/$i/f
		cat /proc/meminfo > /tmp/load/$i/m
		i=$((i + 1))
	done
	rm -rf /tmp/load
}

KMP_SYSCTL=/proc/sys/kmemprof

# The /proc/kmemprof line of a call site's function, e.g. "hog_alloc",
# leaving out tags of modules that have gone.
proc_line() {
	grep " func:$1 " /proc/kmemprof | grep -v ' module:unloaded$'
}

# field N of a /proc/kmemprof line, or the value of key:value KEY.
line_key() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2://p"
}

# write_knob FILE VALUE: write as one write(2); returns its success.
write_knob() {
	printf '%s' "$2" > "$1" 2>/dev/null
}

# reload ARGS...: replace the loaded kmemprof with one loaded with ARGS.
reload() {
	rmmod kmemprof 2>/dev/null
	insmod /modules/kmemprof.ko "$@"
}
