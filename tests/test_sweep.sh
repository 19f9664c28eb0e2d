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

tools/dfemu-sweep --dfemu "$DFEMU" --config configs/small.ini \
	--algorithms min,val --patterns adversarial --loads 0.2,0.6 \
	--set traffic.warmup_ms=20 --set traffic.measure_ms=80 \
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
python3 - "$TMP/again.json" "$TMP/out/sweep.csv" <<'PY'
import csv, json, sys
r = json.load(open(sys.argv[1]))
row = next(csv.DictReader(open(sys.argv[2])))
c = r["config"]
assert c["algorithm"] == row["algorithm"] and c["pattern"] == row["pattern"]
assert abs(c["load"] - float(row["load"])) < 1e-9 and str(c["seed"]) == row["seed"]
assert abs(r["accepted_load"] - float(row["accepted_load"])) < 0.02
PY
ok $? "a CSV row's command reproduces the run"
tools/dfemu-sweep --dfemu "$DFEMU" --loads 0.5:0.1:0.1 --out "$TMP/x" \
	>/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "START:STOP:STEP" "$TMP/err"
ok $? "bad --loads: exit 2, says what is allowed"
tap_done
