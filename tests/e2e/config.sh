#!/bin/sh
# apenet config check: which file is used (argument, --config, $APENET_CONFIG,
# the installed one, the defaults), every threshold with its value, unit and
# source, the agent's settings, where the agents report (supervisors:, the
# passphrases never shown) and the supervisor's settings, the cluster layout,
# errors as file:line:column with exit 2; the shipped etc/apenet/apenet.yaml;
# and `make install` twice into a temporary DESTDIR, never overwriting the
# site's config.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-config-XXXXXX)
trap 'rm -rf "$T"' EXIT
unset APENET_SIM_DIR APENET_CONFIG
A="$BIN/apenet"
SRC=${APENET_SRCDIR:-.}
SHIPPED="$SRC/etc/apenet/apenet.yaml"

# The keys of the shipped file: every threshold the loader knows, no more.
keys_shipped=$(sed -n '/^thresholds:/,/^[a-z]/s/^  \([a-z_0-9]*\): .*/\1/p' "$SHIPPED" | sort | tr '\n' ' ')
# ...and every agent setting.
agent_shipped=$(sed -n '/^agent:/,/^[a-z]/s/^  \([a-z_0-9]*\): .*/\1/p' "$SHIPPED" | sort | tr '\n' ' ')
# ...and every supervisor setting (the `supervisor:` section, not the agents' `supervisors:`).
svr_shipped=$(sed -n '/^supervisor:/,/^[a-z]/s/^  \([a-z_0-9]*\): .*/\1/p' "$SHIPPED" | sort | tr '\n' ' ')
# ...and where the agents report (`supervisors:`): the keys it sets, and every
# key it names, commented out ones too (spool)
sups_set=$(sed -n '/^supervisors:/,/^[a-z]/s/^  \([a-z_0-9]*\): .*/\1/p' "$SHIPPED" | sort | tr '\n' ' ')
sups_shipped=$(sed -n '/^supervisors:/,/^[a-z]/s/^  \(# \)\{0,1\}\([a-z_0-9]*\): .*/\2/p' "$SHIPPED" | sort | tr '\n' ' ')

# No file anywhere: the defaults (or the installed file, when this machine has one).
"$A" config check --json >"$T/d.json" || fail "defaults: exit $?"
inst=$(jq -r .source.installed_path "$T/d.json")
if [ -e "$inst" ]; then want=installed\ default; else want=defaults; fi
jq -e --arg w "$want" '.source.from == $w and .source.valid and (.findings == []) and (.cluster.given | not)' "$T/d.json" >/dev/null ||
	fail "defaults: $(jq -c .source "$T/d.json")"
keys_loader=$(jq -r '.thresholds[].key' "$T/d.json" | sort | tr '\n' ' ')
[ "$keys_loader" = "$keys_shipped" ] || fail "loader keys '$keys_loader' != shipped keys '$keys_shipped'"
jq -e 'all(.thresholds[]; .unit != "?" and (.meaning | length > 0) and .value == .default and .min <= .default and .default <= .max)' \
	"$T/d.json" >/dev/null || fail "threshold rows"
agent_loader=$(jq -r '.agent[].key' "$T/d.json" | sort | tr '\n' ' ')
[ "$agent_loader" = "$agent_shipped" ] || fail "agent keys '$agent_loader' != shipped '$agent_shipped'"
jq -e 'all(.agent[]; (.meaning | length > 0) and .value == .default and (.min == null or (.min <= .default and .default <= .max)))' \
	"$T/d.json" >/dev/null || fail "agent rows"
jq -e '[.agent[] | select(.key == "period_ms" or .key == "socket" or .key == "blackbox_dir")] |
	map({(.key): .value}) | add == {"period_ms": 100, "socket": "/run/apenet/agent.sock", "blackbox_dir": "/var/lib/apenet/blackbox"}' \
	"$T/d.json" >/dev/null || fail "agent defaults: $(jq -c .agent "$T/d.json")"
