#!/bin/sh
# The node agent under valgrind memcheck (the plain build: no sanitizers)
# for a run of 30 s or more through faults, reloads, dumps, status requests
# and a clean stop: valgrind's own report must stay empty (-q prints only
# errors and leaks; --error-exitcode makes it fail the run), the agent must
# exit 0 and have reported what it saw.  The emulator runs plain, outside
# valgrind; conditions are polled with deadlines.
. "$(dirname "$0")/../e2e_lib.sh"
PLAIN=${APENET_BIN_PLAIN:-build/bin}
T=$(mktemp -d /tmp/apenet-agent-vg-XXXXXX)
VG_PID=""
trap '[ -n "$VG_PID" ] && kill -CONT $VG_PID 2>/dev/null && kill -TERM $VG_PID 2>/dev/null; sim_stop; rm -rf "$T"' EXIT
unset APENET_SIM_DIR APENET_CONFIG
BIN=$PLAIN
A="$PLAIN/apenet"
VGERR=99
command -v valgrind >/dev/null || fail "valgrind is not installed"

sim_start "$T/sim" --dims 2x2x1
N="$T/sim/node-0-0-0"
mkdir -p "$T/edac/mc0"
echo 0 >"$T/edac/mc0/ce_count"
echo 0 >"$T/edac/mc0/ue_count"
cat >"$T/agent.yaml" <<Y
agent:
  state_dir: $T/state
  blackbox_dir: $T/blackbox
  socket: $T/agent.sock
  edac_root: $T/edac
  edac_interval_s: 0.2
  pcie_interval_ms: 200
  module_interval_s: 2
  blackbox_holdoff_s: 0.5
  user: ""
supervisors:
  # nobody listens there: the notifier spools, probes (SNMPv3), backs off,
  # under valgrind too
  targets: ["127.0.0.1:9"]
$(cluster_site_key "$T"; node_key "$T" 0,0,0)
  timeout_ms: 200
  retries: 0
  backoff_ms: 500
  heartbeat_s: 0.5
Y
start=$(date +%s)
valgrind -q --error-exitcode=$VGERR --leak-check=full --errors-for-leak-kinds=definite,indirect --log-file="$T/vg.log" \
	"$PLAIN/apenet-agent" --config "$T/agent.yaml" --foreground --sim "$N" 2>"$T/agent.log" &
VG_PID=$!
answers() { "$A" agent-status --json --socket "$T/agent.sock" >"$T/st.json" 2>/dev/null; }
st() { answers && jq -e "$1" "$T/st.json" >/dev/null; }
ev() { [ -s "$T/state/events.jsonl" ] && jq -e -s "any(.[]; $1)" "$T/state/events.jsonl" >/dev/null 2>&1; }
inj() { "$PLAIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 "$@" >/dev/null || fail "inject $*"; }
must() { secs=$1 what=$2; shift 2; wait_for "$secs" "$@" || { cat "$T/agent.log" "$T/vg.log"; fail "$what"; }; }

must 120 "the agent under valgrind does not answer" st '.watchdog.host.armed and .period.periods > 5'
inj overheat --celsius 99
must 60 "FPGA_TEMP" ev '.code == "FPGA_TEMP" and .new == "broken"'
inj clear
inj dnp-hang
must 60 "DNP_HUNG" ev '.code == "DNP_HUNG" and .new == "broken"'
inj clear
must 60 "DNP_HUNG cleared" ev '.code == "DNP_HUNG" and .new == "normal"'
inj cable-unplug --link X+
must 60 "LINK_DOWN" ev '.code == "LINK_DOWN" and .new == "broken"'
inj clear
inj card-gone
must 60 "CARD_GONE" ev '.code == "CARD_GONE" and .new == "broken"'
inj clear
must 60 "CARD_GONE cleared" ev '.code == "CARD_GONE" and .new == "normal"'
echo 3 >"$T/edac/mc0/ue_count"
must 60 "EDAC_MEMORY" ev '.code == "EDAC_MEMORY" and .new == "broken"'
"$A" clear-counters --sim "$N" >/dev/null
must 60 "COUNTERS_CLEARED" ev '.code == "COUNTERS_CLEARED"'
kill -USR1 $VG_PID
must 60 "SIGUSR1 dump" st '.blackbox.dumps >= 2'
cp "$T/agent.yaml" "$T/good.yaml"
printf 'agent:\n  period_ms: [1]\n' >"$T/agent.yaml"
kill -HUP $VG_PID
must 60 "bad reload" st '.agent.reload_errors == 1'
sed 's/^agent:$/agent:\n  blackbox_memory_mib: 1\n  events_keep: 5\n  baseline_s: 3/' "$T/good.yaml" >"$T/agent.yaml"
kill -HUP $VG_PID
must 60 "good reload" st '.agent.reloads == 1 and .blackbox.bytes_max == 1048576'
# thirty seconds of it at least, then a clean stop
must 60 "30 s" sh -c "[ \$(( \$(date +%s) - $start )) -ge 30 ]"
kill -TERM $VG_PID
wait $VG_PID
rc=$?
VG_PID=""
[ $rc -ne $VGERR ] && [ ! -s "$T/vg.log" ] || { cat "$T/vg.log"; fail "valgrind reports errors or leaks (exit $rc)"; }
[ $rc -eq 0 ] || { cat "$T/agent.log"; fail "the agent exited $rc"; }
grep -q "watchdog disabled" "$T/agent.log" || fail "no clean stop in the log"
n=$(wc -l <"$T/state/events.jsonl")
echo "agent under valgrind: $n events, $(( $(date +%s) - start )) s, no errors"
