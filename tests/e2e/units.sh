#!/bin/sh
# The system side as `make install DESTDIR=...` installs it: the hardened
# units rated by systemd's own `systemd-analyze security --offline=true`
# (the agent 4.0 or less, the supervisor 2.5 or less, with no directive
# systemd does not understand), the sysusers.d file creating the apenet user
# and group in a temporary root (systemd-sysusers --root), the tmpfiles.d file
# making the daemons' directories there, 0750 and the user's
# (systemd-tmpfiles --root --create), and the three agreeing: every
# directory a unit may write is made by tmpfiles.d, the shipped config's
# agent.user is the sysusers.d user and its socket and state live in those
# directories.  docs/security.md, "Least privilege".
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-units-XXXXXX)
trap 'rm -rf "$T"' EXIT
SRC=${APENET_SRCDIR:-.}
AGENT_MAX=4.0
SUP_MAX=2.5
command -v systemd-analyze >/dev/null && command -v systemd-sysusers >/dev/null &&
	command -v systemd-tmpfiles >/dev/null || fail "systemd's tools are missing (mk/deps.sh test installs systemd)"

D="$T/root"
make -s -C "$SRC" install DESTDIR="$D" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }
L="$D/usr/local/lib"
U="$L/systemd/system/apenet-agent.service"
S="$L/systemd/system/apenet-supervisor@.service"
[ -e "$U" ] && [ -e "$S" ] && [ -e "$L/sysusers.d/apenet.conf" ] && [ -e "$L/tmpfiles.d/apenet.conf" ] ||
	fail "make install: $(find "$D" -name '*apenet*' | grep -v share)"
# nothing applied to this machine from a DESTDIR install
grep -q "systemd-sysusers\|systemd-tmpfiles" "$T/install.log" && fail "DESTDIR install ran: $(cat "$T/install.log")"
! grep -q '@[a-z]*dir@' "$U" "$S" || fail "placeholders left: $(grep '@[a-z]*dir@' "$U" "$S")"

# score FILE: the overall exposure systemd-analyze rates FILE with, in
# $rated; whatever it says on stderr (an unknown key, a value it cannot
# parse and ignores) is a failure: an ignored directive protects nothing
score() {
	systemd-analyze security --offline=true --no-pager "$1" >"$T/sec.out" 2>"$T/sec.err" ||
		fail "systemd-analyze security $1: exit $?: $(cat "$T/sec.err")"
	[ ! -s "$T/sec.err" ] || fail "systemd-analyze security $1: $(cat "$T/sec.err")"
	rated=$(sed -n 's/^→ Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p' "$T/sec.out")
	[ -n "$rated" ] || fail "systemd-analyze security $1: no score: $(tail -n 3 "$T/sec.out")"
}
# the template as systemd runs it: an instance
cp "$S" "$T/apenet-supervisor@1.service"
score "$U"
a=$rated
score "$T/apenet-supervisor@1.service"
s=$rated
echo "units: apenet-agent.service $a (at most $AGENT_MAX), apenet-supervisor@1.service $s (at most $SUP_MAX)"
awk -v a="$a" -v m="$AGENT_MAX" 'BEGIN { exit !(a <= m) }' || fail "the agent's unit rates $a, above $AGENT_MAX"
awk -v s="$s" -v m="$SUP_MAX" 'BEGIN { exit !(s <= m) }' || fail "the supervisor's unit rates $s, above $SUP_MAX"
# what the docs say each keeps (docs/agent.md, "Privileges")
grep -qx 'CapabilityBoundingSet=CAP_SYS_ADMIN CAP_SETUID CAP_SETGID' "$U" || fail "agent: $(grep Capab "$U")"
grep -qx 'CapabilityBoundingSet=CAP_NET_BIND_SERVICE CAP_NET_ADMIN' "$S" && grep -qx 'User=apenet' "$S" ||
	fail "supervisor: $(grep 'Capab\|User' "$S")"
