#!/bin/sh
# Writes docs/commands/*.md: one page per command, with real output captured
# from an emulated 4x4x1 torus (and a v5 pair for an optical QSFP+ module, a
# NaNet KM3 for SFP+ modules).
#   sh tools/command-docs.sh [BIN]
set -eu
BIN=${1:-build/bin}
OUT=docs/commands
T=$(mktemp -d /tmp/apenet-docs-XXXXXX)
trap 'kill -TERM $P1 $P2 $P3 $P4 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
"$BIN/apenet-sim" run --dims 4x4x1 --dir "$T/q" --seed 11 2>/dev/null & P1=$!
printf 'dims: 2x1x1\nvariant: apenet-v5\n' >"$T/v5.yaml"
"$BIN/apenet-sim" run --config "$T/v5.yaml" --dir "$T/v5" 2>/dev/null & P2=$!
"$BIN/apenet-sim" run --variant nanet-km3 --dims 1x1x1 --dir "$T/km3" 2>/dev/null & P3=$!
# BER tests: a pair whose checkers count 1000 times faster than wall time
"$BIN/apenet-sim" run --dims 2x1x1 --ber-accel 1000 --dir "$T/ber" --seed 3 2>/dev/null & P4=$!
until [ -e "$T/q/ready" ] && [ -e "$T/v5/ready" ] && [ -e "$T/km3/ready" ] && [ -e "$T/ber/ready" ]; do sleep 0.1; done
sleep 1
N=$T/q/node-1-0-0
A="$BIN/apenet"
inj() { "$BIN/apenet-sim" inject --dir "$T/q" "$@" >/dev/null; }
run() { # shown command line, then the command
	shown=$1; shift
	printf '```console\n$ %s\n' "$shown"
	"$@" 2>&1 | sed "s|$T|/tmp/quong|g" || true
	printf '```\n\n'
}
page() { # name, title, text
	f=$OUT/$1.md
	printf '# apenet %s\n\n%s\n\n' "$1" "$2" >"$f"
}

page list "Every APEnet card on the machine (or the emulated node): BDF, variant, firmware, node
coordinates, and the PCIe link trained against what it can do, flagged when it trained below.
Exit 1 when a link is degraded, 2 when no card is found or a card does not respond."
{ run "apenet list --sim /tmp/quong/node-1-0-0" "$A" list --sim "$N"
  run "apenet list   # on a machine without a card" env -u APENET_SIM_DIR "$A" list; } >>$OUT/list.md

