#!/bin/sh
# dashboards/: the snmp_exporter generator module, the Prometheus rules and
# the Grafana dashboard agree with APENET-MIB and with each other.
#  - Debian's real snmp_exporter generator (prometheus-snmp-generator 0.21)
#    turns dashboards/snmp_exporter/generator.yml into snmp.yml against
#    mibs/APENET-MIB.txt without a parse error; every name the file walks,
#    looks up or overrides resolves with snmptranslate; the metrics have the
#    expected types and labels; the exporter itself accepts the result
#    (--dry-run);
#  - promtool check rules, and promtool test rules (series shaped as the
#    module produces them: the alerts fire with the expected labels; the
#    trend rules on series that degrade, wobble, step and burst);
#  - every metric name in the rules' and the dashboard's expressions is one
#    the module produces, every label one it sets (matchers, by/on lists,
#    legends, $labels in annotations), rate()/increase() only of counters;
#  - the dashboard: schema, ${DS_PROMETHEUS} input, instance variable, unique
#    panel ids, the panels the issue asks for (each link's certificate and
#    its age among them);
#  - live: the emulator, the node agent and the supervisor as AgentX
#    subagents of a real snmpd, and the real snmp_exporter with the generated
#    snmp.yml: a scrape of each module has the link, sensor (limits parsed),
#    LDM, certificate (a cable certified by apenet qualify, read by the
#    agent from its certificates_db) and cluster series with their lookup
#    labels, and every metric the rules and the dashboard use is in one;
#  - the checks can fail: broken copies (a typo'd metric, label, walk or
#    override, rate() of a gauge, a PromQL syntax error, a trend rule on a
#    metric the module lacks or without its short window) are rejected.
. "${APENET_SRCDIR:-.}/tests/e2e_lib.sh"
SRC=${APENET_SRCDIR:-$(pwd)}
D=$SRC/dashboards
GEN=prometheus-snmp-generator
for c in $GEN prometheus-snmp-exporter promtool jq yq snmptranslate curl; do
	command -v "$c" >/dev/null 2>&1 || fail "$c missing (make test installs it: mk/deps.sh)"
done
[ -s "$SRC/build/mibs/SNMPv2-SMI.txt" ] || fail "no build/mibs/SNMPv2-SMI.txt (mk/mibs.sh)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/apenet-dash-XXXXXX")
AGENT=""
SUP=""
EXP=""
SIM_PID=""
cleanup() {
	for p in $AGENT $SUP $EXP; do
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	if [ -s "$tmp/snmpd.pid" ]; then
		p=$(cat "$tmp/snmpd.pid")
		kill -TERM "$p" 2>/dev/null
		wait_for 10 sh -c "! kill -0 $p 2>/dev/null"
	fi
	[ -n "$SIM_PID" ] && sim_stop
	rm -rf "$tmp"
}
trap cleanup EXIT

# The base modules, NET-SNMP-MIB alone (the other modules in
# /usr/share/snmp/mibs import ones Debian does not ship, parse errors that
# would hide ours) and APENET-MIB.
mkdir "$tmp/netsnmp"
ln -s /usr/share/snmp/mibs/NET-SNMP-MIB.txt "$tmp/netsnmp/"
MIBPATH="$SRC/build/mibs:$tmp/netsnmp:$SRC/mibs"

# gen DIR: DIR/generator.yml -> DIR/snmp.yml, log in DIR/log
gen() {
	(cd "$1" && MIBDIRS=$MIBPATH $GEN --fail-on-parse-errors generate -o snmp.yml) >"$1/log" 2>&1
}
# names GENERATOR.YML: every MIB name the file walks, looks up or overrides
names() {
	yq -r '.modules[] | (.walk[]?, (.lookups[]? | .lookup, .source_indexes[]), (.overrides // {} | keys[]))' "$1" | sort -u
}
# resolve GENERATOR.YML: each name is an APENET-MIB object
resolve() {
	names "$1" >"$tmp/names" || return 1
	[ -s "$tmp/names" ] || { echo "no names in $1" >&2; return 1; }
	bad=0
	while read -r n; do
		snmptranslate -M "$MIBPATH" -m APENET-MIB -On "APENET-MIB::$n" >/dev/null 2>&1 ||
			{ echo "$1: $n is not in APENET-MIB" >&2; bad=1; }
	done <"$tmp/names"
	return $bad
}

