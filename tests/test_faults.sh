#!/bin/sh
# Faults: links failed and restored while traffic runs, from
# [faults] events and from telemetry commands; MIN's fallback to a detour
# when a group pair loses its only global link; in-flight packets
# delivered or dropped and counted; every packet and credit accounted for;
# refusals with their reason (an algorithm that cannot, a partition, a
# change before the last one settled, bad events).
# Usage: tests/test_faults.sh PATH/TO/dfemu (from the repo root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
. tests/tap.sh
tap_plan 32
EAL="--eal -l 0-1 --no-pci --no-huge -m 512 --no-shconf --log-level=warning"
REF="--config configs/reference.ini --quiet --set traffic.warmup_ms=50"

# emu NAME ARGS...: a run, its report in NAME.json, its exit status in rc
emu() {
	name=$1
	shift
	# shellcheck disable=SC2086
	"$DFEMU" $REF --json "$TMP/$name.json" "$@" $EAL \
		--file-prefix=dffault$$ >"$TMP/$name.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { echo "# $name: exit $rc"; grep -E "WARNING|STUCK|changes|packets" "$TMP/$name.log" | sed 's/^/#   /' | head -8; }
}

# accounted NAME: every packet delivered or dropped with its reason,
# exactly once, every credit back, and the changes as expected (python
# expression over r, the report, in $2)
accounted() {
	python3 - "$TMP/$1.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = p0 = r["packets"]
lost = p["dropped"]["link_down"]
print("# injected %d delivered %d link_down %d in flight %d; accepted %.4f; "
      "hops %s" % (p["injected"], p["delivered"], lost, p["in_flight"],
                   r["accepted_load"], r["hops"]["histogram"]))
for c in r["changes"]:
    print("#   %.3f s %s %s: %s" % (c["t_s"], "ok" if c["ok"] else "REFUSED",
                                    c["what"], c["message"][:100]))
assert p["in_flight"] == 0 and p["injected"] == p["delivered"] + lost
assert r["exactly_once"] and r["credits_conserved"] and r["drained"]
assert eval("(" + sys.argv[2] + ")"), sys.argv[2]
PY
}

# 1. MIN: r0.p5 is group 0's only global link to group 1 (g = ah+1).
# Under the worst case (group G to G+1) at load 0.06, below MIN's 0.125,
# all of group 0's traffic needs it; with it down from the start, every
# router of group 0 still injects and every packet arrives (accounted):
# it detours through third groups.
emu base --set traffic.measure_ms=300
accounted base 'max(int(k) for k in r["hops"]["histogram"]) <= 3'
ok $? "MIN on the full wiring: at most 3 router hops, accounted"
emu min --set traffic.measure_ms=300 --set traffic.pattern=adversarial \
	--set traffic.load=0.06 --set faults.events=0:down:r0.p5
[ "$rc" -eq 0 ] && accounted min 'r["changes"][0]["ok"] and
	"r0.p5 (global) <-> r7.p6 down" in r["changes"][0]["message"] and
	min(r["injected_per_router"][0:4]) > 0'
ok $? "MIN, a group pair's only global link down: its traffic detours through third groups and all arrives"

# 2. in-flight packets: a 200 us global latency keeps about five packets
# on r0.p5 (50 % busy with group 0 -> 1 traffic) whenever it fails; the
# global buffers cover the credit round trip
EV="100:down:r0.p5, 200:up:r0.p5, 300:down:r0.p5, 400:up:r0.p5"
LONG="--set traffic.pattern=adversarial --set traffic.load=0.06
	--set traffic.measure_ms=500 --set links.global_latency_ns=200000
	--set links.global_buffer_flits=512"
# shellcheck disable=SC2086
emu drop $LONG --set faults.in_flight=drop --set faults.events="$EV"
[ "$rc" -eq 0 ] && accounted drop 'r["packets"]["dropped"]["link_down"] > 0
	and sum(c["ok"] for c in r["changes"]
		if c["what"].startswith("link")) == 4'
ok $? "faults.in_flight = drop: packets on the failed link lost and counted as link_down; injected = delivered + lost"
# shellcheck disable=SC2086
emu deliver $LONG --set faults.events="$EV"
[ "$rc" -eq 0 ] && accounted deliver 'r["packets"]["dropped"]["link_down"] == 0
	and sum(c["ok"] for c in r["changes"]
		if c["what"].startswith("link")) == 4'
ok $? "faults.in_flight = deliver (default): nothing lost, all accounted"

