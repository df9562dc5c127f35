#!/bin/sh
# apenet ber on the emulator (BER_ACCEL 1000: the checkers count a thousand
# times faster than wall time, and the output says so):
#  - a good cable passes, every lane, early (at the sequential schedule's
#    PASS point, about 3e12 bits a lane for 1e-12 at 95%). Good is not
#    perfect: the emulated 2 m cable at 7 Gbps runs 1e-15..5e-15 a lane
#    (docs/channel-model.md), so a few runs in a hundred see an error and
#    pass later; errors are allowed, with a lower bound above 0;
#  - a cable with an injected BER fails early, every lane named;
#  - a weak lane in one direction (lane-ber: what 1,0,0 receives on lane 2)
#    is found by --both-ends in that direction only (from 0,0,0 to 1,0,0);
#  - --bits: a test fixed in advance; --lanes: only those lanes;
#  - Ctrl-C (SIGINT) in the middle: exit 2, and the link is back in traffic
#    at both ends (the far end follows this one: PRBS_CTRL.FOLLOW);
#  - no window to the far end, a card gone, a down link, bad arguments: exit 2.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-ber-XXXXXX)
trap 'sim_stop; rm -rf "$T"' EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
SIM="$BIN/apenet-sim"
sim_start "$T/sim" --dims 2x2x1 --seed 7 --ber-accel 1000
N="$T/sim/node-0-0-0"
F="$T/sim/node-1-0-0"
state() { # NODE_DIR LINK: the link's state
	"$A" link --json --sim "$1" 2>/dev/null | jq -r --arg l "$2" '.links[] | select(.name == $l) | .state'
}
up() { [ "$(state "$N" X+)" = up ] && [ "$(state "$F" X-)" = up ]; }
wait_for 60 up || fail "X+ never came up"
inj() { "$SIM" inject --dir "$T/sim" "$@" >/dev/null || fail "inject $*"; }

# --- a good cable
"$A" ber --link X+ --json --sim "$N" </dev/null >"$T/good.json" 2>"$T/good.err"
rc=$?
[ $rc -eq 0 ] || fail "good cable: exit $rc: $(cat "$T/good.err")"
jq -e '.command == "ber" and .verdict == "pass" and .pattern == "prbs31" and .accelerated == 1000 and
	.target == 1e-12 and (.lanes | length) == 4 and
	([.lanes[] | select(.verdict == "pass" and .bits >= 2996000000000 and .upper < 1e-12 and .cl == 0.95 and
		((.errors == 0 and .lower == 0) or (.errors > 0 and .lower > 0)))] | length) == 4 and
	.pooled.bits == ([.lanes[].bits] | add)' "$T/good.json" >/dev/null || fail "good cable: $(cat "$T/good.json")"
up || fail "good cable: the link is not back in traffic"
# the text form, and a progress log when stderr is not a terminal
"$A" ber --link X+ --sim "$N" </dev/null >"$T/good.txt" 2>/dev/null || fail "text: exit $?"
grep -q '^verdict: *pass' "$T/good.txt" && grep -q '^accelerated: *1000' "$T/good.txt" || fail "text: $(cat "$T/good.txt")"

# --- an injected cable BER: an early FAIL on every lane
inj --node 0,0,0 cable-ber --link X+ --ber 1e-10
"$A" ber --link X+ --json --sim "$N" </dev/null >"$T/bad.json" 2>"$T/bad.err"
rc=$?
[ $rc -eq 1 ] || fail "cable-ber: exit $rc, expected 1: $(cat "$T/bad.err")"
jq -e '.verdict == "fail" and ([.lanes[] | select(.verdict == "fail" and .lower > 1e-12)] | length) == 4 and
	([.findings[] | select(.code == "BER_FAIL")] | length) == 4 and
	([.lanes[].bits] | max) < 2996000000000' "$T/bad.json" >/dev/null || fail "cable-ber: $(cat "$T/bad.json")"
inj --node 0,0,0 clear
wait_for 60 up || fail "not up after clear"

# --- one weak lane in one direction, found by --both-ends
inj --node 1,0,0 lane-ber --link X- --lane 2 --ber 1e-9
"$A" ber --link X+ --both-ends --json --sim "$N" </dev/null >"$T/dir.json" 2>"$T/dir.err"
rc=$?
[ $rc -eq 1 ] || fail "lane-ber: exit $rc, expected 1: $(cat "$T/dir.err")"
jq -e '(.lanes | length) == 8 and
	([.lanes[] | select(.verdict == "fail")] | length) == 1 and
	([.lanes[] | select(.verdict == "fail" and .lane == 2 and .from.node == "0,0,0" and .from.link == "X+" and
		.to.node == "1,0,0" and .to.link == "X-")] | length) == 1 and
	([.lanes[] | select(.lane == 2 and .from.node == "1,0,0" and .verdict == "pass")] | length) == 1' \
	"$T/dir.json" >/dev/null || fail "lane-ber: $(cat "$T/dir.json")"
