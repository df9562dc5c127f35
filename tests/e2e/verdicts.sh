#!/bin/sh
# Every fault the emulator can inject gets its verdict on the right link, and
# a clean link stays ok: apenet status / link / cabling on a 4x4x1 torus,
# JSON parsed with jq, every wait a poll with a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-verdicts-XXXXXX)
trap 'sim_stop; rm -rf "$T"' EXIT
unset APENET_SIM_DIR APENET_CONFIG
sim_start "$T/sim" --dims 4x4x1 --seed 3
A="$BIN/apenet"
inject() { "$BIN/apenet-sim" inject --dir "$T/sim" "$@" >/dev/null || fail "inject $*"; }
node() { echo "$T/sim/node-$(echo "$1" | tr , -)"; }
# thresholds that make stale LDMs visible in a test's time
cat >"$T/fast.yaml" <<'Y'
thresholds:
  ldm_age_warn_ms: 100
  ldm_age_fail_ms: 300
Y
# link_code NODE LINK -> the verdict code of that link
link_code() { "$A" link --json --interval 0.3 --config "$T/fast.yaml" --sim "$(node "$1")" "$2" >"$T/l.json"; \
	jq -r '.links[0].verdict.code' "$T/l.json"; }
has_finding() { jq -e --arg c "$1" '[.links[0].verdict.code] + [.findings[].code] | index($c) != null' "$T/l.json" >/dev/null; }
link_is() { [ "$(link_code "$1" "$2")" = "$3" ]; }
all_ok() { "$A" link --json --interval 0.3 --config "$T/fast.yaml" --sim "$(node "$1")" >"$T/all.json" &&
	jq -e '[.links[].verdict.code] | all(. == "OK")' "$T/all.json" >/dev/null; }
status_has() { "$A" status --json --interval 0.4 --config "$T/fast.yaml" --sim "$(node "$1")" >"$T/s.json";
	jq -e --arg c "$2" '[.verdict.code] + [.findings[].code] | index($c) != null' "$T/s.json" >/dev/null; }

# A clean torus: every link of a node ok, exit 0, the link objects as documented.
wait_for 30 all_ok 1,0,0 || { cat "$T/all.json"; fail "clean node not ok"; }
"$A" link --json --sim "$(node 1,0,0)" >"$T/l.json"; [ $? -eq 0 ] || fail "clean link exit"
jq -e '.links | length == 6' "$T/l.json" >/dev/null || fail "6 links"
jq -e '.links[0] | has("name") and has("state") and (.partner | has("node") and has("link")) and
	(.verdict | has("severity") and has("code") and has("recommendation")) and (.lanes | length == 4)' "$T/l.json" >/dev/null ||
	fail "link object shape"
jq -e '.links[0].partner.node == {"x":2,"y":0,"z":0} and .links[0].partner.link == "X-"' "$T/l.json" >/dev/null || fail "partner"
jq -e '.links[0].rates.tx_MBps > 0 and .links[0].rates.model_max_MBps > 2100 and .links[0].rates.tx_MBps < .links[0].rates.model_max_MBps' \
	"$T/l.json" >/dev/null || fail "rates against the model"
"$A" status --json --sim "$(node 1,0,0)" >"$T/s.json"; [ $? -eq 0 ] || fail "clean status exit $?"
jq -e '.verdict.severity == "ok" and .ldm.valid and (.links | length == 6) and (.links[0] | has("rates") and has("verdict") and has("lanes")) and (.sensors | length >= 6)' "$T/s.json" >/dev/null || fail "status"

# cable-unplug: both ends LINK_DOWN, naming the far node
inject --node 1,0,0 cable-unplug --link X+
wait_for 30 link_is 1,0,0 X+ LINK_DOWN || fail "unplug: $(cat "$T/l.json")"
jq -e '.links[0].verdict.severity == "fail" and (.links[0].verdict.recommendation | test("node 2,0,0"))' "$T/l.json" >/dev/null || fail "unplug text"
wait_for 30 link_is 2,0,0 X- LINK_DOWN || fail "unplug far end"
"$A" link --sim "$(node 1,0,0)" X+ >/dev/null; [ $? -eq 1 ] || fail "a fault must exit 1"
link_is 1,0,0 X- OK || fail "unplug: X- not ok"
inject --node 1,0,0 clear
wait_for 30 link_is 1,0,0 X+ OK || fail "unplug cleared"

