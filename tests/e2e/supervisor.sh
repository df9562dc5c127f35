#!/bin/sh
# The supervisors end to end: a 4x4x1 emulated torus, an agent on every node
# (16), two apenet-supervisor instances on loopback ports with their own
# health databases.  For every fault class (DNP hang, cable unplug, overheat,
# voltage droop, card gone, host hang by SIGSTOP, agent SIGKILL, node power
# off, one node's service network cut, a supervisor unreachable from part of
# the cluster) both databases end with exactly one incident blaming the right
# component on the right node, and nothing else; it closes when the fault is
# cleared.  Then one supervisor is killed (-9) while faults come and go and
# started again: when the spools have drained, every transition the agents
# raised is in both databases, once.  All of it with forgers beside the
# agents: a forged SNMPv2c report and a wrong-key SNMPv3 one (a cable of
# 1,1,0 broken) at both supervisors every second: refused and counted, and
# no incident of theirs (each phase checks for exactly its own).  `apenet health` over both databases:
# --all, --csv's headers when all is well, the card gone shown once with its
# evidence cut in text, --since, and at the end every incident once with
# exactly the fields where the two databases differ.  Every wait polls with
# a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-supervisor-XXXXXX)
RELAY="$BIN/../tests/udp-relay"
[ -x "$RELAY" ] || RELAY="$(dirname "$BIN")/tests/udp-relay"
PIDFILES=""
cleanup() {
	for f in $PIDFILES; do
		[ -f "$f" ] || continue
		p=$(cat "$f")
		kill -CONT "$p" 2>/dev/null
		kill -TERM "$p" 2>/dev/null
	done
	for f in $PIDFILES; do [ -f "$f" ] && wait "$(cat "$f")" 2>/dev/null; done
	sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
SIM="$BIN/apenet-sim"

# a free loopback UDP port: the relay binds port 0 and says which it got;
# the supervisors are given ports from a per-run base, tried until one binds
base=$(( 20000 + ($$ * 17) % 30000 ))

cluster_site_key "$T"
cat >"$T/cluster.yaml" <<Y
cluster:
  dims: 4x4x1
supervisor:
  batch_max_ms: 20
  silent_ms: 3500
  log_level: info
  site_key: $SITE_KEY
Y

sup_start() { # NAME: start the supervisor NAME (port kept across restarts)
	n=$1
	mkdir -p "$T/$n"
	for try in 1 2 3 4 5 6 7 8; do
		port=${PORT_OF:-}
		[ -f "$T/$n.port" ] && port=$(cat "$T/$n.port")
		[ -n "$port" ] || port=$((base + try * 7 + ${#n}))
		"$BIN/apenet-supervisor" --config "$T/cluster.yaml" --foreground --listen "127.0.0.1:$port" \
			--db "$T/$n/health.db" 2>>"$T/$n/log" &
		p=$!
		if wait_for 20 grep -q "listening on" "$T/$n/log" && kill -0 $p 2>/dev/null; then
			echo "$port" >"$T/$n.port"
			echo "$p" >"$T/$n.pid"
			PIDFILES="$PIDFILES $T/$n.pid"
			return 0
		fi
		kill $p 2>/dev/null
		[ -f "$T/$n.port" ] && break
		base=$((base + 101))
	done
	cat "$T/$n/log" >&2
	fail "supervisor $n did not start"
}

sim_start "$T/sim" --dims 4x4x1 --seed 3
sup_start s1
sup_start s2
P1=$(cat "$T/s1.port")
P2=$(cat "$T/s2.port")

# relays: 2,1,0 reaches both supervisors only through its own pair (its
# service network, cut by stopping them); the nodes of column x=3 reach s2
# only through one shared relay (s2 unreachable from part of the cluster)
relay() { # NAME TARGET
	"$RELAY" 0 "$2" >"$T/$1.rport" &
	echo $! >"$T/$1.pid"
	PIDFILES="$PIDFILES $T/$1.pid"
	wait_for 10 test -s "$T/$1.rport" || fail "relay $1 did not start"
}
relay r21a "$P1"
relay r21b "$P2"
relay rx3 "$P2"

agent() { # X Y: node X,Y,0's agent
	d="$T/a-$1-$2-0"
	mkdir -p "$d"
	t1=$P1
	t2=$P2
	[ "$1,$2" = 2,1 ] && t1=$(cat "$T/r21a.rport") && t2=$(cat "$T/r21b.rport")
	[ "$1" = 3 ] && t2=$(cat "$T/rx3.rport")
	[ -f "$d/agent.yaml" ] || cluster_agent_yaml "$d" "$t1" "$t2" "$1,$2,0"
	"$BIN/apenet-agent" --config "$d/agent.yaml" --foreground --sim "$T/sim/node-$1-$2-0" 2>>"$d/log" &
	echo $! >"$d/pid"
	PIDFILES="$PIDFILES $d/pid"
}
for y in 0 1 2 3; do for x in 0 1 2 3; do agent $x $y; done; done

# the forgers: net-snmp's snmpinform, as anyone on the service network
"$A" keys init --out "$T/other-site.key" >/dev/null && "$A" keys node 1,1,0 --site "$T/other-site.key" --out "$T/wrong.key" >/dev/null ||
	fail "keys for the forger"
forge() { # PORT SEQ VERSION-OPTIONS...: node 1,1,0's Y+ broken, forged
	fp=$1 fs=$2
	shift 2
	E=1.3.6.1.4.1.8072.9999.9999.65.1.1
	SNMPCONFPATH="$T/fcfg" SNMP_PERSISTENT_DIR="$T/fpersist" MIBS="" timeout 10 snmpinform "$@" -r 0 -t 1 \
		"127.0.0.1:$fp" 0 1.3.6.1.4.1.8072.9999.9999.65.0.1 "$E.1.0" u 1 "$E.2.0" u 1 "$E.3.0" u 0 \
		"$E.4.0" s "" "$E.5.0" s "1,1,0#1" "$E.6.0" C "$fs" "$E.7.0" C "$(date +%s)000" "$E.8.0" i 2 \
		"$E.9.0" s "Y+" "$E.10.0" s LINK_DOWN "$E.11.0" i 1 "$E.12.0" i 3 "$E.13.0" s "" "$E.14.0" s "" \
		"$E.15.0" s "" "$E.16.0" i 1 "$E.17.0" s "" "$E.18.0" s "forged" >/dev/null 2>&1
}
wa=$(sed -n 's/^auth: sha256:/0x/p' "$T/wrong.key")
wp=$(sed -n 's/^priv: aes128:/0x/p' "$T/wrong.key")
(
	mkdir -p "$T/fcfg" "$T/fpersist"
	s=1000000
	while :; do
		s=$((s + 1))
		for p in "$P1" "$P2"; do
			forge "$p" $s -v2c -c public
			forge "$p" $s -v3 -u node-1,1,0 -l authPriv -a SHA-256 -3m "$wa" -x AES -3M "$wp"
		done
		sleep 1 # the forgers' rhythm, not a wait
	done
) &
echo $! >"$T/forger.pid"
PIDFILES="$PIDFILES $T/forger.pid"

health() { # NAME: the database's incidents and summary as JSON in $T/NAME.json
	"$A" health --db "$T/$1/health.db" --incidents --all --json >"$T/$1.json" 2>"$T/$1.err"
	[ $? -le 1 ]
}
q() { health "$1" && jq -e "$2" "$T/$1.json" >/dev/null; }
# every node heard, nothing open
for s in s1 s2; do
	wait_for 60 q $s '.summary.normal == 16 and .summary.open_incidents == 0' ||
		fail "$s: the torus never looked healthy: $(jq -c .summary "$T/$s.json")"
done
# the databases, their WAL and index: the supervisor's and its group's only
for s in s1 s2; do
	for f in health.db health.db-wal health.db-shm; do
		m=$(stat -c %a "$T/$s/$f") && [ "$m" = 640 ] || fail "$s/$f: mode '$m', not 640"
	done
done
# all well: no node listed but with --all (every one); CSV says its tables
# are empty with their headers, not with nothing
hboth() { "$A" health --db "$T/s1/health.db" --db "$T/s2/health.db" "$@"; }
"$A" health --db "$T/s1/health.db" --json | jq -e '.nodes == [] and .incidents == []' >/dev/null || fail "healthy: nodes listed"
"$A" health --db "$T/s1/health.db" --all --json | jq -e '[.nodes[] | select(.class == "normal")] | length == 16' >/dev/null ||
	fail "--all: not every node: $("$A" health --db "$T/s1/health.db" --all --json | jq -c '[.nodes[].node]')"
[ "$("$A" health --db "$T/s1/health.db" --all | grep -Ec '^  [0-9]+,[0-9]+,0 +normal ')" -eq 16 ] || fail "--all text: $("$A" health --db "$T/s1/health.db" --all)"
"$A" health --db "$T/s1/health.db" --csv >"$T/ok1.csv"; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^# ' "$T/ok1.csv")" -eq 2 ] && grep -qx '# incidents' "$T/ok1.csv" && grep -qx '# nodes' "$T/ok1.csv" &&
	[ "$(sed -n '/^# nodes$/{n;p;}' "$T/ok1.csv")" = "node,name,class,boot,heard_self,heard_torus,heartbeat,ldm,changed" ] ||
	fail "healthy --csv: exit $rc: $(cat "$T/ok1.csv")"
hboth --csv >"$T/ok2.csv" || fail "healthy --csv, both: exit $?"
grep -qx '# disagreements' "$T/ok2.csv" && sed -n '/^# incidents$/{n;p;}' "$T/ok2.csv" | grep -q '^id,db,seen_by,.*,differs$' ||
	fail "healthy --csv, both: $(cat "$T/ok2.csv")"

# phase NAME COMPONENT X Y: from here, the one incident this fault may open
phase() {
	PHASE=$1 COMP=$2 NX=$3 NY=$4
	for s in s1 s2; do
		health $s || fail "$s: $(cat "$T/$s.err")"
		eval "N_$s=$(jq '[.incidents[] | select(.state != "merged")] | length' "$T/$s.json")"
	done
	echo "phase: $PHASE"
}
# opened: both databases hold exactly one open incident, the expected one
opened() {
	for s in s1 s2; do
		where=" and .[0].node.x == $NX and .[0].node.y == $NY"
		[ "$NX" = '*' ] && where=""
		wait_for 60 q $s "[.incidents[] | select(.state == \"open\")] | length == 1 and .[0].component == \"$COMP\"$where" ||
			fail "$PHASE: $s: not one open incident '$COMP' on $NX,$NY,0: $(jq -c '[.incidents[] | select(.state == "open") | [.id, .component, .node.x, .node.y, .rule]]' "$T/$s.json")"
	done
}
# explain NAME N0: on stderr, what a failure needs to be understood later:
# the phase's incidents with every piece of their evidence, and the
# service-network lines of the agents of the nodes they blame (a flake is
# read from this, not rerun until it shows again)
explain() {
	echo "---- $1: the phase's incidents, verbose" >&2
	jq -c ".incidents[$2:][] | {id, component, node, rule, state, opened, closed, first_fault, evidence}" \
		"$T/$1.json" >&2
	for xy in $(jq -r ".incidents[$2:][] | select(.node != null) | \"\(.node.x)-\(.node.y)\"" "$T/$1.json" | sort -u); do
		echo "---- agent $xy-0: service lines" >&2
		grep -E "supervisor|SERVICE|service" "$T/a-$xy-0/log" 2>/dev/null | tail -n 40 >&2
	done
}
# closed: nothing open any more, and exactly one incident more than before
# (merged ones are part of the one)
closed() {
	for s in s1 s2; do
		wait_for 90 q $s '.summary.open_incidents == 0' ||
			fail "$PHASE: $s: the incident did not close: $(jq -c '[.incidents[] | select(.state == "open") | [.id, .component, .node.x, .node.y, .rule]]' "$T/$s.json")"
		eval "n0=\$N_$s"
		n=$(jq '[.incidents[] | select(.state != "merged")] | length' "$T/$s.json")
		[ "$n" -eq $((n0 + 1)) ] || {
			explain "$s" "$n0"
			fail "$PHASE: $s: $((n - n0)) incidents, not one: $(jq -c "[.incidents[$n0:][] | select(.state != \"merged\") | [.id, .component, .node.x, .node.y, .rule]]" "$T/$s.json")"
		}
	done
}
inj() { "$SIM" inject --dir "$T/sim" "$@" >/dev/null || fail "inject $*"; }

phase "DNP hang" dnp 2 2
inj --node 2,2,0 dnp-hang
opened
inj --node 2,2,0 clear
closed

phase "cable unplug" cable 1 1
inj --node 1,1,0 cable-unplug --link Y+
opened
inj --node 1,1,0 clear
closed

phase "overheat" sensor:temperature 3 3
inj --node 3,3,0 overheat --celsius 97
opened
inj --node 3,3,0 clear
closed

phase "voltage droop" sensor:voltage 0 2
inj --node 0,2,0 voltage-droop --percent 10
opened
inj --node 0,2,0 clear
closed

phase "card gone" card 1 2
inj --node 1,2,0 card-gone
opened
# both databases hold it: apenet health over both shows it once, seen by
# both; text shows its first 5 pieces of evidence and how many more (a card
# gone is evidence from all its neighbours), --verbose and JSON all of them
hboth --json >"$T/hb.json"; rc=$?
[ $rc -eq 1 ] && jq -e '[.incidents[] | select(.state == "open")] | length == 1 and .[0].component == "card" and
	.[0].seen_by == [0, 1] and .[0].db == 0 and (.[0].differs | type == "array")' "$T/hb.json" >/dev/null ||
	fail "card gone, both databases: exit $rc: $(jq -c '[.incidents[] | {id, component, seen_by, differs}]' "$T/hb.json")"
nev=$(jq '.incidents[0].evidence | length' "$T/hb.json")
[ "$nev" -gt 5 ] || fail "card gone: $nev pieces of evidence, too few to show the cut"
hboth >"$T/hb.txt"
[ "$(grep -c '^incidents\[' "$T/hb.txt")" -eq 1 ] && grep -q '^  seen_by: *0 1$' "$T/hb.txt" || fail "card gone, text: $(cat "$T/hb.txt")"
ev_rows() { sed -n '/^  evidence:$/,/^[^ ]/p' "$1" | grep -Ec '^    [0-9]{4}-'; }
more=$(sed -n 's/^    +\([0-9]*\) more (--verbose)$/\1/p' "$T/hb.txt")
[ "$(ev_rows "$T/hb.txt")" -eq 5 ] && [ -n "$more" ] && [ "$more" -ge $((nev - 5)) ] ||
	fail "card gone: evidence not cut to 5 and +$((nev - 5)) more: $(sed -n '/^  evidence:$/,/^[^ ]/p' "$T/hb.txt")"
hboth --verbose >"$T/hv.txt"
! grep -q 'more (--verbose)' "$T/hv.txt" && [ "$(ev_rows "$T/hv.txt")" -ge $((5 + more)) ] ||
	fail "--verbose: $(ev_rows "$T/hv.txt") rows, +$more were left out before"
# CSV: one flat row, the same header as when all was well
hboth --csv >"$T/hb.csv"
[ "$(sed -n '/^# incidents$/{n;p;}' "$T/hb.csv")" = "$(sed -n '/^# incidents$/{n;p;}' "$T/ok2.csv")" ] &&
	[ "$(sed -n '/^# incidents$/,/^$/p' "$T/hb.csv" | grep -c '^[0-9]')" -eq 1 ] ||
	fail "card gone --csv: $(cat "$T/hb.csv")"
# --since: an hour ago holds it, a minute from... now holds nothing
hboth --since -1h --json | jq -e '[.incidents[] | select(.component == "card")] | length >= 1' >/dev/null || fail "--since -1h"
hboth --since now --json | jq -e '.incidents == []' >/dev/null || fail "--since now"
hboth --since today --until 2000-01-01 2>/dev/null; [ $? -eq 2 ] || fail "--until before --since: not refused"
inj --node 1,2,0 clear
closed

phase "host hang" host 0 3
kill -STOP "$(cat "$T/a-0-3-0/pid")"
opened
kill -CONT "$(cat "$T/a-0-3-0/pid")"
closed

phase "agent killed" host 0 0
kill -KILL "$(cat "$T/a-0-0-0/pid")"
wait "$(cat "$T/a-0-0-0/pid")" 2>/dev/null
opened
agent 0 0
closed

# a node that loses power loses its host too: the emulator has no hosts, so
# the test stops the agent with it (SIGSTOP: the same process comes back)
phase "power off" node-power 1 3
kill -STOP "$(cat "$T/a-1-3-0/pid")"
inj --node 1,3,0 power-off
opened
inj --node 1,3,0 clear
kill -CONT "$(cat "$T/a-1-3-0/pid")"
closed

phase "service network cut at 2,1,0" service-network 2 1
kill -STOP "$(cat "$T/r21a.pid")" "$(cat "$T/r21b.pid")"
opened
kill -CONT "$(cat "$T/r21a.pid")" "$(cat "$T/r21b.pid")"
closed

# s2 unreachable from the x=3 column: those nodes report one supervisor
# missing (s1 hears it from them); s2 hears nothing from four nodes whose
# neighbours say their hosts are alive.  Both blame a supervisor, once.
phase "supervisor unreachable from part of the cluster" supervisor '*' '*'
kill -STOP "$(cat "$T/rx3.pid")"
opened
kill -CONT "$(cat "$T/rx3.pid")"
closed

# --- s1 killed (-9) while faults come and go, then started again: after the
# spools drain, every transition any agent raised is in both databases once
echo "phase: supervisor killed under load"
kill -KILL "$(cat "$T/s1.pid")"
wait "$(cat "$T/s1.pid")" 2>/dev/null
inj --node 3,1,0 overheat --celsius 97
inj --node 2,0,0 cable-unplug --link X+
raised() { grep -q "\"code\":\"FPGA_TEMP\",\"old\":\"normal\"" "$T/a-3-1-0/state/events.jsonl"; }
wait_for 30 raised || fail "3,1,0 did not see its overheat"
inj --node 3,1,0 clear
inj --node 2,0,0 clear
sup_start s1
for y in 0 1 2 3; do for x in 0 1 2 3; do
	st() { "$A" agent-status --json --socket "$T/a-$x-$y-0/agent.sock" >"$T/st.json" 2>/dev/null &&
		jq -e '.spool.depth == 0' "$T/st.json" >/dev/null; }
	wait_for 120 st || fail "node $x,$y,0 did not drain its spool: $(jq -c .spool "$T/st.json")"
done; done
for d in "$T"/a-*; do grep '"kind":"transition"' "$d/state/events.jsonl"; done |
	jq -r '"\(.reporter)#\(.boot_id) \(.seq)"' | sort >"$T/raised"
for s in s1 s2; do
	"$A" db export --db "$T/$s/health.db" >"$T/$s.jsonl" || fail "$s: export"
	jq -r 'select(.type == "transition") | "\(.boot) \(.seq)"' "$T/$s.jsonl" | sort >"$T/$s.got"
	d=$(uniq -d "$T/$s.got" | head -3)
	[ -z "$d" ] || fail "$s: stored twice: $d"
	m=$(comm -23 "$T/raised" "$T/$s.got" | head -3)
	[ -z "$m" ] || fail "$s: transitions missing: $m"
done
# apenet health over both databases, all incidents: each incident of either
# database is shown once (in the one row of its own, or as the other copy of
# a row seen_by both); a row seen by both pairs copies at the same place,
# open over the same time, and its differs are exactly the fields where the
# other copy has another value (as that database has it; the first fault's
# text only where its time or reporter differs too: a tie at one ms from one
# reporter is broken by each database's order of storing); a row only one
# database holds says the other has none.  Against each database's own
# listing, read in the same moment (retried until nothing moved between).
merged_ok() {
	health s1 && health s2 && hboth --incidents --all --json >"$T/hm.json" 2>/dev/null; [ $? -le 1 ] || return 1
	jq -e --slurpfile a "$T/s1.json" --slurpfile b "$T/s2.json" '
	def place: [.component, .node, .link, .far_node, .far_link];
	def stop: (.closed // "9999");
	def same($x; $y): ($x | place) == ($y | place) and $x.opened <= ($y | stop) and $y.opened <= ($x | stop);
	def f: {id: (.id | tostring), state, rule, name, opened, closed: (.closed // "-"),
		merged_into: ((.merged_into // 0) | tostring),
		"first_fault.time": .first_fault.time, "first_fault.reporter": .first_fault.reporter,
		"first_fault.text": .first_fault.text, evidence: (.evidence | length | tostring)};
	[$a[0].incidents, $b[0].incidents] as $db |
	[.incidents[] | . as $m | ($m.differs | map({(.field): .value}) | add // {}) as $got |
		[[$m.db, $m.id]] + (if ($m.seen_by | length) == 2 then [[1 - $m.db, ($got.id // ($m.id | tostring) | tonumber)]] else [] end)
	] as $claimed |
	($claimed | flatten(1) | length) == ($db[0] + $db[1] | length) and
	($claimed | flatten(1) | unique | length) == ($db[0] + $db[1] | length) and
	all(.incidents[]; . as $m |
		($m.differs | map({(.field): .value}) | add // {}) as $got |
		($db[$m.db][] | select(.id == $m.id)) as $r |
		if ($m.seen_by | length) == 1 then
			$m.seen_by == [$m.db] and $m.differs == [{"field": "incident", "db": (1 - $m.db), "value": "not in this database"}]
		else
			($db[1 - $m.db][] | select(.id == ($got.id // ($m.id | tostring) | tonumber))) as $o |
			same($r; $o) and
			([($r | f) as $x | ($o | f) as $y | $x | keys[] | select($x[.] != $y[.] and (. != "first_fault.text" or
				$x["first_fault.time"] != $y["first_fault.time"] or
				$x["first_fault.reporter"] != $y["first_fault.reporter"])) | {(.): $y[.]}] | add // {}) == $got
		end)' "$T/hm.json" >/dev/null
}
wait_for 60 merged_ok || fail "health over both databases: $(jq -c '[.incidents[] | {id, db, component, node, seen_by, differs}]' "$T/hm.json")"
# the forgers were refused all along, by both (the stop lines of their
# last runs; s1 was restarted: its current log)
kill "$(cat "$T/forger.pid")" 2>/dev/null
for s in s1 s2; do kill -TERM "$(cat "$T/$s.pid")"; wait "$(cat "$T/$s.pid")" 2>/dev/null; done
for s in s1 s2; do
	grep -q "SNMPv3: .*wrong key [1-9]" "$T/$s/log" || fail "$s: no wrong key refused: $(grep 'SNMPv3:' "$T/$s/log")"
	grep -q "SNMPv2c, but the config says SNMPv3" "$T/$s/log" || fail "$s: the forged SNMPv2c not refused"
	! grep -q '"forged"\|: forged' "$T/$s.jsonl" || fail "$s: a forged report was stored"
done
echo "supervisors: every fault class one incident in both databases; $(wc -l <"$T/raised") transitions in both after a kill -9; $(jq '.incidents | length' "$T/hm.json") incidents shown once each over both"
