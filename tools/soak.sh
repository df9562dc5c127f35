#!/bin/sh
# make soak: `make test` RUNS times in a row (default 20) with both cores
# kept busy by two CPU hogs, as CI's loaded 2-core machine is; prints one
# line a run and the tally, and exits 1 if any run failed.  The logs of a
# failed run are kept under build/soak/.
set -u
RUNS=${RUNS:-20}
HOGS=${HOGS:-2}
out=build/soak
rm -rf "$out"
mkdir -p "$out"
pids=""
i=0
while [ "$i" -lt "$HOGS" ]; do
	yes >/dev/null &
	pids="$pids $!"
	i=$((i + 1))
done
trap 'kill $pids 2>/dev/null' EXIT INT TERM
pass=0
fail=0
n=1
while [ "$n" -le "$RUNS" ]; do
	t0=$(date +%s)
	if make --no-print-directory test >"$out/run-$n.log" 2>&1; then
		pass=$((pass + 1))
		res=pass
		rm -f "$out/run-$n.log"
	else
		fail=$((fail + 1))
		res="FAIL ($(grep '^failed:' "$out/run-$n.log"))"
	fi
	echo "run $n/$RUNS: $res in $(($(date +%s) - t0)) s (hogs: $HOGS)"
	n=$((n + 1))
done
echo "soak: $pass passed, $fail failed of $RUNS loaded runs of make test"
[ "$fail" -eq 0 ]
