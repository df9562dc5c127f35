#!/bin/sh
# The agent's reports reach the supervisors: two real snmptrapd receivers on
# loopback ports, agents on two neighbouring nodes of a 4x4x1 emulated torus.
# Heartbeats from both; an overheat reported by the node itself and, through
# the torus, by its neighbour (naming the link it came through); a receiver
# stopped and started again gets every report it missed, in order, none
# twice; the service field of the node's LDM says how many supervisors
# answer.  Every fault class on all 16 nodes, with nothing else arriving, is
# agent_faults.sh.  Every wait polls with a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-agent-snmp-XXXXXX)
AGENTS=""
TRAPDS=""
cleanup() {
	for p in $AGENTS; do kill -CONT "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for f in $TRAPDS; do [ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null; done
	sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
AG="$BIN/apenet-agent"
TRAPD=/usr/sbin/snmptrapd
[ -x "$TRAPD" ] || TRAPD=snmptrapd
MIB=.1.3.6.1.4.1.8072.9999.9999.65

# trapd_start NAME: snmptrapd on a free loopback port (tried from a
# per-run base until one binds); its port in $T/NAME.port
trapd_start() {
	name=$1
	mkdir -p "$T/$name"
	printf 'authCommunity log,execute,net public\n' >"$T/$name/conf"
	port=${2:-$(( 20000 + ($$ * 7 + ${#name} * 131) % 30000 ))}
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
		port=$((port + 17))
	done
	cat "$T/$name/err" >&2
	fail "snmptrapd $name did not start"
}
trapd_stop() { kill -TERM "$(cat "$T/$1.pidfile")"; wait "$(cat "$T/$1.pidfile")" 2>/dev/null; }

# got RECEIVER PATTERN...: a notification line holding every pattern
got() {
	r=$1; shift
	f="$T/$r/log"
	for p in "$@"; do
		grep -F -- "$p" "$f" >"$f.m" 2>/dev/null || return 1
		f="$f.m"
	done
}
# notes about node X,Y from node R's agent: the apenetEvent varbinds
nodeis() { printf '%s.1.1.1.0 = Gauge32: %s\t%s.1.1.2.0 = Gauge32: %s' "$MIB" "$1" "$MIB" "$2"; }
code() { printf '%s.1.1.10.0 = STRING: "%s"' "$MIB" "$1"; }
# APENET-MIB's ApenetStatus is the LDM status plus one: 1 normal, 2 sick, 3 broken
newstatus() { printf '%s.1.1.12.0 = INTEGER: %s' "$MIB" "$1"; }
path() { printf '%s.1.1.16.0 = INTEGER: %s' "$MIB" "$1"; }     # 1 self 2 neighbour-ldm 3 watchdog
HB="OID: $MIB.0.2"
HC="OID: $MIB.0.1"

sim_start "$T/sim" --dims 4x4x1 --seed 5
trapd_start sup1
trapd_start sup2
P1=$(cat "$T/sup1.port")
P2=$(cat "$T/sup2.port")

agent() { # NODE(x-y-z): write its config and start it
	d="$T/a-$1"
	mkdir -p "$d"
	cat >"$d/agent.yaml" <<Y
agent:
  state_dir: $d/state
  blackbox_dir: $d/blackbox
  socket: $d/agent.sock
  edac_root: $d/edac
  blackbox_holdoff_s: 1
  user: ""
thresholds:
  fpga_temp_warn_c: 85
  fpga_temp_fail_c: 90
supervisors:
  targets: ["127.0.0.1:$P1", "127.0.0.1:$P2"]
  version: 2c # the receivers are snmptrapd with a community (SNMPv3: test_e2e_notify)
  heartbeat_s: 0.5
  timeout_ms: 300
  retries: 1
  backoff_ms: 300
Y
	# a service network cut shows within seconds here (default 60 s)
	sed -i 's/^agent:$/agent:\n  service_timeout_s: 2/' "$d/agent.yaml"
	"$AG" --config "$d/agent.yaml" --foreground --sim "$T/sim/node-$1" 2>>"$d/log" &
	echo $! >"$d/pid"
	AGENTS="$AGENTS $!"
}
agent 1-1-0
agent 2-1-0

# --- heartbeats from both nodes at both receivers
for r in sup1 sup2; do
	wait_for 30 got $r "$HB" "$(nodeis 1 1)" || fail "$r: no heartbeat from 1,1,0"
	wait_for 30 got $r "$HB" "$(nodeis 2 1)" || fail "$r: no heartbeat from 2,1,0"
done
# both supervisors answer: the service field stays normal
st() { "$A" agent-status --json --socket "$T/a-$1/agent.sock" >"$T/st.json" 2>/dev/null && jq -e "$2" "$T/st.json" >/dev/null; }
wait_for 20 st 1-1-0 '.ldm_host.service == "normal"' || fail "service not normal: $(jq -c .ldm_host "$T/st.json")"
# the spool and its WAL are the agent's and its group's only (umask 027, and
# narrowed on open whatever the umask: docs/agent.md, "Privileges")
for f in spool.db spool.db-wal events.jsonl; do
	m=$(stat -c %a "$T/a-1-1-0/state/$f") && [ "$m" = 640 ] || fail "state/$f: mode '$m', not 640"
done

# --- overheat on 2,1,0: reported by itself (self) and by 1,1,0 through the torus
"$BIN/apenet-sim" inject --dir "$T/sim" --node 2,1,0 overheat --celsius 93 >/dev/null || fail inject
for r in sup1 sup2; do
	wait_for 30 got $r "$HC" "$(nodeis 2 1)" "$(code FPGA_TEMP)" "$(newstatus 3)" "$(path 1)" ||
		fail "$r: FPGA_TEMP broken of 2,1,0 not reported by itself"
	wait_for 30 got $r "$HC" "$(nodeis 2 1)" "$(code NEIGHBOUR_TEMPERATURE)" "$(path 2)" \
		"$MIB.1.1.17.0 = STRING: \"X+\"" || fail "$r: 1,1,0 did not report 2,1,0's temperature through X+"
done
"$BIN/apenet-sim" inject --dir "$T/sim" --node 2,1,0 clear >/dev/null || fail inject

# --- a receiver away: reports wait in the spool and arrive in order, none twice
trapd_stop sup2
wait_for 20 st 1-1-0 '.ldm_host.service == "sick"' || fail "service not sick with one supervisor: $(jq -c .ldm_host "$T/st.json")"
"$BIN/apenet-sim" inject --dir "$T/sim" --node 1,1,0 overheat --celsius 87 >/dev/null || fail inject
wait_for 30 got sup1 "$HC" "$(nodeis 1 1)" "$(code FPGA_TEMP)" "$(path 1)" || fail "sup1: FPGA_TEMP of 1,1,0"
trapd_start sup2 "$P2"
wait_for 60 got sup2 "$HC" "$(nodeis 1 1)" "$(code FPGA_TEMP)" "$(path 1)" || fail "sup2: the missed report never came"
"$BIN/apenet-sim" inject --dir "$T/sim" --node 1,1,0 clear >/dev/null || fail inject
wait_for 20 st 1-1-0 '.ldm_host.service == "normal"' || fail "service not normal again"
# --- the service network cut: both receivers gone.  Each node's LDM says
# its service network is broken, so each neighbour reports it through the
# torus; those reports wait in the spools and arrive when the receivers are
# back, with everything else, in order.
trapd_stop sup1
trapd_stop sup2
wait_for 30 st 1-1-0 '.ldm_host.service == "broken"' || fail "service not broken with no supervisor: $(jq -c .ldm_host "$T/st.json")"
wait_for 30 st 1-1-0 '.spool.depth > 0' || fail "nothing waits in 1,1,0's spool"
trapd_start sup1 "$P1"
trapd_start sup2 "$P2"
for r in sup1 sup2; do
	wait_for 60 got $r "$HC" "$(nodeis 1 1)" "$(code NEIGHBOUR_SERVICE)" "$(newstatus 3)" "$(path 2)" \
		"$MIB.1.1.5.0 = STRING: \"2,1,0#" || fail "$r: 2,1,0 did not report 1,1,0's service network broken"
done
wait_for 30 st 1-1-0 '.ldm_host.service == "normal" and .spool.depth == 0' ||
	fail "1,1,0 did not recover: $(jq -c '[.ldm_host.service, .spool]' "$T/st.json")"
# every (boot, sequence) of 1,1,0's agent (its boot id names it) once per
# receiver, in order
for r in sup1 sup2; do
	grep -F "$MIB.1.1.5.0 = STRING: \"1,1,0#" "$T/$r/log" |
		sed -n "s/.*$MIB\.1\.1\.5\.0 = STRING: \"\([^\"]*\)\".*$MIB\.1\.1\.6\.0 = Counter64: \([0-9]*\).*/\1 \2/p" >"$T/$r.seq"
	[ -s "$T/$r.seq" ] || fail "$r: no sequence numbers"
	sort -c -t' ' -k2,2n "$T/$r.seq" 2>/dev/null || { cat "$T/$r.seq"; fail "$r: reports out of order"; }
	[ "$(sort -u "$T/$r.seq" | wc -l)" -eq "$(wc -l <"$T/$r.seq")" ] || fail "$r: a report arrived twice"
done
echo "agent reports: all checks passed"
