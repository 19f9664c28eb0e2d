#!/bin/sh
# tools/dfemu-sweep on the small network: a 2x2 sweep, then the CSV, the
# saturation summary, the plots, a run reproduced from its CSV row, and
# argument errors. Usage: tests/test_sweep.sh PATH/TO/dfemu (repo root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 15

# 0.1 Gb/s links: the sanitizer build keeps up with the emulated time
# (at 1 Gb/s its lateness p99 reaches 1 ms, and a run reproduced on a
# busy host can then accept a different load); 300 ms windows hold about
# 1800 packets at load 0.2, so the accepted load is within 0.02 by 4 sigma
tools/dfemu-sweep --dfemu "$DFEMU" --config configs/small.ini \
	--algorithms min,val --patterns adversarial --loads 0.2,0.6 \
	--set links.terminal_bandwidth_gbps=0.1 \
	--set links.local_bandwidth_gbps=0.1 \
	--set links.global_bandwidth_gbps=0.1 \
	--set traffic.warmup_ms=20 --set traffic.measure_ms=300 \
	--out "$TMP/out" >"$TMP/log" 2>&1
ok $? "a 2 x 2 sweep runs"
grep -q '^\[4/4\] val' "$TMP/log"
ok $? "progress shows every run"
python3 - "$TMP/out" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/sweep.csv")))
assert len(rows) == 4, len(rows)
assert {(r["algorithm"], r["load"]) for r in rows} == {
    ("min", "0.2"), ("min", "0.6"), ("val", "0.2"), ("val", "0.6")}
for r in rows:
    assert r["exit_code"] == "0" and r["credits_conserved"] == "True", r
    assert abs(float(r["offered_load"]) - float(r["load"])) < 0.05, r
    assert "--set traffic.load=" in r["command"] and r["seed"] != ""
low = [r for r in rows if r["load"] == "0.2"]
assert all(abs(float(r["accepted_load"]) - 0.2) < 0.02 for r in low)
sat = list(csv.DictReader(open(sys.argv[1] + "/saturation.csv")))
assert len(sat) == 2 and all(float(s["max_accepted"]) > 0.15 for s in sat)
PY
ok $? "CSV: one row per run, config echo, accounting; saturation summary"
for f in adversarial-latency.png adversarial-throughput.png; do
	head -c 4 "$TMP/out/$f" 2>/dev/null | grep -q PNG
	ok $? "plot $f is a PNG"
done
# reproduce the first row from its command column
cmd=$(python3 -c 'import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))["command"])' "$TMP/out/sweep.csv")
eval "$cmd --json $TMP/again.json" >/dev/null 2>&1
erc=$?
[ $erc -eq 0 ] && python3 - "$TMP/again.json" "$TMP/out/sweep.csv" <<'PY'
import csv, json, sys
r = json.load(open(sys.argv[1]))
row = next(csv.DictReader(open(sys.argv[2])))
c = r["config"]
assert c["algorithm"] == row["algorithm"] and c["pattern"] == row["pattern"]
assert abs(c["load"] - float(row["load"])) < 1e-9 and str(c["seed"]) == row["seed"]
# emulated time is exact: the same figures, to the CSV's precision
assert abs(r["accepted_load"] - float(row["accepted_load"])) < 1e-4, \
    (r["accepted_load"], row["accepted_load"])
assert r["digest"] == row["digest"], (r["digest"], row["digest"])
PY
ok $? "a CSV row's command reproduces the run exactly (exit $erc)"
# a point the host could not keep up with (20 Gb/s links: a packet takes
# 205 ns): without ports it is exact at any lag, so it counts
tools/dfemu-sweep --dfemu "$DFEMU" --config configs/reference.ini \
	--algorithms min --patterns uniform --loads 0.3 \
	--set links.terminal_bandwidth_gbps=20 \
	--set links.local_bandwidth_gbps=20 \
	--set links.global_bandwidth_gbps=20 --set traffic.finish=stop \
	--set traffic.warmup_ms=1 --set traffic.measure_ms=2 \
	--out "$TMP/late" >"$TMP/late.log" 2>&1