# 2b. packets lost on arrival behind queued ones: at load 0.9, with long
# links and deep buffers, the input queues hold tens of packets when a
# link fails; a lost packet's slot moves down below the queued ones
# (dataplane/router.c, vcq_drop_arrival), which still leave, once each
EV2="5:down:r0.p2, 10:up:r0.p2, 15:down:r0.p5, 20:up:r0.p5, 25:down:r3.p3"
emu queued --set run.pace=none --set traffic.warmup_ms=5 \
	--set traffic.load=0.9 --set traffic.measure_ms=30 \
	--set links.local_latency_ns=50000 --set links.global_latency_ns=100000 \
	--set links.local_buffer_flits=256 --set links.global_buffer_flits=512 \
	--set faults.in_flight=drop --set faults.events="$EV2"
[ "$rc" -eq 0 ] && accounted queued 'r["packets"]["dropped"]["link_down"] > 0'
ok $? "faults.in_flight = drop at load 0.9: packets lost on arrival behind queued ones; the queued ones delivered once, every credit back"

# 3. the Valiant family on a local link going down and up
for alg in val ugal-l ugal-g vc-ordered; do
	emu "$alg" --set routing.algorithm=$alg --set traffic.load=0.3 \
		--set traffic.measure_ms=300 \
		--set faults.events="50:down:r5.p3, 150:up:r5.p3"
	[ "$rc" -eq 0 ] && accounted "$alg" 'all(c["ok"] for c in r["changes"])
		and "(local)" in r["changes"][0]["message"]'
	ok $? "$alg: a local link down and up again during the run, accounted"
done

# router drain: no path through router 5 and its terminals pause for half
# the window; it injects clearly less than the others, all accounted
for alg in min ugal-l; do
	emu "drain-$alg" --set routing.algorithm=$alg --set traffic.load=0.3 \
		--set traffic.measure_ms=400 \
		--set faults.events="50:drain:5, 250:undrain:5"
	[ "$rc" -eq 0 ] && accounted "drain-$alg" 'all(c["ok"] for c in r["changes"])
		and "router 5 drained: no path passes through it" in
			r["changes"][0]["message"]
		and r["injected_per_router"][5] <
			0.8 * sorted(r["injected_per_router"])[18]'
	ok $? "$alg: router 5 drained for half the run and back (tables without paths through it): it injects less, accounted"
done

# 4. a scheduled change waits for the one before to settle; refusals
emu settle --set traffic.measure_ms=100 \
	--set faults.events="10:down:r0.p5, 10:up:r0.p5"
[ "$rc" -eq 0 ] && accounted settle 'all(c["ok"] for c in r["changes"]) and
	"waited for the change before to settle" in r["changes"][-2]["message"]'
ok $? "a scheduled change due before the last one settled: applied once it has, and said so"
# shellcheck disable=SC2086
"$DFEMU" --config configs/small.ini --quiet --json "$TMP/part.json" \
	--set traffic.measure_ms=100 \
	--set faults.events="10:down:r0.p2, 30:down:r1.p2" $EAL \
	--file-prefix=dffault$$ >"$TMP/part.log" 2>&1
[ $? -eq 0 ] && accounted part 'r["changes"][0]["ok"] and
	not r["changes"][-1]["ok"] and
	"could not reach" in r["changes"][-1]["message"]'
ok $? "the change that would cut a group off: refused (router cannot reach router), the run goes on accounted"

# 5. OFAR: a link down takes a new escape ring over the links up. r0.p5
# (group 0 -> 1, the G -> G+1 ring's) and r5.p3 (local) are on the ring,
# r0.p2 is not. Under the worst case beyond saturation the ring is in use
# while it changes: no stall (the watchdog at 2 s), all accounted.
emu ofar --set routing.algorithm=ofar --set traffic.load=0.3 \
	--set traffic.measure_ms=300 --set faults.events="40:down:r0.p5, \
	100:up:r0.p5, 160:down:r5.p3, 220:up:r5.p3, 250:down:r0.p2"
[ "$rc" -eq 0 ] && accounted ofar 'all(c["ok"] for c in r["changes"])
	and "escape ring laid again over the links up: 9 of its 36 hops" in
		r["changes"][0]["message"]
	and "0 of its 36 hops changed" in r["changes"][-2]["message"]'
