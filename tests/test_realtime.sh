#!/bin/sh
# Real time: a run the host could not keep up with says so in its exit
# status (5) and its JSON ("kept_real_time": false); a light one exits 0.
# The [DF]-style case where the host's limit once passed for the
# network's: VAL under ADV+1 at 0.6 on the reference's links either says
# it was late or matches the same network with every time 4x slower.
# A config directory is refused.
# Usage: tests/test_realtime.sh PATH/TO/dfemu [san] (from the repo root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu [san]}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/tap.sh

# rates BW: every link at BW Gb/s
rates() {
	echo "--set links.terminal_bandwidth_gbps=$1" \
		"--set links.local_bandwidth_gbps=$1" \
		"--set links.global_bandwidth_gbps=$1"
}
# field JSON EXPR: a value of the JSON report (python expression on r)
field() {
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"
}

"$DFEMU" --config configs >"$TMP/dir.out" 2>&1
[ $? -eq 2 ] && grep -q "configs: not a config file (a directory)" \
	"$TMP/dir.out"
ok $? "--config DIR: exit 2, said it is a directory"

# light: 0.01 Gb/s links (a packet takes 410 us), load 0.05
# shellcheck disable=SC2046
"$DFEMU" --config configs/reference.ini --quiet $(rates 0.01) \
	--set traffic.load=0.05 --set traffic.warmup_ms=20 \
	--set traffic.measure_ms=400 --json "$TMP/light.json" \
	>"$TMP/light.out" 2>&1
rc=$?
echo "# light: exit $rc, lateness $(field "$TMP/light.json" 'r["lateness_ns"]')"
[ $rc -eq 0 ] && [ "$(field "$TMP/light.json" 'r["kept_real_time"]')" = True ] &&
	[ "$(field "$TMP/light.json" 'r["lateness_ns"]["tolerance"]')" = 409600 ] &&
	[ "$(field "$TMP/light.json" 'r["lateness_ns"]["tolerance_auto"]')" = True ]
ok $? "a light run keeps real time: exit 0, kept_real_time true, the auto tolerance one packet time (409600 ns)"

# overloaded: 20 Gb/s links (a packet takes 205 ns), load 0.3: about
# 50 M packets/s offered, far above what one core forwards
# shellcheck disable=SC2046
"$DFEMU" --config configs/reference.ini --quiet $(rates 20) \
	--set traffic.load=0.3 --set traffic.finish=stop \
	--set traffic.warmup_ms=1 --set traffic.measure_ms=4 \
	--json "$TMP/heavy.json" >"$TMP/heavy.out" 2>&1
rc=$?
echo "# overloaded: exit $rc, lateness $(field "$TMP/heavy.json" 'r["lateness_ns"]')"
[ $rc -eq 5 ] && [ "$(field "$TMP/heavy.json" 'r["kept_real_time"]')" = False ] &&
	[ "$(field "$TMP/heavy.json" 'r["credits_conserved"] and r["exactly_once"] and r["drained"]')" = True ] &&
	grep -q "NOT REAL TIME: lateness p99 .* exceeds" "$TMP/heavy.out"
ok $? "an overloaded host: exit 5, kept_real_time false, NOT REAL TIME said; still every packet and credit accounted for"

# an explicit tolerance wins over auto
# shellcheck disable=SC2046
"$DFEMU" --config configs/reference.ini --quiet $(rates 20) \
	--set traffic.load=0.3 --set traffic.finish=stop \
	--set traffic.warmup_ms=1 --set traffic.measure_ms=4 \
	--set run.lateness_tolerance_ns=1000000000000 \
	--json "$TMP/tol.json" >/dev/null 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(field "$TMP/tol.json" 'r["lateness_ns"]["tolerance_auto"]')" = False ]
ok $? "the same run with lateness_tolerance_ns = 1000 s: exit 0"

if [ "${2:-}" != san ]; then
	# val N: VAL, ADV+1, load 0.6, stop after the window; every link
	# 0.2/N Gb/s and every latency and window N times longer: the same
	# emulated network, N times less work per wall-clock second
	val() {
		n=$1
		bw=$(python3 -c "print(0.2 / $n)")
		# shellcheck disable=SC2046
		"$DFEMU" --config configs/reference.ini --quiet $(rates "$bw") \
			--set routing.algorithm=val \
			--set traffic.pattern=adversarial --set traffic.shift=1 \
			--set traffic.load=0.6 --set traffic.finish=stop \
			--set links.terminal_latency_ns=$((100 * n)) \
			--set links.local_latency_ns=$((500 * n)) \
			--set links.global_latency_ns=$((2000 * n)) \
			--set traffic.warmup_ms=$((100 * n)) \
			--set traffic.measure_ms=$((300 * n)) \
			--json "$TMP/val$n.json" >/dev/null 2>&1
	}
	val 1
	r1=$?
	val 4
	r4=$?
	a1=$(field "$TMP/val1.json" 'r["accepted_load"]')
	a4=$(field "$TMP/val4.json" 'r["accepted_load"]')
	echo "# VAL ADV+1 0.6: 0.2 Gb/s exit $r1 accepted $a1; 0.05 Gb/s exit $r4 accepted $a4"
	[ $r4 -eq 0 ] && { [ $r1 -eq 5 ] || python3 -c "
import sys; sys.exit(abs($a1 - $a4) > 0.01)"; }
	ok $? "VAL, ADV+1, 0.6: at 0.2 Gb/s either exit 5 or the accepted load of the 4x slower network (within 0.01)"
fi
tap_done