svr_loader=$(jq -r '.supervisor[].key' "$T/d.json" | sort | tr '\n' ' ')
[ "$svr_loader" = "$svr_shipped" ] || fail "supervisor keys '$svr_loader' != shipped '$svr_shipped'"
jq -e 'all(.supervisor[]; (.meaning | length > 0) and .value == .default and (.min == null or (.min <= .default and .default <= .max)))' \
	"$T/d.json" >/dev/null || fail "supervisor rows"
jq -e '[.supervisor[] | select(.key == "silent_ms" or .key == "listen")] | map({(.key): .value}) | add ==
	{"silent_ms": 3500, "listen": "0.0.0.0:162,0.0.0.0:10162"}' "$T/d.json" >/dev/null ||
	fail "supervisor defaults: $(jq -c .supervisor "$T/d.json")"
sups_loader=$(jq -r '.supervisors[].key' "$T/d.json" | sort | tr '\n' ' ')
[ "$sups_loader" = "$sups_shipped" ] || fail "supervisors keys '$sups_loader' != shipped '$sups_shipped'"
jq -e 'all(.supervisors[]; (.meaning | length > 0) and .value == .default and (.min == null or (.min <= .default and .default <= .max)))' \
	"$T/d.json" >/dev/null || fail "supervisors rows: $(jq -c .supervisors "$T/d.json")"
jq -e '[.supervisors[] | select(.key == "targets" or .key == "heartbeat_s" or .key == "version")] | map({(.key): .value}) | add ==
	{"targets": "apenet-sup1:162,apenet-sup2:162", "heartbeat_s": 1, "version": "3"}' "$T/d.json" >/dev/null ||
	fail "supervisors defaults: $(jq -c .supervisors "$T/d.json")"
if [ ! -e "$inst" ]; then
	jq -e 'all(.thresholds[]; .source == "default") and .source.file == null' "$T/d.json" >/dev/null || fail "defaults source"
fi
# set but empty: the defaults even with an installed file
APENET_CONFIG= "$A" config check --json | jq -e '.source.file == null and (.source.from | test("empty"))' >/dev/null ||
	fail "APENET_CONFIG empty"

# A file: the keys it sets come from it, the others keep their defaults.
cat >"$T/site.yaml" <<'Y'
cluster:
  dims: 4x4x1
  wraparound: xy
  nodes:
    - { name: quong01, node: "0,0,0" }
    - { name: quong02, node: "1,0,0" }
thresholds:
  crc_warn_per_min: 0.5
  fpga_temp_warn_c: 75
Y
check_site() { # FILE: the site's settings, as config check shows them
	jq -e '.source.valid and .cluster.given and .cluster.torus == "4x4x1" and .cluster.wraparound == "xy" and
		.cluster.nodes == 16 and .cluster.named == 2 and .cluster.names[1].name == "quong02" and
		.cluster.names[1].node == {"x":1,"y":0,"z":0}' "$1" >/dev/null || return 1
	jq -e '[.thresholds[] | select(.source == "file") | .key] | sort == ["crc_warn_per_min","fpga_temp_warn_c"]' "$1" >/dev/null || return 1
	jq -e '.thresholds[] | select(.key == "crc_warn_per_min") | .value == 0.5 and .default == 1 and .unit == "errors/min"' "$1" >/dev/null || return 1
	jq -e '.thresholds[] | select(.key == "fpga_temp_fail_c") | .value == 95 and .source == "default"' "$1" >/dev/null
}
"$A" config check "$T/site.yaml" --json >"$T/a.json" || fail "argument: exit $?"
check_site "$T/a.json" || fail "argument: $(cat "$T/a.json")"
jq -e --arg f "$T/site.yaml" '.source.file == $f and .source.from == "argument"' "$T/a.json" >/dev/null || fail "argument source"
"$A" config check --config "$T/site.yaml" --json >"$T/b.json" || fail "--config: exit"
check_site "$T/b.json" && jq -e '.source.from == "--config"' "$T/b.json" >/dev/null || fail "--config"
APENET_CONFIG="$T/site.yaml" "$A" config check --json >"$T/c.json" || fail "env: exit"
check_site "$T/c.json" && jq -e '.source.from == "$APENET_CONFIG"' "$T/c.json" >/dev/null || fail "env"
# the argument wins over the environment
APENET_CONFIG="$T/nowhere.yaml" "$A" config check "$T/site.yaml" >/dev/null || fail "argument over env"
# text: one table row a threshold
"$A" config check "$T/site.yaml" >"$T/t.txt" || fail "text"
awk '$1 == "crc_warn_per_min" && $2 == "0.5" && $3 == "errors/min" && $4 == "file" { ok = 1 } END { exit !ok }' "$T/t.txt" ||
	fail "text row: $(grep crc_warn "$T/t.txt")"

