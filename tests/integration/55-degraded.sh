#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kernel without the percpu tracepoints: kmemprof loads, says which kind
# is out in dmesg and stats, refuses to trace it, and works for the rest.
. /tests/lib.sh
need_test_build "test_missing="
keep_module

rmmod kmemprof_hog 2>/dev/null
reload test_missing=percpu_alloc_percpu || fail "insmod with a missing tracepoint"
dmesg | grep -q 'kmemprof: tracepoint percpu_alloc_percpu not found: percpu allocations are not traced' ||
	fail "no word in dmesg"
expect_eq "unavailable" "$(stat_value unavailable)" percpu
expect_eq "events" "$(cat $KMP_SYSCTL/events)" "slab,page"
write_knob $KMP_SYSCTL/events "slab,page,percpu" && fail "events took percpu"
expect_eq "events after" "$(cat $KMP_SYSCTL/events)" "slab,page"
insmod /modules/kmemprof_hog.ko pages=16 order=0 || fail "insmod hog"
set -- $(proc_line hog_alloc)
expect_eq "hog traced" "$2" 16
rmmod kmemprof_hog
expect_eq "no percpu events" "$(stat_value events.percpu_alloc_percpu)" 0

reload test_missing=kmalloc,kfree,kmem_cache_alloc,kmem_cache_free,mm_page_alloc,mm_page_free,percpu_alloc_percpu,percpu_free_percpu &&
	fail "loaded with no tracepoint at all"
reload || fail "insmod with defaults"
expect_eq "unavailable" "$(stat_value unavailable)" none

# The allocator's untraced paths (hooks.c): hooked where the kernel lets
# ftrace, so objects from kmem_cache_alloc_bulk() are live on their site
# and their kmem_cache_free_bulk() pairs with them.
case ",$(stat_value hooks)," in
*,kmem_cache_alloc_bulk,*) ;;
*) fail "kmem_cache_alloc_bulk not hooked: hooks '$(stat_value hooks)'" ;;
esac
# Other bulk users (the maple tree) move the hooks' counts too.
objs=$(stat_value hook.kmem_cache_alloc_bulk.objects)
insmod /modules/kmemprof_hog.ko pages=0 bulk=64 || fail "insmod hog bulk=64"
set -- $(proc_line hog_bulk)
expect_eq "bulk objects live" "$2" 64
expect_eq "bulk site accurate" "$(line_key "$(proc_line hog_bulk)" accurate)" ""
[ "$(stat_value hook.kmem_cache_alloc_bulk.objects)" -ge $((objs + 64)) ] ||
	fail "hook objects: $objs -> $(stat_value hook.kmem_cache_alloc_bulk.objects)"
objs=$(stat_value hook.kmem_cache_free_bulk.objects)
rmmod kmemprof_hog
# The site's line stays, marked module:unloaded, with every free paired.
line=$(grep " func:hog_bulk " /proc/kmemprof)
set -- $line
expect_eq "bulk live after free" "$2" 0
expect_eq "bulk frees" "$(line_key "$line" frees)" 64
expect_eq "bulk freed accurate" "$(line_key "$line" accurate)" ""
[ "$(stat_value hook.kmem_cache_free_bulk.objects)" -ge $((objs + 64)) ] ||
	fail "hook frees: $objs -> $(stat_value hook.kmem_cache_free_bulk.objects)"

# A kernel where ftrace cannot hook them (no FUNCTION_TRACER, a function
# inlined or renamed): kmemprof loads, says so in dmesg and stats, and the
# objects are not tracked, as before the hooks.
reload test_missing=kmem_cache_alloc_bulk,kmem_cache_free_bulk ||
	fail "insmod with the bulk hooks missing"
dmesg | grep -q 'kmemprof: kmem_cache_free_bulk not hooked (test_missing): its slab objects are not paired' ||
	fail "no word in dmesg for a missing hook"
case ",$(stat_value untraced)," in
*,kmem_cache_alloc_bulk,kmem_cache_free_bulk,*) ;;
*) fail "untraced: '$(stat_value untraced)'" ;;
esac
case ",$(stat_value hooks)," in
*,kmem_cache_alloc_bulk,* | *,kmem_cache_free_bulk,*)
	fail "hooks with them missing: '$(stat_value hooks)'" ;;
esac
insmod /modules/kmemprof_hog.ko pages=0 bulk=64 || fail "insmod hog bulk=64"
expect_eq "bulk unseen" "$(proc_line hog_bulk)" ""
rmmod kmemprof_hog
expect_eq "bulk free unseen" "$(grep " func:hog_bulk " /proc/kmemprof)" ""

# A kernel that migrates pages where the migration hook is not there: a
# movable page may move with no word, so the tags of movable pages are
# marked, and those of pages that never move are not.
if grep -q '^pgmigrate_success ' /proc/vmstat; then
	reload test_missing=migrate || fail "insmod with the migration hook missing"
	case ",$(stat_value untraced)," in
	*,migrate,*) ;;
	*) fail "untraced without the migration hook: '$(stat_value untraced)'" ;;
	esac
	insmod /modules/kmemprof_hog.ko pages=4 order=2 || fail "insmod hog"
	# anonymous memory, touched: movable pages
	dd if=/dev/zero of=/dev/null bs=4M count=2 2>/dev/null
	marked=$(grep -c ' kind:page .* accurate:no' /proc/kmemprof)
	echo "INFO page tags marked without the migration hook: $marked"
	[ "$marked" -gt 0 ] || fail "no page tag marked without the migration hook"
	case "$(proc_line hog_alloc)" in
	*accurate:no*) fail "unmovable hog pages marked: $(proc_line hog_alloc)" ;;
	esac
	rmmod kmemprof_hog
fi
reload || fail "insmod with defaults"
