#!/bin/sh
# The house's layers (docs/design.md, "Layers"), checked on the objects the
# build made: who calls whom, from each object's defined and undefined
# symbols (nm), not from what the headers say.
#  - Down only: a folder calls only folders below it.  Low to high:
#      common < collectors < lofamo < bertest < db < snmp < report < sim
#    and the programs on top (cli, agent, supervisor, top, tools), which call
#    no other program's files.
#  - No circle of files inside a folder (tsort finds one): a file that calls
#    back into its caller is a sign that a third file is missing.
. "$(dirname "$0")/../e2e_lib.sh"
O=$(cd "$BIN/.." && pwd)/obj
SRC=${APENET_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
[ -d "$O/common" ] || fail "no objects under $O (build first)"
T=$(mktemp -d /tmp/apenet-layers-XXXXXX)
trap 'rm -rf "$T"' EXIT

rank() {
	case $1 in
	common) echo 1 ;; collectors) echo 2 ;; lofamo) echo 3 ;; bertest) echo 4 ;; db) echo 5 ;;
	snmp) echo 6 ;; report) echo 7 ;; sim) echo 8 ;; cli | agent | supervisor | top | tools) echo 9 ;;
	*) echo 0 ;;
	esac
}

# "caller callee symbol" for every call from one object file to another
# (tests, benchmarks and fuzz targets are not the house's layers)
n=0
for f in $(find "$O" -name '*.o' | sort); do
	rel=${f#"$O"/}
	case $rel in tests/* | bench/* | fuzz*) continue ;; esac
	rel=${rel%.o}
	[ -f "$SRC/$rel.c" ] || continue # an object whose source is gone
	n=$((n + 1))
	nm "$f" | awk -v f="$rel" '$2 ~ /^[TDBRC]$/ { print "D", f, $3 } $1 == "U" { print "U", f, $2 }'
done >"$T/syms"
[ "$n" -ge 150 ] || fail "only $n objects under $O"
awk '$1 == "D" { def[$3] = $2; next } { use[$2 " " $3] = 1 }
END { for (k in use) { split(k, a, " "); if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]], a[2] } }' \
	"$T/syms" | sort -u >"$T/edges"
[ "$(wc -l <"$T/edges")" -ge 500 ] || fail "too few calls between files: $(wc -l <"$T/edges")"

bad=0
# down only
while read -r from to sym; do
	a=${from%%/*} b=${to%%/*}
	[ "$a" = "$b" ] && continue
	ra=$(rank "$a") rb=$(rank "$b")
	[ "$ra" -gt 0 ] && [ "$rb" -gt 0 ] || { echo "layers: no layer for $a or $b ($from -> $to)" >&2; bad=1; continue; }
	if [ "$rb" -ge "$ra" ]; then
		echo "layers: $from calls $to ($sym): $a may not call $b" >&2
		bad=1
	fi
done <"$T/edges"
# no circle of files in a folder
for d in $(cut -d/ -f1 "$T/edges" | sort -u); do
	awk -v d="$d" 'index($1, d "/") == 1 && index($2, d "/") == 1 { print $1, $2 }' "$T/edges" | sort -u >"$T/in"
	if ! tsort "$T/in" >/dev/null 2>"$T/loop"; then
		echo "layers: a circle of files in $d/:" $(sed -n 's/^tsort: \([a-z]*\/[a-z0-9_]*\)$/\1/p' "$T/loop") >&2
		# the calls that close it
		sed -n 's/^tsort: \([a-z]*\/[a-z0-9_]*\)$/\1/p' "$T/loop" >"$T/members"
		awk 'NR == FNR { m[$1] = 1; next } ($1 in m) && ($2 in m) { print "  " $1 " -> " $2 " (" $3 ")" }' \
			"$T/members" "$T/edges" >&2
		bad=1
	fi
done
[ $bad -eq 0 ] || fail "the layers are crossed (above)"
echo "ok: $n objects, $(wc -l <"$T/edges") calls between files, all down, no circle"
