# Shared helpers for the shell end-to-end tests (sourced).
set -u
BIN=${APENET_BIN:-build/bin}
fail() { echo "FAIL: $*" >&2; exit 1; }
# wait_for SECONDS COMMAND...: poll every 50 ms until COMMAND succeeds
wait_for() {
	deadline=$(( $(date +%s) + $1 )); shift
	until "$@"; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}
# sim_start DIR ARGS...: start apenet-sim in DIR and wait for DIR/ready
sim_start() {
	d=$1; shift
	"$BIN/apenet-sim" run --dir "$d" "$@" 2>"$d.log" &
	SIM_PID=$!
	wait_for 120 test -e "$d/ready" || { cat "$d.log" >&2; fail "apenet-sim did not become ready in $d"; }
}
sim_stop() {
	kill -TERM "$SIM_PID" 2>/dev/null || return 0
	wait "$SIM_PID"
}

# snmpd_start DIR [PORT]: the real snmpd with DIR/snmpd.conf (the caller's)
# on a free loopback port tried from $base + 500 (or on PORT alone, for a
# restart), its log, errors and pid file in DIR, no SMUX (-I -smux: port 199
# stays free); sets SNMPD_PORT.
snmpd_start() {
	sd_dir=$1
	SNMPD_PORT=""
	for sd_try in 1 2 3 4 5 6 7 8; do
		sd_p=${2:-$((base + 500 + sd_try * 31))}
		: >"$sd_dir/snmpd.log"
		SNMP_PERSISTENT_DIR="$sd_dir/snmpd-persist" /usr/sbin/snmpd -f -Lf "$sd_dir/snmpd.log" -C \
			-c "$sd_dir/snmpd.conf" -I -smux -M /dev/null -m "" -p "$sd_dir/snmpd.pid" "udp:127.0.0.1:$sd_p" \
			2>>"$sd_dir/snmpd.err" &
		if wait_for 10 grep -q "NET-SNMP version" "$sd_dir/snmpd.log" 2>/dev/null && kill -0 $! 2>/dev/null; then
			SNMPD_PORT=$sd_p
			return 0
		fi
		kill $! 2>/dev/null
		[ -n "${2:-}" ] && break
	done
	fail "snmpd did not start: $(cat "$sd_dir/snmpd.err" "$sd_dir/snmpd.log")"
}
# supervisor_start DIR: apenet-supervisor with DIR/sup.yaml on a free loopback port
# tried from $base + 900, database DIR/h.db, log DIR/log; sets SUP (its pid)
# and SUPPORT.
supervisor_start() {
	ss_dir=$1
	SUPPORT=""
	site_keyed "$ss_dir/sup.yaml"
	for ss_try in 1 2 3 4 5 6 7 8; do
		ss_p=$((base + 900 + ss_try * 37))
		"$BIN/apenet-supervisor" --config "$ss_dir/sup.yaml" --foreground --listen "127.0.0.1:$ss_p" \
			--db "$ss_dir/h.db" 2>>"$ss_dir/log" &
		SUP=$!
		if wait_for 20 grep -q "listening on 127.0.0.1:$ss_p" "$ss_dir/log" && kill -0 $SUP 2>/dev/null; then
			SUPPORT=$ss_p
			return 0
		fi
		kill $SUP 2>/dev/null
		wait $SUP 2>/dev/null
		SUP=""
	done
	fail "the supervisor did not start: $(cat "$ss_dir/log")"
}

# cluster_agent_yaml DIR T1 T2 [X,Y,Z]: DIR/agent.yaml for an agent of the
# cluster tests (supervisor.sh, report.sh): its files under DIR, reports to
# the supervisors on loopback ports T1 and T2, a heartbeat a second.  With
# X,Y,Z and $SITE_KEY (a site secret, cluster_site_key): SNMPv3 with node
# X,Y,Z's key file DIR/node.key, as a site runs it; without: SNMPv2c, said.  A loaded
# 2-core CI machine can stall an agent (or the emulator) for a few hundred
# ms: the watchdog allows 1 s, the DNP's beat 2 s, so that only the faults a
# test injects raise anything.
cluster_agent_yaml() {
	cat >"$1/agent.yaml" <<Y
agent:
  state_dir: $1/state
  blackbox_dir: $1/blackbox
  socket: $1/agent.sock
  edac_root: $1/edac
  service_timeout_s: 5
  watchdog_timeout_beats: 10
  dnp_stuck_periods: 20
  user: ""
supervisors:
  targets: ["127.0.0.1:$2", "127.0.0.1:$3"]
  heartbeat_s: 1
  timeout_ms: 500
  retries: 1
  backoff_ms: 500
Y
	if [ -n "${4:-}" ] && [ -n "${SITE_KEY:-}" ]; then
		rm -f "$1/node.key"
		"$BIN/apenet" keys node "$4" --site "$SITE_KEY" --out "$1/node.key" >/dev/null ||
			fail "apenet keys node $4"
		echo "  key_file: $1/node.key" >>"$1/agent.yaml"
	else
		echo "  version: 2c" >>"$1/agent.yaml"
	fi
}

