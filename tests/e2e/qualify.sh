#!/bin/sh
# apenet qualify and apenet cable on the emulator (a real sqlite health
# database in a temporary directory):
#  - a good 2 m cable (0,0,0 Y+) qualifies as found: no sweep, a passing
#    certificate keyed to its module's serial number;
#  - an 8 m cable (0,0,0 X+) fails at the defaults in both directions: each
#    direction is swept (far TX + this RX in, this TX + far RX out), the
#    choices applied, the cable certified; `apenet ber --both-ends` agrees;
#  - the 2 m cable with an injected BER and --no-sweep: a failing
#    certificate (exit 1), and `apenet cable` shows its history newest first
#    (latest fail: exit 1; its times in ISO 8601), the 8 m cable's (latest
#    pass: exit 0);
#  - bad input: exit 2 naming the problem.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-qualify-XXXXXX)
trap 'sim_stop; rm -rf "$T"' EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
cat >"$T/sim.yaml" <<EOF
dims: 4x2x1
variant: apenet+
seed: 3
ber_accel: 10000
tick_ms: 2
cables:
  - node: 0,0,0
    link: X+
    kind: copper
    length: 8
EOF
sim_start "$T/sim" --config "$T/sim.yaml"
N="$T/sim/node-0-0-0"
DB="$T/health.db"
serial() { "$A" module --json --sim "$N" "$1" 2>/dev/null | jq -r '.modules[0].vendor.serial'; }
# up, and for 3 s: a link just trained may train again once on a loaded
# machine, and qualify refuses a link that is not up
up() { "$A" link --json --sim "$N" 2>/dev/null | jq -e '[.links[] | select(.name == "X+" or .name == "Y+") |
	select(.state == "up" and .up_for_s >= 3)] | length == 2' >/dev/null; }
wait_for 60 up || fail "links never came up"
SX=$(serial X+)
SY=$(serial Y+)
[ -n "$SX" ] && [ "$SX" != null ] && [ -n "$SY" ] && [ "$SX" != "$SY" ] || fail "module serials: '$SX' '$SY'"

# --- a good cable, as found
"$A" qualify --link Y+ --db "$DB" --sim "$N" --json </dev/null >"$T/y.json" 2>"$T/y.err"
rc=$?
[ $rc -eq 0 ] || fail "Y+: exit $rc: $(cat "$T/y.err") $(cat "$T/y.json")"
jq -e --arg s "$SY" '.command == "qualify" and .verdict == "pass" and (.links | length) == 1 and
	.links[0].cable.serial == $s and .links[0].swept == "no" and .links[0].as_found.verdict == "pass" and
	.links[0].certificate.verdict == "pass" and .links[0].certificate.upper < 1e-12 and
	.links[0].far_node == "0,1,0"' "$T/y.json" >/dev/null || fail "Y+: $(cat "$T/y.json")"

# --- a test cut short proves nothing either way: inconclusive (exit 3), a
# certificate that says so, how many more bits and how long, and never
# "replace the cable" (a 0.1 s test of the good cable at 1e-14)
"$A" qualify --link Y+ --db "$DB" --sim "$N" --json --no-sweep --max-time 0.1 --target 1e-14 </dev/null \
	>"$T/yi.json" 2>"$T/yi.err"
rc=$?
[ $rc -eq 3 ] || fail "Y+ cut short: exit $rc, expected 3: $(cat "$T/yi.err") $(cat "$T/yi.json")"
jq -e '.verdict == "inconclusive" and .links[0].certificate.verdict == "inconclusive" and .links[0].swept == "no" and
	([.findings[] | select(.code == "CABLE_NOT_QUALIFIED")] | length) == 0 and
	([.findings[] | select(.code == "CABLE_INCONCLUSIVE" and .severity == "warn" and .value > 0 and
	(.message | test("more bits a lane")) and (.recommendation | test("replace") | not))] | length) == 1' \
	"$T/yi.json" >/dev/null || fail "Y+ cut short: $(cat "$T/yi.json")"
"$A" qualify --link Y+ --db "$DB" --sim "$N" --no-sweep --max-time 0.1 --target 1e-14 </dev/null >"$T/yi.txt" 2>&1
! grep -qi 'replace the cable' "$T/yi.txt" || fail "Y+ cut short says replace: $(cat "$T/yi.txt")"

# --- the 8 m cable: both directions swept, then certified
# The sweep: a small grid where every point is well under the target on
# every lane of the emulated 8 m cable (pre 3..4, rxeq 8..9, dcgain 3..4:
# 3e-16..5e-15 on the worst of 64 lane seeds, from the channel model), at ten
# times the zero-error dwell. Why so tight: the certificate judges the far
# direction once, at the length the near one needed (the far checkers are
# read after the run), so a setting near 1e-13 gives a far lane an error in
# ~3e12 bits often enough to leave the certificate inconclusive; and a wide
# grid at the minimum dwell could pick a point near 1e-12 by luck.
# --max-time: a near lane that sees an error needs ~5e12 bits, more than the
# default 10 s give an emulator slowed by the sanitizers.
"$A" qualify --link X+ --db "$DB" --sim "$N" --json --params pre,rxeq,dcgain --range pre=3:4 --range rxeq=8:9 --range dcgain=3:4 \
	--dwell-bits 30000000000000 --max-time 300 </dev/null >"$T/x.json" 2>"$T/x.err"
