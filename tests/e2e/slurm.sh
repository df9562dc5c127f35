#!/bin/sh
# The batch scheduler acts on incidents, through a real slurmctld (Debian's
# slurm-wlm, 22.05) on loopback: unprivileged, in the foreground, with a
# private slurm.conf naming the 16 nodes of the emulated 4x4x1 torus as
# quong00..quong15 (no slurmd: drain and resume need none; the nodes stay
# UNKNOWN).  The torus runs an agent on every node and both supervisors,
# each with its own database, slurm enabled, scontrol told the controller by
# slurm.conf (the slurm_conf key: the supervisors' environment has no
# SLURM_CONF).
#  - a node drained by hand ("maintenance") before the fault is left alone,
#    by both supervisors, and stays drained after the repair;
#  - a cable fault drains its other end with "apenet #N: cable ..." (scontrol
#    show node shows it); each database records both ends' actions: the
#    drain (one supervisor drained it, or found it drained by the other: no
#    fight) and the end left alone;
#  - the repair resumes the apenet-drained node, the hand-drained one keeps
#    its reason; `apenet report --incident N` and `apenet health` show the
#    actions;
#  - dry run (a reload): a DNP hang is recorded as "would drain" and
#    "would resume" by both, and Slurm is left as it was;
#  - an incident withdrawn before it settled (a DNP hang cleared within the
#    settle window) drains nothing;
#  - an scontrol that never answers is killed at timeout_ms (recorded timed
#    out), and one under way at SIGTERM is killed and recorded abandoned; the
#    supervisors stop with 0, nothing left behind, no sanitizer report.
# Every wait polls with a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
command -v slurmctld >/dev/null && command -v scontrol >/dev/null || fail "slurmctld and scontrol are needed (mk/deps.sh)"
T=$(mktemp -d /tmp/apenet-slurm-XXXXXX)
PIDFILES=""
cleanup() {
	for f in $PIDFILES; do
		[ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
	done
	for f in $PIDFILES; do [ -f "$f" ] && wait "$(cat "$f")" 2>/dev/null; done
	sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG SLURM_CONF
A="$BIN/apenet"
SIM="$BIN/apenet-sim"
base=$(( 20000 + ($$ * 13) % 30000 ))

# ---- slurmctld on a private port (tests/e2e_lib.sh) ----
slurmctld_start "$T/slurm" "quong[00-15]"
echo "$SLURMCTLD" >"$T/ctld.pid"
PIDFILES="$PIDFILES $T/ctld.pid"
# the supervisors are told the controller by the slurm_conf key, not by
# their environment: only this test's own scontrol calls see SLURM_CONF
CONF=$SLURM_CONF
unset SLURM_CONF
sctl() { SLURM_CONF="$CONF" scontrol "$@"; }
# node X,Y,0 is quong<4Y+X>
qname() { printf 'quong%02d' $(($2 * 4 + $1)); }
# State= and Reason= of a node, as scontrol says them
state() { sctl show node -o "$1" | sed -n 's/.* State=\([^ ]*\).*/\1/p'; }
reason() { sctl show node -o "$1" | sed -n 's/.* Reason=\(.*\) \[[^]]*@[^]]*\]$/\1/p'; }
drained() { state "$1" | grep -Eq '(^|\+)DRAIN(ED|ING)?(\+|$)'; }

# ---- the torus, its agents, both supervisors ----
cluster_site_key "$T"
{
	cat <<Y
cluster:
  dims: 4x4x1
  nodes:
Y
	for y in 0 1 2 3; do for x in 0 1 2 3; do
		echo "    - { name: $(qname $x $y), node: \"$x,$y,0\" }"
	done; done
	cat <<Y
supervisor:
  batch_max_ms: 20
  silent_ms: 3500
  log_level: info
  site_key: $SITE_KEY
slurm:
  enabled: 1
  slurm_conf: $CONF
  timeout_ms: 20000
Y
} >"$T/cluster.yaml"
"$A" config check "$T/cluster.yaml" >/dev/null || fail "config: $("$A" config check "$T/cluster.yaml" 2>&1)"

sup_start() { # NAME
	n=$1
	mkdir -p "$T/$n"
	for try in 1 2 3 4 5 6 7 8; do
		port=$((base + 300 + try * 7 + ${#n} + (${n#s} * 3)))
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
	done
	cat "$T/$n/log" >&2
	fail "supervisor $n did not start"
}
sim_start "$T/sim" --dims 4x4x1 --seed 5
sup_start s1
sup_start s2
grep -q "slurm: settled incidents drain their nodes with /usr/bin/scontrol (SLURM_CONF $CONF)" "$T/s1/log" ||
	fail "s1 does not say it acts on Slurm: $(cat "$T/s1/log")"
for y in 0 1 2 3; do for x in 0 1 2 3; do
	d="$T/a-$x-$y-0"
	mkdir -p "$d"
	cluster_agent_yaml "$d" "$(cat "$T/s1.port")" "$(cat "$T/s2.port")" "$x,$y,0"
	"$BIN/apenet-agent" --config "$d/agent.yaml" --foreground --sim "$T/sim/node-$x-$y-0" 2>>"$d/log" &
	echo $! >"$d/pid"
	PIDFILES="$PIDFILES $d/pid"
done; done

health() { "$A" health --db "$T/$1/health.db" --incidents --all --json >"$T/$1.json" 2>"$T/$1.err"; [ $? -le 1 ]; }
q() { health "$1" && jq -e "$2" "$T/$1.json" >/dev/null; }
for s in s1 s2; do
	wait_for 90 q $s '.summary.normal == 16 and .summary.open_incidents == 0' ||
		fail "$s: the torus never looked healthy: $(jq -c .summary "$T/$s.json")"
done
# the actions of a database: "incident host verb outcome" lines
sql() { sqlite3 -readonly "$T/$1/health.db" "$2" 2>/dev/null; }
acts() { sql "$1" "SELECT incident_id, host, verb, outcome FROM slurm_action ORDER BY id"; }
has_act() { acts "$1" | grep -q "^$2|$3|$4|$5\$"; } # DB INCIDENT HOST VERB OUTCOME-REGEX
has_act_re() { acts "$1" | grep -Eq "^$2\\|$3\\|$4\\|($5)\$"; }
open_id() { sql "$1" "SELECT id FROM incident WHERE state = 'open' AND component = '$2' AND settled_ms IS NOT NULL"; }
inj() { "$SIM" inject --dir "$T/sim" "$@" >/dev/null || fail "inject $*"; }

# ---- a cable fault, one end drained by hand before it ----
END1=$(qname 1 1) END2=$(qname 1 2) # 1,1,0 Y+ <-> 1,2,0 Y-
sctl update nodename="$END2" state=drain reason="maintenance" || fail "drain $END2 by hand"
drained "$END2" && [ "$(reason "$END2")" = maintenance ] || fail "$END2 by hand: $(sctl show node -o "$END2")"
echo "phase: cable unplug"
inj --node 1,1,0 cable-unplug --link Y+
for s in s1 s2; do
	wait_for 60 sh -c "[ -n \"\$(sqlite3 -readonly '$T/$s/health.db' \"SELECT id FROM incident WHERE state = 'open' AND component = 'cable' AND settled_ms IS NOT NULL\" 2>/dev/null)\" ]" ||
		fail "$s: no settled cable incident: $(jq -c '.incidents' "$T/$s.json" 2>/dev/null)"
done
I1=$(open_id s1 cable) I2=$(open_id s2 cable)
for s in s1 s2; do
	eval "I=\$I${s#s}"
	# the end drained by apenet: drained here, or found drained by the other supervisor
	wait_for 60 has_act_re $s "$I" "$END1" drain 'done|apenet' || fail "$s: $END1 not drained: $(acts $s) $(tail -5 "$T/$s/log")"
	wait_for 60 has_act $s "$I" "$END2" drain other || fail "$s: $END2 not left alone: $(acts $s)"
done
# no fight: at most one database says it drained END1, the other found it so
# (or both drained it at once: then both read it back drained)
drained "$END1" || fail "$END1 not drained in Slurm: $(sctl show node -o "$END1")"
r1=$(reason "$END1")
case $r1 in
"apenet #$I1: cable 1,1,0 Y+ <-> 1,2,0 Y-"* | "apenet #$I2: cable 1,1,0 Y+ <-> 1,2,0 Y-"*) ;;
*) fail "$END1's reason: '$r1'" ;;
esac
[ "$(reason "$END2")" = maintenance ] && drained "$END2" || fail "$END2 lost its own reason: $(sctl show node -o "$END2")"
sctl show node "$END1" | grep -q "Reason=apenet #[0-9]*: cable 1,1,0 Y+" || fail "scontrol show node $END1: $(sctl show node "$END1")"
sql s1 "SELECT message FROM slurm_action WHERE host = '$END2'" | grep -q "^already drained by someone else: left alone: reason 'maintenance'$" ||
	fail "s1's message for $END2: $(sql s1 "SELECT message FROM slurm_action WHERE host = '$END2'")"
echo "  $END1: $(state "$END1"), reason '$r1'; $END2: $(state "$END2"), reason '$(reason "$END2")'"
acts s1 | sed 's/^/  s1: /'
acts s2 | sed 's/^/  s2: /'

echo "phase: repair"
inj --node 1,1,0 clear
for s in s1 s2; do
	eval "I=\$I${s#s}"
	wait_for 90 has_act_re $s "$I" "$END1" resume 'done|gone' || fail "$s: $END1 not resumed: $(acts $s) $(tail -5 "$T/$s/log")"
done
drained "$END1" && fail "$END1 still drained: $(sctl show node -o "$END1")"
drained "$END2" && [ "$(reason "$END2")" = maintenance ] || fail "$END2 after the repair: $(sctl show node -o "$END2")"
for s in s1 s2; do
	acts $s | grep -q "|$END2|resume|" && fail "$s resumed (or tried) the node drained by hand: $(acts $s)"
	# exactly one drain record a node an incident, one resume for END1
	[ "$(acts $s | wc -l)" -eq 3 ] || fail "$s: not 3 actions: $(acts $s)"
done
# at least one of them resumed it (the other may find it resumed already)
acts s1 | grep -q "|$END1|resume|done" || acts s2 | grep -q "|$END1|resume|done" || fail "nobody resumed $END1: $(acts s1) $(acts s2)"
acts s1 | sed 's/^/  s1: /'
acts s2 | sed 's/^/  s2: /'

# the post-mortem report and apenet health show them
"$A" report --db "$T/s1/health.db" --incident "$I1" >"$T/report.txt" || fail "report: exit $?"
grep -q "Batch scheduler" "$T/report.txt" && grep -q "drain $END2 (1,2,0): already drained by someone else: left alone" "$T/report.txt" ||
	fail "report text: $(cat "$T/report.txt")"
"$A" report --db "$T/s1/health.db" --incident "$I1" --json >"$T/report.json" || fail "report --json: exit $?"
jq -e --arg h "$END1" '[.incidents[0].slurm[] | select(.host == $h)] | map(.verb) == ["drain", "resume"]' "$T/report.json" >/dev/null ||
	fail "report json: $(jq -c '.incidents[0].slurm' "$T/report.json")"
"$A" health --db "$T/s1/health.db" --incidents --all >"$T/health.txt"
grep -Eq "^    [0-9TZ:.-]+ +resume +1,1,0 +$END1 +(done|gone) " "$T/health.txt" || fail "health text: $(cat "$T/health.txt")"
"$A" health --db "$T/s1/health.db" --incidents --all --json | jq -e --arg h "$END2" \
	'[.incidents[].slurm[] | select(.host == $h)] | map(.outcome) == ["other"]' >/dev/null ||
	fail "health json: $("$A" health --db "$T/s1/health.db" --incidents --all --json | jq -c '[.incidents[].slurm]')"
# ... and an export keeps them: each action a "slurm" line after its incident
"$A" db export --db "$T/s1/health.db" >"$T/export.jsonl" || fail "db export: exit $?"
jq -se --arg h "$END1" --argjson i "$I1" \
	'[.[] | select(.type == "slurm" and .incident == $i and .host == $h) | .verb] == ["drain", "resume"]' "$T/export.jsonl" >/dev/null || fail "db export's slurm lines: $(grep '"slurm"' "$T/export.jsonl")"
[ "$(grep -c '"type":"slurm"' "$T/export.jsonl")" -eq "$(acts s1 | wc -l)" ] ||
	fail "db export: $(grep -c '"type":"slurm"' "$T/export.jsonl") slurm lines, $(acts s1 | wc -l) actions"

# ---- dry run: recorded, logged, Slurm untouched ----
echo "phase: dry run"
sed -i 's/^  enabled: 1$/  enabled: 1\n  dry_run: 1/' "$T/cluster.yaml"
for s in s1 s2; do
	kill -HUP "$(cat "$T/$s.pid")"
	wait_for 20 grep -q "reloaded $T/cluster.yaml" "$T/$s/log" || fail "$s did not reload"
done
N3=$(qname 2 2)
inj --node 2,2,0 dnp-hang
for s in s1 s2; do
	wait_for 60 sh -c "sqlite3 -readonly '$T/$s/health.db' \"SELECT outcome FROM slurm_action WHERE host = '$N3' AND verb = 'drain'\" 2>/dev/null | grep -qx dry-run" ||
		fail "$s: no dry-run drain of $N3: $(acts $s)"
done
drained "$N3" && fail "dry run drained $N3"
grep -q "drain $N3 (2,2,0): dry run: would drain: $N3, reason 'apenet #" "$T/s1/log" || fail "s1's log: $(grep slurm "$T/s1/log" | tail -3)"
inj --node 2,2,0 clear
for s in s1 s2; do
	wait_for 90 sh -c "sqlite3 -readonly '$T/$s/health.db' \"SELECT outcome FROM slurm_action WHERE host = '$N3' AND verb = 'resume'\" 2>/dev/null | grep -qx dry-run" ||
		fail "$s: no dry-run resume of $N3: $(acts $s)"
done
drained "$N3" && fail "dry run drained $N3"

# ---- withdrawn before it settled: nothing ----
# s1 again with a settle window longer than the fault (settle_ms takes
# effect at start), on its port: a DNP hang cleared inside it is withdrawn
echo "phase: withdrawn"
sed -e '/^  dry_run: 1$/d' -e 's/^  silent_ms: 3500$/  silent_ms: 3500\n  settle_ms: 600000\n  explain_ms: 600000/' \
	"$T/cluster.yaml" >"$T/long.yaml"
kill -TERM "$(cat "$T/s1.pid")"
wait "$(cat "$T/s1.pid")" 2>/dev/null
n1=$(acts s1 | wc -l)
"$BIN/apenet-supervisor" --config "$T/long.yaml" --foreground --listen "127.0.0.1:$(cat "$T/s1.port")" \
	--db "$T/s1/health.db" 2>>"$T/s1/log" &
echo $! >"$T/s1.pid"
wait_for 20 sh -c "[ \$(grep -c 'listening on' '$T/s1/log') -ge 2 ]" || fail "s1 did not start again: $(tail -3 "$T/s1/log")"
wait_for 60 q s1 '.summary.normal == 16' || fail "s1: not healthy again: $(jq -c .summary "$T/s1.json")"
N4=$(qname 3 0)
inj --node 3,0,0 dnp-hang
wait_for 60 grep -q "opened provisionally: dnp on 3,0,0" "$T/s1/log" || fail "no provisional incident: $(tail -5 "$T/s1/log")"
inj --node 3,0,0 clear
wait_for 90 grep -Eq "incident [0-9]+ withdrawn" "$T/s1/log" || fail "s1: not withdrawn: $(tail -5 "$T/s1/log")"
[ "$(acts s1 | wc -l)" -eq "$n1" ] || fail "s1 acted on a withdrawn incident: $(acts s1)"
drained "$N4" && fail "$N4 drained for a withdrawn incident"
echo "  withdrawn: no action recorded, $N4 $(state "$N4")"

# ---- a scontrol that hangs: killed at timeout_ms; at a stop, abandoned ----
# s2 (settling as usual; s1 waits 600 s) with an scontrol that never answers
echo "phase: timeout, stop"
# (it writes down what it inherited: the supervisor's descriptors stay with it)
printf '#!/bin/sh\nfor f in /proc/$$/fd/*; do readlink "$f"; done >>"%s/slow-fds"\nexec sleep 60\n' "$T" >"$T/slow-scontrol"
chmod +x "$T/slow-scontrol"
sed -i -e '/^  dry_run: 1$/d' -e "s|^  timeout_ms: 20000\$|  timeout_ms: 1500\n  scontrol: $T/slow-scontrol|" "$T/cluster.yaml"
before=$(grep -c "reloaded" "$T/s2/log")
kill -HUP "$(cat "$T/s2.pid")"
wait_for 20 sh -c "[ \$(grep -c reloaded '$T/s2/log') -gt $before ]" || fail "s2 did not reload"
N5=$(qname 0 3)
inj --node 0,3,0 dnp-hang
wait_for 60 sh -c "sqlite3 -readonly '$T/s2/health.db' \"SELECT outcome FROM slurm_action WHERE host = '$N5'\" 2>/dev/null | grep -qx timeout" ||
	fail "s2: no timeout for $N5: $(acts s2)"
sql s2 "SELECT message FROM slurm_action WHERE host = '$N5'" | grep -q "^timed out: after 1500 ms (scontrol show node)$" ||
	fail "s2: timeout message: $(sql s2 "SELECT message FROM slurm_action WHERE host = '$N5'")"
[ -s "$T/slow-fds" ] || fail "the slow scontrol wrote no descriptors"
! grep -Eq "socket:|anon_inode:|health\.db" "$T/slow-fds" || fail "scontrol inherited the supervisor's: $(cat "$T/slow-fds")"
inj --node 0,3,0 clear
sed -i "s|^  timeout_ms: 1500\$|  timeout_ms: 60000|" "$T/cluster.yaml"
before=$(grep -c "reloaded" "$T/s2/log")
kill -HUP "$(cat "$T/s2.pid")"
wait_for 20 sh -c "[ \$(grep -c reloaded '$T/s2/log') -gt $before ]" || fail "s2 did not reload"
N6=$(qname 3 3)
inj --node 3,3,0 dnp-hang
S2=$(cat "$T/s2.pid")
wait_for 60 sh -c "pgrep -P $S2 -x sleep >/dev/null" || fail "s2 never ran the slow scontrol: $(acts s2)"
kill -TERM "$S2"
wait "$S2"
rc=$?
[ $rc -eq 0 ] || fail "s2 stopped with $rc: $(tail -5 "$T/s2/log")"
pgrep -P "$S2" >/dev/null && fail "s2 left a child behind"
has_act_re s2 '[0-9]+' "$N6" drain abandoned || fail "s2: the drain under way at the stop is not abandoned: $(acts s2)"
sql s2 "SELECT message FROM slurm_action WHERE host = '$N6'" | grep -q "^abandoned: the supervisor stopped: while scontrol ran$" ||
	fail "s2: abandoned message: $(sql s2 "SELECT message FROM slurm_action WHERE host = '$N6'")"
inj --node 3,3,0 clear

# s1 still up; stopped cleanly; no sanitizer report in either log
kill -0 "$(cat "$T/s1.pid")" || fail "s1 died"
S1=$(cat "$T/s1.pid")
kill -TERM "$S1"
wait "$S1"
rc=$?
[ $rc -eq 0 ] || fail "s1 stopped with $rc: $(tail -5 "$T/s1/log")"
for s in s1 s2; do
	! grep -q "Sanitizer\|runtime error" "$T/$s/log" || fail "$s: $(grep -A5 'Sanitizer\|runtime error' "$T/$s/log" | head -20)"
done
echo "ok: slurm: $END1 drained and resumed through slurmctld, $END2 (maintenance) left alone by both; dry run; $(acts s1 | wc -l) + $(acts s2 | wc -l) actions recorded"
