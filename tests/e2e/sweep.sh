#!/bin/sh
# apenet sweep on the emulator: an 8 m copper cable on 0,0,0 X+ fails 1e-12
# at the default PMA settings (the model puts it near 2e-10); then
#  - an exhaustive sweep of this end's receiver (rxeq x dcgain) measures
#    every point of the grid, writes the CSV and the SVG heat map, finds a
#    setting below the target, and puts the link back as it was;
#  - an adaptive sweep that also sets the far end's transmitter (pre,
#    through the remote window) measures a fraction of its grid, and with
#    --apply leaves its choice on both ends: `apenet ber` then passes;
#  - Ctrl-C in the middle: exit 2, the link back at its settings and up;
#  - a point the link cannot align at is dropped and the sweep goes on;
#  - a sweep longer than --max-time is refused before it writes anything;
#  - the progress line shows on a terminal only;
#  - bad arguments: exit 2 with the problem named.
# BER_ACCEL 10000 and 2 ms ticks keep a point to a fraction of a second.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-sweep-XXXXXX)
trap 'sim_stop; rm -rf "$T"' EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
cat >"$T/sim.yaml" <<EOF
dims: 4x1x1
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
F="$T/sim/node-1-0-0"
state() { "$A" link --json --sim "$1" 2>/dev/null | jq -r --arg l "$2" '.links[] | select(.name == $l) | .state'; }
up() { [ "$(state "$N" X+)" = up ] && [ "$(state "$F" X-)" = up ]; }
# every lane's PMA settings of a link, one line
pma() { "$A" link --json --sim "$1" 2>/dev/null | jq -c --arg l "$2" '[.links[] | select(.name == $l) | .lanes[].pma]'; }
wait_for 60 up || fail "X+ never came up"
near0=$(pma "$N" X+)
far0=$(pma "$F" X-)
echo "$near0" | jq -e 'all(.[]; .rxeq == 4 and .dcgain == 1)' >/dev/null || fail "defaults: $near0"

"$A" ber --link X+ --sim "$N" --json </dev/null >"$T/before.json" 2>/dev/null
[ $? -eq 1 ] || fail "the 8 m cable passes at the defaults: $(cat "$T/before.json")"

# --- exhaustive, this end's receiver
"$A" sweep --link X+ --sim "$N" --json --strategy exhaustive --params rxeq,dcgain \
	--range rxeq=4:10 --range dcgain=1:3 --out "$T/ex" </dev/null >"$T/ex.json" 2>"$T/ex.err"
rc=$?
[ $rc -eq 0 ] || fail "exhaustive: exit $rc: $(cat "$T/ex.err") $(cat "$T/ex.json")"
jq -e '.command == "sweep" and .strategy == "exhaustive" and .grid_points == 21 and .points_measured == 21 and
	.chosen.upper < 1e-12 and .chosen.rxeq >= 5 and .chosen.dcgain >= 2 and
	.start.rxeq == 4 and .start.dcgain == 1 and .start.lower > 1e-12 and
	.accelerated == 10000 and .verdict == "pass" and (.applied | startswith("no"))' "$T/ex.json" >/dev/null ||
	fail "exhaustive: $(cat "$T/ex.json")"
[ "$(wc -l <"$T/ex/points.csv")" -eq 22 ] || fail "points.csv: $(cat "$T/ex/points.csv")"
head -1 "$T/ex/points.csv" | grep -q '^vod,pre,post1,post2,rxeq,dcgain,bits,errors,ber,upper,lower,level$' ||
	fail "points.csv header"
grep -q '</svg>' "$T/ex/heatmap-rxeq-dcgain.svg" && [ "$(grep -c '<rect ' "$T/ex/heatmap-rxeq-dcgain.svg")" -eq 21 ] ||
	fail "heat map: $(cat "$T/ex/heatmap-rxeq-dcgain.svg")"
# the text form has the heat map
"$A" sweep --link X+ --sim "$N" --strategy exhaustive --params rxeq,dcgain --range rxeq=4:5 --range dcgain=1:2 \
	--dwell-bits 3e10 </dev/null >"$T/ex.txt" 2>/dev/null
grep -q 'dcgain (down) x rxeq (across)' "$T/ex.txt" || fail "text heat map: $(cat "$T/ex.txt")"
# put back: the settings as they were, the link up
wait_for 30 up || fail "exhaustive: the link is not back up"
[ "$(pma "$N" X+)" = "$near0" ] && [ "$(pma "$F" X-)" = "$far0" ] || fail "exhaustive: not put back: $(pma "$N" X+)"

# --- adaptive, the far transmitter too, applied
"$A" sweep --link X+ --sim "$N" --json --strategy adaptive --params pre,rxeq,dcgain --range rxeq=2:12 \
	--apply </dev/null >"$T/ad.json" 2>"$T/ad.err"
