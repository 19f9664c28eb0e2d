#!/bin/sh
# Real time (docs/realtime.md): emulated time is exact, so a run without
# ports that the host cannot keep up with still exits 0 with the
# network's figures, and reports its lag; a light one keeps real time.
# The [DF]-style case where the host's limit once passed for the
# network's: VAL under ADV+1 at 0.6 on the reference's links matches the
# same network with every time 4x slower. time_scale = N changes no
# result (the digest of time scale 1), and auto finds an N that keeps
# real time. (A port run that falls behind exits 5: tests/test_exact.sh.)
# A config directory is refused.
# Usage: tests/test_realtime.sh PATH/TO/dfemu [san] (from the repo root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu [san]}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 20

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

# light: 0.01 Gb/s links (a packet takes 410 us), load 0.05.
# light_run JSON [ARG...]: the light network and load, more settings after
light_run() {
	json=$1
	shift
	# shellcheck disable=SC2046
	"$DFEMU" --config configs/reference.ini --quiet $(rates 0.01) \
		--set traffic.load=0.05 --set traffic.warmup_ms=20 "$@" \
		--json "$json"
}
light() {
	light_run "$TMP/light.json" --set traffic.measure_ms=400 \
		>"$TMP/light.out" 2>&1
	rc=$?
	echo "# light: exit $rc, lateness $(field "$TMP/light.json" 'r["lateness_ns"]')"
	[ $rc -eq 0 ] && [ "$(field "$TMP/light.json" 'r["kept_real_time"]')" = True ] &&
		[ "$(field "$TMP/light.json" 'r["needs_real_time"]')" = False ] &&
		[ "$(field "$TMP/light.json" 'r["lateness_ns"]["tolerance"]')" = 409600 ] &&
		[ "$(field "$TMP/light.json" 'r["lateness_ns"]["tolerance_auto"]')" = True ]
}
light
ok $? "a light run: exit 0, kept_real_time true, needs_real_time false (no ports), the auto tolerance one packet time (409600 ns)"

# overloaded: 20 Gb/s links (a packet takes 205 ns), load 0.3: about
# 50 M packets/s offered, far above what one core forwards
# shellcheck disable=SC2046
"$DFEMU" --config configs/reference.ini --quiet $(rates 20) \
	--set traffic.load=0.3 --set traffic.finish=stop \
	--set traffic.warmup_ms=1 --set traffic.measure_ms=4 \
	--json "$TMP/heavy.json" >"$TMP/heavy.out" 2>&1
rc=$?
echo "# overloaded: exit $rc, lag $(field "$TMP/heavy.json" 'r["lateness_ns"]')"
[ $rc -eq 0 ] && [ "$(field "$TMP/heavy.json" 'r["kept_real_time"] and not r["needs_real_time"]')" = True ] &&
	[ "$(field "$TMP/heavy.json" 'r["lateness_ns"]["p99"] > r["lateness_ns"]["tolerance"]')" = True ] &&
	[ "$(field "$TMP/heavy.json" 'r["lateness_ns"]["within_tolerance"]')" = False ] &&
	[ "$(field "$TMP/heavy.json" 'r["credits_conserved"] and r["exactly_once"] and r["drained"]')" = True ] &&
	grep -q "lag (ns).*(no ports: exact at any lag)" "$TMP/heavy.out"
ok $? "an overloaded host, no ports: exit 0, its lag above the tolerance reported (within_tolerance false), exact at any lag said; every packet and credit accounted for"

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

# time dilation: the reference at time_scale = 8 (B) against the same
# run unpaced (C): one digest, since N only paces. And the reference at
# 1/8 of its link rates with 8x its latencies and windows (A): the same
# network in emulated units, so B's latencies are A's / 8.
# shellcheck disable=SC2046
"$DFEMU" --config configs/reference.ini --quiet $(rates 0.025) \
	--set links.terminal_latency_ns=800 \
	--set links.local_latency_ns=4000 \
	--set links.global_latency_ns=16000 --set traffic.warmup_ms=200 \
	--set traffic.measure_ms=400 --set run.pace=none \
	--json "$TMP/ts1.json" >/dev/null 2>&1
r1=$?
"$DFEMU" --config configs/reference.ini --set run.time_scale=8 \
	--set traffic.warmup_ms=25 --set traffic.measure_ms=50 \
	--json "$TMP/ts8.json" >"$TMP/ts8.out" 2>&1
