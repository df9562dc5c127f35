#!/bin/sh
# make cluster: the whole always-on picture on an emulated torus, to learn
# and rehearse with: apenet-sim (4x4x1 by default, DIMS=), an apenet-agent
# on every node, and the two duplicated apenet-supervisor instances on
# loopback ports with their health databases, all under DIR (default
# build/cluster).  Reports are SNMPv3 authPriv as a site runs them: a site
# secret (DIR/site.key) and each node's key file (DIR/agent-X-Y-Z/node.key,
# `apenet keys`; docs/security.md).  It prints what to try and runs until ^C (or SIGTERM),
# then stops everything by PID.
set -eu
BIN=${1:-build/bin}
DIR=${CLUSTER_DIR:-build/cluster}
DIMS=${DIMS:-4x4x1}
P1=${PORT1:-16201}
P2=${PORT2:-16202}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
PIDS=""
stop() {
	trap - EXIT INT TERM
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || true; done
	for p in $PIDS; do wait "$p" 2>/dev/null || true; done
	echo "stopped"
}
trap stop EXIT INT TERM
rm -f "$DIR/ready"
"$BIN/apenet-sim" run --dims "$DIMS" --dir "$DIR/sim" 2>"$DIR/sim.log" &
PIDS="$PIDS $!"
i=0
until [ -e "$DIR/sim/ready" ]; do
	i=$((i + 1))
	[ $i -lt 1200 ] || { cat "$DIR/sim.log"; exit 1; }
	sleep 0.1 # start-up pacing of an interactive script
done
[ -f "$DIR/site.key" ] || "$BIN/apenet" keys init --out "$DIR/site.key" >/dev/null
cat >"$DIR/cluster.yaml" <<Y
cluster:
  dims: $DIMS
supervisor:
  listen: "127.0.0.1:$P1,127.0.0.1:$P2"
  db: "$DIR/health-1.db,$DIR/health-2.db"
  state_dir: $DIR
  site_key: $DIR/site.key
Y
for n in 1 2; do
	"$BIN/apenet-supervisor" --config "$DIR/cluster.yaml" --instance $n --foreground 2>"$DIR/supervisor-$n.log" &
	PIDS="$PIDS $!"
done
for d in "$DIR"/sim/node-*; do
	n=${d##*/node-}
	a="$DIR/agent-$n"
	mkdir -p "$a"
	[ -f "$a/node.key" ] || "$BIN/apenet" keys node "$(echo "$n" | tr - ,)" --site "$DIR/site.key" --out "$a/node.key" >/dev/null
	cat >"$a/agent.yaml" <<Y
agent:
  state_dir: $a
  blackbox_dir: $a/blackbox
  socket: $a/agent.sock
  edac_root: $a/edac
  user: ""
supervisors:
  targets: ["127.0.0.1:$P1", "127.0.0.1:$P2"]
  key_file: $a/node.key
Y
	"$BIN/apenet-agent" --config "$a/agent.yaml" --foreground --sim "$d" 2>"$a/log" &
	PIDS="$PIDS $!"
done
touch "$DIR/ready"
cat <<T
== $DIMS emulated torus in $DIR/sim, an agent on every node, supervisors on 127.0.0.1:$P1 and :$P2
Try, in another terminal:
  $BIN/apenet health --config $DIR/cluster.yaml                 # both databases, compared
  $BIN/apenet-sim inject --dir $DIR/sim --node 1,1,0 card-gone
  $BIN/apenet health --db $DIR/health-1.db --incidents          # one incident: card on 1,1,0
  $BIN/apenet-sim inject --dir $DIR/sim --node 1,1,0 clear
  $BIN/apenet agent-status --socket $DIR/agent-1-1-0/agent.sock
Logs: $DIR/supervisor-*.log, $DIR/agent-*/log.  ^C stops everything.
T
wait