for f in "$U" "$S"; do
	for k in NoNewPrivileges=yes ProtectSystem=strict PrivateTmp=yes ProtectHome=yes ProtectKernelTunables=yes \
		ProtectKernelModules=yes 'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6' SystemCallFilter=@system-service \
		UMask=0027; do
		grep -qx "$k" "$f" || fail "$(basename "$f"): no $k"
	done
done

# the user and group, created in the temporary root as systemd-sysusers
# creates them at boot: a system account (uid below 1000), no login
mkdir -p "$D/etc"
systemd-sysusers --root="$D" >"$T/sysusers.log" 2>&1 || fail "systemd-sysusers: $(cat "$T/sysusers.log")"
pw=$(grep '^apenet:' "$D/etc/passwd") || fail "no apenet in passwd: $(cat "$T/sysusers.log")"
uid=$(echo "$pw" | cut -d: -f3)
gid=$(echo "$pw" | cut -d: -f4)
[ "$uid" -gt 0 ] && [ "$uid" -lt 1000 ] && [ "$(echo "$pw" | cut -d: -f6,7)" = /var/lib/apenet:/usr/sbin/nologin ] ||
	fail "apenet: $pw"
[ "$(grep '^apenet:' "$D/etc/group" | cut -d: -f3)" = "$gid" ] || fail "group apenet: $(grep apenet "$D/etc/group")"
# again: nothing changes
cp "$D/etc/passwd" "$T/passwd.1"
systemd-sysusers --root="$D" >/dev/null 2>&1 && cmp -s "$D/etc/passwd" "$T/passwd.1" || fail "sysusers twice"

# the directories, as systemd-tmpfiles makes them at boot; chown needs
# root: as another user only the modes are checked, and the one error
# allowed is the chown refused
systemd-tmpfiles --root="$D" --create >"$T/tmpfiles.log" 2>&1
rc=$?
if [ "$(id -u)" = 0 ]; then
	[ $rc -eq 0 ] || fail "systemd-tmpfiles: exit $rc: $(cat "$T/tmpfiles.log")"
else
	! grep -v 'fchownat.*Operation not permitted' "$T/tmpfiles.log" | grep -q . ||
		fail "systemd-tmpfiles: $(cat "$T/tmpfiles.log")"
	echo "units: not root: the directories' owner is not checked"
fi
dirs=$(awk '$1 == "d" { print $2 }' "$L/tmpfiles.d/apenet.conf")
for d in $dirs; do
	st=$(stat -c '%a %u %g' "$D$d") || fail "tmpfiles: no $d"
	[ "${st%% *}" = 750 ] || fail "$d: mode ${st%% *}"
	[ "$(id -u)" != 0 ] || [ "${st#* }" = "$uid $gid" ] || fail "$d: owner ${st#* }, apenet is $uid $gid"
done

# the three agree: what a unit may write is made by tmpfiles.d (but for
# /run/lock, the system's, and /sys/devices, the card), the shipped config's
# user is the sysusers.d one, its directories and socket are made
for f in "$U" "$S"; do
	for p in $(sed -n 's/^ReadWritePaths=//p' "$f"); do
		case "$p" in /run/lock | /sys/devices) continue ;; esac
		echo "$dirs" | grep -qx "$p" || fail "$(basename "$f"): ReadWritePaths $p is not in tmpfiles.d"
	done
done
C="$D/usr/local/etc/apenet/apenet.yaml"
"$D/usr/local/bin/apenet" config check "$C" --json >"$T/c.json" || fail "config check"
key() { jq -r --arg k "$1" '.agent[] | select(.key == $k) | .value' "$T/c.json"; }
[ "$(key user)" = apenet ] || fail "agent.user: $(key user)"
for k in state_dir blackbox_dir; do
	v=$(key $k)
	echo "$dirs" | grep -qx "$v" || fail "agent.$k $v is not made by tmpfiles.d"
done
sock=$(key socket)
echo "$dirs" | grep -qx "$(dirname "$sock")" || fail "agent.socket $sock: its directory is not made by tmpfiles.d"
echo "units: all checks passed"
