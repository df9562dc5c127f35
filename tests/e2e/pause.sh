#!/bin/sh
# The machine paused in the middle of a test (a VM stopped or snapshotted,
# both processes starved): apenet-sim and `apenet ber --both-ends` are
# stopped together (SIGSTOP) for 2.5 s at a series of points of the run,
# longer than a remote request's timeout (2 s) and the checkers' lock time
# (2 s).  A card's clock runs on while its host is paused; an emulated card
# pauses with its process, and its TIMESTAMP with it (sim_main.c).  The
# tools wait on both clocks (apenet_deadline, apenet/dev.h), so every run
# must pass, as it would on a card.  (Before: 8 of 13 runs at such points
# ended in "did not finish remote request ... DNP hung?", "runs PRBS" or a
# checker judged never locked, and `apenet qualify` then swept a good cable.)
# The pauses are the fault injected, of a fixed length on purpose; what the
# test waits for, it polls.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-pause-XXXXXX)
BP=
trap '[ -n "$BP" ] && kill -CONT "$BP" 2>/dev/null; kill -CONT "$SIM_PID" 2>/dev/null; sim_stop; rm -rf "$T"' EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
sim_start "$T/sim" --dims 2x1x1 --seed 7 --ber-accel 10000
N="$T/sim/node-0-0-0"
up() { "$A" link --json --sim "$N" 2>/dev/null | jq -e '.links[] | select(.name == "X+") | .state == "up" and .up_for_s >= 1' >/dev/null; }
wait_for 60 up || fail "X+ never came up"

hit=0
for d in 0.05 0.1 0.15 0.2 0.25 0.3 0.35 0.4 0.45 0.5 0.6 0.7; do
	"$A" ber --link X+ --both-ends --sim "$N" --json </dev/null >"$T/b.json" 2>"$T/b.err" &
	BP=$!
	sleep "$d"
	kill -STOP "$SIM_PID" "$BP" 2>/dev/null
	sleep 2.5
	kill -CONT "$SIM_PID" "$BP" 2>/dev/null
	wait "$BP"
	rc=$?
	BP=
	[ $rc -eq 0 ] || fail "paused at $d s: exit $rc: $(cat "$T/b.err") $(cat "$T/b.json")"
	jq -e '.verdict == "pass" and ([.lanes[] | select(.verdict != "pass")] | length) == 0 and (.lanes | length) == 8' \
		"$T/b.json" >/dev/null || fail "paused at $d s: $(cat "$T/b.json")"
	# the pause fell inside the run (it lasted past the pause)
	jq -e '.elapsed_s >= 2.5' "$T/b.json" >/dev/null && hit=$((hit + 1))
	wait_for 10 up || fail "X+ not back up after the run paused at $d s"
done
[ $hit -ge 3 ] || fail "only $hit of 12 pauses fell inside a run: the test did not test"
echo "pause: ok ($hit of 12 pauses inside a run)"
