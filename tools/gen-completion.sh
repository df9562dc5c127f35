#!/bin/sh
# gen-completion.sh PROGRAM BINARY OUT: OUT, PROGRAM's bash completion, from
# `BINARY --completion-table` (the words of the tables its --help prints)
# and the completion every program shares (tools/completion.bash).  make
# runs it into $(B)/share/bash-completion/completions/PROGRAM; make install
# copies that where bash-completion looks.  No hand-kept word lists: a new
# command or option is completed the day --help shows it.
set -e
prog=$1 bin=$2 out=$3
here=$(dirname "$0")
table=$("$bin" --completion-table)
[ -n "$table" ] || { echo "gen-completion.sh: $bin --completion-table printed nothing" >&2; exit 2; }
fn=_$(printf '%s' "$prog" | tr -c 'A-Za-z0-9_\n' _)
{
	printf '%s\n' "# bash completion for $prog                                  -*- shell-script -*-" \
		"# Written by tools/gen-completion.sh from \`$prog --completion-table\` (the tables" \
		"# its --help prints) and tools/completion.bash: do not edit, edit those."
	cat "$here/completion.bash"
	printf '\n%s()\n{\n    _apenet_diag_complete '"'" "$fn"
	# the table inside single quotes: a ' in it as '\''
	printf '%s\n' "$table" | sed "s/'/'\\\\''/g"
	printf "'\n}\ncomplete -F %s %s\n" "$fn" "$prog"
} >"$out.tmp"
mv "$out.tmp" "$out"
