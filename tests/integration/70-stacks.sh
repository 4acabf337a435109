#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Sampled stacks in the stacks view, stack-keyed tags in /proc/kmemprof,
# and the stack and key knobs flipping under load without a splat.
. /tests/lib.sh
keep_knobs stack_depth key_depth sample_rate min_size max_size

D=$KMP_DEBUGFS
rmmod kmemprof_hog 2>/dev/null

# The stack store, made the first time stack_depth is set, while an option
# already sends page events to the general path (lifetimes): making it
# allocates, and those events must not look for the store before it is
# there. A fresh load has no store. (Before the fix: a NULL dereference in
# kmp_stack_find(), from kmp_stacks_init()'s own vzalloc().)
keep_module
reload || fail "insmod kmemprof"
write_knob $KMP_SYSCTL/lifetimes 1 || fail "lifetimes=1 refused"
write_knob $KMP_SYSCTL/stack_depth 4 ||
	fail "stack_depth=4 refused with lifetimes on"
expect_eq "stack_depth" "$(cat $KMP_SYSCTL/stack_depth)" 4
write_knob $KMP_SYSCTL/stack_depth 0 || fail "stack_depth=0 refused"
write_knob $KMP_SYSCTL/lifetimes 0 || fail "lifetimes=0 refused"
write_knob $KMP_SYSCTL/reset 1 || fail "reset"
write_knob $KMP_SYSCTL/stack_depth 4 || fail "stack_depth=4 refused"
insmod /modules/kmemprof_hog.ko pages=64 order=0 || fail "insmod hog"
write_knob $KMP_SYSCTL/stack_depth 0 || fail "stack_depth=0 refused"

expect_eq "stacks header" "$(sed -n 1p $D/stacks)" "kmemprof stacks - version: 1.0"
sed -n 2p $D/stacks | grep -Eq '^# stack_depth:0 stack_sample:1 stacks:[0-9]+ tags:[0-9]+$' ||
	fail "stacks summary: $(sed -n 2p $D/stacks)"
hog=$(grep -A6 'func:hog_alloc kind:page' $D/stacks)
echo "$hog"
echo "$hog" | sed -n 1p | grep -q ' stacks:1 allocs:64 bytes:262144$' ||
	fail "hog stack group: $(echo "$hog" | sed -n 1p)"
expect_eq "stack line" "$(echo "$hog" | sed -n 2p)" \
	"Allocate 262144 (100.0%) bytes on 64 (100.0%) objects:"
echo "$hog" | sed -n 3p | grep -q '^    hog_alloc+0x[0-9a-f]*/0x[0-9a-f]* \[kmemprof_hog\]$' ||
	fail "first frame: $(echo "$hog" | sed -n 3p)"
echo "$hog" | sed -n 4p | grep -q '^    hog_init+0x[0-9a-f]*/0x[0-9a-f]* \[kmemprof_hog\]$' ||
	fail "second frame: $(echo "$hog" | sed -n 4p)"
rmmod kmemprof_hog

# key_depth=1: the hog's pages get a tag keyed by hog_alloc's caller,
# hog_init(), whose __init text is freed once the module is live: the tag
# keeps the caller's name from before.
write_knob $KMP_SYSCTL/key_depth 1 || fail "key_depth=1 refused"
insmod /modules/kmemprof_hog.ko pages=32 order=0 || fail "insmod hog"
write_knob $KMP_SYSCTL/key_depth 0 || fail "key_depth=0 refused"
line=$(grep ' func:hog_alloc kind:page ' /proc/kmemprof | grep ' req:131072 caller:')
echo "keyed: $line"
case "$line" in
*" req:131072 caller:hog_init+0x"*"[kmemprof_hog] module:unloaded") ;;
*) fail "stack-keyed tag: $line" ;;
esac
set -- $line
expect_eq "keyed live objects" "$2" 32
rmmod kmemprof_hog

# Flip the knobs while a load runs: no splat (the console is scanned).
workload 400 &
load=$!
i=0
while [ $i -lt 40 ]; do
	write_knob $KMP_SYSCTL/stack_depth $((i % 17))
	write_knob $KMP_SYSCTL/key_depth $((i % 5))
	write_knob $KMP_SYSCTL/sample_rate $((i % 3 + 1))
	cat $D/stacks $D/hist /proc/kmemprof > /dev/null
	i=$((i + 1))
done
wait $load

# Out-of-range values are refused and change nothing.
for kv in stack_depth=17 key_depth=5 sample_rate=0 stack_sample=0 \
	  stack_depth=-1 key_depth=abc sample_rate=2147483648; do
	k=${kv%%=*}
	before=$(cat $KMP_SYSCTL/$k)
	write_knob $KMP_SYSCTL/$k "${kv#*=}" && fail "$k took ${kv#*=}"
	expect_eq "$k after ${kv#*=}" "$(cat $KMP_SYSCTL/$k)" "$before"
done
write_knob $KMP_SYSCTL/max_size 100 || fail "max_size=100"
write_knob $KMP_SYSCTL/min_size 200 && fail "min_size above max_size"
write_knob $KMP_SYSCTL/max_size 0 || fail "max_size=0"
