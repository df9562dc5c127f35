#!/bin/sh
# Every command on every variant, live on the emulator and replayed from
# snapshot files; the model; watch; module from raw EEPROM dumps; bad input.
# JSON is parsed with jq; waits poll with a deadline.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-cmds-XXXXXX)
PIDS=""
trap 'for p in $PIDS; do kill -TERM $p 2>/dev/null; wait $p 2>/dev/null; done; rm -rf "$T"' EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# --- the efficiency model (SPEC §2): 16 KB FIFO, 28 Gbps link
"$A" model --fifo-depth 16K --link-gbps 28 --json >"$T/m.json" || fail "model exit"
near "$(jq '.["E1"]' "$T/m.json")" 0.9846 0.0001 || fail "E1"
near "$(jq '.["E2"]' "$T/m.json")" 0.9459 0.0001 || fail "E2"
near "$(jq '.["E3"]' "$T/m.json")" 0.8412 0.0001 || fail "E3"
near "$(jq '.["E_T"]' "$T/m.json")" 0.7835 0.0001 || fail "E_T"
near "$(jq .max_payload_MBps "$T/m.json")" 2193.7 0.2 || fail "max"
# --fifo-depth: a bare number counts 128-bit entries (the TWEPP paper's unit),
# a suffix makes it bytes; the paper's 512-entry FIFO is the 8 KiB one
for d in 512 8KiB 8K 8192B; do
	"$A" model --fifo-depth $d --link-gbps 34 --json >"$T/m2.json" || fail "model $d"
	near "$(jq '.["E3"]' "$T/m2.json")" "$(awk 'BEGIN { print 256 / 401 }')" 0.0001 || fail "E3 $d"
	jq -e '.inputs.fifo_depth_entries == 512 and .inputs.fifo_depth_bytes == 8192' "$T/m2.json" >/dev/null || fail "depth $d"
done
"$A" model --fifo-depth 8192 --link-gbps 34 --json | jq -e '.inputs.fifo_depth_bytes == 131072' >/dev/null || fail "8192 entries"
"$A" model --fifo-depth 256 --link-gbps 28 2>"$T/err"; [ $? -eq 2 ] && grep -q "S_MAX" "$T/err" || fail "model small fifo"
"$A" model --fifo-depth 4096B --link-gbps 28 2>"$T/err"; [ $? -eq 2 ] && grep -q "S_MAX" "$T/err" || fail "model small fifo in bytes"
"$A" model --fifo-depth 1000B --link-gbps 28 2>"$T/err"; [ $? -eq 2 ] && grep -q "whole number of 128-bit" "$T/err" || fail "model odd bytes"
# --table: the paper's depths at 28 and 34 Gbps
"$A" model --table --json >"$T/t.json" || fail "model --table"
jq -e '(.table | length == 8) and ([.table[].fifo_depth_entries] == [512,1024,2048,4096,512,1024,2048,4096]) and
	([.table[].link_gbps] | unique == [28,34]) and all(.table[]; has("E1") and has("E2") and has("E3") and has("E_T"))' "$T/t.json" >/dev/null ||
	fail "table shape"
near "$(jq '.table[1].max_payload_MBps' "$T/t.json")" 2193.7 0.2 || fail "table 1024 entries at 28 Gbps"
near "$(jq '.table[4].max_payload_MBps' "$T/t.json")" 2021.7 0.2 || fail "table 512 entries at 34 Gbps"
"$A" model --table --fifo-depth 512 2>"$T/err"; [ $? -eq 2 ] && grep -q "table" "$T/err" || fail "table with a depth"
"$A" model --link-gbps 28 2>/dev/null; [ $? -eq 2 ] || fail "model usage"
"$A" model --fifo-depth 16K --link-gbps fast 2>"$T/err"; [ $? -eq 2 ] && grep -q "link-gbps" "$T/err" || fail "model bad rate"

