#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The OOM report (issue 41): a program allocates anonymous memory until
# the OOM killer takes it, and the kernel log holds kmemprof's report,
# with the fault path's site among its largest and that program as the
# site's top owner. In a memory cgroup limited to 160 MiB where the
# kernel has the memory controller (a memcg OOM: the mark_victim
# tracepoint); else globally, with every other task's oom_score_adj at
# -1000 and the program's at 1000 (the vendor kernel has no MEMCG).
. /tests/lib.sh

CG=/sys/fs/cgroup
keep_knobs owners oom_report
ADJ=
cleanup() {
	rmdir $CG/kmp-oom 2>/dev/null
	# the global case's oom_score_adj back to what it was
	for pa in $ADJ; do
		echo "${pa#*=}" > "/proc/${pa%=*}/oom_score_adj" 2>/dev/null
	done
	restore_state
}
trap cleanup EXIT
write_knob $KMP_SYSCTL/owners task || fail "owners=task refused"
write_knob $KMP_SYSCTL/oom_report 10 || fail "oom_report=10 refused"
dmesg -c > /dev/null

memcg=
if grep -qw memory $CG/cgroup.controllers 2>/dev/null &&
	mkdir -p $CG/kmp-oom && echo 160M > $CG/kmp-oom/memory.max; then
	echo 0 > $CG/kmp-oom/memory.swap.max 2>/dev/null
	memcg=1
	echo "INFO memcg OOM: $CG/kmp-oom, memory.max 160M"
	sh -c "echo \$\$ > $CG/kmp-oom/cgroup.procs && exec kmpoom" \
		> /tmp/kmpoom.out 2>&1
else
	echo "INFO global OOM: no memory controller"
	for p in /proc/[0-9]*; do
		a=$(cat $p/oom_score_adj 2>/dev/null) || continue
		ADJ="$ADJ ${p#/proc/}=$a"
		echo -1000 > $p/oom_score_adj 2>/dev/null
	done
	sh -c 'echo 1000 > /proc/self/oom_score_adj && exec kmpoom' \
		> /tmp/kmpoom.out 2>&1
fi
rc=$?
echo "INFO kmpoom: exit $rc, $(tail -n 1 /tmp/kmpoom.out)"
[ $rc -ge 128 ] || fail "kmpoom was not killed (exit $rc)"
dmesg > /tmp/oom.log
grep -q 'Killed process [0-9]* (kmpoom)' /tmp/oom.log ||
	fail "no OOM kill of kmpoom in the kernel log"
pid=$(sed -n 's/.*Killed process \([0-9]*\) (kmpoom).*/\1/p' /tmp/oom.log | head -n 1)
# the report: its first line, the sites, their owners, "end"
sed -n '/kmemprof oom - version: /,/kmemprof oom - version: .*: end/p' \
	/tmp/oom.log | sed 's/^\[[ 0-9.]*\] //' > /tmp/oom.report
[ -s /tmp/oom.report ] || fail "no kmemprof OOM report in the kernel log"
sed 's/^/INFO   /' /tmp/oom.report
grep -q 'with their largest owners' /tmp/oom.report ||
	fail "the report has no owners"
# The site of kmpoom's pages: the first whose top owner is kmpoom; its
# rank among the sites, and its bytes.
rank=$(awk -v o=" owner:kmpoom tgid:$pid" '
	/ func:/ { n++; site = $0; top = 1; next }
	/ owner:| cgroup:/ { if (top && index($0 " ", o " ")) { print n; exit } top = 0 }
' /tmp/oom.report)
[ -n "$rank" ] || fail "no site with kmpoom (tgid $pid) as its top owner"
site=$(grep ' func:' /tmp/oom.report | sed -n "${rank}p")
echo "INFO kmpoom's site is number $rank: $site"
echo "$site" | grep -q ' kind:page ' || fail "kmpoom's site is not a page site"
# the fault path: the anonymous fault's folio or page allocation (6.1 on
# arm64: alloc_zeroed_user_highpage_movable(), the arch's, do_anonymous_page()'s)
echo "$site" | grep -Eq 'func:[a-z_]*(anon|fault|folio|wp_page|do_pte|user_highpage)' ||
	fail "kmpoom's site is not on the fault path: $site"
bytes=$(echo "$site" | awk '{ print $2 }')
if [ -n "$memcg" ]; then
	[ "$rank" -le 3 ] || fail "kmpoom's site is number $rank, not in the top 3"
	[ "$bytes" -ge $((100 << 20)) ] ||
		fail "kmpoom's site holds $bytes bytes, under 100 MiB of its 160"
fi
