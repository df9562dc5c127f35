#!/bin/sh
# The IETF base modules (SNMPv2-SMI, SNMPv2-TC, SNMPv2-CONF) that smilint and
# snmptranslate need to read mibs/APENET-MIB.txt.  Debian ships none of them
# (snmp-mibs-downloader is not in bookworm's main), so they come from the npm
# package net-snmp (its lib/mibs), pinned, into DIR (default build/mibs).
# Nothing is copied into the repository.  NET-SNMP-MIB, which holds the
# playpen arc, comes with Debian's libsnmp-base (/usr/share/snmp/mibs).
#   usage: mk/mibs.sh [DIR]
set -eu
dir=${1:-build/mibs}
version=3.29.2
want="SNMPv2-SMI SNMPv2-TC SNMPv2-CONF"
have=1
for m in $want; do [ -s "$dir/$m.txt" ] || have=0; done
[ "$have" = 1 ] && exit 0

command -v npm >/dev/null 2>&1 || { echo "mibs: npm is needed to fetch the IETF base MIBs" >&2; exit 1; }
mkdir -p "$dir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/apenet-mibs-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# npm pack downloads the package tarball into the current directory
# without installing anything or running its scripts.
(cd "$tmp" && npm pack --silent "net-snmp@$version" >/dev/null 2>"$tmp/npm.log") ||
	{ cat "$tmp/npm.log" >&2; echo "mibs: npm pack net-snmp@$version failed" >&2; exit 1; }
tar -xzf "$tmp"/net-snmp-*.tgz -C "$tmp"
for m in $want; do
	# Named MODULE.txt: the name libsmi and net-snmp both look for.
	cp "$tmp/package/lib/mibs/$m.mib" "$dir/$m.txt"
done
echo "mibs: $want from npm net-snmp@$version into $dir"
