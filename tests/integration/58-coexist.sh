#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kmemprof's hooks beside another ftrace user that claims IPMODIFY on the
# same functions, as a livepatch does (tests/modules/kmemprof_ipmodify.c):
#
# - the free hooks are entry callbacks without IPMODIFY, so the other user
#   loads after kmemprof, and kmemprof after it, and frees still pair;
# - an allocation hook is an exit handler where the kernel has fprobe, and
#   shares the function too; elsewhere it is a wrapper that needs IPMODIFY:
#   then whoever comes second does without, and kmemprof, if second, loads,
#   lists the path as untraced, and hooks it at its next attach once the
#   function is free.
. /tests/lib.sh
keep_module

reload || fail "insmod kmemprof"
mode=$(stat_value hooks.alloc)
case "$mode" in
exit | wrapper) ;;
*) echo "SKIP: no hooks on this kernel ($mode)"; exit 77 ;;
esac
alloc=kmem_cache_alloc_bulk
grep -q ' kmem_cache_alloc_bulk_noprof$' /proc/kallsyms &&
	alloc=kmem_cache_alloc_bulk_noprof
has_hook() {
	case ",$(stat_value hooks)," in *,$1,*) return 0 ;; esac
	return 1
}

# 1. After kmemprof: the free function is shared.
has_hook kmem_cache_free_bulk || fail "free_bulk not hooked: $(stat_value hooks)"
insmod /modules/kmemprof_ipmodify.ko funcs=kmem_cache_free_bulk ||
	fail "an IPMODIFY user of kmem_cache_free_bulk cannot load beside kmemprof"
insmod /modules/kmemprof_hog.ko pages=0 bulk=64 || fail "insmod hog bulk=64"
rmmod kmemprof_hog
line=$(grep " func:hog_bulk " /proc/kmemprof)
set -- $line
expect_eq "bulk live after free, shared" "$2" 0
expect_eq "bulk frees, shared" "$(line_key "$line" frees)" 64
rmmod kmemprof_ipmodify

# The allocation function: shared with an exit handler, not with a wrapper.
if insmod /modules/kmemprof_ipmodify.ko funcs=$alloc 2>/dev/null; then
	rmmod kmemprof_ipmodify
	[ "$mode" = exit ] || fail "$alloc held by kmemprof's wrapper and by another IPMODIFY user"
else
	[ "$mode" = wrapper ] || fail "$alloc: an IPMODIFY user cannot load beside kmemprof's exit handler"
fi

# 2. Before kmemprof: it loads, and says what it cannot hook.
rmmod kmemprof
insmod /modules/kmemprof_ipmodify.ko funcs=kmem_cache_free_bulk,$alloc ||
	fail "insmod ipmodify alone"
insmod /modules/kmemprof.ko || fail "kmemprof cannot load beside an IPMODIFY user"
has_hook kmem_cache_free_bulk ||
	fail "free_bulk not hooked beside an IPMODIFY user: $(stat_value hooks)"
unpaired=$(stat_value unpaired.slab)
insmod /modules/kmemprof_hog.ko pages=0 bulk=64 || fail "insmod hog bulk=64"
if [ "$mode" = wrapper ]; then
	has_hook kmem_cache_alloc_bulk && fail "alloc_bulk hooked beside an IPMODIFY user"
	case ",$(stat_value untraced)," in
	*,kmem_cache_alloc_bulk,*) ;;
	*) fail "untraced: '$(stat_value untraced)'" ;;
	esac
	dmesg | grep -q "kmemprof: cannot hook $alloc (-16): its slab objects are not paired" ||
		fail "no word in dmesg for the refused hook"
	expect_eq "bulk unseen" "$(proc_line hog_bulk)" ""
	rmmod kmemprof_hog
	# Its 64 frees have no allocation to pair with.
	[ "$(stat_value unpaired.slab)" -ge $((unpaired + 64)) ] ||
		fail "unpaired.slab: $unpaired -> $(stat_value unpaired.slab)"
else
	has_hook kmem_cache_alloc_bulk ||
		fail "alloc_bulk not hooked beside an IPMODIFY user: $(stat_value hooks)"
	set -- $(proc_line hog_bulk)
	expect_eq "bulk live beside an IPMODIFY user" "$2" 64
	rmmod kmemprof_hog
fi
rmmod kmemprof_ipmodify

# 3. The function free again: the next attach hooks it.
write_knob $KMP_SYSCTL/enabled 0 || fail "enabled=0"
write_knob $KMP_SYSCTL/enabled 1 || fail "enabled=1"
has_hook kmem_cache_alloc_bulk ||
	fail "alloc_bulk not hooked once free: $(stat_value hooks)"
insmod /modules/kmemprof_hog.ko pages=0 bulk=64 || fail "insmod hog bulk=64"
set -- $(proc_line hog_bulk)
expect_eq "bulk live once free" "$2" 64
rmmod kmemprof_hog

# 4. function_graph on the allocation function puts its return trampoline
# in the caller's place: the objects still go to the caller's site.
T=/sys/kernel/tracing
if grep -qw function_graph $T/available_tracers 2>/dev/null; then
	echo "$alloc" > $T/set_ftrace_filter || fail "set_ftrace_filter $alloc"
	echo function_graph > $T/current_tracer || fail "function_graph"
	insmod /modules/kmemprof_hog.ko pages=0 bulk=64
	rc=$?
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
	[ $rc -eq 0 ] || fail "insmod hog bulk=64 under function_graph"
	set -- $(proc_line hog_bulk)
	expect_eq "bulk live under function_graph" "${2:-}" 64
	grep -q 'return_to_handler' /proc/kmemprof &&
		fail "a site in return_to_handler: $(grep return_to_handler /proc/kmemprof)"
	rmmod kmemprof_hog
else
	echo "note: no function_graph tracer on this kernel"
fi

exit 0
