#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /proc/kmemprof: exact header, every line in allocinfo's layout, and a
# known large allocation on top of sort -g, with exact bytes and objects.
. /tests/lib.sh

P=/proc/kmemprof
[ -r $P ] || fail "no $P"
expect_eq mode "$(stat -c %a $P)" 400
expect_eq "header" "$(sed -n 1p $P)" "kmemprof - version: 1.0"
sed -n 2p $P | grep -q '^# <live bytes> <live objects> <site> ' ||
	fail "column line: $(sed -n 2p $P)"

LINE='^[ 0-9]{11}[0-9] [ 0-9]{7}[0-9] ([^ ]+\+0x[0-9a-f]+/0x[0-9a-f]+( \[[^] ]+\])?|0x[0-9a-f]+|before_load:(slab|anon|file|pagetable|hugetlb|other|reserved|stack|percpu)|kmemprof:tables) func:[^ ]+ kind:(slab|page|percpu) allocs:[0-9]+ frees:[0-9]+ bytes:[0-9]+ req:[0-9]+( caller:[^ ]+)*( sampled:yes)?( accurate:no)?( module:unloaded)?$'
bad=$(sed 1,2d $P | grep -Ev "$LINE" | head -n 3)
[ -z "$bad" ] || fail "lines not in the format: $bad"
n=$(sed 1,2d $P | wc -l)
[ "$n" -gt 10 ] || fail "only $n tag lines"

# 1024 blocks of order 4 from one site: 64 MiB, on top of sort -g among
# the call sites (the memory from before load, KASAN's shadow among it on
# 6.12-debug, and kmemprof's tables may outweigh it).
insmod /modules/kmemprof_hog.ko pages=1024 order=4 || fail "insmod hog"
top=$(grep -Ev ' func:(before_load|kmemprof) ' $P | sort -g | tail -n 1)
echo "top: $top"
case "$top" in
*" hog_alloc+0x"*" [kmemprof_hog] func:hog_alloc kind:page "*) ;;
*) fail "hog_alloc is not on top: $top" ;;
esac
set -- $top
expect_eq "live bytes" "$1" $((1024 * 16 * 4096))
expect_eq "live objects" "$2" 1024
expect_eq allocs "$(line_key "$top" allocs)" 1024
expect_eq "sort -g | tail | numfmt --to=iec" \
	"$(grep -Ev ' func:(before_load|kmemprof) ' $P | sort -g | tail -n 1 | numfmt --to=iec | cut -c1-12)" "         64M"

# hog_init() is __init: its text is freed once the module is live, so its
# tag keeps the name it had, and its object stays live.
init=$(grep -E ' func:hog_init kind:slab allocs:1 frees:0 bytes:[0-9]+ req:3000 ' $P)
echo "init: $init"
case "$init" in
*"[kmemprof_hog] func:hog_init kind:slab"*" module:unloaded") ;;
*) fail "init-text tag: $init" ;;
esac
set -- $init
expect_eq "init object live" "$2" 1

# The module goes: its tag keeps a name of its own, and its frees pair.
rmmod kmemprof_hog || fail "rmmod hog"
gone=$(grep ' func:hog_alloc ' $P)
echo "gone: $gone"
case "$gone" in
*"[kmemprof_hog] func:hog_alloc kind:page"*" module:unloaded") ;;
*) fail "unloaded module's tag: $gone" ;;
esac
set -- $gone
expect_eq "live bytes after unload" "$1" 0
expect_eq "frees after unload" "$(line_key "$gone" frees)" 1024
set -- $(grep ' func:hog_init .* req:3000 ' $P)
expect_eq "init object freed at unload" "$2" 0
