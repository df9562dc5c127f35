#!/bin/sh
# make soak-storm: the service network at its worst (issue 21).  A 4x4x1
# emulated torus, an agent on every node reporting over SNMPv3 with its node
# key to one apenet-supervisor (as shipped), node 0,0,0's through a relay
# that records what it sends; plus SNMPv2c INFORMs an outsider sends with
# snmpinform, recorded too.  Then STORM_N (default 1,000,000) datagrams made
# from those recordings by mutation (tests/e2e/wire_storm.c: bits flipped,
# lengths changed, cut short, spliced, random, replayed) at STORM_RATE a
# second (default 50,000), while faults come and go on the torus.  After it:
# the supervisor is still up, every transition any agent raised is stored
# once, `apenet db check` is clean, and every line of its log is its own
# (one line per message, no control byte).  Prints its figures.
set -u
. "$(dirname "$0")/../tests/e2e_lib.sh"
N=${STORM_N:-1000000}
RATE=${STORM_RATE:-50000}
BIN=${APENET_BIN:-build/bin}
TB=$(dirname "$BIN")/tests
A="$BIN/apenet"
T=$(mktemp -d /var/tmp/apenet-storm-XXXXXX)
PIDS=""
SUP=""
stop_all() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	PIDS=""
}
trap 'stop_all; [ -n "$SUP" ] && kill -TERM "$SUP" 2>/dev/null && wait "$SUP"; sim_stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
export SNMPCONFPATH="$T/snmpconf" SNMP_PERSISTENT_DIR="$T/snmpcli" MIBS=""
mkdir -p "$T/snmpconf" "$T/snmpcli" "$T/rec"
sim_start "$T/sim" --dims 4x4x1 --seed 11
printf 'cluster:\n  dims: 4x4x1\nsupervisor:\n  batch_max_ms: 20\n  log_level: info\n  agentx: 0\n' >"$T/sup.yaml"
site_keyed "$T/sup.yaml"
P=$(( 20000 + ($$ * 37) % 30000 ))
for try in 1 2 3 4 5 6; do
	"$BIN/apenet-supervisor" --config "$T/sup.yaml" --foreground --listen "127.0.0.1:$P" --db "$T/health.db" \
		2>"$T/sup.log" &
	SUP=$!
	wait_for 30 grep -q "listening on" "$T/sup.log" && kill -0 $SUP 2>/dev/null && break
	kill $SUP 2>/dev/null
	wait $SUP 2>/dev/null
	SUP=""
	P=$((P + 17))
done
[ -n "$SUP" ] || { cat "$T/sup.log"; fail "the supervisor did not start"; }
"$TB/udp-relay" 0 "$P" "$T/rec" >"$T/relay.port" &
PIDS="$PIDS $!"
wait_for 10 test -s "$T/relay.port" || fail "relay did not start"
for y in 0 1 2 3; do
	for x in 0 1 2 3; do
		d="$T/a-$x-$y-0"
		mkdir -p "$d"
		to=$P
		[ "$x,$y" = 0,0 ] && to=$(cat "$T/relay.port")
		cluster_agent_yaml "$d" "$to" "$to" "$x,$y,0"
		# one supervisor: the second target is the same, once
		sed -i "s|  targets: .*|  targets: [\"127.0.0.1:$to\"]|" "$d/agent.yaml"
		"$BIN/apenet-agent" --config "$d/agent.yaml" --foreground --sim "$T/sim/node-$x-$y-0" 2>"$d/log" &
		PIDS="$PIDS $!"
	done
done
healthy() {
	"$A" health --db "$T/health.db" --json >"$T/h.json" 2>/dev/null
	jq -e '.summary.normal == 16' "$T/h.json" >/dev/null
}
wait_for 120 healthy || fail "the torus never looked healthy: $(jq -c .summary "$T/h.json")"
# the outsider's SNMPv2c INFORMs, recorded too
E=1.3.6.1.4.1.8072.9999.9999.65.1.1
for s in 1 2 3; do
	timeout 10 snmpinform -v2c -c public -r 0 -t 1 "127.0.0.1:$(cat "$T/relay.port")" 0 \
		1.3.6.1.4.1.8072.9999.9999.65.0.1 "$E.1.0" u 0 "$E.2.0" u 0 "$E.3.0" u 0 "$E.4.0" s "" \
		"$E.5.0" s "0,0,0#1" "$E.6.0" C "$s" "$E.7.0" C "$(date +%s)000" "$E.8.0" i 2 "$E.9.0" s "X+" \
		"$E.10.0" s LINK_DOWN "$E.11.0" i 1 "$E.12.0" i 3 "$E.13.0" s "" "$E.14.0" s "" "$E.15.0" s "" \
		"$E.16.0" i 1 "$E.17.0" s "" "$E.18.0" s "forged" >/dev/null 2>&1
