#!/bin/sh
# Runs every test of a build tree (default build/asan): the cmocka unit and
# end-to-end binaries, the fuzz targets' seeds and regression inputs, then
# the shell end-to-end tests.  Each test's output
# goes to $B/test-logs/; failures are printed.  The last line is the total.
set -u
B=${1:-build/asan}
export APENET_SRCDIR=$(pwd)
export APENET_BIN=$(pwd)/$B/bin
export APENET_BIN_PLAIN=$(pwd)/build/bin     # non-sanitized, for valgrind
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
logs=$B/test-logs
rm -rf "$logs"
mkdir -p "$logs"
passed=0
failed=0
failures=""

for t in "$B"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	log=$logs/$name.log
	if "$t" >"$log" 2>&1; then rc=0; else rc=$?; fi
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1 # crashed, or a sanitizer stopped it
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$rc" -ne 0 ]; then
		failures="$failures $name"
		echo "FAIL $name (exit $rc): $log"
		tail -n 40 "$log" | sed 's/^/    /'
	else
		echo "ok   $name ($p)"
	fi
done

# The fuzz targets with a plain main: every seed and every regression input
# (tests/fuzz/NAME/, regressions/ included) once, under the sanitizers.
for t in "$B"/fuzz-replay/fuzz_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	log=$logs/$name.log
	if "$t" "tests/fuzz/${name#fuzz_}" >"$log" 2>&1; then
		passed=$((passed + 1))
		echo "ok   $name ($(tail -n 1 "$log"))"
	else
		failed=$((failed + 1))
		failures="$failures $name"
		echo "FAIL $name: $log"
		tail -n 40 "$log" | sed 's/^/    /'
	fi
done

for t in tests/e2e/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	log=$logs/$name.log
	if sh "$t" >"$log" 2>&1; then
		passed=$((passed + 1))
		echo "ok   $name"
	else
		failed=$((failed + 1))
		failures="$failures $name"
		echo "FAIL $name: $log"
		tail -n 40 "$log" | sed 's/^/    /'
	fi
done

[ -n "$failures" ] && echo "failed:$failures"
echo "TOTAL: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
