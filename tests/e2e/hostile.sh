#!/bin/sh
# Every string from outside is data, never control (issue 21).  Hostile
# strings (ESC sequences, an OSC title, newlines, NUL, bytes that are not
# UTF-8, C1 controls, <script>, a spreadsheet formula) go in the ways an
# outsider has:
#  - SNMP INFORMs to the real supervisor, sent by net-snmp's snmpinform as
#    anyone on the service network could (inform(): the one place that
#    knows how; SNMPv2c, said explicitly in the config): the evidence, the
#    where, the code and the unit of a health change; a boot id with a
#    newline; evidence with a NUL (refused: the codec takes no NUL);
#  - the cluster config: a node named with escapes (YAML's "\e");
#  - a module EEPROM: the emulator's cable 'vendor:' knob;
#  - the health database itself: a cable's vendor rewritten with sqlite3.
# Then every reader shows them: apenet health (text, JSON, CSV), apenet
# report (text, JSON, HTML), apenet-top in tmux, the supervisor's log,
# apenet module, apenet cable, apenet agent-status.  Each output holds no raw
# control byte (but the newlines that end its lines), no C1, nothing that is
# not UTF-8, no line that a field broke in two; text shows \x1b, JSON
# carries the exact string back, HTML keeps <script> as text, CSV quotes
# the formula with a leading '.  Every wait polls with a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-hostile-XXXXXX)
TM="tmux -L apenet-hostile-$$ -f /dev/null"
SUP=""
AGENT=""
SIM_PID=""
cleanup() {
	$TM kill-server 2>/dev/null
	[ -n "$AGENT" ] && { kill -TERM "$AGENT" 2>/dev/null; wait "$AGENT" 2>/dev/null; }
	[ -n "$SUP" ] && { kill -TERM "$SUP" 2>/dev/null; wait "$SUP" 2>/dev/null; }
	sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG
for t in snmpinform tmux jq perl sqlite3; do
	command -v $t >/dev/null || fail "$t missing (make test installs it)"
done
A="$BIN/apenet"
base=$(( 20000 + ($$ * 19) % 30000 ))

# inert FILE WHAT: no byte below 0x20 but the newline, no DEL, valid UTF-8
# with no C1 character in it
inert() {
	perl -MEncode -e 'local $/; my $d = <STDIN>;
		exit 1 if $d =~ /[\x00-\x09\x0b-\x1f\x7f]/;
		my $s = eval { Encode::decode("UTF-8", $d, Encode::FB_CROAK) };
		exit 2 unless defined $s;
		exit 3 if $s =~ /[\x{80}-\x{9f}]/;' <"$1" ||
		fail "$2: a raw control byte or bytes that are not UTF-8 (perl exit $?): $(od -c "$1" | grep -E '\\(033|[0-9]{3}|a|r|t|0)' | head -5)"
	# the text after an injected newline never starts a line
	! grep -Eq '^(forged|Jan  1 00:00:00 host)' "$1" || fail "$2: a field broke a line: $(grep -En '^(forged|Jan)' "$1" | head -3)"
}
hex() { printf "$1" | od -An -tx1 | tr -d ' \n'; }

# --- a supervisor that takes SNMPv2c (said so: a later default may differ)
mkdir -p "$T/sup"
cat >"$T/sup/sup.yaml" <<'Y'
cluster:
  dims: 2x2x1
  nodes:
    - name: "\e[31mred\e]0;pwned\a\u009bname"
      node: 1,0,0
supervisor:
  batch_max_ms: 20
  settle_ms: 0
  log_level: info
  agentx: 0
supervisors:
  version: 2c
  community: public
Y
supervisor_start "$T/sup"
DB="$T/sup/h.db"

# inform BOOT SEQ WHERE CODE UNIT EVIDENCE: an apenetHealthChange about node
# 1,0,0 from 1,0,0 itself, its texts given as printf formats (\033, \377:
# any byte), as an outsider sends it with net-snmp's own tool.  The one
# place that knows the wire: SNMPv3 goes here when it is the default.
M=.1.3.6.1.4.1.8072.9999.9999.65
E=$M.1.1
inform() {
	snmpinform -v2c -c public -r 0 -t 5 -M /dev/null -m "" -Le "127.0.0.1:$SUPPORT" '' $M.0.1 \
		$E.1.0 u 1 $E.2.0 u 0 $E.3.0 u 0 $E.5.0 x "$(hex "$1")" $E.6.0 C "$2" \
		$E.7.0 C "$(($(date +%s) * 1000))" $E.8.0 i 5 $E.9.0 x "$(hex "$3")" $E.10.0 x "$(hex "$4")" \
		$E.11.0 i 1 $E.12.0 i 3 $E.13.0 s 93.5 $E.15.0 x "$(hex "$5")" $E.16.0 i 1 $E.18.0 x "$(hex "$6")" \
		2>>"$T/inform.err"
}
EV='\033[2J\033[H\033]0;pwned\a\nforged\377\376\302\233<script>alert(1)</script>'
inform '1,0,0#1' 1 'fpga\033[H' 'FPGA_TEMP' '\033[1mC' "$EV" || fail "inform: $(cat "$T/inform.err")"
# a formula where a spreadsheet would take it: the code and the evidence
inform '1,0,0#1' 2 "=cmd|' /C calc'!A0" "=cmd|' /C calc'!A0" 'C' "=cmd|' /C calc'!A0 \033[2J" ||
	fail "inform: $(cat "$T/inform.err")"
# a boot id holding an escape and a newline: a forged syslog line, if the
# log let it (the database refuses the boot id, the log quotes it)
inform '1,0,0#2\033[2J\nJan  1 00:00:00 host' 1 'fpga' 'FPGA_TEMP' 'C' 'x'
# a NUL in the evidence: the codec refuses it (rejected, never stored)
inform '1,0,0#3' 1 'fpga' 'FPGA_TEMP' 'C' 'before\000after'
hj() { "$A" health --db "$DB" --incidents --all --json >"$T/h.json" 2>"$T/h.err"; [ $? -le 1 ]; }
stored() { hj && jq -e '[.incidents[] | select(.first_fault.text | contains("pwned"))] | length == 1' "$T/h.json" >/dev/null; }
wait_for 20 stored || fail "the hostile report never made an incident: $(cat "$T/h.json" "$T/h.err" "$T/sup/log")"
wait_for 10 grep -q 'report rejected.*apenetEventEvidence' "$T/sup/log" ||
	fail "the evidence with a NUL was not rejected: $(cat "$T/sup/log")"
"$A" db export --db "$DB" >"$T/export.jsonl" 2>&1 || fail "db export: $(cat "$T/export.jsonl")"
grep -q 'pwned' "$T/export.jsonl" || fail "db export: not the hostile report: $(head -c 1000 "$T/export.jsonl")"
inert "$T/export.jsonl" "db export"
grep -q 'before' "$T/export.jsonl" && fail "the evidence with a NUL was stored"

# --- apenet health: text, JSON, CSV; one node
"$A" health --db "$DB" --incidents --all >"$T/h.txt" 2>&1
inert "$T/h.txt" "health text"
grep -qF '\x1b[2J\x1b[H\x1b]0;pwned\x07\x0aforged\xff\xfe\xc2\x9b<script>' "$T/h.txt" ||
	fail "health text: the evidence not shown escaped: $(cat "$T/h.txt")"
grep -qF '\x1b[31mred' "$T/h.txt" || fail "health text: the node's name: $(cat "$T/h.txt")"
inert "$T/h.json" "health --json"
# JSON carries the string back exactly (\u001b, \u009b; bytes that are not UTF-8 as \u00XX)
jq -e '[.incidents[].first_fault.text | select(contains("\u001b[2J\u001b[H\u001b]0;pwned\u0007\nforged\u00ff\u00fe\u009b<script>"))] | length == 1' \
	"$T/h.json" >/dev/null || fail "health --json: the evidence: $(jq -c '[.incidents[].first_fault.text]' "$T/h.json")"
"$A" health --db "$DB" --incidents --all --csv >"$T/h.csv" 2>&1
inert "$T/h.csv" "health --csv"
# no cell a spreadsheet would take for a formula: a string starting with
# = + - @ is quoted with a leading ' (a number such as -3.5 stays one)
formulas() {
	perl -ne 'next if /^#/; chomp; my @c;
		push @c, defined $1 ? $1 : $2 while /\G(?:"((?:[^"]|"")*)"|([^,]*))(?:,|$)/g && pos() <= length;
		for (@c) { if (/^[=+\-\@\t\r]/ && !/^-?[0-9.]+(e[-+]?[0-9]+)?$/ && $_ ne "-") { print "$_\n"; exit 1 } }' "$1"
}
formulas "$T/h.csv" || fail "health --csv: a formula: $(formulas "$T/h.csv")"
grep -qF "\"'=cmd|' /C calc'!A0" "$T/h.csv" || fail "health --csv: the formula's cell: $(cat "$T/h.csv")"
"$A" health --db "$DB" --node 1,0,0 >"$T/hn.txt" 2>&1
inert "$T/hn.txt" "health --node"
grep -qF 'fpga\x1b[H' "$T/hn.txt" || fail "health --node: the where: $(cat "$T/hn.txt")"
"$A" health --db "$DB" --node 1,0,0 --csv >"$T/hn.csv" 2>&1
inert "$T/hn.csv" "health --node --csv"

