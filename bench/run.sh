#!/bin/sh
# Runs every benchmark of a build tree and prints its figures.
set -eu
B=${1:-build}
for b in "$B"/bench/bench_*; do
	echo "== $(basename "$b")"
	"$b"
	echo
done