# --- every variant, live and from a snapshot file
for v in apenet+ apenet-v5 nanet-1 nanet-km3 nanet-10; do
	d="$T/$v"
	"$BIN/apenet-sim" run --dir "$d" --dims 2x2x1 --variant "$v" 2>"$d.log" &
	PIDS="$PIDS $!"
	wait_for 60 test -e "$d/ready" || fail "$v: no ready"
	N="$d/node-0-0-0"
	# right after start: a short interval with a few bring-up errors proves
	# no rate (issue 7: this replay failed in most runs)
	"$A" snapshot --interval 0.2 --sim "$N" >"$T/$v.early.json" || fail "$v: early snapshot"
	"$A" link --json --from "$T/$v.early.json" >"$T/early.json"
	jq -e '[.findings[].code] - ["LINK_TRAINING", "LINK_DOWN", "LINK_DEGRADED", "LDM_STALE"] | length == 0' "$T/early.json" \
		>/dev/null || { jq -c .findings "$T/early.json"; fail "$v: a rate judged right after start"; }
	nl=$(case $v in apenet+) echo 6 ;; apenet-v5) echo 3 ;; *) echo 4 ;; esac)
	ok_links() { "$A" link --json --interval 0.2 --sim "$N" >"$T/l.json"; }
	wait_for 30 ok_links || { cat "$T/l.json"; fail "$v: link not ok"; }
	jq -e --argjson n "$nl" '.variant == $ARGS.named.v and (.links | length == $n) and ([.links[].verdict.code] | all(. == "OK"))' \
		--arg v "$v" "$T/l.json" >/dev/null || { cat "$T/l.json"; fail "$v: links"; }
	"$A" status --json --sim "$N" >"$T/s.json" || fail "$v: status exit $?"
	jq -e --argjson n "$nl" '.verdict.severity == "ok" and (.links | length == $n) and (.findings | length == 0)' "$T/s.json" >/dev/null || fail "$v: status"
	"$A" module --json --sim "$N" >"$T/mod.json" || fail "$v: module exit $?"
	jq -e --argjson n "$nl" '.modules | length == $n' "$T/mod.json" >/dev/null || fail "$v: modules"
	"$A" snapshot --interval 0.2 --sim "$N" >"$T/$v.snap.json" || fail "$v: snapshot"
	# replay: no card needed
	"$A" link --json --from "$T/$v.snap.json" >"$T/r.json" || fail "$v: link --from exit $?"
	jq -e --argjson n "$nl" '(.links | length == $n) and ([.links[].verdict.code] | all(. == "OK")) and .links[0].rates.interval_s > 0.1' \
		"$T/r.json" >/dev/null || fail "$v: link --from"
	"$A" status --from "$T/$v.snap.json" >/dev/null || fail "$v: status --from"
	if [ "$v" = apenet+ ]; then
		# --at: -S/+S from the file's last/first sample (seconds, or with a
		# unit), else a time as --since takes it (ISO 8601, epoch ms, now, 1h ago)
		f="$T/$v.snap.json"
		t1=$(jq '.samples[-1].host_time_ms' "$f")
		at() { "$A" link --json --from "$f" --at "$1" 2>"$T/at.err" | jq -e ".replay.s1 == $2" >/dev/null ||
			fail "--at $1: not sample $2: $(cat "$T/at.err")"; }
		at -0 1
		at -0s 1
		at -100ms 0
		at -0.1 0
		at +0 0
		at now 1
		at "$t1" 1
		at "$(jq -r '.samples[-1].host_time_ms / 1000 | ceil | todate' "$f")" 1
		"$A" link --json --from "$f" --at 1h >/dev/null 2>"$T/at.err"; [ $? -eq 2 ] && grep -q "no sample at or before" "$T/at.err" ||
			fail "--at 1h (an hour ago): $(cat "$T/at.err")"
		"$A" link --from "$f" --at -5x >/dev/null 2>"$T/at.err"; [ $? -eq 2 ] && grep -q "is not -SECONDS" "$T/at.err" ||
			fail "--at -5x: $(cat "$T/at.err")"
	fi
	"$A" module --json --from "$T/$v.snap.json" >"$T/modr.json" || fail "$v: module --from"
	# live and replayed, the same modules: every cage decodes, checksums and all
	jq -e --slurpfile live "$T/mod.json" '[.modules[].vendor.serial] == [$live[0].modules[].vendor.serial]' \
		"$T/modr.json" >/dev/null || fail "$v: module --from differs from live"
	case $v in
	nanet-km3|nanet-10) # SFP+ cages (SFF-8472): optical modules with monitors on KM3, cables on NaNet-10
		jq -e '[.modules[] | .decoded and .spec == "SFF-8472" and (.vendor.serial | length > 3) and .checksums.base_ok
			and .verdict.code == "OK"] | all' "$T/mod.json" >/dev/null || { cat "$T/mod.json"; fail "$v: SFP modules"; }
		if [ $v = nanet-km3 ]; then
			jq -e '.modules[0].monitors.temperature_C > 20 and .modules[0].checksums.dmi_ok and
				.modules[0].thresholds.rx_power_mW.low_alarm > 0' "$T/mod.json" >/dev/null || fail "$v: SFP monitors"
		else
			jq -e '.modules[0].vendor.part == "APL-SFPP-CU2M" and .modules[0].monitors == null' "$T/mod.json" >/dev/null ||
				fail "$v: SFP+ cable"
		fi ;;
	*)	jq -e '[.modules[] | select(.present != false) | .spec == "SFF-8636"] | all' "$T/mod.json" >/dev/null ||
			fail "$v: QSFP modules" ;;
	esac
	"$A" regs --csv --sim "$N" >/dev/null || fail "$v: regs"
	echo "$v: ok"
