#!/bin/sh
# The daemon is valgrind-clean: the plain (non-sanitized) apenet-sim runs a
# small torus under memcheck through every fault, and apenet reads it.
. "$(dirname "$0")/../e2e_lib.sh"
PLAIN=${APENET_BIN_PLAIN:-build/bin}
T=$(mktemp -d /tmp/apenet-vg-XXXXXX)
trap 'kill -TERM $VGPID 2>/dev/null; rm -rf "$T"' EXIT
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
$VG "$PLAIN/apenet-sim" run --dir "$T/sim" --dims 2x2x1 --tick-ms 20 2>"$T/vg.log" &
VGPID=$!
wait_for 300 test -e "$T/sim/ready" || { cat "$T/vg.log"; fail "not ready under valgrind"; }
for f in "cable-unplug --link X+" "cable-ber --link Y+ --ber 1e-6" "lane-dead --link Z+ --lane 1" \
	"cable-swap --link X+ --with 1,1,0:X-" dnp-hang "overheat --celsius 99" "voltage-droop --percent 9" \
	"pcie-degrade --width 4 --gen 1" card-gone clear "bogus-fault"; do
	# shellcheck disable=SC2086
	"$PLAIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 $f >/dev/null 2>&1
done
$VG "$PLAIN/apenet" regs --sim "$T/sim/node-1-0-0" >/dev/null || fail "apenet regs under valgrind: $?"
$VG "$PLAIN/apenet" list --json --sim "$T/sim/node-1-0-0" >/dev/null || fail "apenet list under valgrind: $?"
kill -TERM $VGPID
wait $VGPID; rc=$?
cat "$T/vg.log"
[ $rc -eq 0 ] || fail "apenet-sim under valgrind exited $rc"
echo "valgrind: clean"