# --- apenet report: text, JSON, HTML
ID=$(jq '[.incidents[] | select(.first_fault.text | contains("pwned"))][0].id' "$T/h.json")
"$A" report --db "$DB" --incident "$ID" >"$T/r.txt" 2>&1
inert "$T/r.txt" "report text"
grep -qF '\x1b[2J\x1b[H\x1b]0;pwned\x07\x0aforged' "$T/r.txt" || fail "report text: $(cat "$T/r.txt")"
"$A" report --db "$DB" --incident "$ID" --format json >"$T/r.json" 2>&1
inert "$T/r.json" "report json"
jq -e '[.. | strings | select(contains("\u001b[2J\u001b[H"))] | length >= 1' "$T/r.json" >/dev/null ||
	fail "report json: the evidence: $(head -c 2000 "$T/r.json")"
"$A" report --db "$DB" --incident "$ID" --format html -o "$T/r.html" 2>"$T/r.err" || fail "report html: $(cat "$T/r.err")"
inert "$T/r.html" "report html"
grep -q '<script' "$T/r.html" && fail "report html: a <script> came through"
grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$T/r.html" || fail "report html: the evidence not shown as text"

# --- apenet-top: the cluster view, the incidents, the node; in a terminal
screen() { $TM capture-pane -p -t "$1" 2>/dev/null; }
shows() { screen "$1" | grep -Fq -- "$2"; }
$TM new-session -d -s cl -x 132 -y 30 "env TERM=xterm-256color '$BIN/apenet-top' --db '$DB' -d 2; echo \"ENDED rc=\$?\"; sleep 60" ||
	fail "tmux new-session"
