#!/bin/sh
# The node agent end to end: the real apenet-sim (a 4x4x1 torus) and real
# apenet-agent daemons on several nodes, each with its own config, state
# directory, black box and socket under one temporary directory.  Faults are
# injected with apenet-sim inject; every expectation is a condition polled
# with a deadline (wait_for), never a fixed sleep; agents are stopped by PID.
#
#   1,1,0 is the node most faults hit; 0,1,0 (X-), 2,1,0 (X+), 1,0,0 (Y-) and
#   1,2,0 (Y+) are its neighbours and report it through the torus.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-agent-XXXXXX)
chmod 755 "$T" # an agent that drops root to nobody must reach its files
AGENTS=""
cleanup() {
	for p in $AGENTS; do kill -CONT "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null; done
	for p in $AGENTS; do wait "$p" 2>/dev/null; done
	sim_stop
	rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
AG="$BIN/apenet-agent"

sim_start "$T/sim" --dims 4x4x1

# node dir, agent dir, pid of an agent by its node "X-Y-Z"
nd() { echo "$T/sim/node-$1"; }
ad() { echo "$T/ag-$1"; }
pid_of() { cat "$(ad "$1")/pid"; }

# write_config NODE [extra agent lines...]
write_config() {
	n=$1
	shift
	d=$(ad "$n")
	mkdir -p "$d"
	{
		echo "agent:"
		echo "  state_dir: $d/state"
		echo "  blackbox_dir: $d/blackbox"
		echo "  socket: $d/agent.sock"
		echo "  edac_root: $d/edac"
		echo "  edac_interval_s: 0.2"
		echo "  pcie_interval_ms: 200"
		echo "  blackbox_holdoff_s: 1"
		echo "  user: \"\""
		for l in "$@"; do echo "  $l"; done
		echo "supervisors:"
		echo "  targets: []" # reports: tests/e2e/agent_snmp.sh
	} >"$d/agent.yaml"
}
# start_agent NODE: with the config written; waits until it answers
start_agent() {
	d=$(ad "$1")
	"$AG" --config "$d/agent.yaml" --foreground --sim "$(nd "$1")" 2>>"$d/log" &
	echo $! >"$d/pid"
	AGENTS="$AGENTS $!"
	wait_for 30 answers "$1" || { cat "$d/log"; fail "agent $1 does not answer"; }
}
answers() { "$A" agent-status --json --socket "$(ad "$1")/agent.sock" >"$(ad "$1")/st.json" 2>/dev/null; }
# st NODE JQ: the agent's status satisfies JQ
st() { answers "$1" && jq -e "$2" "$(ad "$1")/st.json" >/dev/null; }
# ev NODE JQ: an event in the agent's events.jsonl satisfies JQ
ev() { f="$(ad "$1")/state/events.jsonl"; [ -s "$f" ] && jq -e -s "any(.[]; $2)" "$f" >/dev/null 2>&1; }
# wd NODE JQ: the card's watchdog as apenet status shows it
wd() { "$A" status --json --sim "$(nd "$1")" >"$T/wd.json" 2>/dev/null; jq -e ".watchdog | $2" "$T/wd.json" >/dev/null; }
inj() { "$BIN/apenet-sim" inject --dir "$T/sim" --node "$@" >"$T/inj.out" 2>&1 || { cat "$T/inj.out"; fail "inject $*"; }; }
must() { # SECONDS WHAT COMMAND...: wait for it, or fail naming it
	secs=$1 what=$2
	shift 2
	wait_for "$secs" "$@" || fail "$what"
}

# --- start: a fake EDAC tree for 1,0,0; 2,1,0 judges temperature at 90 C
for n in 1-1-0 0-1-0 2-1-0 1-0-0; do write_config $n; done
write_config 1-2-0 "blackbox_keep_files: 2"
write_config 2-1-0 "watchdog_timeout_beats: 3"
printf 'thresholds:\n  fpga_temp_warn_c: 85\n  fpga_temp_fail_c: 90\n' >>"$(ad 2-1-0)/agent.yaml"
mkdir -p "$(ad 1-0-0)/edac/mc0" "$(ad 1-0-0)/edac/mc1"
for m in mc0 mc1; do echo 0 >"$(ad 1-0-0)/edac/$m/ce_count"; echo 0 >"$(ad 1-0-0)/edac/$m/ue_count"; done
for n in 1-1-0 0-1-0 2-1-0 1-0-0 1-2-0; do start_agent $n; done
for n in 1-1-0 0-1-0 2-1-0 1-0-0 1-2-0; do
	must 30 "watchdog not enabled on $n" wd $n '.enabled and (.host_expired | not)'
done
st 1-1-0 '.agent.node == "1,1,0" and .period.period_ms == 100 and .watchdog.host.armed and
	(.neighbours | length == 4) and .blackbox.span_max_s == 600 and .supervisors.configured == 0 and .spool.depth == null' ||
	fail "status: $(cat "$(ad 1-1-0)/st.json")"
# the THR_* registers follow the config: 90 C is 90000 mC on 2,1,0, the default 95 C elsewhere
"$A" regs --json --sim "$(nd 2-1-0)" | jq -e '.global[] | select(.name == "THR_TEMP_BROKEN") | .value == 90000' >/dev/null ||
	fail "THR_TEMP_BROKEN not written on 2,1,0"
"$A" regs --json --sim "$(nd 1-1-0)" | jq -e '.global[] | select(.name == "THR_TEMP_SICK") | .value == 80000' >/dev/null ||
	fail "THR_TEMP_SICK not written on 1,1,0"
# EDAC: present on 1,0,0, absent (and said so) on the others
must 20 "edac on 1,0,0" st 1-0-0 '.edac.present and .edac.controllers == 2 and .ldm_host.memory == "normal"'
st 0-1-0 '(.edac.present | not) and (.edac.absent_because | test("edac")) and (.ldm_host.memory_why | test("no EDAC"))' ||
	fail "no EDAC not said: $(jq -c .edac "$(ad 0-1-0)/st.json")"

# --- a second agent on the same card is refused
write_config 0-1-0-twice
"$AG" --config "$(ad 0-1-0-twice)/agent.yaml" --foreground --sim "$(nd 0-1-0)" 2>"$T/twice.err"
rc=$?
[ $rc -eq 2 ] && grep -q "another agent (pid $(pid_of 0-1-0)) already runs on 0000:03:00.0" "$T/twice.err" ||
	fail "second agent: exit $rc: $(cat "$T/twice.err")"

# --- host hang: SIGSTOP of the agent.  Its DNP declares the host expired and
# the neighbours' LDM shows it; each neighbour's agent reports it for 1,1,0.
kill -STOP "$(pid_of 1-1-0)"
must 20 "1,1,0 not expired after SIGSTOP" wd 1-1-0 '.host_expired'
nbr_link() { "$A" link --json --sim "$(nd "$1")" >"$T/l.json" 2>/dev/null;
	jq -e --arg l "$2" '[.findings[] | select(.code == "NEIGHBOUR_HOST_EXPIRED") | .link] | index($l) != null' "$T/l.json" >/dev/null; }
must 20 "0,1,0's X+ does not show 1,1,0 expired" nbr_link 0-1-0 X+
must 20 "1,2,0's Y- does not show 1,1,0 expired" nbr_link 1-2-0 Y-
for pair in 0-1-0:X+ 2-1-0:X- 1-0-0:Y+ 1-2-0:Y-; do
	n=${pair%%:*} l=${pair#*:}
	must 20 "$n did not report 1,1,0's host expired via $l" ev $n \
		".code == \"NEIGHBOUR_HOST_EXPIRED\" and .node == \"1,1,0\" and .new == \"broken\" and .path == \"neighbour-ldm\" and .via == \"$l\" and .reporter != \"1,1,0\""
done
kill -CONT "$(pid_of 1-1-0)"
must 20 "1,1,0 still expired after SIGCONT" wd 1-1-0 '.host_expired | not'
for n in 0-1-0 2-1-0 1-0-0 1-2-0; do
	must 20 "$n did not report 1,1,0's host back" ev $n '.code == "NEIGHBOUR_HOST_EXPIRED" and .node == "1,1,0" and .new == "normal"'
done
must 20 "1,1,0 did not report its own expiry" ev 1-1-0 '.code == "HOST_EXPIRED" and .path == "watchdog" and .new == "sick"'
must 20 "1,1,0 did not log the late periods" grep -q "late by" "$(ad 1-1-0)/log"
st 1-1-0 '.period.overruns >= 1 and .period.missed_periods >= 5' || fail "overruns: $(jq -c .period "$(ad 1-1-0)/st.json")"

# --- DNP hang: the node's own agent (path watchdog), and its neighbours see silence
inj 1,1,0 dnp-hang
must 20 "DNP_HUNG not reported" ev 1-1-0 '.code == "DNP_HUNG" and .new == "broken" and .path == "watchdog" and .node == "1,1,0"'
must 20 "2,1,0 did not report 1,1,0 silent" ev 2-1-0 '.code == "LDM_STALE" and .node == "1,1,0" and .via == "X-" and .new != "normal"'
inj 1,1,0 clear
must 20 "DNP_HUNG not cleared" ev 1-1-0 '.code == "DNP_HUNG" and .new == "normal"'
must 20 "2,1,0: 1,1,0 not heard again" ev 2-1-0 '.code == "LDM_STALE" and .node == "1,1,0" and .new == "normal"'

# --- overheat on 2,1,0 (limits 85/90 C there): its agent, and 1,1,0 through the torus
inj 2,1,0 overheat --celsius 93
must 30 "FPGA_TEMP broken not reported on 2,1,0" ev 2-1-0 \
	'.code == "FPGA_TEMP" and .subject == "sensor" and .where == "fpga_temp" and .new == "broken" and .node == "2,1,0" and .path == "self"'
must 30 "1,1,0 did not report 2,1,0's temperature" ev 1-1-0 \
	'.code == "NEIGHBOUR_TEMPERATURE" and .node == "2,1,0" and .new == "broken" and .via == "X+" and .path == "neighbour-ldm"'
inj 2,1,0 clear
must 30 "FPGA_TEMP not cleared on 2,1,0" ev 2-1-0 '.code == "FPGA_TEMP" and .new == "normal"'

# --- cable unplug: both ends report their link; the black box is written and replays
inj 1,1,0 cable-unplug --link X+
must 20 "LINK_DOWN X+ not reported on 1,1,0" ev 1-1-0 '.code == "LINK_DOWN" and .where == "X+" and .new == "broken" and .node == "1,1,0"'
must 20 "LINK_DOWN X- not reported on 2,1,0" ev 2-1-0 '.code == "LINK_DOWN" and .where == "X-" and .new == "broken" and .node == "2,1,0"'
# the first dump that holds the sample that showed it (a dump waits out
# blackbox_holdoff_s after the one before)
t=$(jq -s '[.[] | select(.code == "LINK_DOWN" and .where == "X+" and .new == "broken")][0].time_ms' "$(ad 1-1-0)/state/events.jsonl")
linkdump() {
	for f in "$(ad 1-1-0)"/blackbox/*.json; do
		h=$(sed -n 's/.*"held_to_ms": \([0-9]*\).*/\1/p' "$f" | head -n 1)
		[ -n "$h" ] && [ "$h" -ge "$t" ] && return 0
	done
	return 1
}
must 20 "no black box holding the LINK_DOWN" linkdump
"$A" link --json --from "$f" >"$T/replay.json"; rc=$?
[ $rc -eq 1 ] && jq -e '.replay.samples >= 10 and ([.findings[] | select(.link == "X+") | .code] | index("LINK_DOWN") != null)' \
	"$T/replay.json" >/dev/null || fail "replay of $f: exit $rc $(jq -c '.replay, .findings' "$T/replay.json")"
# the first sample it holds, long before the unplug: X+ was fine
"$A" link X+ --json --from "$f" --at +0 | jq -e '.replay.s1 == 0 and .links[0].verdict.code == "OK"' >/dev/null ||
	fail "replay --at +0: $("$A" link X+ --json --from "$f" --at +0 | jq -c '.replay, .links[0].verdict')"
# --at: bad times are refused, and so is --at without a file
"$A" link --json --from "$f" --at soon >/dev/null 2>"$T/err"; [ $? -eq 2 ] && grep -q "is not -SECONDS" "$T/err" || fail "--at soon"
"$A" link --at -1 --sim "$(nd 1-1-0)" >/dev/null 2>"$T/err"; [ $? -eq 2 ] && grep -q "give --from FILE" "$T/err" || fail "--at alone"
"$A" link --json --from "$f" --at 1000 >/dev/null 2>"$T/err"; [ $? -eq 2 ] && grep -q "no sample at or before" "$T/err" ||
	fail "--at before the first sample: $(cat "$T/err")"
inj 1,1,0 clear
must 30 "LINK_DOWN not cleared" ev 1-1-0 '.code == "LINK_DOWN" and .where == "X+" and .new == "normal"'

# --- SIGUSR1: a dump now
kill -USR1 "$(pid_of 1-2-0)"
must 20 "no SIGUSR1 dump on 1,2,0" sh -c "grep -q '\"reason\": \"SIGUSR1\"' $(ad 1-2-0)/blackbox/*.json"
f=$(grep -l '"reason": "SIGUSR1"' "$(ad 1-2-0)"/blackbox/*.json | head -n 1)
"$A" status --json --from "$f" | jq -e '.board.node == {"x":1,"y":2,"z":0} and .board.replay.samples >= 2' >/dev/null ||
	fail "SIGUSR1 dump does not replay"
st 1-2-0 '.blackbox.dumps >= 1 and .blackbox.samples > 10 and .blackbox.bytes_per_sample > 0' || fail "blackbox status"
# retention: two files kept (blackbox_keep_files), the newest ones
for i in 1 2 3; do
	d0=$(jq .blackbox.dumps "$(ad 1-2-0)/st.json")
	kill -USR1 "$(pid_of 1-2-0)"
	must 20 "SIGUSR1 dump $i" st 1-2-0 ".blackbox.dumps > $d0"
done
last=$(jq -r .blackbox.last_dump "$(ad 1-2-0)/st.json")
[ "$(ls "$(ad 1-2-0)/blackbox" | wc -l)" -eq 2 ] && [ -e "$last" ] ||
	fail "retention: $(ls "$(ad 1-2-0)/blackbox")"

# --- memory: an uncorrected error in the fake EDAC tree; neighbours learn it from LDM_HOST
echo 1 >"$(ad 1-0-0)/edac/mc1/ue_count"
must 20 "EDAC_MEMORY broken not reported" ev 1-0-0 '.code == "EDAC_MEMORY" and .new == "broken" and .subject == "memory"'
must 20 "LDM_HOST memory" st 1-0-0 '.ldm_host.memory == "broken" and .edac.ue == 1'
must 20 "1,1,0 did not report 1,0,0's memory" ev 1-1-0 '.code == "NEIGHBOUR_MEMORY" and .node == "1,0,0" and .new == "broken" and .via == "Y-"'
echo 0 >"$(ad 1-0-0)/edac/mc1/ue_count"
must 20 "EDAC_MEMORY not cleared" ev 1-0-0 '.code == "EDAC_MEMORY" and .new == "normal"'

# --- peripheral: PCIe trained down on 1,2,0
inj 1,2,0 pcie-degrade --width 4 --gen 1
must 20 "PCIE_DEGRADED not reported" ev 1-2-0 '.code == "PCIE_DEGRADED" and .new == "sick"'
must 20 "LDM_HOST peripheral" st 1-2-0 '.ldm_host.peripheral == "sick"'
must 20 "1,1,0 did not report 1,2,0's peripheral" ev 1-1-0 '.code == "NEIGHBOUR_PERIPHERAL" and .node == "1,2,0" and .new == "sick"'
inj 1,2,0 clear

# --- counters cleared by a command: a notice, not a rate
# (one link first: its clear shows only as counters lower than a period
# before, which they are after a long run; docs/agent.md)
"$A" clear-counters X+ --sim "$(nd 0-1-0)" >/dev/null || fail "clear-counters X+"
must 20 "COUNTERS_CLEARED X+ not reported" ev 0-1-0 '.code == "COUNTERS_CLEARED" and .kind == "notice" and .where == "X+"'
"$A" clear-counters --sim "$(nd 0-1-0)" >/dev/null || fail "clear-counters"
must 20 "COUNTERS_CLEARED not reported" ev 0-1-0 '.code == "COUNTERS_CLEARED" and .where == "" and (.message | test("by a command"))'

# --- SIGHUP: a bad file keeps the settings in force; a good one applies
cp "$(ad 0-1-0)/agent.yaml" "$T/good.yaml"
printf 'agent:\n  period_ms: often\n' >"$(ad 0-1-0)/agent.yaml"
kill -HUP "$(pid_of 0-1-0)"
must 20 "bad reload not logged" grep -q "reload: $(ad 0-1-0)/agent.yaml:2:14: 'period_ms': 'often' is not a number; the settings in force stay" "$(ad 0-1-0)/log"
must 20 "bad reload" st 0-1-0 '.agent.reload_errors == 1 and .period.period_ms == 100'
# (the socket and agentx_ping_s take effect at the next start: the table's
# at_start rows; the old socket keeps answering)
sed -e 's/^agent:$/agent:\n  period_ms: 50\n  agentx_ping_s: 30/' -e 's|/agent.sock$|/agent2.sock|' "$T/good.yaml" \
	>"$(ad 0-1-0)/agent.yaml"
kill -HUP "$(pid_of 0-1-0)"
must 20 "good reload" st 0-1-0 '.agent.reloads == 1 and .period.period_ms == 50'
grep -q "reload: socket '$(ad 0-1-0)/agent2.sock' takes effect when the agent restarts ('$(ad 0-1-0)/agent.sock' stays)" \
	"$(ad 0-1-0)/log" || fail "a reload of agent.socket not said: $(grep reload "$(ad 0-1-0)/log")"
grep -q "reload: agentx_ping_s 30 takes effect when the agent restarts (15 stays)" "$(ad 0-1-0)/log" ||
	fail "a reload of agentx_ping_s not said: $(grep reload "$(ad 0-1-0)/log")"

# --- card gone and back: path watchdog; the watchdog is armed again
inj 1,1,0 card-gone
must 20 "CARD_GONE not reported" ev 1-1-0 '.code == "CARD_GONE" and .new == "broken" and .path == "watchdog"'
inj 1,1,0 clear
must 20 "CARD_GONE not cleared" ev 1-1-0 '.code == "CARD_GONE" and .new == "normal"'
must 20 "watchdog not armed again" wd 1-1-0 '.enabled'

# --- agent-status in text, and without an agent
"$A" agent-status --socket "$(ad 1-1-0)/agent.sock" >"$T/st.txt" || fail "agent-status text"
grep -q '^watchdog:' "$T/st.txt" && grep -q 'heartbeat:' "$T/st.txt" || fail "agent-status text: $(head "$T/st.txt")"
"$A" agent-status --socket "$T/nobody.sock" 2>"$T/err"; [ $? -eq 2 ] && grep -q "no agent answers" "$T/err" || fail "no agent"

# --- who the agent runs as (docs/agent.md, "Privileges").  As root: user: ""
# keeps root, on purpose and with a warning at every start; a user that does
# not exist, or root itself, stops it before the card is touched; a real
# user gets everything after the card, under no more capabilities than the
# unit's bounding set.  As another user there is nothing to drop.
if [ "$(id -u)" = 0 ]; then
	grep -q 'warn: running as root on purpose (agent.user: "" in .*/agent.yaml)' "$(ad 1-1-0)/log" ||
		fail "user \"\": no warning: $(grep -i root "$(ad 1-1-0)/log")"
	st 1-1-0 '.agent.privileges == "running as root on purpose (agent.user: \"\")"' ||
		fail "user \"\": $(jq -c .agent.privileges "$(ad 1-1-0)/st.json")"
	# refused: exit 2, the key and the user named, what to write instead, and
	# nothing made: no socket, no state, the card's watchdog untouched
	refused() { # NODE USER WHAT
		write_config "$1" "user: $2"
		sed -i '/^  user: ""$/d' "$(ad "$1")/agent.yaml"
		"$AG" --config "$(ad "$1")/agent.yaml" --foreground --sim "$(nd "$1")" 2>"$T/refused.err"
		rc=$?
		[ $rc -eq 2 ] && grep -q "agent.yaml: agent.user: $3" "$T/refused.err" && grep -q 'write user: "" to run as root' "$T/refused.err" ||
			fail "user: $2: exit $rc: $(cat "$T/refused.err")"
		[ ! -e "$(ad "$1")/agent.sock" ] && [ ! -e "$(ad "$1")/state" ] || fail "user: $2: files made before the refusal"
		wd "$1" '(.enabled | not) and .host_beat_age_s == null' || fail "user: $2: the card was touched: $(jq -c .watchdog "$T/wd.json")"
	}
	refused 3-2-0 apenet-nobody-here "user 'apenet-nobody-here' does not exist"
	refused 3-2-0 root "'root' is root (uid 0): nothing would be dropped; name an unprivileged user"
else
	st 1-1-0 ".agent.privileges == \"not root (uid $(id -u)): nothing to drop\"" ||
		fail "not root: $(jq -c .agent.privileges "$(ad 1-1-0)/st.json")"
	# the user is not looked up: one that does not exist stops nothing
	write_config 3-2-0 'user: apenet-nobody-here'
	sed -i '/^  user: ""$/d' "$(ad 3-2-0)/agent.yaml"
	start_agent 3-2-0
	st 3-2-0 '.agent.privileges | test("^not root")' || fail "not root, missing user: $(jq -c .agent "$(ad 3-2-0)/st.json")"
	kill -TERM "$(pid_of 3-2-0)"
	wait "$(pid_of 3-2-0)" || fail "3,2,0 did not stop cleanly"
fi

# dropping root to nobody, started with the unit's capability bounding set
# and nothing else (setpriv), its directory nobody's as tmpfiles.d makes
# /var/lib/apenet and /run/apenet apenet's
U="${APENET_SRCDIR:-.}/etc/systemd/apenet-agent.service"
if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null && command -v setpriv >/dev/null; then
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$U" | tr 'A-Z' 'a-z' | sed 's/cap_//g; s/ /,+/g')
	[ -n "$caps" ] || fail "no CapabilityBoundingSet in $U"
	d=$(ad 3-3-0)
	write_config 3-3-0 'user: nobody' "lock_dir: $d/lock"
	sed -i '/^  user: ""$/d' "$d/agent.yaml"
	chown "$(id -u nobody):$(id -g nobody)" "$d"
	chmod 755 "$d" # root reads its config there without CAP_DAC_OVERRIDE
	setpriv --bounding-set=-all,+"$caps" --inh-caps=-all --no-new-privs \
		"$AG" --config "$d/agent.yaml" --foreground --sim "$(nd 3-3-0)" 2>>"$d/log" &
	echo $! >"$d/pid"
	AGENTS="$AGENTS $!"
	wait_for 30 answers 3-3-0 || { cat "$d/log"; fail "agent 3,3,0 (bounding set +$caps) does not answer"; }
	must 20 "not dropped" st 3-3-0 '.agent.privileges | test("dropped root to nobody")'
	p=$(pid_of 3-3-0)
	awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$p/status" | grep -qx '65534 65534 65534 65534' ||
		fail "agent 3,3,0 runs as $(grep Uid: "/proc/$p/status")"
	grep -q '^CapPrm:	0000000000000000$' "/proc/$p/status" && grep -q '^CapEff:	0000000000000000$' "/proc/$p/status" ||
		fail "agent 3,3,0 kept capabilities: $(grep Cap "/proc/$p/status")"
	# its files: the socket 0660, the state 0750, the boot counter and events 0640, all nobody's
	for f in agent.sock:660 state:750 state/boot_count:640 state/events.jsonl:640 lock/apenet-agent-0000:03:00.0.lock:640; do
		m=$(stat -c '%a %U' "$d/${f%:*}") && [ "$m" = "${f##*:} nobody" ] || fail "$d/${f%:*}: '$m', not '${f##*:} nobody'"
	done
	p0=$(jq .period.periods "$d/st.json")
	must 20 "3,3,0 stopped sampling" st 3-3-0 ".period.periods > $p0 + 5 and .period.sample_errors == 0"
	kill -USR1 "$p"
	must 20 "no dump after the drop" sh -c "grep -q SIGUSR1 $d/blackbox/*.json 2>/dev/null"
	[ "$(stat -c '%a %U' "$d"/blackbox/*.json | sort -u)" = "640 nobody" ] || fail "dump: $(stat -c '%a %U' "$d"/blackbox/*.json)"
	kill -TERM "$p"
	wait "$p" || fail "3,3,0 did not stop cleanly"
	[ ! -e "$d/agent.sock" ] || fail "3,3,0 left its socket"
else
	echo "agent: not root (or no user nobody, or no setpriv): the privilege drop is not tested"
fi

# --- a clean stop: the watchdog is disabled first, the host never expires after
p=$(pid_of 1-2-0)
kill -TERM "$p"
wait "$p"; rc=$?
[ $rc -eq 0 ] || fail "SIGTERM: exit $rc"
AGENTS=$(echo "$AGENTS" | sed "s/ $p\b//")
grep -q "watchdog disabled" "$(ad 1-2-0)/log" || fail "no 'watchdog disabled' in the log"
[ ! -e "$(ad 1-2-0)/agent.sock" ] || fail "socket left behind"
wd 1-2-0 '(.enabled | not) and (.host_expired | not)' || fail "watchdog still on after SIGTERM: $(jq -c .watchdog "$T/wd.json")"
hb0=$(jq .dnp_heartbeat "$T/wd.json")
# ten of the DNP's own beats later (a second of its time), still not expired
must 20 "the DNP stopped" wd 1-2-0 ".dnp_heartbeat >= $hb0 + 10"
wd 1-2-0 '(.host_expired | not) and .expire_count == 0' || fail "host expired after a clean stop"

# --- SIGKILL: no chance to disarm: the DNP declares the host dead
p=$(pid_of 2-1-0)
kill -KILL "$p"
wait "$p" 2>/dev/null
AGENTS=$(echo "$AGENTS" | sed "s/ $p\b//")
must 20 "2,1,0 not expired after SIGKILL" wd 2-1-0 '.host_expired'
must 20 "1,1,0 did not report 2,1,0's host dead" ev 1-1-0 '.code == "NEIGHBOUR_HOST_EXPIRED" and .node == "2,1,0" and .new == "broken"'

# --- the agents that ran throughout kept their hosts alive
for n in 0-1-0 1-0-0; do
	wd $n '.expire_count == 0 and (.host_expired | not)' || fail "$n: host expired while its agent ran: $(jq -c .watchdog "$T/wd.json")"
done
# every event line is complete JSON with the record's fields
for n in 1-1-0 0-1-0 1-0-0; do
	jq -e -s 'all(.[]; has("node") and has("boot_id") and has("seq") and has("subject") and has("code") and has("old") and
		has("new") and has("path") and has("via") and has("evidence"))' "$(ad $n)/state/events.jsonl" >/dev/null ||
		fail "$n: events.jsonl"
	jq -e -s '[.[].seq] == ([.[].seq] | sort) and ([.[].seq] | length) == ([.[].seq] | unique | length)' \
		"$(ad $n)/state/events.jsonl" >/dev/null || fail "$n: sequence numbers"
done
echo "agent: all checks passed"