rc=$?
python3 - "$TMP/late" <<'PY'
import csv, sys
d = sys.argv[1]
(row,) = csv.DictReader(open(d + "/sweep.csv"))
assert row["exit_code"] == "0" and row["kept_real_time"] == "True", row
assert float(row["lateness_p99_ns"]) > 205, row  # the host did lag
(sat,) = csv.DictReader(open(d + "/saturation.csv"))
assert float(sat["max_accepted"]) > 0.29, sat
PY
[ $? -eq 0 ] && [ $rc -eq 0 ] && ! grep -q "NOT REAL TIME" "$TMP/late.log"
ok $? "a point the host lagged on, without ports: exit 0, kept in the CSV and used for saturation (exact at any lag)"
# --replot: the same plots again from the CSV, no runs
rm -f "$TMP/out"/*.png
tools/dfemu-sweep --dfemu "$DFEMU" --algorithms min,val \
	--patterns adversarial --out "$TMP/out" --replot >"$TMP/log2" 2>&1 &&
	head -c 4 "$TMP/out/adversarial-latency.png" | grep -q PNG &&
	! grep -q '^\[' "$TMP/log2"
ok $? "--replot redraws the plots from sweep.csv without running"
# dfemu-validate: one sweep of the reproduction, two loads, short runs
tools/dfemu-validate --dfemu "$DFEMU" --quick --only wc-b256 \
	--set traffic.warmup_ms=20 --set traffic.measure_ms=80 \
	--out "$TMP/val" >"$TMP/vlog" 2>&1
ok $? "dfemu-validate --quick --only wc-b256 runs"
python3 - "$TMP/val" <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/wc-b256/sweep.csv")))
assert len(rows) == 6, len(rows)
assert {r["algorithm"] for r in rows} == {"ugal-l", "ugal-g", "ugal-l-cr"}
for r in rows:
    assert "links.global_buffer_flits=256" in r["command"], r["command"]
    assert "links.global_bandwidth_gbps=0.025" in r["command"]
    assert r["latency_min_avg_ns"] != "" and r["latency_nonmin_avg_ns"] != ""
r = json.load(open(d + "/wc-b256/json/adversarial-ugal-l-0.25.json"))
assert r["config"]["algorithm"] == "ugal-l"
PY
ok $? "validate: CSV rows with the 256-flit, 0.025 Gb/s set-up and kept JSON"
for f in wc-b256-ugal-l-paths.png wc-b256-ugal-l-hist.png; do
	head -c 4 "$TMP/val/$f" 2>/dev/null | grep -q PNG
	ok $? "validate: $f drawn"
done
# dfemu-validate's credit-loop section (tools/validate_router.py): each
# configuration's measured rate against its buffer / round-trip bound
# (short runs: a gross bound; docs/validation.md has the full ones)
tools/dfemu-validate --dfemu "$DFEMU" --quick --only creditloop \
	--set traffic.warmup_ms=100 --set traffic.measure_ms=400 \
	--out "$TMP/cl" >"$TMP/cllog" 2>&1 &&
	python3 - "$TMP/cl/summary-router.md" <<'PY'
import sys
rows = [l.split("|") for l in open(sys.argv[1]) if l.startswith("| speedup")]
assert len(rows) == 6, rows
for r in rows:
    assert 0.8 < float(r[6]) < 1.1, r
assert {r[3].strip() for r in rows} == {"202", "252", "209", "216"}, rows
PY
ok $? "validate --only creditloop: 6 configurations, each near buffer / round trip (202 flit times, 252 with a router delay, 209 and 216 with 8-flit packets cut-through and store-and-forward)"
tools/dfemu-validate --dfemu "$DFEMU" --only nosuch --out "$TMP/v2" \
	>/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "allowed: ur, wc" "$TMP/err"
ok $? "validate: unknown --only sweep refused, the sweeps listed"
tools/dfemu-sweep --dfemu "$DFEMU" --loads 0.5:0.1:0.1 --out "$TMP/x" \
	>/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "START:STOP:STEP" "$TMP/err"
ok $? "bad --loads: exit 2, says what is allowed"
tap_done