page regs "A named dump of every register of the card, read as one consistent snapshot (GEN seqlock),
with fields decoded. \`--json\` and \`--csv\` carry the same. Shown: the start of the dump."
{ run "apenet regs --sim /tmp/quong/node-1-0-0 | head -30" sh -c "'$A' regs --sim '$N' | head -30"; } >>$OUT/regs.md

inj --node 2,0,0 dnp-hang
inj --node 1,0,0 lane-dead --link Y+ --lane 2
inj --node 1,0,0 overheat --celsius 86
sleep 1.5
page status "Identity; sensors against their thresholds; the mutual watchdog; the DNP's own LDM decoded;
the LDM last received on each link, decoded, with its age; an overall verdict with every finding.
Here node 2,0,0's DNP is hung, lane 2 of Y+ is dead and the FPGA runs hot."
{ run "apenet status --sim /tmp/quong/node-1-0-0" "$A" status --sim "$N"
  run "apenet status --json ... | jq '.verdict, .watchdog'" sh -c "'$A' status --json --sim '$N' | jq '.verdict, .watchdog'"; } >>$OUT/status.md

page link "Per link and per lane: state and bring-up phase, the partner (from the ALIGN OK words) against the
torus neighbour it should face, rates over the interval from counter and TIMESTAMP deltas (counters
are never cleared), CRC/retransmission/payload error rates, 8b/10b errors per lane, FIFO levels,
the bandwidth the efficiency model allows against what the link carries, and a verdict.
\`--interval S\` (default 1), \`--from FILE\` to replay a snapshot, \`--config FILE\` for thresholds."
{ run "apenet link --sim /tmp/quong/node-1-0-0   # one row per link, then the findings" "$A" link --sim "$N"
  run "apenet link Y+ --sim /tmp/quong/node-1-0-0   # everything about one link" "$A" link Y+ --sim "$N"
  run "apenet link --json ... | jq -c '.links[] | [.name, .state, .verdict.code]'" sh -c "'$A' link --json --sim '$N' | jq -c '.links[] | [.name, .state, .verdict.code]'"; } >>$OUT/link.md
inj --node 1,0,0 clear
inj --node 2,0,0 clear

page model "The link efficiency model of SPEC §2 on its own: E1 (protocol), E2 (credits), E3 (waiting at T_RED),
E_T and the maximum payload bandwidth in MB/s (10^6 bytes/s). \`--fifo-depth\` counts 128-bit entries,
the unit of the TWEPP 2013 paper (\`512\` = 512 entries = 8 KiB); with a suffix it is bytes (\`8KiB\`,
\`16K\`, \`16384B\`; K and M are powers of 1024), and it must be a whole number of entries.
(Before issue 7 a bare number meant bytes: \`--fifo-depth 16384\` is now 16384 entries, write
\`16K\` or \`1024\`.) \`--link-gbps\` is the raw link rate (lanes x lane rate). \`--table\` prints the
paper's depths (512, 1024, 2048, 4096 entries) at 28 and 34 Gbps."
{ run "apenet model --fifo-depth 1024 --link-gbps 28" "$A" model --fifo-depth 1024 --link-gbps 28
  run "apenet model --fifo-depth 8KiB --link-gbps 34 --json | jq -c '{E3, max_payload_MBps}'" sh -c "'$A' model --fifo-depth 8KiB --link-gbps 34 --json | jq -c '{E3, max_payload_MBps}'"
  run "apenet model --table" "$A" model --table; } >>$OUT/model.md

page ber-plan "The bits and the wall time it takes to certify a target BER at a confidence (one-sided), allowing
E errors: a table for E = 0..5, or the row of \`--errors E\`. \`bits\` is the statistical minimum, what a test
fixed in advance must check with at most E errors (chi2_CL(2E + 2) / 2 / target: 2.996e12 for 1e-12 at
95% with none); \`lane\` is its time on one lane at \`--gbps\` (the line rate of one lane), which is also
the time for all lanes tested at once, each certified on its own; \`pooled\` is the time when the
\`--lanes N\` lanes (default 4) are pooled into one claim about their common BER (valid only for lanes
that share one BER claim). The \`sequential\` columns are what \`apenet ber\`'s early-stopping test needs
when it sees E errors, and the confidence that look works at: 1.005x the minimum without errors, more
with errors, so that checking again and again stays right at the CL overall. Text shows durations;
JSON and CSV give seconds (\`lane_s\`, ...). docs/ber.md explains the statistics. No card needed."
{ run "apenet ber-plan --target 1e-12 --cl 0.95 --gbps 7" "$A" ber-plan --target 1e-12 --cl 0.95 --gbps 7
  run "apenet ber-plan --target 1e-15 --cl 0.99 --gbps 10 --lanes 4 --errors 0 --json | jq -c '.plan[0]'" \
	sh -c "'$A' ber-plan --target 1e-15 --cl 0.99 --gbps 10 --lanes 4 --errors 0 --json | jq -c '.plan[0]'"
  run "apenet ber-plan --target 1e-12 --cl 95 --gbps 7; echo \"exit \$?\"   # CL is a fraction" \
	sh -c "'$A' ber-plan --target 1e-12 --cl 95 --gbps 7; echo \"exit \$?\""; } >>$OUT/ber-plan.md

B0=$T/ber/node-0-0-0
page ber "A PRBS bit error rate test of a link's lanes, both ends started from this host: the far end through
the link itself (the remote-register window, every far lane in one request, FOLLOW so that it goes back to
traffic with this end). Each lane is judged by the sequential test of docs/ber.md: PASS as soon as the bits
counted with the errors seen prove BER < \`--target\` at \`--cl\` (1.005x the statistical minimum
without errors), FAIL as soon as the lower bound exceeds it. \`--both-ends\` also reads the far end's
checkers (this end -> far end), after both ends stopped, and judges them once at that length;
each lane then says \`from\` and \`to\`. \`--bits N\` or \`--duration S\` fix the length in
advance instead. Bits come from the checkers' counters; \`accelerated\` is BER_ACCEL (> 1 only in an
emulation that counts faster than wall time). The link carries no traffic during the test and is back
in it when the command returns, Ctrl-C included. Exit 0 pass, 1 fail or not proven, 2 could not run
or interrupted. Shown on an emulated pair counting 1000x faster: a clean cable, then one whose lane 2
towards node 1,0,0 is weak (the emulator's \`lane-ber\` fault at 1,0,0)."
{ run "apenet ber --link X+" "$A" ber --link X+ --sim "$B0"
  "$BIN/apenet-sim" inject --dir "$T/ber" --node 1,0,0 lane-ber --link X- --lane 2 --ber 1e-9 >/dev/null
  run "apenet ber --link X+ --both-ends --json | jq -c '.verdict, (.lanes[] | select(.verdict != \"pass\"))'" \
	sh -c "'$A' ber --link X+ --both-ends --json --sim '$B0' | jq -c '.verdict, (.lanes[] | select(.verdict != \"pass\"))'"
  "$BIN/apenet-sim" inject --dir "$T/ber" --node 1,0,0 clear >/dev/null; } >>$OUT/ber.md

page latency-check "Realigns a link N times (\`--resets\`, default 20) and counts the one-way latencies the card
measured at each alignment (LINK_LATENCY_PS, ID_CAPS.LATENCY): a link that carries timing (KM3link,
APElink) must land on the same latency every time. One value passes (exit 0); more than one is
LATENCY_NOT_DETERMINISTIC (exit 1). Exit 2 when the card does not measure latency, the link does not
come back up within \`--timeout-ms\` (default 5000; its state is named) or the card is gone. The
link carries no traffic while it realigns. Shown: a clean link, then the emulator's
\`latency-jitter\` fault."
{ run "apenet latency-check --link X+ --resets 20 --sim /tmp/quong/node-1-0-0" "$A" latency-check --link X+ --resets 20 --sim "$N"
  inj --node 1,0,0 latency-jitter --link X+
  run "apenet latency-check --link X+ --resets 20 --sim /tmp/quong/node-1-0-0; echo \"exit \$?\"   # with latency-jitter" \
	sh -c "'$A' latency-check --link X+ --resets 20 --sim '$N'; echo \"exit \$?\""
  inj --node 1,0,0 clear; } >>$OUT/latency-check.md

hex=$("$A" snapshot --interval 0 --sim "$N" | jq -r '.modules[0].eeprom')
printf '%s' "$hex" | perl -ne 'print pack("H*", $_)' >"$T/xplus.bin"
page module "Each port's module EEPROM decoded as \`ethtool -m\` does: QSFP+ modules (SFF-8636) on the
torus links, SFP/SFP+ modules (SFF-8472, A0h and A2h) on NaNet KM3 and NaNet-10. Identifier,
connector, compliance, vendor, part, serial, date, lengths, copper attenuation or wavelength,
digital monitoring (externally calibrated SFPs converted with their own constants) with
thresholds and flags, every check code verified. One judge (docs/verdicts.md) turns every
condition into a finding of its own, per lane, with the reading, the threshold and the unit; each
module gets a verdict. A monitor the module does not implement, and thresholds never programmed,
show as \"-\" (null in JSON) and are not judged; nor are a copper cable's optical monitors.
\`--eeprom-file FILE\` decodes a raw dump as \`ethtool -m DEV raw on > FILE\` writes it: 256 or 640
bytes for a QSFP, 256 (A0h) or 512 (A0h, A2h) for an SFP. A file that is neither exits 2 naming its
identifier and size; with \`--json\` an error object goes to stdout too."
{ run "apenet module X --sim /tmp/quong/v5/node-0-0-0   # an optical QSFP+ module" "$A" module X --sim "$T/v5/node-0-0-0"
  run "apenet module KM3link0 --sim /tmp/quong/km3/node-0-0-0   # an SFP with diagnostics" "$A" module KM3link0 --sim "$T/km3/node-0-0-0"
  run "apenet module --eeprom-file xplus.bin   # a copper cable's raw dump" "$A" module --eeprom-file "$T/xplus.bin"
  head -c 300 "$T/xplus.bin" >"$T/cut.bin"
  run "apenet module --json --eeprom-file cut.bin   # not a module image: exit 2" "$A" module --json --eeprom-file "$T/cut.bin"; } >>$OUT/module.md

inj --node 0,0,0 cable-swap --link X+ --with 0,0,0:X-
inj --node 3,1,0 cable-unplug --link Y-
printf 'cluster:\n  dims: 4x4x1\n  wraparound: true\n  nodes:\n    - name: quong01\n      node: 0,0,0\n' >"$T/cluster.yaml"
sleep 1
page cabling "Compares every link's observed partner (LINK_PARTNER, from the ALIGN OK words) with the torus and
prints a punch list: missing, swapped, crossed, wrong-port, unexpected, inconsistent, unreachable,
layout. One record per physical fault, each also a finding (docs/verdicts.md, \"Cabling\"). Without
a config the torus is the one the boards declare (TORUS_DIMS, which must agree; wraparound in every
dimension); \`--config\` adds node names and the expected cabling (dims, wraparound). Input: an
emulated cluster (\`--sim-cluster DIR\`) or \`apenet snapshot\` files gathered from every node (e.g.
with pdsh). The judging is lofamo/cabling.c; the command only gathers and prints."
{ run "apenet cabling --sim-cluster /tmp/quong   # no config: the boards' own 4x4x1 torus" "$A" cabling --sim-cluster "$T/q"
  printf 'With a config naming a node:\n\n```yaml\n'; cat "$T/cluster.yaml"; printf '```\n\n'
  run "apenet cabling --config cluster.yaml --sim-cluster /tmp/quong --json | jq -c '.problems[0] | {kind, a, b}'" sh -c "'$A' cabling --config '$T/cluster.yaml' --sim-cluster '$T/q' --json | jq -c '.problems[0] | {kind, a, b}'"
  printf 'From snapshot files:\n\n```console\n$ pdsh -w quong[01-16] apenet snapshot --json > ... # one file per node\n$ apenet cabling snaps/*.json\n```\n'; } >>$OUT/cabling.md