rc=$?
[ $rc -eq 0 ] || fail "X+: exit $rc: $(cat "$T/x.err") $(cat "$T/x.json")"
jq -e --arg s "$SX" '.links[0].cable.serial == $s and .links[0].cable.length_m == 8 and
	.links[0].as_found.verdict == "fail" and .links[0].swept == "yes" and
	(.links[0].sweep_in | length) > 0 and (.links[0].sweep_out | length) > 0 and
	.links[0].certificate.verdict == "pass" and .links[0].certificate.upper < 1e-12' "$T/x.json" >/dev/null ||
	fail "X+: $(cat "$T/x.json")"
"$A" ber --link X+ --both-ends --sim "$N" --json </dev/null >"$T/xber.json" 2>/dev/null ||
	fail "X+ after qualify: $(cat "$T/xber.json")"
"$A" cable "$SX" --db "$DB" --json >"$T/cx.json" 2>"$T/cx.err"
rc=$?
[ $rc -eq 0 ] || fail "cable $SX: exit $rc: $(cat "$T/cx.err")"
jq -e --arg s "$SX" '.command == "cable" and .serial == $s and .length_m == 8 and (.ends | length) == 2 and
	(.certificates | length) == 1 and .certificates[0].verdict == "pass" and .certificates[0].swept == "yes" and
	.certificates[0].link == "X+" and .certificates[0].far_link == "X-" and .latest == "pass"' "$T/cx.json" >/dev/null ||
	fail "cable $SX: $(cat "$T/cx.json")"

# --- the good cable goes bad: a failing certificate, the history
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 cable-ber --link Y+ --ber 1e-10 >/dev/null || fail "inject"
"$A" qualify --link Y+ --db "$DB" --sim "$N" --json --no-sweep </dev/null >"$T/y2.json" 2>"$T/y2.err"
rc=$?
[ $rc -eq 1 ] || fail "Y+ bad: exit $rc, expected 1: $(cat "$T/y2.err") $(cat "$T/y2.json")"
jq -e '.verdict == "fail" and .links[0].certificate.verdict == "fail" and .links[0].swept == "no" and
	([.findings[] | select(.code == "CABLE_NOT_QUALIFIED")] | length) == 1' "$T/y2.json" >/dev/null ||
	fail "Y+ bad: $(cat "$T/y2.json")"
"$A" cable "$SY" --db "$DB" --json >"$T/cy.json" 2>/dev/null
rc=$?
[ $rc -eq 1 ] || fail "cable $SY: exit $rc, expected 1"
jq -e '(.certificates | length) == 4 and .certificates[0].verdict == "fail" and
	.certificates[1].verdict == "inconclusive" and .certificates[2].verdict == "inconclusive" and
	.certificates[3].verdict == "pass" and .certificates[0].id > .certificates[1].id and .latest == "fail"' "$T/cy.json" >/dev/null || fail "cable $SY: $(cat "$T/cy.json")"
# times: UTC ISO 8601 (the same instant as the epoch ms JSON gives beside it); text shows no epoch ms
iso='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$'
jq -e --arg re "$iso" 'def same($t; $ms): ($t | test($re)) and ($t[0:19] + "Z") == ($ms / 1000 | floor | todate) and
	($t[20:23] | tonumber) == $ms % 1000;
	same(.first_seen; .first_seen_ms) and same(.last_seen; .last_seen_ms) and
	all(.certificates[]; same(.started; .started_ms) and same(.finished; .finished_ms)) and
	all(.faults[]; same(.time; .time_ms))' "$T/cy.json" >/dev/null || fail "cable $SY: times: $(cat "$T/cy.json")"
"$A" cable "$SY" --db "$DB" >"$T/cy.txt"
grep -Eq '^first_seen: +[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$' "$T/cy.txt" ||
	fail "cable $SY: text times: $(cat "$T/cy.txt")"
for ms in $(jq '.. | objects | to_entries[] | select(.key | endswith("_ms")) | .value' "$T/cy.json"); do
	! grep -q "$ms" "$T/cy.txt" || fail "cable $SY: text shows epoch ms $ms: $(cat "$T/cy.txt")"
done
"$A" db check --db "$DB" >/dev/null || fail "db check after qualify"

# --- bad input
"$A" cable NOPE --db "$DB" 2>"$T/e1"; [ $? -eq 2 ] && grep -q "no cable 'NOPE'" "$T/e1" || fail "unknown cable: $(cat "$T/e1")"
"$A" qualify --db "$DB" --sim "$N" 2>"$T/e2"; [ $? -eq 2 ] && grep -q -- "--link L or --all" "$T/e2" || fail "no link: $(cat "$T/e2")"
"$A" qualify --link X+ --db "$DB" --sim "$N" --range vod=0:99 2>"$T/e3"; [ $? -eq 2 ] && grep -q "vod goes 0..7" "$T/e3" ||
	fail "range: $(cat "$T/e3")"
"$A" cable --db "$DB" 2>"$T/e4"; [ $? -eq 2 ] && grep -q "which cable" "$T/e4" || fail "no serial: $(cat "$T/e4")"
echo "qualify: ok"