mkdir "$tmp/gen"
cp "$D/snmp_exporter/generator.yml" "$tmp/gen/"
gen "$tmp/gen" || { cat "$tmp/gen/log" >&2; fail "the generator refused generator.yml"; }
resolve "$D/snmp_exporter/generator.yml" || fail "generator.yml names objects APENET-MIB lacks"
S=$tmp/gen/snmp.yml
prometheus-snmp-exporter --config.file="$S" --dry-run >"$tmp/dry" 2>&1 ||
	{ cat "$tmp/dry" >&2; fail "snmp_exporter refuses the generated snmp.yml"; }

# The module walks exactly the eight node tables, the cluster module the two
# supervisor tables.
oid() { snmptranslate -M "$MIBPATH" -m APENET-MIB -On "APENET-MIB::$1" | sed 's/^\.//'; }
want=""
for t in apenetCardTable apenetLinkTable apenetLaneTable apenetSensorTable apenetLdmTable apenetWatchdogTable \
	apenetCertTable apenetModuleTable; do
	want="$want $(oid $t)"
done
# (as a set: the generator sorts them as text, .1.10 before .1.2)
got=$(yq -r '.apenet.walk[]' "$S" | sort | tr '\n' ' ')
want=$(printf '%s\n' $want | sort | tr '\n' ' ')
[ "$got" = "$want" ] || fail "module apenet walks '$got', not the node tables '$want'"
got=$(yq -r '.apenet_cluster.walk[]' "$S" | tr '\n' ' ')
[ "$(echo $got)" = "$(oid apenetNodeTable) $(oid apenetIncidentTable)" ] || fail "module apenet_cluster walks '$got'"

# What the modules produce: "name type" (a regex_extracts metric is name+key,
# a gauge), minus the not-accessible index columns (never served); the
# labels: indexes, lookups, the label of DisplayString and enum metrics,
# and Prometheus' own instance and job.
yq -r '[.[] | .metrics[] | .indexes[]?.labelname] | unique[]' "$S" >"$tmp/indexes"
yq -r '.[] | .metrics[] | if .regex_extracts then (.name as $n | .regex_extracts | keys[] | "\($n + .) gauge") else "\(.name) \(.type)" end' "$S" |
	sort -u >"$tmp/metrics.all"
awk 'NR==FNR { idx[$1] = 1; next } !($1 in idx)' "$tmp/indexes" "$tmp/metrics.all" >"$tmp/metrics"
{
	cat "$tmp/indexes"
	yq -r '.[] | .metrics[] | .lookups[]?.labelname' "$S"
	yq -r '.[] | .metrics[] | select((.regex_extracts | not) and (.type == "DisplayString" or .type == "EnumAsStateSet" or .type == "EnumAsInfo")) | .name' "$S"
	printf 'instance\njob\n'
} | sort -u >"$tmp/labels"
echo "up gauge" >>"$tmp/metrics"
type_of() { awk -v n="$1" '$1 == n { print $2 }' "$tmp/metrics"; }
for pair in apenetLinkTxBytes:counter apenetLinkRxBytes:counter apenetLinkHdrCrcErrors:counter apenetLinkRetrans:counter \
	apenetWdExpireCount:counter apenetSensorValue:gauge apenetCardSeverity:gauge apenetLdmWorst:gauge \
	apenetLinkState:EnumAsStateSet apenetNodeClass:EnumAsStateSet apenetCardCode:DisplayString apenetSensorHighWarn:gauge \
	apenetIncidentOpened:gauge apenetCertVerdict:gauge apenetCertSerial:DisplayString apenetCertUpper:gauge \
	apenetCertTarget:gauge apenetCertTime:gauge apenetCertBits:gauge apenetModuleRxPower:gauge \
	apenetModuleRxPowerLowWarn:gauge; do
	n=${pair%%:*}; t=${pair#*:}
	[ "$(type_of "$n")" = "$t" ] || fail "snmp.yml: $n is '$(type_of "$n")', not $t"
done
for n in apenetLinkName apenetSensorName apenetSensorUnit apenetLdmSource apenetCardNode apenetIncidentComponent; do
	[ -z "$(type_of "$n")" ] || fail "snmp.yml: lookup column $n is a metric of its own (a duplicate label)"
	grep -q -x "$n" "$tmp/labels" || fail "snmp.yml: no $n label"
done
lookups_of() { yq -r --arg n "$1" '.[] | .metrics[] | select(.name == $n) | .lookups[]?.labelname' "$S" | tr '\n' ' '; }
case " $(lookups_of apenetLinkTxBytes)" in *" apenetLinkName "*) ;; *) fail "apenetLinkTxBytes has no apenetLinkName label" ;; esac
case " $(lookups_of apenetLanePhase)" in *" apenetLinkName "*) ;; *) fail "apenetLanePhase has no apenetLinkName label" ;; esac
case " $(lookups_of apenetSensorValue)" in *" apenetSensorName "*) ;; *) fail "apenetSensorValue has no apenetSensorName label" ;; esac
case " $(lookups_of apenetSensorValue)" in *" apenetSensorUnit "*) ;; *) fail "apenetSensorValue has no apenetSensorUnit label" ;; esac
case " $(lookups_of apenetLdmWorst)" in *" apenetLdmSource "*) ;; *) fail "apenetLdmWorst has no apenetLdmSource label" ;; esac
# the certificate table augments the link table: its series carry the link's
# (the module table the lane table: the lane's)
for n in apenetCertVerdict apenetCertTime apenetCertSerial apenetModuleRxPower; do
	case " $(lookups_of $n)" in *" apenetLinkName "*) ;; *) fail "$n has no apenetLinkName label" ;; esac