done
case $v in *) ;; esac

# --- every command's JSON has the top-level findings array, each finding
# with the same keys; a link has one shape in link, status and snapshot
N="$T/apenet+/node-1-0-0"
keys='["code","evidence","lane","link","message","recommendation","severity","subject","threshold","unit","value"]'
"$BIN/apenet-sim" inject --dir "$T/apenet+" --node 1,0,0 overheat --celsius 85 >/dev/null || fail inject
for cmd in "list" "regs" "status" "link" "link X+" "module" "snapshot" "model --fifo-depth 16K --link-gbps 28" \
	"watch --count 1 --interval 0.1" "clear-counters X+" "model --table" "config check" "cabling --sim-cluster $T/apenet+"; do
	# shellcheck disable=SC2086
	"$A" $cmd --json --sim "$N" >"$T/f.json"
	[ $? -le 1 ] || fail "$cmd: exit"
	jq -e --argjson k "$keys" '(.findings | type == "array") and all(.findings[]; (keys - ["sensor"]) == $k)' "$T/f.json" \
		>/dev/null || { head -c 600 "$T/f.json"; fail "$cmd: findings shape"; }
done
hot() { "$A" status --json --sim "$N" >"$T/f.json"; jq -e '[.findings[] | select(.code == "FPGA_TEMP")][0] |
	.subject == "sensor" and .sensor == "fpga_temp" and .value >= 80 and .threshold == 80 and .unit == "C" and .severity == "warn"' \
	"$T/f.json" >/dev/null; }
wait_for 30 hot || { jq -c .findings "$T/f.json"; fail "sensor finding"; }
"$BIN/apenet-sim" inject --dir "$T/apenet+" --node 1,0,0 clear >/dev/null || fail inject
"$A" link --json --sim "$N" >"$T/l.json"; "$A" status --json --sim "$N" >"$T/s.json"; "$A" snapshot --sim "$N" >"$T/p.json"
for f in s p; do
	jq -e --slurpfile l "$T/l.json" '[.links[] | keys] == [$l[0].links[] | keys]' "$T/$f.json" >/dev/null ||
		fail "link shape differs in $f"
done

# v5's QSFP carries an optical module with monitors: overheating trips its alarm
V5="$T/apenet-v5"
"$BIN/apenet-sim" inject --dir "$V5" --node 0,0,0 overheat --celsius 130 >/dev/null || fail inject
mod_alarm() { "$A" module --json --sim "$V5/node-0-0-0" X >"$T/ma.json"; [ $? -eq 1 ] &&
	jq -e '.modules[0].verdict.code == "MODULE_ALARM" and .modules[0].monitors.temperature_C > 75' "$T/ma.json" >/dev/null; }
wait_for 30 mod_alarm || { cat "$T/ma.json"; fail "module alarm"; }
# every condition is a finding of its own, in the top-level list, with value, threshold and unit
jq -e '[.findings[] | select(.code == "MODULE_ALARM")] | length >= 1 and all(.subject == "module" and .link == "X" and
	.unit != null and .value > .threshold)' "$T/ma.json" >/dev/null || { cat "$T/ma.json"; fail "module findings"; }
