#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A page that moves keeps its owner (issue 21). kmpcompact holds anonymous
# pages with free pages between them, and compact_memory migrates movable
# pages while it holds them: the destination pages come off the free lists
# with no event, and the source pages are freed. The page tags that own
# the program's pages (those whose live bytes grew by a quarter of what it
# holds when it touched them) keep exactly their live bytes across
# compaction; page_moved counts at least the program's pages that moved;
# and the program's exit, which frees the destination pages, adds no
# unpaired page free.
#
# The owners' tags hold every process's anonymous pages, this shell's too,
# and a command forked between the counts changes them: its pages, freed
# at its exit, wait in the CPUs' LRU caches until a drain (compaction's)
# frees them, and the shell's own pages it shared are copied when the
# shell writes them before the command's exec, onto the tag of the copy.
# So no command is forked between the counts: kmpcompact itself copies
# /proc/kmemprof, /proc/vmstat and the stats at its lines ("copy"), which
# this shell reads with the read builtin; and a first compaction, before
# kmpcompact takes its memory, drains what the commands before left. The
# owners are the tags that grew while kmpcompact took its memory, from a
# count after that first compaction to one right after.
. /tests/lib.sh

[ -w /proc/sys/vm/compact_memory ] ||
	{ echo "SKIP: no CONFIG_COMPACTION on this kernel"; exit 77; }

vmstat() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat
}

# page_tags FILE: "LIVE SITE..." for every page tag of a copy of
# /proc/kmemprof: its live bytes, and what names the tag (site, function,
# module state), without the counts that follow kind:.
page_tags() {
	awk '/ kind:page / { k = $0; sub(/ allocs:.*/, "", k); sub(/^ *[0-9]+ +[0-9]+ /, "", k)
		print $1, k }' "$1"
}

# live OWNERS TAGS: the live bytes of each owner in a page_tags list.
live() {
	awk 'NR == FNR { k = $0; sub(/^[0-9]+ /, "", k); own[k] = 1; next }
	     { k = $0; sub(/^[0-9]+ /, "", k); if (k in own) print $1, k }' "$1" "$2"
}

# What shows that pages moved: the kernel's pgmigrate_success, or, where
# /proc/vmstat has no event counters (VM_EVENT_COUNTERS off, as on the 5.10
# guest, whose allnoconfig turns EXPERT on), kmemprof's count of calls of
# the kernel's migration step.
if [ -n "$(vmstat pgmigrate_success)" ]; then
	MIGF=m MIGK=pgmigrate_success
elif [ -n "$(stat_value hook.migrate.calls)" ]; then
	MIGF=p MIGK=hook.migrate.calls
else
	fail "neither pgmigrate_success in /proc/vmstat nor a migration hook"
fi

pid=
cleanup() {
	exec 3>&- 4<&-
	[ -n "$pid" ] && wait $pid
}
trap cleanup EXIT

# kmpc LINE: a command to kmpcompact, and its answer in $answer.
kmpc() {
	echo "$1" >&3
	answer=
	read -r -t 60 answer <&4
}

# kmpc_copy SRC DST: kmpcompact copies SRC to DST.
kmpc_copy() {
	kmpc "copy $1 $2"
	case "$answer" in
	"copied "*) ;;
	*) fail "kmpcompact, copy $1: '$answer'" ;;
	esac
}

# value FILE KEY: the value of KEY in a copy of /proc/vmstat or the stats.
value() {
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}

