#!/bin/sh
# bash completion of apenet, apenet-sim, apenet-top and check_apenet, as make
# writes it ($BIN/../share/bash-completion/completions/, what make install
# copies): in a non-interactive bash with bash-completion's own library, its
# loader finds each file by the program's name (as under PREFIX/share), each
# file registers its function (complete -p), and the function is driven the
# way bash drives it (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT; the
# answer in COMPREPLY): commands, options, link names, directories, files,
# values.  Every command and option each program's --help prints completes,
# and nothing else: compared with --help's own output, for every command; a
# word taken out of a copy of a file is caught by the same comparison, and a
# line added to a copy's table completes with no other edit.  The files are
# what tools/gen-completion.sh makes from the binaries under test (not stale).
. "$(dirname "$0")/../e2e_lib.sh"
SRC=${APENET_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=$(cd "$BIN" && pwd)
COMP=${APENET_COMPLETIONS:-$BIN/../share/bash-completion/completions}
T=$(mktemp -d /tmp/apenet-comp-XXXXXX)
trap 'rm -rf "$T"' EXIT
unset APENET_SIM_DIR
export APENET_CONFIG=
LIB=/usr/share/bash-completion/bash_completion
[ -f "$LIB" ] || fail "no $LIB (mk/deps.sh installs bash-completion)"

for p in apenet apenet-sim apenet-top check_apenet; do
	[ -f "$COMP/$p" ] || fail "no $COMP/$p (make writes it)"
	sh "$SRC/tools/gen-completion.sh" "$p" "$BIN/$p" "$T/$p.fresh" || fail "gen-completion.sh $p"
	cmp -s "$COMP/$p" "$T/$p.fresh" || fail "$COMP/$p is not what $BIN/$p --completion-table makes now"
	bash -n "$COMP/$p" || fail "$COMP/$p: not bash"
done

# bash-completion finds each file by the program's name the first time it is
# completed, under every XDG_DATA_DIRS entry (default /usr/local/share and
# /usr/share: PREFIX/share of make install); COMP's parent stands for one.
share=$(cd "$COMP/../.." && pwd)
for p in apenet apenet-sim apenet-top check_apenet; do
	got=$(XDG_DATA_DIRS=$share BASH_COMPLETION_USER_DIR=$T/none bash --norc --noprofile -c \
		". $LIB; complete -p $p 2>/dev/null && echo loaded too early; __load_completion $p && complete -p $p")
	[ "$got" = "complete -F _$(echo "$p" | tr - _) $p" ] || fail "bash-completion's loader, $p: $got"
done

# What each program's --help says, for the comparisons.
A="$BIN/apenet"
"$A" --help >"$T/apenet.help"
sed -n '/^commands:/,/^$/p' "$T/apenet.help" | awk 'NR > 1 && NF { print $1 }' >"$T/cmds"
[ "$(wc -l <"$T/cmds")" -ge 20 ] || fail "apenet --help lists $(wc -l <"$T/cmds") commands"
# a help text's options (lines "  -x ..." of its options section), one a line
help_opts() { sed -n '/^options:/,/^$/p' "$1" | awk '/^  -/ { print $1 }' | sort -u; }
help_opts "$T/apenet.help" >"$T/global.opts"
for c in $(cat "$T/cmds"); do
	"$A" "$c" --help >"$T/$c.help" || fail "apenet $c --help"
	help_opts "$T/$c.help" >"$T/$c.own"
	sort -u "$T/$c.own" "$T/global.opts" >"$T/$c.opts"
done
"$BIN/apenet-sim" --help >"$T/sim.help"
"$BIN/apenet-sim" variants | awk '{ print $1 }' >"$T/variants"
"$BIN/apenet-top" --help >"$T/top.help"
"$BIN/check_apenet" --help >"$T/check.help"

# The scene: a directory and files to complete.
W=$T/w
mkdir -p "$W/node-1-0-0" "$W/quong"
: >"$W/snap.json"
: >"$W/site.yaml"

cat >"$T/drive.bash" <<'EOF'
# bash drive.bash COMPDIR TESTDIR: every check; "FAIL: ..." and exit 1 at the first that fails
COMP=$1 T=$2
. /usr/share/bash-completion/bash_completion
for p in apenet apenet-sim apenet-top check_apenet; do . "$COMP/$p"; done
fail() { echo "FAIL: $*" >&2; exit 1; }

# comp WORD...: COMPREPLY of the program's function for the words as bash
# splits them, the cursor at the end of the last (an empty last word: after
# a space); one a line, sorted.  A "=" word joins its neighbours in the line.
comp() {
	local fn line= w prev=
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	for w in "$@"; do
		if [[ -z $line ]]; then line=$w
		elif [[ $w == = || $prev == = ]]; then line+=$w
		else line+=" $w"
		fi
		prev=$w
	done
	COMP_LINE=$line COMP_POINT=${#line}
	COMPREPLY=()
	fn=$(complete -p "$1")
	fn=${fn#complete -F }
	"${fn%% *}"
	((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
# has LIST WORD...: each WORD is in LIST; hasnt LIST WORD...: none is
has() { local l=$1 w; shift; for w; do grep -qxF -- "$w" <<<"$l" || return 1; done; }
hasnt() { local l=$1 w; shift; for w; do grep -qxF -- "$w" <<<"$l" && return 1; done; return 0; }
words() { tr ' ' '\n' <<<"$*" | sed '/^$/d' | sort -u; }

# complete -p names the generated functions
for p in apenet:_apenet apenet-sim:_apenet_sim apenet-top:_apenet_top check_apenet:_check_apenet; do
	[[ $(complete -p "${p%%:*}" 2>&1) == "complete -F ${p#*:} ${p%%:*}" ]] ||
		fail "complete -p ${p%%:*}: $(complete -p "${p%%:*}" 2>&1)"
done

# apenet: the commands, exactly those of apenet --help
[[ $(comp apenet '') == "$(sort -u "$T/cmds")" ]] || fail "apenet <TAB>: $(comp apenet '' | tr '\n' ' ')"
[[ $(comp apenet l) == "$(grep '^l' "$T/cmds" | sort -u)" ]] || fail "apenet l<TAB>: $(comp apenet l | tr '\n' ' ')"
[[ $(comp apenet l | wc -l) -ge 2 ]] || fail "apenet l<TAB>: $(comp apenet l)"
# apenet help COMMAND
[[ $(comp apenet help '') == "$(sort -u "$T/cmds")" ]] || fail "apenet help <TAB>: $(comp apenet help '' | tr '\n' ' ')"
# apenet's own options before a command
[[ $(comp apenet --) == "$(cat "$T/global.opts")" ]] || fail "apenet --<TAB>: $(comp apenet -- | tr '\n' ' ')"

# every command's options: those of apenet COMMAND --help and apenet's own, no more
check_opts() {
	local c got
	for c in $(cat "$T/cmds"); do
		got=$(comp apenet "$c" -)
		[[ $got == "$(cat "$T/$c.opts")" ]] || {
			echo "apenet $c -<TAB> differs from apenet $c --help (<: help, >: completion):"
			diff "$T/$c.opts" - <<<"$got"
			return 1
		}
		# and the same after apenet's own options, the command's name in between
		[[ $(comp apenet --sim "$T/w" --json "$c" -) == "$got" ]] || { echo "apenet --sim D --json $c -<TAB>"; return 1; }
	done
}
check_opts || fail "options"
has "$(comp apenet link --)" --interval --from --at --config --sim --json || fail "apenet link --<TAB>"

# link names: after an option taking a link, and as a command's LINK or PORT
links=$(words X+ X- Y+ Y- Z+ Z-)
for line in "apenet ber --link" "apenet sweep --link" "apenet latency-check --link" "apenet qualify --link" \
	"apenet link" "apenet realign" "apenet clear-counters" "apenet module" "apenet --sim $T/w link"; do
	read -ra w <<<"$line"
	has "$(comp "${w[@]}" '')" $links || fail "$line <TAB>: $(comp "${w[@]}" '' | tr '\n' ' ')"
done
[[ $(comp apenet ber --link Y) == "$(words Y Y+ Y-)" ]] || fail "apenet ber --link Y<TAB>: $(comp apenet ber --link Y)"
[[ $(comp apenet ber --link=X) == "$(words X X+ X-)" ]] || fail "apenet ber --link=X<TAB>: $(comp apenet ber --link = X)"
[[ $(comp apenet ber --link = X) == "$(words X X+ X-)" ]] || fail "apenet ber --link=X<TAB>: $(comp apenet ber --link = X)"
# a value that is no link or file: nothing
[[ -z $(comp apenet ber --max-time '') ]] || fail "apenet ber --max-time <TAB>: $(comp apenet ber --max-time '')"

cd "$T/w" || exit 1
# --sim: directories only; --from, --config, --db, --out FILE: files (and directories to walk)
d=$(comp apenet --sim '')
has "$d" node-1-0-0 quong && hasnt "$d" snap.json site.yaml || fail "apenet --sim <TAB>: $d"
[[ $(comp apenet --sim=nod) == node-1-0-0 || $(comp apenet --sim = nod) == node-1-0-0 ]] ||
	fail "apenet --sim=nod<TAB>: $(comp apenet --sim = nod)"
[[ $(comp apenet status --from sn) == snap.json ]] || fail "apenet status --from sn<TAB>: $(comp apenet status --from sn)"
[[ $(comp apenet status --from = sn) == snap.json ]] || fail "apenet status --from=sn<TAB>: $(comp apenet status --from = sn)"
for line in "apenet status --config" "apenet health --db" "apenet keys init --out" "apenet report -o" \
	"apenet module --eeprom-file" "apenet cabling" "apenet config check"; do
	read -ra w <<<"$line"
	has "$(comp "${w[@]}" '')" snap.json site.yaml node-1-0-0 || fail "$line <TAB>: $(comp "${w[@]}" '' | tr '\n' ' ')"
done
for line in "apenet cabling --sim-cluster" "apenet sweep --link X+ --out" "apenet report --blackbox" "apenet keys all --dir"; do
	read -ra w <<<"$line"
	d=$(comp "${w[@]}" '')
	has "$d" node-1-0-0 quong && hasnt "$d" snap.json || fail "$line <TAB>: $d"
done
# values the synopsis names; a command's words
[[ $(comp apenet report --format '') == "$(words text json html)" ]] || fail "apenet report --format <TAB>"
[[ $(comp apenet ber --pattern '') == "$(words prbs7 prbs15 prbs23 prbs31)" ]] || fail "apenet ber --pattern <TAB>"
[[ $(comp apenet sweep --strategy '') == "$(words exhaustive adaptive)" ]] || fail "apenet sweep --strategy <TAB>"
[[ $(comp apenet db '') == "$(words check vacuum export retention)" ]] || fail "apenet db <TAB>: $(comp apenet db '')"
[[ $(comp apenet keys '') == "$(words init node all)" ]] || fail "apenet keys <TAB>: $(comp apenet keys '')"
[[ $(comp apenet config '') == check ]] || fail "apenet config <TAB>: $(comp apenet config '')"
has "$(comp apenet keys init --owner ro)" root || fail "apenet keys init --owner ro<TAB>"

# apenet-sim: its commands (the lines of its usage), run's options, the
# faults and each fault's options, the variants
sim_cmds=$(sed -n 's/^  apenet-sim \([a-z][a-z-]*\).*/\1/p' "$T/sim.help" | sort -u)
[[ $(comp apenet-sim '') == "$sim_cmds" ]] || fail "apenet-sim <TAB>: $(comp apenet-sim '')"
[[ $(comp apenet-sim --) == "$(words --help --version)" ]] || fail "apenet-sim --<TAB>"
run_opts=$(awk '/^  apenet-sim / { run = $2 == "run" } run' "$T/sim.help" | grep -oE -- '--[a-z-]+' | sort -u)
[[ $(comp apenet-sim run --) == "$run_opts" ]] || fail "apenet-sim run --<TAB>: $(comp apenet-sim run -- | tr '\n' ' ')"
[[ $(comp apenet-sim run --variant '') == "$(sort -u "$T/variants")" ]] || fail "apenet-sim run --variant <TAB>"
has "$(comp apenet-sim run --dir '')" quong && hasnt "$(comp apenet-sim run --dir '')" snap.json || fail "apenet-sim run --dir <TAB>"
has "$(comp apenet-sim run --config '')" site.yaml || fail "apenet-sim run --config <TAB>"
faults=$(sed -n '/^faults:/,/^$/p' "$T/sim.help" | sed 's/^faults://' | tr '|' '\n' | awk 'NF { print $1 }' | sort -u)
[[ $(echo "$faults" | wc -l) -ge 10 ]] || fail "apenet-sim --help: faults: $faults"
[[ $(comp apenet-sim inject --dir "$T/w" --node 0,0,0 '') == "$faults" ]] ||
	fail "apenet-sim inject ... <TAB>: $(comp apenet-sim inject --dir "$T/w" --node 0,0,0 '' | tr '\n' ' ')"
for f in $faults; do
	want=$(sed -n '/^faults:/,/^$/p' "$T/sim.help" | sed 's/^faults://' | tr '|' '\n' |
		awk -v f="$f" '$1 == f { for (i = 2; i <= NF; i += 2) print $i }' | sort -u - <(words --dir --node))
	[[ $(comp apenet-sim inject --dir "$T/w" --node 0,0,0 "$f" --) == "$want" ]] ||
		fail "apenet-sim inject ... $f --<TAB>: $(comp apenet-sim inject --dir "$T/w" --node 0,0,0 "$f" -- | tr '\n' ' ')"
done
has "$(comp apenet-sim inject --dir "$T/w" --node 0,0,0 cable-unplug --link '')" $links || fail "inject --link <TAB>"

# apenet-top and check_apenet: every option their --help names, no more;
# with no word typed, the options too (they take no argument); apenet-top's
# --help need not name itself
top_opts=$( (grep -oE -- '(^|[ [(|])--?[a-z][a-z-]*' "$T/top.help" | sed 's/^[][ (|]//'; echo --help) | sort -u)
[[ $(comp apenet-top -) == "$top_opts" ]] || fail "apenet-top -<TAB>: $(diff <(echo "$top_opts") <(comp apenet-top -))"
[[ $(comp apenet-top '') == "$top_opts" ]] || fail "apenet-top <TAB>"
d=$(comp apenet-top --sim '')
has "$d" node-1-0-0 && hasnt "$d" snap.json || fail "apenet-top --sim <TAB>: $d"
[[ $(comp apenet-top --from sn) == snap.json ]] || fail "apenet-top --from sn<TAB>"
ck_opts=$(sed -n '/^Local mode/,/^Both modes/p;/^Both modes/,/^$/p' "$T/check.help" | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-z-]*' |
	sed 's/^[ ,]//' | sort -u)
[[ $(comp check_apenet -) == "$ck_opts" ]] || fail "check_apenet -<TAB>: $(diff <(echo "$ck_opts") <(comp check_apenet -))"
has "$(comp check_apenet --)" --socket --hostname --temp-warn --temp-crit --timeout || fail "check_apenet --<TAB>"
[[ $(comp check_apenet -P '') == "$(words 1 2c)" ]] || fail "check_apenet -P <TAB>: $(comp check_apenet -P '')"
[[ $(comp check_apenet --socket sn) == snap.json ]] || fail "check_apenet --socket sn<TAB>"
[[ -z $(comp check_apenet -w '') ]] || fail "check_apenet -w <TAB>: $(comp check_apenet -w '')"
has "$(comp check_apenet -H localh)" localhost || fail "check_apenet -H localh<TAB>: $(comp check_apenet -H localh)"

# The comparison catches a word missing from the completion: a copy of
# apenet's file without ber's --both-ends fails it ...
sed '/^opt ber --both-ends$/d' "$COMP/apenet" >"$T/apenet.less"
cmp -s "$COMP/apenet" "$T/apenet.less" && fail "no 'opt ber --both-ends' line in $COMP/apenet"
. "$T/apenet.less"
check_opts >"$T/less.out" && fail "a completion without --both-ends passed the comparison"
grep -q '^< --both-ends$' "$T/less.out" || fail "the comparison missed --both-ends: $(cat "$T/less.out")"
# ... and a line added to the table is completed with no other edit
sed 's/^opt ber --both-ends$/&\nopt ber --new-option FILE/' "$COMP/apenet" >"$T/apenet.more"
. "$T/apenet.more"
has "$(comp apenet ber --)" --new-option --both-ends || fail "an option added to the table: $(comp apenet ber -- | tr '\n' ' ')"
[[ $(comp apenet ber --new-option sn) == snap.json ]] || fail "the added option's FILE: $(comp apenet ber --new-option sn)"
. "$COMP/apenet"
check_opts >/dev/null || fail "the real file after the copies"

echo "$(wc -l <"$T/cmds") commands and their $(cat "$T"/*.own | wc -l) options (and apenet's own $(wc -l <"$T/global.opts"))"
EOF
out=$(bash --norc --noprofile "$T/drive.bash" "$COMP" "$T" 2>&1) || fail "${out#FAIL: }"

echo "completion: 4 programs (bash-completion's loader, complete -p), apenet: $out compared with --help;" \
	"links, --sim directories, files, values, apenet-sim's commands, options, faults and variants," \
	"apenet-top and check_apenet options; a word removed is caught, a word added completes"
