#!/bin/sh
# make soak-clean: a clean run of the whole node-agent picture (issue 8): a
# 4x4x1 emulated torus, an agent on every node (16, each its own config,
# state, socket), no fault, for CLEAN_S seconds (default 600).  Passes when
# no agent raised a single transition (events.jsonl stays empty of
# transitions) and every agent is still running; prints each agent's CPU
# time and resident memory.
set -u
. "$(dirname "$0")/../tests/e2e_lib.sh"
S=${CLEAN_S:-600}
BIN=${APENET_BIN:-build/bin}
T=$(mktemp -d /tmp/apenet-clean-XXXXXX)
PIDS=""
trap 'for p in $PIDS; do kill -TERM $p 2>/dev/null; wait $p 2>/dev/null; done; sim_stop; rm -rf "$T"' EXIT
sim_start "$T/sim" --dims 4x4x1
for y in 0 1 2 3; do
	for x in 0 1 2 3; do
		n=$x-$y-0
		d="$T/a-$n"
		mkdir -p "$d"
		printf 'agent:\n  state_dir: %s/state\n  blackbox_dir: %s/bb\n  socket: %s/sock\n  edac_root: %s/edac\n  user: ""\nsupervisors:\n  targets: []\n' \
			"$d" "$d" "$d" "$d" >"$d/agent.yaml"
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
[ "$bad" -eq 0 ] || fail "a clean run raised transitions"
echo "clean run: no transition in $S s on 16 agents"