# cable-ber: CRC errors at the receiving end
inject --node 0,1,0 cable-ber --link Y+ --ber 1e-7
crc() { link_code 0,2,0 Y- >/dev/null; has_finding LINK_CRC; }
wait_for 30 crc || fail "cable-ber: $(cat "$T/l.json")"
inject --node 0,1,0 clear

# lane-dead: width degrade on that link
inject --node 2,0,0 lane-dead --link Y+ --lane 2
wait_for 30 link_is 2,0,0 Y+ LINK_DEGRADED || fail "lane-dead"
jq -e '.links[0].lanes[2].up == false and .links[0].lanes[0].up and (.links[0].verdict.message | test("lane 2"))' "$T/l.json" >/dev/null || fail "lane-dead lanes"
inject --node 2,0,0 clear
# repaired: the lane stays out until a realign brings it back
link_is 2,0,0 Y+ LINK_DEGRADED || fail "lane back without a realign"
"$A" realign Y+ --json --sim "$(node 2,0,0)" >"$T/r.json" || fail "realign exit"
jq -e '.link == "Y+"' "$T/r.json" >/dev/null || fail "realign output"
wait_for 30 link_is 2,0,0 Y+ OK || fail "realign: $(cat "$T/l.json")"
"$A" realign --sim "$(node 2,0,0)" 2>/dev/null; [ $? -eq 2 ] || fail "realign without a link"
"$A" clear-counters X+ --sim "$(node 2,0,0)" >/dev/null || fail "clear-counters"

# cable-swap: miscabled links, and cabling names exactly the swapped pair
inject --node 0,0,0 cable-swap --link X+ --with 0,0,0:X-
wait_for 30 link_is 0,0,0 X+ LINK_MISCABLED || fail "swap verdict"
cat >"$T/cluster.yaml" <<'Y'
cluster:
  dims: 4x4x1
  wraparound: true
