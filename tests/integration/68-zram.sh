#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# zram's pages keep their owner when they migrate (issue 38). zsmalloc's
# pages are movable, but move through its own zs_page_migrate(), not
# folio_migrate_flags(), which the migration hook follows: kmemprof hooks
# it too (hooks.c, zs_migrate). zram0 gets compressible data, and
# zsmalloc's page site (alloc_zspage) then holds exactly the pool's pages,
# mem_used_total in zram's mm_stat; compact_memory migrates movable pages,
# zsmalloc's among them, and the site holds exactly the pool's pages
# still. Before the hook, each page moved came off the site (its source's
# free paid the entry off, its destination had none).
. /tests/lib.sh

[ -e /sys/block/zram0/disksize ] ||
	{ echo "SKIP: no zram on this kernel"; exit 77; }
[ -w /proc/sys/vm/compact_memory ] ||
	{ echo "SKIP: no CONFIG_COMPACTION on this kernel"; exit 77; }
keep_module
trap 'echo 1 > /sys/block/zram0/reset; restore_state' EXIT

reload || fail "insmod"
echo 1 > /sys/block/zram0/reset
echo 64M > /sys/block/zram0/disksize || fail "zram0 disksize"

# pool: the pool's bytes; site: the live bytes of zsmalloc's page site,
# alloc_zspage(), or zs_malloc() where the compiler inlined the one into
# the other.
pool() { awk '{ print $3 }' /sys/block/zram0/mm_stat; }
site() {
	awk '/ func:(alloc_zspage|zs_malloc) / && / kind:page / { s += $1 } END { print s + 0 }' \
		/proc/kmemprof
}

# 16 MiB of text: compressible, and no page of it the same byte throughout
# (zram keeps those apart, with no zsmalloc object).
awk 'BEGIN { for (i = 0; i < 500000; i++) printf "kmemprof zram %08d %08x\n", i, i * 2654435761 }' \
	> /dev/zram0 || fail "writing zram0"
sync
echo "INFO mm_stat: $(cat /sys/block/zram0/mm_stat)"
grep -E ' func:zs_[a-z_]+ | func:alloc_zspage ' /proc/kmemprof | sed 's/^/INFO /'
[ "$(pool)" -gt 0 ] || fail "zram0 holds no zsmalloc page"
expect_eq "alloc_zspage live bytes, written" "$(site)" "$(pool)"

case ",$(stat_value hooks)," in
*,zs_migrate,*) hooked=1 ;;
*) hooked= ; echo "INFO zs_page_migrate is not hooked here: $(stat_value untraced)" ;;
esac
# A compaction need not move any zsmalloc page (Debian's 6.1, in one
# run: 2722 pages moved, none of them zsmalloc's). Up to three passes
# where the hook is there; one where it is not.
calls=$(stat_value hook.zs_migrate.calls)
moved=$(stat_value page_moved)
for pass in 1 2 3; do
	echo 1 > /proc/sys/vm/compact_memory
	[ -n "$hooked" ] && [ "$(stat_value hook.zs_migrate.calls)" -le "$calls" ] || break
done
echo "INFO compaction ($pass passes): zs_migrate calls ${calls:-none} -> $(stat_value hook.zs_migrate.calls)," \
	"page_moved $moved -> $(stat_value page_moved)"
[ -n "$hooked" ] || exit 0
# moved or not, the site holds the pool's pages
expect_eq "alloc_zspage live bytes, compacted" "$(site)" "$(pool)"
[ "$(stat_value hook.zs_migrate.calls)" -gt "$calls" ] || {
	echo "SKIP: compaction moved no zsmalloc page in $pass passes: the move was not tested"
	exit 77
}
exit 0
