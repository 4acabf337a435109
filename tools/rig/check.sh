#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test, on every kernel of the matrix.
#
# Prints one line per suite and ends with 'N passed, N failed' (and
# ', N skipped' when some were). Exits non-zero when anything failed.
#
# TESTS narrows a run to some of the guest's tests, on each of KERNELS:
#
#   make check KERNELS=6.12 TESTS=30-knobs    one shell test (tests/integration)
#   make check TESTS="30-knobs 60-views"      two
#   make kunit KERNELS=6.12                   KUnit only (TESTS=kunit)
#   make check TESTS=kmemprof_knobs           one KUnit suite; a glob as
#                                             kunit.filter_glob takes it
#                                             (6.3+; older kernels run all)
#
# With TESTS, only the kernel is tested: the host suites (harness, device
# tree, reader and its fuzzing, packaging), lint, reader-live and the
# device-tree boot are left out, and the guest runs only what was named.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# 6.12-debug: 6.12 with KASAN, lockdep, PROVE_RCU, DEBUG_PREEMPT and
# slub_debug (tests/qemu/kernel-debug.config).
# make check-matrix adds 5.10, 7.x and 6.1-vendor (Rockchip's options),
# and Debian's prebuilt 6.1 and 6.12 (debian-6.1, debian-6.12:
# tools/rig/distro.sh), and the reference BSP tree when it is in the cache
# (bsp: a vendor's tree, tools/rig/bsp.sh, which make check-bsp runs on a
# user's own).
KERNELS=${KERNELS:-6.1 6.12}
# 69-stress-ng, stress-ng's load (issue 38), runs on the kernels of
# STRESS_KERNELS, told so with $STRESS on the command line (rigstress=W,N:
# windows of W seconds, N disable/enable cycles), and wherever TESTS names
# it. make check: one short round on 6.12 (about 2 minutes with the boot).
# make check-matrix: longer rounds on 6.12, 6.12-debug, the 3 GiB guest
# with a 1 GiB hugetlb page (6.12@3G) and Debian's 6.1 and 6.12.
STRESS_KERNELS=${KMEMPROF_STRESS_KERNELS:-6.12}
STRESS=${KMEMPROF_STRESS:-rigstress=4,1}
# stress_append K: what K's command line gets for 69-stress-ng.
stress_append() {
	case " $STRESS_KERNELS " in
	*" $1 "*) echo "$STRESS" ;;
	esac
}
TESTS=$(echo "${TESTS:-}" | tr ', ' '  ')
OUT=$TOP/.build/check
TALLY=$OUT/tally
mkdir -p "$OUT"
: > "$TALLY"

# host_suite LABEL COMMAND...: a host-side suite that prints its own
# 'P F S' tally as its last line.
host_suite() {
	local label=$1 log=$OUT/$(echo "$1" | tr / _).log
	shift
	"$@" > "$log" 2>&1
	local rc=$? last
	last=$(tail -n 1 "$log")
	if ! [[ $last =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]]; then
		last="0 1 0"
	fi
	read -r p f s <<< "$last"
	[ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1
	echo "$p $f $s" >> "$TALLY"
	if [ "$f" -gt 0 ]; then
		echo "FAIL $label ($p passed, $f failed)"
		sed '$d' "$log" | tail -n 30 | sed 's/^/     /'
	else
		echo "PASS $label ($p passed, $f failed${s:+, $s skipped})" |
			sed 's/, 0 skipped//'
	fi
}

fail_suite() {
	echo "FAIL $1"
	shift
	printf '     %s\n' "$@"
	echo "0 1 0" >> "$TALLY"
}

# What the guest is told to run (rigtests=), and KUnit's suite filter.
append= want= glob=
for t in $TESTS; do
	t=${t%.sh}
	case "$t" in
	kunit) ;;
	kmemprof_*)
		[ -z "$glob" ] || { echo "TESTS: one KUnit suite glob at a time" >&2; exit 2; }
		glob=$t
		;;
	*)
		[ -f "$TOP/tests/integration/$t.sh" ] ||
			{ echo "TESTS: no test $t (kunit, kmemprof_SUITE, or one of:" \
				$(cd "$TOP/tests/integration" && ls [0-9]*.sh | sed 's/\.sh$//') ")" >&2
			  exit 2; }
		;;
	esac
	want=$want${want:+,}$t
done
[ -n "$want" ] && append="rigtests=$want"
[ -n "$glob" ] && append="$append kunit.filter_glob=$glob"

