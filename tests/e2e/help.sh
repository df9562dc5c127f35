#!/bin/sh
# Every command helps itself: `apenet CMD --help` (-h, `apenet help CMD`) for
# every command `apenet --help` lists: its synopsis, options, exit status and
# an example, held to what the command accepts (each option it lists is
# accepted; each option its source takes is listed; the synopsis and the
# options agree); usage errors name `apenet CMD --help`; --version of every
# program says the Makefile's VERSION and the JSON schema; every man page
# renders without a warning.  No card or emulator: the commands are run
# against a node directory that does not exist, so none gets further than
# its options.
. "$(dirname "$0")/../e2e_lib.sh"
SRC=${APENET_SRCDIR:-.}
T=$(mktemp -d /tmp/apenet-help-XXXXXX)
trap 'rm -rf "$T"' EXIT
unset APENET_SIM_DIR
export APENET_CONFIG=   # set but empty: the built-in defaults, never an installed config
A="$BIN/apenet"

"$A" --help >"$T/usage" 2>"$T/usage.err" || fail "apenet --help: exit $?"
cmds=$(sed -n '/^commands:/,/^$/p' "$T/usage" | awk 'NR > 1 && NF { print $1 }')
[ "$(echo "$cmds" | wc -l)" -ge 20 ] || fail "apenet --help lists only: $cmds"
grep -q 'apenet COMMAND --help' "$T/usage" || fail "apenet --help does not mention COMMAND --help"
"$A" help >"$T/usage2" || fail "apenet help: exit $?"
cmp -s "$T/usage" "$T/usage2" || fail "apenet help differs from apenet --help"

# The options of a help text (lines "  -x ..." of its options section), one
# "NAME VALUE" a line (VALUE: - for a flag).
options() {
	sed -n '/^options:/,/^$/p' "$1" |
		awk -F '  +' '/^  -/ { n = split($2, w, " "); print w[1], (n > 1 ? "x" : "-") }'
}
# The options its synopsis names (-o, --name), one a line.
synopsis_options() {
	sed -n '/^usage:/,/^$/p' "$1" | grep -oE '(^|[][ (|])--?[a-z][a-z0-9-]*' | sed 's/^[][ (|]//' | sort -u
}

