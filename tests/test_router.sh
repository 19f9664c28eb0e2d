#!/bin/sh
# The papers' router ([router]: speedup, output queues, router delay;
# docs/router.md) on real runs: every routing algorithm of both topologies
# keeps every packet and credit with it (a short run that drains, and an
# overloaded one), a two-router network's zero-load latency is exactly
# its links' latencies and serializations plus one delay per router, and
# bad [router] values get one clear line each; and the report's per-link
# use on that two-router network.
# Usage: tests/test_router.sh PATH/TO/dfemu (from the repo root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 36
REF=configs/reference.ini
PAPER="--set router.speedup=2 --set router.output_buffer_flits=32
       --set router.latency_ns=300"
SHORT="--set traffic.warmup_ms=20 --set traffic.measure_ms=150"

# run_one NAME CONFIG KIND SETS...: a short run, exit 0, accounted
# (tests/tap.sh; KIND: normal or overloaded)
run_one() {
	name=$1 cfg=$2 kind=$3
	shift 3
	# shellcheck disable=SC2086
	"$DFEMU" --config "$cfg" $SHORT "$@" --quiet --json "$TMP/r.json" \
		>"$TMP/r.txt" 2>&1
	rc=$?
	[ $rc -eq 0 ] && accounted "$TMP/r.json" "$kind"
	ok $? "$name: drains, every packet delivered once, credits conserved (exit $rc)"
	[ $rc -eq 0 ] || tail -5 "$TMP/r.txt" | sed 's/^/#   /'
}

# every dragonfly algorithm but OFAR (below, with its escapes) and
# shortest (VAL's tables, [SP]'s paths: test_cli runs it)
for alg in $("$DFEMU" --list-algorithms | cut -f1 | grep -vx 'ofar\|shortest'); do
	# shellcheck disable=SC2086
	run_one "dragonfly $alg, speedup 2, output queues, router delay" \
		$REF normal $PAPER --set routing.algorithm=$alg
done
# OFAR: the escape's bubble in the output queues, with each congestion
# management, 3/2(+1) VCs, the ring and the tree ([OC] §III)
for esc in ring tree; do
	for cm in none bcm ecm; do
		# shellcheck disable=SC2086
		run_one "dragonfly ofar $esc cm=$cm, speedup 2, output queues, router delay" \
			$REF normal $PAPER --set routing.algorithm=ofar \
			--set routing.cm=$cm --set routing.escape_net=$esc
	done
done
for alg in min min-ad val ugal ugal-s clos-ad; do
	# shellcheck disable=SC2086
	run_one "flatfly $alg, speedup 2, output queues, router delay" \
		configs/flatfly.ini normal $PAPER --set routing.algorithm=$alg
done
# overloaded: uniform at 0.95 and worst case at 0.6, then drained (short
# source queues, so that what waits to enter drains soon on a sanitizer
# build too)
OVER="--set traffic.source_queue=64 --set traffic.drain_timeout_ms=30000"
# shellcheck disable=SC2086
run_one "dragonfly min overloaded (0.95), output queues" $REF overloaded \
	$PAPER $OVER --set traffic.load=0.95
# shellcheck disable=SC2086
run_one "dragonfly ugal-l-cr overloaded (worst case 0.6), output queues" \
	$REF overloaded $PAPER $OVER --set routing.algorithm=ugal-l-cr \
	--set traffic.pattern=adversarial --set traffic.load=0.6
# shellcheck disable=SC2086
run_one "dragonfly ofar overloaded (ADV+h 0.6, no CM), output queues" \
	$REF overloaded $PAPER $OVER --set routing.algorithm=ofar \
	--set routing.cm=none --set traffic.pattern=adversarial \
	--set traffic.shift=2 --set traffic.load=0.6
# shellcheck disable=SC2086
run_one "dragonfly ofar saturated (ADV+h), 16-flit buffers and output queues" \
	$REF normal $OVER --set router.speedup=2 \
	--set router.output_buffer_flits=16 --set routing.algorithm=ofar \
	--set routing.cm=none --set traffic.pattern=adversarial \
	--set traffic.shift=2 --set traffic.process=saturate \
	--set traffic.finish=stop --set links.local_buffer_flits=16 \
	--set links.global_buffer_flits=16
# speedup 1 with output queues (the queue alone), 16 flits per VC
run_one "dragonfly ugal-l, speedup 1, 16-flit output queues" $REF normal \
	--set routing.algorithm=ugal-l --set router.output_buffer_flits=16

# Two routers (p=1 a=1 h=1 g=2): terminal 0 -> router 0 -> router 1 ->
# terminal 1, 512-byte packets at 1 Gb/s (4,096 ns each link), at a
# periodic 5 % load nothing waits: latency = 3 x 4,096 + 100 + 1,000 + 100
# + 2 router delays, for every packet.
cat >"$TMP/two.ini" <<'INI'
[topology]
p = 1
a = 1
h = 1
g = 2
[links]
terminal_latency_ns = 100
terminal_bandwidth_gbps = 1
global_latency_ns = 1000
global_bandwidth_gbps = 1
[traffic]
packet_bytes = 512
process = periodic
load = 0.05
warmup_ms = 20
measure_ms = 200
INI
zero_load() { # NAME EXPECTED_NS SETS...
	name=$1 want=$2
	shift 2
	# shellcheck disable=SC2086
	"$DFEMU" --config "$TMP/two.ini" "$@" --quiet \
		--json "$TMP/z.json" >"$TMP/z.txt" 2>&1
	rc=$?
	[ $rc -eq 0 ] && accounted "$TMP/z.json" &&
		python3 - "$TMP/z.json" "$want" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))["latency_ns"]