# QEMU's single-threaded TCG, for KUnit and 83-attach (see below).
SINGLE="-accel tcg,thread=single"

# The debug guest's shell tests in make check (see below), and KUnit.
DEBUG_TESTS=56-untraced,58-coexist,59-reset-hooks,62-migrate,64-prior,72-owners,73-oom,80-stress,82-races,85-hostile,90-unload

start=$(date +%s)
"$TOP/tools/rig/deps.sh" || fail_suite deps "installing packages failed"

# make check-debug: its guest alone (KMEMPROF_HOST_SUITES=0)
if [ -z "$TESTS" ] && [ "${KMEMPROF_HOST_SUITES:-1}" = 1 ]; then
	host_suite harness/results "$TOP/tests/harness/selftest.sh"
	host_suite harness/recipes "$TOP/tests/harness/build-recipes.sh"
	host_suite harness/bsp "$TOP/tests/harness/check-bsp.sh"
	host_suite dt/overlay "$TOP/tools/rig/dt-test.sh"
	host_suite reader/unit "$TOP/tools/rig/reader-test.sh"
	host_suite packaging "$TOP/tools/rig/package-test.sh"
fi

for k in $KERNELS; do
	t0=$(date +%s)
	# Debian's own kernels, prebuilt (make check-distro).
	case "$k" in
	debian-*)
		KMEMPROF_APPEND="${KMEMPROF_APPEND:-} $(stress_append "$k")" \
		TALLY=$TALLY "$TOP/tools/rig/distro.sh" "${k#debian-}"
		continue
		;;
	esac
	# K@3G: kernel K on a 3 GiB guest with a 1 GiB hugetlb page beside
	# the 2 MiB pool, for what needs the room (TESTS, or 69-stress-ng
	# and 65-meminfo).
	mem= kt=$k ktests=$want kappend=$append
	case "$k" in
	*@3G)
		kt=${k%@3G} mem=3G
		[ -n "$ktests" ] || ktests=69-stress-ng,65-meminfo
		kappend="rigtests=$ktests hugepagesz=1G hugepages=1${glob:+ kunit.filter_glob=$glob}"
		;;
	esac
	# A vendor's tree (bsp) is run through kbuild again at its first use
	# here, for what changed in it since its build (make check-bsp has
	# done so already: KMEMPROF_BSP_REFRESH=0).
	if ! KMEMPROF_BSP_REFRESH=${KMEMPROF_BSP_REFRESH:-1} \
		"$TOP/tools/rig/kernel.sh" "$kt" > "$OUT/kernel-$k.log" 2>&1; then
		fail_suite "$k/kernel" "$(tail -n 20 "$OUT/kernel-$k.log")"
		continue
	fi
	if ! "$TOP/tools/rig/build.sh" "$kt" "$TOP/.build/$kt" \
		> "$OUT/build-$k.log" 2>&1; then
		fail_suite "$k/build" "$(tail -n 30 "$OUT/build-$k.log")"
		continue
	fi
	echo "PASS $k/build (W=1, warnings as errors)"
	echo "1 0 0" >> "$TALLY"
	[ "$k" = 6.12 ] && [ -z "$TESTS" ] &&
		host_suite "$k/lint" "$TOP/tools/rig/lint.sh" "$k"
	# (a vendor's kernel probes more at boot, and may have debug options)
	case "$k" in
	*-debug) timeout=2400 ;;
	bsp) timeout=1800 ;;
	*) timeout=900 ;;
	esac
	# make check's debug guest runs the judges' share: KUnit and the
	# tests of concurrency and of the page path, where KASAN, lockdep and
	# PROVE_RCU find what the other kernels cannot; the tests of formats
	# and views run on 6.1 and 6.12. make check-matrix runs all of them
	# there too (KMEMPROF_DEBUG_ALL=1).
	full=
	[ -z "$TESTS" ] && [ -z "$mem" ] && full=1
	case "$k" in
	*-debug)
		if [ -n "$full" ] && [ -z "${KMEMPROF_DEBUG_ALL:-}" ]; then
			ktests=$DEBUG_TESTS full=debug
			kappend="rigtests=$DEBUG_TESTS race_cycles=16"
		fi
		;;
	esac
	# KUnit and 83-attach run on single-threaded TCG (SINGLE): under the
	# multi-threaded one, QEMU 7.2 can go on running a translation of a
	# function made before its tracepoint was patched, on one vCPU or all,
	# which loses that function's events after an attach (83-attach says
	# how that was seen). KUnit detaches and attaches between its cases
	# (reset, enable cycles): on 6.1, after core_large_kmalloc_key_depth's
	# reset, the kfree() events of one vCPU were lost until the bulk suite
	# (core_cross_cpu_frees_exact: 2332 of 4000 live, a vCPU's share),
	# failing 12 cases of the CI run of b37bbd0; on the single-threaded
	# TCG, KUnit takes no longer (6.1: 62 s against 68). A boot that TESTS
	# gives either runs so; in a full run they have a boot of their own,
	# below, and the main boot runs the shell tests alone.
	single=
	if [ "$full" = 1 ]; then
		single=kunit,83-attach kappend="rigtests=shell"
	elif [ "$full" = debug ]; then
		single=kunit
		[ -n "${KMEMPROF_ATTACH_DEBUG:-}" ] && single=kunit,83-attach
	fi
	qextra=${KMEMPROF_QEMU_EXTRA:-}
	case ",$ktests,$glob" in
	*,kunit,* | *,83-attach,* | *,kmemprof_*)
		qextra="$qextra $SINGLE"
		kappend="$kappend rigsingle=1"
		;;
	esac
	KMEMPROF_MEM=${mem:-${KMEMPROF_MEM:-}} KMEMPROF_TIMEOUT=$timeout \
	KMEMPROF_QEMU_EXTRA=$qextra \
	KMEMPROF_APPEND="${KMEMPROF_APPEND:-} $kappend $(stress_append "$k")" \
		"$TOP/tests/qemu/run.sh" "$kt" check "$TOP/.build/$kt" "$OUT/$k"
	"$TOP/tools/rig/results.py" "$OUT/$k" "$k" --tally "$TALLY" \
		--want "$ktests"
	# The host's full reader build on the views the live module wrote.
	# (25-reader wrote them: not on the debug guest's share of make check,
	# nor on the 3 GiB guest, which runs two tests)
	[ "$full" = 1 ] &&
		host_suite "$k/reader-live" "$TOP/tools/rig/reader-live.sh" "$OUT/$k"
	# A second, short boot with the test overlay applied to the DTB.
	case "$k${TESTS:+ tests}" in
	*-debug | *@3G | *" tests") ;;
	*)
		KMEMPROF_DTSO=$TOP/tests/qemu/kmemprof-test.dtso \
		KMEMPROF_TIMEOUT=300 \
			"$TOP/tests/qemu/run.sh" "$k" dt "$TOP/.build/$k" "$OUT/$k-dt"
		"$TOP/tools/rig/results.py" "$OUT/$k-dt" "$k/dt" --tally "$TALLY"
		;;
	esac
	# KUnit's and 83-attach's own boot (see SINGLE above).
	if [ -n "$single" ]; then
		KMEMPROF_TIMEOUT=$timeout \
		KMEMPROF_QEMU_EXTRA="${KMEMPROF_QEMU_EXTRA:-} $SINGLE" \
		KMEMPROF_APPEND="${KMEMPROF_APPEND:-} rigtests=$single rigsingle=1 $(stress_append "$k")" \
			"$TOP/tests/qemu/run.sh" "$kt" check "$TOP/.build/$kt" \
			"$OUT/$k-single"
		"$TOP/tools/rig/results.py" "$OUT/$k-single" "$k/single" \
			--tally "$TALLY" --want "$single"
	fi
	# A vendor's tree (tools/rig/bsp.sh): the board overlay on its own
	# DTB of the board, then its options that matter to kmemprof, and
	# what skipped on it.
	if [ "$k" = bsp ]; then
		kdir=$("$TOP/tools/rig/kernel.sh" bsp)
		host_suite bsp/board-dtb "$TOP/tools/rig/bsp.sh" board-dtb "$kdir"
		"$TOP/tools/rig/bsp.sh" report "$kdir" "$OUT/$k" "$OUT/$k-single"
	fi
	echo "     ($k: $(($(date +%s) - t0)) s)"
done

read -r P F S < <(awk '{ p += $1; f += $2; s += $3 } END { print p+0, f+0, s+0 }' "$TALLY")
echo "(make check: $(($(date +%s) - start)) s)"
if [ "$S" -gt 0 ]; then
	echo "$P passed, $F failed, $S skipped"
else
	echo "$P passed, $F failed"
fi
[ "$F" -eq 0 ]
