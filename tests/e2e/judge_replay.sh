#!/bin/sh
# One judge (issue 22): a recorded stream gets the same findings at the same
# samples in the four tools that judge a stream of samples.
#   - record: a real agent on node 1,1,0 of the emulator while its X+ cable
#     takes a CRC burst, its Y+ cable flaps (unplugged and back) and its FPGA
#     overheats, each cleared again; SIGUSR1 dumps the black box;
#   - replay: apenet-agent --replay (the agent's judge and transitions),
#     apenet watch --from (every sample), apenet link --from --at (sample by
#     sample) and apenet-top --from (the screen at the last sample, in tmux),
#     all with the agent's config: the same findings, in the same order.
# Every wait polls with a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-judge-XXXXXX)
TM="tmux -L apenet-judge-$$ -f /dev/null"
AG_PID=""
cleanup() {
	$TM kill-server 2>/dev/null
	[ -n "$AG_PID" ] && { kill -TERM "$AG_PID" 2>/dev/null; wait "$AG_PID" 2>/dev/null; }
	sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG
command -v tmux >/dev/null || fail "tmux missing (make test installs it)"
A="$BIN/apenet"
sim_start "$T/sim" --dims 4x4x1 --seed 5
N="$T/sim/node-1-1-0"
inject() { "$BIN/apenet-sim" inject --dir "$T/sim" --node 1,1,0 "$@" >/dev/null || fail "inject $*"; }

mkdir -p "$T/ag"
cat >"$T/agent.yaml" <<Y
agent:
  state_dir: $T/ag/state
  blackbox_dir: $T/ag/blackbox
  socket: $T/ag/agent.sock
  edac_root: $T/ag/edac
  period_ms: 200
  watchdog_period_ms: 200
  baseline_s: 5
  blackbox_dump_full_s: 120
  blackbox_holdoff_s: 600
  watchdog_timeout_beats: 10
  dnp_stuck_periods: 20
  user: ""
supervisors:
  targets: []
Y
"$BIN/apenet-agent" --config "$T/agent.yaml" --foreground --sim "$N" 2>>"$T/ag/log" &
AG_PID=$!
ev() { f="$T/ag/state/events.jsonl"; [ -s "$f" ] && jq -e -s "any(.[]; $1)" "$f" >/dev/null 2>&1; }
wait_for 30 test -S "$T/ag/agent.sock" || fail "the agent did not start: $(cat "$T/ag/log")"
# a few clean seconds first: the stream starts healthy
quiet() { "$A" agent-status --json --socket "$T/ag/agent.sock" 2>/dev/null | jq -e '.raised == [] and .period.periods >= 10' >/dev/null; }
wait_for 30 quiet || fail "the agent does not settle: $(tail "$T/ag/log")"

# the CRC burst on X+ (what 1,1,0 receives), then clean again
inject cable-ber --link X+ --ber 1e-7
wait_for 60 ev '.code == "LINK_CRC" and .where == "X+" and .new != "normal"' || fail "no LINK_CRC: $(tail "$T/ag/log")"
inject clear
wait_for 60 ev '.code == "LINK_CRC" and .where == "X+" and .new == "normal"' || fail "LINK_CRC did not clear"
# the flap: Y+ unplugged and plugged back
inject cable-unplug --link Y+
wait_for 30 ev '.code == "LINK_DOWN" and .where == "Y+" and .new == "broken"' || fail "no LINK_DOWN"
inject clear
wait_for 60 ev '.code == "LINK_DOWN" and .where == "Y+" and .new == "normal"' || fail "LINK_DOWN did not clear"
# the overheat, and back
inject overheat --celsius 100
wait_for 30 ev '.code == "FPGA_TEMP" and .new == "broken"' || fail "no FPGA_TEMP"
inject clear
wait_for 60 ev '.code == "FPGA_TEMP" and .new == "normal"' || fail "FPGA_TEMP did not clear"
# the dump once the agent holds nothing more (the flap's count leaves its window)
wait_for 60 quiet || fail "the agent still holds findings"
kill -USR1 "$AG_PID"
wait_for 30 sh -c "grep -l '\"reason\": \"SIGUSR1\"' $T/ag/blackbox/*.json >/dev/null 2>&1" || fail "no SIGUSR1 dump"
F=$(grep -l '"reason": "SIGUSR1"' "$T"/ag/blackbox/*.json | head -n 1)
kill -TERM "$AG_PID"; wait "$AG_PID"; AG_PID=""

# a finding as compared: where, what, how bad
KEY='[.subject, .link, .lane, .code, .severity]'

# the agent's judge, every sample: one document each
"$BIN/apenet-agent" --config "$T/agent.yaml" --replay "$F" --json >"$T/agent.json" 2>"$T/agent.err" ||
	fail "agent --replay: $(cat "$T/agent.err")"
jq -c -s "map({t: .host_time_ms, f: [.findings[] | $KEY]}) | .[1:] | .[]" "$T/agent.json" >"$T/agent.k" ||
	fail "agent --replay output"
NS=$(wc -l <"$T/agent.k")
[ "$NS" -ge 30 ] || fail "a stream of $NS samples: too short to say anything"
# the stream has what it was recorded for: every fault raised and cleared
for c in LINK_CRC LINK_DOWN FPGA_TEMP; do
	grep -q "\"$c\"" "$T/agent.k" || fail "the replayed stream never holds $c"
	jq -e -s --arg c "$c" 'any(.[]; any(.events[]; .code == $c and .new == "normal"))' "$T/agent.json" >/dev/null ||
		fail "the agent's replay never clears $c"
done
tail -n 1 "$T/agent.k" | jq -e '.f == []' >/dev/null || fail "the last sample still holds: $(tail -n 1 "$T/agent.k")"

# apenet watch --from: the same findings at every sample
"$A" watch --from "$F" --json --config "$T/agent.yaml" >"$T/watch.json"
rc=$?
[ $rc -eq 1 ] || fail "watch --from exit $rc (a fault was shown: 1)"
jq -c -s "map({t: .host_time_ms, f: [.findings[] | $KEY]}) | .[]" "$T/watch.json" >"$T/watch.k"
cmp -s "$T/agent.k" "$T/watch.k" || { diff "$T/agent.k" "$T/watch.k" | head -20; fail "watch --from and the agent disagree"; }

# apenet link --from --at: each sample's link and lane findings (every
# sample where the agent's change, and every fourth one between)
jq -c '{t, f: [.f[] | select(.[0] == "link" or .[0] == "lane")]}' "$T/agent.k" >"$T/agent.links"
i=0; prev=""; checked=0
while read -r line; do
	i=$((i + 1))
	f=$(echo "$line" | jq -c .f)
	if [ "$f" != "$prev" ] || [ $((i % 4)) -eq 0 ]; then
		t=$(echo "$line" | jq .t)
		"$A" link --from "$F" --at "$t" --json --config "$T/agent.yaml" >"$T/link.json" 2>"$T/link.err"
		rc=$?
		[ $rc -le 1 ] || fail "link --at $t: exit $rc $(cat "$T/link.err")"
		jq -e --argjson t "$t" '.replay.s1_host_time_ms == $t' "$T/link.json" >/dev/null ||
			fail "link --at $t picked another sample: $(jq -c .replay "$T/link.json")"
		got=$(jq -c "[.findings[] | $KEY]" "$T/link.json")
		[ "$got" = "$f" ] || fail "sample $i ($t): link says $got, the agent $f"
		want=$([ "$f" = "[]" ] && echo 0 || echo 1)
		[ $rc -eq "$want" ] || fail "link --at $t: exit $rc with findings $got"
		checked=$((checked + 1))
	fi
	prev=$f
done <"$T/agent.links"
[ $checked -ge 10 ] || fail "only $checked samples checked with link"

# apenet-top --from: the screen at the last sample shows each link's worst
# held finding as the agent holds it; and at a sample in the middle of the
# CRC burst (the stream cut there), the same
check_top() {
	file=$1 doc=$2 top=$3
	$TM new-session -d -s "$top" -x 100 -y 30 "$BIN/apenet-top --from $file --config $T/agent.yaml --mono; sleep 30" ||
		fail "tmux"
	wait_for 20 sh -c "$TM capture-pane -p -t $top | grep -q '^LINK '" || fail "top --from $file: $($TM capture-pane -p -t "$top")"
	$TM capture-pane -p -t "$top" >"$T/top.txt"
	for l in X+ X- Y+ Y- Z+ Z-; do
		want=$(jq -r --arg l "$l" '[.findings[] | select(.link == $l and (.subject == "link" or .subject == "lane"))] |
			(map(select(.severity == "fail")) + map(select(.severity == "warn")))[0].code // "OK"' "$doc")
		got=$(awk -v l="$l" '$1 == l { print $NF; exit }' "$T/top.txt")
		[ "$got" = "$want" ] || { cat "$T/top.txt"; fail "top --from: $l shows $got, the agent holds $want"; }
	done
}
jq -s '.[-1]' "$T/agent.json" >"$T/last.json"
check_top "$F" "$T/last.json" last
# the stream cut at the sample where the agent held LINK_CRC the longest ago
cut=$(jq -r -s '[.[] | select(any(.findings[]; .code == "LINK_CRC"))][-1].sample' "$T/agent.json")
jq --argjson n "$cut" '.samples |= .[0:($n + 1)]' "$F" >"$T/cut.json" || fail "cutting the stream"
jq -s --argjson n "$cut" '.[$n]' "$T/agent.json" >"$T/cut-doc.json"
jq -e '.findings | any(.code == "LINK_CRC")' "$T/cut-doc.json" >/dev/null || fail "the cut sample holds no LINK_CRC"
check_top "$T/cut.json" "$T/cut-doc.json" cut
echo "ok: the agent, watch, link ($checked samples) and top agree on $NS samples"
