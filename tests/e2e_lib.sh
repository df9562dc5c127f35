# Shared helpers for the shell end-to-end tests (sourced).
set -u
BIN=${APENET_BIN:-build/bin}
fail() { echo "FAIL: $*" >&2; exit 1; }
# wait_for SECONDS COMMAND...: poll every 50 ms until COMMAND succeeds
wait_for() {
	deadline=$(( $(date +%s) + $1 )); shift
	until "$@"; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}
# sim_start DIR ARGS...: start apenet-sim in DIR and wait for DIR/ready
sim_start() {
	d=$1; shift
	"$BIN/apenet-sim" run --dir "$d" "$@" 2>"$d.log" &
	SIM_PID=$!
	wait_for 120 test -e "$d/ready" || { cat "$d.log" >&2; fail "apenet-sim did not become ready in $d"; }
}
sim_stop() {
	kill -TERM "$SIM_PID" 2>/dev/null || return 0
	wait "$SIM_PID"
}
