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
# The owners' tags hold every process's anonymous pages, this shell's and
# its commands' too, so the counts before and after compaction are made
# alike: no address space randomization while it runs (a command's stack
# and heap then take the same pages each time); a first compaction before
# kmpcompact takes its memory, for its drain of the CPUs' LRU caches, which
# hold on to pages of commands that have exited until drained (kmpcompact
# leaves none there itself); and from then until the count after
# compaction only builtins run, or commands that have exited, and been
# drained, by then.
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

[ -n "$(vmstat pgmigrate_success)" ] || fail "/proc/vmstat has no pgmigrate_success"

aslr=$(cat /proc/sys/kernel/randomize_va_space)
pid=
cleanup() {
	exec 3>&- 4<&-
	[ -n "$pid" ] && wait $pid
	echo "$aslr" > /proc/sys/kernel/randomize_va_space
}
trap cleanup EXIT
echo 0 > /proc/sys/kernel/randomize_va_space

# kmpcompact's stdin and stdout are pipes this shell holds: its lines are
# read with the read builtin, no command run to wait for them.
rm -f /tmp/kmpc.in /tmp/kmpc.out
mkfifo /tmp/kmpc.in /tmp/kmpc.out
kmpcompact 32 < /tmp/kmpc.in > /tmp/kmpc.out 2>&1 &
pid=$!
exec 3> /tmp/kmpc.in 4< /tmp/kmpc.out
read -r -t 60 started <&4
[ "$started" = started ] || fail "kmpcompact: '$started'"
# What runs between the counts, once before: the shell's own memory
# grows, if it does, now.
vmstat pgmigrate_success > /tmp/kmpc.m2
stat_value page_moved > /tmp/kmpc.p2
cat /proc/kmemprof > /tmp/kmpc.s1
echo 1 > /proc/sys/vm/compact_memory || fail "echo 1 > /proc/sys/vm/compact_memory"
echo go >&3
read -r -t 60 ready <&4
case "$ready" in
"ready "*) ;;
*) fail "kmpcompact: '$ready'" ;;
esac
cat /proc/kmemprof > /tmp/kmpc.s2
vmstat pgmigrate_success > /tmp/kmpc.m2
stat_value page_moved > /tmp/kmpc.p2
echo 1 > /proc/sys/vm/compact_memory || fail "echo 1 > /proc/sys/vm/compact_memory"
cat /proc/kmemprof > /tmp/kmpc.s3
migrated=$(cat /tmp/kmpc.m2)
moved=$(cat /tmp/kmpc.p2)
echo "INFO $ready"

# The owners: tags that grew by at least a quarter of what it holds, and
# that together grew by most of it.
held=$(echo "$ready" | sed -n 's/^ready held=\([0-9]*\) .*/\1/p')
page_tags /tmp/kmpc.s1 > /tmp/kmpc.t1
page_tags /tmp/kmpc.s2 > /tmp/kmpc.t2
awk -v min=$((held / 4)) '
	NR == FNR { k = $0; sub(/^[0-9]+ /, "", k); before[k] = $1; next }
	{ k = $0; sub(/^[0-9]+ /, "", k)
	  if ($1 - before[k] >= min) print $1 - before[k], k }' \
	/tmp/kmpc.t1 /tmp/kmpc.t2 > /tmp/kmpc.owners
[ -s /tmp/kmpc.owners ] ||
	fail "no page tag grew by $((held / 4)) bytes when kmpcompact touched its memory"
sed 's/^/INFO owner, grew by /' /tmp/kmpc.owners
grown=$(awk '{ s += $1 } END { print s + 0 }' /tmp/kmpc.owners)
[ "$grown" -ge $((held / 2)) ] ||
	fail "the owners grew by $grown bytes, not most of the $held held"

now=$(vmstat pgmigrate_success)
echo "INFO pgmigrate_success $migrated -> $now"
[ "$now" -gt "$migrated" ] || fail "compaction migrated no page: the test proves nothing"

page_tags /tmp/kmpc.s3 > /tmp/kmpc.t3
live /tmp/kmpc.owners /tmp/kmpc.t2 > /tmp/kmpc.l2
live /tmp/kmpc.owners /tmp/kmpc.t3 > /tmp/kmpc.l3
sed 's/^/INFO owner after compaction, live /' /tmp/kmpc.l3
changed=$(awk 'NR == FNR { k = $0; sub(/^[0-9]+ /, "", k); was[k] = $1; next }
	{ k = $0; sub(/^[0-9]+ /, "", k); if (was[k] != $1) printf "%s: %s -> %s; ", k, was[k], $1 }' \
	/tmp/kmpc.l2 /tmp/kmpc.l3)
[ -z "$changed" ] || fail "owners' live bytes changed across compaction: $changed"

unpaired=$(stat_value unpaired.page)
echo done >&3
read -r -t 60 result <&4
wait $pid
rc=$?
pid=
expect_eq "kmpcompact exit status ('$result')" $rc 0
out=$(echo "$result" | sed -n 's/^moved=\([0-9]*\) of .*/\1/p')
[ -n "$out" ] || fail "kmpcompact could not read its page frames: '$result'"
echo "INFO kmpcompact's pages moved: $out; page_moved $moved -> $(stat_value page_moved)"
[ "$out" -gt 0 ] || fail "none of kmpcompact's pages moved: the test proves nothing"
[ -n "$moved" ] || fail "stats has no page_moved"
[ "$(stat_value page_moved)" -ge $((moved + out)) ] ||
	fail "page_moved grew by $(($(stat_value page_moved) - moved)), less than the $out pages of kmpcompact that moved"
expect_eq "unpaired.page across kmpcompact's exit" "$(stat_value unpaired.page)" "$unpaired"
