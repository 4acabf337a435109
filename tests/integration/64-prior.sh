#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Memory from before load (issue 22): at load, every allocated page block
# kmemprof did not see is entered on a before_load tag of its kind, and
# kmemprof's own tables on a line of their own; the frees of those blocks
# then pair. kmemprof_hog holds 256 pages from before kmemprof loads; they
# are before_load:other, and freeing them leaves unpaired.page as it was.
# It also holds NC blocks of order 2 and NC of order 3 that are not compound
# (__get_free_pages()): each is entered whole, a page at a time, and its
# free takes exactly its pages off before_load:other.
# A tmpfs file of 4 MiB and a process holding 4 MiB of anonymous memory,
# both from before load, are on before_load:file and before_load:anon, and
# their frees take at least that off each, unpaired.page unchanged. The
# other kinds hold something; kmemprof:tables holds its tables' pages.
# Kernel stacks and percpu chunks (issue 38): the hog's THREADS sleeping
# kernel threads and PCPU per-CPU areas of 4 KiB are from before load.
# before_load:stack holds the stack of every task alive at load: with the
# stacks fork allocated since, meminfo's KernelStack less the idle tasks
# of the other CPUs (no PID: their stacks stay on other); stopping the threads takes their stacks off
# it, but for those fork keeps in its per-CPU cache (2 a CPU), and
# unpaired.page does not move. before_load:percpu holds at least the pages
# of the hog's areas outside the first chunk (whose dynamic part is under
# 32 KiB a CPU) and at most meminfo's Percpu.
. /tests/lib.sh
keep_module

PAGE=$(awk '$1 == "KernelPageSize:" { print $2 * 1024; exit }' /proc/self/smaps)
PAGE=${PAGE:-4096}
N=256
NC=8
THREADS=32
PCPU=64
HOLD=4194304
NCPU=$(tr ',' '\n' < /sys/devices/system/cpu/possible |
	awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }')

# live WHAT: live bytes of the line whose site is WHAT.
live() {
	awk -v s="$1" '$3 == s { print $1; n++ } END { if (!n) print "none" }' \
		/proc/kmemprof
}

# objs WHAT: live bytes, live objects and frees of the line whose site is WHAT.
objs() {
	awk -v s="$1" '$3 == s { sub("frees:", "", $7); print $1, $2, $7; n++ }
		END { if (!n) print "none none none" }' /proc/kmemprof
}

# hold_start: the tmpfs file and the process holding anonymous memory,
# HOLD bytes each, with kmemprof not loaded.
hold_pid=
hold_start() {
	hold_stop
	dd if=/dev/zero of=/tmp/prior-file bs=$HOLD count=1 2>/dev/null ||
		fail "the tmpfs file"
	expect_eq "the tmpfs file's size" "$(wc -c < /tmp/prior-file)" $HOLD
	mkfifo /tmp/prior-hold || fail "mkfifo"
	# a shell variable of HOLD bytes, written whole; it waits on the fifo
	sh -c 'x=$(head -c '$HOLD' /dev/zero | tr "\0" a)
		echo ${#x} > /tmp/prior-anon; read y < /tmp/prior-hold' &
	hold_pid=$!
	i=0
	until [ -s /tmp/prior-anon ]; do
		kill -0 $hold_pid 2>/dev/null || fail "the anonymous holder died"
		[ $i -lt 100 ] || fail "the anonymous holder did not start in 10 s"
		sleep 0.1
		i=$((i + 1))
	done
	expect_eq "the anonymous holder's bytes" "$(cat /tmp/prior-anon)" $HOLD
}

hold_stop() {
	if [ -n "$hold_pid" ]; then
		kill $hold_pid 2>/dev/null
		wait $hold_pid 2>/dev/null
	fi
	hold_pid=
	rm -f /tmp/prior-file /tmp/prior-anon /tmp/prior-hold /tmp/prior-stats \
		/tmp/prior-pad.*
}

# lru_flush: a page just added to the LRU waits in its CPU's batch, which
# holds a reference (up to 15 pages on 5.10 and 6.1, 31 since), so a page
# freed meanwhile is freed only when that batch is emptied. 256 new pages
# of a file on each CPU fill and empty its batch, whatever it held; they
# are since load, on no before_load line.
lru_flush() {
	for c in $(awk -F, '{ for (i = 1; i <= NF; i++) {
			n = split($i, r, "-")
			for (c = r[1]; c <= r[n]; c++) print c } }' \
			/sys/devices/system/cpu/online); do
		taskset -c $c dd if=/dev/zero of=/tmp/prior-pad.$c bs=1048576 \
			count=1 2>/dev/null || fail "taskset -c $c dd"
	done
}

