#!/bin/sh
# The Debian packages (debian/; docs/design.md, "Packages"), on this machine,
# as root:
#  - `make deb` builds them in build/deb/ (a copy of the tree: the tree's
#    build/ and build/asan, which other tests use, are not touched);
#  - lintian --fail-on error,warning on every .deb and the .changes: clean;
#  - dpkg -i all of them: the apenet user and group (sysusers.d), the
#    daemons' directories 0750 apenet:apenet (tmpfiles.d), the config a
#    conffile of apenet-common alone, no unit enabled or started; then
#    the agent and supervisor@1, @2 enabled as an operator does;
#  - `apenet --version`; `apenet-sim run` and `apenet list` against it,
#    as docs/emulator.md starts them, from /usr/bin;
#  - the supervisor started with its installed unit's ExecStart (%i = 1) as
#    the unit's User and Group (setpriv), the site secret made as an
#    operator makes it (apenet keys init, chown to the user), its config a
#    copy of the installed one on private loopback ports, its database in
#    /var/lib/apenet as shipped; up when its port is bound and its database
#    made; stopped by PID;
#  - dpkg --purge of every package: every path `dpkg -L` listed is gone
#    (a directory may stay only while another package owns it or it holds
#    something else),
#    /etc/apenet, /var/lib/apenet and /run/apenet are gone, no unit link or
#    deb-systemd-helper state is left, and the apenet user stays (Debian policy
#    9.2.1).  The trap purges whatever was installed when a step fails.
# It refuses to run (exit 1 with the reason) when the machine already has
# apenet-diag installed another way (/usr/bin/apenet not from these
# packages, /etc/apenet or /var/lib/apenet present): it never clobbers.
. "$(dirname "$0")/../e2e_lib.sh"
SRC=$(cd "${APENET_SRCDIR:-.}" && pwd)
DEB=$SRC/build/deb
PKGS="apenet-common apenet-tools apenet-agent apenet-supervisor apenet-sim libapenet-dev"
T=$(mktemp -d /tmp/apenet-deb-XXXXXX)
chmod 755 "$T" # the supervisor's user reads its config here
SIM_PID=""
SUP=""
INSTALLED=""
t_start=$(date +%s)

# purge: every package of ours dpkg knows, in any state; its output in
# $T/purge.log
purge() {
	known=$(dpkg-query -W -f '${Package} ${db:Status-Abbrev}\n' 'apenet-*' 'libapenet-dev' 2>/dev/null |
		awk '$2 !~ /^u?n/ { print $1 }')
	[ -z "$known" ] && return 0
	# shellcheck disable=SC2086
	dpkg --purge $known >>"$T/purge.log" 2>&1
}
cleanup() {
	[ -n "$SUP" ] && { kill -TERM "$SUP" 2>/dev/null; wait "$SUP" 2>/dev/null; }
	[ -n "$SIM_PID" ] && sim_stop
	if [ -n "$INSTALLED" ]; then
		purge || { echo "deb: purge in the trap failed:" >&2; cat "$T/purge.log" >&2; }
	fi
	# The purge keeps the system user, as policy says; the test then
	# leaves the machine as it found it: the tests after it (make test runs
	# them in one go) start with no apenet user, as on a fresh machine.
	if [ "${user_before:-}" = "none before the test" ] && getent passwd apenet >/dev/null; then
		userdel apenet 2>/dev/null
		getent group apenet >/dev/null && groupdel apenet 2>/dev/null
	fi
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
unset APENET_SIM_DIR APENET_CONFIG

[ "$(id -u)" = 0 ] || fail "deb.sh installs packages: run it as root"
for c in dpkg-buildpackage dh lintian setpriv ss; do
	command -v "$c" >/dev/null || fail "no $c (mk/deps.sh test installs the packages' tools)"
done
# ---- refuse rather than clobber
for f in /usr/bin/apenet /usr/bin/apenet-sim /usr/bin/apenet-agent /usr/bin/apenet-supervisor /usr/bin/apenet-top; do
	[ -e "$f" ] || continue
	owner=$(dpkg -S "$f" 2>/dev/null | cut -d: -f1)
	case " $PKGS " in
	*" $owner "*) fail "$f: $owner is installed already; dpkg --purge $PKGS first" ;;
	*) fail "$f exists and is no package's (make install PREFIX=/usr?): remove it first, this test will not overwrite it" ;;
	esac