want = int(sys.argv[2])
# the TSC's rounding: within 2 ns
assert l["packets"] > 1000 and abs(l["min"] - want) <= 2, (l, want)
assert l["max"] == l["min"], l
PY
	ok $? "two routers, $name: every packet's latency is $want ns (exit $rc)"
}
zero_load "no router delay" 13488
zero_load "router delay 250 ns" 13988 --set router.latency_ns=250
zero_load "router delay 250 ns, speedup 3, output queues" 13988 \
	--set router.latency_ns=250 --set router.speedup=3 \
	--set router.output_buffer_flits=16

# Per-link use (the report's "links"): on the two routers each terminal
# sends to the other at a periodic 5 % of its link, so each direction of
# the global link is busy 5 % of the window, and sent that share of the
# packets its window holds (512 bytes at 1 Gb/s: 4,096 ns each).
"$DFEMU" --config "$TMP/two.ini" --json "$TMP/u.json" \
	>"$TMP/u.txt" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "link use (window) *global links busy 0.05" \
	"$TMP/u.txt" && python3 - "$TMP/u.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
links = r["links"]
assert len(links) == 2, links
window_ns = r["config"]["measure_ms"] * 1e6
for l in links:
    assert l["class"] == "global" and l["from"] != l["to"], l
    assert abs(l["busy"] - 0.05) < 0.002, l
    want = 0.05 * window_ns / 4096
    assert abs(l["packets"] - want) < 0.02 * want, (l, want)
PY
ok $? "two routers: each global link busy 0.05 of the window, in the text and the JSON (exit $rc)"

# UGAL-L_CR's credit round trip includes the wait in the output queue
# ([DF] Fig. 15): on two routers with two terminals each (p=2 a=1 h=1
# g=2) at load 0.7, the global link is 93 % busy and packets queue for
# it. With speedup 1 they wait in the input queue, before the round trip
# starts; with output queues they wait after it started, at the
# crossing. So the global outputs' average round trip exceeds the zero-
# load one by more with output queues, by at least a packet time (40,960
# ns at 0.1 Gb/s).
sed 's/^p = 1/p = 2/; s/^load = 0.05/load = 0.7/;
	s/^terminal_bandwidth_gbps = 1/terminal_bandwidth_gbps = 0.1/;
	s/^global_bandwidth_gbps = 1/global_bandwidth_gbps = 0.1/;
	s/^process = periodic/process = bernoulli/' "$TMP/two.ini" \
	>"$TMP/cr.ini"
for r in 1 paper; do
	set -- --set routing.algorithm=ugal-l-cr
	[ $r = paper ] && set -- "$@" --set router.speedup=2 \
		--set router.output_buffer_flits=64
	# shellcheck disable=SC2086
	"$DFEMU" --config "$TMP/cr.ini" "$@" --quiet \
		--json "$TMP/cr-$r.json" >"$TMP/cr.txt" 2>&1 || break
done
python3 - "$TMP/cr-1.json" "$TMP/cr-paper.json" <<'PY'
import json, sys
def excess(path):
    r = json.load(open(path))
    # port 2: the global port (terminals 0-1, no local ports at a = 1)
    g = [o for o in r["credit_delay"]["outputs"] if o["port"] == 2]
    assert len(g) == 2 and r["exactly_once"] and r["credits_conserved"], r
    return min(o["crt_avg_ns"] - o["crt0_ns"] for o in g)
e1, ep = excess(sys.argv[1]), excess(sys.argv[2])
assert ep > e1 + 40960, (e1, ep)
PY
ok $? "UGAL-L_CR: with output queues the credit round trip includes the output-queue wait (global outputs' excess over zero load larger by a packet time or more)"

# bad values: one line naming where the key was set, the key and what is
# allowed
bad() { # NAME PATTERN CONFIG_LINES...
	name=$1 pat=$2
	shift 2
	{
		cat "$REF"
		printf '[router]\n'
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$TMP/bad.ini"
	"$DFEMU" --check --config "$TMP/bad.ini" >"$TMP/b.txt" 2>&1
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/b.txt")" -eq 1 ] &&
		grep -q "$pat" "$TMP/b.txt"
	ok $? "[router] $name: refused with one line (exit $rc): $(cat "$TMP/b.txt")"
}
line=$(($(wc -l <$REF) + 2))
bad "speedup 0.5" "bad.ini:$line: .*speedup.*1 to 16" "speedup = 0.5"
bad "speedup 2 without output queues" \
	"bad.ini:$line: \[router\] speedup = 2 needs an output queue.*output_buffer_flits >= 8" \
	"speedup = 2"
bad "output queue under one packet" \
	"bad.ini:$line: \[router\] output_buffer_flits = 7 cannot hold one packet.*at least 8" \
	"output_buffer_flits = 7"
bad "latency_ns not a number" "bad.ini:$line: .*latency_ns" "latency_ns = soon"
bad "unknown key" "bad.ini:$line: .*speed_up" "speed_up = 2"
tap_done