# attempt: one run of kmpcompact through a compaction, asserting what is
# said above; false, with the reason in $again, to run again (up to 3
# times) when the compaction moved none of its pages, which proves nothing
# (where the scanners meet decides which pages move), or when unpaired.page
# moved across its exit: pages allocated before kmemprof was loaded (or
# reloaded, by an earlier test) and freed meanwhile count there too
# (slub_debug and KASAN free slabs at any time on 6.12-debug), where a
# move that is not followed adds every page of kmpcompact's that moved,
# every time.
attempt() {
	again=
	# kmpcompact's stdin and stdout are pipes this shell holds: its lines
	# are read with the read builtin, no command run to wait for them.
	rm -f /tmp/kmpc.in /tmp/kmpc.out
	mkfifo /tmp/kmpc.in /tmp/kmpc.out
	kmpcompact 32 < /tmp/kmpc.in > /tmp/kmpc.out 2>&1 &
	pid=$!
	exec 3> /tmp/kmpc.in 4< /tmp/kmpc.out
	read -r -t 60 started <&4
	[ "$started" = started ] || fail "kmpcompact: '$started'"
	kmpc_copy /proc/kmemprof /tmp/kmpc.s0
	echo 1 > /proc/sys/vm/compact_memory || fail "echo 1 > /proc/sys/vm/compact_memory"
	# The owners are found across "take" alone: compaction itself moves
	# other tags (slab, on 6.12-debug).
	kmpc_copy /proc/kmemprof /tmp/kmpc.s1
	kmpc take
	ready=$answer
	case "$ready" in
	"ready "*) ;;
	*) fail "kmpcompact: '$ready'" ;;
	esac
	kmpc_copy /proc/kmemprof /tmp/kmpc.s2
	kmpc_copy /proc/vmstat /tmp/kmpc.m2
	kmpc_copy $KMP_DEBUGFS/stats /tmp/kmpc.p2
	echo 1 > /proc/sys/vm/compact_memory || fail "echo 1 > /proc/sys/vm/compact_memory"
	kmpc_copy /proc/kmemprof /tmp/kmpc.s3
	kmpc_copy /proc/vmstat /tmp/kmpc.m3
	kmpc_copy $KMP_DEBUGFS/stats /tmp/kmpc.p3
	unpaired=$(stat_value unpaired.page)
	kmpc done
	result=$answer
	wait $pid
	rc=$?
	pid=
	cat /proc/kmemprof > /tmp/kmpc.s4
	now=$(stat_value unpaired.page)
	[ "$now" = "$unpaired" ] ||
		again="unpaired.page moved across kmpcompact's exit ($unpaired -> $now)"
	expect_eq "kmpcompact exit status ('$result')" $rc 0
	migrated=$(value /tmp/kmpc.${MIGF}2 $MIGK)
	moved=$(value /tmp/kmpc.p2 page_moved)
	echo "INFO $ready"

	# The owners: tags that grew by at least a quarter of what it holds
	# while it took it, and fell by as much at its exit (on 6.12-debug, a
	# slab tag grows as much while it takes its memory, and again when
	# compaction moves it), and that together grew by most of it.
	held=$(echo "$ready" | sed -n 's/^ready held=\([0-9]*\) .*/\1/p')
	for n in 1 2 3 4; do
		page_tags /tmp/kmpc.s$n > /tmp/kmpc.t$n
	done
	awk -v min=$((held / 4)) '
		{ k = $0; sub(/^[0-9]+ /, "", k) }
		FILENAME ~ /t1$/ { t1[k] = $1; next }
		FILENAME ~ /t2$/ { t2[k] = $1; next }
		FILENAME ~ /t3$/ { t3[k] = $1; next }
		{ if (t2[k] - t1[k] >= min && t3[k] - $1 >= min) print t2[k] - t1[k], k }' \
		/tmp/kmpc.t1 /tmp/kmpc.t2 /tmp/kmpc.t3 /tmp/kmpc.t4 > /tmp/kmpc.owners
	[ -s /tmp/kmpc.owners ] ||
		fail "no page tag grew by $((held / 4)) bytes when kmpcompact took its memory, and fell as much at its exit"
	sed 's/^/INFO owner, grew by /' /tmp/kmpc.owners
	grown=$(awk '{ s += $1 } END { print s + 0 }' /tmp/kmpc.owners)
	[ "$grown" -ge $((held / 2)) ] ||
		fail "the owners grew by $grown bytes, not most of the $held held"

	now=$(value /tmp/kmpc.${MIGF}3 $MIGK)
	echo "INFO $MIGK $migrated -> $now"
	if [ "$now" -le "$migrated" ]; then
		again="compaction migrated no page: the test proves nothing"
	fi

	live /tmp/kmpc.owners /tmp/kmpc.t2 > /tmp/kmpc.l2
	live /tmp/kmpc.owners /tmp/kmpc.t3 > /tmp/kmpc.l3
	sed 's/^/INFO owner after compaction, live /' /tmp/kmpc.l3
	changed=$(awk 'NR == FNR { k = $0; sub(/^[0-9]+ /, "", k); was[k] = $1; next }
		{ k = $0; sub(/^[0-9]+ /, "", k); if (was[k] != $1) printf "%s: %s -> %s; ", k, was[k], $1 }' \
		/tmp/kmpc.l2 /tmp/kmpc.l3)
	[ -z "$changed" ] || fail "owners' live bytes changed across compaction: $changed"

	out=$(echo "$result" | sed -n 's/^moved=\([0-9]*\|unknown\) of .*/\1/p')
	[ -n "$out" ] || fail "kmpcompact: '$result'"
	echo "INFO kmpcompact's pages moved: $out; page_moved $moved -> $(value /tmp/kmpc.p3 page_moved)"
	[ -n "$moved" ] || fail "stats has no page_moved"
	if [ "$out" = unknown ]; then
		# No /proc/self/pagemap (PROC_PAGE_MONITOR off, as on the 5.10
		# guest): which of its pages moved is not known, only that
		# moves carried entries.
		[ "$(value /tmp/kmpc.p3 page_moved)" -gt "$moved" ] ||
			again="no move carried an entry: the test proves nothing"
	else
		[ "$out" -gt 0 ] ||
			again="none of kmpcompact's pages moved: the test proves nothing"
		[ "$(value /tmp/kmpc.p3 page_moved)" -ge $((moved + out)) ] ||
			fail "page_moved grew by $(($(value /tmp/kmpc.p3 page_moved) - moved)), less than the $out pages of kmpcompact that moved"
	fi
	[ -z "$again" ]
}

for try in 1 2 3; do
	attempt && exit 0
	echo "INFO try $try: $again"
done
fail "$again, in 3 tries of 3"