wait_for 20 shows cl 'apenet-top  cluster 2x2x1' || fail "top: no cluster view: $(screen cl)"
wait_for 10 shows cl '\x1b[31mred' || fail "top: the node's name not shown escaped: $(screen cl)"
$TM send-keys -t cl i
wait_for 10 shows cl '\x1b[2J\x1b[H\x1b]0;pwned\x07\x0aforged' || fail "top: the incident's first fault: $(screen cl)"
# an escape that reached the terminal would have cleared it or set its title
shows cl 'apenet-top  cluster 2x2x1' || fail "top: the screen was cleared: $(screen cl)"
[ "$($TM display -p -t cl '#{pane_title}')" != pwned ] || fail "top: an OSC set the terminal's title"
screen cl | grep -q '^forged' && fail "top: a newline broke a line: $(screen cl)"
$TM send-keys -t cl i Enter
wait_for 10 shows cl 'apenet-top  node 1,0,0' || fail "top: Enter on the node: $(screen cl)"
wait_for 10 shows cl 'fpga\x1b[H' || fail "top: the node's states: $(screen cl)"
$TM send-keys -t cl Escape q
wait_for 10 shows cl 'ENDED rc=0' || fail "top: q: $(screen cl)"

# --- a module that names itself with escapes (the emulator's EEPROM)
cat >"$T/sim.yaml" <<'Y'
dims: 2x2x1
seed: 4
cables:
  - node: 0,0,0
    link: X+
    vendor: "\e[2J\e]0;pwn\a\u009b"
