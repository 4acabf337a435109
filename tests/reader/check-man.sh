#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The man page (debian/kmemprof.1) against the reader's --help: its
# SYNOPSIS and COMMANDS are what tools/kmemprof/man.sh makes of every
# command's --help, so a new command or option, or a changed text, fails
# here until the page is made again; the hand-written sections are
# there (OUTPUTS, ENVIRONMENT with KMEMPROF_ROOT, EXIT STATUS with each
# status the reader uses); groff reads it without a warning; and the
# package installs it and the documents its --help names. Prints
# 'P F S' last.
#
#   check-man.sh KMEMPROF
set -uo pipefail
K=${1:?usage: check-man.sh KMEMPROF}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PAGE=$TOP/debian/kmemprof.1
pass=0 fail=0 skip=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1"; else ko "$1" "want '$2', got '$3'"; fi; }

if out=$("$TOP/tools/kmemprof/man.sh" --check "$K" "$PAGE" 2>&1); then
	ok "man: SYNOPSIS and COMMANDS are --help's"
else
	ko "man: SYNOPSIS and COMMANDS are --help's" "$(echo "$out" | head -30)"
fi
cmds=$("$K" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit }
	on && /^  [a-z]/ { print $1 }')
missing=
for c in $cmds; do
	grep -q "^\.SS $c\( \|$\)" "$PAGE" || missing="$missing $c"
done
check "man: a COMMANDS entry for each of $(echo $cmds | wc -w) commands" "" "${missing# }"
check "man: its sections" "SYNOPSIS DESCRIPTION COMMANDS OUTPUTS ENVIRONMENT EXIT STATUS FILES EXAMPLES SEE ALSO" \
	"$(sed -n 's/^\.SH //p' "$PAGE" | grep -v NAME | tr '\n' ' ' | sed 's/ $//')"
check "man: ENVIRONMENT names KMEMPROF_ROOT" 1 \
	"$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH/p' "$PAGE" | grep -c '^\.B KMEMPROF_ROOT$')"
check "man: EXIT STATUS 0, 1, 2" "0 1 2" \
	"$(sed -n '/^\.SH EXIT STATUS/,/^\.SH/p' "$PAGE" | sed -n 's/^\.B \([0-9]\)$/\1/p' | tr '\n' ' ' | sed 's/ $//')"
# The statuses the reader returns are those: usage 2, failure 1.
"$K" nosuch > /dev/null 2>&1
a=$?
"$K" -i /nonexistent > /dev/null 2>&1
b=$?
check "man: kmemprof's statuses as the page says (unknown command, unreadable input)" "2 1" "$a $b"
if command -v groff > /dev/null; then
	check "man: groff -man -ww reads it without a warning" "" \
		"$(LC_ALL=C groff -man -ww -z "$PAGE" 2>&1 | head -5)"
else
	echo "SKIP man: groff (not installed)"
	skip=$((skip + 1))
fi
check "man: the package installs the page, and kmemprof-output.rst that --json names" \
	"1 1" \
	"$(grep -c 'kmemprof\.1' "$TOP/debian/rules") $(grep -c -x 'Documentation/kmemprof-output.rst' "$TOP/debian/kmemprof-tools.docs")"
echo "$pass $fail $skip"
