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

# max_live's default on this guest, as kmemprof.rst gives it: one entry
# per 16 KiB of RAM (MemTotal), at least 32768, at most 2^28.
default_max_live() {
	awk '$1 == "MemTotal:" {
		want = int($2 / 1024) * 64
		if (want < 32768) want = 32768
		if (want > 268435456) want = 268435456
		print want
	}' /proc/meminfo
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

# need_test_build WHAT: skip unless the loaded kmemprof is the rig's test
# build (KMEMPROF_TESTS=m: test_missing, test_wrap_delay). A user's build,
# which make check-distro boots, has no test parameters.
need_test_build() {
	[ -e /sys/module/kmemprof/parameters/test_missing ] && return 0
	echo "SKIP: $1 needs the rig's test build of kmemprof (KMEMPROF_TESTS=m), not a user's"
	exit 77
}

# reload ARGS...: replace the loaded kmemprof with one loaded with ARGS.
reload() {
	rmmod kmemprof 2>/dev/null
	insmod /modules/kmemprof.ko "$@"
}

# keep_knobs KNOB...: put these knobs back as they are now when the script
# exits, passed or failed, so that a failing test leaves no state to the
# next. Also unloads the hog. Calls add up. A script with an EXIT trap of
# its own calls restore_state from it.
KMP_KEPT=
keep_knobs() {
	for k in "$@"; do
		KMP_KEPT="$KMP_KEPT $k=$(cat $KMP_SYSCTL/$k)"
	done
	trap restore_state EXIT
}

# keep_module: load kmemprof with its defaults again at exit, for scripts
# that reload it with other parameters or unload it.
KMP_KEEP_MODULE=
keep_module() {
	KMP_KEEP_MODULE=1
	trap restore_state EXIT
}

restore_state() {
	rmmod kmemprof_hog 2>/dev/null
	if [ -n "$KMP_KEEP_MODULE" ]; then
		reload 2>/dev/null
	fi
	# Twice: min_size may only go up once max_size has, and the reverse.
	for pass in 1 2; do
		for kv in $KMP_KEPT; do
			write_knob "$KMP_SYSCTL/${kv%%=*}" "${kv#*=}"
		done
	done
}

# cma_heaps: every CMA dma-buf heap, "PATH FUNC" a line, FUNC the function
# that allocates from it (its kind:page site): each heap of /dev/dma_heap/
# but the system heaps, whatever its name (the default area's is
# "reserved" with cma=, "default_cma_region" on 7.x, a device tree's
# region name on a board), on cma_heap_allocate; then Rockchip's own
# (/dev/rk_dma_heap/*, rk-dma-heap-cma on the BSP), on rk_cma_heap_allocate.
# None on a kernel without dma-buf heaps (CONFIG_DMABUF_HEAPS).
cma_heaps() {
	for h in /dev/dma_heap/*; do
		[ -e "$h" ] || continue
		case "${h##*/}" in
		system | system-*) continue ;;
		esac
		echo "$h cma_heap_allocate"
	done
	for h in /dev/rk_dma_heap/*; do
		[ -e "$h" ] && echo "$h rk_cma_heap_allocate"
	done
}