done

# check_exprs WHAT EXPRS REFS: every metric and label in the PromQL
# expressions of file EXPRS (one a line) and every label named in file REFS
# ({{label}} or $labels.label) is one the modules produce; rate(), irate()
# and increase() only of counters.
check_exprs() {
	what=$1; bad=0
	# quoted strings (label values, $instance) out of the way
	sed -E 's/"([^"\\]|\\.)*"/""/g' "$2" >"$tmp/e"
	{
		grep -oE '\{[^}]*\}' "$tmp/e" | grep -oE '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*(=~|!~|!=|=)' | sed -E 's/[[:space:]]*[=!~]+$//'
		grep -oE '\b(by|without|on|ignoring|group_left|group_right)[[:space:]]*\([^)]*\)' "$tmp/e" |
			sed -E 's/^[a-z_]+[[:space:]]*\(//; s/\)$//' | tr ',' '\n' | tr -d ' \t'
		grep -oE '\{\{[[:space:]]*\.?[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\}\}' "$3" | tr -d '{}. \t'
		grep -oE '\$labels\.[A-Za-z_][A-Za-z0-9_]*' "$3" | sed 's/^\$labels\.//'
	} | grep -v '^$' | sort -u >"$tmp/used.labels"
	sed -E 's/\{[^}]*\}//g; s/\[[^]]*\]//g; s/\b(by|without|on|ignoring|group_left|group_right)[[:space:]]*\([^)]*\)//g;
		s/[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(/(/g' "$tmp/e" |
		grep -oE '\b[A-Za-z_][A-Za-z0-9_:]*' |
		grep -v -x -E 'and|or|unless|bool|offset|by|without|on|ignoring|group_left|group_right|inf|nan' | sort -u >"$tmp/used.metrics"
	[ -s "$tmp/used.metrics" ] || { echo "$what: no metric found" >&2; return 1; }
	while read -r m; do
		[ -n "$(type_of "$m")" ] || { echo "$what: metric $m is not one the snmp_exporter modules produce" >&2; bad=1; }
	done <"$tmp/used.metrics"
	while read -r l; do
		grep -q -x -F "$l" "$tmp/labels" || { echo "$what: label $l is not one the snmp_exporter modules set" >&2; bad=1; }
	done <"$tmp/used.labels"
	grep -oE '\b(rate|irate|increase)[[:space:]]*\([[:space:]]*[A-Za-z_][A-Za-z0-9_]*' "$tmp/e" | sed -E 's/.*\([[:space:]]*//' | sort -u |
		while read -r m; do
			[ "$(type_of "$m")" = counter ] || { echo "$what: rate/increase of $m, a $(type_of "$m")" >&2; exit 1; }
		done || bad=1
	return $bad
}
# rules_check FILE / dash_check FILE: extract, then check_exprs
rules_check() {
	yq -r '.groups[].rules[].expr | gsub("\n"; " ")' "$1" >"$tmp/r.exprs" || return 1
	yq -r '.groups[].rules[] | ((.annotations // {}) | .[]), ((.labels // {}) | .[])' "$1" >"$tmp/r.refs" || return 1
	check_exprs "$1" "$tmp/r.exprs" "$tmp/r.refs"
}
dash_check() {
	jq -r '(.. | objects | .expr? // empty), (.templating.list[] | .definition // empty, (.query | if type == "object" then .query else . end) // empty)' "$1" |
		sed -E 's/^label_values\(([^,]*),.*\)$/\1/' >"$tmp/d.exprs" || return 1
	jq -r '.. | objects | .legendFormat? // empty' "$1" >"$tmp/d.refs" || return 1
	check_exprs "$1" "$tmp/d.exprs" "$tmp/d.refs"
}

# --- the rules --------------------------------------------------------
R=$D/prometheus/apenet-alerts.yml
promtool check rules "$R" >"$tmp/promtool" 2>&1 || { cat "$tmp/promtool" >&2; fail "promtool check rules $R"; }
(cd "$D/prometheus" && promtool test rules apenet-alerts.test.yml apenet-trends.test.yml) >"$tmp/ptest" 2>&1 ||
	{ cat "$tmp/ptest" >&2; fail "promtool test rules apenet-alerts.test.yml apenet-trends.test.yml"; }
# each trend rule is tested firing and not firing
for a in ApenetModuleRxPowerTrendingLow ApenetLinkCrcRisingWeekly ApenetSensorTrendingToLimit; do
	yq -e --arg a "$a" '[.tests[].alert_rule_test[] | select(.alertname == $a)] | (any(.exp_alerts | length > 0) and any(.exp_alerts | length == 0))' \
		"$D/prometheus/apenet-trends.test.yml" >/dev/null || fail "apenet-trends.test.yml: $a not tested both firing and quiet"
done
rules_check "$R" || fail "the rules use what the module does not produce"
nrules=$(yq -r '[.groups[].rules[]] | length' "$R")
for a in ApenetSnmpDown ApenetAgentNotAnswering ApenetCardGone ApenetLinkDown ApenetLinkDegraded ApenetLinkCrcErrors \
	ApenetFpgaTemperatureWarn ApenetFpgaTemperatureFail ApenetNeighbourBroken ApenetHostExpired ApenetDnpBroken \
	ApenetModuleRxPowerTrendingLow ApenetModuleRxPowerLow ApenetLinkCrcRisingWeekly ApenetSensorTrendingToLimit; do
	yq -e --arg a "$a" '[.groups[].rules[] | select(.alert == $a)] | length == 1' "$R" >/dev/null || fail "no alert $a in $R"
done

# --- the dashboard ----------------------------------------------------
G=$D/grafana/apenet.json
jq -e . "$G" >/dev/null || fail "$G is not JSON"
jq -e '.schemaVersion >= 36 and .uid != null and .title != null' "$G" >/dev/null || fail "$G: schemaVersion, uid or title"
jq -e '.__inputs | any(.name == "DS_PROMETHEUS" and .pluginId == "prometheus")' "$G" >/dev/null || fail "$G: no DS_PROMETHEUS input"
jq -e '.templating.list | any(.name == "instance" and .type == "query")' "$G" >/dev/null || fail "$G: no instance variable"
jq -e '[.. | objects | select(has("datasource") and (.datasource | type == "object") and .datasource.type == "prometheus") | .datasource.uid] | all(. == "${DS_PROMETHEUS}")' "$G" >/dev/null ||
	fail "$G: a datasource that is not \${DS_PROMETHEUS}"
jq -e '[.panels[] | select(.type != "row") | .targets | length > 0] | all' "$G" >/dev/null || fail "$G: a panel without a query"
jq -e '[.panels[].id] | length == (unique | length)' "$G" >/dev/null || fail "$G: duplicate panel ids"
jq -e '[.panels[] | .gridPos | .x + .w <= 24] | all' "$G" >/dev/null || fail "$G: a panel wider than the grid"
for title in "Link TX rate" "Link RX rate" "CRC errors" "Retransmissions" "Temperatures" "Sensor verdicts" \
	"LDM worst status per source" "Heartbeats" "Card verdict" "Open incidents" "Link certificates" \
	"Module RX power"; do
	jq -e --arg t "$title" '[.panels[].title] | any(startswith($t))' "$G" >/dev/null || fail "$G: no panel '$title'"
done
# each link's latest certificate: verdict, upper bound, target and age
# (time() - apenetCertTime), coloured when old
C='.panels[] | select(.title | startswith("Link certificates"))'
for m in apenetCertVerdict apenetCertUpper apenetCertTarget 'time() - apenetCertTime'; do
	jq -e --arg m "$m" "[$C | .targets[].expr | contains(\$m)] | any" "$G" >/dev/null || fail "$G: Link certificates has no $m query"
done
jq -e "$C | [.fieldConfig.overrides[] | .properties[] | select(.id == \"thresholds\") | .value.steps | length > 1] | any" "$G" >/dev/null ||
	fail "$G: Link certificates has no threshold for the certificate's age"
# the instance filter is in every node panel's query
jq -r '.panels[] | select(.type != "row") | .targets[].expr' "$G" | grep -v -E 'apenetIncident|apenetNode' |
	grep -v -F 'instance=~"$instance"' >"$tmp/nofilter" && { cat "$tmp/nofilter" >&2; fail "$G: node queries without the instance filter"; }
dash_check "$G" || fail "the dashboard uses what the module does not produce"
nexpr=$(wc -l <"$tmp/d.exprs")

# --- live: the generated modules against the real agent -----------------
SNMPD=/usr/sbin/snmpd
[ -x "$SNMPD" ] || fail "no $SNMPD (Debian snmpd; make test installs it)"
base=$(( 20000 + ($$ * 17) % 30000 ))
cat >"$tmp/snmpd.conf" <<EOF
master agentx
agentXSocket $tmp/agentx.sock
agentXPerms 0660 0770
rocommunity public 127.0.0.1
EOF
snmpd_start "$tmp"
SNMPPORT=$SNMPD_PORT

# node 0,0,0's Z+ cable optical (the others copper): its modules report
# their receivers' power and thresholds
cat >"$tmp/sim.yaml" <<EOF
cables:
  - node: 0,0,0
    link: Z+
    kind: optical
EOF
sim_start "$tmp/sim" --config "$tmp/sim.yaml" --dims 2x2x1 --seed 7 --ber-accel 1000
# a certificate for node 0,0,0's Y+ cable (apenet qualify; the BER clock
# runs 1000 times fast), in the database the agent reads
yup() { "$BIN/apenet" link --json --sim "$tmp/sim/node-0-0-0" 2>/dev/null | jq -e '.links[] | select(.name == "Y+") | .state == "up"' >/dev/null; }
wait_for 60 yup || fail "Y+ never came up"
"$BIN/apenet" qualify --link Y+ --db "$tmp/certs.db" --sim "$tmp/sim/node-0-0-0" --json </dev/null >"$tmp/q.json" 2>"$tmp/q.err" ||
	fail "qualify Y+: $(cat "$tmp/q.err")"
YSER=$(jq -r '.links[0].cable.serial' "$tmp/q.json")
[ -n "$YSER" ] && [ "$YSER" != null ] || fail "qualify Y+: no cable serial: $(cat "$tmp/q.json")"
mkdir -p "$tmp/sup" "$tmp/ag"
cat >"$tmp/sup/sup.yaml" <<EOF
cluster:
  dims: 2x2x1
supervisor:
  state_dir: $tmp/sup
  agentx_socket: $tmp/agentx.sock
  agentx_cache_ms: 300
EOF
supervisor_start "$tmp/sup"
cat >"$tmp/ag/agent.yaml" <<EOF
agent:
  state_dir: $tmp/ag/state
  blackbox_dir: $tmp/ag/blackbox
  socket: $tmp/ag/agent.sock
  edac_root: $tmp/ag/edac
  user: ""
  agentx_socket: $tmp/agentx.sock
  certificates_db: $tmp/certs.db
supervisors:
  targets: ["127.0.0.1:$SUPPORT"]
  heartbeat_s: 0.5
$(node_key "$tmp/ag" 0,0,0)
EOF
"$BIN/apenet-agent" --config "$tmp/ag/agent.yaml" --foreground --sim "$tmp/sim/node-0-0-0" 2>"$tmp/ag/log" &
AGENT=$!

EXPPORT=""
for try in 1 2 3 4 5 6 7 8; do
	p=$((base + 1200 + try * 41))
	prometheus-snmp-exporter --config.file="$S" --web.listen-address="127.0.0.1:$p" >"$tmp/exp.log" 2>&1 &
	EXP=$!
	if wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$p/metrics" && kill -0 $EXP 2>/dev/null; then
		EXPPORT=$p
		break
	fi
	kill $EXP 2>/dev/null
	wait $EXP 2>/dev/null
	EXP=""
done
[ -n "$EXPPORT" ] || fail "snmp_exporter did not start: $(cat "$tmp/exp.log")"
# scrape MODULE OUT: the exporter walks snmpd with MODULE
scrape() {
	curl -sf -o "$2" "http://127.0.0.1:$EXPPORT/snmp?module=$1&target=127.0.0.1:$SNMPPORT"
}
# the agent's tables with its first sample; the supervisor's with the
# agent's first heartbeat (the node it heard from is normal).  A scrape
# whose label lookups (the card's node, the link's name: GETs the exporter
# sends after the walk) timed out on a loaded machine carries empty labels:
# wait for one with them.
node_ready() { scrape apenet "$tmp/node.prom" && grep -q '^apenetLinkTxBytes{.*apenetCardNode="0,0,0"' "$tmp/node.prom" &&
	grep -q '^apenetWdDnpState{' "$tmp/node.prom" && grep -q '^apenetCertVerdict{.*apenetLinkName="Y+"} 2$' "$tmp/node.prom" &&
	grep -q '^apenetModuleRxPower{.*apenetLinkName="Z+"}' "$tmp/node.prom"; }
wait_for 30 node_ready || fail "no APENET-MIB node series from snmp_exporter: $(tail -n 20 "$tmp/node.prom" "$tmp/exp.log" "$tmp/ag/log")"
cluster_ready() { scrape apenet_cluster "$tmp/cluster.prom" && grep -q '^apenetNodeClass{.*apenetNodeClass="normal".*apenetNodeX="0",apenetNodeY="0",apenetNodeZ="0"} 1$' "$tmp/cluster.prom"; }
wait_for 30 cluster_ready || fail "no normal node 0,0,0 in the cluster scrape: $(grep apenetNodeClass "$tmp/cluster.prom" | head; tail -n 5 "$tmp/sup/log")"
# has NAME LABEL-REGEX VALUE-REGEX: that series is in the node scrape
has() {
	grep -E "^$1\{.*$2.*\} $3\$" "$tmp/node.prom" >/dev/null || fail "node scrape: no $1{$2} $3: $(grep "^$1{" "$tmp/node.prom" | head -3)"
}
has apenetLinkTxBytes 'apenetCardNode="0,0,0".*apenetLinkName="X\+"' '[0-9.e+]+'
has apenetLinkState 'apenetLinkName="X\+".*apenetLinkState="up"' 1
has apenetLinkState 'apenetLinkName="X\+".*apenetLinkState="down"' 0
has apenetLanePhase 'apenetLaneIndex="4".*apenetLinkName="Z-"' 5
has apenetSensorValue 'apenetSensorName="fpga_temp",apenetSensorUnit="C"' '[0-9]+'
has apenetSensorHighWarn 'apenetSensorName="fpga_temp",apenetSensorUnit="C"' 80
has apenetSensorHighFail 'apenetSensorName="fpga_temp",apenetSensorUnit="C"' 95
has apenetSensorLowWarn 'apenetSensorName="v12",apenetSensorUnit="mV"' 11400
grep -q '^apenetSensorLowWarn{.*apenetSensorName="fpga_temp"' "$tmp/node.prom" && fail "node scrape: an empty limit made a series"
has apenetLdmWorst 'apenetLdmNode="0,0,0",apenetLdmSource="own"' 1
has apenetCardSeverity 'apenetCardNode="0,0,0"' '[123]'
has apenetCardCode 'apenetCardCode="[A-Z_]+"' 1
has apenetWdDnpState 'apenetCardIndex="1"' 1
# the certificates: Y+'s cable passed (2) at the 1e-12 target, by the serial
# qualify read; X+'s has none (1, no bounds, time 0)
has apenetCertSerial "apenetCertSerial=\"$YSER\".*apenetLinkName=\"Y\\+\"" 1
has apenetCertVerdict 'apenetLinkName="Y\+"' 2
has apenetCertTarget 'apenetLinkName="Y\+"' '1e-12'
has apenetCertUpper 'apenetLinkName="Y\+"' '[0-9.]+e-[0-9]+'
has apenetCertVerdict 'apenetLinkName="X\+"' 1
has apenetCertTime 'apenetLinkName="X\+"' 0
grep -q '^apenetCertUpper{.*apenetLinkName="X+"' "$tmp/node.prom" && fail "node scrape: X+ has no certificate, but an upper bound"
# the optical Z+: each lane's RX power (mW) and the module's low thresholds,
# as apenet module reads them; the copper X+: none
"$BIN/apenet" module --json --sim "$tmp/sim/node-0-0-0" >"$tmp/mod.json" || fail "apenet module"
for k in 1 2 3 4; do
	has apenetModuleRxPower "apenetLaneIndex=\"$k\".*apenetLinkName=\"Z\\+\"" '0\.[0-9]+'
done
zw=$(jq -r '.modules[] | select(.port == "Z+") | .thresholds.rx_power_mW.low_warning' "$tmp/mod.json")
[ -n "$zw" ] && [ "$zw" != null ] || fail "apenet module: no Z+ RX power low warning: $(jq -c '.modules[] | select(.port == "Z+") | .thresholds' "$tmp/mod.json")"
has apenetModuleRxPowerLowWarn 'apenetLaneIndex="1".*apenetLinkName="Z\+"' "$zw"
z1=$(jq -r '.modules[] | select(.port == "Z+") | .monitors.lanes[0].rx_power_mW' "$tmp/mod.json")
s1=$(sed -n 's/^apenetModuleRxPower{.*apenetLaneIndex="1".*apenetLinkName="Z+".*} //p' "$tmp/node.prom")
[ "$(awk -v a="$z1" -v b="$s1" 'BEGIN { d = a - b; if (d < 0) d = -d; print (a > 0 && d <= a / 100) }')" = 1 ] ||
	fail "Z+ lane 1 RX power: scraped '$s1' mW, apenet module '$z1' mW"
grep -q '^apenetModuleRxPower{.*apenetLinkName="X+"' "$tmp/node.prom" && fail "node scrape: X+ is copper, but has an RX power"
ctime=$(sed -n 's/^apenetCertTime{.*apenetLinkName="Y+".*} //p' "$tmp/node.prom")
now=$(date +%s)
[ "$(echo "$ctime" | awk -v n="$now" '{ print ($1 > n - 600 && $1 <= n + 1) }')" = 1 ] ||
	fail "node scrape: Y+'s apenetCertTime '$ctime' is not the last minutes' ($now)"
grep -q '^snmp_scrape_pdus_returned ' "$tmp/node.prom" || fail "node scrape: no snmp_scrape_pdus_returned"
# every metric the rules and the dashboard use is in a scrape (up is
# Prometheus' own; no incident is open here)
cat "$tmp/r.exprs" "$tmp/d.exprs" >"$tmp/all.exprs"
check_exprs "rules and dashboard" "$tmp/all.exprs" /dev/null || fail "rules and dashboard (again)"
sed -E 's/[{ ].*//' "$tmp/node.prom" "$tmp/cluster.prom" | grep -v '^#' | sort -u >"$tmp/scraped"
while read -r m; do
	case $m in up | apenetIncidentOpened) continue ;; esac
	grep -q -x -F "$m" "$tmp/scraped" || fail "$m (used by the rules or the dashboard) is not in a real scrape"
done <"$tmp/used.metrics"
nlive=$(grep -c '^apenet' "$tmp/node.prom")

# --- the checks can fail ----------------------------------------------
# each: a broken copy, and the check that must reject it
mkdir "$tmp/bad"
sed 's/increase(apenetLinkHdrCrcErrors/increase(apenetLinkHdrCrcError/' "$R" >"$tmp/bad/r1.yml"
promtool check rules "$tmp/bad/r1.yml" >/dev/null 2>&1 || fail "promtool should accept the typo (valid PromQL)"
rules_check "$tmp/bad/r1.yml" 2>"$tmp/bad/out" && fail "a rule with a typo'd metric passed"
grep -q apenetLinkHdrCrcError "$tmp/bad/out" || fail "the typo'd metric was not named: $(cat "$tmp/bad/out")"
sed 's/rate(apenetLinkRetrans\[/rate(apenetLinkRetransRate[/' "$R" >"$tmp/bad/r2.yml"
rules_check "$tmp/bad/r2.yml" 2>/dev/null && fail "rate() of a gauge passed"
sed 's/apenetLdmSource!=/apenetLdmSrc!=/' "$R" >"$tmp/bad/r3.yml"
rules_check "$tmp/bad/r3.yml" 2>/dev/null && fail "a rule with a typo'd label passed"
sed 's/expr: apenetWdDnpState >= 3/expr: apenetWdDnpState >= >= 3/' "$R" >"$tmp/bad/r4.yml"
cmp -s "$R" "$tmp/bad/r4.yml" && fail "the syntax-error copy is not broken"
promtool check rules "$tmp/bad/r4.yml" >/dev/null 2>&1 && fail "promtool accepted a syntax error"
sed 's/apenetSensorValue{/apenetSensorValu{/' "$G" >"$tmp/bad/d1.json"
dash_check "$tmp/bad/d1.json" 2>/dev/null && fail "a dashboard with a typo'd metric passed"
# a trend rule on a metric the module does not produce
sed 's/predict_linear(apenetSensorValue\[6h\]/predict_linear(apenetSensorReading[6h]/' "$R" >"$tmp/bad/r5.yml"
cmp -s "$R" "$tmp/bad/r5.yml" && fail "the trend-rule copy is not broken"
promtool check rules "$tmp/bad/r5.yml" >/dev/null 2>&1 || fail "promtool should accept the trend typo (valid PromQL)"
rules_check "$tmp/bad/r5.yml" 2>"$tmp/bad/out" && fail "a trend rule on a metric the module lacks passed"
grep -q apenetSensorReading "$tmp/bad/out" || fail "the trend rule's metric was not named: $(cat "$tmp/bad/out")"
# trend rules without their short windows (the 6-hour fit, the 3-hour
# count): their promtool tests fail (a load step that stays; a burst)
mkdir "$tmp/bad/t1" "$tmp/bad/t2" "$tmp/bad/t3"
for t in t1 t2 t3; do cp "$D/prometheus/apenet-trends.test.yml" "$tmp/bad/$t/"; done
yq -y '(.groups[].rules[] | select(.alert == "ApenetSensorTrendingToLimit") | .expr) |= gsub("and\\s+predict_linear\\(apenetSensorValue\\[6h\\][^\\n]*\\n"; "")' \
	"$R" >"$tmp/bad/t1/apenet-alerts.yml"
yq -y '(.groups[].rules[] | select(.alert == "ApenetLinkCrcRisingWeekly") | .expr) |= sub("and\\s+\\(rate\\(apenetLinkHdrCrcErrors\\[3h\\][^\\n]*\\n[^\\n]*\\n?"; "")' \
	"$R" >"$tmp/bad/t2/apenet-alerts.yml"
yq -y '(.groups[].rules[] | select(.alert == "ApenetModuleRxPowerTrendingLow") | .expr) |= sub("and\\s+predict_linear\\(apenetModuleRxPower\\[6h\\][^\\n]*\\n"; "")' \
	"$R" >"$tmp/bad/t3/apenet-alerts.yml"
for t in t1 t2 t3; do
	grep -q '\[6h\]) / 1000 >=' "$tmp/bad/$t/apenet-alerts.yml" && grep -q 'HdrCrcErrors\[3h\]' "$tmp/bad/$t/apenet-alerts.yml" &&
		grep -q 'apenetModuleRxPower\[6h\]' "$tmp/bad/$t/apenet-alerts.yml" && fail "bad/$t: the short window is still there"
	promtool check rules "$tmp/bad/$t/apenet-alerts.yml" >/dev/null 2>&1 || fail "bad/$t: not valid PromQL"
	(cd "$tmp/bad/$t" && promtool test rules apenet-trends.test.yml) >/dev/null 2>&1 && fail "bad/$t: the trend tests passed without the short window"
done
sed 's/{{apenetLinkName}}/{{apenetLinkNam}}/' "$G" >"$tmp/bad/d2.json"
dash_check "$tmp/bad/d2.json" 2>/dev/null && fail "a dashboard with a typo'd legend label passed"
mkdir "$tmp/bad/g1" "$tmp/bad/g2"
sed 's/- apenetLaneTable/- apenetLanesTable/' "$D/snmp_exporter/generator.yml" >"$tmp/bad/g1/generator.yml"
gen "$tmp/bad/g1" && fail "the generator accepted a walk of an unknown table"
resolve "$tmp/bad/g1/generator.yml" 2>/dev/null && fail "resolve accepted an unknown table"
sed 's/^      apenetLinkPartnerLink:/      apenetLinkPartnerLnk:/' "$D/snmp_exporter/generator.yml" >"$tmp/bad/g2/generator.yml"
cmp -s "$D/snmp_exporter/generator.yml" "$tmp/bad/g2/generator.yml" && fail "the override copy is not broken"
resolve "$tmp/bad/g2/generator.yml" 2>/dev/null && fail "resolve accepted an override of an unknown object"

echo "ok: generator.yml -> snmp.yml ($(wc -l <"$tmp/metrics") metrics), $nrules rules (promtool check + test), dashboard ($nexpr queries) use only its metrics and labels; live scrape of the agent: $nlive series"