# site_keyed YAML: a supervisors' config set up as shipped (SNMPv3): unless
# it says version 2c or names a site_key, the test's site secret ($SITE_KEY,
# made beside it the first time) goes under its supervisor: section.
site_keyed() {
	grep -q "site_key:\|version: 2c" "$1" && return 0
	[ -n "${SITE_KEY:-}" ] || cluster_site_key "$(dirname "$1")"
	if grep -q '^supervisor:$' "$1"; then
		sed -i "s|^supervisor:\$|supervisor:\n  site_key: $SITE_KEY|" "$1"
	else
		printf 'supervisor:\n  site_key: %s\n' "$SITE_KEY" >>"$1"
	fi
}

# node_key DIR X,Y,Z: node X,Y,Z's key file DIR/node.key from $SITE_KEY;
# prints the supervisors: line that names it (for an agent's config).
node_key() {
	rm -f "$1/node.key"
	"$BIN/apenet" keys node "$2" --site "$SITE_KEY" --out "$1/node.key" >/dev/null || fail "apenet keys node $2"
	echo "  key_file: $1/node.key"
}

# cluster_site_key DIR: a new site secret DIR/site.key, in $SITE_KEY, and
# the supervisor: lines that name it (for a supervisors' config).
cluster_site_key() {
	SITE_KEY=$1/site.key
	rm -f "$SITE_KEY"
	"$BIN/apenet" keys init --out "$SITE_KEY" >/dev/null || fail "apenet keys init"
}

# slurmctld_start DIR NODES: Debian's real slurmctld in the foreground on a
# free loopback port tried from $base + 1300, everything under DIR (its
# slurm.conf, state, log, pid), naming the nodes NODES (a Slurm host list,
# e.g. "quong[00-15]"), all at 127.0.0.1.  No slurmd runs: a node stays
# UNKNOWN (SlurmdTimeout=0 keeps it from going DOWN), which is all drain
# and resume need.  auth/none: nothing but loopback reaches it.  Exports
# SLURM_CONF (scontrol reads it); sets SLURMCTLD (its pid).  Stop it with
# slurmctld_stop.
slurmctld_start() {
	sc_dir=$1
	SLURMCTLD=""
	mkdir -p "$sc_dir/state" "$sc_dir/spool"
	for sc_try in 1 2 3 4 5 6; do
		sc_p=$((base + 1300 + sc_try * 41))
		cat >"$sc_dir/slurm.conf" <<C
ClusterName=apenettest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$sc_p
SlurmdPort=$((sc_p + 1))
SlurmUser=$(id -un)
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$sc_dir/state
SlurmdSpoolDir=$sc_dir/spool
SlurmctldPidFile=$sc_dir/slurmctld.pid
SlurmctldLogFile=$sc_dir/slurmctld.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/linear
ReturnToService=2
SlurmdTimeout=0
NodeName=$2 NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES State=UP
C
		export SLURM_CONF="$sc_dir/slurm.conf"
		/usr/sbin/slurmctld -D -f "$SLURM_CONF" >>"$sc_dir/slurmctld.out" 2>&1 &
		SLURMCTLD=$!
		if wait_for 30 sh -c "scontrol ping 2>/dev/null | grep -q UP" && kill -0 $SLURMCTLD 2>/dev/null; then
			return 0
		fi
		kill -TERM $SLURMCTLD 2>/dev/null
		wait $SLURMCTLD 2>/dev/null
		SLURMCTLD=""
	done
	fail "slurmctld did not start: $(tail -n 20 "$sc_dir/slurmctld.out" "$sc_dir/slurmctld.log" 2>&1)"
}
slurmctld_stop() {
	[ -n "${SLURMCTLD:-}" ] || return 0
	kill -TERM "$SLURMCTLD" 2>/dev/null
	wait "$SLURMCTLD" 2>/dev/null
	SLURMCTLD=""
}
# slurm_node NODE FIELD: a field of the node as slurmctld has it now
# (State, or Reason without its " [user@time]").
slurm_node() {
	scontrol -o show node "$1" 2>/dev/null | if [ "$2" = Reason ]; then
		awk '{ i = index($0, " Reason="); if (i) print substr($0, i + 8) }' | sed 's/ \[[^][ ]*@[^][ ]*\]$//'
	else
		awk -v f=" $2=" '{ i = index($0, f); if (i) { s = substr($0, i + length(f)); sub(/ .*/, "", s); print s } }'
	fi
}