Y
sim_start "$T/sim" --config "$T/sim.yaml" --ber-accel 10000
N="$T/sim/node-0-0-0"
for f in "" --json --csv; do
	"$A" module --sim "$N" $f >"$T/m$f.out" 2>&1
	inert "$T/m$f.out" "module $f"
done
grep -qF '?[2J?]0;pwn' "$T/m.out" || fail "module: the vendor as the SFF decoder shows it: $(grep -A2 'vendor' "$T/m.out" | head)"
# qualified: the cable and its vendor go into the database
up() { "$A" link --json --sim "$N" 2>/dev/null | jq -e '[.links[] | select(.name == "X+" and .state == "up" and .up_for_s >= 3)] | length == 1' >/dev/null; }
wait_for 60 up || fail "0,0,0 X+ never came up"
"$A" qualify --link X+ --db "$DB" --sim "$N" --json </dev/null >"$T/q.json" 2>"$T/q.err" || [ $? -eq 1 ] ||
	fail "qualify: $(cat "$T/q.err")"
inert "$T/q.json" "qualify --json"
SERIAL=$(jq -r '.links[0].cable.serial' "$T/q.json")
[ -n "$SERIAL" ] && [ "$SERIAL" != null ] || fail "qualify: no serial: $(cat "$T/q.json")"
# and the database itself is outside: its vendor rewritten with any bytes
sqlite3 "$DB" "UPDATE cable SET vendor = CAST(x'$(hex '\033[2J\033]0;pwned\a\n=cmd\377')' AS TEXT) WHERE serial = '$SERIAL'" ||
	fail "sqlite3: the cable's vendor"
for f in "" --json --csv; do
	"$A" cable "$SERIAL" --db "$DB" $f >"$T/c$f.out" 2>&1
	inert "$T/c$f.out" "cable $f"
done
grep -qF '\x1b[2J\x1b]0;pwned\x07\x0a=cmd\xff' "$T/c.out" || fail "cable: the vendor: $(cat "$T/c.out")"
jq -e '.vendor == "\u001b[2J\u001b]0;pwned\u0007\n=cmd\u00ff"' "$T/c--json.out" >/dev/null || fail "cable --json: $(cat "$T/c--json.out")"

# --- an agent on that node, reporting to the supervisor (v2c, said so)
mkdir -p "$T/ag"
cat >"$T/ag/agent.yaml" <<Y
agent:
  state_dir: $T/ag/state
  blackbox_dir: $T/ag/blackbox
  socket: $T/ag/agent.sock
  edac_root: $T/ag/edac
  user: ""
  agentx: 0
supervisors:
  targets: ["127.0.0.1:$SUPPORT"]
  version: 2c
  community: public
  heartbeat_s: 0.5
Y
"$BIN/apenet-agent" --config "$T/ag/agent.yaml" --foreground --sim "$N" 2>"$T/ag/log" &
AGENT=$!
wait_for 30 test -S "$T/ag/agent.sock" || fail "agent: no socket: $(cat "$T/ag/log")"
for f in "" --json; do
	"$A" agent-status --socket "$T/ag/agent.sock" $f >"$T/as$f.out" 2>&1
	inert "$T/as$f.out" "agent-status $f"
done

# --- the supervisor's log: every line one of its own
kill -TERM "$SUP"
wait "$SUP"
SUP=""
inert "$T/sup/log" "the supervisor's log"
grep -v '^apenet-supervisor\[[0-9]*\]: ' "$T/sup/log" | grep -q . && fail "the supervisor's log: a line it did not write: $(grep -v '^apenet-supervisor\[' "$T/sup/log" | head -3)"
grep -qF '1,0,0#2\x1b[2J\x0aJan  1 00:00:00 host' "$T/sup/log" || fail "the supervisor's log: the boot id not escaped: $(cat "$T/sup/log")"
echo "hostile: SNMP reports, a config's node name, a module EEPROM and the database itself through health, report, top, module, cable, agent-status and the supervisor's log: no control byte, no broken line"
