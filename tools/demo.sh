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
echo "\$ apenet regs --sim $NODE | head -20   (the full dump has every register of every link and lane)"
"$BIN/apenet" regs --sim "$NODE" | head -20
echo
echo "\$ apenet link --sim $NODE"
"$BIN/apenet" link --sim "$NODE" || true
echo
echo "== a fault: lane 2 of the cable 1,0,0 Y+ <-> 1,1,0 Y- dies; two plugs at 0,0,0 get swapped"
"$BIN/apenet-sim" inject --dir "$DIR" --node 1,0,0 lane-dead --link Y+ --lane 2
"$BIN/apenet-sim" inject --dir "$DIR" --node 0,0,0 cable-swap --link X+ --with 0,0,0:X-
i=0 # the firmware gives up on the lane after 0.5 s and runs the link on three
until "$BIN/apenet" link --json --interval 0 --sim "$NODE" Y+ | grep -q '"state": "degraded"'; do
	i=$((i + 1)); [ $i -lt 100 ] || break; sleep 0.1
done
echo
echo "\$ apenet status --sim $NODE | tail -8"
"$BIN/apenet" status --sim "$NODE" | tail -8 || true
printf 'cluster:\n  dims: 4x4x1\n  wraparound: true\n' >"$DIR/cluster.yaml"
echo
echo "\$ apenet cabling --config $DIR/cluster.yaml --sim-cluster $DIR"
"$BIN/apenet" cabling --config "$DIR/cluster.yaml" --sim-cluster "$DIR" || true
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
