#!/bin/sh
# The node health check hooks (etc/nhc/): apenet-healthcheck, Slurm's
# HealthCheckProgram for sites without NHC, against a real slurmctld, and
# apenet.nhc, the LBNL NHC check, both asking a real agent through
# check_apenet's local mode (docs/commands/check_apenet.md, "Node Health Check"):
#  - a clean card: the hook exits 0 and drains nothing; NHC's check passes
#    without calling die;
#  - a node an operator drained ("maintenance") stays drained with that
#    reason whatever the card says, and is never resumed by the hook;
#  - X+ unplugged: the dry run (-N) says it would drain and changes nothing;
#    the hook drains the node with "apenet-healthcheck: APENET CRITICAL -
#    ... X+ ..." (no perfdata in the reason), exit 1; the NHC check calls
#    die 1 with the same line;
#  - cleared: the hook resumes the node it drained (no DRAIN flag left),
#    and leaves the operator's;
#  - no agent: UNKNOWN fails the node (die), and -u only logs;
#  - a plugin line with control bytes reaches neither Slurm's reason nor
#    NHC's message raw;
#  - bad options and an unknown node: exit 2, said.
# Every wait polls with a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
SRC=${APENET_SRCDIR:-$(pwd)}
T=$(mktemp -d /tmp/apenet-nhc-XXXXXX)
AGENT=""
cleanup() {
	[ -n "$AGENT" ] && { kill -TERM "$AGENT" 2>/dev/null; wait "$AGENT" 2>/dev/null; }
	slurmctld_stop
	sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_SIM_DIR APENET_CONFIG
HC=$SRC/etc/nhc/apenet-healthcheck
NHC=$SRC/etc/nhc/apenet.nhc
export APENET_CHECK_APENET="$BIN/check_apenet"
for c in scontrol /usr/sbin/slurmctld bash; do
	command -v "$c" >/dev/null 2>&1 || fail "$c missing (make test installs it: mk/deps.sh)"
done
base=$(( 20000 + ($$ * 13) % 30000 ))
slurmctld_start "$T/slurm" "quong[00-01]"

sim_start "$T/sim" --dims 2x2x1 --seed 11
mkdir -p "$T/ag"
cat >"$T/ag/agent.yaml" <<Y
agent:
  state_dir: $T/ag/state
  blackbox_dir: $T/ag/blackbox
  socket: $T/ag/agent.sock
  edac_root: $T/ag/edac
  user: ""
supervisors:
  targets: []
Y
"$BIN/apenet-agent" --config "$T/ag/agent.yaml" --foreground --sim "$T/sim/node-0-0-0" 2>"$T/ag/log" &
AGENT=$!
S=$T/ag/agent.sock

# hc NAME ARGS...: the hook's exit code in $T/NAME.rc, its output in $T/NAME.out
hc() {
	n=$1; shift
	rc=0
	"$HC" -s "$S" -t 5 "$@" >"$T/$n.out" 2>&1 || rc=$?
	echo "$rc" >"$T/$n.rc"
}
# nhc NAME ARGS...: check_apenet_node in bash as NHC runs it: die and log as
# NHC defines them (record, no exit), its return code in $T/NAME.rc, what it
# passed to die in $T/NAME.die, to log in $T/NAME.log
nhc() {
	n=$1; shift
	rc=0
	DIEF="$T/$n.die" LOGF="$T/$n.log" bash --norc --noprofile -c '
		die() { printf "%s|%s\n" "$1" "$2" >"$DIEF"; }
		log() { printf "%s\n" "$*" >>"$LOGF"; }
		. "$1"; shift
		check_apenet_node "$@"' nhc "$NHC" -s "$S" -t 5 "$@" >"$T/$n.out" 2>&1 || rc=$?
	echo "$rc" >"$T/$n.rc"
}
rc_of() { cat "$T/$1.rc"; }
show() { for f in "$T"/*.out "$T"/*.die; do [ -f "$f" ] && echo "$f: $(cat "$f")"; done; scontrol -o show node 2>&1; }
ck_is() { rc=0; "$BIN/check_apenet" --socket "$S" -t 5 >"$T/ck.out" 2>&1 || rc=$?; [ "$rc" = "$1" ]; }

wait_for 30 ck_is 0 || fail "the agent's node is not OK: $(cat "$T/ck.out" "$T/ag/log")"

# A clean card: nothing to do.
hc ok -n quong00
[ "$(rc_of ok)" = 0 ] || fail "clean card: exit $(rc_of ok): $(show)"
case $(slurm_node quong00 State) in *DRAIN*) fail "clean card drained quong00: $(show)" ;; esac
rm -f "$T/nok.die"
nhc nok
[ "$(rc_of nok)" = 0 ] && [ ! -e "$T/nok.die" ] || fail "NHC on a clean card: $(show)"

# An operator drains quong01 before anything happens.
scontrol update nodename=quong01 state=drain reason="maintenance" || fail "scontrol drain by hand"
hc hand -n quong01
[ "$(rc_of hand)" = 0 ] && [ "$(slurm_node quong01 Reason)" = maintenance ] ||
	fail "a clean card resumed or changed the operator's drain: $(show)"

# X+ unplugged: CRITICAL.
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 cable-unplug --link X+ >/dev/null || fail inject
wait_for 30 ck_is 2 || fail "check_apenet not CRITICAL after the unplug: $(cat "$T/ck.out")"
hc dry -n quong00 -N
[ "$(rc_of dry)" = 1 ] && grep -q "dry run: would drain quong00: apenet-healthcheck: APENET CRITICAL" "$T/dry.out" ||
	fail "dry run: $(show)"
case $(slurm_node quong00 State) in *DRAIN*) fail "the dry run drained quong00: $(show)" ;; esac
hc bad -n quong00
[ "$(rc_of bad)" = 1 ] || fail "failing card: exit $(rc_of bad): $(show)"
case $(slurm_node quong00 State) in *DRAIN*) ;; *) fail "quong00 not drained: $(show)" ;; esac
reason=$(slurm_node quong00 Reason)
case $reason in
"apenet-healthcheck: APENET CRITICAL - "*X+*) ;;
*) fail "quong00's reason: '$reason'" ;;
esac
case $reason in *"|"*) fail "perfdata in the reason: '$reason'" ;; esac
echo "drained: $reason"
# Run again while it still fails: left as it is, the reason kept.
hc again -n quong00
[ "$(rc_of again)" = 1 ] && [ "$(slurm_node quong00 Reason)" = "$reason" ] && grep -q "already drained" "$T/again.out" ||
	fail "a second run: $(show)"
# The operator's node, failing too: its reason stays.
hc hand2 -n quong01
[ "$(rc_of hand2)" = 1 ] && [ "$(slurm_node quong01 Reason)" = maintenance ] ||
	fail "the hook changed the operator's drain: $(show)"
nhc nbad
[ "$(rc_of nbad)" = 1 ] || fail "NHC check on a failing card returned $(rc_of nbad): $(show)"
grep -Eq '^1\|check_apenet_node: APENET CRITICAL - .*X\+' "$T/nbad.die" || fail "NHC's die: $(show)"
[ "$(cut -d'|' -f2- "$T/nbad.die" | tr -cd '|' | wc -c)" = 0 ] || fail "perfdata in NHC's message: $(show)"

# Repaired: the hook resumes its own drain, not the operator's.
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 clear >/dev/null || fail inject
wait_for 60 ck_is 0 || fail "check_apenet not OK after clear: $(cat "$T/ck.out")"
hc res -n quong00
[ "$(rc_of res)" = 0 ] && grep -q "resumed quong00" "$T/res.out" || fail "resume: $(show)"
case $(slurm_node quong00 State) in *DRAIN*) fail "quong00 still drained: $(show)" ;; esac
hc hand3 -n quong01
[ "$(rc_of hand3)" = 0 ] && [ "$(slurm_node quong01 Reason)" = maintenance ] ||
	fail "the hook resumed the operator's drain: $(show)"
case $(slurm_node quong01 State) in *DRAIN*) ;; *) fail "quong01 resumed: $(show)" ;; esac
# A reason that quotes the hook's tag after a field name is still the operator's.
scontrol update nodename=quong01 state=drain reason="hold State=IDLE Reason=apenet-healthcheck: x" || fail "scontrol"
hc hand4 -n quong01
case $(slurm_node quong01 State) in *DRAIN*) ;; *) fail "a reason quoting the tag was resumed: $(show)" ;; esac

# No agent: UNKNOWN fails the node, unless -u.
kill -TERM "$AGENT"; wait "$AGENT" 2>/dev/null; AGENT=""
nhc nunk
[ "$(rc_of nunk)" = 1 ] && grep -q "^1|check_apenet_node: APENET UNKNOWN" "$T/nunk.die" || fail "NHC without an agent: $(show)"
rm -f "$T/nunk2.die"
nhc nunk2 -u
[ "$(rc_of nunk2)" = 0 ] && [ ! -e "$T/nunk2.die" ] && grep -q "unknown: not failing" "$T/nunk2.log" ||
	fail "NHC -u without an agent: $(show)"
hc unk -n quong00 -u
[ "$(rc_of unk)" = 0 ] || fail "-u without an agent: $(show)"
case $(slurm_node quong00 State) in *DRAIN*) fail "-u drained quong00: $(show)" ;; esac

# A plugin line with control bytes: neither Slurm nor NHC gets them raw.
cat >"$T/evil" <<'P'
#!/bin/sh
printf 'APENET CRITICAL - \033[2Jcleared\007 X+ LINK_DOWN\r | links_up=5\n'
exit 2
P
chmod 755 "$T/evil"
APENET_CHECK_APENET=$T/evil hc evil -n quong00
reason=$(slurm_node quong00 Reason)
[ "$(rc_of evil)" = 1 ] && [ "$reason" = "apenet-healthcheck: APENET CRITICAL -  [2Jcleared  X+ LINK_DOWN" ] ||
	fail "control bytes: exit $(rc_of evil), reason '$reason'"
APENET_CHECK_APENET=$T/evil nhc nevil
[ "$(cat "$T/nevil.die")" = "1|check_apenet_node: APENET CRITICAL -  [2Jcleared  X+ LINK_DOWN" ] ||
	fail "NHC's message with control bytes: '$(cat "$T/nevil.die")'"

# Bad use: said, exit 2.
hc badopt -x
[ "$(rc_of badopt)" = 2 ] && grep -q usage "$T/badopt.out" || fail "bad option: $(show)"
hc nonode -n nosuchnode
[ "$(rc_of nonode)" = 2 ] && grep -q "scontrol show node nosuchnode" "$T/nonode.out" || fail "unknown node: $(show)"
echo "PASS nhc"
