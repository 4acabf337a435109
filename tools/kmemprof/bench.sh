#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: parse, sort and print a generated 100k-line /proc/kmemprof
# (every line printed: -n 0), best and median of 7 runs. Target: < 100 ms.
# Then plot series of an hour's record (watch -d 2 --record: 1800
# snapshots of 1000 sites, about 200 MB), best of 3: wall, CPU, peak RSS.
#   bench.sh KMEMPROF [LINES [SNAPSHOTS SITES]]
#   BENCH_SERIES=0 leaves the record out.
set -euo pipefail
BIN=${1:?usage: bench.sh KMEMPROF [LINES [SNAPSHOTS SITES]]}
LINES=${2:-100000}
SNAPS=${3:-1800}
SITES=${4:-1000}
f=$(mktemp /tmp/kmemprof-bench.XXXXXX)
rec=$(mktemp /tmp/kmemprof-bench-rec.XXXXXX)
trap 'rm -f "$f" "$rec"' EXIT
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

[ "${BENCH_SERIES:-1}" = 0 ] && exit 0
# An hour's record: each site's live bytes drift, a tenth of the sites
# come and go (so the record has more keys than one snapshot).
awk -v snaps="$SNAPS" -v sites="$SITES" 'BEGIN {
	srand(2)
	for (t = 0; t < snaps; t++) {
		print "kmemprof - version: 1.0"
		printf "# snapshot time:%.3f source:/proc/kmemprof\n", 1795316000 + 2 * t
		print "# <live bytes> <live objects> <site> [<module>] func:<function> kind:<kind> allocs:<n> frees:<n> bytes:<n> req:<n>"
		for (i = 0; i < sites; i++) {
			id = (i % 10 == 0) ? i + sites * int(t / 60) : i
			objs = int(1000 + 500 * sin(t / 100 + i)) + int(rand() * 10)
			a = objs + t * 3
			printf "%12d %8d func_%d+0x%x/0x200 func:func_%d kind:slab allocs:%d frees:%d bytes:%d req:%d\n",
				objs * 64, objs, id, id % 512, id, a, a - objs, a * 64, a * 60
		}
	}
}' > "$rec"
mb=$(( $(stat -c %s "$rec") / 1048576 ))
best_r= best_c= best_m=
for i in 1 2 3; do
	if ! t=$( { /usr/bin/time -f '%e %U %S %M' "$BIN" plot series "$rec" -o /dev/null; } 2>&1 ); then
		echo "bench: plot series of $SNAPS snapshots x $SITES sites ($mb MB): failed: $(echo "$t" | head -3 | tr '\n' ' ')"
		exit 0
	fi
	read -r r u s m <<< "$(echo "$t" | tail -1)"
	c=$(echo "($u + $s) * 1000 / 1" | bc)
	r=$(echo "$r * 1000 / 1" | bc)
	if [ -z "$best_r" ] || [ "$r" -lt "$best_r" ]; then best_r=$r; fi
	if [ -z "$best_c" ] || [ "$c" -lt "$best_c" ]; then best_c=$c; fi
	if [ -z "$best_m" ] || [ "$m" -lt "$best_m" ]; then best_m=$m; fi
done
echo "bench: plot series of $SNAPS snapshots x $SITES sites ($mb MB):" \
	"wall best $best_r ms; cpu best $best_c ms; peak RSS $((best_m / 1024)) MiB"