done
for d in /etc/apenet /var/lib/apenet /run/apenet; do
	[ -e "$d" ] && fail "$d exists before the test (from a make install?): remove it first, so that the purge can be checked"
done
links=$(find /etc/systemd/system -name '*apenet*' 2>/dev/null)
[ -z "$links" ] || fail "unit links exist before the test (an earlier install?): $links; remove them first"
if getent passwd apenet >/dev/null; then
	user_before="exists already: $(getent passwd apenet)"
else
	user_before="none before the test"
fi
echo "deb: user apenet: $user_before"

# ---- build
t0=$(date +%s)
make -s -C "$SRC" deb >"$T/build.log" 2>&1 || { tail -n 40 "$T/build.log"; fail "make deb"; }
t_build=$(( $(date +%s) - t0 ))
for p in $PKGS; do
	ls "$DEB/${p}_"*.deb >/dev/null 2>&1 || fail "make deb made no $p: $(ls "$DEB")"
done
debs=$(ls "$DEB"/*.deb)
changes=$(ls "$DEB"/*.changes) || fail "make deb made no .changes: $(ls "$DEB")"
echo "deb: built $(echo "$debs" | wc -l) packages in ${t_build}s: $(cd "$DEB" && echo *.deb)"

# ---- lintian: no error, no warning
t0=$(date +%s)
# shellcheck disable=SC2086
lintian --fail-on error,warning $debs $changes >"$T/lintian.log" 2>&1
lrc=$?
t_lint=$(( $(date +%s) - t0 ))
echo "deb: lintian --fail-on error,warning (exit $lrc, ${t_lint}s), $(grep -vc 'running with root privileges' "$T/lintian.log") tags:"
grep -v 'running with root privileges is not recommended' "$T/lintian.log" | sed 's/^/  /'
[ "$lrc" = 0 ] || fail "lintian: exit $lrc"

# ---- install
INSTALLED=1
# shellcheck disable=SC2086
dpkg -i $debs >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "dpkg -i"; }
for p in $PKGS; do
	dpkg-query -W -f '${db:Status-Abbrev}' "$p" | grep -q '^ii' || fail "$p not installed: $(dpkg -l "$p" | tail -n 1)"
done
names=$(for f in $debs; do basename "$f" | cut -d_ -f1; done)
# shellcheck disable=SC2086
dpkg-query -L $names >"$T/files" || fail "dpkg -L"
echo "deb: installed, $(wc -l <"$T/files") paths"
# where each tool's extras land (README.md, "Debian packages")
# (a program's completion in the program's package)
for pf in apenet-tools:/usr/lib/nagios/plugins/check_apenet apenet-tools:/usr/share/snmp/mibs/APENET-MIB.txt \
	apenet-tools:/usr/share/bash-completion/completions/apenet apenet-sim:/usr/share/bash-completion/completions/apenet-sim \
	apenet-tools:/usr/share/bash-completion/completions/apenet-top \
	apenet-tools:/usr/share/bash-completion/completions/check_apenet; do
	p=${pf%%:*} f=${pf#*:}
	[ "$(dpkg-query -S "$f" 2>/dev/null | cut -d: -f1)" = "$p" ] || fail "$f is not $p's: $(dpkg-query -S "$f" 2>&1)"
done
pw=$(getent passwd apenet) || fail "dpkg -i made no apenet user: $(cat "$T/install.log")"
uid=$(echo "$pw" | cut -d: -f3)
[ "$uid" -gt 0 ] && [ "$uid" -lt 1000 ] || fail "apenet is no system user: $pw"
getent group apenet >/dev/null || fail "no group apenet"
for d in /var/lib/apenet /var/lib/apenet/blackbox /run/apenet; do
	[ "$(stat -c '%a %U:%G' "$d" 2>/dev/null)" = "750 apenet:apenet" ] || fail "$d: $(stat -c '%a %U:%G' "$d" 2>&1)"
done
dpkg-query -W -f '${Package}: ${Conffiles}\n' $PKGS | grep -q '^apenet-common: .*/etc/apenet/apenet.yaml ' ||
	fail "/etc/apenet/apenet.yaml is not apenet-common's conffile: $(dpkg-query -W -f '${Package}: ${Conffiles}\n' $PKGS)"
[ "$(dpkg-query -W -f '${Conffiles}\n' $PKGS | grep -c /etc/apenet/apenet.yaml)" = 1 ] || fail "the config is a conffile twice"
# nothing enabled, nothing started (the agent drives a card; each supervisor needs the site secret)
enabled=$(find /etc/systemd/system -name '*apenet*' 2>/dev/null)
[ -z "$enabled" ] || fail "units enabled at install: $enabled"
running=$(pgrep -af '^/usr/bin/apenet-(agent|supervisor)') && fail "a daemon runs after dpkg -i: $running"
# an operator enables them (README.md, without --now: nothing is started
# here); the purge must take their links away too
systemctl enable apenet-agent.service apenet-supervisor@1.service apenet-supervisor@2.service >"$T/enable.log" 2>&1 ||
	fail "systemctl enable: $(cat "$T/enable.log")"
[ "$(find /etc/systemd/system -name '*apenet*' | wc -l)" = 3 ] || fail "systemctl enable: $(cat "$T/enable.log")"

# ---- the tools, from /usr/bin
v=$(/usr/bin/apenet --version) || fail "apenet --version: exit $?"
echo "deb: apenet --version: $v"
pv=$(dpkg-query -W -f '${Version}' apenet-tools)
echo "$v" | grep -q "$pv" || fail "apenet --version says '$v', the package is $pv"
# sim_start (e2e_lib.sh) starts $BIN/apenet-sim: the installed one
# shellcheck disable=SC2034
BIN=/usr/bin
base=$(( 20000 + ($$ * 31) % 30000 ))
sim_start "$T/sim" --dims 2x2x1
/usr/bin/apenet list --sim "$T/sim/node-0-0-0" >"$T/list.out" 2>&1 || { cat "$T/list.out"; fail "apenet list: exit $?"; }
cat "$T/list.out"
grep -q '0000:03:00.0' "$T/list.out" || fail "apenet list shows no board"
sim_stop
SIM_PID=""

# ---- the supervisor, as its unit starts it
unit=$(grep '/apenet-supervisor@\.service$' "$T/files" | head -n 1)
[ -n "$unit" ] && [ -f "$unit" ] || fail "apenet-supervisor ships no apenet-supervisor@.service"
exec_line=$(sed -n 's/^ExecStart=//p' "$unit" | sed 's/%i/1/g')
user=$(sed -n 's/^User=//p' "$unit")
group=$(sed -n 's/^Group=//p' "$unit")
[ "$user" = apenet ] && [ "$group" = apenet ] || fail "$unit: User=$user Group=$group"
cfg=$(echo "$exec_line" | sed -n 's/.*--config \([^ ]*\).*/\1/p')
[ -n "$cfg" ] && grep -qx "$cfg" "$T/files" || fail "ExecStart's config '$cfg' is no file of the packages: $exec_line"
# the site secret, as README.md's "Debian packages" says to make it
/usr/bin/apenet keys init >/dev/null || fail "apenet keys init"
[ "$(stat -c '%a %U' /etc/apenet/site.key)" = "600 $user" ] || fail "site.key: $(stat -c '%a %U' /etc/apenet/site.key)"
# the shipped config with the site's layout (a supervisor needs one: the
# shipped file has it commented out), on private loopback ports, AgentX
# off (the host's snmpd is not this test's); the databases and state_dir
# stay as shipped
p1=$((base + 11))
p2=$((base + 12))
sed -e "s|^  listen: .*|  listen: \"127.0.0.1:$p1,127.0.0.1:$p2\"|" -e 's|^  agentx: 1|  agentx: 0|' "$cfg" >"$T/sup.yaml"
printf 'cluster:\n  dims: 2x2x1\n' >>"$T/sup.yaml"
chmod 644 "$T/sup.yaml"
grep -q "127.0.0.1:$p1" "$T/sup.yaml" || fail "no listen line in $cfg"
cmd=$(echo "$exec_line" | sed "s|--config $cfg|--config $T/sup.yaml|")
echo "deb: supervisor: ExecStart=$exec_line; run as $user:$group: $cmd"
# shellcheck disable=SC2086
setpriv --reuid="$user" --regid="$group" --init-groups -- $cmd 2>"$T/sup.log" &
SUP=$!
bound() { ss -Hlun "sport = :$p1" | grep -q "127.0.0.1:$p1"; }
# it logs to syslog as under systemd; when it does not come up, its reason
# is asked for again with --foreground (stderr)
# shellcheck disable=SC2086
why() { timeout 10 setpriv --reuid="$user" --regid="$group" --init-groups -- $cmd --foreground 2>&1 | tail -n 5; }
wait_for 30 bound || fail "the supervisor did not bind 127.0.0.1:$p1: $(cat "$T/sup.log"; kill -0 $SUP 2>/dev/null || why)"
wait_for 10 test -s /var/lib/apenet/health-1.db || fail "no /var/lib/apenet/health-1.db: $(ls -la /var/lib/apenet)"
[ "$(stat -c %U /var/lib/apenet/health-1.db)" = apenet ] || fail "health-1.db: $(stat -c %U /var/lib/apenet/health-1.db)"
[ "$(ps -o user= -p "$SUP")" = apenet ] || fail "the supervisor runs as $(ps -o user= -p "$SUP")"
kill -TERM "$SUP"
wait "$SUP"
src=$?
SUP=""
[ "$src" = 0 ] || fail "the supervisor stopped with exit $src: $(cat "$T/sup.log")"
echo "deb: the supervisor ran as apenet on 127.0.0.1:$p1, made /var/lib/apenet/health-1.db, stopped with exit 0"

# ---- purge: nothing left
purge || { cat "$T/purge.log"; fail "dpkg --purge"; }
INSTALLED=""
left=$(dpkg-query -W -f '${Package} ${db:Status-Abbrev}\n' 'apenet-*' 'libapenet-dev' 2>/dev/null | awk '$2 !~ /^u?n/')
[ -z "$left" ] || fail "dpkg still knows: $left"
: >"$T/left"
while IFS= read -r f; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	# a directory stays when another package owns it too, or when it holds
	# something else (/., a merged-/usr /lib): every file of ours is
	# checked on its own line
	if [ -d "$f" ]; then
		dpkg-query -S "$f" >/dev/null 2>&1 && continue
		[ -n "$(ls -A "$f")" ] && continue
	fi
	echo "$f" >>"$T/left"
done <"$T/files"
[ ! -s "$T/left" ] || fail "left behind by the purge: $(cat "$T/left")"
for d in /etc/apenet /var/lib/apenet /run/apenet; do
	[ ! -e "$d" ] || fail "left behind by the purge: $d: $(ls -la "$d")"
done
dsh=$(find /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked /etc/systemd/system \
	-name '*apenet*' 2>/dev/null)
[ -z "$dsh" ] || fail "unit state left behind: $dsh"
getent passwd apenet >/dev/null || fail "the purge removed the apenet user (Debian policy keeps system users)"
echo "deb: purged: none of $(wc -l <"$T/files") paths left, /etc/apenet, /var/lib/apenet, /run/apenet gone, user apenet kept (removed by the test if it made it)"
echo "deb: ok in $(( $(date +%s) - t_start ))s (make deb ${t_build}s, lintian ${t_lint}s)"
