#!/bin/sh
# make soak-clean: a clean run of the whole always-on picture (issues 8 and
# 9): a 4x4x1 emulated torus, an agent on every node (16, each its own
# config, state, socket) reporting to the two supervisors, no fault, for
# CLEAN_S seconds (default 600).  Passes when no agent raised a single
# transition (events.jsonl stays empty of transitions), neither supervisor
# opened an incident, and every process is still running; prints each
# agent's and supervisor's CPU time and resident memory.
set -u
. "$(dirname "$0")/../tests/e2e_lib.sh"
S=${CLEAN_S:-600}
BIN=${APENET_BIN:-build/bin}
T=$(mktemp -d /tmp/apenet-clean-XXXXXX)
PIDS=""
trap 'for p in $PIDS; do kill -TERM $p 2>/dev/null; wait $p 2>/dev/null; done; sim_stop; rm -rf "$T"' EXIT
sim_start "$T/sim" --dims 4x4x1
P1=$(( 20000 + ($$ * 31) % 30000 ))
P2=$((P1 + 1))
printf 'cluster:\n  dims: 4x4x1\n' >"$T/sup.yaml"
site_keyed "$T/sup.yaml" # SNMPv3 with node keys, as shipped
for n in 1 2; do
	eval "p=\$P$n"
	"$BIN/apenet-supervisor" --config "$T/sup.yaml" --foreground --listen "127.0.0.1:$p" --db "$T/health-$n.db" \
		2>"$T/sup-$n.log" &
	PIDS="$PIDS $!"
	echo $! >"$T/sup-$n.pid"
	wait_for 30 grep -q "listening on" "$T/sup-$n.log" || { cat "$T/sup-$n.log"; fail "supervisor $n did not start"; }
done
for y in 0 1 2 3; do
	for x in 0 1 2 3; do
		n=$x-$y-0
		d="$T/a-$n"
		mkdir -p "$d"
		printf 'agent:\n  state_dir: %s/state\n  blackbox_dir: %s/bb\n  socket: %s/sock\n  edac_root: %s/edac\n  user: ""\nsupervisors:\n  targets: ["127.0.0.1:%s", "127.0.0.1:%s"]\n%s\n' \
			"$d" "$d" "$d" "$d" "$P1" "$P2" "$(node_key "$d" "$x,$y,0")" >"$d/agent.yaml"
		"$BIN/apenet-agent" --config "$d/agent.yaml" --foreground --sim "$T/sim/node-$n" 2>"$d/log" &
		PIDS="$PIDS $!"
		echo $! >"$d/pid"
	done
done
echo "clean run: 16 agents on a 4x4x1 torus for $S s"
end=$(( $(date +%s) + S ))
while [ "$(date +%s)" -lt "$end" ]; do
	for p in $PIDS; do kill -0 "$p" 2>/dev/null || fail "agent $p died"; done
	sleep 5 # a soak's pacing, not a test's wait: nothing waits on a condition here
done
bad=0
for d in "$T"/a-*; do
	n=${d##*/a-}
	tr=$(grep -c '"kind":"transition"' "$d/state/events.jsonl" 2>/dev/null || true)
	pid=$(cat "$d/pid")
	cpu=$(awk '{ print ($14 + $15) / 100 }' "/proc/$pid/stat")
	rss=$(awk '/VmRSS/ { print $2 / 1024 }' "/proc/$pid/status")
	echo "node $n: ${tr:-0} transitions, ${cpu} s CPU, ${rss} MB"
	[ "${tr:-0}" -eq 0 ] || { bad=1; grep '"kind":"transition"' "$d/state/events.jsonl" | head -5; }
done
for n in 1 2; do
	pid=$(cat "$T/sup-$n.pid")
	cpu=$(awk '{ print ($14 + $15) / 100 }' "/proc/$pid/stat")
	rss=$(awk '/VmRSS/ { print $2 / 1024 }' "/proc/$pid/status")
	"$BIN/apenet" health --db "$T/health-$n.db" --incidents --json >"$T/h.json"
	rc=$?
	inc=$(jq '.incidents | length' "$T/h.json")
	echo "supervisor $n: $inc incidents, $(jq -c .summary "$T/h.json"), ${cpu} s CPU, ${rss} MB"
	[ "$rc" -eq 0 ] && [ "$inc" -eq 0 ] || { bad=1; jq -c '.incidents[] | [.id, .component, .node, .rule]' "$T/h.json"; }
done
[ "$bad" -eq 0 ] || fail "a clean run raised transitions or incidents"
echo "clean run: no transition on 16 agents and no incident in either supervisor in $S s"
