#!/bin/sh
# Signals and exit statuses, as docs/usage.md promises them: SIGTERM or
# SIGINT ends the window and drains (a signal during warm-up: an empty
# window), a second signal stops without draining; a run with DPDK ports
# that did not keep real time exits 5, and a run that also fails its
# accounting exits 1, not 5.
# Usage: tests/test_signals.sh PATH/TO/dfemu (from the repo root).
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	rm -f "/run/dfemu/sig-stall-$$.sock"
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
. tests/tap.sh
tap_plan 5
rc=- # a run's exit status (-: it did not end)
EAL="--eal -l 0-1 --no-pci --no-huge -m 512 --no-shconf --log-level=warning"
REF="--config configs/reference.ini --quiet --set traffic.load=0.1"

# bg NAME ARGS...: dfemu in the background (pid in $emu), its telemetry
# under the file prefix dfsigNAME$$
bg() {
	name=$1
	shift
	# shellcheck disable=SC2086
	"$DFEMU" "$@" --json "$TMP/$name.json" $EAL --file-prefix=dfsig$name$$ \
		>"$TMP/$name.log" 2>&1 &
	emu=$!
	PIDS="$PIDS $emu"
}

# json NAME EXPR: EXPR (python, over the report r) holds
json() {
	python3 - "$TMP/$1.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["packets"]
assert eval(sys.argv[2]), (sys.argv[2], r["interrupted"], p)
PY
}

# signal NAME SIGNAL PHASE: once the run NAME is in PHASE, SIGNAL to it;
# 0 when it got there, and its exit status in rc
signal() {
	wait_phase "dfsig$1$$" "$3"
	w=$?
	kill "-$2" $emu
	wait $emu
	rc=$?
	return $w
}

# 1. SIGTERM in the window: it ends there, the measured packets drain
# shellcheck disable=SC2086
bg term $REF --set traffic.warmup_ms=50 --set traffic.measure_ms=600000
signal term TERM measure && [ $rc -eq 0 ] && accounted "$TMP/term.json" &&
	json term 'r["interrupted"] == 1 and p["measured_delivered"] == p["measured"] > 0'
ok $? "SIGTERM in the measurement window: exit $rc, marked interrupted, every packet (and every measured one) in"

# 2. SIGINT in warm-up: an empty window, still a drained run
# shellcheck disable=SC2086
bg warm $REF --set traffic.warmup_ms=600000 --set traffic.measure_ms=1000
signal warm INT warmup && [ $rc -eq 0 ] && accounted "$TMP/warm.json" &&
	json warm 'r["interrupted"] == 1 and p["measured"] == 0 and p["injected"] > 0'
ok $? "SIGINT during warm-up: exit $rc, marked interrupted, an empty window, every packet in"

# 3. a second signal stops without the drain: 1 s global links, which
# would take seconds to drain; the run is not drained, so it exits 1
# shellcheck disable=SC2086
bg twice $REF --set traffic.warmup_ms=0 --set traffic.measure_ms=600000 \
	--set traffic.drain_timeout_ms=600000 \
	--set links.global_latency_ns=1000000000
# (two signals at once are one: a signal pending is not queued again,
# so the second goes once the first has ended the window)
wait_phase dfsigtwice$$ measure && kill -INT $emu &&
	signal twice INT finish && [ $rc -eq 1 ] &&
	json twice 'r["interrupted"] == 2 and p["in_flight"] > 0 and not r["drained"]'
ok $? "a second signal: stops at once without the drain (exit $rc, packets left in flight, marked interrupted twice)"

# 4. exit 5: a run with a DPDK port (a pcap file, which sends nothing)
# held to a tolerance no host meets: accounted, but late
python3 -c 'import struct, sys; open(sys.argv[1], "wb").write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))' "$TMP/empty.pcap"
{
	cat configs/small.ini
	echo "[terminals]"
	echo "t0 = net_pcap0,rx_pcap=$TMP/empty.pcap,tx_pcap=$TMP/out0.pcap"
} >"$TMP/port.ini"
# shellcheck disable=SC2086
"$DFEMU" --config "$TMP/port.ini" --quiet --set traffic.load=0.05 \
	--set traffic.measure_ms=100 --set run.lateness_tolerance_ns=1 \
	--json "$TMP/late.json" $EAL --file-prefix=dfsiglate$$ \
	>"$TMP/late.log" 2>&1
rc=$?
[ $rc -eq 5 ] && accounted "$TMP/late.json" &&
	json late 'r["needs_real_time"] and not r["kept_real_time"]'
ok $? "a run with a port that did not keep real time (tolerance 1 ns): exit $rc, accounted, kept_real_time false"

# 5. 1 before 5: the same, with a port whose peer never connects (its
# frames wait): late and not drained
mkdir -p /run/dfemu
{
	cat configs/small.ini
	echo "[terminals]"
	echo "t5 = net_memif5,role=server,socket=/run/dfemu/sig-stall-$$.sock,socket-abstract=no"
} >"$TMP/stall.ini"
# shellcheck disable=SC2086
"$DFEMU" --config "$TMP/stall.ini" --quiet --set traffic.load=0.05 \
	--set traffic.measure_ms=100 --set traffic.drain_timeout_ms=200 \
	--set run.lateness_tolerance_ns=1 --json "$TMP/both.json" $EAL \
	--file-prefix=dfsigboth$$ >"$TMP/both.log" 2>&1
rc=$?
[ $rc -eq 1 ] &&
	json both 'not r["kept_real_time"] and not r["drained"] and p["in_flight"] > 0'
ok $? "late and not drained: exit $rc (the accounting's 1 comes before the lateness's 5)"

tap_done