r8=$?
"$DFEMU" --config configs/reference.ini --quiet --set run.pace=none \
	--set traffic.warmup_ms=25 --set traffic.measure_ms=50 \
	--json "$TMP/tsn.json" >/dev/null 2>&1
rn=$?
echo "# N=1 low rates: exit $r1; N=8: exit $r8; unpaced: exit $rn"
python3 - "$TMP/ts1.json" "$TMP/ts8.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
la, lb = a["latency_ns"], b["latency_ns"]
print("# N=1 low rates / N=8: accepted %.4f / %.4f, latency avg %.0f / "
      "%.0f x 8, p99 %.0f / %.0f x 8 ns, wall %.2f / %.2f s" % (
          a["accepted_load"], b["accepted_load"], la["avg"], lb["avg"],
          la["p99"], lb["p99"], a["wall_s"], b["wall_s"]))
PY
[ $r8 -eq 0 ] && [ $rn -eq 0 ] &&
	[ "$(field "$TMP/ts8.json" 'r["digest"]')" = "$(field "$TMP/tsn.json" 'r["digest"]')" ]
ok $? "time_scale = 8 gives the unpaced run's digest"
python3 - "$TMP/ts1.json" "$TMP/ts8.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
near = lambda x, y, tol: abs(x - y) <= tol * y
sys.exit(not (b["time_scale"] == 8 and a["time_scale"] == 1 and
              abs(a["accepted_load"] - b["accepted_load"]) <= 0.001 and
              abs(a["offered_load"] - b["offered_load"]) <= 0.001 and
              near(8 * b["latency_ns"]["avg"], a["latency_ns"]["avg"], 0.002)
              and near(8 * b["latency_ns"]["p99"], a["latency_ns"]["p99"],
                       0.04)
              and all(r["credits_conserved"] and r["exactly_once"]
                      for r in (a, b))))
PY
ok $? "the reference at time_scale = 8 = the 8x slower network: loads within 0.001, latency avg within 0.2 % and p99 within a histogram bucket after x8"
[ $r1 -eq 0 ] && [ $r8 -eq 0 ] &&
	grep -q "time scale  *8: emulated time runs 8 times slower" "$TMP/ts8.out"
ok $? "both exit 0; the report says the time scale"

"$DFEMU" --config configs/reference.ini --check --set run.time_scale=auto \
	>"$TMP/check.out" 2>&1 &&
	grep -q "time scale  *auto: the smallest that keeps real time" \
		"$TMP/check.out"
ok $? "--check says time_scale = auto is chosen at start"
"$DFEMU" --config configs/reference-split.ini --check \
	--set run.time_scale=auto >"$TMP/split.out" 2>&1
[ $? -eq 2 ] && grep -q "time_scale = auto would calibrate each of the 2 instances apart" \
	"$TMP/split.out"
ok $? "time_scale = auto with several instances: exit 2, why said"
"$DFEMU" --config configs/reference.ini --check --set run.time_scale=0.5 \
	>"$TMP/half.out" 2>&1
[ $? -eq 2 ] && grep -q "time_scale.*auto, or a number from 1 to" "$TMP/half.out"
ok $? "time_scale = 0.5: exit 2, what is allowed named"
"$DFEMU" --config configs/reference.ini --check --set run.time_scale=auto \
	--set traffic.mode=batch >"$TMP/batch.out" 2>&1
[ $? -eq 2 ] && grep -q "time_scale = auto calibrates on the generated traffic of a steady run" \
	"$TMP/batch.out"
ok $? "time_scale = auto in batch mode: exit 2, why said"