Y
swap_listed() { "$A" cabling --json --config "$T/cluster.yaml" --sim-cluster "$T/sim" >"$T/c.json";
	jq -e '.problems | length == 1 and .[0].kind == "swapped" and
		.[0].a.node == {"x":0,"y":0,"z":0} and .[0].b.node == {"x":0,"y":0,"z":0} and
		([.[0].a.link, .[0].b.link] | sort == ["X+","X-"])' "$T/c.json" >/dev/null; }
wait_for 30 swap_listed || { cat "$T/c.json"; fail "cabling swap"; }
jq -e '[.findings[] | select(.subject == "cabling")] | length == 1 and .[0].code == "CABLE_SWAPPED" and .[0].severity == "fail"' \
	"$T/c.json" >/dev/null || fail "cabling finding: $(jq -c .findings "$T/c.json")"
# no config: the torus the boards declare, and the same one record
"$A" cabling --json --sim-cluster "$T/sim" >"$T/c0.json"; [ $? -eq 1 ] || fail "cabling without config: exit"
jq -e '.summary.torus == "4x4x1" and .summary.torus_from == "boards" and (.problems | length == 1) and
	.problems[0].kind == "swapped" and ([.problems[0].a.link, .problems[0].b.link] | sort == ["X+","X-"])' "$T/c0.json" >/dev/null ||
	fail "cabling without config: $(cat "$T/c0.json")"
# names from the config show in the records
printf 'cluster:\n  dims: 4x4x1\n  nodes:\n    - { name: quong01, node: "0,0,0" }\n' >"$T/named.yaml"
"$A" cabling --json --config "$T/named.yaml" --sim-cluster "$T/sim" >"$T/cn.json"
jq -e '.problems[0].a.name == "quong01" and (.problems[0].text | test("quong01 0,0,0 X\\+"))' "$T/cn.json" >/dev/null || fail "named: $(cat "$T/cn.json")"
# the same from snapshot files gathered from every node
mkdir "$T/snaps"
for d in "$T"/sim/node-*; do "$A" snapshot --interval 0 --sim "$d" >"$T/snaps/${d##*/}.json" || fail "snapshot $d"; done
"$A" cabling --json --config "$T/cluster.yaml" "$T"/snaps/*.json >"$T/c2.json"; [ $? -eq 1 ] || fail "cabling exit"
jq -e '[.problems[] | select(.kind == "swapped")] | length == 1' "$T/c2.json" >/dev/null || fail "cabling from files"
"$A" cabling --json "$T"/snaps/*.json >"$T/c2.json"; [ $? -eq 1 ] || fail "cabling from files without config: exit"
jq -e '.summary.torus_from == "boards" and (.problems | length == 1) and .problems[0].kind == "swapped"' "$T/c2.json" >/dev/null ||
	fail "cabling from files without config"
# a node's file left out: that node is unreachable, nothing else
"$A" cabling --json $(ls "$T"/snaps/*.json | grep -v node-2-2-0) >"$T/c4.json"; [ $? -eq 1 ] || fail "missing file: exit"
jq -e '[.problems[] | select(.kind == "unreachable")] | length == 1 and .[0].a.node == {"x":2,"y":2,"z":0}' "$T/c4.json" >/dev/null ||
	fail "missing file: $(cat "$T/c4.json")"
inject --node 0,0,0 cable-swap --link X+ --with 0,0,0:X-
cabling_clean() { "$A" cabling --json --config "$T/cluster.yaml" --sim-cluster "$T/sim" >"$T/c.json"; }
wait_for 30 cabling_clean || { cat "$T/c.json"; fail "cabling after unswap"; }
jq -e '.problems == [] and .summary.cables_ok == 48' "$T/c.json" >/dev/null || fail "clean cabling"
# a config that disagrees with what the boards say about the torus is a problem too
printf 'cluster:\n  dims: 4x4x2\n  wraparound: true\n' >"$T/cluster2.yaml"
"$A" cabling --json --config "$T/cluster2.yaml" --sim-cluster "$T/sim" >"$T/c3.json"; [ $? -eq 1 ] || fail "layout mismatch exit"
jq -e '[.problems[] | select(.kind == "layout")] | length == 16' "$T/c3.json" >/dev/null || fail "layout mismatch"
jq -e '[.findings[] | select(.code == "TORUS_LAYOUT")] | length == 16' "$T/c3.json" >/dev/null || fail "layout findings"

# dnp-hang: the node says DNP_HUNG, its neighbour sees its LDMs go stale
inject --node 3,3,0 dnp-hang
wait_for 30 status_has 3,3,0 DNP_HUNG || fail "dnp-hang status: $(cat "$T/s.json")"
wait_for 30 link_is 0,3,0 X- LDM_STALE || fail "stale LDM at the neighbour"
inject --node 3,3,0 clear

# overheat and voltage droop: warn, then fail
inject --node 1,1,0 overheat --celsius 88
wait_for 30 status_has 1,1,0 FPGA_TEMP || fail "overheat"
jq -e '[.findings[] | select(.code == "FPGA_TEMP")][0].severity == "warn" or (.verdict.code == "FPGA_TEMP" and .verdict.severity == "warn")' "$T/s.json" >/dev/null || fail "overheat warn"
inject --node 1,1,0 voltage-droop --percent 10
wait_for 30 status_has 1,1,0 VCORE_LOW || fail "droop"
jq -e '.verdict.severity == "fail"' "$T/s.json" >/dev/null || fail "droop fail"
inject --node 1,1,0 clear

# pcie-degrade: the status says so
inject --node 2,2,0 pcie-degrade --width 4 --gen 1
status_has 2,2,0 PCIE_DEGRADED || fail "pcie-degrade"
inject --node 2,2,0 clear

# dnp-hang: actions are not acknowledged, and the tool says so
inject --node 3,2,0 dnp-hang
"$A" realign X+ --sim "$(node 3,2,0)" 2>"$T/err"; [ $? -eq 2 ] && grep -q "not acknowledged" "$T/err" || fail "hung realign"
inject --node 3,2,0 clear

# card-gone: every command says so and exits 2
inject --node 3,0,0 card-gone
for cmd in status link snapshot realign; do
	"$A" $cmd --sim "$(node 3,0,0)" $([ $cmd = realign ] && echo X+) >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] && grep -q "card not responding" "$T/err" && [ ! -s "$T/out" ] || fail "card-gone $cmd: $rc $(cat "$T/err")"
done
inject --node 3,0,0 clear

# the clean nodes stayed ok through all this
wait_for 30 all_ok 1,2,0 || fail "clean node after faults: $(cat "$T/all.json")"
echo "verdicts: all checks passed"