# Errors: file:line:column, exit 2, nothing on stdout.
printf 'thresholds:\n  crc_warn_per_min: lots\n' >"$T/bad.yaml"
"$A" config check "$T/bad.yaml" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "bad.yaml:2:21: 'crc_warn_per_min': 'lots' is not a number" "$T/err" && [ ! -s "$T/out" ] ||
	fail "bad number: $rc $(cat "$T/err")"
printf 'cluster:\n  dims: 4x4x1\n  nodes:\n    - { name: a, node: "0,0,0" }\n    - { name: a, node: "1,0,0" }\n' >"$T/dup.yaml"
"$A" config check "$T/dup.yaml" 2>"$T/err"; [ $? -eq 2 ] && grep -q "dup.yaml:5:15: node name 'a' given twice" "$T/err" ||
	fail "duplicate name: $(cat "$T/err")"
printf 'thresholds:\n  crc_warn: 1\n' >"$T/key.yaml"
APENET_CONFIG="$T/key.yaml" "$A" config check 2>"$T/err"; [ $? -eq 2 ] && grep -q "key.yaml:2:3: unknown key 'crc_warn'" "$T/err" ||
	fail "unknown key via env: $(cat "$T/err")"
"$A" config check "$T/none.yaml" 2>"$T/err"; [ $? -eq 2 ] && grep -q "none.yaml" "$T/err" || fail "missing file"
"$A" config 2>"$T/err"; [ $? -eq 2 ] && grep -q "config check" "$T/err" || fail "no subcommand"
"$A" config check "$T/site.yaml" --config "$T/site.yaml" 2>/dev/null; [ $? -eq 2 ] || fail "file twice"

# The shipped file loads and sets every threshold to its default.
"$A" config check --json "$SHIPPED" >"$T/s.json" || fail "shipped: exit $?"
jq -e 'all(.thresholds[]; .source == "file" and .value == .default) and (.cluster.given | not)' "$T/s.json" >/dev/null ||
	fail "shipped: $(jq -c '[.thresholds[] | select(.source != "file" or .value != .default)]' "$T/s.json")"
jq -e 'all(.agent[]; .source == "file" and .value == .default)' "$T/s.json" >/dev/null ||
	fail "shipped agent: $(jq -c '[.agent[] | select(.source != "file" or .value != .default)]' "$T/s.json")"
jq -e 'all(.supervisor[]; .source == "file" and .value == .default)' "$T/s.json" >/dev/null ||
	fail "shipped supervisor: $(jq -c '[.supervisor[] | select(.source != "file" or .value != .default)]' "$T/s.json")"
got=$(jq -r '.supervisors[] | select(.source == "file") | .key' "$T/s.json" | sort | tr '\n' ' ')
[ "$got" = "$sups_set" ] && jq -e 'all(.supervisors[]; .value == .default or .key == "spool")' "$T/s.json" >/dev/null ||
	fail "shipped supervisors: set '$got', want '$sups_set': $(jq -c .supervisors "$T/s.json")"