done
nseeds=$(ls "$T/rec" | wc -l)
[ "$nseeds" -ge 5 ] || fail "only $nseeds datagrams recorded"

cpu0=$(awk '{print $14 + $15}' "/proc/$SUP/stat")
t0=$(date +%s)
"$TB/wire-storm" "$P" "$N" "$RATE" "$T"/rec/* >"$T/storm.out" 2>&1 &
STORM=$!
# faults come and go while it blows
i=0
while kill -0 $STORM 2>/dev/null; do
	i=$((i + 1))
	case $((i % 4)) in
	1) "$BIN/apenet-sim" inject --dir "$T/sim" --node 3,1,0 overheat --celsius 99 >/dev/null ;;
	2) "$BIN/apenet-sim" inject --dir "$T/sim" --node 3,1,0 clear >/dev/null ;;
	3) "$BIN/apenet-sim" inject --dir "$T/sim" --node 1,2,0 cable-unplug --link X+ >/dev/null ;;
	0) "$BIN/apenet-sim" inject --dir "$T/sim" --node 1,2,0 clear >/dev/null ;;
	esac
	sleep 3 # a soak's pacing: the faults' rhythm, not a wait on a condition
done
wait $STORM || fail "wire-storm: $(cat "$T/storm.out")"
secs=$(( $(date +%s) - t0 ))
cpu1=$(awk '{print $14 + $15}' "/proc/$SUP/stat")
kill -0 "$SUP" 2>/dev/null || fail "the supervisor died in the storm: $(tail -5 "$T/sup.log")"
"$BIN/apenet-sim" inject --dir "$T/sim" --node 3,1,0 clear >/dev/null
"$BIN/apenet-sim" inject --dir "$T/sim" --node 1,2,0 clear >/dev/null

# every transition raised, stored once
for y in 0 1 2 3; do for x in 0 1 2 3; do
	st() { "$A" agent-status --json --socket "$T/a-$x-$y-0/agent.sock" >"$T/st.json" 2>/dev/null &&
		jq -e '.spool.depth == 0' "$T/st.json" >/dev/null; }
	wait_for 120 st || fail "node $x,$y,0 did not drain its spool: $(jq -c .spool "$T/st.json")"
done; done
for d in "$T"/a-*; do grep '"kind":"transition"' "$d/state/events.jsonl"; done |
	jq -r '"\(.reporter)#\(.boot_id) \(.seq)"' | sort >"$T/raised"
"$A" db export --db "$T/health.db" >"$T/db.jsonl" || fail "db export"
jq -r 'select(.type == "transition") | "\(.boot) \(.seq)"' "$T/db.jsonl" | sort >"$T/got"
dup=$(uniq -d "$T/got" | head -3)
[ -z "$dup" ] || fail "stored twice: $dup"
miss=$(comm -23 "$T/raised" "$T/got" | head -3)
[ -z "$miss" ] || fail "transitions missing: $miss"
extra=$(comm -13 "$T/raised" "$T/got" | head -3)
[ -z "$extra" ] || fail "stored but raised by no agent (forged): $extra"
"$A" db check --db "$T/health.db" >"$T/check.txt" || fail "db check: $(cat "$T/check.txt")"
kill -TERM "$SUP"
wait "$SUP" || fail "the supervisor's exit: $?"
SUP=""
# every log line the daemon's own: its prefix, printable, no line made by a message
bad=$(grep -v -c '^apenet-supervisor\[[0-9]*\]: [a-z]*: ' "$T/sup.log")
[ "$bad" -eq 0 ] || fail "$bad log lines not the daemon's: $(grep -v '^apenet-supervisor\[[0-9]*\]: [a-z]*: ' "$T/sup.log" | head -3)"
LC_ALL=C grep -q '[^[:print:]]' "$T/sup.log" && fail "a control byte in the log"
# and the storm cannot fill the disk through it: a few lines a second
nl=$(wc -l <"$T/sup.log")
[ "$nl" -le $((200 + 5 * secs)) ] || fail "$nl log lines for a $secs s storm: $(sed 's/^[^:]*: //' "$T/sup.log" | cut -c1-50 | sort | uniq -c | sort -rn | head -3)"
cat "$T/storm.out"
echo "supervisor: $(( (cpu1 - cpu0) * 100 / $(getconf CLK_TCK) / (secs > 0 ? secs : 1) ))% of a core over the ${secs} s storm; $(grep 'stopped:' "$T/sup.log" | sed 's/.*stopped: //')"
grep 'SNMPv3:' "$T/sup.log" | sed 's/.*notice: //'
echo "wire storm: $(wc -l <"$T/raised") transitions raised by 16 agents during and around $N mutated datagrams: each stored once, none forged, db check clean, $(wc -l <"$T/sup.log") log lines all the daemon's"