# the same on an SFP: KM3's optical module runs hot with its board
KM="$T/nanet-km3"
"$BIN/apenet-sim" inject --dir "$KM" --node 0,0,0 overheat --celsius 130 >/dev/null || fail "inject km3"
sfp_alarm() { "$A" module --json --sim "$KM/node-0-0-0" KM3link2 >"$T/ma.json"; [ $? -eq 1 ] &&
	jq -e '.modules[0].verdict.code == "MODULE_ALARM" and .findings[0].lane == null and .findings[0].unit == "C"' \
		"$T/ma.json" >/dev/null; }
wait_for 30 sfp_alarm || { cat "$T/ma.json"; fail "SFP module alarm"; }

# --- module --eeprom-file: a raw dump as `ethtool -m DEV raw on` writes it
hex=$(jq -r '.modules[0].eeprom' "$T/apenet+.snap.json")
printf '%s' "$hex" | perl -ne 'print pack("H*", $_)' >"$T/ee.bin"
[ "$(wc -c <"$T/ee.bin")" -eq 640 ] || fail "640-byte dump"
"$A" module --json --eeprom-file "$T/ee.bin" >"$T/e.json" || fail "eeprom file exit $?"
jq -e '.modules[0].vendor.name == "APELINK CABLES" and .modules[0].copper and .modules[0].checksums.base_ok and .modules[0].verdict.code == "OK"' \
	"$T/e.json" >/dev/null || fail "eeprom decode"
head -c 256 "$T/ee.bin" >"$T/ee256.bin"
"$A" module --json --eeprom-file "$T/ee256.bin" >"$T/e.json" || fail "256-byte dump"
jq -e '.modules[0].bytes == 256' "$T/e.json" >/dev/null || fail "256 bytes"
# a corrupt vendor name: the base check code catches it
perl -pe 'substr($_, 150, 1) = "#" if $. == 1' "$T/ee.bin" >"$T/bad.bin" 2>/dev/null ||
	perl -e 'local $/; $_ = <STDIN>; substr($_, 150, 1) = "#"; print' <"$T/ee.bin" >"$T/bad.bin"
"$A" module --json --eeprom-file "$T/bad.bin" >"$T/e.json"; [ $? -eq 1 ] || fail "bad checksum exit"
jq -e '.modules[0].verdict.code == "MODULE_CHECKSUM" and (.modules[0].checksums.base_ok | not)' "$T/e.json" >/dev/null || fail "checksum verdict"
# a check code alone is no alarm: alarm_count 0 with the fail verdict
jq -e '.modules[0].alarm_count == 0 and (.findings | length == 1)' "$T/e.json" >/dev/null || { cat "$T/e.json"; fail "checksum alarm_count"; }
# the findings name the file whole, escaped in JSON like every outside string
for name in some-long-module-image-name.bin 'a "quoted" \\ module image with a long name.bin'; do
	cp "$T/bad.bin" "$T/$name"
	"$A" module --json --eeprom-file "$T/$name" >"$T/e.json"; [ $? -eq 1 ] || fail "long name exit"
	jq -e --arg n "$name" --arg p "$T/$name" '.findings[0].link == $n and .modules[0].port == $p' "$T/e.json" >/dev/null ||
		{ cat "$T/e.json"; fail "finding location: $name"; }
done
"$A" module --eeprom-file "$T/some-long-module-image-name.bin" | grep -q "fail  *some-long-module-image-name.bin  *MODULE_CHECKSUM" ||
	fail "finding location in text"
head -c 300 "$T/ee.bin" >"$T/short.bin"
"$A" module --eeprom-file "$T/short.bin" 2>"$T/err"; [ $? -eq 2 ] && grep -q "300 bytes" "$T/err" || fail "short dump: $(cat "$T/err")"
"$A" module --eeprom-file "$T/missing.bin" 2>"$T/err"; [ $? -eq 2 ] && grep -q "missing.bin" "$T/err" || fail "missing dump"
# a copper cable whose attenuation at 2.5 GHz is 0 dB: unspecified, not a perfect cable
perl -e 'local $/; my $d = <STDIN>; substr($d, 186, 1) = "\0"; my $s = 0; $s += ord(substr($d, $_, 1)) for 128 .. 190;
	substr($d, 191, 1) = chr($s & 255); print $d' <"$T/ee.bin" >"$T/att.bin"