# where the agents report, from a file: in JSON and in text, the key file's
# path (its keys are never in the config), the spool in the agent's state_dir
# unless given; the passphrases of old configs refused with what to write
printf 'agent:\n  state_dir: /srv/ag\nsupervisors:\n  targets: ["10.0.0.1:162", "10.0.0.2:10162"]\n  version: 3\n  key_file: /srv/n.key\n  heartbeat_s: 0.5\n' >"$T/sup.yaml"
"$A" config check --json "$T/sup.yaml" >"$T/sup.json" || fail "supervisors from a file: exit $?"
jq -e '[.supervisors[] | select(.source == "file") | {(.key): .value}] | add ==
	{"targets": "10.0.0.1:162,10.0.0.2:10162", "version": "3", "key_file": "/srv/n.key", "heartbeat_s": 0.5}' \
	"$T/sup.json" >/dev/null || fail "supervisors from a file: $(jq -c .supervisors "$T/sup.json")"
jq -e '.supervisors[] | select(.key == "spool") | .value == "/srv/ag/spool.db" and .source == "default"' "$T/sup.json" >/dev/null ||
	fail "supervisors spool: $(jq -c '.supervisors[] | select(.key == "spool")' "$T/sup.json")"
"$A" config check "$T/sup.yaml" >"$T/sup.txt" || fail "supervisors text: exit $?"
grep -q '^supervisors:$' "$T/sup.txt" && grep -q '^supervisor:$' "$T/sup.txt" || fail "supervisors text: no section: $(cat "$T/sup.txt")"
sed -n '/^supervisors:/,/^supervisor:/p' "$T/sup.txt" | awk '$1 == "heartbeat_s" && $2 == "0.5" && $3 == "s" && $4 == "file" && $5 == "1" { ok = 1 }
	END { exit !ok }' || fail "supervisors text row: $(grep heartbeat_s "$T/sup.txt")"
printf 'supervisors:\n  version: 3\n  auth_pass: "s3cret-auth"\n' >"$T/old.yaml"
"$A" config check "$T/old.yaml" 2>"$T/err" >/dev/null
[ $? -eq 2 ] && grep -q "old.yaml:3:14: 'auth_pass': SNMPv3 uses per-node key files now" "$T/err" || fail "old passphrase: $(cat "$T/err")"
! grep -q s3cret "$T/err" || fail "a passphrase shown"
# an agent setting from a file, and a bad one named by file:line:column
printf 'agent:\n  period_ms: 50\n  socket: /tmp/a.sock\n' >"$T/ag.yaml"
"$A" config check --json "$T/ag.yaml" | jq -e '[.agent[] | select(.source == "file") | {(.key): .value}] | add ==
	{"period_ms": 50, "socket": "/tmp/a.sock"}' >/dev/null || fail "agent from a file"
printf 'agent:\n  period_ms: 500\n' >"$T/ag2.yaml"
"$A" config check "$T/ag2.yaml" 2>"$T/err"; [ $? -eq 2 ] && grep -q "ag2.yaml:2:14: period_ms (500) is above watchdog_period_ms" "$T/err" ||
	fail "agent cross check: $(cat "$T/err")"
# a supervisor setting from a file (text and JSON), and the lists' cross-check
printf 'supervisor:\n  silent_ms: 5000\n  listen: "10.0.0.1:162"\n  db: /srv/health.db\n' >"$T/sv.yaml"
"$A" config check --json "$T/sv.yaml" | jq -e '[.supervisor[] | select(.source == "file") | {(.key): .value}] | add ==
	{"silent_ms": 5000, "listen": "10.0.0.1:162", "db": "/srv/health.db"}' >/dev/null || fail "supervisor from a file"
"$A" config check "$T/sv.yaml" | awk '$1 == "silent_ms" && $2 == "5000" && $3 == "ms" && $4 == "file" && $5 == "3500" { ok = 1 }
	END { exit !ok }' || fail "supervisor text row: $("$A" config check "$T/sv.yaml" | grep silent_ms)"