ok $? "ofar: ring links (global, local) and a link off the ring down and up, the escape ring laid again each time, accounted"
# (finish = stop: beyond saturation, waiting for every measured packet
# while generation goes on took longer than the 5 s drain timeout on a
# slow host, with this commit's binary and the one before alike)
emu ofar-adv --set routing.algorithm=ofar --set traffic.pattern=adversarial \
	--set traffic.load=0.5 --set traffic.measure_ms=250 --set run.stall_ms=2000 \
	--set traffic.finish=stop \
	--set faults.events="40:down:r0.p5, 100:up:r0.p5, 160:down:r1.p6"
[ "$rc" -eq 0 ] && accounted ofar-adv 'all(c["ok"] for c in r["changes"])
	and r["ofar"]["escape_entries"] > 0'
ok $? "ofar beyond saturation (worst case 0.5): the ring in use changes three times, no stall, accounted"
# the tree escape ([OC] §III-B), rooted at r0: r0.p5 (global, from the
# root into another group) and r1.p2 (local, r1 to the root) are tree
# edges, r1.p3 is not. Beyond saturation the tree is laid again while in
# use: no stall, all accounted; r0.p5 moves the 4 routers of the group it
# led into, r1.p2 moves r1, r1.p3 nothing.
emu ofar-tree --set routing.algorithm=ofar --set routing.escape_net=tree \
	--set traffic.pattern=adversarial --set traffic.load=0.5 \
	--set traffic.measure_ms=250 --set run.stall_ms=2000 \
	--set traffic.finish=stop --set faults.events="40:down:r0.p5, \
	100:up:r0.p5, 160:down:r1.p2, 220:up:r1.p2, 240:down:r1.p3"
[ "$rc" -eq 0 ] && accounted ofar-tree 'all(c["ok"] for c in r["changes"])
	and [int(c["message"].split("escape tree laid again over the links up: ")[1].split()[0])
	     for c in r["changes"] if c["what"].startswith("link")] == [4, 4, 1, 1, 0]
	and r["ofar"]["escape_entries"] > 0'
ok $? "ofar, tree escape beyond saturation: tree links (global, local) and a link off the tree down and up, the tree laid again each time, no stall, accounted"
# shellcheck disable=SC2086
"$DFEMU" --config configs/small.ini --quiet --json "$TMP/ofar-small.json" \
	--set routing.algorithm=ofar --set traffic.measure_ms=100 \
	--set faults.events=10:down:r0.p2 $EAL \
	--file-prefix=dffault$$ >"$TMP/ofar-small.log" 2>&1
[ $? -eq 0 ] && accounted ofar-small 'not r["changes"][0]["ok"] and
	"no Hamiltonian ring found" in r["changes"][0]["message"]'
ok $? "ofar, small network: a global link down would leave no escape ring: refused, the run goes on accounted"
"$DFEMU" --check --config configs/reference.ini --set routing.algorithm=ofar \
	--set faults.events=10:drain:5 >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "drains are not possible here: ofar" "$TMP/err"
ok $? "ofar with a drain: refused at start, the reason named"
"$DFEMU" --check --config configs/reference.ini \
	--set faults.events=10:explode:r0.p5 >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "'10:explode:r0.p5' is not an event; allowed: T:down:rR.pP" "$TMP/err"
ok $? "a malformed event: exit 2, the forms allowed"
"$DFEMU" --check --config configs/reference.ini \
	--set faults.events=10:down:r99.p5 >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "routers are 0..35" "$TMP/err"
ok $? "a link the network does not have: exit 2, the ranges named"
"$DFEMU" --check --config configs/reference.ini --set run.stall_ms=500 \
	>/dev/null 2>&1
ok $? "run.stall_ms is accepted (the watchdog's period)"

# the watchdog (run.stall_ms): OFAR without its escape ring deadlocks
# under ADV+h on one canonical VC per link class (test_dataplane.c,
# no_escape); the run ends with every stuck VC and what it waits for
# shellcheck disable=SC2086
"$DFEMU" $REF --set routing.algorithm=ofar --set routing.escape=off \
	--set links.vcs=1/1+1 --set routing.cm=none \
	--set links.local_buffer_flits=16 --set links.global_buffer_flits=16 \
	--set traffic.pattern=adversarial \
	--set traffic.shift=2 --set traffic.process=saturate \
	--set traffic.measure_ms=1000 --set traffic.finish=stop \
	--set run.stall_ms=300 --set links.terminal_bandwidth_gbps=0.1 \
	--set links.local_bandwidth_gbps=0.1 \
	--set links.global_bandwidth_gbps=0.1 $EAL --file-prefix=dffault$$ \
	>"$TMP/stall.out" 2>"$TMP/stall.err"
