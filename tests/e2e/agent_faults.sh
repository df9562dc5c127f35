#!/bin/sh
# Every fault class of the node agent on a whole 4x4x1 emulated torus: 16
# agents (each its own config, spool and socket) report to two real
# snmptrapd receivers on loopback.  For each class the receivers get the
# right notification, naming the right node and subject, from the node
# itself or from its neighbours, and nothing else: every transition to sick
# or broken that arrives while a fault is in force is about the faulty node
# (or, for a card or a cable, the nodes whose links face it) with one of the
# codes that fault explains.  Then both receivers stop for 60 s (the service
# network cut, for every node at once) while an overheat comes and goes; when
# they are back, every transition any agent raised in the whole run (its
# events.jsonl) has arrived at both, in order, none twice.
# Every wait polls with a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-agent-faults-XXXXXX)
TRAPDS=""
OUTAGE_S=${OUTAGE_S:-60}
cleanup() {
	for d in "$T"/a-*; do
		[ -f "$d/pid" ] || continue
		p=$(cat "$d/pid")
		kill -CONT "$p" 2>/dev/null
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for f in $TRAPDS; do [ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null; done
	sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
SIM="$BIN/apenet-sim"
TRAPD=/usr/sbin/snmptrapd
[ -x "$TRAPD" ] || TRAPD=snmptrapd
MIB=.1.3.6.1.4.1.8072.9999.9999.65
HC="OID: $MIB.0.1"

# trapd_start NAME [PORT]: snmptrapd on a free loopback port (tried from a
# per-run base until one binds); its port in $T/NAME.port
trapd_start() {
	name=$1
	mkdir -p "$T/$name"
	printf 'authCommunity log,execute,net public\n' >"$T/$name/conf"
	port=${2:-$(( 20000 + ($$ * 13 + ${#name} * 151) % 30000 ))}
	for try in 1 2 3 4 5 6 7 8 9 10; do
		rm -f "$T/$name/pid"
		SNMP_PERSISTENT_DIR="$T/$name/persist" "$TRAPD" -f -A -Lf "$T/$name/log" -C -c "$T/$name/conf" -M /dev/null \
			-m "" -On -n -F "NOTE %v\n" -p "$T/$name/pid" "udp:127.0.0.1:$port" 2>>"$T/$name/err" &
		tp=$!
		if wait_for 10 grep -q "NET-SNMP version" "$T/$name/log" 2>/dev/null && kill -0 $tp 2>/dev/null; then
			echo "$port" >"$T/$name.port"
			echo "$tp" >"$T/$name.pidfile"
			TRAPDS="$TRAPDS $T/$name.pidfile"
			return 0
		fi
		kill $tp 2>/dev/null
		[ -n "${2:-}" ] && break
		port=$((port + 23))
	done
	cat "$T/$name/err" >&2
	fail "snmptrapd $name did not start"
}
trapd_stop() { kill -TERM "$(cat "$T/$1.pidfile")"; wait "$(cat "$T/$1.pidfile")" 2>/dev/null; }

# The notifications as one line each: "x,y code new path boot seq" (new and
# path as APENET-MIB numbers: status 1 normal 2 sick 3 broken; path 1 self,
# 2 neighbour-ldm, 3 watchdog), from byte OFF of a receiver's log on.
notes() { # RECEIVER [OFF]
	tail -c +"$(( ${2:-0} + 1 ))" "$T/$1/log" | grep -F "$HC" | sed -n \
		"s/.*$MIB\.1\.1\.1\.0 = Gauge32: \([0-9]*\).*$MIB\.1\.1\.2\.0 = Gauge32: \([0-9]*\).*$MIB\.1\.1\.5\.0 = STRING: \"\([^\"]*\)\".*$MIB\.1\.1\.6\.0 = Counter64: \([0-9]*\).*$MIB\.1\.1\.10\.0 = STRING: \"\([^\"]*\)\".*$MIB\.1\.1\.12\.0 = INTEGER: \([0-9]*\).*$MIB\.1\.1\.16\.0 = INTEGER: \([0-9]*\).*/\1,\2 \5 \6 \7 \3 \4/p"
}
# seen RECEIVER NODE CODE NEW PATH: such a notification arrived since the phase began
seen() {
	eval "off=\$OFF_$1"
	notes "$1" "$off" | awk -v n="$2" -v c="$3" -v s="$4" -v p="$5" \
		'$1 == n && $2 == c && (s == "*" || $3 == s) && (p == "*" || $4 == p) { f = 1 } END { exit !f }'
}
both() { for r in sup1 sup2; do wait_for "$1" seen $r "$2" "$3" "$4" "$5" || fail "$PHASE: $r never got $2 $3 status $4 path $5"; done; }

# phase NAME NODES CODES: from now on, every notification of a transition to
# sick or broken must be about one of NODES ("x,y ...") with one of CODES;
# phase_end checks it at both receivers
phase() {
	PHASE=$1 NODES=$2 CODES=$3
	for r in sup1 sup2; do eval "OFF_$r=$(wc -c <"$T/$r/log")"; done
	echo "phase: $PHASE"
}
phase_end() {
	for r in sup1 sup2; do
		eval "off=\$OFF_$r"
		notes $r "$off" | awk -v nodes=" $NODES " -v codes=" $CODES " \
			'$3 != 1 && (index(nodes, " " $1 " ") == 0 || index(codes, " " $2 " ") == 0)' >"$T/extra"
		[ -s "$T/extra" ] && { cat "$T/extra" >&2; fail "$PHASE: $r got transitions this fault does not explain (above)"; }
	done
	return 0
}

sim_start "$T/sim" --dims 4x4x1 --seed 11
trapd_start sup1
trapd_start sup2
P1=$(cat "$T/sup1.port")
P2=$(cat "$T/sup2.port")

agent() { # X Y: write node X,Y,0's config (once) and start its agent
	d="$T/a-$1-$2-0"
	mkdir -p "$d"
	[ -f "$d/agent.yaml" ] || cat >"$d/agent.yaml" <<Y
agent:
  state_dir: $d/state
  blackbox_dir: $d/blackbox
  socket: $d/agent.sock
  edac_root: $d/edac
  blackbox_holdoff_s: 1
  service_timeout_s: 5
  # a loaded 2-core CI machine can stall an agent (or the emulator) for a
  # few hundred ms: the watchdog allows 1 s, the DNP's beat 2 s, so that
  # only the faults injected here raise anything
  watchdog_timeout_beats: 10
  dnp_stuck_periods: 20
  user: ""
  log_level: info
supervisors:
  targets: ["127.0.0.1:$P1", "127.0.0.1:$P2"]
  version: 2c # the receivers are snmptrapd with a community
  heartbeat_s: 1
  timeout_ms: 1000
  # no resends inside a try: every try that goes unanswered is one the
  # agent logs (at info), which the duplicate check below reads
  retries: 0
  backoff_ms: 500
Y
	"$BIN/apenet-agent" --config "$d/agent.yaml" --foreground --sim "$T/sim/node-$1-$2-0" 2>>"$d/log" &
	echo $! >"$d/pid"
}
ALL=""
for y in 0 1 2 3; do
	for x in 0 1 2 3; do
		agent $x $y
		ALL="$ALL $x,$y"
	done
done
# every node heard at both receivers before anything is injected
heard() { grep -F "$MIB.1.1.5.0 = STRING: \"$2" "$T/$1/log" >/dev/null; } # RECEIVER BOOT-PREFIX
for n in $ALL; do
	for r in sup1 sup2; do wait_for 60 heard $r "$n,0#" || fail "$r: nothing from node $n,0"; done
done
st() { "$A" agent-status --json --socket "$T/a-$1/agent.sock" >"$T/st.json" 2>/dev/null && jq -e "$2" "$T/st.json" >/dev/null; }
for n in $ALL; do
	d=$(echo "$n" | tr , -)-0
	wait_for 30 st "$d" '.ldm_host.service == "normal"' || fail "node $n: service not normal: $(jq -c .ldm_host "$T/st.json")"
done

inj() { "$SIM" inject --dir "$T/sim" "$@" >/dev/null || fail "inject $*"; }
LINKC="LINK_DOWN LINK_FLAPPING LINK_TRAINING NEIGHBOUR_LINK"

# --- DNP hang on 2,1,0: its own agent (watchdog path) and its four neighbours
# (their words from it stop arriving)
phase "DNP hang" "2,1" "DNP_HUNG LDM_STALE"
inj --node 2,1,0 dnp-hang
both 30 2,1 DNP_HUNG 3 3
both 30 2,1 LDM_STALE '*' 2
inj --node 2,1,0 clear
both 30 2,1 DNP_HUNG 1 3
both 30 2,1 LDM_STALE 1 2
phase_end

# --- cable unplug between 1,1,0 X+ and 2,1,0 X-: both ends say so, and
# their neighbours report the link field of their LDM
phase "cable unplug" "1,1 2,1" "$LINKC"
inj --node 1,1,0 cable-unplug --link X+
both 30 1,1 LINK_DOWN 3 1
both 30 2,1 LINK_DOWN 3 1
both 30 1,1 NEIGHBOUR_LINK 3 2
inj --node 1,1,0 clear
both 60 1,1 LINK_DOWN 1 1
both 60 2,1 LINK_DOWN 1 1
both 60 1,1 NEIGHBOUR_LINK 1 2
phase_end

# --- overheat on 3,3,0: itself and its neighbours
phase "overheat" "3,3" "FPGA_TEMP NEIGHBOUR_TEMPERATURE"
inj --node 3,3,0 overheat --celsius 97
both 30 3,3 FPGA_TEMP 3 1
both 30 3,3 NEIGHBOUR_TEMPERATURE '*' 2
inj --node 3,3,0 clear
both 60 3,3 FPGA_TEMP 1 1
both 60 3,3 NEIGHBOUR_TEMPERATURE 1 2
phase_end

# --- voltage droop on 0,2,0
phase "voltage droop" "0,2" "VCORE_LOW NEIGHBOUR_VOLTAGE"
inj --node 0,2,0 voltage-droop --percent 10
both 30 0,2 VCORE_LOW 3 1
both 30 0,2 NEIGHBOUR_VOLTAGE 3 2
inj --node 0,2,0 clear
both 30 0,2 VCORE_LOW 1 1
both 30 0,2 NEIGHBOUR_VOLTAGE 1 2
phase_end

# --- card gone on 1,2,0: its own agent (watchdog path: the DNP cannot speak
# for itself); the links of its four neighbours that face it go down.  When
# it is back, its DNP had declared the host dead meanwhile (no beat could
# reach it) and its links went down once: both reported, and explained.
phase "card gone" "1,2 0,2 2,2 1,1 1,3" "CARD_GONE HOST_EXPIRED NEIGHBOUR_HOST_EXPIRED LDM_STALE $LINKC"
inj --node 1,2,0 card-gone
both 30 1,2 CARD_GONE 3 3
both 30 0,2 LINK_DOWN 3 1
inj --node 1,2,0 clear
both 30 1,2 CARD_GONE 1 3
both 60 0,2 LINK_DOWN 1 1
phase_end

# --- a hung host: 3,0,0's agent stopped; its DNP declares the host expired
# and the neighbours report it on its behalf
phase "host hang" "3,0" "NEIGHBOUR_HOST_EXPIRED HOST_EXPIRED"
kill -STOP "$(cat "$T/a-3-0-0/pid")"
both 30 3,0 NEIGHBOUR_HOST_EXPIRED 3 2
kill -CONT "$(cat "$T/a-3-0-0/pid")"
both 30 3,0 NEIGHBOUR_HOST_EXPIRED 1 2
phase_end

# --- 0,0,0's agent killed: the watchdog stays armed, so the host expires and
# the neighbours report it; a new agent there reports under a new boot id
phase "agent killed" "0,0" "NEIGHBOUR_HOST_EXPIRED HOST_EXPIRED"
kill -KILL "$(cat "$T/a-0-0-0/pid")"
wait "$(cat "$T/a-0-0-0/pid")" 2>/dev/null
both 30 0,0 NEIGHBOUR_HOST_EXPIRED 3 2
agent 0 0
for r in sup1 sup2; do wait_for 30 heard $r '0,0,0#2"' || fail "$r: no report from 0,0,0's second boot"; done
both 30 0,0 NEIGHBOUR_HOST_EXPIRED 1 2
phase_end

# --- the service network cut: both receivers stopped for OUTAGE_S under the
# normal load of 16 agents, while an overheat on 2,2,0 comes and goes.  Each
# node's LDM says its service network is broken and each neighbour reports
# it through the torus; all of it waits in the spools
phase "receivers stopped for $OUTAGE_S s" "$ALL" "SERVICE_NETWORK NEIGHBOUR_SERVICE FPGA_TEMP NEIGHBOUR_TEMPERATURE"
trapd_stop sup1
trapd_stop sup2
t0=$(date +%s)
wait_for 30 st 2-2-0 '.ldm_host.service == "broken"' || fail "service not broken with no receiver: $(jq -c .ldm_host "$T/st.json")"
inj --node 2,2,0 overheat --celsius 97
raised() { grep -q "\"code\":\"FPGA_TEMP\",\"old\":\"normal\"" "$T/a-2-2-0/state/events.jsonl"; }
wait_for 30 raised || fail "2,2,0 did not see its overheat"
inj --node 2,2,0 clear
cleared() { grep -q "\"code\":\"FPGA_TEMP\",\"old\":\"[a-z]*\",\"new\":\"normal\"" "$T/a-2-2-0/state/events.jsonl"; }
wait_for 60 cleared || fail "2,2,0 did not see its overheat end"
until [ $(( $(date +%s) - t0 )) -ge "$OUTAGE_S" ]; do
	# the outage's length is the test's subject, not a wait on a condition
	sleep 1
done
for n in $ALL; do
	d=$(echo "$n" | tr , -)-0
	st "$d" '.spool.depth > 0' || fail "node $n: nothing waits in its spool after $OUTAGE_S s"
done
trapd_start sup1 "$P1"
trapd_start sup2 "$P2"
for n in $ALL; do
	d=$(echo "$n" | tr , -)-0
	wait_for 120 st "$d" '.ldm_host.service == "normal" and .spool.depth == 0' ||
		fail "node $n did not drain its spool: $(jq -c '[.ldm_host.service, .spool]' "$T/st.json")"
done
both 10 2,2 FPGA_TEMP '*' 1
both 10 2,2 NEIGHBOUR_SERVICE 3 2
phase_end

# --- every transition of every agent (both boots of 0,0,0) at both
# receivers once, in order
for d in "$T"/a-*; do
	grep '"kind":"transition"' "$d/state/events.jsonl"
done | jq -r '"\(.reporter)#\(.boot_id) \(.seq)"' | sort >"$T/raised"
[ "$(wc -l <"$T/raised")" -ge 40 ] || fail "too few transitions raised: $(wc -l <"$T/raised")"
for r in sup1 sup2; do
	notes $r | awk '{ print $5, $6 }' >"$T/$r.all"
	# A second copy is legitimate only when the receiver's answer to the
	# first did not reach the agent in time (an INFORM is at-least-once;
	# the supervisors store a report once by node, boot and sequence): the
	# agent then logged that try as unanswered.  A copy of a report that
	# was acknowledged is a bug.
	eval "port=\$P${r#sup}"
	sort "$T/$r.all" | uniq -d >"$T/$r.dups0"
	while read -r nb seq; do
		node=${nb%%#*} boot=${nb#*#}
		grep -qF "supervisor 127.0.0.1:$port: report $boot/$seq: no answer" \
			"$T/a-$(echo "$node" | tr , -)/log" || echo "$nb $seq"
	done <"$T/$r.dups0" >"$T/$r.dups"
	[ ! -s "$T/$r.dups" ] || fail "$r: acknowledged transitions arrived twice: $(head -3 "$T/$r.dups")"
	awk '!seen[$0]++' "$T/$r.all" >"$T/$r.got"
	sort "$T/$r.got" >"$T/$r.sorted"
	missing=$(comm -23 "$T/raised" "$T/$r.sorted" | head -3)
	[ -z "$missing" ] || fail "$r: transitions never arrived: $missing"
	# per boot, in the order the agent raised them
	awk '{ if (($1 in last) && $2 <= last[$1]) { print "out of order: " $0; bad = 1 } last[$1] = $2 } END { exit bad }' \
		"$T/$r.got" || fail "$r: reports out of order"
done
resent=$(cat "$T/sup1.dups0" "$T/sup2.dups0" | wc -l)
echo "agent faults: $(wc -l <"$T/raised") transitions from 16 agents, every one at both receivers, in order;" \
	"$resent arrived again after an unanswered try, none after an acknowledgement"
