#!/bin/sh
# apenet-top in a real terminal: tmux (a private server), 80x24.
#  - node view on the emulator: six links up; an unplugged X- comes first
#    with its verdict, and the node's own LDM word says its link broken; Enter reaches the link's lanes, Enter again a lane
#    (8b/10b errors, alignment history, PMA settings); Esc back up;
#  - resize to 132x43 and back: the screen follows;
#  - TERM=vt100 (no colours) and NO_COLOR: the same letters and words;
#  - q and SIGTERM: the terminal is given back (the shell after it runs);
#  - --from: a snapshot file replayed, the same bad link first;
#  - cluster view of a 4x4x2 database built by a real supervisor from an
#    agent's reports: the overheated node's cell in slice Z=1 reads 'B',
#    the nodes without an agent '?'; the node list worst first; Enter on
#    the node shows its states; then a second agent's card falls off the
#    bus (2,0,0): its row names its incident, never its stale "all normal",
#    and Enter on each incident of the `i` list opens that incident's node;
#  - a database that is not one: a message on the screen, not a crash.
# Every wait polls the screen with a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-top-XXXXXX)
TM="tmux -L apenet-top-$$ -f /dev/null"
AGENT=""
AGENT2=""
SUP=""
cleanup() {
	$TM kill-server 2>/dev/null
	[ -n "$AGENT" ] && { kill -TERM "$AGENT" 2>/dev/null; wait "$AGENT" 2>/dev/null; }
	[ -n "$AGENT2" ] && { kill -TERM "$AGENT2" 2>/dev/null; wait "$AGENT2" 2>/dev/null; }
	[ -n "$SUP" ] && { kill -TERM "$SUP" 2>/dev/null; wait "$SUP" 2>/dev/null; }
	sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG
command -v tmux >/dev/null || fail "tmux missing (make test installs it)"
TOP="$BIN/apenet-top"

screen() { $TM capture-pane -p -t "$1" 2>/dev/null; }
# shows SESSION PATTERN: a line of the screen matches (grep -E)
shows() { screen "$1" | grep -Eq -- "$2"; }
# run SESSION WxH COMMAND: in a shell that says how the program ended
run() {
	$TM new-session -d -s "$1" -x "${2%x*}" -y "${2#*x}" \
		"env $3; echo \"ENDED rc=\$?\"; sleep 60" || fail "tmux new-session $1"
}

# --- the node view
sim_start "$T/sim" --dims 2x2x1 --seed 7
N="$T/sim/node-0-0-0"
run node 80x24 "TERM=xterm-256color '$TOP' --sim '$N' -d 2"
wait_for 20 shows node '^X\+ +up +4/4' || fail "node view: $(screen node)"
[ "$(screen node | grep -Ec '^[XYZ][+-] +up ')" -eq 6 ] || fail "six links up: $(screen node)"
shows node 'F1 help' || fail "no key hints: $(screen node)"
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 cable-unplug --link X- >/dev/null || fail inject
# the bad link first (the row under the header), with its verdict
first() { screen node | sed -n '5p' | grep -Eq '^X- +(down|training) .*LINK_DOWN'; }
wait_for 20 first || fail "X- not first with LINK_DOWN: $(screen node)"
# the LDM words decoded: this node's own says its X- link is broken
ownb() { screen node | grep '^own ' | grep -q ' B '; }
shows node '^LDM +NODE +SVC MEM' && wait_for 10 ownb || fail "LDM table: $(screen node)"
# drill down: the link, a lane, and back
$TM send-keys -t node Enter
wait_for 10 shows node '^apenet-top  link X- ' || fail "Enter: no link view: $(screen node)"
shows node '^LANE PHASE' || fail "no lanes: $(screen node)"
$TM send-keys -t node Down Enter
wait_for 10 shows node '^apenet-top  link X- lane 1 ' || fail "no lane view: $(screen node)"
shows node '^8b/10b code violations' && shows node '^alignment history' && shows node '^PMA  VOD [0-9]+' ||
	fail "lane view: $(screen node)"
$TM send-keys -t node Escape
wait_for 10 shows node '^LANE PHASE' || fail "Esc: not back to the link: $(screen node)"
$TM send-keys -t node Left
wait_for 10 shows node '^LINK +STATE' || fail "Left: not back to the node: $(screen node)"
# resize and back
$TM resize-window -t node -x 132 -y 43
wait_for 10 sh -c "[ \"\$($TM capture-pane -p -t node | wc -l)\" -eq 43 ]" || fail "132x43: $(screen node | wc -l) lines"
screen node | sed -n '43p' | grep -q 'F1 help' || fail "132x43: hints not on the last line: $(screen node | tail -2)"
$TM resize-window -t node -x 80 -y 24
wait_for 10 sh -c "$TM capture-pane -p -t node | sed -n '24p' | grep -q 'F1 help'" || fail "back to 80x24: $(screen node)"
# help, filter
$TM send-keys -t node F1
wait_for 10 shows node 'apenet-top keys' || fail "F1: no help: $(screen node)"
$TM send-keys -t node x
wait_for 10 sh -c "! $TM capture-pane -p -t node | grep -q 'apenet-top keys'" || fail "help did not close"
# a filter matches the name, the partner and the verdict, case-blind: the
# one link with LINK_DOWN (links are the rows above the LDM table)
$TM send-keys -t node / l i n k _ d o w n Enter
wait_for 10 sh -c "[ \"\$($TM capture-pane -p -t node | sed -n '5,/^\$/p' | grep -Ec '^[XYZ][+-] ')\" -eq 1 ]" ||
	fail "filter link_down: $(screen node)"
screen node | sed -n '5p' | grep -q '^X- ' || fail "filter kept the wrong link: $(screen node)"
# q gives the terminal back
$TM send-keys -t node q
wait_for 10 shows node '^ENDED rc=0' || fail "q: $(screen node)"
# a snapshot file, replayed: the same bad link first
"$BIN/apenet" snapshot --sim "$N" >"$T/snap.json" || fail "apenet snapshot"
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 clear >/dev/null || fail inject
run replay 80x24 "TERM=xterm '$TOP' --from '$T/snap.json'"
wait_for 10 shows replay '^apenet-top  node 0,0,0 .*\(replay\)' || fail "--from: $(screen replay)"
screen replay | sed -n '5p' | grep -Eq '^X- +(down|training) .*LINK_DOWN' || fail "--from: X- not first: $(screen replay)"
$TM send-keys -t replay q
wait_for 10 shows replay '^ENDED rc=0' || fail "q on a replay: $(screen replay)"

# --- without colours: TERM=vt100, and NO_COLOR; SIGTERM ends it cleanly
run mono 80x24 "TERM=vt100 NO_COLOR=1 '$TOP' --sim '$N' -d 2"
wait_for 20 shows mono '^X\+ +up +4/4 .* OK' || fail "vt100: $(screen mono)"
pkill -TERM -f "apenet-top --sim $N" || fail "no apenet-top to stop"
wait_for 10 shows mono '^ENDED rc=0' || fail "SIGTERM: $(screen mono)"
sim_stop

# --- the cluster view of a 4x4x2 database built by the supervisor
sim_start "$T/sim2" --dims 4x4x2 --seed 3
mkdir -p "$T/sup" "$T/ag"
printf 'cluster:\n  dims: 4x4x2\nsupervisor:\n  state_dir: %s\n  agentx: 0\n' "$T/sup" >"$T/sup/sup.yaml"
base=$(( 20000 + ($$ * 17) % 30000 ))
supervisor_start "$T/sup"
cat >"$T/ag/agent.yaml" <<EOF
agent:
  state_dir: $T/ag/state
  blackbox_dir: $T/ag/bb
  socket: $T/ag/sock
  edac_root: $T/ag/edac
  user: ""
  agentx: 0
supervisors:
  targets: ["127.0.0.1:$SUPPORT"]
  heartbeat_s: 0.5
$(node_key "$T/ag" 1,2,1)
EOF
"$BIN/apenet-agent" --config "$T/ag/agent.yaml" --foreground --sim "$T/sim2/node-1-2-1" 2>"$T/ag/log" &
AGENT=$!
"$BIN/apenet-sim" inject --dir "$T/sim2" --node 1,2,1 overheat --celsius 99 >/dev/null || fail inject
broken() { "$BIN/apenet" health --db "$T/sup/h.db" --json 2>/dev/null |
	jq -e '.nodes[] | select(.node == {"x":1,"y":2,"z":1}) | .class == "broken"' >/dev/null; }
wait_for 30 broken || fail "1,2,1 never broken in the database: $("$BIN/apenet" health --db "$T/sup/h.db" 2>&1 | head)"
run cl 80x24 "TERM=xterm-256color '$TOP' --db '$T/sup/h.db' -d 2"
wait_for 20 shows cl '^apenet-top  cluster 4x4x2  32 nodes:' || fail "cluster view: $(screen cl)"
shows cl '^slice Z=0 of 1' || fail "not on slice 0: $(screen cl)"
# slice 0 has no broken node; Z goes to slice 1, where 1,2,1 is 'B' in row
# Y2 at column 1 (the row label takes 4 columns, a cell 2)
shows cl '^Y2  \? \? \? \?' || fail "slice 0, row Y2: $(screen cl)"
$TM send-keys -t cl Z
wait_for 10 shows cl '^slice Z=1 of 1: 1 broken 15 silent' || fail "slice 1: $(screen cl)"
[ -n "${TOP_SHOTS:-}" ] && screen cl >"$TOP_SHOTS/cluster.txt" # docs/top.md's capture
row=$(screen cl | grep '^Y2 ')
[ "$(printf '%s' "$row" | cut -c7)" = B ] && [ "$(printf '%s' "$row" | cut -c5)" = '?' ] || fail "row Y2 of slice 1: '$row'"
# F5: every slice's summary instead of the map
$TM send-keys -t cl F5
wait_for 10 shows cl '^Z0 +0B +16\? +0s +Z1 +1B +15\? +0s' || fail "F5 slice summaries: $(screen cl)"
$TM send-keys -t cl F5
wait_for 10 shows cl '^Y2 ' || fail "F5 back to the map: $(screen cl)"
# the list: the broken node first, with what is wrong
screen cl | grep -A1 '^NODE ' | tail -1 | grep -Eq '^1,2,1 +broken .*(temperature|FPGA_TEMP)' ||
	fail "node list: $(screen cl | grep -A2 '^NODE ')"
# i: the open incidents, as apenet health lists them
$TM send-keys -t cl i
wait_for 10 shows cl '^ID +COMPONENT +WHERE' || fail "i: $(screen cl)"
same_inc() {
	want=$("$BIN/apenet" health --db "$T/sup/h.db" --json 2>/dev/null | jq -r '[.incidents[].id] | sort | map(tostring) | join(" ")')
	got=$(screen cl | sed -n '/^ID /,$p' | awk '$1 ~ /^[0-9]+$/ { print $1 }' | sort -n | tr '\n' ' ' | sed 's/ $//')
	[ "$want" = "$got" ] || { [ -z "$want" ] && shows cl '^no open incident'; }
}
wait_for 20 same_inc || fail "incidents: screen '$got' vs apenet health '$want': $(screen cl)"
$TM send-keys -t cl i
wait_for 10 shows cl '^NODE +NAME' || fail "i back to the nodes: $(screen cl)"
$TM send-keys -t cl Enter
wait_for 10 shows cl '^apenet-top  node 1,2,1' || fail "Enter: $(screen cl)"
shows cl 'FPGA_TEMP' || fail "the node's states: $(screen cl)"
shows cl '^X\+ +2,2,1 X- +normal' || fail "the node's links: $(screen cl)"
$TM send-keys -t cl Escape q
wait_for 10 shows cl '^ENDED rc=0' || fail "q: $(screen cl)"

# --- an incident opens its own node; a blamed node never reads "all normal".
# A second agent, on 2,0,0, whose card then falls off the bus: its last LDM
# word said all normal, and it stays its heartbeat's summary; the node list
# sorts 2,0,0 (slice 0) before 1,2,1, the incidents list has it second.
sed "s#$T/ag/#$T/ag2/#" "$T/ag/agent.yaml" >"$T/ag2.yaml"
mkdir -p "$T/ag2"
node_key "$T/ag2" 2,0,0 >/dev/null # its own key: 1,2,1's would speak for another node
"$BIN/apenet-agent" --config "$T/ag2.yaml" --foreground --sim "$T/sim2/node-2-0-0" 2>"$T/ag2/log" &
AGENT2=$!
hjson() { "$BIN/apenet" health --db "$T/sup/h.db" --json 2>/dev/null; }
normal200() { hjson | jq -e '.summary.normal == 1' >/dev/null; }
wait_for 30 normal200 || fail "2,0,0 never heard: $(hjson | jq -c .summary)"
"$BIN/apenet-sim" inject --dir "$T/sim2" --node 2,0,0 card-gone >/dev/null || fail inject
card_open() { hjson | jq -e '[.incidents[] | select(.state == "open") | .component] as $c |
	($c | index("card")) != null and ($c | index("sensor:temperature")) != null' >/dev/null; }
wait_for 30 card_open || fail "no card incident on 2,0,0: $(hjson | jq -c '[.incidents[] | [.id, .component, .node]]')"
hjson | jq -e '.nodes[] | select(.node == {"x":2,"y":0,"z":0}) | .ldm == "all normal"' >/dev/null ||
	fail "2,0,0's heartbeat no longer says all normal: the test shows nothing"
run cl2 80x24 "TERM=xterm-256color '$TOP' --db '$T/sup/h.db' -d 2"
wait_for 20 shows cl2 '^2,0,0 +broken +incident [0-9]+ card \(card-gone\)' || fail "2,0,0 in the node list: $(screen cl2)"
# no node an open incident blames reads all normal
for xyz in $(hjson | jq -r '.incidents[] | select(.state == "open") | "\(.node.x),\(.node.y),\(.node.z)"'); do
	screen cl2 | grep -E "^$xyz " | grep -q 'all normal' && fail "$xyz has an open incident and reads all normal: $(screen cl2)"
	screen cl2 | grep -Eq "^$xyz .*incident [0-9]+ " || fail "$xyz: no incident in its row: $(screen cl2)"
done
# i, then Enter on each incident in turn: the incident's node, not the
# node list's row at the same place
$TM send-keys -t cl2 i
wait_for 10 shows cl2 '^ID +COMPONENT +WHERE' || fail "i: $(screen cl2)"
k=0
for xyz in $(hjson | jq -r '.incidents[] | select(.state == "open") | "\(.node.x),\(.node.y),\(.node.z)"'); do
	[ $k -gt 0 ] && $TM send-keys -t cl2 Down
	$TM send-keys -t cl2 Enter
	wait_for 10 shows cl2 "^apenet-top  node $xyz( |\$)" || fail "Enter on incident $k (node $xyz): $(screen cl2)"
	shows cl2 '^open incidents' || fail "node $xyz: its open incidents: $(screen cl2)"
	$TM send-keys -t cl2 Escape
	wait_for 10 shows cl2 '^ID +COMPONENT +WHERE' || fail "Esc: not back to the incidents: $(screen cl2)"
	k=$((k + 1))
done
[ $k -ge 2 ] || fail "$k open incidents, 2 expected"
$TM send-keys -t cl2 q
wait_for 10 shows cl2 '^ENDED rc=0' || fail "q: $(screen cl2)"

# --- a file that is not a database: said on the screen, apenet-top lives on
printf 'not a database\n' >"$T/bad.db"
run bad 80x24 "TERM=xterm '$TOP' --db '$T/bad.db' -d 2"
wait_for 10 shows bad 'bad.db' || fail "bad database: $(screen bad)"
shows bad 'trying again' || fail "no message: $(screen bad)"
$TM send-keys -t bad q
wait_for 10 shows bad '^ENDED rc=0' || fail "q on the bad database: $(screen bad)"
echo "top: node view (bad link first, drill to a lane, resize, help, filter, vt100/NO_COLOR), cluster view (slice map, worst first, node states, incidents open their nodes, blamed nodes say so), bad database, clean exits"