"$A" module --json --eeprom-file "$T/att.bin" >"$T/e.json" || fail "attenuation exit $?"
jq -e '.modules[0].attenuation.at_2_5GHz_dB == null and .modules[0].attenuation.at_5GHz_dB > 0' "$T/e.json" >/dev/null ||
	fail "attenuation 0 dB"

# --- SFP (SFF-8472) dumps: 512 bytes (A0h, A2h) and 256 (A0h only), from a KM3 optical module
hex=$(jq -r '.modules[1].eeprom' "$T/nanet-km3.snap.json")
printf '%s' "$hex" | cut -c1-1024 | perl -ne 'chomp; print pack("H*", $_)' >"$T/sfp.bin"
[ "$(wc -c <"$T/sfp.bin")" -eq 512 ] || fail "512-byte SFP dump"
"$A" module --json --eeprom-file "$T/sfp.bin" >"$T/e.json" || fail "SFP dump exit $?"
jq -e '.modules[0] | .spec == "SFF-8472" and .bytes == 512 and .vendor.name == "INFN OPTICS" and .media == "1000BASE-SX"
	and .monitors.lanes[0].tx_bias_mA > 1 and .checksums.dmi_ok and .verdict.code == "OK"' "$T/e.json" >/dev/null ||
	{ cat "$T/e.json"; fail "SFP dump decode"; }
"$A" module --eeprom-file "$T/sfp.bin" >"$T/e.txt" || fail "SFP dump text"
grep -q "SFF-8472" "$T/e.txt" && grep -q "vendor:" "$T/e.txt" || fail "SFP dump text: $(cat "$T/e.txt")"
head -c 256 "$T/sfp.bin" >"$T/sfp256.bin"
"$A" module --json --eeprom-file "$T/sfp256.bin" >"$T/e.json" || fail "SFP A0h dump exit $?"
jq -e '.modules[0].bytes == 256 and .modules[0].monitors == null and .modules[0].vendor.serial != ""' "$T/e.json" >/dev/null ||
	fail "SFP A0h dump"

# --- from real module images (issue 20): bytes edited in these dumps, check codes made right again
# edit FILE OUT OFFSET=HEX...: set bytes, then CC_BASE, CC_EXT (SFF-8472 A0h; SFF-8636 bytes 191, 223)
edit() {
	perl -e 'local $/; my ($in, $out, @set) = @ARGV; open(my $f, "<", $in) or die; binmode $f; my $d = <$f>;
		for (@set) { my ($o, $v) = split /=/; substr($d, $o, 1) = chr(hex $v); }
		my $sum = sub { my $s = 0; $s += ord(substr($d, $_, 1)) for $_[0] .. $_[1]; chr($s & 255) };
		if (ord($d) == 3) { substr($d, 63, 1) = $sum->(0, 62); substr($d, 95, 1) = $sum->(64, 94); }
		else { substr($d, 191, 1) = $sum->(128, 190); substr($d, 223, 1) = $sum->(192, 222); }
		open(my $o, ">", $out) or die; binmode $o; print $o $d' "$@"
}
# a 1000BASE-T SFP (RJ45): byte 18 is 100 m of copper, not OM4 x10 m; bytes 16, 17, 19 no fibre lengths
edit "$T/sfp.bin" "$T/baset.bin" 2=22 3=00 6=08 18=64 60=00 61=00
"$A" module --json --eeprom-file "$T/baset.bin" >"$T/e.json" || fail "1000BASE-T exit $?"
jq -e '.modules[0] | .media == "1000BASE-T" and .copper and .length.copper_m == 100 and (.length | has("om4_m") | not)
	and .length.om3_m == null' "$T/e.json" >/dev/null || { cat "$T/e.json"; fail "1000BASE-T lengths"; }