rc=$?
[ $rc -eq 0 ] || fail "adaptive: exit $rc: $(cat "$T/ad.err") $(cat "$T/ad.json")"
jq -e '.strategy == "adaptive" and .grid_points == 8 * 11 * 5 and .points_measured < .grid_points and
	.chosen.upper < 1e-12 and .applied == "yes"' "$T/ad.json" >/dev/null || fail "adaptive: $(cat "$T/ad.json")"
pre=$(jq .chosen.pre "$T/ad.json")
rxeq=$(jq .chosen.rxeq "$T/ad.json")
dcgain=$(jq .chosen.dcgain "$T/ad.json")
wait_for 30 up || fail "adaptive: the link is not up with its setting"
pma "$N" X+ | jq -e --argjson r "$rxeq" --argjson d "$dcgain" 'all(.[]; .rxeq == $r and .dcgain == $d)' >/dev/null ||
	fail "adaptive: this end's receiver is not the choice: $(pma "$N" X+)"
pma "$F" X- | jq -e --argjson p "$pre" 'all(.[]; .pre == $p)' >/dev/null ||
	fail "adaptive: the far transmitter is not the choice: $(pma "$F" X-)"
"$A" ber --link X+ --sim "$N" --json </dev/null >"$T/after.json" 2>"$T/after.err" ||
	fail "after --apply, the link does not pass: $(cat "$T/after.json" "$T/after.err")"

# --- --save: the choice as a preset; an agent on the far node (the
# transmitter of this direction) applies its half at start
mkdir -p "$T/pma.d" "$T/ag"
cat >"$T/ag.yaml" <<EOF
agent:
  state_dir: $T/ag/state
  blackbox_dir: $T/ag/bb
  socket: $T/ag/sock
  edac_root: $T/ag/edac
  user: ""
  pma_presets_dir: $T/pma.d
supervisors:
  targets: []
EOF
"$A" sweep --link X+ --sim "$N" --json --strategy exhaustive --params pre,rxeq --range pre=6:6 --range rxeq=9:9 \
	--dwell-bits 3e10 --save x0-xplus --config "$T/ag.yaml" </dev/null >"$T/save.json" 2>"$T/save.err"
[ $? -le 1 ] || fail "--save: $(cat "$T/save.err")"
jq -e --arg p "$T/pma.d/x0-xplus.yaml" '.saved == $p' "$T/save.json" >/dev/null || fail "--save: $(cat "$T/save.json")"
grep -q '^name: x0-xplus$' "$T/pma.d/x0-xplus.yaml" && grep -q 'node: "1,0,0"' "$T/pma.d/x0-xplus.yaml" &&
	grep -q '  pre: 6$' "$T/pma.d/x0-xplus.yaml" && grep -q '  rxeq: 9$' "$T/pma.d/x0-xplus.yaml" ||
	fail "preset: $(cat "$T/pma.d/x0-xplus.yaml")"
printf 'name: broken\nlanes: "0,9"\n' >"$T/pma.d/broken.yaml" # logged and skipped, not fatal
wait_for 30 up || fail "--save: the link is not back up"
"$BIN/apenet-agent" --config "$T/ag.yaml" --foreground --sim "$F" 2>"$T/ag/log" &
AGP=$!
applied() { "$A" agent-status --socket "$T/ag/sock" --json 2>/dev/null | jq -e '.agent.pma_presets == 1' >/dev/null; }
wait_for 30 applied || { kill $AGP; fail "the agent did not apply the preset: $(cat "$T/ag/log")"; }
pma "$F" X- | jq -e 'all(.[]; .pre == 6)' >/dev/null || { kill $AGP; fail "far TX not from the preset: $(pma "$F" X-)"; }
grep -q "broken.yaml:2:.*lanes" "$T/ag/log" || { kill $AGP; fail "the bad preset was not named: $(cat "$T/ag/log")"; }
kill -TERM $AGP
wait $AGP

# --- Ctrl-C: put back, exit 2
nearA=$(pma "$N" X+)
farA=$(pma "$F" X-)
"$A" sweep --link X+ --sim "$N" --strategy exhaustive --params vod,rxeq --dwell-bits 3e11 </dev/null \
	>"$T/int.out" 2>"$T/int.err" &
