#!/bin/sh
# apenet ber-plan (docs/ber.md): the published figure (1e-12 at 95% takes
# 2.996e12 error-free bits), the table's shape in JSON and CSV, the
# sequential test's bits beside the fixed test's, and bad arguments (exit 2,
# a message naming the argument).  No emulator needed.
. "$(dirname "$0")/../e2e_lib.sh"
T=$(mktemp -d /tmp/apenet-berplan-XXXXXX)
trap 'rm -rf "$T"' EXIT
A="$BIN/apenet"
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# 4 lanes x 7 Gbps (the default lane count of a torus link)
"$A" ber-plan --target 1e-12 --cl 0.95 --gbps 7 --json >"$T/p.json" || fail "ber-plan exit $?"
jq -e '.schema == "apenet-diag/2" and .command == "ber-plan" and .findings == [] and
	.inputs == {"target": 1e-12, "cl": 0.95, "lane_gbps": 7, "lanes": 4, "pooled_gbps": 28, "zero_overhead": 1.005} and
	([.plan[].errors] == [0, 1, 2, 3, 4, 5]) and
	all(.plan[]; (keys | sort) == (["errors", "bits", "lane_s", "pooled_s", "sequential_bits", "sequential_lane_s",
		"sequential_pooled_s", "sequential_cl"] | sort))' "$T/p.json" >/dev/null || { cat "$T/p.json"; fail "ber-plan keys"; }
near "$(jq '.plan[0].bits' "$T/p.json")" 2995732273554 1 || fail "2.996e12 bits for 1e-12 at 95%"
near "$(jq '.plan[0].lane_s' "$T/p.json")" 427.962 0.001 || fail "one lane at 7 Gbps"
near "$(jq '.plan[0].pooled_s' "$T/p.json")" 106.990 0.001 || fail "four lanes pooled"
near "$(jq '.plan[1].bits' "$T/p.json")" 4743864518391 1 || fail "one error: chi2_0.95(4) / 2 = 4.7439"
# the sequential test: 1.005x the minimum without errors, never below it, its looks above 95%
jq -e '(.plan[0].sequential_bits / .plan[0].bits | . > 1.004 and . < 1.006) and
	all(.plan[]; .sequential_bits > .bits and .sequential_cl >= 0.95 and .sequential_lane_s > .lane_s) and
	([.plan[].bits] | . == sort)' "$T/p.json" >/dev/null || fail "ber-plan sequential columns"
# --errors E: that row only; 99%, one lane: chi2_0.99(8) / 2 = 10.045
"$A" ber-plan --target 1e-12 --cl 0.99 --gbps 10 --lanes 1 --errors 3 --json >"$T/e.json" || fail "ber-plan --errors"
jq -e '(.plan | length == 1) and .plan[0].errors == 3 and .plan[0].lane_s == .plan[0].pooled_s' "$T/e.json" >/dev/null ||
	fail "ber-plan --errors shape"
near "$(jq '.plan[0].bits' "$T/e.json")" 10045117514832 5000 || fail "3 errors at 99%"
# text and CSV carry the same table
"$A" ber-plan --target 1e-12 --cl 0.95 --gbps 7 >"$T/p.txt" || fail "ber-plan text"
grep -q "7 min 08 s" "$T/p.txt" && grep -q "^  0  *2995732273554 " "$T/p.txt" || { cat "$T/p.txt"; fail "ber-plan text table"; }
"$A" ber-plan --target 1e-12 --cl 0.95 --gbps 7 --csv >"$T/p.csv" || fail "ber-plan csv"
[ "$(sed -n 2p "$T/p.csv")" = "errors,bits,lane_s,pooled_s,sequential_bits,sequential_lane_s,sequential_pooled_s,sequential_cl" ] &&
	[ "$(grep -c '^[0-5],' "$T/p.csv")" -eq 6 ] || { cat "$T/p.csv"; fail "ber-plan csv table"; }

# bad arguments: exit 2, the argument named
bad() { # expected word in the message, then the arguments
	want=$1; shift
	"$A" ber-plan "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] && grep -q -- "$want" "$T/err" && [ ! -s "$T/out" ] || { cat "$T/err"; fail "ber-plan $* (exit $rc)"; }
}
bad --target --target 0 --cl 0.95 --gbps 7
bad --target --target -1e-12 --cl 0.95 --gbps 7
bad --target --target 0.5 --cl 0.95 --gbps 7
bad --target --target often --cl 0.95 --gbps 7
bad --cl --target 1e-12 --cl 95 --gbps 7
bad --cl --target 1e-12 --cl 1 --gbps 7
bad --cl --target 1e-12 --cl 0.3 --gbps 7
bad --gbps --target 1e-12 --cl 0.95 --gbps fast
bad --gbps --target 1e-12 --cl 0.95 --gbps 0
bad --gbps --target 1e-12 --cl 0.95
bad --target --cl 0.95 --gbps 7
bad --lanes --target 1e-12 --cl 0.95 --gbps 7 --lanes 0
bad --lanes --target 1e-12 --cl 0.95 --gbps 7 --lanes 2.5
bad --errors --target 1e-12 --cl 0.95 --gbps 7 --errors -1
bad --errors --target 1e-12 --cl 0.95 --gbps 7 --errors 1.5
bad --bits --target 1e-12 --cl 0.95 --gbps 7 --bits 5
echo "ber-plan: all checks passed"
