#!/bin/sh
# make demo: bring up an emulated 4x4x1 QUonG torus and show one node of it
# with the same tools an operator uses on a real card.
set -eu
BIN=${1:-build/bin}
DIR=${DEMO_DIR:-build/demo}
mkdir -p "$DIR"
if [ -e "$DIR/sim.pid" ] && kill -0 "$(cat "$DIR/sim.pid")" 2>/dev/null; then
	kill -TERM "$(cat "$DIR/sim.pid")"
	while [ -e "$DIR/sim.pid" ]; do sleep 0.1; done
fi
"$BIN/apenet-sim" run --dims 4x4x1 --dir "$DIR" 2>"$DIR/sim.log" &
pid=$!
i=0
until [ -e "$DIR/ready" ]; do
	i=$((i + 1))
	[ $i -lt 600 ] || { cat "$DIR/sim.log"; exit 1; }
	sleep 0.1
done
NODE=$DIR/node-1-0-0
# every link up: poll the LINK_STATE of one board
i=0
until [ "$("$BIN/apenet" regs --csv --sim "$NODE" | grep -c '^LINK_STATE,.*STATE=2 ')" -eq 6 ]; do
	i=$((i + 1)); [ $i -lt 300 ] || break; sleep 0.1
done
echo "== emulated 4x4x1 QUonG torus in $DIR (apenet-sim pid $pid)"
echo
echo "\$ apenet list --sim $NODE"
"$BIN/apenet" list --sim "$NODE"
echo
echo "\$ apenet regs --sim $NODE   (global registers and link X+; the full dump has every link and lane)"
"$BIN/apenet" regs --sim "$NODE" | awk '/^links\[1\]:/ { exit } { print }'
echo
if [ "${DEMO_KEEP:-0}" = 1 ]; then
	echo "The torus keeps running. Try:"
	echo "  export APENET_SIM_DIR=$NODE; $BIN/apenet regs"
	echo "  $BIN/apenet-sim inject --dir $DIR --node 1,0,0 cable-unplug --link X+"
	echo "Stop it with: kill $pid"
else
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
	echo "(torus stopped; DEMO_KEEP=1 make demo leaves it running)"
fi
