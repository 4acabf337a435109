#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Owners (issue 41): two processes in two cgroup v2 groups allocate known
# kernel memory through kmemprof_owner's debugfs file (N objects and M
# pages each, made in their write); with owners=task each thread group,
# with owners=cgroup each group, holds exactly its bytes in the owners
# view, the process gone or not, and none once another process has freed
# them. Then a process holds a CMA dma-buf heap buffer, which is on it.
. /tests/lib.sh

OWN=$KMP_DEBUGFS/owners
CTL=/sys/kernel/debug/kmemprof_owner/ctl
CG=/sys/fs/cgroup
[ -e $CG/cgroup.procs ] ||
	{ echo "SKIP: no cgroup v2 at $CG"; exit 77; }
[ -e $OWN ] || fail "no $OWN"
PAGE=$(awk '$1 == "KernelPageSize:" { print $2 * 1024; exit }' /proc/self/smaps)
PAGE=${PAGE:-4096}

keep_knobs owners
cleanup() {
	[ -n "$HEAP_PID" ] && kill "$HEAP_PID" 2>/dev/null
	rmmod kmemprof_owner 2>/dev/null
	rmdir $CG/kmp-a $CG/kmp-b 2>/dev/null
	restore_state
}
trap cleanup EXIT
rmmod kmemprof_owner 2>/dev/null
insmod /modules/kmemprof_owner.ko size=256 || fail "insmod kmemprof_owner"
mkdir -p $CG/kmp-a $CG/kmp-b || fail "mkdir $CG/kmp-a $CG/kmp-b"

# owned_by FUNC FIELD: "BYTES OBJECTS" summed over the owners view's lines
# of FUNC whose owner fields contain FIELD (" owner:NAME tgid:PID", or
# " cgroup:PATH "), "0 0" for none.
owned_by() {
	awk -v f=" func:$1 " -v o="$2" 'index($0, f) && index($0 " ", o) {
		b += $1; n += $2 } END { print b + 0, n + 0 }' $OWN
}

# run_in GROUP NAME ID N M: a process called NAME, in cgroup GROUP,
# allocates N objects and M pages under ID, and exits; its pid is printed.
run_in() {
	sh -c "echo \$\$ > $CG/$1/cgroup.procs &&
		printf $2 > /proc/self/comm &&
		echo 'alloc $3 $4 $5' > $CTL && echo \$\$" ||
		fail "$2: alloc $3 $4 $5 in $1"
}

# The bytes a slab object of owner_kmalloc() counts (256, or more with
# slub_debug's red zones): from /proc/kmemprof, whose count is exact.
obj_bytes() {
	l=$(proc_line owner_kmalloc)
	n=$(echo "$l" | awk '{ s += $2 } END { print s + 0 }')
	b=$(echo "$l" | awk '{ s += $1 } END { print s + 0 }')
	[ "$n" -gt 0 ] || fail "no live objects on owner_kmalloc: $l"
	echo $((b / n))
}

check_phase() {
	mode=$1 fa=$2 fb=$3
	sz=$(obj_bytes)
	echo "INFO $mode: an object counts $sz bytes"
	grep -E ' func:owner_(kmalloc|pages) ' $OWN | sed 's/^/INFO   /'
	expect_eq "$mode: owner_kmalloc on $fa" "$(owned_by owner_kmalloc "$fa")" \
		"$((100 * sz)) 100"
	expect_eq "$mode: owner_pages on $fa" "$(owned_by owner_pages "$fa")" \
		"$((10 * PAGE)) 10"
	expect_eq "$mode: owner_kmalloc on $fb" "$(owned_by owner_kmalloc "$fb")" \
		"$((300 * sz)) 300"
	expect_eq "$mode: owner_pages on $fb" "$(owned_by owner_pages "$fb")" \
		"$((30 * PAGE)) 30"
	# freed by this shell, in the root group: charged back to theirs
	echo "free a" > $CTL || fail "free a"
	expect_eq "$mode: owner_kmalloc on $fa after free" \
		"$(owned_by owner_kmalloc "$fa")" "0 0"
	expect_eq "$mode: owner_pages on $fa after free" \
		"$(owned_by owner_pages "$fa")" "0 0"
	expect_eq "$mode: owner_kmalloc on $fb, a freed" \
		"$(owned_by owner_kmalloc "$fb")" "$((300 * sz)) 300"
	echo "free b" > $CTL || fail "free b"
	expect_eq "$mode: owner_kmalloc after both freed" \
		"$(grep -c ' func:owner_\(kmalloc\|pages\) ' $OWN)" 0
}

# owners=task: the thread groups, gone by the time the view is read.
write_knob $KMP_SYSCTL/owners task || fail "owners=task refused"
expect_eq "owners knob" "$(cat $KMP_SYSCTL/owners)" task
pa=$(run_in kmp-a kmp_own_a a 100 10)
pb=$(run_in kmp-b kmp_own_b b 300 30)
# The reader's view of them (the README's example): each group by its
# name and tgid in top --by owner, and on owner_kmalloc in owners SITE.
kmemprof top --by owner -H -n 8 > /tmp/own-top.txt 2>&1 ||
	fail "kmemprof top --by owner: $(cat /tmp/own-top.txt)"
kmemprof owners owner_kmalloc -H >> /tmp/own-top.txt 2>&1 ||
	fail "kmemprof owners owner_kmalloc: $(cat /tmp/own-top.txt)"
sed 's/^/INFO reader: /' /tmp/own-top.txt
for o in "kmp_own_a[$pa]" "kmp_own_b[$pb]"; do
	[ "$(grep -cF " $o" /tmp/own-top.txt)" -ge 2 ] ||
		fail "the reader: $o not in both top --by owner and owners"
done
check_phase task " owner:kmp_own_a tgid:$pa " " owner:kmp_own_b tgid:$pb "

# owners=cgroup: the groups, by path.
write_knob $KMP_SYSCTL/owners cgroup || fail "owners=cgroup refused"
run_in kmp-a kmp_own_a a 100 10 > /dev/null
run_in kmp-b kmp_own_b b 300 30 > /dev/null
check_phase cgroup " cgroup:/kmp-a " " cgroup:/kmp-b "

# A CMA dma-buf heap buffer, held by kmpheap: on kmpheap's thread group.
write_knob $KMP_SYSCTL/owners task || fail "owners=task refused"
heap=$(cma_heaps | head -n 1)
if [ -z "$heap" ]; then
	echo "INFO no CMA dma-buf heap on this kernel: that part skipped"
	exit 0
fi
set -- $heap
mkfifo /tmp/kmp-heap-in
kmpheap "$1" 2097152 < /tmp/kmp-heap-in > /tmp/kmp-heap-out 2>&1 &
HEAP_PID=$!
exec 7> /tmp/kmp-heap-in
i=0
until grep -q allocated /tmp/kmp-heap-out; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "kmpheap: $(cat /tmp/kmp-heap-out)"
	sleep 0.1
done
grep " func:$2 kind:page " $OWN | sed 's/^/INFO   /'
# bytes only: CMA's pages are entered as blocks of the largest order
got=$(owned_by "$2 kind:page" " owner:kmpheap tgid:$HEAP_PID ")
expect_eq "$2 bytes on kmpheap" "${got% *}" 2097152
echo >&7
exec 7>&-
wait "$HEAP_PID"
HEAP_PID=
expect_eq "$2 on kmpheap after close" \
	"$(owned_by "$2 kind:page" " owner:kmpheap tgid:")" "0 0"
