#!/bin/sh
# Exact emulated time (docs/realtime.md): the same config and seed give
# the same digest (every delivered packet's source, sequence number,
# destination and emulated delivery time, and the final counters) twice,
# paced or unpaced, with 1 or 2 workers, with or without hugepages, in
# the release and the sanitizer build, and with a busy loop on every
# core; a run without ports exits 0 however late the host; a run with a
# port that falls behind exits 5; the capture is the same file twice.
# Usage: test_exact.sh DFEMU [san]
DFEMU=${1:?usage: test_exact.sh DFEMU [san]}
. "$(dirname "$0")/tap.sh"
# the sanitizer build also compares with the release build's digest
if [ "${2:-}" = san ]; then tap_plan 24; else tap_plan 23; fi
TMP=$(mktemp -d)
HOGS=""
cleanup() {
	for p in $HOGS; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

REF="--config configs/reference.ini --quiet --set traffic.warmup_ms=20
     --set traffic.measure_ms=100"

# digest NAME ARGS...: run, assert exit 0 and accounting, print the digest
# into $TMP/NAME
digest() {
	name=$1
	shift
	# (the JSON first: what follows --eal is EAL's)
	"$DFEMU" --json "$TMP/$name.json" "$@" >"$TMP/$name.log" 2>&1
	rc=$?
	python3 - "$TMP/$name.json" "$rc" >"$TMP/$name" 2>>"$TMP/$name.log" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["counters"]
assert sys.argv[2] == "0", "exit status " + sys.argv[2]
assert r["exactly_once"] and r["credits_conserved"] and r["drained"], r
# a packet injected is delivered, or lost where a link failed
lost = r["packets"]["dropped"]["link_down"]
assert c["delivered"] > 0 and c["injected"] == c["delivered"] + lost, c
print(r["digest"])
PY
}

# same A B DESCRIPTION: the runs A and B both passed and agree
same() {
	if [ -s "$TMP/$1" ] && [ -s "$TMP/$2" ] && cmp -s "$TMP/$1" "$TMP/$2"; then
		ok 0 "$3"
	else
		ok 1 "$3 ($(cat "$TMP/$1" 2>/dev/null) vs $(cat "$TMP/$2" 2>/dev/null))"
		tail -n 3 "$TMP/$1.log" "$TMP/$2.log" | sed 's/^/# /'
	fi
}

# The reference, MIN: every way of running it gives one digest.
# shellcheck disable=SC2086
{
	digest a $REF --set run.pace=none
	digest b $REF --set run.pace=none
	digest paced $REF
	digest w2 $REF --set run.pace=none --set run.workers=2
	digest w2paced $REF --set run.workers=2
	digest nohuge $REF --set run.pace=none --eal --no-huge -m 512
	digest scaled $REF --set run.time_scale=2
}
same a b "reference, twice, unpaced: one digest"
same a paced "paced (real time) gives the unpaced digest"
same a w2 "2 workers give 1 worker's digest"
same a w2paced "2 workers, paced, give it too"
same a nohuge "--no-huge gives it too"
same a scaled "time_scale 2 gives it too"
# the links' use over the window (the report's "links") too: counted at
# the window's emulated edges, not when the main lcore looked
python3 - "$TMP" <<'PY'
import json, sys
d = sys.argv[1]
runs = ["a", "paced", "w2", "w2paced", "nohuge", "scaled"]
links = [json.load(open("%s/%s.json" % (d, n)))["links"] for n in runs]
assert len(links[0]) == 180 and all(x["packets"] > 0 for x in links[0]), links[0][:2]
for n, l in zip(runs[1:], links[1:]):
    assert l == links[0], (n, [(x, y) for x, y in zip(links[0], l) if x != y][:2])
PY
ok $? "every run above gives the same per-link use of the window"

# Each switching has its digest, the same on a rerun (docs/router.md,
# "Switching"); the reference's 8-flit packets tell them apart.
# shellcheck disable=SC2086
{
	digest sf $REF --set run.pace=none \
		--set router.switching=store-and-forward
	digest sf2 $REF --set run.pace=none --set run.workers=2 \
		--set router.switching=store-and-forward
}
same sf sf2 "store-and-forward: one digest twice (1 and 2 workers)"
[ -s "$TMP/sf" ] && [ -s "$TMP/a" ] && ! cmp -s "$TMP/a" "$TMP/sf"
ok $? "cut-through and store-and-forward: different digests ($(cat "$TMP/a") vs $(cat "$TMP/sf"))"

# The release and the sanitizer build agree (tools/test.sh builds both:
# the sanitizer build's run compares with the release binary).
OTHER=$(dirname "$(dirname "$DFEMU")")
OTHER=$(dirname "$OTHER")/build/emu/dfemu
if [ "${2:-}" = san ] && [ -x "$OTHER" ]; then
	# shellcheck disable=SC2086
	DFEMU_SAN=$DFEMU
	DFEMU=$OTHER
	# shellcheck disable=SC2086
	digest rel $REF --set run.pace=none
	DFEMU=$DFEMU_SAN
	same a rel "the sanitizer build gives the release build's digest"
elif [ "${2:-}" = san ]; then
	skip "the sanitizer build gives the release build's digest" \
		"no release build at $OTHER"
fi

# OFAR with the papers' router (speedup, output queues, router delay),
# adversarial traffic and a link that fails at 50 ms of emulated time:
# 1 worker unpaced against 2 workers paced.
OFAR="$REF --set routing.algorithm=ofar --set router.speedup=2
      --set router.output_buffer_flits=32 --set router.latency_ns=300
      --set traffic.pattern=adversarial --set traffic.load=0.2
      --set faults.events=50:down:r0.p5"
# shellcheck disable=SC2086
{
	digest ofar1 $OFAR --set run.pace=none
	digest ofar2 $OFAR --set run.workers=2
}
same ofar1 ofar2 "OFAR, the papers' router, a link failure: 1 worker = 2 workers paced"

# Link changes closer together than a change takes to settle (long links
# at load 0.9: some 3 ms): each waits for the one before, and is made at
# the first of settling's looks after which none is needed, where the
# workers are held (emu/change_apply.c, ctl_settle). So it is made at
# the same emulated instant however late the main lcore looks: here it
# writes every link's capture, which once left a change to be made
# whenever it got to it, a different instant every run.
CHG="--config configs/reference.ini --quiet --set traffic.warmup_ms=5
     --set traffic.measure_ms=20 --set traffic.load=0.9
     --set links.local_latency_ns=50000 --set links.global_latency_ns=100000
     --set links.local_buffer_flits=256 --set links.global_buffer_flits=512
     --set faults.in_flight=drop"
EV="5:down:r0.p2, 6:up:r0.p2, 7:down:r0.p5, 8:up:r0.p5"
# shellcheck disable=SC2086
{
	digest chg1 $CHG --set faults.events="$EV" --set run.pace=none
	digest chg2 $CHG --set faults.events="$EV" --set run.pace=none \
		--set capture.links=all --set capture.file="$TMP/chg.pcapng"
	digest chg3 $CHG --set faults.events="$EV" --set run.workers=2
}
same chg1 chg2 "link changes that wait for the one before: a main lcore busy capturing gives the same digest"
same chg1 chg3 "... and 2 workers paced too"
python3 - "$TMP/chg1.json" "$TMP/chg3.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["changes"] for f in sys.argv[1:])
waited = [c for c in a if "waited for the change before" in c["message"]]
assert len(a) >= 4 and len(waited) >= 2, a
assert [(c["t_s"], c["what"]) for c in a] == [(c["t_s"], c["what"]) for c in b], (a, b)
PY
ok $? "they waited (made after their time); both runs made and settled them at the same instants"

# A link shorter than the quantum: two routers (p=1 a=1 h=1 g=2) whose
# global link has no latency and no serialization. What router 0 sends
# on it in a step would be due by the step's own time: it is due just
# after, and router 1 handles it at the next step. So every packet takes
# its two terminal links (4,096 ns of serialization + 100 ns each) plus
# at most one quantum, here 1,000 ns; exact on 1 or 2 workers.
# Store-and-forward: cut-through, router 0 could not finish sending on
# the instant link before the tail is in, and would send at that exact
# instant, not in a step (tests/test_router.sh checks that timing).
cat >"$TMP/two.ini" <<'INI'
[topology]
p = 1
a = 1
h = 1
g = 2
[links]
terminal_latency_ns = 100
terminal_bandwidth_gbps = 1
global_latency_ns = 0
global_bandwidth_gbps = 0
[traffic]
packet_bytes = 512
process = periodic
load = 0.05
warmup_ms = 1
measure_ms = 20
[router]
switching = store-and-forward
[run]
quantum_ns = 1000
INI
# shellcheck disable=SC2086
{
	digest zero1 --config "$TMP/two.ini" --quiet --set run.pace=none
	digest zero2 --config "$TMP/two.ini" --quiet --set run.workers=2
}
same zero1 zero2 "a zero-latency, unlimited link: 1 worker unpaced = 2 workers paced"
python3 - "$TMP/zero1.json" "$TMP/a.json" <<'PY'
import json, sys
z, a = (json.load(open(f)) for f in sys.argv[1:])
lo = 2 * (4096 + 100)
l = z["latency_ns"]
assert lo < l["min"] and l["max"] <= lo + 1000, (lo, l)
assert l["max"] - l["min"] > 100, l  # the step's phase varies
assert z["pace"]["quantum_ns"] == 1000, z["pace"]
assert a["pace"]["quantum_ns"] == 2560, a["pace"]
PY
ok $? "it delivers at the next step: latency within one quantum above the links' own; auto quantum 2560 ns on the reference"

# A host that is far behind: a busy loop on every core, the run unpaced
# and paced. Same digest, exit 0: no ports, exact at any lag.
for c in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$c" sh -c 'while :; do :; done' &
	HOGS="$HOGS $!"
done
# shellcheck disable=SC2086
{
	digest hog $REF --set run.pace=none
	digest hogpaced $REF --set run.time_scale=1
}
for p in $HOGS; do kill "$p" 2>/dev/null; done
HOGS=""
same a hog "a busy loop on every core: the quiet run's digest"
same a hogpaced "paced, with the busy loops: the same digest, exit 0"

# A run with a port that cannot keep up exits 5; and the same lag
# without the port exits 0. 20 Gb/s links: far beyond one core.
python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<IHHiIII",0xa1b2c3d4,2,4,0,0,65535,1))' \
	>"$TMP/empty.pcap"
{
	cat configs/reference.ini
	echo "[terminals]"
	echo "t5 = net_pcap5,rx_pcap=$TMP/empty.pcap,tx_pcap=$TMP/out5.pcap"
} >"$TMP/port.ini"
FAST="--quiet --set traffic.warmup_ms=2 --set traffic.measure_ms=20
      --set links.terminal_bandwidth_gbps=20 --set links.local_bandwidth_gbps=20
      --set links.global_bandwidth_gbps=20"
# shellcheck disable=SC2086
"$DFEMU" --config "$TMP/port.ini" $FAST --json "$TMP/late.json" \
	>"$TMP/late.log" 2>&1
rc=$?
python3 - "$TMP/late.json" "$rc" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert sys.argv[2] == "5", "exit " + sys.argv[2]
assert r["needs_real_time"] and not r["kept_real_time"], r["lateness_ns"]
assert r["lateness_ns"]["p99"] > r["lateness_ns"]["tolerance"], r["lateness_ns"]
assert r["exactly_once"] and r["credits_conserved"], r
PY
ok $? "a port run whose lag p99 exceeds its tolerance exits 5, accounted"
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference.ini $FAST --json "$TMP/fast.json" \
	>"$TMP/fast.log" 2>&1
rc=$?
python3 - "$TMP/fast.json" "$rc" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert sys.argv[2] == "0", "exit " + sys.argv[2]
assert not r["needs_real_time"] and r["kept_real_time"], r
PY
ok $? "the same rates without a port: exit 0 (exact at any lag)"
"$DFEMU" --check --config "$TMP/port.ini" --set run.pace=none \
	>"$TMP/none.log" 2>&1
[ $? -eq 2 ] && grep -q "pace = none runs as fast as the host can" "$TMP/none.log"
ok $? "pace = none with a port: refused, exit 2, saying why"
"$DFEMU" --check --config "$TMP/port.ini" >"$TMP/check.log" 2>&1 &&
	grep -q "needs real time (ports or instances)" "$TMP/check.log" &&
	"$DFEMU" --check --config configs/reference.ini 2>&1 |
	grep -q "no ports: exact at any lag"
ok $? "--check says which runs need real time"

# The capture: the same file, byte for byte, twice unpaced (a worker
# waits for the writer rather than skip), and paced when the writer kept
# up (a paced run skips what the writer cannot take, and counts it).
CAP="--config configs/small.ini --quiet --set traffic.warmup_ms=5
     --set traffic.measure_ms=20 --set routing.algorithm=val --capture all"
# shellcheck disable=SC2086
"$DFEMU" $CAP -w "$TMP/c1.pcapng" --set run.pace=none >"$TMP/c1.log" 2>&1 &&
	"$DFEMU" $CAP -w "$TMP/c2.pcapng" --set run.pace=none \
		--json "$TMP/c2.json" >"$TMP/c2.log" 2>&1 &&
	[ -s "$TMP/c1.pcapng" ] && cmp -s "$TMP/c1.pcapng" "$TMP/c2.pcapng" &&
	[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["capture"]["skipped"])' "$TMP/c2.json")" = 0 ]
ok $? "capture, unpaced: the same pcapng file twice, nothing skipped"
# shellcheck disable=SC2086
"$DFEMU" $CAP -w "$TMP/c3.pcapng" --json "$TMP/c3.json" >"$TMP/c3.log" 2>&1
if [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["capture"]["skipped"])' "$TMP/c3.json")" = 0 ]; then
	cmp -s "$TMP/c1.pcapng" "$TMP/c3.pcapng"
	ok $? "capture, paced: the unpaced file, byte for byte"
else
	skip "capture, paced: the unpaced file" "the writer fell behind and records were skipped (counted)"
fi

tap_done
