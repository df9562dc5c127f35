#!/bin/sh
# mibs/APENET-MIB.txt passes `smilint -l 6` without a word.  smilint exits 0
# even on errors, so this reads what it prints.  The IETF base modules come
# from build/mibs (mk/mibs.sh, run by `make test`), NET-SNMP-MIB (the
# playpen arc) from Debian's /usr/share/snmp/mibs.
. "${APENET_SRCDIR:-.}/tests/e2e_lib.sh"
SRC=${APENET_SRCDIR:-$(pwd)}
command -v smilint >/dev/null 2>&1 || fail "smilint missing (Debian smitools; make test installs it)"
[ -s "$SRC/build/mibs/SNMPv2-SMI.txt" ] || fail "no build/mibs/SNMPv2-SMI.txt (mk/mibs.sh)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/apenet-mib-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export SMIPATH="$SRC/build/mibs:/usr/share/snmp/mibs:$SRC/mibs"

smilint -l 6 "$SRC/mibs/APENET-MIB.txt" >"$tmp/out" 2>&1
if [ -s "$tmp/out" ]; then
	cat "$tmp/out" >&2
	fail "smilint -l 6 has something to say about mibs/APENET-MIB.txt"
fi

# The check itself works: smilint finds the imports (a module it could not
# read would make it say so) and speaks up about a broken copy.
sed 's/apenetEventLdmSummary$/apenetEventLdmSumary/' "$SRC/mibs/APENET-MIB.txt" >"$tmp/APENET-MIB.txt"
smilint -l 6 "$tmp/APENET-MIB.txt" >"$tmp/bad" 2>&1
grep -q "apenetEventLdmSumary" "$tmp/bad" || { cat "$tmp/bad" >&2; fail "smilint did not notice a broken MIB"; }
SMIPATH=/nonexistent smilint -l 6 "$SRC/mibs/APENET-MIB.txt" >"$tmp/nopath" 2>&1
grep -q "SNMPv2-SMI" "$tmp/nopath" || { cat "$tmp/nopath" >&2; fail "smilint did not miss the base modules"; }

# One definition holds the playpen arc: every other OID hangs off apenetMIB.
n=$(grep -c 'netSnmpPlaypen' "$SRC/mibs/APENET-MIB.txt")
[ "$n" -eq 2 ] || fail "netSnmpPlaypen appears $n times (the import and apenetMIB's ::= only)"
echo "ok: smilint -l 6 is silent about APENET-MIB"
