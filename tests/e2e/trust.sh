#!/bin/sh
# Reports prove where they come from (docs/security.md): a supervisor with
# the shipped defaults (SNMPv3 authPriv, per-node keys derived from the site
# secret) and, as the outsider's tool, net-snmp's own snmpinform sending
# apenetHealthChange notifications.  Node 1,0,0 with its key file is
# acknowledged and stored; a forged SNMPv2c one, a wrong key, an unknown
# user, authNoPriv, and node 1,0,0 speaking for another node (its own boot
# id or another's; a neighbour through a link that does not lead there) are
# refused, never acknowledged nor stored, and counted by why.  An INFORM
# recorded on the wire and sent again inside the time window is stored once
# (acknowledged again); sent again after the supervisor restarted (its
# engine boots once more) it is outside the window and refused.  The keys
# rolled with SIGHUP (docs/security.md): old and new keys both taken while
# site_key_previous names the old secret, the old refused once it is gone.
# A real agent given another node's key says so and is refused.  Key files
# open to others are refused where they are read.  Every wait polls.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-trust-XXXXXX)
RELAY="$BIN/../tests/udp-relay"
[ -x "$RELAY" ] || RELAY="$(dirname "$BIN")/tests/udp-relay"
SUP_PID=""
REL_PID=""
cleanup() {
	[ -n "$SUP_PID" ] && kill -TERM "$SUP_PID" 2>/dev/null && wait "$SUP_PID" 2>/dev/null
	[ -n "$REL_PID" ] && kill -TERM "$REL_PID" 2>/dev/null && wait "$REL_PID" 2>/dev/null
	[ -n "${SIM_PID:-}" ] && sim_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset APENET_CONFIG
A="$BIN/apenet"
# snmpinform reads no site files and keeps its state here
export SNMPCONFPATH="$T/snmpconf" SNMP_PERSISTENT_DIR="$T/snmpcli" MIBS=""
mkdir -p "$T/snmpconf" "$T/snmpcli" "$T/rec"

cluster_site_key "$T"
cat >"$T/sup.yaml" <<Y
cluster:
  dims: 4x4x1
supervisor:
  batch_max_ms: 20
  log_level: info
  agentx: 0
  site_key: $SITE_KEY
Y
"$A" keys node 1,0,0 --site "$SITE_KEY" --out "$T/n100.key" >/dev/null || fail "keys node"
"$A" keys init --out "$T/other-site.key" >/dev/null || fail "keys init"
"$A" keys node 1,0,0 --site "$T/other-site.key" --out "$T/wrong.key" >/dev/null || fail "keys node (other site)"

base=$(( 20000 + ($$ * 13) % 30000 ))
sup_start() {
	for try in 1 2 3 4 5 6 7 8; do
		port=${PORT:-$((base + try * 11))}
		: >"$T/sup.log.$try"
		"$BIN/apenet-supervisor" --config "$T/sup.yaml" --foreground --listen "127.0.0.1:$port" \
			--db "$T/health.db" 2>"$T/sup.log.$try" &
		SUP_PID=$!
		if wait_for 20 grep -q "listening on" "$T/sup.log.$try" && kill -0 $SUP_PID 2>/dev/null; then
			PORT=$port
			LOG="$T/sup.log.$try"
			cat "$LOG" >>"$T/sup.log"
			return 0
		fi
		kill $SUP_PID 2>/dev/null
		wait $SUP_PID 2>/dev/null
		SUP_PID=""
		[ -n "${PORT:-}" ] && break
	done
	cat "$T"/sup.log.* >&2
	fail "the supervisor did not start"
}
sup_stop() { # the stop line's counters into $T/stop.N
	kill -TERM "$SUP_PID"
	wait "$SUP_PID"
	SUP_PID=""
	cat "$LOG" >"$T/stop.$1"
}

E=1.3.6.1.4.1.8072.9999.9999.65.1.1
NOTE=1.3.6.1.4.1.8072.9999.9999.65.0.1
# inform AUTH... -- X Y Z BOOT SEQ PATH VIA: one apenetHealthChange (a link
# of node X,Y,Z broken) with the snmpinform authentication options AUTH
inform() {
	auth=""
	while [ "$1" != -- ]; do auth="$auth $1"; shift; done
	shift
	to=${TO:-127.0.0.1:$PORT}
	# shellcheck disable=SC2086
	timeout 20 snmpinform $auth -r 0 -t 2 "$to" 0 "$NOTE" \
		"$E.1.0" u "$1" "$E.2.0" u "$2" "$E.3.0" u "$3" "$E.4.0" s "" "$E.5.0" s "$4" \
		"$E.6.0" C "$5" "$E.7.0" C "$(date +%s)000" "$E.8.0" i 2 "$E.9.0" s "X+" \
		"$E.10.0" s LINK_DOWN "$E.11.0" i 1 "$E.12.0" i 3 "$E.13.0" s "" "$E.14.0" s "" \
		"$E.15.0" s "" "$E.16.0" i "$6" "$E.17.0" s "$7" "$E.18.0" s "trust.sh $4/$5" >"$T/inform.out" 2>&1
}
v3() { # KEYFILE USER [LEVEL]: snmpinform's SNMPv3 options for that key file
	a=$(sed -n 's/^auth: sha256:/0x/p' "$1")
	p=$(sed -n 's/^priv: aes128:/0x/p' "$1")
	echo "-v3 -u $2 -l ${3:-authPriv} -a SHA-256 -3m $a -x AES -3M $p"
}
stored() { # BOOT SEQ: how many transitions of that boot and sequence the database holds
	"$A" db export --db "$T/health.db" 2>/dev/null |
		jq -s --arg b "$1" --argjson s "$2" '[.[] | select(.type == "transition" and .boot == $b and .seq == $s)] | length'
}
is_stored() { [ "$(stored "$1" "$2")" = "${3:-1}" ]; }

sup_start
GOOD=$(v3 "$T/n100.key" node-1,0,0)

# 1. node 1,0,0 with its key, through a relay that records the wire
"$RELAY" 0 "$PORT" "$T/rec" >"$T/relay.port" &
REL_PID=$!
wait_for 10 test -s "$T/relay.port" || fail "relay did not start"
TO=127.0.0.1:$(cat "$T/relay.port") inform $GOOD -- 1 0 0 "1,0,0#1" 1 1 "" ||
	fail "node 1,0,0's own report was not acknowledged: $(cat "$T/inform.out"; cat "$LOG")"
wait_for 20 is_stored "1,0,0#1" 1 || fail "node 1,0,0's report not stored"
# the INFORM on the wire: the largest datagram (the probe is bare)
CAP=$(ls -S "$T"/rec/* | head -1)
grep -q "node-1,0,0" "$CAP" || fail "the recording is not the INFORM"
! grep -q "trust.sh" "$CAP" || fail "the INFORM's content is readable on the wire (not encrypted)"

# 2. the same INFORM again, inside the window: stored once (the next report,
#    sent after it on the same socket, is stored when the replay was read)
"$RELAY" --send "$CAP" "$PORT" || fail "replay"
inform $GOOD -- 1 0 0 "1,0,0#1" 2 1 "" || fail "report 2: $(cat "$T/inform.out")"
wait_for 20 is_stored "1,0,0#1" 2 || fail "report 2 not stored"
is_stored "1,0,0#1" 1 || fail "the replayed INFORM stored $(stored "1,0,0#1" 1) times"

# 3. the outsider: a forged SNMPv2c INFORM with the shipped community
if inform -v2c -c public -- 1 0 0 "1,0,0#1" 3 1 ""; then
	fail "a forged SNMPv2c INFORM was acknowledged"
fi
grep -q "Timeout" "$T/inform.out" || fail "v2c: $(cat "$T/inform.out")"
# 4. a key from another site secret; an unknown user; authNoPriv
if inform $(v3 "$T/wrong.key" node-1,0,0) -- 1 0 0 "1,0,0#1" 4 1 ""; then fail "a wrong key was acknowledged"; fi
grep -q "Authentication failure" "$T/inform.out" || fail "wrong key: $(cat "$T/inform.out")"
if inform $(v3 "$T/n100.key" admin) -- 1 0 0 "1,0,0#1" 5 1 ""; then fail "an unknown user was acknowledged"; fi
grep -q "Unknown user name" "$T/inform.out" || fail "unknown user: $(cat "$T/inform.out")"
if inform $(v3 "$T/n100.key" node-1,0,0 authNoPriv) -- 1 0 0 "1,0,0#1" 6 1 ""; then
	fail "authNoPriv was acknowledged"
fi
grep -q "Unsupported security level" "$T/inform.out" || fail "authNoPriv: $(cat "$T/inform.out")"
# 5. node 1,0,0's key speaking for others: another's boot; itself about
#    another node; a neighbour's word through a link that does not lead there
if inform $GOOD -- 3 3 0 "3,3,0#1" 1 1 ""; then fail "node 1,0,0 spoke as 3,3,0"; fi
if inform $GOOD -- 3 3 0 "1,0,0#1" 7 1 ""; then fail "node 1,0,0 spoke for 3,3,0 (self path)"; fi
if inform $GOOD -- 3 0 0 "1,0,0#1" 8 2 "X+"; then fail "node 1,0,0 spoke for 3,0,0 through X+"; fi
# ...and the neighbour behind its X+ link (2,0,0) it may speak about
inform $GOOD -- 2 0 0 "1,0,0#1" 9 2 "X+" || fail "a neighbour's word was refused: $(cat "$T/inform.out")"
# and with wraparound: 1,0,0's X- neighbour is 0,0,0, its Y- neighbour 1,3,0
inform $GOOD -- 1 3 0 "1,0,0#1" 10 2 "Y-" || fail "a neighbour through Y- (wraparound) was refused"
wait_for 20 is_stored "1,0,0#1" 10 || fail "report 10 not stored"
for s in 3 4 5 6 7 8; do is_stored "1,0,0#1" $s 0 || fail "refused report $s was stored"; done
is_stored "3,3,0#1" 1 0 || fail "a report as 3,3,0 was stored"
is_stored "1,0,0#1" 9 || fail "report 9 not stored"
sup_stop 1
grep -q "SNMPv3: .*not authPriv 1, unknown user 1, wrong key 1, .*spoke for another node 3" "$T/stop.1" ||
	fail "run 1 counters: $(grep 'SNMPv3:' "$T/stop.1")"
grep -q "9 reports received, 4 stored, 1 duplicates, 0 rejected, 7 refused, 5 acknowledged" "$T/stop.1" || fail "run 1: $(grep 'stopped:' "$T/stop.1")"
grep -q "notification refused from .*: SNMPv2c, but the config says SNMPv3" "$T/stop.1" ||
	grep -q "refused.*SNMPv2c" "$T/stop.1" || fail "the v2c refusal is not logged: $(cat "$T/stop.1")"

# 6. after a restart the engine's boots moved on: the recording is stale
sup_start
"$RELAY" --send "$CAP" "$PORT" || fail "replay"
inform $GOOD -- 1 0 0 "1,0,0#1" 11 1 "" || fail "after the restart: $(cat "$T/inform.out")"
wait_for 20 is_stored "1,0,0#1" 11 || fail "report 11 not stored"
sup_stop 2
grep -q "outside the time window 1" "$T/stop.2" || fail "run 2: $(grep 'SNMPv3:' "$T/stop.2")"
is_stored "1,0,0#1" 1 || fail "the stale replay changed report 1"

# 7. rolling the keys (docs/security.md), without a restart: a new secret as
#    site_key, the old as site_key_previous, SIGHUP: both nodes' keys are
#    taken; then the previous one emptied, SIGHUP: the old key is refused
sup_start
"$A" keys init --out "$T/site-new.key" >/dev/null || fail "keys init (new)"
"$A" keys node 1,0,0 --site "$T/site-new.key" --out "$T/n100-new.key" >/dev/null || fail "keys node (new)"
NEW=$(v3 "$T/n100-new.key" node-1,0,0)
sed -i "s|^  site_key: .*|  site_key: $T/site-new.key\n  site_key_previous: $SITE_KEY|" "$T/sup.yaml"
kill -HUP "$SUP_PID"
wait_for 20 grep -q "reload: SNMPv3 site secrets (current and previous) read again" "$LOG" || fail "no reload: $(tail -3 "$LOG")"
inform $NEW -- 1 0 0 "1,0,0#1" 12 1 "" || fail "the new key during the roll: $(cat "$T/inform.out")"
inform $GOOD -- 1 0 0 "1,0,0#1" 13 1 "" || fail "the old key during the roll: $(cat "$T/inform.out")"
sed -i "/^  site_key_previous: /d" "$T/sup.yaml"
kill -HUP "$SUP_PID"
wait_for 20 sh -c "[ \$(grep -c 'site secret.* read again' '$LOG') -ge 2 ]" || fail "no second reload: $(tail -3 "$LOG")"
if inform $GOOD -- 1 0 0 "1,0,0#1" 14 1 ""; then fail "the old key was taken after the roll"; fi
grep -q "Authentication failure" "$T/inform.out" || fail "old key after the roll: $(cat "$T/inform.out")"
inform $NEW -- 1 0 0 "1,0,0#1" 15 1 "" || fail "the new key after the roll: $(cat "$T/inform.out")"
wait_for 20 is_stored "1,0,0#1" 15 || fail "report 15 not stored"
is_stored "1,0,0#1" 12 && is_stored "1,0,0#1" 13 && is_stored "1,0,0#1" 14 0 || fail "the roll's reports"
sup_stop r
SITE_KEY=$T/site-new.key
GOOD=$NEW
cp "$T/n100-new.key" "$T/n100.key.new" && mv "$T/n100.key.new" "$T/n100.key"

# 8. a real agent on node 0,0,0 given node 1,0,0's key: it says so at start,
#    and the supervisor refuses what it sends (another node's boot id)
sim_start "$T/sim" --dims 2x1x1
sup_start
mkdir -p "$T/ag"
cat >"$T/ag/agent.yaml" <<Y
agent:
  state_dir: $T/ag/state
  blackbox_dir: $T/ag/bb
  socket: $T/ag/sock
  edac_root: $T/ag/edac
  user: ""
  agentx: 0
supervisors:
  targets: ["127.0.0.1:$PORT"]
  key_file: $T/n100.key
  heartbeat_s: 0.5
Y
"$BIN/apenet-agent" --config "$T/ag/agent.yaml" --foreground --sim "$T/sim/node-0-0-0" 2>"$T/ag/log" &
AG=$!
wait_for 30 grep -q "key_file $T/n100.key is node-1,0,0's key, but this card is node 0,0,0" "$T/ag/log" ||
	fail "the agent did not say its key is another node's: $(cat "$T/ag/log")"
wait_for 30 grep -q "refused.*spoke for another node: node 1,0,0 sent a report of boot '0,0,0#" "$LOG" ||
	fail "the supervisor did not refuse it: $(tail -3 "$LOG")"
kill -TERM $AG
wait $AG
#    ... and node 1,0,0 given its own key says nothing of the kind (the
#    check runs once the card's coordinates are read); no supervisor
#    listens where it sends, so nothing it sends mixes with the above
mkdir -p "$T/ag1"
sed -e "s|$T/ag/|$T/ag1/|" -e "s|targets: .*|targets: [\"127.0.0.1:9\"]|" "$T/ag/agent.yaml" >"$T/ag1/agent.yaml"
"$BIN/apenet-agent" --config "$T/ag1/agent.yaml" --foreground --sim "$T/sim/node-1-0-0" 2>"$T/ag1/log" &
AG=$!
wait_for 30 grep -q "started on .*node 1,0,0" "$T/ag1/log" || fail "the agent on node 1,0,0 did not start: $(cat "$T/ag1/log")"
! grep -q "but this card is node" "$T/ag1/log" || fail "node 1,0,0 took its own key for another's: $(cat "$T/ag1/log")"
kill -TERM $AG
wait $AG
sim_stop
sup_stop 3
is_stored "0,0,0#1" 1 0 || fail "the wrong key's report was stored"

# 9. a key file others can read is refused where it is read
chmod 644 "$T/n100.key"
"$A" keys node 2,0,0 --site "$T/n100.key" --out "$T/x.key" 2>"$T/err" && fail "a 0644 file was read as a secret"
chmod 644 "$SITE_KEY"
"$A" keys node 2,0,0 --out "$T/x.key" --site "$SITE_KEY" 2>"$T/err"
[ $? -eq 2 ] && grep -q "mode 0644 lets others read or change a key" "$T/err" || fail "0644 secret: $(cat "$T/err")"
"$BIN/apenet-supervisor" --config "$T/sup.yaml" --foreground --listen "127.0.0.1:$PORT" --db "$T/health.db" 2>"$T/err"
[ $? -eq 2 ] && grep -q "site secret: .*mode 0644" "$T/err" || fail "supervisor with a 0644 secret: $(cat "$T/err")"
echo "trust: node key stored, replay in the window once, forged v2c / wrong key / unknown user / authNoPriv / 3 impersonations refused and counted, stale replay refused after a restart, keys rolled by SIGHUP, an agent with another node's key refused, open key files refused"
