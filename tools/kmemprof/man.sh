#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The man page's SYNOPSIS and COMMANDS, from the reader's own --help:
# every command 'kmemprof --help' lists, with its usage line, what it
# does and each option 'kmemprof CMD --help' shows, in roff. They sit in
# debian/kmemprof.1 between the GENERATED markers; the rest of the page
# (description, outputs, environment, exit status, files) is written by
# hand.
#
#   man.sh KMEMPROF MANPAGE           rewrite MANPAGE's generated parts
#   man.sh --check KMEMPROF MANPAGE   exit 1, with a diff, if they differ
#
# tests/reader/check-man.sh runs --check, so the page cannot drift from
# --help. Run it on a full build (every output): the page is the
# package's, and the package has them all.
set -euo pipefail
check=
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
K=${1:?usage: man.sh [--check] KMEMPROF MANPAGE}
PAGE=${2:?usage: man.sh [--check] KMEMPROF MANPAGE}

# roff-safe text: backslashes, minus signs, a leading dot or quote.
esc() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

cmds=$("$K" --help | awk '/^commands:/ { on = 1; next }
	on && /^$/ { exit }
	on && /^  [a-z]/ { print $1 }')

gen_synopsis() {
	local c usage
	for c in $cmds; do
		usage=$("$K" "$c" --help | sed -n '1s/^usage: kmemprof //p')
		echo ".br"
		echo ".B kmemprof $c"
		# The arguments and [OPTIONS] after the command's name.
		usage=${usage#"$c"}
		usage=${usage# }
		[ -n "$usage" ] && echo "$usage" | esc
	done | tail -n +2
}

# One command: .SS, what it does, a .TP per option.
gen_command() {
	"$K" "$1" --help | awk -v cmd="$1" '
	function flush() {
		if (left != "") {
			print ".TP"
			print ".B " left
			print text
		}
		left = ""; text = ""
	}
	NR == 1 { sub(/^usage: kmemprof /, ""); print ".SS " $0; next }
	NR == 3 { print $0; print ".PP"; next }
	/^  -/ || /^      --/ {
		flush()
		l = substr($0, 3, 28); t = substr($0, 31)
		if (length($0) > 2 && substr($0, 30, 1) != " " && t == "") {
			l = substr($0, 3)	# a long left part: text below
		}
		sub(/^ +/, "", l); sub(/ +$/, "", l)
		left = l; text = t
		next
	}
	/^                              / {
		t = $0; sub(/^ +/, "", t)
		text = text (text == "" ? "" : " ") t
		next
	}
	END { flush() }' | esc | sed -e 's/^\\&\.TP$/.TP/' \
		-e 's/^\\&\.B /.B /' -e 's/^\\&\.SS /.SS /' -e 's/^\\&\.PP$/.PP/' \
		-e 's/^\.B \(.*\)$/.B "\1"/'
}

synopsis=$(gen_synopsis)
commands=$(for c in $cmds; do gen_command "$c"; done)

# Splice: the lines between each pair of markers are replaced.
new=$(awk -v syn="$synopsis" -v com="$commands" '
	/^\.\\" BEGIN GENERATED SYNOPSIS/ { print; print syn; skip = 1; next }
	/^\.\\" BEGIN GENERATED COMMANDS/ { print; print com; skip = 1; next }
	/^\.\\" END GENERATED/ { skip = 0 }
	!skip { print }' "$PAGE")
grep -q '^\.\\" BEGIN GENERATED SYNOPSIS' "$PAGE" &&
	grep -q '^\.\\" BEGIN GENERATED COMMANDS' "$PAGE" || {
	echo "man.sh: $PAGE has no GENERATED markers" >&2
	exit 2
}
if [ -n "$check" ]; then
	if ! diff -u "$PAGE" <(echo "$new") >&2; then
		echo "man.sh: $PAGE differs from $K's --help: run tools/kmemprof/man.sh $K $PAGE" >&2
		exit 1
	fi
	exit 0
fi
echo "$new" > "$PAGE.tmp"
mv "$PAGE.tmp" "$PAGE"
