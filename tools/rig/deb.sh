#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: build the kmemprof-dkms and kmemprof-tools packages with
# debhelper and dh-dkms.
#
#   tools/rig/deb.sh [OUT]     # default OUT: .build/deb
#
# The sources (what git tracks, plus new files it does not ignore) are
# copied to OUT/src and built there with dpkg-buildpackage -b, so nothing
# is written into the work tree or its parent: the .deb, .buildinfo and
# .changes files land in OUT. Extra dpkg-buildpackage options can be given
# in DEB_BUILD_ARGS (DEB_BUILD_OPTIONS=nocheck skips the reader's tests).
# KMEMPROF_DEB_BUILD=all builds kmemprof-dkms alone, =any kmemprof-tools
# alone (dpkg-buildpackage --build; default: binary, both).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(realpath -m "${1:-$TOP/.build/deb}")
SRC=$OUT/src

case "$OUT/" in
"$TOP/.build/"*) ;;
"$TOP/"*) echo "deb: OUT must be outside the sources or under .build/" >&2
	exit 1 ;;
esac

rm -rf "$OUT"
mkdir -p "$SRC"

if git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$TOP" ls-files -z --cached --others --exclude-standard |
		rsync -a --from0 --files-from=- --ignore-missing-args \
			"$TOP/" "$SRC/"
else
	rsync -a --exclude=/.git --exclude=/.build --exclude=/.cache \
		--exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
		--exclude='*.mod*' --exclude=modules.order \
		--exclude=Module.symvers --exclude='*.a' \
		--exclude=/tools/kmemprof/kmemprof \
		--exclude=/tools/kmemprof/test_reader \
		"$TOP/" "$SRC/"
fi

cd "$SRC"
if ! dpkg-checkbuilddeps >/dev/null 2>&1; then
	dpkg-checkbuilddeps 2>&1 | sed 's/^/deb: /' >&2 || true
	echo "deb: install them with: sudo apt-get build-dep $TOP" >&2
	exit 1
fi

log=$OUT/build.log
# shellcheck disable=SC2086  # DEB_BUILD_ARGS is a list of options
if ! dpkg-buildpackage -us -uc --build="${KMEMPROF_DEB_BUILD:-binary}" ${DEB_BUILD_ARGS:-} > "$log" 2>&1; then
	tail -n 40 "$log" >&2
	echo "deb: dpkg-buildpackage failed; log in $log" >&2
	exit 1
fi
ls "$OUT"/*.deb