printf 'agent:\n  period_ms: 100\nsupervisor:\n  tick_ms: 100\n  listen: "0.0.0.0:162"\n' >"$T/sv2.yaml"
"$A" config check "$T/sv2.yaml" 2>"$T/err"; [ $? -eq 2 ] && grep -q "sv2.yaml:5:11: listen has 1 entry and db 2 (the default)" "$T/err" ||
	fail "supervisor cross check: $(cat "$T/err")"
printf 'supervisor:\n  targets: ["a:162"]\n' >"$T/sv3.yaml"
"$A" config check "$T/sv3.yaml" 2>"$T/err"; [ $? -eq 2 ] && grep -q "sv3.yaml:2:3: 'targets' belongs in 'supervisors:'" "$T/err" ||
	fail "supervisor: a key of supervisors: $(cat "$T/err")"

# make install twice (three times) into a temporary DESTDIR: the config goes to
# PREFIX/etc/apenet/, and a site's own file is never overwritten.
D="$T/root"
inst() { make -s -C "$SRC" install DESTDIR="$D" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }; }
inst
E="$D/usr/local/etc/apenet"
cmp -s "$SHIPPED" "$E/apenet.yaml" || fail "first install: no config"
# the agent, its man page and its unit, pointing at the installed program and config
U="$D/usr/local/lib/systemd/system/apenet-agent.service"
[ -x "$D/usr/local/bin/apenet-agent" ] && [ -e "$D/usr/local/share/man/man8/apenet-agent.8" ] && [ -e "$U" ] ||
	fail "first install: the agent"
grep -q '^ExecStart=/usr/local/bin/apenet-agent --config /usr/local/etc/apenet/apenet.yaml$' "$U" &&
	grep -q '^Type=simple$' "$U" && ! grep -q '@bindir@\|@sysconfdir@' "$U" || fail "unit: $(grep Exec "$U")"
# the supervisor: its man page and its template unit (one instance a number)
V="$D/usr/local/lib/systemd/system/apenet-supervisor@.service"
[ -x "$D/usr/local/bin/apenet-supervisor" ] && [ -e "$D/usr/local/share/man/man8/apenet-supervisor.8" ] && [ -e "$V" ] ||
	fail "first install: the supervisor"
grep -q '^ExecStart=/usr/local/bin/apenet-supervisor --config /usr/local/etc/apenet/apenet.yaml --instance %i$' "$V" &&
	! grep -q '@bindir@\|@sysconfdir@' "$V" || fail "supervisor unit: $(grep Exec "$V")"
[ -x "$D/usr/local/bin/apenet" ] && [ -e "$D/usr/local/share/man/man1/apenet.1" ] || fail "first install: programs"
"$D/usr/local/bin/apenet" config check "$E/apenet.yaml" >/dev/null || fail "installed config does not load"
inst
grep -q "unchanged" "$T/install.log" && [ ! -e "$E/apenet.yaml.new" ] || fail "second install: $(cat "$T/install.log")"
printf '# edited by the site\n' >>"$E/apenet.yaml"
cp "$E/apenet.yaml" "$T/site-copy.yaml"
inst
cmp -s "$T/site-copy.yaml" "$E/apenet.yaml" || fail "the site's config was overwritten"
cmp -s "$SHIPPED" "$E/apenet.yaml.new" || fail "no apenet.yaml.new"
grep -q "kept" "$T/install.log" || fail "no message: $(cat "$T/install.log")"
# PREFIX=/usr puts it in /etc (a dry run: nothing is rebuilt for it here)
make -n -C "$SRC" install PREFIX=/usr DESTDIR="$D" 2>/dev/null | grep -q "install -d $D/etc/apenet" || fail "PREFIX=/usr: not /etc"
make -n -C "$SRC" install PREFIX=/opt/apenet DESTDIR="$D" 2>/dev/null | grep -q "install -d $D/opt/apenet/etc/apenet" ||
	fail "PREFIX=/opt/apenet"
echo "config: all checks passed"
