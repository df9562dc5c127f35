#!/bin/sh
# The supervisor under valgrind memcheck (the plain build): four agents on a
# 2x2x1 torus report to it for 20 s or more through a fault that opens and
# closes an incident, a reload (SIGHUP), a bad config on reload, one that
# changes a setting taken at start, and a clean
# stop; valgrind's report must stay empty, the supervisor must exit 0 and
# have stored what the agents sent.  Polls with deadlines.
. "$(dirname "$0")/../e2e_lib.sh"
PLAIN=${APENET_BIN_PLAIN:-build/bin}
T=$(mktemp -d /tmp/apenet-sup-vg-XXXXXX)
PIDS=""
VG_PID=""
trap 'for p in $PIDS; do kill -TERM $p 2>/dev/null; done; [ -n "$VG_PID" ] && kill -TERM $VG_PID 2>/dev/null; sim_stop; rm -rf "$T"' EXIT
unset APENET_SIM_DIR APENET_CONFIG
BIN=$PLAIN
A="$PLAIN/apenet"
VGERR=99
command -v valgrind >/dev/null || fail "valgrind is not installed"

sim_start "$T/sim" --dims 2x2x1
port=$(( 20000 + ($$ * 29) % 30000 ))
cat >"$T/sup.yaml" <<Y
cluster:
  dims: 2x2x1
supervisor:
  settle_ms: 500
Y
site_keyed "$T/sup.yaml" # SNMPv3, as shipped: its own USM under valgrind too
start=$(date +%s)
for try in 1 2 3 4 5; do
	valgrind -q --error-exitcode=$VGERR --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--log-file="$T/vg.log" "$PLAIN/apenet-supervisor" --config "$T/sup.yaml" --foreground \
		--listen "127.0.0.1:$port" --db "$T/health.db" 2>"$T/sup.log" &
	VG_PID=$!
	wait_for 120 grep -q "listening on" "$T/sup.log" && kill -0 $VG_PID 2>/dev/null && break
	kill $VG_PID 2>/dev/null
	wait $VG_PID 2>/dev/null
	VG_PID=""
	port=$((port + 13))
done
[ -n "$VG_PID" ] || { cat "$T/sup.log"; fail "the supervisor under valgrind did not start"; }
for n in 0-0-0 1-0-0 0-1-0 1-1-0; do
	d="$T/a-$n"
	mkdir -p "$d"
	printf 'agent:\n  state_dir: %s/state\n  blackbox_dir: %s/bb\n  socket: %s/sock\n  edac_root: %s/edac\n  user: ""\n  watchdog_timeout_beats: 10\nsupervisors:\n  targets: ["127.0.0.1:%s"]\n  heartbeat_s: 0.5\n%s\n' \
		"$d" "$d" "$d" "$d" "$port" "$(node_key "$d" "$(echo "$n" | tr - ,)")" >"$d/agent.yaml"
	"$PLAIN/apenet-agent" --config "$d/agent.yaml" --foreground --sim "$T/sim/node-$n" 2>"$d/log" &
	PIDS="$PIDS $!"
done
q() { "$A" health --db "$T/health.db" --incidents --all --json >"$T/h.json" 2>/dev/null; [ $? -le 1 ] && jq -e "$1" "$T/h.json" >/dev/null; }
must() { secs=$1 what=$2; shift 2; wait_for "$secs" "$@" || { cat "$T/sup.log" "$T/vg.log"; fail "$what"; }; }
must 120 "the four nodes never looked healthy" q '.summary.normal == 4'
"$PLAIN/apenet-sim" inject --dir "$T/sim" --node 1,1,0 overheat --celsius 99 >/dev/null || fail inject
must 60 "no incident for the overheat" q '[.incidents[] | select(.state == "open" and .component == "sensor:temperature")] | length == 1'
kill -HUP $VG_PID
must 30 "no reload logged" grep -q "reloaded" "$T/sup.log"
cp "$T/sup.yaml" "$T/good.yaml"
printf 'supervisor:\n  batch_max_ms: lots\n' >>"$T/sup.yaml"
kill -HUP $VG_PID
must 30 "a bad config on reload not reported" grep -q "the running config stays" "$T/sup.log"
# the deduction's settings wait for the next start (the table's at_start
# rows), and the log names them
sed 's/settle_ms: 500/settle_ms: 700/' "$T/good.yaml" >"$T/sup.yaml"
kill -HUP $VG_PID
must 30 "settle_ms at the next start not said" grep -q "reload: settle_ms change at the next start; the rest now" "$T/sup.log"
cp "$T/good.yaml" "$T/sup.yaml"
"$PLAIN/apenet-sim" inject --dir "$T/sim" --node 1,1,0 clear >/dev/null || fail inject
must 60 "the incident did not close" q '.summary.open_incidents == 0 and ([.incidents[] | select(.state == "closed")] | length) >= 1'
# at least 20 s under valgrind
while [ $(( $(date +%s) - start )) -lt 20 ]; do
	sleep 1 # the run's length is what is tested, not a condition
done
kill -TERM $VG_PID
wait $VG_PID
rc=$?
VG_PID=""
[ "$rc" -eq 0 ] || { cat "$T/vg.log" "$T/sup.log"; fail "the supervisor exited $rc under valgrind ($VGERR: valgrind found errors)"; }
[ ! -s "$T/vg.log" ] || { cat "$T/vg.log"; fail "valgrind reported"; }
grep -q "stopped: .* stored" "$T/sup.log" || fail "no summary at stop"
echo "supervisor valgrind: clean over $(( $(date +%s) - start )) s with an incident opened and closed, three reloads"