P=$!
moved() { [ "$(pma "$N" X+)" != "$nearA" ] || [ "$(pma "$F" X-)" != "$farA" ]; }
wait_for 30 moved || fail "Ctrl-C: the sweep never set a point"
kill -INT $P
wait $P
rc=$?
[ $rc -eq 2 ] || fail "Ctrl-C: exit $rc: $(cat "$T/int.err")"
grep -q 'interrupted' "$T/int.err" || fail "Ctrl-C: $(cat "$T/int.err")"
wait_for 30 up || fail "Ctrl-C: the link is not back up"
[ "$(pma "$N" X+)" = "$nearA" ] && [ "$(pma "$F" X-)" = "$farA" ] ||
	fail "Ctrl-C: not put back: $(pma "$N" X+) $(pma "$F" X-)"

# --- points the link cannot align at (far pre-tap 0, this receiver at rxeq
# 0..1 and dcgain 4; the preset above left the far pre-tap at 6):
# dropped, the sweep goes on, and the link is back at its settings (such a
# point ended the README's sweep with exit 2 and the link left down)
nearA=$(pma "$N" X+)
farA=$(pma "$F" X-)
"$A" sweep --link X+ --sim "$N" --json --strategy exhaustive --params pre,rxeq,dcgain --range pre=0:0 \
	--range rxeq=0:1 --range dcgain=4:4 --dwell-bits 3e10 </dev/null >"$T/un.json" 2>"$T/un.err"
rc=$?
[ $rc -le 1 ] || fail "unalignable point: exit $rc: $(cat "$T/un.err")"
jq -e '.points_measured == 2 and .points_dropped == 2 and .verdict == "fail"' "$T/un.json" >/dev/null || fail "unalignable: $(cat "$T/un.json")"
wait_for 30 up || fail "unalignable: the link is not back up"
[ "$(pma "$N" X+)" = "$nearA" ] && [ "$(pma "$F" X-)" = "$farA" ] ||
	fail "unalignable: not put back: $(pma "$N" X+) $(pma "$F" X-)"

# --- what a sweep costs is said before anything is written: the default
# (every parameter, the zero-error dwell) takes days of test time a lane
"$A" sweep --link X+ --sim "$N" --max-time 600 </dev/null >"$T/long.out" 2>"$T/long.err"
rc=$?
[ $rc -eq 2 ] && grep -q 'needs about' "$T/long.err" && grep -q -- '--params' "$T/long.err" &&
	grep -q -- '--max-time [0-9]' "$T/long.err" || fail "too long: exit $rc: $(cat "$T/long.err")"
[ "$(pma "$N" X+)" = "$nearA" ] && [ "$(pma "$F" X-)" = "$farA" ] || fail "too long: a setting was written"

# --- progress: one line on a terminal (done %, elapsed, ETA), nothing on a
# pipe or a file, nothing with --json
script -qec "'$A' sweep --link X+ --sim '$N' --strategy exhaustive --params rxeq --range rxeq=4:7 --dwell-bits 3e10 >/dev/null" \
	"$T/tty.log" </dev/null >/dev/null 2>&1
grep -q 'apenet sweep: .*% elapsed .*, ETA ' "$T/tty.log" || fail "no progress on a terminal: $(cat -v "$T/tty.log")"
"$A" sweep --link X+ --sim "$N" --strategy exhaustive --params rxeq --range rxeq=4:7 --dwell-bits 3e10 </dev/null \
	>/dev/null 2>"$T/pipe.err" || true
[ ! -s "$T/pipe.err" ] || fail "progress on a pipe: $(cat "$T/pipe.err")"
wait_for 30 up || fail "progress: the link is not back up"

# --- bad arguments
"$A" sweep --sim "$N" --strategy exhaustive 2>"$T/e1"; [ $? -eq 2 ] && grep -q 'which link' "$T/e1" || fail "no --link"
"$A" sweep --link X+ --sim "$N" --range rxeq=0:99 2>"$T/e2"; [ $? -eq 2 ] && grep -q 'rxeq goes 0..15' "$T/e2" ||
	fail "range: $(cat "$T/e2")"
"$A" sweep --link X+ --sim "$N" --strategy greedy 2>"$T/e3"; [ $? -eq 2 ] && grep -q "exhaustive or adaptive" "$T/e3" ||
	fail "strategy: $(cat "$T/e3")"
"$A" sweep --link X+ --sim "$N" --params vod,gain 2>"$T/e4"; [ $? -eq 2 ] && grep -q "'gain' is not" "$T/e4" ||
	fail "params: $(cat "$T/e4")"
"$A" sweep --link X+ --sim "$N" --heatmap vod 2>"$T/e5"; [ $? -eq 2 ] && grep -q "two parameters" "$T/e5" ||
	fail "heatmap: $(cat "$T/e5")"
"$A" sweep --link Q+ --sim "$N" 2>"$T/e6"; [ $? -eq 2 ] && grep -q "no link 'Q+'" "$T/e6" || fail "link: $(cat "$T/e6")"
echo "sweep: ok"
