#!/bin/sh
# check_apenet, the Nagios/Icinga plugin, in both modes against a real agent:
# the emulator (2x2x1), a private snmpd on a loopback port with a private
# AgentX socket, and apenet-agent as its subagent (as tests/e2e/agentx.sh).
#  - a clean node: local and SNMP mode say OK, exit 0, with perfdata;
#  - X+ unplugged: both say CRITICAL naming X+, exit 2; cleared: OK again;
#  - Monitoring Plugins ranges for -w/-c/--temp-*: '@0:0' alerts on a clean
#    link's 0 CRC errors/min, '10:40' on a 45 C FPGA; perfdata carries them
#    as given;
#  - the FPGA at 90 C (the agent's limits: warn 80, fail 95): WARNING, exit 1,
#    locally with the reading that crossed ("fpga_temp 82.9 C > 80");
#    --temp-crit 85 makes it CRITICAL;
#  - no agent on the socket, no snmpd on the port: UNKNOWN, exit 3;
#  - bad arguments: UNKNOWN, exit 3, naming the argument;
#  - an agent whose snmpd is gone: local mode OK, not a word of snmpd;
#  - the socket is 0660: a user outside its group gets UNKNOWN with
#    "Permission denied", the same user in the group gets OK (as root:
#    setpriv to nobody, with and without the socket's group).
# Every wait polls with a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-check-XXXXXX)
chmod 755 "$T" # nobody reaches the socket's directory (the socket's mode is what is tested)
AGENT=""
cleanup() {
	[ -n "$AGENT" ] && { kill -TERM "$AGENT" 2>/dev/null; wait "$AGENT" 2>/dev/null; }
	if [ -s "$T/snmpd.pid" ]; then
		p=$(cat "$T/snmpd.pid")
		kill -TERM "$p" 2>/dev/null
		wait_for 10 sh -c "! kill -0 $p 2>/dev/null"
	fi
	sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG
CK="$BIN/check_apenet"
SNMPD=/usr/sbin/snmpd
[ -x "$CK" ] || fail "no $CK (make; under make test the ASan build)"
[ -x "$SNMPD" ] || fail "no $SNMPD (Debian snmpd; make test installs it)"

base=$(( 20000 + ($$ * 17) % 30000 ))
cat >"$T/snmpd.conf" <<EOF
master agentx
agentXSocket $T/agentx.sock
agentXPerms 0660 0770
rocommunity public 127.0.0.1
EOF
snmpd_start "$T"
PORT=$SNMPD_PORT

sim_start "$T/sim" --dims 2x2x1 --seed 7
N="$T/sim/node-0-0-0"
mkdir -p "$T/ag"
cat >"$T/ag/agent.yaml" <<EOF
agent:
  state_dir: $T/ag/state
  blackbox_dir: $T/ag/blackbox
  socket: $T/ag/agent.sock
  edac_root: $T/ag/edac
  user: ""
  agentx_socket: $T/agentx.sock
  agentx_ping_s: 2
supervisors:
  targets: []
EOF
"$BIN/apenet-agent" --config "$T/ag/agent.yaml" --foreground --sim "$N" 2>"$T/ag/log" &
AGENT=$!

# run MODE ARGS...: the plugin's line in $T/MODE.out, its exit code in $T/MODE.rc
run() {
	m=$1; shift
	rc=0
	"$CK" "$@" >"$T/$m.out" 2>"$T/$m.err" || rc=$?
	echo "$rc" >"$T/$m.rc"
}
local_() { run local --socket "$T/ag/agent.sock" -t 5; }
snmp_() { run snmp -H 127.0.0.1 -p "$PORT" -t 4 -w 1 -c 10 "$@"; }
# is MODE RC PATTERN: the last run of MODE exited RC, its line matches PATTERN
is() { [ "$(cat "$T/$1.rc")" = "$2" ] && grep -Eq "$3" "$T/$1.out"; }
# one line, nothing on stderr (the plugin's whole output is the line)
one_line() { [ "$(wc -l <"$T/$1.out")" -eq 1 ] && [ ! -s "$T/$1.err" ] || fail "$1: not one line: $(cat "$T/$1.out" "$T/$1.err")"; }
local_ok() { local_ && is local 0 "^APENET OK - node 0,0,0: no findings, watchdog normal \| 'findings'=0;;;0 "; }
snmp_ok() { snmp_ && is snmp 0 "^APENET OK - 6 links up, fpga [0-9.]+ C \| 'links_up'=6;;;0;6 'X\+_crc_per_min'=0;1;10;0 "; }
show() { echo "local: rc $(cat "$T/local.rc") $(cat "$T/local.out" "$T/local.err")"; echo "snmp: rc $(cat "$T/snmp.rc") $(cat "$T/snmp.out" "$T/snmp.err")"; }
t0=$(date +%s%N)

# --- a clean node: OK both ways, with perfdata
wait_for 30 local_ok || fail "local mode not OK: $(show) $(cat "$T/ag/log")"
one_line local
wait_for 30 snmp_ok || fail "SNMP mode not OK: $(show)"
one_line snmp
grep -Eq "'fpga_temp'=[0-9]+\.[0-9]{3}C;80;95 'board_temp'=[0-9.]+C;60;75$" "$T/snmp.out" || fail "temperatures: $(cat "$T/snmp.out")"
for l in X+ X- Y+ Y- Z+ Z-; do
	grep -q "'${l}_crc_per_min'=" "$T/snmp.out" || fail "no perfdata for $l: $(cat "$T/snmp.out")"
done
OK_LOCAL=$(cat "$T/local.out") OK_SNMP=$(cat "$T/snmp.out")
# the socket's group may ask, nobody else (docs/commands/check_apenet.md)
[ "$(stat -c %a "$T/ag/agent.sock")" = 660 ] || fail "socket mode $(stat -c %a "$T/ag/agent.sock")"
if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null && command -v setpriv >/dev/null; then
	g=$(stat -c %g "$T/ag/agent.sock")
	as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" "$@" "$CK" --socket "$T/ag/agent.sock" -t 5; }
	out=$(as_nobody --clear-groups 2>&1); rc=$?
	[ $rc -eq 3 ] && echo "$out" | grep -q "^APENET UNKNOWN - no agent answers on $T/ag/agent.sock: Permission denied" ||
		fail "nobody outside the socket's group: rc $rc: $out"
	out=$(as_nobody --groups="$g" 2>&1); rc=$?
	# the status text as root saw it; the perfdata's step_max may have grown since (a max so far)
	[ $rc -eq 0 ] && [ "${out%% | *}" = "${OK_LOCAL%% | *}" ] && echo "$out" | grep -q " | 'findings'=0;;;0 " ||
		fail "nobody in the socket's group $g: rc $rc: $out"
else
	echo "check_apenet: not root (or no nobody, no setpriv): the socket's group is not tested"
fi
# ranges: inside '@0:0' (a clean link's 0 errors/min) warns; '10:40' warns
# on a 45 C FPGA; perfdata carries both as given
ranges() { run range -H 127.0.0.1 -p "$PORT" -t 4 -w @0:0 &&
	is range 1 "^APENET WARNING - X\+ 0 CRC errors/min inside 0:0, X- 0 CRC errors/min inside 0:0, " &&
	grep -q "'X+_crc_per_min'=0;@0:0;;0 " "$T/range.out" &&
	run range2 -H 127.0.0.1 -p "$PORT" -t 4 --temp-warn 10:40 --temp-crit '~:200' &&
	is range2 1 "^APENET WARNING - fpga_temp [0-9.]+ C > 40; 6 links up" &&
	grep -Eq "'fpga_temp'=[0-9.]+C;10:40;~:200 " "$T/range2.out"; }
wait_for 30 ranges || fail "ranges: $(cat "$T/range.rc" "$T/range.out" "$T/range2.rc" "$T/range2.out" 2>&1)"
one_line range
one_line range2
# SNMPv1 (GETNEXT) reads the same tables
run v1 -H 127.0.0.1 -p "$PORT" -P 1 -t 4
is v1 0 "^APENET OK - 6 links up" || fail "-P 1: rc $(cat "$T/v1.rc") $(cat "$T/v1.out")"
one_line v1

# --- X+ unplugged: CRITICAL naming X+, both ways
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 cable-unplug --link X+ >/dev/null || fail inject
local_crit() { local_ && is local 2 "^APENET CRITICAL - X\+ LINK_DOWN"; }
snmp_crit() { snmp_ && is snmp 2 "^APENET CRITICAL - X\+ down \(LINK_DOWN\).*; 5 of 6 links up, .*'links_up'=5;;;0;6"; }
wait_for 30 local_crit || fail "local mode not CRITICAL on X+: $(show)"
one_line local
wait_for 30 snmp_crit || fail "SNMP mode not CRITICAL on X+: $(show)"
one_line snmp
CRIT_LOCAL=$(cat "$T/local.out") CRIT_SNMP=$(cat "$T/snmp.out")

# --- cleared: OK again (the flap the unplug counted ages out of the interval)
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 clear >/dev/null || fail inject
wait_for 60 local_ok || fail "local mode not OK after clear: $(show)"
wait_for 60 snmp_ok || fail "SNMP mode not OK after clear: $(show)"

# --- the FPGA at 90 C: above the agent's warn (80), below its fail (95)
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 overheat --celsius 90 >/dev/null || fail inject
local_warn() { local_ && is local 1 "^APENET WARNING - fpga_temp [0-9]+\.[0-9] C > 80[;,]"; }
snmp_warn() { snmp_ && is snmp 1 "^APENET WARNING - fpga_temp [0-9.]+ C > 80; 6 links up, fpga [0-9.]+ C \|.*'fpga_temp'=[0-9.]+C;80;95"; }
wait_for 60 local_warn || fail "local mode not WARNING at 90 C: $(show)"
wait_for 60 snmp_warn || fail "SNMP mode not WARNING at 90 C: $(show)"
one_line snmp
WARN_LOCAL=$(cat "$T/local.out") WARN_SNMP=$(cat "$T/snmp.out")
# the plugin's own limit: --temp-crit 85 makes the same reading CRITICAL
hot() { run hot -H 127.0.0.1 -p "$PORT" -t 4 --temp-warn 70 --temp-crit 85 &&
	is hot 2 "^APENET CRITICAL - fpga_temp [0-9.]+ C > 85;.*'fpga_temp'=[0-9.]+C;70;85"; }
wait_for 30 hot || fail "--temp-crit 85: rc $(cat "$T/hot.rc") $(cat "$T/hot.out")"
one_line hot
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 clear >/dev/null || fail inject
wait_for 90 snmp_ok || fail "SNMP mode not OK after cooling: $(show)"

# --- nobody answers: UNKNOWN, exit 3, saying why
run gone --socket "$T/nothing.sock" -t 2
is gone 3 "^APENET UNKNOWN - no agent answers on $T/nothing.sock" || fail "no socket: rc $(cat "$T/gone.rc") $(cat "$T/gone.out")"
: >"$T/notasock"
run gone --socket "$T/notasock" -t 2
is gone 3 "^APENET UNKNOWN - no agent answers" || fail "not a socket: rc $(cat "$T/gone.rc") $(cat "$T/gone.out")"
# a port where no snmpd listens (snmpd's own, plus one: it was free when
# the loop above moved past it, or some other daemon that does not speak
# SNMP there)
run gone -H 127.0.0.1 -p $((PORT + 1)) -t 1
is gone 3 "^APENET UNKNOWN - 127\.0\.0\.1:$((PORT + 1)): " || fail "no snmpd: rc $(cat "$T/gone.rc") $(cat "$T/gone.out")"
one_line gone
# snmpd answers, but without APENET-MIB (a wrong community is a timeout;
# a view without the tables is what an agent that is not connected gives)
kill -TERM "$AGENT"; wait "$AGENT" 2>/dev/null; AGENT=""
nomib() { run nomib -H 127.0.0.1 -p "$PORT" -t 4 && is nomib 3 "^APENET UNKNOWN - .* answers without apenetCardTable"; }
wait_for 30 nomib || fail "snmpd without the agent: rc $(cat "$T/nomib.rc") $(cat "$T/nomib.out")"
one_line nomib
run gone -H 127.0.0.1 -p "$PORT" -t 1 -C wrong
is gone 3 "^APENET UNKNOWN - .*Timeout" || fail "wrong community: rc $(cat "$T/gone.rc") $(cat "$T/gone.out")"
one_line gone

# --- bad arguments: UNKNOWN, exit 3, the argument named
bad() { # PATTERN ARGS...
	pat=$1; shift
	run bad "$@"
	is bad 3 "^APENET UNKNOWN - .*$pat" || fail "check_apenet $*: rc $(cat "$T/bad.rc") $(cat "$T/bad.out")"
	one_line bad
}
bad "'--bogus'" --bogus
bad "-w needs a value" -H 127.0.0.1 -w
bad "-w 'abc'" -H 127.0.0.1 -w abc
bad "-p '70000'" -H 127.0.0.1 -p 70000
bad "-P '3'" -H 127.0.0.1 -P 3
bad "-w 20 is wider than -c 10: no reading could be WARNING" -H 127.0.0.1 -w 20 -c 10
bad "--temp-warn 10:90 is wider than --temp-crit 20:85" -H 127.0.0.1 --temp-warn 10:90 --temp-crit 20:85
bad "-c '20:10': the start 20 is above the end 10" -H 127.0.0.1 -c 20:10
bad "-w ':10': no start before ':'" -H 127.0.0.1 -w :10
bad "--temp-crit '~95': '~' .minus infinity. goes before a ':'" -H 127.0.0.1 --temp-crit '~95'
bad "need -H" -w 1
bad "exclude each other" -H 127.0.0.1 --socket /x
bad "unexpected argument 'extra'" extra
run help --help
[ "$(cat "$T/help.rc")" = 3 ] && grep -q "^Usage: check_apenet" "$T/help.out" || fail "--help: $(cat "$T/help.rc") $(head -2 "$T/help.out")"

# --- local mode and snmpd: the socket answered, the agent judged; that its
# AgentX link is down (snmpd gone) is no part of the line
p=$(cat "$T/snmpd.pid")
kill -TERM "$p"
wait_for 10 sh -c "! kill -0 $p 2>/dev/null" || fail "snmpd did not stop"
"$BIN/apenet-agent" --config "$T/ag/agent.yaml" --foreground --sim "$N" 2>>"$T/ag/log" &
AGENT=$!
unplugged() { "$BIN/apenet" agent-status --json --socket "$T/ag/agent.sock" 2>/dev/null |
	jq -e '.agentx.enabled and (.agentx.connected | not)' >/dev/null && local_ok; }
wait_for 30 unplugged || fail "local mode without snmpd: $(show)"
one_line local
grep -q snmpd "$T/local.out" && fail "local mode speaks of snmpd: $(cat "$T/local.out")"
t1=$(date +%s%N)

echo "check_apenet: local and SNMP (2c, 1) OK, CRITICAL on X+ unplugged, OK after clear, WARNING at 90 C, UNKNOWN without agent or snmpd, bad arguments exit 3 ($(( (t1 - t0) / 1000000 )) ms)"
echo "  $OK_LOCAL"
echo "  $OK_SNMP"
echo "  $CRIT_LOCAL"
echo "  $CRIT_SNMP"
echo "  $WARN_LOCAL"
echo "  $WARN_SNMP"
