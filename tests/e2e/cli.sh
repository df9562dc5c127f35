#!/bin/sh
# The command-line tools against the real emulator: JSON parsed with jq, the
# PCI view compared with the real lspci, exit codes and error messages.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-cli-XXXXXX)
trap 'sim_stop; rm -rf "$T"' EXIT
unset APENET_SIM_DIR

# The real bus of this machine has no card: a clear message and exit 2.
"$BIN/apenet" list >"$T/out" 2>"$T/err" && fail "apenet list found a card on the real bus"
[ $? -eq 2 ] || fail "apenet list on the real bus: exit not 2"
grep -q "no APEnet card found" "$T/err" || fail "real bus message: $(cat "$T/err")"

sim_start "$T/sim" --dims 4x4x1
N="$T/sim/node-1-0-0"

# apenet list --json: the card through libpci's dump method
"$BIN/apenet" list --json --sim "$N" >"$T/list.json" || fail "apenet list --json exit $?"
[ "$(jq -r .schema "$T/list.json")" = "apenet-diag/2" ] || fail "schema"
[ "$(jq -r '.cards | length' "$T/list.json")" = 1 ] || fail "cards length"
[ "$(jq -r '.cards[0].bdf' "$T/list.json")" = "0000:03:00.0" ] || fail "bdf"
[ "$(jq -r '.cards[0].variant' "$T/list.json")" = "apenet+" ] || fail "variant"
[ "$(jq -r '.cards[0].node | "\(.x),\(.y),\(.z)"' "$T/list.json")" = "1,0,0" ] || fail "node"
[ "$(jq -r '.cards[0].pcie.degraded' "$T/list.json")" = false ] || fail "degraded"

# The real lspci reads the same dump file and shows the same link.
pcie_matches() {
	sta=$(lspci -F "$N/pci.lspci" -vv 2>/dev/null | sed -n 's/^[[:space:]]*LnkSta:[[:space:]]*//p')
	cap=$(lspci -F "$N/pci.lspci" -vv 2>/dev/null | sed -n 's/^[[:space:]]*LnkCap:.*\(Speed [^,]*\), \(Width x[0-9]*\).*/\1, \2/p')
	js=$(jq -r '.cards[0].pcie.trained | "Speed \(.speed)\(if $d then " (downgraded)" else "" end), Width x\(.width)"' \
		--argjson d "$2" "$1")
	jc=$(jq -r '.cards[0].pcie.capable | "Speed \(.speed), Width x\(.width)"' "$1")
	echo "lspci: LnkSta '$sta' LnkCap '$cap'; apenet: '$js' / '$jc'"
	case "$sta" in "$js"*) ;; *) return 1 ;; esac
	[ "$cap" = "$jc" ]
}
pcie_matches "$T/list.json" false || fail "lspci and apenet list disagree"

"$BIN/apenet-sim" inject --dir "$T/sim" --node 1,0,0 pcie-degrade --width 4 --gen 1 >/dev/null || fail "inject"
"$BIN/apenet" list --json --sim "$N" >"$T/list2.json"
[ $? -eq 1 ] || fail "a degraded PCIe link must exit 1"
[ "$(jq -r '.cards[0].pcie.degraded' "$T/list2.json")" = true ] || fail "degraded flag"
jq -e '.cards[0].pcie.trained.width == 4 and .cards[0].pcie.trained.gen == 1' "$T/list2.json" >/dev/null || fail "trained"
# lspci marks each downgraded field itself; compare speed and width separately
sta=$(lspci -F "$N/pci.lspci" -vv 2>/dev/null | sed -n 's/^[[:space:]]*LnkSta:[[:space:]]*//p')
echo "$sta" | grep -q "Speed 2.5GT/s (downgraded), Width x4 (downgraded)" || fail "lspci LnkSta: $sta"
"$BIN/apenet-sim" inject --dir "$T/sim" --node 1,0,0 clear >/dev/null || fail "clear"

# apenet regs, through APENET_SIM_DIR this time
APENET_SIM_DIR=$N "$BIN/apenet" regs --json >"$T/regs.json" || fail "regs exit $?"
[ "$(jq -r '.links | length' "$T/regs.json")" = 6 ] || fail "regs links"
[ "$(jq -r '.global[] | select(.name == "ID_MAGIC") | .value' "$T/regs.json")" = 1095781972 ] || fail "magic"
[ "$(jq -r '.links[0].lanes | length' "$T/regs.json")" = 4 ] || fail "lanes"
[ "$(jq -r '.modules[0].registers[] | select(.name == "EE_STATUS") | .value' "$T/regs.json")" != 0 ] || fail "module"
APENET_SIM_DIR=$N "$BIN/apenet" regs --csv >"$T/regs.csv" || fail "regs csv"
grep -q '^name,offset,value,access,unit,fields$' "$T/regs.csv" || fail "csv header"
APENET_SIM_DIR=$N "$BIN/apenet" regs >"$T/regs.txt" || fail "regs text"
grep -q "LINK_STATE" "$T/regs.txt" || fail "regs text content"