[ $? -eq 1 ] && grep -q "STUCK: router" "$TMP/stall.out" &&
	grep -Eq "^dfemu: stuck: router [0-9]+ port [0-9]+ \((local|global)\) vc[0-9], [0-9]+ queued, [0-9]+ ms: head packet to router [0-9]+: no output" "$TMP/stall.err" &&
	grep -Eq "^dfemu: [0-9]+ VCs stuck" "$TMP/stall.err"
ok $? "a deadlock: exit 1 within run.stall_ms, a dump of the stuck VCs and what their head packets wait for"

# 5. telemetry commands during a run, then SIGINT
# shellcheck disable=SC2086
"$DFEMU" $REF --set traffic.load=0.2 --set traffic.measure_ms=60000 \
	--json "$TMP/tel.json" $EAL --file-prefix=dffaulttel$$ \
	>"$TMP/tel.log" 2>&1 &
emu=$!
PIDS="$PIDS $emu"
wait_phase dffaulttel$$ measure
w=$?
tel() {
	echo "$1" | dpdk-telemetry.py -f dffaulttel$$ 2>/dev/null | tail -1
}
tel /dfemu/link_down,r0.p5 >"$TMP/t1"
[ $w -eq 0 ] && grep -q '"result": "done"' "$TMP/t1"
ok $? "/dfemu/link_down,r0.p5 (once the window opened): done"
tel /dfemu/link_down,r0.p5 >"$TMP/t2"
grep -q '"result": "refused"' "$TMP/t2"
ok $? "/dfemu/link_down again: refused"
tel /dfemu/load,0.1 >"$TMP/t3"
grep -q 'offered load 0.2 -> 0.1' "$TMP/t3"
ok $? "/dfemu/load,0.1: the offered load changes"
tel /dfemu/drain,7 >"$TMP/t3b"
grep -q '"result": "done"' "$TMP/t3b" && grep -q "router 7 drained" "$TMP/t3b"
ok $? "/dfemu/drain,7: done"
tel /dfemu/drain,99 >"$TMP/t3c"
grep -q "is not a router; allowed: 0..35" "$TMP/t3c"
ok $? "/dfemu/drain of a router the network does not have: refused, the range named"
tel /dfemu/link_up,bogus >"$TMP/t4"
grep -q "is not a link" "$TMP/t4"
ok $? "/dfemu/link_up with a bad link: refused, the form named"
tel /dfemu/changes >"$TMP/t5"
grep -q "link r0.p5 down" "$TMP/t5"
ok $? "/dfemu/changes lists what happened"
kill -INT $emu
wait $emu
[ $? -eq 0 ] && accounted tel 'sum(1 for c in r["changes"]
	if c["what"] in ("link r0.p5 down", "load 0.1", "drain 7")
	and c["ok"]) == 3'
ok $? "the run ends on SIGINT with the changes in its report, accounted"

# 6. a command before the last change settled is refused: global links of
# 1 s latency make settling take over a second, and one telemetry session
# sends the second command right after the first answer
# shellcheck disable=SC2086
"$DFEMU" $REF --set traffic.load=0.01 --set traffic.measure_ms=60000 \
	--set traffic.drain_timeout_ms=100 --set links.global_latency_ns=1000000000 --json "$TMP/slow.json" \
	$EAL --file-prefix=dffaultslow$$ >"$TMP/slow.log" 2>&1 &
emu=$!
PIDS="$PIDS $emu"
wait_phase dffaultslow$$ measure
w=$?
printf '/dfemu/link_down,r0.p5\n/dfemu/link_up,r0.p5\n' |
	dpdk-telemetry.py -f dffaultslow$$ >"$TMP/t6" 2>&1
[ $w -eq 0 ] && grep '/dfemu/link_up' "$TMP/t6" | grep -q "still settling"
ok $? "/dfemu/link_up before the link_down settled: refused, said why"
# packets on 1 s links do not drain in 100 ms: exit 1 (test_signals.sh
# checks the second signal)
kill -INT $emu
wait $emu
rc=$?
[ $rc -eq 1 ] && python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(not (r["interrupted"] == 1 and not r["drained"] and r["packets"]["in_flight"] > 0))' "$TMP/slow.json"
ok $? "the throttled run ends on SIGINT: the 100 ms drain timeout passes with packets on 1 s links, exit $rc"

tap_done