page config "\`apenet config check [FILE]\` validates a config (else the one the tools would use: \`--config\`,
\`\$APENET_CONFIG\`, the installed SYSCONFDIR/apenet/apenet.yaml, or the defaults) and prints the
configuration in effect: every threshold with its value, unit, whether the file set it, its
default and range, the node agent's and the supervisor's settings the same way, and the cluster
layout. Errors name FILE:LINE:COLUMN and exit 2. See docs/config.md and the shipped
etc/apenet/apenet.yaml."
printf 'thresholds:\n  crc_warn_per_min: 0.5\n  crc_warn: 1\n' >"$T/typo.yaml"
AA=$(cd "$BIN" && pwd)/apenet # the page runs it from the config's directory
{ run "apenet config check cluster.yaml" sh -c "cd '$T' && '$AA' config check cluster.yaml"
  run "apenet config check typo.yaml" sh -c "cd '$T' && '$AA' config check typo.yaml"; } >>$OUT/config.md

page snapshot "Everything the other commands read (PCI view, two register samples an interval apart,
module pages) as one JSON document. Every command that reads a board takes \`--from FILE\` to
replay it offline: no card needed."
{ run "apenet snapshot --sim /tmp/quong/node-1-0-0 > n1.json; jq -c '{schema, command, bdf, variant, samples: (.samples | length)}' n1.json" \
	sh -c "'$A' snapshot --sim '$N' | jq -c '{schema, command, bdf, variant, samples: (.samples | length)}'"
  "$A" snapshot --sim "$N" >"$T/n1.json"
  run "apenet link X+ --from n1.json | head -12" sh -c "'$A' link X+ --from '$T/n1.json' | head -12"; } >>$OUT/snapshot.md

page watch "Live rates per link every interval, in the manner of ibswportwatch and \`cxi_stat -p\`, until
interrupted (\`--count N\` stops after N samples). \`--json\` writes one document per sample.
(The torus still carries faults injected for the pages above: a degraded Y+, a swapped plug at 0,0,0.)"
{ run "apenet watch --interval 0.5 --count 2 --sim /tmp/quong/node-1-0-0" "$A" watch --interval 0.5 --count 2 --sim "$N"; } >>$OUT/watch.md
# The supervisors' side: a cluster of its own (tools/cluster.sh: 16 agents,
# two supervisors), a card gone, then health and db.
CL=$T/cl
CLUSTER_DIR=$CL PORT1=$(( 30000 + $$ % 20000 )) PORT2=$(( 30001 + $$ % 20000 )) sh tools/cluster.sh "$BIN" >/dev/null 2>&1 & P4=$!
trap 'kill -TERM $P1 $P2 $P3 $P4 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
until [ -e "$CL/ready" ]; do sleep 0.1; done
until "$A" health --config "$CL/cluster.yaml" --json 2>/dev/null | jq -e '.summary.normal == 16' >/dev/null; do sleep 0.2; done
"$BIN/apenet-sim" inject --dir "$CL/sim" --node 1,1,0 card-gone >/dev/null
until "$A" health --config "$CL/cluster.yaml" --json 2>/dev/null | jq -e '.summary.open_incidents == 1' >/dev/null; do sleep 0.2; done
cs() { sed "s|$CL|/var/lib/apenet|g"; }
page health "The cluster as the two supervisors see it, from their health databases (read-only; without
\`--db\`, every \`supervisor.db\` of the config): nodes normal, sick, broken and silent, incidents
with their component, rule, first fault and evidence, nodes worst first, and where the two
databases disagree. \`--node X,Y,Z\` shows one node's links with both ends' view. Exit 1 while an
incident is open. Here node 1,1,0's card fell off the bus (\`make cluster\`, docs/supervisor.md)."
{ printf '```console\n$ apenet health\n'; "$A" health --config "$CL/cluster.yaml" 2>&1 | cs; printf '```\n\n'
  printf '```console\n$ apenet health --db /var/lib/apenet/health-1.db --json | jq -c %s\n' "'.incidents[] | {id, component, node: .node.x|tostring, rule, first_fault: .first_fault.text, evidence: (.evidence | length)}'"
  "$A" health --db "$CL/health-1.db" --json 2>&1 | jq -c '.incidents[] | {id, component, node: .node.x|tostring, rule, first_fault: .first_fault.text, evidence: (.evidence | length)}'; printf '```\n\n'
  printf '```console\n$ apenet health --db /var/lib/apenet/health-1.db --node 1,2,0\n'; "$A" health --db "$CL/health-1.db" --node 1,2,0 2>&1 | cs; printf '```\n\n'; } >>$OUT/health.md