# Bad command lines: exit 2, with a message that names the problem.
"$BIN/apenet" bogus 2>"$T/err"; [ $? -eq 2 ] && grep -q "unknown command 'bogus'" "$T/err" || fail "bogus"
"$BIN/apenet" list extra --sim "$N" 2>"$T/err"; [ $? -eq 2 ] && grep -q "unexpected argument 'extra'" "$T/err" || fail "extra"
"$BIN/apenet" regs --sim /nonexistent 2>"$T/err"; [ $? -eq 2 ] && grep -q "/nonexistent" "$T/err" || fail "nonexistent"
"$BIN/apenet" regs --sim 2>"$T/err"; [ $? -eq 2 ] || fail "--sim without a value"
"$BIN/apenet-sim" run --dir "$T/sim" --dims 4x4x1 2>"$T/err"; [ $? -eq 2 ] && grep -q "another apenet-sim" "$T/err" || fail "second instance"
"$BIN/apenet-sim" run --dir "$T/x" --dims 4x0x1 2>"$T/err"; [ $? -eq 2 ] && grep -q "dims" "$T/err" || fail "bad dims"
"$BIN/apenet-sim" inject --dir "$T/sim" --node 0,0,0 2>"$T/err"; [ $? -eq 2 ] || fail "inject without fault"

# A card that fell off the bus: exit 2, "card not responding" with its BDF, nothing on stdout.
"$BIN/apenet-sim" inject --dir "$T/sim" --node 1,0,0 card-gone >/dev/null || fail "card-gone"
"$BIN/apenet" regs --json --sim "$N" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "card-gone regs exit $rc"
grep -q "card not responding at 0000:03:00.0" "$T/err" || fail "card-gone message: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "card-gone printed output"
"$BIN/apenet" list --sim "$N" >/dev/null 2>"$T/err"; [ $? -eq 2 ] && grep -q "card not responding" "$T/err" || fail "list gone"
"$BIN/apenet-sim" inject --dir "$T/sim" --node 1,0,0 clear >/dev/null || fail "clear"
wait_for 30 "$BIN/apenet" regs --sim "$N" >/dev/null 2>&1 || fail "card back"

# Stops cleanly on SIGTERM, removing its ready file.
sim_stop || fail "apenet-sim exit status $?"
[ ! -e "$T/sim/ready" ] || fail "ready left behind"

# Mixed variants from YAML; a bad YAML names file:line:column.
cat >"$T/mixed.yaml" <<'Y'
dims: 2x2x1
variant: apenet+
nodes:
  - node: 1,1,0
    variant: nanet-10
cables:
  - node: 0,0,0
    link: X+
    kind: optical
    length: 7
  - node: 0,0,0
    link: Y+
    measured: measured.csv
Y
# measured points (PMA settings -> BER) replace the model on 0,0,0 Y+
printf '# vod,pre,post1,post2,rxeq,dcgain,ber\nvod,pre,post1,post2,rxeq,dcgain,ber\n4,0,3,0,4,1,1e-7\n7,0,8,0,8,2,1e-15\n' >"$T/measured.csv"
sim_start "$T/mixed" --config "$T/mixed.yaml"
"$BIN/apenet" list --json --sim "$T/mixed/node-1-1-0" >"$T/m.json" || fail "mixed list"
[ "$(jq -r '.cards[0].variant' "$T/m.json")" = "nanet-10" ] || fail "mixed variant"
ext_up() { "$BIN/apenet" regs --json --sim "$T/mixed/node-1-1-0" >"$T/m2.json" &&
	[ "$(jq -r '[.links[].registers[] | select(.name == "LINK_STATE") | .value % 8] | map(select(. == 2)) | length' "$T/m2.json")" = 4 ]; }
wait_for 30 ext_up || fail "NaNet-10 external links up"
jq -e '[.links[].registers[] | select(.name == "LINK_PARTNER") | .fields] | all(test("EXTERNAL=1"))' "$T/m2.json" >/dev/null || fail "external partners"
# the replayed BER shows as 8b/10b errors on that link only
viol() { "$BIN/apenet" regs --json --sim "$T/mixed/node-0-0-0" >"$T/m3.json" &&
	jq -e '[.links[] | select(.name == "Y+") | .lanes[].registers[] | select(.name == "LANE_CODE_VIOL") | .value] | add > 0' "$T/m3.json" >/dev/null; }
wait_for 30 viol || fail "measured BER not replayed"
jq -e '[.links[] | select(.name == "Y-") | .lanes[].registers[] | select(.name == "LANE_CODE_VIOL") | .value] | add == 0' "$T/m3.json" >/dev/null || fail "errors on a model link"
sim_stop
printf 'vod,pre,post1,post2,rxeq,dcgain,ber\n4,0,3,0,19,1,1e-7\n' >"$T/m.csv"
printf 'dims: 1x1x1\ncables:\n  - node: 0,0,0\n    link: X+\n    measured: m.csv\n' >"$T/m.yaml"
"$BIN/apenet-sim" run --dir "$T/m" --config "$T/m.yaml" 2>"$T/err"; [ $? -eq 2 ] || fail "bad measured csv accepted"
grep -q "m.csv:2" "$T/err" || fail "bad csv message: $(cat "$T/err")"
printf 'dims: 2x2x1\nvariant: apenet+\nnodes:\n  - node: 1,1,0\n    variant: nanet-99\n' >"$T/bad.yaml"
"$BIN/apenet-sim" run --dir "$T/bad" --config "$T/bad.yaml" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "bad yaml exit $rc"
grep -q "bad.yaml:5:14: unknown variant 'nanet-99'" "$T/err" || fail "bad yaml message: $(cat "$T/err")"
echo "cli: all checks passed"