# auto on a light run: 1 (real time) is enough. Here its trial's lateness
# p99 was 46-73 us against half the tolerance, 204.8 us, in 15 runs, but
# a VM stall during the 100 ms trial can push it over (two fresh-clone
# suites picked 2, twice in a row once). What auto must do is follow its
# rule: the first N whose trial kept p99 within half the tolerance. So
# the trials are read back (printed without --quiet): N = 1, or the
# trial at 1 measured the host behind (which the check reads; no second
# try).
light_auto() {
	# shellcheck disable=SC2046
	"$DFEMU" --config configs/reference.ini $(rates 0.01) \
		--set traffic.load=0.05 --set traffic.warmup_ms=20 \
		--set traffic.measure_ms=100 --set run.time_scale=auto \
		--json "$TMP/auto1.json" >"$TMP/auto1.out" 2>&1
	ra=$?
	na=$(field "$TMP/auto1.json" 'r["time_scale"], r["time_scale_auto"]')
	# the trial at N = 1: "time scale 1: lateness p99 X ns (half the
	# tolerance: Y)"
	t1=$(sed -n 's/.*time scale 1: lateness p99 \([0-9]*\) ns (half the tolerance: \([0-9]*\)).*/\1 \2/p' \
		"$TMP/auto1.out" | head -1)
	echo "# light, auto: exit $ra, time scale and auto: $na, trial at 1 (p99, half the tolerance): ${t1:-none}, lateness $(field "$TMP/auto1.json" 'r["lateness_ns"]["p99"]') ns"
}
light_auto
p99=${t1% *}
half=${t1#* }
[ $ra -eq 0 ] && [ -n "$t1" ] &&
	{ [ "$na" = "1 True" ] || [ "$p99" -gt "$half" ]; }
ok $? "time_scale = auto on a light run: 1, or more only when its trial at 1 measured the host behind"

if [ "${2:-}" != san ]; then
	# val N NAME [ARGS...]: VAL, ADV+1, load 0.6, stop after the
	# window; every link 0.2/N Gb/s and every latency and window N times
	# longer (the same emulated network, N times less work per
	# wall-clock second), then ARGS; the report in NAME.json
	val() {
		k=$1
		out=$2
		shift 2
		bw=$(python3 -c "print(0.2 / $k)")
		# shellcheck disable=SC2046
		"$DFEMU" --config configs/reference.ini --quiet $(rates "$bw") \
			--set routing.algorithm=val \
			--set traffic.pattern=adversarial --set traffic.shift=1 \
			--set traffic.load=0.6 --set traffic.finish=stop \
			--set links.terminal_latency_ns=$((100 * k)) \
			--set links.local_latency_ns=$((500 * k)) \
			--set links.global_latency_ns=$((2000 * k)) \
			--set traffic.warmup_ms=$((100 * k)) \
			--set traffic.measure_ms=$((300 * k)) "$@" \
			--json "$TMP/$out.json" >/dev/null 2>&1
	}
	val 1 val1
	r1=$?
	val 4 val4
	r4=$?
	a1=$(field "$TMP/val1.json" 'r["accepted_load"]')
	a4=$(field "$TMP/val4.json" 'r["accepted_load"]')
	echo "# VAL ADV+1 0.6: 0.2 Gb/s exit $r1 accepted $a1; 0.05 Gb/s exit $r4 accepted $a4"
	[ $r4 -eq 0 ] && [ $r1 -eq 0 ] && python3 -c "
import sys; sys.exit(abs($a1 - $a4) > 0.002)"
	ok $? "VAL, ADV+1, 0.6: at 0.2 Gb/s, exit 0 and the accepted load of the 4x slower network (within 0.002), whatever the host"

	# the same at the reference's rates with time_scale = auto: slowed
	# down until it keeps real time, then the 4x slower network's load
	val 1 vala --set run.time_scale=auto
	ra=$?
	aa=$(field "$TMP/vala.json" 'r["accepted_load"]')
	na=$(field "$TMP/vala.json" 'r["time_scale"]')
	echo "# the same, time_scale = auto: exit $ra, chose $na, accepted $aa"
	[ $ra -eq 0 ] && python3 -c "
import sys; sys.exit(abs($aa - $a4) > 0.002)"
	ok $? "VAL, ADV+1, 0.6 at 0.2 Gb/s with time_scale = auto: exit 0 and the 4x slower network's accepted load (within 0.002)"

	# dfemu-bench capacity ends, every trial accounted for; the figure
	# itself is the bench's (docs/performance.md), not a test's. Two
	# rounds: two searches, and the median's figures between their range
	BENCH=$(dirname "$DFEMU")/../bench/dfemu-bench
	"$BENCH" capacity --config configs/small.ini --seconds 0.05 \
		--rounds 2 >"$TMP/cap.out" 2>&1
	rc=$?
	tail -2 "$TMP/cap.out" | sed 's/^/# /'
	[ $rc -eq 0 ] && ! grep -q "NOT ACCOUNTED" "$TMP/cap.out" &&
		grep -q "^capacity_gbps=[0-9.e+-]* delivered_pps=[1-9]" "$TMP/cap.out"
	ok $? "dfemu-bench capacity: bisection ends with a link rate that kept real time, every trial accounted for"
	[ "$(grep -c '^capacity: ' "$TMP/cap.out")" -eq 2 ] &&
		tail -1 "$TMP/cap.out" | python3 -c "
import sys
f = dict(kv.split('=') for kv in sys.stdin.read().split())
ok = f['rounds'] == '2' and float(f['min_pps']) <= float(f['delivered_pps']) <= float(f['max_pps'])
sys.exit(not ok)"
	ok $? "dfemu-bench capacity --rounds 2: two searches, the median between the range"
	# dfemu-bench sim: the config run unpaced, its figures per wall
	# second, and the digest dfemu gives the same run
	SIMSET="--set traffic.warmup_ms=10 --set traffic.measure_ms=50"
	# shellcheck disable=SC2086
	"$BENCH" sim --config configs/small.ini $SIMSET >"$TMP/sim.out" 2>&1
	rc=$?
	tail -1 "$TMP/sim.out" | sed 's/^/# /'
	# shellcheck disable=SC2086
	"$DFEMU" --config configs/small.ini $SIMSET --quiet \
		--json "$TMP/sim.json" >/dev/null 2>&1
	[ $rc -eq 0 ] && tail -1 "$TMP/sim.out" | python3 -c "
import json, sys
f = dict(kv.split('=') for kv in sys.stdin.read().split())
r = json.load(open(sys.argv[1]))
ok = (float(f['emulated_per_wall']) > 0 and float(f['hops_per_sec']) > 0
      and int(f['steps']) > 0 and f['digest'] == r['digest'])
sys.exit(not ok)" "$TMP/sim.json"
	ok $? "dfemu-bench sim: the config unpaced, its rates per wall second, and the paced run's digest"
	"$BENCH" capacity >"$TMP/cap2.out" 2>&1
	[ $? -eq 2 ] && grep -q "capacity needs --config FILE" "$TMP/cap2.out"
	ok $? "dfemu-bench capacity without --config: exit 2, said"

	# dfemu-bench gaps: its figures agree with each other (the floor is
	# what is left of a gap, so never above the longest; the time lost
	# is a share); the figures themselves are the host's
	"$BENCH" gaps --seconds 0.2 >"$TMP/gaps.out" 2>&1
	rc=$?
	tail -1 "$TMP/gaps.out" | sed 's/^/# /'
	[ $rc -eq 0 ] && python3 - "$TMP/gaps.out" <<'PY'
import sys
line = open(sys.argv[1]).read().strip().splitlines()[-1]
f = dict(kv.split("=") for kv in line.split())
p99, lost = float(f["floor_p99_ns"]), float(f["lost_share"])
longest, gaps = float(f["longest_ns"]), int(f["gaps"])
assert 0 <= lost < 1 and 0 <= p99 <= longest + 1, f
assert (gaps == 0) == (longest == 0) and (gaps == 0) <= (p99 == 0), f
# a busier worker catches up later: its floor is never lower, and never
# above the longest gap either
busy = [float(x) for x in f["floor_p99_busy_ns"].split(",")]
assert len(busy) == 9 and p99 <= busy[0] + 1, f
assert all(a <= b + 1 for a, b in zip(busy, busy[1:])), f
assert busy[-1] <= longest + 1, f
PY
	ok $? "dfemu-bench gaps: exit 0, floor within the longest gap, time lost a share, a busier worker's floor never lower"

	# dfemu-bench sync: two lcores in step pay for the other's clock
	# line at every step, one that reads a clock that does not move
	# pays for a load; the figures themselves are the host's
	"$BENCH" sync --seconds 0.2 >"$TMP/sync.out" 2>&1
	rc=$?
	tail -1 "$TMP/sync.out" | sed 's/^/# /'
	[ $rc -eq 0 ] && tail -1 "$TMP/sync.out" | python3 -c "
import sys
f = dict(kv.split('=') for kv in sys.stdin.read().split())
sys.exit(not (int(f['steps']) > 0 and
              0 < float(f['idle_cycles']) < float(f['sync_cycles'])))"
	ok $? "dfemu-bench sync: exit 0, a step in step costs more than an idle one's look"
else
	# these runs measure the host's speed, or ask it to keep real time
	# at rates chosen for a release build: declared, not run
	why="measures the host's speed; the sanitizer build's is not the product's"
	for t in "VAL at 0.2 Gb/s against the 4x slower network" \
		"VAL with time_scale = auto" "dfemu-bench capacity" \
		"dfemu-bench capacity --rounds 2" "dfemu-bench sim" \
		"dfemu-bench capacity without --config" "dfemu-bench gaps" \
		"dfemu-bench sync"; do
		skip "$t" "$why"
	done
fi
tap_done
