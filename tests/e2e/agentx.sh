#!/bin/sh
# APENET-MIB through the real snmpd: the node agent as an AgentX subagent.
# snmpd on a private loopback port with a private AgentX socket and a trap
# sink (a real snmptrapd); the agent on an emulated 2x2x1 torus.
#  - snmpwalk, snmpbulkwalk, snmpget and snmptable read the tables; both
#    walks return the same OIDs in lexicographic order (the tools stop at an
#    OID that does not increase);
#  - the values are what `apenet link --json` shows for the same card:
#    state, partner, lanes, PMA settings; counters within a period's traffic;
#    Counter64 past 2^32;
#  - a row that does not exist is noSuchInstance, and the agent lives on;
#  - an unplugged cable: the link's row says down and LINK_DOWN within
#    seconds, and snmpd's trap sink receives the apenetHealthChange;
#  - each link's cable certificate (apenet qualify) by its module's serial;
#  - the supervisor's cluster tables through the same snmpd: one row per
#    node as `apenet health` classes it, one per open incident;
#  - snmpd restarted: both subagents are back within two ping intervals
#    (agentx_ping_s, 2 s here), without a restart of theirs.
# Every wait polls with a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-agentx-XXXXXX)
AGENT=""
SUP=""
cleanup() {
	[ -n "$AGENT" ] && { kill -TERM "$AGENT" 2>/dev/null; wait "$AGENT" 2>/dev/null; }
	[ -n "$SUP" ] && { kill -TERM "$SUP" 2>/dev/null; wait "$SUP" 2>/dev/null; }
	for f in "$T/snmpd.pid" "$T/trapd.pid"; do
		[ -s "$f" ] || continue
		p=$(cat "$f")
		kill -TERM "$p" 2>/dev/null
		wait_for 10 sh -c "! kill -0 $p 2>/dev/null"
	done
	sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
SNMPD=/usr/sbin/snmpd
TRAPD=/usr/sbin/snmptrapd
[ -x "$SNMPD" ] || fail "no $SNMPD (Debian snmpd; make test installs it)"
SRC=${APENET_SRCDIR:-$(pwd)}
M="-M $SRC/build/mibs:/usr/share/snmp/mibs:$SRC/mibs -m APENET-MIB"
MIB=.1.3.6.1.4.1.8072.9999.9999.65
PING=2

# a port per run, moved on until the daemon binds it
base=$(( 20000 + ($$ * 13) % 30000 ))
TRAPPORT=""
for try in 1 2 3 4 5 6 7 8; do
	p=$((base + try * 29))
	rm -f "$T/trapd.log"
	SNMP_PERSISTENT_DIR="$T/trapd-persist" "$TRAPD" -f -Lf "$T/trapd.log" -C -c /dev/null --disableAuthorization=yes \
		-M /dev/null -m "" -On -n -F "NOTE %v\n" -p "$T/trapd.pid" "udp:127.0.0.1:$p" 2>>"$T/trapd.err" &
	if wait_for 10 grep -q "NET-SNMP version" "$T/trapd.log" 2>/dev/null && kill -0 $! 2>/dev/null; then
		TRAPPORT=$p
		break
	fi
	kill $! 2>/dev/null
done
[ -n "$TRAPPORT" ] || fail "snmptrapd did not start: $(cat "$T/trapd.err")"

cat >"$T/snmpd.conf" <<EOF
master agentx
agentXSocket $T/agentx.sock
agentXPerms 0660 0770
rocommunity public 127.0.0.1
trap2sink 127.0.0.1:$TRAPPORT public
EOF
snmpd_start "$T"
PORT=$SNMPD_PORT
H="127.0.0.1:$PORT"
S="-v2c -c public -t 3 -r 1"

sim_start "$T/sim" --dims 2x2x1 --seed 7 --ber-accel 1000
N="$T/sim/node-0-0-0"

# a certificate for Y+'s cable before the agent starts (apenet qualify)
yup() { "$A" link --json --sim "$N" 2>/dev/null | jq -e '.links[] | select(.name == "Y+") | .state == "up"' >/dev/null; }
wait_for 60 yup || fail "Y+ never came up"
"$A" qualify --link Y+ --db "$T/certs.db" --sim "$N" --json </dev/null >"$T/q.json" 2>"$T/q.err" ||
	fail "qualify Y+: $(cat "$T/q.err")"
YSER=$(jq -r '.links[0].cable.serial' "$T/q.json")

# the supervisor, serving its cluster tables through the same snmpd
mkdir -p "$T/sup"
cat >"$T/sup/sup.yaml" <<EOF
cluster:
  dims: 2x2x1
supervisor:
  state_dir: $T/sup
  agentx_socket: $T/agentx.sock
  agentx_ping_s: $PING
  agentx_cache_ms: 300
EOF
supervisor_start "$T/sup"
mkdir -p "$T/ag"
cat >"$T/ag/agent.yaml" <<EOF
agent:
  state_dir: $T/ag/state
  blackbox_dir: $T/ag/blackbox
  socket: $T/ag/agent.sock
  edac_root: $T/ag/edac
  user: ""
  agentx_socket: $T/agentx.sock
  agentx_ping_s: $PING
  agentx_traps: 1
  certificates_db: $T/certs.db
supervisors:
  targets: ["127.0.0.1:$SUPPORT"]
  heartbeat_s: 0.5
$(node_key "$T/ag" "$(basename "$N" | sed 's/^node-//; s/-/,/g')")
EOF
"$BIN/apenet-agent" --config "$T/ag/agent.yaml" --foreground --sim "$N" 2>"$T/ag/log" &
AGENT=$!
st() { "$A" agent-status --json --socket "$T/ag/agent.sock" >"$T/st.json" 2>/dev/null && jq -e "$1" "$T/st.json" >/dev/null; }
wait_for 30 st '.agentx.connected' || fail "the agent did not connect to snmpd: $(cat "$T/ag/log")"

# --- walks: the whole tree, in order, both ways
get() { snmpget $S -On -Oqv -M /dev/null -m "" "$H" "$@" 2>&1; }
walk_ok() { # TOOL OUT: a walk that ends cleanly
	$1 $S -On $M "$H" "$MIB" >"$2" 2>"$2.err" && [ ! -s "$2.err" ] && [ -s "$2" ] &&
		grep -q "^$MIB\.1\.2\.1\.2\.1 = STRING: .*:.*\." "$2" # the agent's tables are there
}
wait_for 20 walk_ok snmpwalk "$T/walk" || fail "snmpwalk: $(cat "$T/walk.err")"
walk_ok snmpbulkwalk "$T/bulk" || fail "snmpbulkwalk: $(cat "$T/bulk.err")"
cut -d' ' -f1 "$T/walk" >"$T/walk.oids"
cut -d' ' -f1 "$T/bulk" >"$T/bulk.oids"
cmp -s "$T/walk.oids" "$T/bulk.oids" || fail "walk and bulkwalk differ: $(diff "$T/walk.oids" "$T/bulk.oids" | head)"
# card 1; 6 links of 4 lanes; 8 sensors; 7 LDM words; the watchdog
n=$(grep -c "^$MIB\.1\.[2-7]\." "$T/walk")
[ "$n" -eq $((12 + 6 * 25 + 24 * 10 + 8 * 9 + 7 * 20 + 8)) ] || fail "walk: $n varbinds: $(head -3 "$T/walk")"
grep -q "not increasing" "$T/walk.err" "$T/bulk.err" && fail "OIDs out of order"

# --- the values are apenet link's
"$A" link --json --sim "$N" >"$T/link.json" || fail "apenet link"
for l in 1 2 3 4 5 6; do
	j=$((l - 1))
	want=$(jq -r --argjson j $j '.links[$j] | [.name, .state, .lanes_up, .partner.node.x, .partner.node.y,
		.partner.node.z, .partner.link] | @tsv' "$T/link.json")
	set -- $want
	[ "$(get "$MIB.1.3.1.2.1.$l")" = "\"$1\"" ] || fail "link $l name: $(get "$MIB.1.3.1.2.1.$l") vs $1"
	[ "$2" = up ] && [ "$(get "$MIB.1.3.1.3.1.$l")" = 3 ] || fail "link $l state: $(get "$MIB.1.3.1.3.1.$l") vs $2"
	[ "$(get "$MIB.1.3.1.4.1.$l")/$(get "$MIB.1.3.1.5.1.$l")" = "$3" ] || fail "link $l lanes vs $3"
	[ "$(get "$MIB.1.3.1.7.1.$l")" = "\"$4,$5,$6\"" ] && [ "$(get "$MIB.1.3.1.8.1.$l")" = "\"$7\"" ] ||
		fail "link $l partner: $(get "$MIB.1.3.1.7.1.$l") $(get "$MIB.1.3.1.8.1.$l") vs $4,$5,$6 $7"
done
# PMA settings of every lane of X+
for k in 0 1 2 3; do
	want=$(jq -r --argjson k $k '.links[0].lanes[$k].pma | [.vod, .pre, .post1, .post2, .rxeq, .dcgain] | @tsv' "$T/link.json")
	got=$(for c in 6 7 8 9 10 11; do get "$MIB.1.4.1.$c.1.1.$((k + 1))"; done | tr '\n' '\t' | sed 's/\t$//')
	[ "$got" = "$want" ] || fail "lane $k PMA: $got vs $want"
done
# counters: the agent's sample and apenet link's, taken a moment apart, are
# within a second of traffic (4 lanes at 7 Gbps: under 3.5e9 bytes)
snmp_tx=$(get "$MIB.1.3.1.9.1.1")
"$A" link --json --sim "$N" >"$T/link2.json"
cli_tx=$(jq '.links[0].counters.tx_bytes' "$T/link2.json")
[ "$cli_tx" -ge "$snmp_tx" ] && [ $((cli_tx - snmp_tx)) -lt 3500000000 ] || fail "tx_bytes: snmp $snmp_tx cli $cli_tx"
# Counter64 past 2^32 (a few seconds of traffic)
big() { v=$(get "$MIB.1.3.1.9.1.1"); [ "$v" -gt 4294967296 ] 2>/dev/null; }
wait_for 60 big || fail "apenetLinkTxBytes never passed 2^32: $(get "$MIB.1.3.1.9.1.1")"
snmpget $S $M "$H" "$MIB.1.3.1.9.1.1" | grep -q "Counter64: " || fail "not a Counter64"
# the card's row: its PCI address, its node
[ "$(get "$MIB.1.2.1.2.1")" = "\"$(jq -r .bdf "$T/link.json")\"" ] || fail "card bdf: $(get "$MIB.1.2.1.2.1")"
[ "$(get "$MIB.1.2.1.5.1")" = '"0,0,0"' ] || fail "card node: $(get "$MIB.1.2.1.5.1")"
# by name, with the MIB: snmptable shows the six links
snmptable $S $M -Cf , -CH "$H" APENET-MIB::apenetLinkTable >"$T/table" 2>"$T/table.err" || fail "snmptable: $(cat "$T/table.err")"
[ "$(wc -l <"$T/table")" -eq 6 ] && grep -q '^X+,up,4,4,' "$T/table" || fail "snmptable: $(cat "$T/table")"

# the certificate rows: X+'s cable by its module's serial, not certified:
# none(1); Y+'s (link 3) certified by apenet qualify above: pass(2)
ser=$("$A" module --json --sim "$N" | jq -r '.modules[] | select(.port == "X+") | .vendor.serial')
certser() { [ "$(get "$MIB.1.10.1.1.1.1")" = "\"$ser\"" ]; }
wait_for 20 certser || fail "apenetCertSerial of X+: $(get "$MIB.1.10.1.1.1.1") vs $ser"
[ "$(get "$MIB.1.10.1.2.1.1")" = 1 ] || fail "apenetCertVerdict of X+: $(get "$MIB.1.10.1.2.1.1")"

ycert() { [ "$(get "$MIB.1.10.1.1.1.3")" = "\"$YSER\"" ] && [ "$(get "$MIB.1.10.1.2.1.3")" = 2 ]; }
wait_for 20 ycert || fail "Y+ certificate: $(get "$MIB.1.10.1.1.1.3") $(get "$MIB.1.10.1.2.1.3") vs $YSER pass"
[ "$(get "$MIB.1.10.1.4.1.3")" = '"1e-12"' ] || fail "Y+ certificate target: $(get "$MIB.1.10.1.4.1.3")"

# --- a row that is not there: noSuchInstance (and nothing breaks)
get "$MIB.1.3.1.2.1.9" | grep -q "No Such Instance" || fail "link 9: $(get "$MIB.1.3.1.2.1.9")"
get "$MIB.1.3.1.2.2.1" | grep -q "No Such Instance" || fail "card 2: $(get "$MIB.1.3.1.2.2.1")"
get "$MIB.1.3.1.99.1.1" | grep -q "No Such" || fail "column 99: $(get "$MIB.1.3.1.99.1.1")"
kill -0 $AGENT || fail "the agent died"

# --- an unplugged cable: the row and the trap sink say so
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 cable-unplug --link X+ >/dev/null || fail inject
down() { [ "$(get "$MIB.1.3.1.3.1.1")" = 1 ] && [ "$(get "$MIB.1.3.1.24.1.1")" = '"LINK_DOWN"' ] &&
	[ "$(get "$MIB.1.3.1.23.1.1")" = 3 ]; }
wait_for 30 down || fail "X+ not down in the MIB: state $(get "$MIB.1.3.1.3.1.1") code $(get "$MIB.1.3.1.24.1.1")"
"$A" link --json --sim "$N" | jq -e '.links[0].state == "down"' >/dev/null || fail "apenet link: X+ not down"
trapped() { grep "OID: $MIB.0.1" "$T/trapd.log" | grep -q "STRING: \"LINK_DOWN\""; }
wait_for 30 trapped || fail "no apenetHealthChange LINK_DOWN at the trap sink: $(tail -5 "$T/trapd.log")"
st '.agentx.notifications >= 1' || fail "agent-status: no notification counted"
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 clear >/dev/null || fail inject

# --- the cluster tables: as apenet health has them
# (X.Y.Z index -> class name) from SNMP and from the database (--all: the
# normal nodes too, as the table has them), compared
NODES=$MIB.1.8.1
cluster_same() {
	"$A" health --db "$T/sup/h.db" --all --json >"$T/health.json" 2>/dev/null || return 1
	jq -r '.nodes[] | "\(.node.x).\(.node.y).\(.node.z) \(.class)"' "$T/health.json" | sort >"$T/h.nodes"
	snmpwalk $S -On -M /dev/null -m "" "$H" "$NODES.5" 2>/dev/null |
		sed -n "s/^$NODES\.5\.\([0-9.]*\) = INTEGER: \([0-9]\)\$/\1 \2/p" |
		awk '{ split("normal sick broken silent", c, " "); print $1, c[$2] }' | sort >"$T/s.nodes"
	[ "$(wc -l <"$T/s.nodes")" -eq 4 ] && cmp -s "$T/h.nodes" "$T/s.nodes" &&
		grep -q "^0.0.0 " "$T/s.nodes" && ! grep -q "^0.0.0 silent" "$T/s.nodes" || return 1
	# the open incidents: the same numbers and components
	jq -r '.incidents[] | "\(.id) \(.component)"' "$T/health.json" | sort >"$T/h.inc"
	snmpwalk $S -On -M /dev/null -m "" "$H" "$MIB.1.9.1.2" 2>/dev/null |
		sed -n "s/^$MIB\.1\.9\.1\.2\.\([0-9]*\) = STRING: \"\(.*\)\"\$/\1 \2/p" | sort >"$T/s.inc"
	cmp -s "$T/h.inc" "$T/s.inc"
}
wait_for 30 cluster_same || fail "cluster tables differ from apenet health: nodes $(tr '\n' ';' <"$T/s.nodes") vs $(tr '\n' ';' <"$T/h.nodes"); incidents $(tr '\n' ';' <"$T/s.inc") vs $(tr '\n' ';' <"$T/h.inc")"
# a node never heard: its age says never; a node not in the torus: no row
[ "$(get "$NODES.7.1.1.0")" = 4294967295 ] || fail "1,1,0 self age: $(get "$NODES.7.1.1.0")"
get "$NODES.4.9.9.9" | grep -q "No Such Instance" || fail "node 9,9,9: $(get "$NODES.4.9.9.9")"

# --- snmpd restarted: back within two ping intervals, the agent untouched
c0=$(jq .agentx.connects "$T/st.json")
sp=$(cat "$T/snmpd.pid")
kill -TERM "$sp"
gone() { ! kill -0 "$sp" 2>/dev/null; }
wait_for 20 gone || fail "snmpd did not stop"
snmpd_start "$T" "$PORT"
t0=$(date +%s%N)
served() { [ "$(get "$MIB.1.3.1.2.1.1")" = '"X+"' ] && get "$NODES.5.0.0.0" | grep -q '^[1-4]$'; }
# two ping intervals, and a second for a loaded machine to run the ping
wait_for $((2 * PING + 1)) served || fail "not served $((2 * PING + 1)) s after snmpd came back: $(get "$MIB.1.3.1.2.1.1")"
t1=$(date +%s%N)
kill -0 $AGENT || fail "the agent died"
kill -0 $SUP || fail "the supervisor died"
st ".agentx.connects > $c0" || fail "agent-status: connects $(jq .agentx.connects "$T/st.json") after $c0"
echo "agentx: walk and bulkwalk agree ($n varbinds, in order), values as apenet link, Counter64 past 2^32, noSuchInstance, LINK_DOWN in the table and at the trap sink, cluster tables as apenet health, both back $(( (t1 - t0) / 1000000 )) ms after snmpd restarted (ping ${PING} s)"