n=0
for c in $cmds; do
	n=$((n + 1))
	h="$T/$c.help"
	"$A" "$c" --help >"$h" 2>"$T/$c.err" || fail "apenet $c --help: exit $?"
	[ -s "$T/$c.err" ] && fail "apenet $c --help wrote on stderr: $(cat "$T/$c.err")"
	grep -q "^usage: apenet $c\( \|$\)" "$h" || fail "apenet $c --help: no 'usage: apenet $c': $(head -2 "$h")"
	for s in options 'exit status' example; do
		grep -q "^$s:\$" "$h" || fail "apenet $c --help: no '$s:' section"
	done
	sed -n '/^example:/,$p' "$h" | sed -n 2p | grep -q "^  apenet $c\( \|$\)" ||
		fail "apenet $c --help: the example is not an apenet $c command line"
	sed -n '/^exit status:/,/^$/p' "$h" | grep -q '^  0  ' || fail "apenet $c --help: exit status 0 not described"
	sed -n '/^exit status:/,/^$/p' "$h" | grep -q '^  2  ' || fail "apenet $c --help: exit status 2 not described"
	"$A" "$c" -h >"$T/$c.h" || fail "apenet $c -h: exit $?"
	"$A" help "$c" >"$T/$c.help2" || fail "apenet help $c: exit $?"
	cmp -s "$h" "$T/$c.h" || fail "apenet $c -h differs from --help"
	cmp -s "$h" "$T/$c.help2" || fail "apenet help $c differs from apenet $c --help"

	options "$h" >"$T/$c.opts"
	# the synopsis and the options section name the same options
	synopsis_options "$h" >"$T/$c.syn"
	awk '{ print $1 }' "$T/$c.opts" | sort -u >"$T/$c.optnames"
	for o in $(cat "$T/$c.syn"); do
		case "$o" in --sim | --dev | --json | --csv) continue ;; esac
		grep -qx -- "$o" "$T/$c.optnames" || fail "apenet $c --help: the synopsis has $o, the options do not"
	done
	for o in $(cat "$T/$c.optnames"); do
		grep -qx -- "$o" "$T/$c.syn" || fail "apenet $c --help: $o is an option but not in the synopsis"
	done
	# every option the command's source takes is in its help: the source is
	# cli/cmd_NAME.c, or the file that defines cmd_NAME() (cmd_actions.c)
	fn=cmd_$(echo "$c" | tr - _)
	f="$SRC/cli/$fn.c"
	[ -f "$f" ] || f=$(grep -l "^int $fn(struct cli \*c)" "$SRC"/cli/*.c | head -1)
	[ -n "$f" ] && [ -f "$f" ] || fail "apenet $c: no cli/$fn.c and no file defining $fn()"
	if [ -f "$f" ]; then
		for o in $(grep -oE '"--?[a-z][a-z0-9-]*"' "$f" | tr -d '"' | sort -u); do
			grep -qx -- "$o" "$T/$c.optnames" || fail "apenet $c takes $o ($f) but its --help does not list it"
		done
	fi
	# every option the help lists is one the command accepts: run it (with a
	# value when it takes one) against a node directory that does not exist
	while read -r o v; do
		if [ "$v" = - ]; then set -- "$o"; else set -- "$o" "$v"; fi
		(cd "$T" && timeout 60 "$A" "$c" "$@" --sim "$T/no-such-node") >/dev/null 2>"$T/try.err"
		rc=$?
		[ $rc -eq 124 ] && fail "apenet $c $*: still running after 60 s"
		if grep -qE "unknown option|takes no value|needs a value|unexpected argument" "$T/try.err"; then
			fail "apenet $c --help lists $o, the command refuses it: $(cat "$T/try.err")"
		fi
	done <"$T/$c.opts"

	# a usage error names this command's --help, and exits 2
	"$A" "$c" --no-such-option >/dev/null 2>"$T/bad.err"
	rc=$?
	[ $rc -eq 2 ] || fail "apenet $c --no-such-option: exit $rc"
	grep -q "(see apenet $c --help)" "$T/bad.err" || fail "apenet $c usage error: $(cat "$T/bad.err")"
done

# A number that is not one (an error after the options were parsed) too.
"$A" ber-plan --target 1e-12 --cl 95 --gbps 7 >/dev/null 2>"$T/cl.err"
[ $? -eq 2 ] || fail "ber-plan --cl 95: exit not 2"
grep -q "^apenet ber-plan: --cl '95' is not a number in 0.5..0.999999 (see apenet ber-plan --help)\$" "$T/cl.err" ||
	fail "ber-plan --cl 95: $(cat "$T/cl.err")"
# An unknown command, and help for one.
"$A" nosuch >/dev/null 2>"$T/nc.err"
[ $? -eq 2 ] && grep -q "unknown command 'nosuch' (see apenet --help)" "$T/nc.err" || fail "unknown command: $(cat "$T/nc.err")"
"$A" help nosuch >/dev/null 2>"$T/nc.err"
[ $? -eq 2 ] && grep -q "unknown command 'nosuch'" "$T/nc.err" || fail "apenet help nosuch: $(cat "$T/nc.err")"
# With no command at all: the usage on stderr, exit 2.
"$A" >/dev/null 2>"$T/none.err"
[ $? -eq 2 ] && grep -q "^usage: apenet" "$T/none.err" || fail "apenet with no command"

# The exit codes the help promises where they differ from 0/1/2.
for c in ber sweep qualify; do
	grep -q '^  3  inconclusive' "$T/$c.help" || fail "apenet $c --help: no exit 3 (inconclusive)"
done
grep -q '^  1  with --count N: a fail finding was shown' "$T/watch.help" || fail "apenet watch --help: exit 1"

# --version of every program: the Makefile's VERSION and the JSON schema.
version=$(sed -n 's/^VERSION := *//p' "$SRC/Makefile")
schema=$(sed -n 's/^#define APENET_JSON_SCHEMA "\(.*\)"$/\1/p' "$SRC/include/apenet/out.h")
[ -n "$version" ] && [ -n "$schema" ] || fail "no VERSION in the Makefile or no schema in out.h"
for p in apenet apenet-sim apenet-agent apenet-supervisor apenet-top check_apenet; do
	want=0
	[ "$p" = check_apenet ] && want=3 # -V/--version: UNKNOWN, as the Monitoring Plugins' own
	for flag in --version $([ "$p" = check_apenet ] && echo -V); do
		out=$("$BIN/$p" $flag 2>"$T/v.err")
		rc=$?
		[ $rc -eq $want ] || fail "$p $flag: exit $rc, not $want"
		[ "$out" = "$p $version (JSON schema $schema)" ] || fail "$p $flag: '$out'"
		[ -s "$T/v.err" ] && fail "$p $flag wrote on stderr: $(cat "$T/v.err")"
	done
done
# and it is no unknown option in their --help
for p in apenet apenet-sim apenet-agent apenet-supervisor apenet-top check_apenet; do
	"$BIN/$p" --help 2>/dev/null | grep -q -- '--version' || fail "$p --help does not mention --version"
done

# Man pages: each renders without a warning (man's, and groff's own at -ww),
# and the ones this issue asked for say what they must.
for m in "$SRC"/docs/man/*.[1-8]; do
	MANWIDTH=80 man --warnings -l "$m" >/dev/null 2>"$T/man.err" || fail "man -l $m: exit $?"
	[ -s "$T/man.err" ] && fail "man -l $m: $(cat "$T/man.err")"
	groff -ww -z -man "$m" 2>"$T/groff.err"
	[ -s "$T/groff.err" ] && fail "groff -ww $m: $(cat "$T/groff.err")"
done
MANWIDTH=200 man -l "$SRC/docs/man/apenet.1" 2>/dev/null >"$T/apenet.man"
grep -q "\"schema\": \"$schema\"" "$T/apenet.man" || fail "apenet(1) does not name the schema $schema"
grep -q "apenet COMMAND --help" "$T/apenet.man" || fail "apenet(1) does not mention COMMAND --help"
[ -f "$SRC/docs/man/check_apenet.1" ] || fail "no check_apenet(1)"
MANWIDTH=200 man -l "$SRC/docs/man/check_apenet.1" 2>/dev/null >"$T/check.man"
for o in --socket --hostname --port --community --protocol --warning --critical --temp-warn --temp-crit --timeout --help --version; do
	grep -q -- "$o" "$T/check.man" || fail "check_apenet(1) does not document $o"
done
MANWIDTH=200 man -l "$SRC/docs/man/apenet-top.1" 2>/dev/null >"$T/top.man"
grep -q "^KEYS" "$T/top.man" && grep -q "^EXIT STATUS" "$T/top.man" || fail "apenet-top(1): no KEYS or EXIT STATUS"
# every key apenet-top answers (top/main.c's key()) is in the man page
for k in F1 h F3 / F6 '>' F5 t z Z PgUp PgDn i Up Down j k Enter Right Esc Left q; do
	sed -n '/^KEYS/,/^EXIT STATUS/p' "$T/top.man" | grep -qE "(^|[ ,])$k(,|  |\$)" || fail "apenet-top(1) KEYS has no '$k'"
done

echo "help: $n commands: --help, -h, help CMD (synopsis, options accepted and complete, exit status, example), usage errors, --version of 6 programs, $(ls "$SRC"/docs/man/*.[1-8] | wc -l) man pages"
