#!/bin/sh
# apenet latency-check on the emulator: a clean link gives one latency over
# every realignment (exit 0); with the latency-jitter fault the word aligner
# lands on different bits and the check fails (exit 1) with
# LATENCY_NOT_DETERMINISTIC; cleared, it passes again; a link that does not
# come back up, a card gone and bad arguments exit 2 with the reason.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-latck-XXXXXX)
trap 'sim_stop; rm -rf "$T"' EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
SIM="$BIN/apenet-sim"
sim_start "$T/sim" --dims 2x2x1 --seed 5
N="$T/sim/node-0-0-0"
up() { "$A" link --json --sim "$N" >"$T/l.json" 2>/dev/null &&
	[ "$(jq -r '.links[] | select(.name == "X+") | .state' "$T/l.json")" = up ]; }
wait_for 60 up || fail "X+ never came up"

"$A" latency-check --link X+ --resets 20 --json --sim "$N" >"$T/ok.json" 2>"$T/ok.err"
rc=$?
[ $rc -eq 0 ] || fail "clean link: exit $rc: $(cat "$T/ok.err")"
jq -e '.command == "latency-check" and .link == "X+" and .resets == 20 and .distinct == 1 and
	.histogram[0].count == 20 and .histogram[0].latency_ps > 0 and .verdict == "pass" and
	(.findings | length) == 0' "$T/ok.json" >/dev/null || fail "clean link: $(cat "$T/ok.json")"
# the text form says the same
"$A" latency-check --link X+ --resets 3 --sim "$N" >"$T/ok.txt" || fail "clean link, text: exit $?"
grep -q '^verdict: *pass' "$T/ok.txt" || fail "text: $(cat "$T/ok.txt")"

"$SIM" inject --dir "$T/sim" --node 0,0,0 latency-jitter --link X+ >/dev/null || fail "inject latency-jitter"
"$A" latency-check --link X+ --resets 20 --json --sim "$N" >"$T/bad.json" 2>"$T/bad.err"
rc=$?
[ $rc -eq 1 ] || fail "latency-jitter: exit $rc, expected 1: $(cat "$T/bad.err")"
jq -e '.distinct > 1 and .verdict == "fail" and .spread_ps > 0 and
	([.histogram[].count] | add) == 20 and
	([.findings[] | select(.code == "LATENCY_NOT_DETERMINISTIC" and .severity == "fail")] | length) == 1' \
	"$T/bad.json" >/dev/null || fail "latency-jitter: $(cat "$T/bad.json")"

"$SIM" inject --dir "$T/sim" --node 0,0,0 clear >/dev/null || fail "clear"
wait_for 60 up || fail "X+ not up after clear"
"$A" latency-check --link X+ --resets 10 --sim "$N" >/dev/null 2>"$T/again.err" ||
	fail "cleared: exit $?: $(cat "$T/again.err")"

# a link that stays down: exit 2, the state named
"$SIM" inject --dir "$T/sim" --node 0,0,0 cable-unplug --link X+ >/dev/null || fail "inject cable-unplug"
"$A" latency-check --link X+ --resets 2 --timeout-ms 500 --sim "$N" >"$T/down.out" 2>"$T/down.err"
rc=$?
[ $rc -eq 2 ] || fail "unplugged: exit $rc, expected 2"
grep -q 'not up again 500 ms after REALIGN' "$T/down.err" || fail "unplugged: $(cat "$T/down.err")"
grep -q 'after 0 of 2 resets' "$T/down.err" || fail "unplugged, progress: $(cat "$T/down.err")"
"$SIM" inject --dir "$T/sim" --node 0,0,0 clear >/dev/null

# a card gone
"$SIM" inject --dir "$T/sim" --node 0,0,0 card-gone >/dev/null || fail "inject card-gone"
"$A" latency-check --link X+ --sim "$N" >"$T/gone.out" 2>"$T/gone.err"
rc=$?
[ $rc -eq 2 ] || fail "card gone: exit $rc, expected 2"
grep -q 'not responding' "$T/gone.err" || fail "card gone: $(cat "$T/gone.err")"
[ ! -s "$T/gone.out" ] || fail "card gone: output on stdout"
"$SIM" inject --dir "$T/sim" --node 0,0,0 clear >/dev/null

# arguments
"$A" latency-check --sim "$N" >/dev/null 2>"$T/u1.err"
[ $? -eq 2 ] && grep -q 'which link' "$T/u1.err" || fail "no --link: $(cat "$T/u1.err")"
"$A" latency-check --link X+ --resets 0 --sim "$N" >/dev/null 2>"$T/u2.err"
[ $? -eq 2 ] && grep -q -- '--resets' "$T/u2.err" || fail "--resets 0: $(cat "$T/u2.err")"
"$A" latency-check --link Q9 --sim "$N" >/dev/null 2>"$T/u3.err"
[ $? -eq 2 ] && grep -q "no link 'Q9'" "$T/u3.err" || fail "bad link: $(cat "$T/u3.err")"
echo "latency-check: pass on a clean link, fail with latency-jitter, exit 2 for down, gone and bad arguments"
