#!/bin/sh
# Memcheck-clean, and right while at it: the plain (non-sanitized) apenet-sim
# runs a small torus under valgrind through every fault, and apenet reads it
# under valgrind in each state that takes a different path (healthy, a
# degraded link, a snapshot replayed offline, a card gone, a malformed
# config-space dump).  Every run is checked three ways: valgrind's own report
# (its log must stay empty: -q prints only errors and leaks), the command's
# exit code, and its output.
#
# valgrind reports its findings with exit code 99, not 1: 1 is what apenet
# returns for "a fault was found", which several runs here expect.
. "$(dirname "$0")/../e2e_lib.sh"
PLAIN=${APENET_BIN_PLAIN:-build/bin}
T=$(mktemp -d /tmp/apenet-vg-XXXXXX)
VGPID=""
trap '[ -n "$VGPID" ] && kill -TERM $VGPID 2>/dev/null; rm -rf "$T"' EXIT
unset APENET_SIM_DIR APENET_CONFIG
VGERR=99
VG="valgrind -q --error-exitcode=$VGERR --leak-check=full --errors-for-leak-kinds=definite,indirect"
A="$PLAIN/apenet"

# vg NAME WANT_EXIT COMMAND...: runs COMMAND under memcheck; its stdout in
# $T/NAME.out, stderr in $T/NAME.err, valgrind's report in $T/NAME.vg.
vg() {
	name=$1 want=$2
	shift 2
	# shellcheck disable=SC2086
	$VG --log-file="$T/$name.vg" "$@" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	if [ "$rc" -eq "$VGERR" ] || [ -s "$T/$name.vg" ]; then
		cat "$T/$name.vg"
		fail "$name: valgrind reports errors or leaks (exit $rc)"
	fi
	[ "$rc" -eq "$want" ] || { cat "$T/$name.err"; fail "$name: exit $rc, expected $want"; }
}
# inj WANT_EXIT NODE FAULT...: apenet-sim inject (not under valgrind), checked.
inj() {
	want=$1 node=$2
	shift 2
	"$PLAIN/apenet-sim" inject --dir "$T/sim" --node "$node" "$@" >"$T/inj.out" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] || { cat "$T/inj.out"; fail "inject $node $*: exit $rc, expected $want"; }
	if [ "$want" -eq 0 ]; then
		grep -q '^ok: ' "$T/inj.out" || fail "inject $node $*: no ok line: $(cat "$T/inj.out")"
	else
		grep -q 'error' "$T/inj.out" || fail "inject $node $*: no error message: $(cat "$T/inj.out")"
	fi
}
N0="$T/sim/node-0-0-0"
N1="$T/sim/node-1-0-0"
# The emulator is slow under valgrind: conditions are polled with the plain
# apenet (fast) before the valgrind run that checks them.
link_code() { "$A" link --json --sim "$1" >"$T/poll.json" 2>/dev/null
	[ "$(jq -r --arg l "$2" '.links[] | select(.name == $l) | .verdict.code' "$T/poll.json")" = "$3" ]; }

# A slow tick: under valgrind on a loaded machine both the emulator's update
# (GEN odd) and the CLI's 600-odd reads take many ms, and a 20 ms tick left
# "no consistent snapshot in 50 tries"; memory errors are the subject here.
$VG --log-file="$T/sim.vg" "$PLAIN/apenet-sim" run --dir "$T/sim" --dims 2x2x1 --tick-ms 200 2>"$T/sim.log" &
VGPID=$!
wait_for 300 test -e "$T/sim/ready" || { cat "$T/sim.log" "$T/sim.vg"; fail "not ready under valgrind"; }

# --- healthy
wait_for 120 link_code "$N0" X+ OK || { cat "$T/poll.json"; fail "links did not come up"; }
vg regs 0 "$A" regs --sim "$N1"
grep -q '^variant: *apenet+' "$T/regs.out" || fail "regs: no variant line"
grep -Eq 'ID_MAGIC +0x0000 +0x41504e54' "$T/regs.out" || fail "regs: ID_MAGIC"
vg list 0 "$A" list --json --sim "$N1"
jq -e '.cards | length == 1 and .[0].variant == "apenet+" and .[0].pcie.degraded == false' "$T/list.out" >/dev/null ||
	fail "list: $(cat "$T/list.out")"

# --- a degraded link: the verdict live, then from a snapshot file
inj 0 0,0,0 lane-dead --link X+ --lane 1
wait_for 120 link_code "$N0" X+ LINK_DEGRADED || { cat "$T/poll.json"; fail "X+ not degraded"; }
vg link 1 "$A" link --json --sim "$N0"
jq -e '[.links[] | select(.name == "X+") | .verdict.code] == ["LINK_DEGRADED"]' "$T/link.out" >/dev/null ||
	fail "link: $(cat "$T/link.out")"
vg snapshot 0 "$A" snapshot --sim "$N0"
jq -e '.command == "snapshot" and .variant == "apenet+" and (.samples | length == 2)' "$T/snapshot.out" >/dev/null ||
	fail "snapshot: not a snapshot document"
vg replay 1 "$A" link --json --from "$T/snapshot.out"
jq -e '[.links[] | select(.name == "X+") | .verdict.code] == ["LINK_DEGRADED"]' "$T/replay.out" >/dev/null ||
	fail "link --from: $(cat "$T/replay.out")"
vg module 0 "$A" module --json --from "$T/snapshot.out"
jq -e '.modules | length == 6' "$T/module.out" >/dev/null || fail "module --from: $(cat "$T/module.out")"
inj 0 0,0,0 clear

# --- every other fault through the emulator, and a refused one
for f in "cable-unplug --link X+" "cable-ber --link Y+ --ber 1e-6" "cable-swap --link X+ --with 1,1,0:X-" \
	dnp-hang "overheat --celsius 99" "voltage-droop --percent 9" "pcie-degrade --width 4 --gen 1"; do
	# shellcheck disable=SC2086
	inj 0 1,1,0 $f
done
inj 2 1,1,0 bogus-fault
inj 2 7,7,7 dnp-hang
inj 0 1,1,0 clear

# --- a card gone: a clear error, exit 2, nothing on stdout
inj 0 1,0,0 card-gone
vg gone 2 "$A" regs --sim "$N1"
grep -q 'card not responding' "$T/gone.err" || fail "gone: $(cat "$T/gone.err")"
[ ! -s "$T/gone.out" ] || fail "gone: output on stdout"
inj 0 1,0,0 clear

# --- a malformed config-space dump: libpci's error comes back as ours
mkdir -p "$T/bad"
printf '03:00.0 Processing accelerators: Altera\n00: 72 11 01 0a zz\n' >"$T/bad/pci.lspci"
vg baddump 2 "$A" list --sim "$T/bad"
grep -q 'libpci: .*Malformed' "$T/baddump.err" || fail "bad dump: $(cat "$T/baddump.err")"

# --- the emulator itself: a clean exit on SIGTERM, nothing reported
kill -TERM $VGPID
wait $VGPID
rc=$?
VGPID=""
[ ! -s "$T/sim.vg" ] || { cat "$T/sim.vg"; fail "apenet-sim: valgrind reports errors or leaks"; }
[ $rc -eq 0 ] || { cat "$T/sim.log"; fail "apenet-sim under valgrind exited $rc"; }
echo "valgrind: clean"