rmmod kmemprof_hog 2>/dev/null
trap 'hold_stop; restore_state' EXIT

# snap KEY: from the copy of stats taken last (one read: the pools grow)
snap() {
	awk -v k="$1" '$1 == k { print $2 }' /tmp/prior-stats
}

round() {
	rmmod kmemprof_hog 2>/dev/null	# a round before that ended early
	rmmod kmemprof || fail "rmmod kmemprof"
	hold_start
	insmod /modules/kmemprof_hog.ko pages=$N order=0 nc=$NC \
		threads=$THREADS pcpu=$PCPU || fail "insmod hog"
	reload || fail "insmod kmemprof"
	ks=$(awk '$1 == "KernelStack:" { print $2 * 1024 }' /proc/meminfo)
	stack=$(live before_load:stack)
	prior=$(stat_value prior_pages)
	echo "INFO prior_pages $prior"
	[ "${prior:-0}" -gt 0 ] || fail "no pages entered from before load"
	for w in slab anon file pagetable stack percpu other reserved; do
		echo "INFO before_load:$w $(live before_load:$w)"
	done
	echo "INFO kmemprof:tables $(live kmemprof:tables)"
	# the lines' format, as /proc/kmemprof prints them
	grep -Eq '^ +[0-9]+ +[0-9]+ before_load:other func:before_load kind:page allocs:[0-9]+ frees:[0-9]+ bytes:[0-9]+ req:[0-9]+$' /proc/kmemprof ||
		fail "before_load:other line: '$(grep ' before_load:other ' /proc/kmemprof)'"
	# The file and the anonymous memory from before load, on their kinds
	# (with what the guest had before), and each other kind holds some.
	for w in file anon; do
		got=$(live before_load:$w)
		[ "$got" != none ] && [ "$got" -ge $HOLD ] ||
			fail "before_load:$w is $got, less than the $HOLD held"
	done
	for w in slab pagetable reserved; do
		got=$(live before_load:$w)
		[ "$got" != none ] && [ "$got" -gt 0 ] ||
			fail "before_load:$w is '$got', not > 0"
	done
	# Kernel stacks: before_load:stack and the stacks fork allocated
	# since (tasks started by the load) are KernelStack (read right after
	# the load) less the idle tasks of the other online CPUs, within what
	# fork's per-CPU cache holds (2 stacks a CPU: a task started since may
	# have taken one cached at load, on other, and one that exited since
	# may have left its stack there, on before_load:stack).
	T=$(cat /sys/module/kmemprof_hog/parameters/stack_size)
	online=$(awk -F, '{ for (i = 1; i <= NF; i++) {
			n = split($i, r, "-"); c += n == 2 ? r[2] - r[1] + 1 : 1 } }
		END { print c }' /sys/devices/system/cpu/online)
	want=$((ks - (online - 1) * T))
	[ "$stack" != none ] || fail "no before_load:stack line"
	forked=$(awk '/ kind:page / && $4 ~ /^func:(alloc_thread_stack_node|dup_task_struct|copy_process)$/ { s += $1 } END { print s + 0 }' /proc/kmemprof)
	echo "INFO before_load:stack $stack ($((stack / T)) stacks of $T), since load $forked; KernelStack $ks less $((online - 1)) idle stacks: $want"
	d=$((stack + forked - want))
	[ ${d#-} -le $((2 * NCPU * T)) ] ||
		fail "before_load:stack $stack and $forked since, not KernelStack's $want within $((2 * NCPU)) stacks"
	# percpu chunks: the hog's areas, and at most meminfo's Percpu
	pc=$(live before_load:percpu)
	pmax=$(awk '$1 == "Percpu:" { print $2 * 1024 }' /proc/meminfo)
	pmin=$(((PCPU * 4096 - 32768) * NCPU))
	echo "INFO before_load:percpu $pc, between the hog's $pmin and Percpu $pmax"
	[ "$pc" != none ] && [ "$pc" -ge $pmin ] && [ "$pc" -le "$pmax" ] ||
		fail "before_load:percpu $pc, not between $pmin and $pmax"
	# the threads stopped: their stacks leave before_load:stack (freed
	# after a grace period, vfree()'s work), but the cached ones
	unpaired=$(stat_value unpaired.page)
	echo 1 > /sys/module/kmemprof_hog/parameters/threads_stop ||
		fail "threads_stop"
	low=$(((THREADS - 2 * NCPU) * T))
	i=0
	while :; do
		now=$(live before_load:stack)
		[ $((stack - now)) -ge $low ] || [ $i -ge 100 ] || {
			sleep 0.1
			i=$((i + 1))
			continue
		}
		break
	done
	left=$(stat_value unpaired.page)
	echo "INFO threads stopped: before_load:stack $stack -> $now (-$(((stack - now) / T)) stacks, of $THREADS), unpaired.page $unpaired -> $left"
	[ $((stack - now)) -ge $low ] ||
		fail "before_load:stack went down by $((stack - now)), not the threads' $((THREADS * T)) but 2 a CPU"
	[ $((stack - now)) -le $((THREADS * T)) ] ||
		{ echo "INFO more stacks than the threads' went (another task exited)"; return 1; }
	[ "$left" = "$unpaired" ] ||
		{ echo "INFO stacks: unpaired.page moved"; return 1; }
	# kmemprof:tables (prior.c's kmp_self_area() at the walk): each page
	# of the tables allocated with vmalloc() (tags.c, live.c, pfnmap.c's
	# chunks; hist.c's and stacks.c's when on), and the pages its counter
	# blocks' per-CPU copies lie on, 256 counters of 48 bytes a CPU each;
	# not the slab object of pfnmap.c's chunk pointers (8 bytes a chunk),
	# nor percpu.bytes (per-CPU buffers). memory.bytes - percpu.bytes is
	# the sum of those tables' sizes now. Whole pages: a vmalloc() area is
	# under a page more than its size (10 areas at most), a per-CPU copy
	# under 2 pages more. Counter blocks: 2 at load, before the walk, then
	# kept 2 ahead of the tags (tags.c), by a work that may run after the
	# walk: the pages of those are not on the line, and there are at most
	# ceil(tags.used / 256) of them.
	cat $KMP_DEBUGFS/stats > /tmp/prior-stats
	tables=$(live kmemprof:tables)
	[ "$tables" != none ] && [ "$tables" -gt 0 ] ||
		fail "no kmemprof:tables line: '$tables'"
	sizes=$(($(snap memory.bytes) - $(snap percpu.bytes)))
	late=$((($(snap tags.used) + 255) / 256))
	ptrs=$(($(snap pfnmap.bytes) % 131072))
	hblocks=0
	[ "$(snap hist.bytes)" = 0 ] || hblocks=$((($(snap hist.max) + 63) / 64))
	low=$((sizes - $(snap hist.bytes) - $(snap stacks.bytes) - ptrs -
		late * 12288 * NCPU))
	high=$((sizes + 2 * ptrs + 10 * PAGE +
		(2 + late + hblocks) * NCPU * 2 * PAGE))
	echo "INFO kmemprof:tables $tables, memory.bytes - percpu.bytes $sizes: between $low and $high"
	[ "$tables" -ge "$low" ] && [ "$tables" -le "$high" ] ||
		fail "kmemprof:tables $tables, not between $low and $high"
	# Every page block in use is on a page line. The page lines (reserved
	# pages aside: they are outside MemTotal) add up to at least what
	# /proc/meminfo says is allocated page by page (anonymous memory, the
	# page cache, slab, page tables, vmalloc: stacks are vmalloc's), and to
	# at most MemTotal - MemFree (which also holds the per-CPU free lists).
	m() { awk -v k="$1:" '$1 == k { print $2 * 1024 }' /proc/meminfo; }
	known=$(($(m AnonPages) + $(m Cached) + $(m Buffers) + $(m Slab) +
		$(m PageTables) + $(m VmallocUsed)))
	used=$(($(m MemTotal) - $(m MemFree)))
	pages=$(awk '/ kind:page / && $3 != "before_load:reserved" { s += $1 } END { print s + 0 }' /proc/kmemprof)
	echo "INFO page lines $pages; meminfo: known $known, MemTotal - MemFree $used"
	echo "INFO meminfo: $(awk '$2 > 0 { printf "%s%s ", $1, $2 }' /proc/meminfo)"
	[ "$pages" -ge "$known" ] && [ "$pages" -le "$used" ] ||
		fail "page lines add up to $pages, not between $known and $used"
	# The non-compound blocks: 4 + 8 pages a pair, one entry a page.
	unpaired=$(stat_value unpaired.page)
	was=$(objs before_load:other)
	echo 1 > /sys/module/kmemprof_hog/parameters/nc_free ||
		fail "nc_free"
	now=$(objs before_load:other)
	left=$(stat_value unpaired.page)
	set -- $was $now
	echo "INFO non-compound frees: before_load:other (bytes objs frees) $was -> $now, unpaired.page $unpaired -> $left"
	want=$((NC * 12))
	[ $(($1 - $4)) = $((want * PAGE)) ] && [ $(($2 - $5)) = $want ] &&
		[ $(($6 - $3)) = $want ] ||
		{ echo "INFO non-compound: bytes -$(($1 - $4)) objs -$(($2 - $5)) frees +$(($6 - $3)), not -$((want * PAGE)) -$want +$want"; return 1; }
	[ "$left" = "$unpaired" ] ||
		{ echo "INFO non-compound: unpaired.page moved"; return 1; }
	other=$(live before_load:other)
	unpaired=$(stat_value unpaired.page)
	rmmod kmemprof_hog || fail "rmmod hog"
	now=$(stat_value unpaired.page)
	left=$(live before_load:other)
	echo "INFO before_load:other $other -> $left, unpaired.page $unpaired -> $now"
	[ $((other - left)) -ge $((N * PAGE)) ] ||
		fail "before_load:other went down by $((other - left)), not the hog's $((N * PAGE))"
	[ "$now" = "$unpaired" ] || return 1
	# The file removed and the holder gone: each line down by what it held.
	file=$(live before_load:file)
	anon=$(live before_load:anon)
	unpaired=$(stat_value unpaired.page)
	hold_stop
	lru_flush
	nfile=$(live before_load:file)
	nanon=$(live before_load:anon)
	now=$(stat_value unpaired.page)
	echo "INFO before_load:file $file -> $nfile, before_load:anon $anon -> $nanon, unpaired.page $unpaired -> $now"
	[ $((file - nfile)) -ge $HOLD ] ||
		fail "before_load:file went down by $((file - nfile)), not the file's $HOLD"
	[ $((anon - nanon)) -ge $HOLD ] ||
		fail "before_load:anon went down by $((anon - nanon)), not the holder's $HOLD"
	[ "$now" = "$unpaired" ]
}

for try in 1 2 3; do
	round && exit 0
done
fail "not exact in 3 rounds of 3 (unpaired.page moved, or other frees)"
