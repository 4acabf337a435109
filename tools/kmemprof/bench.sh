#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: parse, sort and print a generated 100k-line /proc/kmemprof
# (every line printed: -n 0), best and median of 7 runs. Target: < 100 ms.
#   bench.sh KMEMPROF [LINES]
set -euo pipefail
BIN=${1:?usage: bench.sh KMEMPROF [LINES]}
LINES=${2:-100000}
f=$(mktemp /tmp/kmemprof-bench.XXXXXX)
trap 'rm -f "$f"' EXIT
awk -v n="$LINES" 'BEGIN {
	srand(1)
	print "kmemprof - version: 1.0"
	print "# <live bytes> <live objects> <site> [<module>] func:<function> kind:<kind> allocs:<n> frees:<n> bytes:<n> req:<n> [caller:<frame>]... [sampled:yes] [accurate:no] [module:unloaded]"
	split("slab page percpu", kinds, " ")
	for (i = 0; i < n; i++) {
		k = kinds[i % 3 + 1]; objs = int(rand() * 5000)
		sz = k == "page" ? 4096 : 64 * (1 + i % 16)
		a = objs + int(rand() * 100000)
		mod = (i % 7 == 0) ? sprintf(" [mod%d]", i % 50) : ""
		caller = (i % 11 == 0) ? sprintf(" caller:parent_%d+0x10/0x40", i) : ""
		printf "%12d %8d func_%d+0x%x/0x%x%s func:func_%d kind:%s allocs:%d frees:%d bytes:%d req:%d%s\n",
			objs * sz, objs, i, i % 4096, 4096 + i % 512, mod, i,
			k, a, a - objs, a * sz, a * sz - a, caller
	}
}' > "$f"
# Wall time, and CPU time (user + sys), which a loaded machine inflates less.
TIMEFORMAT='%R %U %S'
for sort in bytes allocs; do
	real=() cpu=()
	for i in 1 2 3 4 5 6 7; do
		t=$( { time "$BIN" -i "$f" -n 0 -s "$sort" > /dev/null; } 2>&1 )
		read -r r u s <<< "$t"
		real+=("$(echo "$r * 1000 / 1" | bc)")
		cpu+=("$(echo "($u + $s) * 1000 / 1" | bc)")
	done
	rs=$(printf '%s\n' "${real[@]}" | sort -n)
	cs=$(printf '%s\n' "${cpu[@]}" | sort -n)
	echo "bench: $LINES lines, --sort $sort -n 0 (parse, sort, print all):" \
		"wall best $(echo "$rs" | head -1) ms median $(echo "$rs" | sed -n 4p) ms;" \
		"cpu best $(echo "$cs" | head -1) ms median $(echo "$cs" | sed -n 4p) ms" \
		"(target < 100 ms)"
done
# A yardstick from the same machine: coreutils' sort -g of the same file.
t=$( { time sort -g "$f" > /dev/null; } 2>&1 )
read -r r u s <<< "$t"
echo "bench: for scale, 'sort -g' of the same file: cpu $(echo "($u + $s) * 1000 / 1" | bc) ms"
echo "bench: load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
