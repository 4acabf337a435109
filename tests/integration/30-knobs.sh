#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The sysctl knobs: toggling works, reset works, bad input is refused
# with the state unchanged.
. /tests/lib.sh
keep_knobs enabled events

expect_eq "enabled" "$(cat $KMP_SYSCTL/enabled)" 1
expect_eq "events" "$(cat $KMP_SYSCTL/events)" "slab,page,percpu"

long=$(head -c 65536 /dev/zero | tr '\0' 1)
for v in "-1" "2" "18446744073709551616" "18446744073709551617" "0x1" \
	 "abc" "1abc" "1 1" " " "
" "$long"; do
	write_knob $KMP_SYSCTL/enabled "$v" && fail "enabled took '$v'"
	expect_eq "enabled after '$v'" "$(cat $KMP_SYSCTL/enabled)" 1
	write_knob $KMP_SYSCTL/reset "$v" && fail "reset took '$v'"
done
write_knob $KMP_SYSCTL/reset 0 && fail "reset took 0"
for v in "slab,foo" "slab,,page" "SLAB" "slab page" "," "all" "$long"; do
	write_knob $KMP_SYSCTL/events "$v" && fail "events took '$v'"
	expect_eq "events after '$v'" "$(cat $KMP_SYSCTL/events)" \
		"slab,page,percpu"
done

# enabled=0 stops every count; 1 resumes them.
write_knob $KMP_SYSCTL/enabled 0 || fail "enabled=0 refused"
expect_eq "stats enabled" "$(stat_value enabled)" 0
before=$(stat_value events.kmalloc)
workload 10
expect_eq "kmalloc events while disabled" "$(stat_value events.kmalloc)" "$before"
write_knob $KMP_SYSCTL/enabled 1 || fail "enabled=1 refused"
workload 10
[ "$(stat_value events.kmalloc)" -gt "$before" ] || fail "no events after enabled=1"

# A disable/enable cycle pairs what its own detach allocates: taking an
# ftrace hook off waits for an RCU Tasks Rude grace period, which on 6.1
# allocates and frees a percpu area (schedule_on_each_cpu()) as the probes
# go off. With the percpu free probe left on after its allocation probe,
# each was an unpaired free: 5 a cycle. On the idle guest, three add none.
upc=$(stat_value unpaired.percpu)
for i in 1 2 3; do
	write_knob $KMP_SYSCTL/enabled 0 || fail "enabled=0 refused"
	write_knob $KMP_SYSCTL/enabled 1 || fail "enabled=1 refused"
done
expect_eq "unpaired.percpu after 3 disable/enable cycles" "$(stat_value unpaired.percpu)" "$upc"

# events=slab: page events stop, slab events go on.
write_knob $KMP_SYSCTL/events slab || fail "events=slab refused"
expect_eq "events read back" "$(cat $KMP_SYSCTL/events)" slab
pages=$(stat_value events.mm_page_alloc)
workload 10
expect_eq "page events with events=slab" "$(stat_value events.mm_page_alloc)" "$pages"
write_knob $KMP_SYSCTL/events "slab,page,percpu
" || fail "events=all refused"

# reset zeroes the tags and the live table: a held allocation reads 0 0.
rmmod kmemprof_hog 2>/dev/null
insmod /modules/kmemprof_hog.ko pages=64 order=0 || fail "insmod hog"
write_knob $KMP_SYSCTL/reset 1 || fail "reset=1 refused"
line=$(proc_line hog_alloc)
set -- $line
expect_eq "live bytes after reset" "$1" 0
expect_eq "allocs after reset" "$(line_key "$line" allocs)" 0
# The reset entered the hog's pages again, on before_load:other (the page
# probes were attached anew): their frees pair there, not on the hog.
other=$(awk '$3 == "before_load:other" { print $1 }' /proc/kmemprof)
rmmod kmemprof_hog
moved=$(grep ' func:hog_alloc ' /proc/kmemprof | grep -v ' frees:0 ')
[ -z "$moved" ] || fail "pre-reset objects paired after reset: $moved"
left=$(awk '$3 == "before_load:other" { print $1 }' /proc/kmemprof)
[ $((other - left)) -ge $((64 * 4096)) ] ||
	fail "pre-reset frees not paired on before_load:other: $other -> $left"
