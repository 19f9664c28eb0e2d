#!/bin/sh
# The papers' router ([router]: speedup, output queues, router delay;
# docs/router.md) on real runs: every routing algorithm of both topologies
# keeps every packet and credit with it (a short run that drains, and an
# overloaded one), a two-router network's zero-load latency is exactly
# the switching's formula (cut-through or store-and-forward) plus one
# delay per router, the credit loop's bound holds with 8-flit packets, and
# bad [router] values get one clear line each; and the report's per-link
# use on that two-router network.
# Usage: tests/test_router.sh PATH/TO/dfemu (from the repo root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 67
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
# store-and-forward, every algorithm of both topologies (the loops above
# are cut-through, the default), on the default router
for alg in $("$DFEMU" --list-algorithms=dragonfly | cut -f1); do
	run_one "dragonfly $alg, store-and-forward" $REF normal \
		--set router.switching=store-and-forward \
		--set routing.algorithm="$alg"
done
for alg in $("$DFEMU" --list-algorithms=flatfly | cut -f1); do
	run_one "flatfly $alg, store-and-forward" configs/flatfly.ini normal \
		--set router.switching=store-and-forward \
		--set routing.algorithm="$alg"
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
# terminal 1, at 1 Gb/s (64-byte flits: 512 ns each), latencies 100,
# 1,000 and 100 ns; at a periodic 5 % load nothing waits, so every
# packet's latency is the switching's formula (docs/design.md, "Time,
# links and credits"), for 1-, 8- and 9-flit packets:
# - store-and-forward: each link adds the packet's serialization and its
#   latency: 3 x 4,096 + 1,200 = 13,488 ns for 512 bytes;
# - cut-through: the two links into a router add one flit's, the last
#   the whole packet's: 2 x 512 + 4,096 + 1,200 = 6,320 ns;
# plus one router delay per router, with or without output queues.
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
# ticks of 1/4 ns, and a 10 Gb/s flit of 51.2 ns: within 2 ns
assert l["packets"] > 1000 and abs(l["min"] - want) <= 2, (l, want)
assert l["max"] == l["min"], l
PY
	ok $? "two routers, $name: every packet's latency is $want ns (exit $rc)"
}
SF="--set router.switching=store-and-forward"
DELAY="--set router.latency_ns=250"
OQ="--set router.speedup=3 --set router.output_buffer_flits=16"
zero_load "cut-through, 8 flits" 6320
zero_load "cut-through, 8 flits, router delay 250 ns" 6820 $DELAY
zero_load "cut-through, 8 flits, router delay, speedup 3, output queues" \
	6820 $DELAY $OQ
zero_load "cut-through, 1 flit" 2736 --set traffic.packet_bytes=64
# 576 bytes: 9 flits, 4,608 ns
zero_load "cut-through, 9 flits, router delay" 7332 $DELAY \
	--set traffic.packet_bytes=576
zero_load "store-and-forward, 8 flits" 13488 $SF
zero_load "store-and-forward, 8 flits, router delay 250 ns" 13988 $SF $DELAY
zero_load "store-and-forward, 8 flits, router delay, output queues" 13988 \
	$SF $DELAY $OQ
zero_load "store-and-forward, 1 flit" 2736 $SF --set traffic.packet_bytes=64
zero_load "store-and-forward, 9 flits, router delay" 15524 $SF $DELAY \
	--set traffic.packet_bytes=576
# A faster output than input (a 10 Gb/s global link: 409.6 ns a packet):
# router 0 may not finish sending before the tail is in (612 + 3,584 =
# 4,196 ns), so it starts at 3,786.4; router 1 has the head at 3,786.4 +
# 51.2 + 1,000 = 4,837.6 and sends on at once: + 4,096 + 100 = 9,033.6.
# With the crossbar too (its crossing ends with the tail). Store-and-
# forward: 4,196 + 1,409.6 + 4,196.
FAST="--set links.global_bandwidth_gbps=10"
zero_load "cut-through, faster output: not before the tail" 9034 $FAST
zero_load "cut-through, faster output, output queues" 9034 $FAST $OQ
zero_load "store-and-forward, faster output" 9802 $SF $FAST

# The reference at a light load: its shortest path, between two
# terminals of one router, takes two 100 ns terminal links at 0.2 Gb/s
# (a 64-byte flit 2,560 ns, a 512-byte packet 20,480 ns): cut-through
# 200 + 2,560 + 20,480 = 23,240 ns; store-and-forward 200 + 2 x 20,480 =
# 41,160 ns. Its fastest packets take exactly that.
ref_min() { # SWITCHING WANT_NS
	"$DFEMU" --config $REF $SHORT --quiet --json "$TMP/rm.json" \
		--set traffic.load=0.05 --set router.switching="$1" \
		>"$TMP/rm.txt" 2>&1
	rc=$?
	[ $rc -eq 0 ] && accounted "$TMP/rm.json" &&
		python3 - "$TMP/rm.json" "$2" <<'PY'
import json, sys
l = json.load(open(sys.argv[1]))["latency_ns"]
assert l["packets"] > 1000 and l["min"] == int(sys.argv[2]), l
PY
	ok $? "the reference at load 0.05, $1: the fastest packet takes the formula's $2 ns (exit $rc)"
}
ref_min cut-through 23240
ref_min store-and-forward 41160

# The credit loop with 8-flit packets (docs/validation.md, "The credit
# loop"): MIN under worst-case traffic saturates each group's one global
# channel, whose rate is then buffer / round trip per VC. Latencies in
# flit times (2,560 ns at 0.2 Gb/s): terminal 1, local 10, global 100,
# credits the same; 64-flit buffers. The round trip: the head flit (1)
# and the link (100) to the far router, which sends the whole packet on
# (8), and the credit back (100): 209 flit times cut-through; with
# store-and-forward the first is the whole packet: 216. Unpaced: exact.
credit_loop() { # SWITCHING RTT
	F=2560
	"$DFEMU" --config $REF --quiet --json "$TMP/cl.json" \
		--set run.pace=none --set router.switching="$1" \
		--set routing.algorithm=min --set traffic.pattern=adversarial \
		--set traffic.load=0.5 --set traffic.packet_bytes=512 \
		--set links.terminal_latency_ns=$F \
		--set links.local_latency_ns=$((10 * F)) \
		--set links.global_latency_ns=$((100 * F)) \
		--set links.terminal_credit_latency_ns=$F \
		--set links.local_credit_latency_ns=$((10 * F)) \
		--set links.global_credit_latency_ns=$((100 * F)) \
		--set links.local_buffer_flits=64 \
		--set links.global_buffer_flits=64 \
		--set traffic.source_queue=16 --set traffic.finish=stop \
		--set traffic.warmup_ms=100 --set traffic.measure_ms=400 \
		>"$TMP/cl.txt" 2>&1
	rc=$?
	[ $rc -eq 0 ] && python3 - "$TMP/cl.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["config"]
# a group's a*p terminals share its one minimal global channel
got, bound = r["accepted_load"] * c["a"] * c["p"], 64 / int(sys.argv[2])
# the two modes' bounds are 3.3 % apart: within 1 % tells them apart
assert abs(got / bound - 1) <= 0.01, (got, bound)
print("# global channel %.4f flits per flit time, bound %.4f" % (got, bound))
PY
	ok $? "credit loop, 8-flit packets, $1: a global channel carries 64 / $2 of its rate (exit $rc)"
}
credit_loop cut-through 209
credit_loop store-and-forward 216

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
