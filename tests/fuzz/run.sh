#!/bin/sh
# Runs every libFuzzer target of a build tree for SECONDS each and prints,
# per target, the executions run and executions per second from libFuzzer's
# final statistics (the decoders' speed: `make bench` shows the same table).
#   usage: tests/fuzz/run.sh BUILD_DIR SECONDS TARGET...
# Each target starts from its seeds and regressions (tests/fuzz/NAME/) plus
# what earlier runs found (BUILD_DIR/corpus/NAME/, kept between runs).  A
# crash, leak or failed check stops that target: its input is saved under
# BUILD_DIR/artifacts/NAME/ and the script exits 1 after the others ran.
set -u
B=$1
secs=$2
shift 2
[ "$#" -gt 0 ] || { echo "usage: $0 BUILD_DIR SECONDS TARGET..." >&2; exit 2; }
failed=""
table=$B/fuzz-stats.txt
printf '%-10s %12s %10s %8s %6s %8s\n' target runs exec/s corpus new "rss(MB)" >"$table"

for name in "$@"; do
	bin=$B/fuzz_$name
	seeds=tests/fuzz/$name
	work=$B/corpus/$name
	art=$B/artifacts/$name
	log=$B/fuzz-$name.log
	mkdir -p "$work" "$art"
	dict=""
	[ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
	echo "== fuzz_$name: ${secs}s"
	# New inputs go to the first corpus directory (the build tree's); the
	# checked-in seeds are only read.  -timeout: one input taking more than
	# 10 s is a hang, reported like a crash.
	# shellcheck disable=SC2086
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$art/" $dict "$work" "$seeds" >"$log" 2>&1; then
		rc=0
	else
		rc=$?
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	eps=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	new=$(sed -n 's/^stat::new_units_added: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	rss=$(sed -n 's/^stat::peak_rss_mb: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	if [ -z "$runs" ]; then
		# older libFuzzer: only "Done N runs in S second(s)"
		runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
		t=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -n 1)
		[ -n "$runs" ] && [ -n "$t" ] && [ "$t" -gt 0 ] && eps=$((runs / t))
	fi
	corpus=$(find "$work" "$seeds" -type f ! -name README.md | wc -l)
	printf '%-10s %12s %10s %8s %6s %8s\n' "$name" "${runs:-?}" "${eps:-?}" "$corpus" "${new:-?}" "${rss:-?}" >>"$table"
	if [ "$rc" -ne 0 ]; then
		failed="$failed $name"
		echo "FAIL fuzz_$name (exit $rc): $log"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*fuzz check failed|.*runtime error)' "$log" | head -n 5 | sed 's/^/    /'
		for a in "$art"/*; do
			[ -f "$a" ] || continue
			echo "    input: $a"
			echo "    keep it: cp $a tests/fuzz/$name/regressions/  (make test replays it)"
		done
	else
		echo "ok   fuzz_$name: ${runs:-?} runs, ${eps:-?} exec/s"
	fi
done

echo
echo "fuzzing, ${secs} s per target (runs and exec/s from libFuzzer's final stats):"
cat "$table"
echo "fuzz: $# targets run for ${secs} s each, $(echo $failed | wc -w) with findings"
if [ -n "$failed" ]; then
	echo "fuzz: findings in:$failed"
	exit 1
fi
