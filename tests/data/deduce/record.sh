#!/bin/sh
# Records what 16 real agents report during a sequence of faults on an
# emulated 4x4x1 torus, for tests/unit/lofamo/test_deduce.c (test_recorded_agents):
# build/bin/ must be built; writes agents-4x4x1.tsv beside this script.
#
# Every agent reports to one real snmptrapd (so its service field is
# normal); node 1,2,0 reaches it through a UDP relay, which is stopped to
# cut that node off the service network.  What each agent reported is its
# events.jsonl (the same transitions it sends as INFORMs); the lines MUTE
# and UNMUTE mark when a node's reports could not reach a supervisor (agent
# stopped, killed, or cut off): the replay holds them back until UNMUTE, as
# the agent's spool does; BOOT names a restarted agent's new run.  Faults,
# in order, 8-12 s apart:
#   card-gone, dnp-hang, cable-unplug X+, overheat, voltage-droop and
#   pcie-degrade on 1,1,0; 2,2,0's agent SIGSTOPped (host hung); 3,3,0's
#   agent SIGKILLed and restarted (a new boot); 1,2,0 cut off.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../.." && pwd)
BIN=${APENET_BIN:-$SRC/build/bin}
T=$(mktemp -d /tmp/apenet-record-XXXXXX)
P1=$((20000 + $$ % 20000))
P2=$((P1 + 1))
PIDS=""
cleanup() {
	for p in $PIDS; do kill -CONT "$p" 2>/dev/null || true; kill -TERM "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
now() { date +%s%3N; }
mark() { echo "$(now)	$*" >>"$T/marks"; }

cat >"$T/trapd.conf" <<EOC
authCommunity log,execute,net public
EOC
mkdir -p "$T/persist"
SNMP_PERSISTENT_DIR=$T/persist snmptrapd -f -Lf "$T/trapd.log" -C -c "$T/trapd.conf" -M /dev/null -m "" -On -n \
	udp:127.0.0.1:$P1 &
PIDS="$PIDS $!"
relay() {
	python3 -c '
import socket, sys
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); a.bind(("127.0.0.1", int(sys.argv[1])))
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); b.bind(("127.0.0.1", 0))
import select
client = None
while True:
    r, _, _ = select.select([a, b], [], [])
    if a in r:
        m, client = a.recvfrom(65536); b.sendto(m, ("127.0.0.1", int(sys.argv[2])))
    if b in r:
        m, _ = b.recvfrom(65536)
        if client: a.sendto(m, client)
' "$P2" "$P1" &
	RELAY=$!
}
relay

"$BIN/apenet-sim" run --dir "$T/sim" --dims 4x4x1 2>"$T/sim.log" &
PIDS="$PIDS $!"
i=0
until [ -e "$T/sim/ready" ]; do i=$((i + 1)); [ $i -lt 1200 ] || exit 1; sleep 0.1; done

config() { # NODE PORT [agent lines]
	n=$1 port=$2
	shift 2
	d=$T/ag-$n
	mkdir -p "$d"
	{
		echo "agent:"
		echo "  state_dir: $d/state"
		echo "  blackbox_dir: $d/bb"
		echo "  socket: $d/s.sock"
		echo "  edac_root: $d/edac"
		echo "  user: \"\""
		for l in "$@"; do echo "  $l"; done
		echo "supervisors:"
		echo "  targets: [\"127.0.0.1:$port\"]"
	} >"$d/a.yaml"
}
start() { # NODE
	d=$T/ag-$1
	"$BIN/apenet-agent" --config "$d/a.yaml" --foreground --sim "$T/sim/node-$1" 2>>"$d/log" &
	echo $! >"$d/pid"
	PIDS="$PIDS $!"
}
for x in 0 1 2 3; do
	for y in 0 1 2 3; do
		if [ $x-$y = 1-2 ]; then config $x-$y-0 $P2 "service_timeout_s: 10"; else config $x-$y-0 $P1; fi
		start $x-$y-0
	done
done
sleep 6
inj() { "$BIN/apenet-sim" inject --dir "$T/sim" --node "$@" >/dev/null; }
mark "NOTE	start"
for f in "card-gone" "dnp-hang" "cable-unplug --link X+" "overheat --celsius 95" "voltage-droop --percent 8" \
	"pcie-degrade --width 4 --gen 1"; do
	mark "NOTE	inject 1,1,0 $f"
	inj 1,1,0 $f
	sleep 6
	mark "NOTE	clear 1,1,0 $f"
	inj 1,1,0 clear
	sleep 10
done
mark "NOTE	SIGSTOP the agent of 2,2,0"
mark "MUTE	2,2,0"
kill -STOP "$(cat "$T/ag-2-2-0/pid")"
sleep 8
kill -CONT "$(cat "$T/ag-2-2-0/pid")"
mark "UNMUTE	2,2,0"
sleep 10
mark "NOTE	SIGKILL the agent of 3,3,0"
mark "MUTE	3,3,0"
kill -KILL "$(cat "$T/ag-3-3-0/pid")"
sleep 8
start 3-3-0
i=0
until [ "$(cat "$T/ag-3-3-0/state/boot_count" 2>/dev/null)" = 2 ]; do i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.05; done
mark "BOOT	3,3,0	2"
mark "UNMUTE	3,3,0"
sleep 10
mark "NOTE	cut 1,2,0 off the service network"
mark "MUTE	1,2,0"
kill -TERM $RELAY
wait $RELAY 2>/dev/null || true
sleep 20
relay
mark "UNMUTE	1,2,0"
sleep 12
mark "NOTE	end"
for p in $PIDS; do kill -TERM "$p" 2>/dev/null || true; done
kill -TERM $RELAY 2>/dev/null || true
wait 2>/dev/null || true
PIDS=""
{
	printf '# time_ms\tkind\tnode\treporter\tboot\tseq\tsubject\twhere\tcode\told\tnew\tpath\tvia\tevidence\n'
	cat "$T"/ag-*/state/events.jsonl | jq -r 'select(.kind == "transition") |
		[.time_ms, "health", .node, .reporter, .boot_id, .seq, .subject, .where, .code, .old, .new, .path, .via,
		 (if .evidence != "" then .evidence else .message end)] | @tsv'
	cat "$T/marks"
} | sort -t "$(printf '\t')" -k1,1n -s >"$HERE/agents-4x4x1.tsv"
wc -l "$HERE/agents-4x4x1.tsv"