"$BIN/apenet-sim" inject --dir "$CL/sim" --node 1,1,0 clear >/dev/null
until "$A" health --config "$CL/cluster.yaml" --json 2>/dev/null | jq -e '.summary.open_incidents == 0' >/dev/null; do sleep 0.2; done
page db "Upkeep of a health database: \`check\` (PRAGMA integrity_check, foreign keys, the schema version and
the library's own invariants; exit 1 on a problem), \`vacuum\`, \`export\` of a window as JSON lines
(transitions, incidents and their evidence), \`retention\` now. A file that is not a health
database, a damaged or a newer one is refused and left unchanged."
{ printf '```console\n$ apenet db check --db /var/lib/apenet/health-1.db\n'; "$A" db check --db "$CL/health-1.db" 2>&1 | cs; printf '```\n\n'
  printf '```console\n$ apenet db export --db /var/lib/apenet/health-1.db | jq -r .type | sort | uniq -c\n'; "$A" db export --db "$CL/health-1.db" | jq -r .type | sort | uniq -c; printf '```\n\n'
  printf '```console\n$ apenet db export --db /var/lib/apenet/health-1.db | grep incident | head -1\n'; "$A" db export --db "$CL/health-1.db" | grep '"type":"incident"' | head -1; printf '```\n\n'
  head -c 4096 /dev/urandom >"$T/junk.db"
  printf '```console\n$ apenet db check --db junk.db; echo "exit $?"\n'; { "$A" db check --db "$T/junk.db" 2>&1 && echo "exit 0" || echo "exit $?"; } | sed "s|$T/||"; printf '```\n\n'; } >>$OUT/db.md
echo "wrote $OUT/*.md"
