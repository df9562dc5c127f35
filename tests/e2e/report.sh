#!/bin/sh
# The post-mortem report end to end: a 4x4x1 emulated torus, an agent on
# every node (16) keeping a black box, two apenet-supervisor instances.
# Before the agents start, the cable 1,1,0 Y+ is qualified into the first
# supervisor's database (a certificate to find in the report).  Then a
# cable fault (1,1,0 Y+ unplugged) and, while it lasts, a host hang (2,3,0's
# agent stopped); both cleared.  The report is built for each incident and
# for the window holding both, in text, JSON and HTML (2,3,0 is named with
# markup and quotes in the supervisors' config):
#  - the JSON names the right first fault and component (the cable: its end
#    1,1,0 or 1,2,0, its link; the host: 2,3,0), who saw it and when, the
#    black-box trends of the blamed nodes, the cable's serial and
#    certificate, the module each end's agent read (the same serial), one
#    recommendation, to replace that cable (the nodes' temperatures, inside
#    their limits, are no news) / check that host; the summary first;
#  - the window's first fault is the cable's (it came first);
#  - the HTML opens in headless Chromium with no console message at all
#    (its CSP forbids any fetch or script: a node named with markup in the
#    supervisors' config must stay text), the map and the timeline are in
#    the rendered page, and a screenshot is kept as a test artifact;
#  - bad input: exit 2 naming the problem.
. "$(dirname "$0")/../e2e_lib.sh"
. "$(dirname "$0")/../chromium_lib.sh"
T=$(mktemp -d /tmp/apenet-report-XXXXXX)
ART="$(dirname "$BIN")/test-artifacts"
mkdir -p "$ART"
PIDS=""
cleanup() {
	for p in $PIDS; do kill -CONT "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
base=$(( 20000 + ($$ * 13) % 30000 ))

# PRBS bits accelerated: the qualification below takes seconds, not minutes
sim_start "$T/sim" --dims 4x4x1 --seed 5 --ber-accel 10000
# a hostile node name: markup and quotes, to be shown as text
for s in s1 s2; do
	mkdir -p "$T/$s"
	cat >"$T/$s/sup.yaml" <<Y
cluster:
  dims: 4x4x1
  nodes:
    - name: gpu-n11
      node: 1,1,0
    - name: gpu-n12
      node: 1,2,0
    - name: '<img src=x onerror="alert(1)">&amp;<b>'
      node: 2,3,0
supervisor:
  batch_max_ms: 20
  silent_ms: 3500
Y
	supervisor_start "$T/$s"
	PIDS="$PIDS $SUP"
	echo "$SUP" >"$T/$s.pid"
	echo "$SUPPORT" >"$T/$s.port"
done
P1=$(cat "$T/s1.port")
P2=$(cat "$T/s2.port")
DB="$T/s1/h.db"

N="$T/sim/node-1-1-0"
up() { "$A" link --json --sim "$N" 2>/dev/null | jq -e '[.links[] | select(.name == "Y+") |
	select(.state == "up" and .up_for_s >= 3)] | length == 1' >/dev/null; }
wait_for 60 up || fail "1,1,0 Y+ never came up"
"$A" qualify --link Y+ --db "$DB" --sim "$N" --json </dev/null >"$T/q.json" 2>"$T/q.err" ||
	fail "qualify: $(cat "$T/q.err") $(cat "$T/q.json")"
SERIAL=$(jq -r '.links[0].cable.serial' "$T/q.json")
[ -n "$SERIAL" ] && [ "$SERIAL" != null ] || fail "qualify: no serial: $(cat "$T/q.json")"

agent() { # X Y
	d="$T/a-$1-$2-0"
	mkdir -p "$d"
	cluster_agent_yaml "$d" "$P1" "$P2" "$1,$2,0"
	"$BIN/apenet-agent" --config "$d/agent.yaml" --foreground --sim "$T/sim/node-$1-$2-0" 2>>"$d/log" &
	echo $! >"$d/pid"
	PIDS="$PIDS $!"
}
for y in 0 1 2 3; do for x in 0 1 2 3; do agent $x $y; done; done

health() { "$A" health --db "$DB" --incidents --all --json >"$T/h.json" 2>"$T/h.err"; [ $? -le 1 ]; }
q() { health && jq -e "$1" "$T/h.json" >/dev/null; }
# every node heard from (a node never heard is not yet silent), nothing wrong
wait_for 90 q '([.nodes[] | select(.heartbeat != null and .class == "normal")] | length) == 16 and
	.summary.open_incidents == 0' || fail "the torus never looked healthy: $(jq -c .summary "$T/h.json")"
# black boxes with some history before the fault, at both ends of the cable
span() { "$A" agent-status --json --socket "$T/a-$1-0/agent.sock" 2>/dev/null | jq -e '.blackbox.span_s >= 12' >/dev/null; }
wait_for 60 span 1-1 && wait_for 60 span 1-2 || fail "the black boxes did not fill"

inj() { "$BIN/apenet-sim" inject --dir "$T/sim" "$@" >/dev/null || fail "inject $*"; }
inj --node 1,1,0 cable-unplug --link Y+
wait_for 60 q '[.incidents[] | select(.state == "open" and .component == "cable")] | length == 1' ||
	fail "no cable incident: $(jq -c .incidents "$T/h.json")"
kill -STOP "$(cat "$T/a-2-3-0/pid")"
wait_for 60 q '[.incidents[] | select(.state == "open" and .component == "host")] | length == 1' ||
	fail "no host incident: $(jq -c .incidents "$T/h.json")"
inj --node 1,1,0 clear
kill -CONT "$(cat "$T/a-2-3-0/pid")"
wait_for 90 q '.summary.open_incidents == 0' || fail "the incidents did not close: $(jq -c .incidents "$T/h.json")"
CABLE=$(jq '[.incidents[] | select(.component == "cable")][0].id' "$T/h.json")
HOST=$(jq '[.incidents[] | select(.component == "host")][0].id' "$T/h.json")
# the agents dumped their black boxes on the transitions (1,1,0 and 1,2,0
# saw their link go; 2,3,0's neighbours its host): wait for the dumps
dumped() { ls "$T"/a-1-1-0/blackbox/blackbox-1-1-0-*.json >/dev/null 2>&1; }
wait_for 30 dumped || fail "1,1,0 wrote no black box"

R="$A report --db $DB --blackbox $T"
# --- the cable incident, in JSON
$R --incident "$CABLE" --format json -o "$T/cable.json" 2>"$T/err" || fail "report cable: $(cat "$T/err")"
jq -e --arg s "$SERIAL" '
	.command == "report" and .report.kind == "incident" and
	.incident.component == "cable" and (.incident.node == "1,1,0" or .incident.node == "1,2,0") and
	.blamed.component == "cable" and
	.first_fault.time_rel_ms == 0 and (.first_fault.node == "1,1,0" or .first_fault.node == "1,2,0") and
	(.first_fault.where == "Y+" or .first_fault.where == "Y-") and
	([.timeline[] | select(.first)] | length == 1) and
	([.timeline[] | select(.kind == "incident-opened")] | length >= 1) and
	([.timeline[].time_ms] | . == sort) and
	(.propagation | length >= 2) and (.propagation[0].time_rel_ms >= 0) and
	([.propagation[] | select(.observer == "supervisor" and .via == "deduce")] | length == 1) and
	([.trends[].node] | index("1,1,0") != null) and
	([.trends[] | select(.node == "1,1,0") | .series[].name] | index("fpga_temp") != null) and
	([.trends[] | select(.node == "1,1,0" and .samples >= 50 and .from_rel_ms <= -9000)] | length == 1) and
	([.trends[] | select(.node == "1,1,0") | .series[] | select(.name == "Y+ crc_errors")] | length == 1) and
	(.cables | length == 1) and .cables[0].serial == $s and .cables[0].certificates[0].verdict == "pass" and
	.cables[0].serial_from == "record" and
	([.cables[0].modules[] | select(.node == "1,1,0" and .link == "Y+" and .serial == $s)] | length == 1) and
	(.recommendations | length == 1) and
	(.recommendations[0].text | test("Replace the cable with serial " + $s)) and
	(.summary.failed | test("^the cable between node 1,[12],0 \\(gpu-n1[12]\\) link Y[+-] and node 1,[12],0 \\(gpu-n1[12]\\) link Y[+-], serial " + $s)) and
	(.summary.since | test("; over at .*, after ")) and (.summary.affected | test("^nodes .*1,1,0.*; links down: ")) and
	(keys_unsorted | index("summary") == 3) and
	(.recommendations[0].text | test("1,1,0 \\(gpu-n11\\)") and test("1,2,0 \\(gpu-n12\\)"))' "$T/cable.json" >/dev/null ||
	fail "cable report: $(jq -c '{summary, incident, first_fault, propagation, cables: [.cables[] | {serial, serial_from, modules, certificates}], recommendations, notes, trends: [.trends[] | {node, samples}]}' "$T/cable.json")"

# --- the host hang
$R --incident "$HOST" --format json -o "$T/host.json" 2>"$T/err" || fail "report host: $(cat "$T/err")"
jq -e '.incident.component == "host" and .incident.node == "2,3,0" and .first_fault.node == "2,3,0" and
	(.propagation | length >= 1) and ([.recommendations[].text | test("host of node 2,3,0 \\(<img src=x")] | any)' \
	"$T/host.json" >/dev/null || fail "host report: $(jq -c '{incident, first_fault, propagation, recommendations}' "$T/host.json")"
# the hostile name is in the JSON as it is (the writer escapes for JSON)
grep -q 'onerror=\\"alert(1)\\"' "$T/host.json" || fail "the node's name is not in the JSON"

# --- the window holding both: the cable came first
FROM=$(jq '.first_fault.time_ms - 60000' "$T/cable.json")
$R --since "$FROM" --format json -o "$T/window.json" 2>"$T/err" || fail "report window: $(cat "$T/err")"
jq -e --argjson c "$CABLE" --argjson h "$HOST" '.report.kind == "window" and .incident.id == $c and
	([.incidents[].id] | index($c) != null and index($h) != null) and .blamed.component == "cable" and
	([.recommendations[].component] | index("cable") == 0 and index("host") != null)' "$T/window.json" >/dev/null ||
	fail "window report: $(jq -c '{incident, incidents: [.incidents[] | [.id, .component]], recommendations}' "$T/window.json")"
# one node's window: the host's incident alone
$R --since "$FROM" --node 2,3,0 --format json >"$T/wn.json" 2>"$T/err" || fail "report --node: $(cat "$T/err")"
jq -e --argjson h "$HOST" '[.incidents[].id] == [$h] and .blamed.node == "2,3,0"' "$T/wn.json" >/dev/null ||
	fail "--node 2,3,0: $(jq -c '[.incidents[] | [.id, .component, .node]]' "$T/wn.json")"
# the same from the second supervisor's database (its own incident ids)
"$A" report --db "$T/s2/h.db" --since "$FROM" --format json >"$T/w2.json" 2>"$T/err" || fail "s2: $(cat "$T/err")"
jq -e '.blamed.component == "cable"' "$T/w2.json" >/dev/null || fail "s2 window: $(jq -c .blamed "$T/w2.json")"

# --- text
$R --incident "$CABLE" >"$T/cable.txt" 2>"$T/err" || fail "text: $(cat "$T/err")"
# the summary's three lines right under the title
sed -n 2,4p "$T/cable.txt" | cut -c1-14 | tr '\n' '|' | grep -qx "  What failed |  Since       |  Affected    |" ||
	fail "text report: no summary first: $(head -5 "$T/cable.txt")"
for h in "First fault" "Propagation" "Timeline" "Trends before the fault" "Cables" "Recommendations" \
	"Replace the cable with serial $SERIAL" "certificate"; do
	grep -q "$h" "$T/cable.txt" || fail "text report: no '$h': $(cat "$T/cable.txt")"
done

# --- HTML, in a real browser
$R --incident "$CABLE" --format html -o "$T/cable.html" 2>"$T/err" || fail "html: $(cat "$T/err")"
html_check "$T/cable.html" "$ART/report-cable.png" summary map timeline first-fault recommendations propagation ||
	fail "the cable report's HTML"
$R --since "$FROM" --format html -o "$T/window.html" 2>"$T/err" || fail "html window: $(cat "$T/err")"
grep -q '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;amp;&lt;b&gt;' "$T/window.html" ||
	fail "the hostile name is not escaped in the HTML"
html_check "$T/window.html" "$ART/report-window.png" map timeline || fail "the window report's HTML"

# --- bad input
"$A" report --db "$DB" --incident 99999 2>"$T/e1"; [ $? -eq 2 ] && grep -q "no incident 99999" "$T/e1" ||
	fail "missing incident: $(cat "$T/e1")"
"$A" report --db "$DB" 2>"$T/e2"; [ $? -eq 2 ] && grep -q -- "--incident ID, or --since" "$T/e2" ||
	fail "no selection: $(cat "$T/e2")"
"$A" report --db "$DB" --incident 1 --format pdf 2>"$T/e3"; [ $? -eq 2 ] && grep -q "text, json or html" "$T/e3" ||
	fail "bad format: $(cat "$T/e3")"
"$A" report --db "$DB" --since 2026-02-30 2>"$T/e3"; [ $? -eq 2 ] && grep -q "'2026-02-30' is not a time" "$T/e3" ||
	fail "a day that is none: $(cat "$T/e3")"
echo "not a database" >"$T/foreign.db"
"$A" report --db "$T/foreign.db" --incident 1 2>"$T/e4"; [ $? -eq 2 ] && grep -q "foreign.db" "$T/e4" ||
	fail "foreign file: $(cat "$T/e4")"
[ "$(cat "$T/foreign.db")" = "not a database" ] || fail "the foreign file was written to"
"$A" report --db "$DB" --incident "$CABLE" -o "$T/no/such/dir/r.txt" 2>"$T/e5"; [ $? -eq 2 ] ||
	fail "unwritable output: $(cat "$T/e5")"
# --- apenet db on the second supervisor's file, once it is stopped (vacuum
# and retention want no other writer)
kill -TERM "$(cat "$T/s2.pid")"
wait "$(cat "$T/s2.pid")" 2>/dev/null
D2="$T/s2/h.db"
"$A" db check --db "$D2" >"$T/c1" 2>&1 && grep -q "verdict: *ok" "$T/c1" || fail "db check: $(cat "$T/c1")"
"$A" db export --db "$D2" --since "$FROM" >"$T/x.jsonl" 2>"$T/err" || fail "db export: $(cat "$T/err")"
jq -se '([.[] | select(.type == "incident")] | length) >= 2 and ([.[] | select(.type == "transition")] | length) > 10 and
	([.[] | select(.type == "evidence")] | length) > 2' "$T/x.jsonl" >/dev/null || fail "db export: $(head -3 "$T/x.jsonl")"
n0=$(jq -s '[.[] | select(.type == "transition")] | length' "$T/x.jsonl")
# a time as a person types it: the last hour holds that window's incidents (the test is minutes old)
"$A" db export --db "$D2" --since -1h --until now >"$T/xh.jsonl" 2>"$T/err" || fail "db export --since -1h: $(cat "$T/err")"
jq -se --slurpfile w "$T/x.jsonl" '[.[] | select(.type == "incident") | .id] as $h |
	([$w[] | select(.type == "incident") | .id] | length) >= 2 and all($w[] | select(.type == "incident") | .id; . as $i | $h | index($i) != null)' \
	"$T/xh.jsonl" >/dev/null || fail "db export --since -1h: $(jq -c 'select(.type == "incident") | .id' "$T/xh.jsonl" | tr '\n' ' ')"
"$A" db export --db "$D2" --since 30m --until -30m >"$T/xe.jsonl" 2>"$T/err" && [ ! -s "$T/xe.jsonl" ] ||
	fail "db export, an empty window: $(cat "$T/err" "$T/xe.jsonl" | head -3)"
"$A" db export --db "$D2" --since soon 2>"$T/err"; [ $? -eq 2 ] && grep -q "'soon' is not a time: say a time ago (-1h" "$T/err" ||
	fail "db export --since soon: $(cat "$T/err")"
# retention now: everything older than a second goes but the incidents
"$A" db retention --db "$D2" --older-than-days 0.00001 >"$T/r1" 2>&1 || fail "db retention: $(cat "$T/r1")"
grep -q "transitions older than" "$T/r1" || fail "db retention said: $(cat "$T/r1")"
"$A" db export --db "$D2" --since "$FROM" >"$T/x2.jsonl" || fail "db export after retention"
jq -se --argjson n0 "$n0" '([.[] | select(.type == "transition")] | length) < $n0 and
	([.[] | select(.type == "incident")] | length) >= 2' "$T/x2.jsonl" >/dev/null ||
	fail "retention kept every transition or lost an incident"
"$A" db vacuum --db "$D2" >"$T/v1" 2>&1 || fail "db vacuum: $(cat "$T/v1")"
"$A" db check --db "$D2" >/dev/null 2>&1 || fail "db check after retention and vacuum"
# the report still says what failed first: the incidents keep their first fault
"$A" report --db "$D2" --since "$FROM" --format json >"$T/w3.json" 2>"$T/err" || fail "report after retention: $(cat "$T/err")"
jq -e '.blamed.component == "cable"' "$T/w3.json" >/dev/null || fail "after retention: $(jq -c .blamed "$T/w3.json")"
# someone else's sqlite file (an agent's spool) and a damaged copy of ours:
# a clear error, and not a byte written
SPOOL="$T/a-0-0-0/state/spool.db"
kill -TERM "$(cat "$T/a-0-0-0/pid")"
wait "$(cat "$T/a-0-0-0/pid")" 2>/dev/null
sum0=$(cksum <"$SPOOL")
for w in check vacuum export retention; do
	"$A" db "$w" --db "$SPOOL" >"$T/f.out" 2>"$T/f.err"; rc=$?
	[ $rc -eq 2 ] && grep -q "not a health database" "$T/f.err" || fail "db $w on a spool: exit $rc: $(cat "$T/f.err" "$T/f.out")"
done
[ "$(cksum <"$SPOOL")" = "$sum0" ] || fail "the spool was written to"
cp "$D2" "$T/bad.db"
size=$(wc -c <"$T/bad.db")
# garbage over the middle pages (the header stays: it still looks like ours)
dd if=/dev/urandom of="$T/bad.db" bs=4096 seek=$((size / 8192)) count=2 conv=notrunc 2>/dev/null
sum1=$(cksum <"$T/bad.db")
"$A" db check --db "$T/bad.db" >"$T/b.out" 2>"$T/b.err"; rc=$?
[ $rc -eq 1 ] || [ $rc -eq 2 ] || fail "db check on a damaged file: exit $rc"
grep -qi "integrity\|damaged\|malformed" "$T/b.out" "$T/b.err" || fail "db check on a damaged file: $(cat "$T/b.out" "$T/b.err")"
"$A" db vacuum --db "$T/bad.db" >/dev/null 2>"$T/b2.err"; [ $? -eq 2 ] || fail "db vacuum on a damaged file: $(cat "$T/b2.err")"
"$A" db retention --db "$T/bad.db" >/dev/null 2>&1; [ $? -eq 2 ] || fail "db retention on a damaged file"
[ "$(cksum <"$T/bad.db")" = "$sum1" ] || fail "the damaged file was written to"

echo "report: cable #$CABLE and host #$HOST reported in text, JSON and HTML; screenshots in $ART"