"$A" module --eeprom-file "$T/baset.bin" | grep -q "copper_m: 100$" || fail "1000BASE-T length in text"
# a DWDM SFP: 1544 nm (bytes 60-61) and 53 hundredths (byte 62)
edit "$T/sfp.bin" "$T/dwdm.bin" 60=06 61=08 62=35
"$A" module --json --eeprom-file "$T/dwdm.bin" >"$T/e.json" || fail "DWDM exit $?"
jq -e '.modules[0].wavelength_nm == 1544.53' "$T/e.json" >/dev/null || { cat "$T/e.json"; fail "DWDM wavelength"; }
"$A" module --eeprom-file "$T/dwdm.bin" | grep -q "wavelength_nm: *1544.53$" || fail "DWDM wavelength in text"
# ... and a QSFP's bytes 186-187 in 0.05 nm: 30891 is 1544.55 nm
hex=$(jq -r '.modules[0].eeprom' "$T/apenet-v5.snap.json")
printf '%s' "$hex" | perl -ne 'chomp; print pack("H*", $_)' >"$T/v5.bin"
edit "$T/v5.bin" "$T/qdwdm.bin" 147=50 186=78 187=AB
"$A" module --json --eeprom-file "$T/qdwdm.bin" >"$T/e.json" || fail "QSFP DWDM exit $?"
jq -e '.modules[0].wavelength_nm == 1544.55' "$T/e.json" >/dev/null || { cat "$T/e.json"; fail "QSFP DWDM wavelength"; }
# a QSFP lane in TX loss of signal (byte 3 bit 4: lane 1), its laser dark: one MODULE_TX_LOS with the
# bias and power as evidence, no low alarms telling to replace the module
edit "$T/v5.bin" "$T/txlos.bin" 3=10 42=00 43=00 50=00 51=00
"$A" module --json --eeprom-file "$T/txlos.bin" >"$T/e.json"; [ $? -eq 1 ] || fail "TX LOS exit"
jq -e '.modules[0].alarm_count == 1 and (.findings | length == 1) and .findings[0].code == "MODULE_TX_LOS" and
	.findings[0].lane == 1 and (.findings[0].evidence | test("TX bias 0.00 mA .*TX power 0.0000 mW")) and
	(.findings[0].recommendation | test("replace") | not)' "$T/e.json" >/dev/null || { cat "$T/e.json"; fail "TX LOS"; }
# an SFP whose transmitter faults (A2h byte 110 bit 2): the fault, its dark laser as evidence
edit "$T/sfp.bin" "$T/txfault.bin" 366=04 356=00 357=00 358=00 359=00
"$A" module --json --eeprom-file "$T/txfault.bin" >"$T/e.json"; [ $? -eq 1 ] || fail "TX fault exit"
jq -e '.modules[0].alarm_count == 1 and [.findings[].code] == ["MODULE_TX_FAULT"] and
	(.findings[0].evidence | test("TX bias 0.00 mA"))' "$T/e.json" >/dev/null || { cat "$T/e.json"; fail "SFP TX fault"; }

# --- a file that is no module image: exit 2, the identifier and the size named, and with --json an error object
cat "$T/sfp.bin" "$T/sfp.bin" | head -c 640 >"$T/sfp640.bin"
"$A" module --json --eeprom-file "$T/sfp640.bin" >"$T/e.json" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "SFP image of 640 bytes: exit $rc"
grep -q "640 bytes, identifier 0x03" "$T/err" || fail "bad size not named: $(cat "$T/err")"
jq -e '.schema == "apenet-diag/2" and .command == "module" and .error.code == "FILE_SIZE" and
	(.error.message | test("sfp640.bin: 640 bytes, identifier 0x03"))' "$T/e.json" >/dev/null || { cat "$T/e.json"; fail "JSON error object"; }
perl -e 'local $/; $_ = <STDIN>; substr($_, 0, 1) = "\x06"; print' <"$T/ee.bin" >"$T/xfp.bin"
"$A" module --json --eeprom-file "$T/xfp.bin" >"$T/e.json" 2>"$T/err"; [ $? -eq 2 ] || fail "XFP exit"
jq -e '.error.code == "FILE_NOT_A_MODULE" and (.error.message | test("identifier 0x06 \\(XFP\\)"))' "$T/e.json" >/dev/null ||
	{ cat "$T/e.json"; fail "XFP error object"; }
"$A" module --json --eeprom-file "$T/missing.bin" >"$T/e.json" 2>/dev/null; [ $? -eq 2 ] || fail "missing exit"
jq -e '.error.code == "FILE_UNREADABLE"' "$T/e.json" >/dev/null || fail "missing: JSON error object"