# without --both-ends that direction is not this end's checker's: it passes
"$A" ber --link X+ --json --sim "$N" </dev/null >"$T/one.json" 2>/dev/null || fail "lane-ber, one end: exit $?"
inj --node 1,0,0 clear
wait_for 60 up || fail "not up after clear"

# --- fixed in advance, two lanes
"$A" ber --link X+ --lanes 1,3 --bits 1000000000000 --json --sim "$N" </dev/null >"$T/fixed.json" 2>"$T/fixed.err"
rc=$?
# 1e12 clean bits prove 3e-12, not 1e-12: inconclusive, exit 3, a warning
# that says how many more bits (3e12 in all, less what the run read past
# its 1e12) would prove it
[ $rc -eq 3 ] || fail "--bits: exit $rc, expected 3: $(cat "$T/fixed.err")"
jq -e '[.lanes[].lane] == [1, 3] and ([.lanes[] | select(.bits >= 1000000000000 and .verdict == "inconclusive")] | length) == 2 and
	.verdict == "inconclusive" and ([.findings[] | select(.code == "BER_NOT_PROVEN" and .severity == "warn" and
	.value > 1e12 and .value < 2.1e12 and .unit == "bits" and (.message | test("more bits a lane")) and
	(.recommendation | test("--max-time [0-9]+")))] | length) == 1' \
	"$T/fixed.json" >/dev/null || fail "--bits: $(cat "$T/fixed.json")"

# --- Ctrl-C: exit 2, both ends back to traffic
"$A" ber --link X+ --target 1e-16 --json --sim "$N" </dev/null >"$T/int.json" 2>"$T/int.err" &
P=$!
running() { [ "$(state "$N" X+)" = prbs ]; }
wait_for 20 running || fail "the test never took the link out of traffic"
kill -INT $P
wait $P
rc=$?
[ $rc -eq 2 ] || fail "Ctrl-C: exit $rc, expected 2: $(cat "$T/int.err")"
jq -e '.verdict == "interrupted"' "$T/int.json" >/dev/null || fail "Ctrl-C: $(cat "$T/int.json")"
wait_for 10 up || fail "Ctrl-C: the link did not go back to traffic: $(state "$N" X+) / $(state "$F" X-)"

# --- what stops a test before it starts: exit 2, the reason named
inj --node 0,0,0 cable-unplug --link X+
down() { [ "$(state "$N" X+)" != up ]; }
wait_for 20 down || fail "X+ still up after the unplug"
"$A" ber --link X+ --sim "$N" </dev/null >/dev/null 2>"$T/down.err"
[ $? -eq 2 ] && grep -q 'nothing to test across' "$T/down.err" || fail "down link: $(cat "$T/down.err")"
inj --node 0,0,0 clear
wait_for 60 up || fail "not up after clear"
"$A" ber --sim "$N" >/dev/null 2>"$T/u1.err"
[ $? -eq 2 ] && grep -q 'which link' "$T/u1.err" || fail "no --link: $(cat "$T/u1.err")"
"$A" ber --link X+ --pattern prbs9 --sim "$N" >/dev/null 2>"$T/u2.err"
[ $? -eq 2 ] && grep -q 'prbs9' "$T/u2.err" || fail "bad pattern: $(cat "$T/u2.err")"
"$A" ber --link X+ --lanes 0,7 --sim "$N" >/dev/null 2>"$T/u3.err"
[ $? -eq 2 ] && grep -q -- '--lanes' "$T/u3.err" || fail "bad lanes: $(cat "$T/u3.err")"
"$A" ber --link X+ --loopback internal --sim "$N" >/dev/null 2>"$T/u4.err"
[ $? -eq 2 ] && grep -q 'no loopback' "$T/u4.err" || fail "loopback: $(cat "$T/u4.err")"
inj --node 0,0,0 card-gone
"$A" ber --link X+ --sim "$N" >"$T/gone.out" 2>"$T/gone.err"
[ $? -eq 2 ] && grep -q 'not responding' "$T/gone.err" || fail "card gone: $(cat "$T/gone.err")"
[ ! -s "$T/gone.out" ] || fail "card gone: output on stdout"
inj --node 0,0,0 clear
echo "ber: a good cable passes, a bad one fails early on every lane, a weak direction found by --both-ends, Ctrl-C restores traffic"
