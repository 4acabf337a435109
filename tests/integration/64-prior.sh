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
. /tests/lib.sh
keep_module

PAGE=$(awk '$1 == "KernelPageSize:" { print $2 * 1024; exit }' /proc/self/smaps)
PAGE=${PAGE:-4096}
N=256
NC=8

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

rmmod kmemprof_hog 2>/dev/null
trap 'rmmod kmemprof_hog 2>/dev/null' EXIT

round() {
	rmmod kmemprof_hog 2>/dev/null	# a round before that ended early
	rmmod kmemprof || fail "rmmod kmemprof"
	insmod /modules/kmemprof_hog.ko pages=$N order=0 nc=$NC || fail "insmod hog"
	reload || fail "insmod kmemprof"
	prior=$(stat_value prior_pages)
	echo "INFO prior_pages $prior"
	[ "${prior:-0}" -gt 0 ] || fail "no pages entered from before load"
	for w in slab anon file pagetable other reserved; do
		echo "INFO before_load:$w $(live before_load:$w)"
	done
	echo "INFO kmemprof:tables $(live kmemprof:tables)"
	# the lines' format, as /proc/kmemprof prints them
	grep -Eq '^ +[0-9]+ +[0-9]+ before_load:other func:before_load kind:page allocs:[0-9]+ frees:[0-9]+ bytes:[0-9]+ req:[0-9]+$' /proc/kmemprof ||
		fail "before_load:other line: '$(grep ' before_load:other ' /proc/kmemprof)'"
	tables=$(live kmemprof:tables)
	[ "$tables" != none ] && [ "$tables" -gt 0 ] ||
		fail "no kmemprof:tables line: '$tables'"
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
	[ "$now" = "$unpaired" ]
}

for try in 1 2 3; do
	round && exit 0
done
fail "not exact in 3 rounds of 3 (unpaired.page moved, or other frees)"