# --- watch: rates per interval; stops on --count, and cleanly on SIGINT
N="$T/apenet+/node-1-0-0"
"$A" watch --count 2 --interval 0.2 --json --sim "$N" >"$T/w.json" || fail "watch exit"
jq -s -e 'length == 2 and all(.[]; (.links | length == 6) and .links[0].tx_MBps > 0)' "$T/w.json" >/dev/null || fail "watch json"
"$A" watch --interval 0.1 --sim "$N" >"$T/w.txt" &
wpid=$!
wait_for 30 grep -q "X+" "$T/w.txt" || fail "watch text"
kill -INT $wpid; wait $wpid; [ $? -eq 0 ] || fail "watch after SIGINT"
# exit 1 when a sample it showed had a failure, 0 when all it showed was healthy
"$BIN/apenet-sim" inject --dir "$T/apenet+" --node 1,0,0 cable-unplug --link X+ >/dev/null || fail inject
"$A" watch --count 2 --interval 0.2 --json --sim "$N" >"$T/wf.json"; rc=$?
[ $rc -eq 1 ] || fail "watch showing a fault: exit $rc, expected 1"
jq -s -e 'any(.[].findings[]; .severity == "fail" and .link == "X+")' "$T/wf.json" >/dev/null ||
	fail "watch: no fail finding on X+ shown: $(jq -s -c '[.[].findings]' "$T/wf.json")"
"$A" watch --count 1 --interval 0.1 --sim "$N" >"$T/wf.txt"; rc=$?
[ $rc -eq 1 ] && grep -Eq '^  fail +X\+' "$T/wf.txt" || fail "watch text with a fault: exit $rc: $(cat "$T/wf.txt")"
"$BIN/apenet-sim" inject --dir "$T/apenet+" --node 1,0,0 clear >/dev/null || fail inject
healthy() { "$A" watch --count 1 --interval 0.1 --json --sim "$N" >"$T/wh.json" && jq -e '.findings == []' "$T/wh.json" >/dev/null; }
wait_for 30 healthy || fail "watch after the fault cleared: $(jq -c .findings "$T/wh.json")"

# --- bad input is named: snapshot files, configs, links
head -c 2000 "$T/apenet+.snap.json" >"$T/cut.json"
"$A" link --from "$T/cut.json" 2>"$T/err"; [ $? -eq 2 ] && grep -q "cut.json:[0-9]*:[0-9]*:" "$T/err" || fail "cut snapshot: $(cat "$T/err")"
jq '.schema = "other/9"' "$T/apenet+.snap.json" >"$T/schema.json"
"$A" status --from "$T/schema.json" 2>"$T/err"; [ $? -eq 2 ] && grep -q "schema 'other/9'" "$T/err" || fail "schema"
jq '.samples[1].global.TIMESTAMP = 0' "$T/apenet+.snap.json" >"$T/ts.json"
"$A" link --from "$T/ts.json" 2>"$T/err"; [ $? -eq 2 ] && grep -q "older than the first" "$T/err" || fail "timestamps"
printf 'thresholds:\n  fpga_temp_warn: 80\n' >"$T/bad.yaml"
"$A" status --config "$T/bad.yaml" --sim "$N" 2>"$T/err"; [ $? -eq 2 ] && grep -q "bad.yaml:2:3: unknown key 'fpga_temp_warn'" "$T/err" ||
	fail "bad config: $(cat "$T/err")"
"$A" link W+ --sim "$N" 2>"$T/err"; [ $? -eq 2 ] && grep -q "no link 'W+'" "$T/err" || fail "bad link"
"$A" link --interval -1 --sim "$N" 2>/dev/null; [ $? -eq 2 ] || fail "bad interval"
# cabling needs no config: the torus the boards declare
"$A" cabling --json --sim-cluster "$T/apenet+" >"$T/c.json" || fail "cabling without config: exit $?"
jq -e '.summary.torus == "2x2x1" and .summary.torus_from == "boards" and .summary.nodes_read == 4 and .problems == [] and .findings == []' \
	"$T/c.json" >/dev/null || fail "cabling without config: $(cat "$T/c.json")"
"$A" cabling 2>"$T/err"; [ $? -eq 2 ] && grep -q "sim-cluster" "$T/err" || fail "cabling without input"
"$A" cabling --sim-cluster "$T/nothing" 2>"$T/err"; [ $? -eq 2 ] && grep -q "nothing" "$T/err" || fail "cabling bad dir"
echo "commands: all checks passed"
