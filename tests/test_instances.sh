#!/bin/sh
# Several instances: the reference dragonfly split over two
# dfemu processes, joined by memif and by a veth pair with af_packet;
# every packet and credit accounted for across the boundary, results
# against a single-instance run of the same network; start order; an
# instance killed or stalled mid-run (the other goes on without it);
# link failures and drains made in both, from [faults] events and
# telemetry; three instances, whole and with one killed; a plan mismatch,
# a missing peer and a missing PCI device refused.
# Usage: tests/test_instances.sh PATH/TO/dfemu [san] (from the repo root);
# with "san" (a sanitizer build, several times slower) the load is 0.05.
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu [san]}
LOAD=0.2
[ "${2:-}" = san ] && LOAD=0.05
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
PIDS=""
VETH=dfiv$$
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	ip link del "${VETH}a" 2>/dev/null
	# runtime directories (a killed instance leaves its own behind)
	rm -rf /run/dpdk/df*$$
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
. tests/tap.sh
tap_plan 19
mkdir -p /run/dfemu
SOCK=/run/dfemu/test$$.sock
# each instance's worker on its own CPU, the main lcores asleep on the other
MEM="--no-pci --no-huge -m 1024 --no-shconf --log-level=warning"
EAL0="--eal --lcores=0@0,1@1 $MEM --file-prefix=dfi0$$"
EAL1="--eal --lcores=0@1,1@0 $MEM --file-prefix=dfi1$$"
RUN="--quiet --set traffic.warmup_ms=50 --set traffic.measure_ms=300
	--set traffic.load=$LOAD"
PEERS="--set partition.i0.peer1=net_memif0,role=server,socket=$SOCK
	--set partition.i1.peer0=net_memif0,role=client,socket=$SOCK"

# pair NAME FIRST ARGS...: both instances of configs/reference-split.ini
# (FIRST starts first), reports NAME-0.json and NAME-1.json, exit
# statuses in rc0 and rc1
pair() {
	name=$1
	first=$2
	shift 2
	rm -f "/run/dpdk/dfi$first$$/dpdk_telemetry.v2"
	for i in $first $((1 - first)); do
		eal=$EAL0
		[ "$i" -eq 1 ] && eal=$EAL1
		# shellcheck disable=SC2086
		"$DFEMU" --config configs/reference-split.ini --instance "$i" \
			--json "$TMP/$name-$i.json" "$@" $eal \
			>"$TMP/$name-$i.log" 2>&1 &
		eval "pid$i=$!"
		PIDS="$PIDS $!"
		# really first: up (its telemetry socket, made by EAL's
		# init, which probes its peer port) before the other starts
		[ "$i" -eq "$first" ] &&
			wait_for_sock "/run/dpdk/dfi$i$$/dpdk_telemetry.v2"
	done
	# shellcheck disable=SC2154
	wait "$pid0"
	rc0=$?
	wait "$pid1"
	rc1=$?
	for i in 0 1; do
		eval "r=\$rc$i"
		# a failed instance's whole report (which credits are held
		# where, the pace, the peers' counts): a CI log keeps it
		[ "$r" -eq 0 ] || { echo "# $name-$i: exit $r"; grep -v '^ *$' "$TMP/$name-$i.log" | tail -60 | sed 's/^/#   /'; }
	done
}

# accounted NAME: both reports account for every packet of the network,
# each instance's terminals delivered exactly once, credits back, and
# what one sent the other received
accounted() {
	python3 - "$TMP/$1-0.json" "$TMP/$1-1.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for r in (a, b):
    n = r["partition"]["network"]
    print("# instance %d: injected %d delivered %d; peer %s; network "
          "injected %d delivered %d in flight %d" %
          (r["partition"]["instance"], r["packets"]["injected"],
           r["packets"]["delivered"], r["partition"]["peers"][0],
           n["injected"], n["delivered"], n["in_flight"]))
    assert n["exchanged"] and n["in_flight"] == 0
    # no case here drops ([faults] in_flight = deliver, no peer lost)
    assert n["lost"] == 0 and n["injected"] == n["delivered"], n
    assert r["exactly_once"] and r["credits_conserved"] and r["drained"]
    assert r["partition"]["enq_fail"] == 0 and r["partition"]["unknown_link"] == 0
    assert r["partition"]["late"] == 0  # in step: nothing came in late
pa, pb = a["partition"]["peers"][0], b["partition"]["peers"][0]
assert pa["sent"] == pb["received"] > 0 and pb["sent"] == pa["received"] > 0
assert pa["credits_sent"] == pb["credits_received"] > 0
assert pb["credits_sent"] == pa["credits_received"] > 0
tot = a["packets"]["injected"] + b["packets"]["injected"]
assert a["partition"]["network"]["injected"] == tot
PY
}

# 1. memif, instance 0 first; the same network in one instance
# shellcheck disable=SC2086
pair memif 0 $RUN $PEERS
[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] && accounted memif
ok $? "two instances over memif: both complete, every packet and credit of the network accounted for, sent = received both ways"
# unpaced, the same run: every measured packet as paced
# shellcheck disable=SC2086
pair none 0 $RUN $PEERS --set run.pace=none
[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] && accounted none &&
	python3 - "$TMP"/memif-0.json "$TMP"/memif-1.json "$TMP"/none-0.json \
		"$TMP"/none-1.json <<'PY'
import json, sys
r = [json.load(open(f)) for f in sys.argv[1:5]]
for i in (0, 1):
    a, b = r[i], r[2 + i]
    assert a["packets"]["measured_delivered"] == b["packets"]["measured_delivered"]
    assert a["latency_ns"] == b["latency_ns"], (a["latency_ns"], b["latency_ns"])
    assert b["pace"]["mode"] == "none"
print("# unpaced: %.2f and %.2f emulated s per wall s; paced %.2f and %.2f" %
      tuple(x["pace"]["emulated_s_per_wall_s"] for x in (r[2], r[3], r[0], r[1])))
PY
ok $? "two instances unpaced (run.pace = none): accounted, each instance's measured packets and latency figures those of the paced run"
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference.ini $RUN --json "$TMP/single.json" \
	$EAL0 >"$TMP/single.log" 2>&1
ok $? "the same network in one instance completes"
python3 - "$TMP/single.json" "$TMP/memif-0.json" "$TMP/memif-1.json" <<'PY'
import json, sys
s, a, b = (json.load(open(f)) for f in sys.argv[1:4])
na, nb = a["partition"]["terminals"], b["partition"]["terminals"]
acc = (a["accepted_load"] * na + b["accepted_load"] * nb) / (na + nb)
# packets generated in the window (all delivered: the accounting checks)
dlv = a["packets"]["measured_delivered"] + b["packets"]["measured_delivered"]
sd = s["packets"]["measured_delivered"]
la, lb = a["latency_ns"], b["latency_ns"]
lat = (la["avg"] * la["packets"] + lb["avg"] * lb["packets"]) / \
    (la["packets"] + lb["packets"])
print("# one instance: accepted %.4f, measured packets %d, latency avg "
      "%.0f ns; two: %.4f, %d, %.0f ns (port latency %.1f us)" %
      (s["accepted_load"], sd, s["latency_ns"]["avg"],
       acc, dlv, lat, a["partition"]["peers"][0]["latency_ns"] / 1e3))
assert abs(acc - s["accepted_load"]) < 0.001, (acc, s["accepted_load"])
# exact: the instances keep in step by their clocks, so the split
# network is the same network, packet for packet, whatever the host did
assert dlv == sd, (dlv, sd)
assert abs(lat - s["latency_ns"]["avg"]) < 1e-6 * lat, (lat, s["latency_ns"]["avg"])
assert max(la["max"], lb["max"]) == s["latency_ns"]["max"]
assert min(la["min"], lb["min"]) == s["latency_ns"]["min"]
# finish = keep: the instances end generation at the checkpoint one
# instance does (their SYNCs carry their counts), so every packet is
# generated and delivered at the same emulated instant as in one
d = [int(x["digest_deliveries"], 16) for x in (s, a, b)]
print("# finish = keep: generated %d + %d (one instance %d); deliveries' "
      "digests %016x + %016x = %016x (one instance %016x)"
      % (a["packets"]["generated"], b["packets"]["generated"],
         s["packets"]["generated"], d[1], d[2], (d[1] + d[2]) % 2**64, d[0]))
assert a["packets"]["generated"] + b["packets"]["generated"] == \
    s["packets"]["generated"]
assert (d[1] + d[2]) % 2**64 == d[0]
p = a["partition"]["peers"][0]["latency_ns"]
assert 0 < p < 1e6, p
PY
ok $? "two instances against one: the same measured packets, latency average, minimum and maximum, packets generated and deliveries' digest (finish = keep), whatever the host did; port latency measured (0-1 ms)"

# finish = stop: generation ends with the window in both, so the two
# instances deliver what one does, packet for packet and instant for
# instant: their deliveries' digests add up to the single run's
# shellcheck disable=SC2086
pair stop 0 $RUN $PEERS --set traffic.finish=stop
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference.ini $RUN --set traffic.finish=stop \
	--json "$TMP/stop1.json" $EAL0 >"$TMP/stop1.log" 2>&1 &&
	[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] && accounted stop &&
	python3 - "$TMP"/stop1.json "$TMP"/stop-0.json "$TMP"/stop-1.json <<'PY'
import json, sys
s, a, b = (json.load(open(f)) for f in sys.argv[1:4])
d = [int(x["digest_deliveries"], 16) for x in (s, a, b)]
print("# deliveries' digests: one instance %016x, two %016x + %016x = %016x"
      % (d[0], d[1], d[2], (d[1] + d[2]) % 2**64))
assert (d[1] + d[2]) % 2**64 == d[0]
assert a["packets"]["delivered"] + b["packets"]["delivered"] == \
    s["packets"]["delivered"]
PY
ok $? "finish = stop: the two instances' deliveries' digests add up to the one instance's (every packet delivered at the same emulated instant)"

# 2. instance 1 first: start order does not matter
# shellcheck disable=SC2086
pair order 1 $RUN --set traffic.measure_ms=100 $PEERS
[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] && accounted order
ok $? "instance 1 started first: both complete, accounted"

# 3. a veth pair with af_packet. DPDK 22.11's af_packet joins each port
# to PACKET_FANOUT group (pid ^ ifindex) & 0xffff, and the kernel refuses
# a group of that number on another device: consecutive ifindexes and
# pids an odd number apart can collide (EINVAL, seen with a busy loop on
# each core). Indexes with bit 15 apart would need pids as far apart.
IXA=$((20000 + $$ % 1000))
IXB=$((IXA + 16384))
if ip link add "${VETH}a" index $IXA type veth peer name "${VETH}b" \
	index $IXB 2>/dev/null ||
	ip link add "${VETH}a" type veth peer name "${VETH}b" 2>/dev/null; then
	for e in a b; do
		sysctl -qw "net.ipv6.conf.${VETH}$e.disable_ipv6=1" 2>/dev/null
		ip link set "${VETH}$e" up
	done
	# the frames on the wire, for the Wireshark dissector below
	timeout 20 tcpdump -i "${VETH}a" -w "$TMP/wire.pcap" -c 400 -U \
		>/dev/null 2>&1 &
	tcpd=$!
	PIDS="$PIDS $tcpd"
	# shellcheck disable=SC2086
	pair veth 0 $RUN --set traffic.measure_ms=200 \
		--set partition.i0.peer1=net_af_packet0,iface=${VETH}a,framecnt=4096 \
		--set partition.i1.peer0=net_af_packet0,iface=${VETH}b,framecnt=4096
	[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] && accounted veth
	ok $? "two instances over a veth pair with af_packet: both complete, accounted"
	wait $tcpd
	tshark -X lua_script:tools/dfemu.lua -r "$TMP/wire.pcap" -T fields \
		-e dfemu.type 2>/dev/null | sort | uniq -c >"$TMP/types"
	bad=$(tshark -X lua_script:tools/dfemu.lua -r "$TMP/wire.pcap" \
		-Y dfemu.malformed 2>/dev/null | wc -l)
	# HELLO (3) first, then DATA (1) and CREDIT (2); none malformed
	grep -q " 1$" "$TMP/types" && grep -q " 2$" "$TMP/types" &&
		grep -q " 3$" "$TMP/types" && [ "$bad" -eq 0 ]
	ok $? "tools/dfemu.lua dissects the frames captured between the instances (types: $(awk '{printf "%s x%s ", $2, $1}' "$TMP/types"))"
else
	ok 1 "a veth pair could be made (ip link add ... type veth)"
fi

# 4. an instance lost mid-run: the other takes its links down and goes on
# (UGAL-L: Valiant packets on their way to a lost group go on minimally)
# (a measurement long enough for wait_phase, a python start per poll, to
# see it on a busy host; each run its own --file-prefix: one killed leaves
# its runtime directory behind). Instance 0's terminal t0 is on a DPDK
# port held to a 1 ns lag tolerance: late as well as without its peer,
# it exits 4, not 5 (docs/usage.md, "Exit status").
python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<IHHiIII",0xa1b2c3d4,2,4,0,0,65535,1))' "$TMP/empty.pcap"
LOSE="--set partition.peer_timeout_ms=300 --set traffic.measure_ms=3000
	--set routing.algorithm=ugal-l"
EALK0="--eal --lcores=0@0,1@1 $MEM --file-prefix=dfk0$$"
EALK1="--eal --lcores=0@1,1@0 $MEM --file-prefix=dfk1$$"
EALS0="--eal --lcores=0@0,1@1 $MEM --file-prefix=dfs0$$"
EALS1="--eal --lcores=0@1,1@0 $MEM --file-prefix=dfs1$$"
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference-split.ini --instance 0 $RUN $PEERS $LOSE \
	--set "terminals.t0=net_pcap0,rx_pcap=$TMP/empty.pcap,tx_pcap=$TMP/lose-t0.pcap" \
	--set run.lateness_tolerance_ns=1 --json "$TMP/lose-0.json" $EALK0 \
	>"$TMP/lose-0.log" 2>&1 &
p0=$!
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference-split.ini --instance 1 $RUN $PEERS $LOSE \
	$EALK1 >"$TMP/lose-1.log" 2>&1 &
p1=$!
PIDS="$PIDS $p0 $p1"
wait_phase "dfk1$$" measure && kill -9 $p1
wait $p0
r0=$?
[ $r0 -eq 4 ] && python3 - "$TMP/lose-0.json" 2>"$TMP/lose.err" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p, n = r["partition"], r["partition"]["network"]
lost = p["peers"][0]["lost"]
print("# lost at %.3f s (%s); network left: injected %d + %d from it = "
      "delivered %d + lost %d + %d handed to it + in flight %d; dropped %s"
      % (lost["at_s"], lost["why"], n["injected"], n["from_lost"],
         n["delivered"], n["lost"], n["to_lost"], n["in_flight"],
         r["packets"]["dropped"]))
assert "nothing from it for 300 ms" in lost["why"]
assert n["lost_instances"] == 1 and n["in_flight"] == 0
assert n["injected"] + n["from_lost"] == \
    n["delivered"] + n["lost"] + n["to_lost"]
assert n["from_lost"] > 0 and n["to_lost"] > 0
# after the loss: packets for its terminals not injected, said why
assert r["packets"]["dropped"]["unreachable"] > 0
assert r["lateness_ns"]["within_tolerance"] is False, r["lateness_ns"]
assert r["drained"] and r["fully_drained"] and r["credits_conserved"]
assert r["credit_links_unchecked"] == 20
assert r["exactly_once"] is None and r["at_most_once"] is True
ch = [c for c in r["changes"] if c["what"] == "instance 1 lost"]
assert len(ch) == 1 and ch[0]["ok"] and "20 links to this instance down" \
    in ch[0]["message"], r["changes"]
PY
rc=$?
if [ $rc -ne 0 ]; then
	# what a failure here needs to be told apart: exit status or signal,
	# the check that failed, the instance's last words
	echo "# instance 0 exited $r0$([ $r0 -gt 128 ] &&
		echo " (killed by signal $((r0 - 128)))")"
	sed 's/^/# /' "$TMP/lose.err" 2>/dev/null | tail -5
	tail -5 "$TMP/lose-0.log" | sed 's/^/# /'
fi
ok $rc "instance 1 killed mid-run: instance 0 takes its 20 links down after partition.peer_timeout_ms, goes on and exits 4 although also late (1 ns tolerance: 4 comes before 5); the instances left account for every packet (with those handed to and taken from the lost one) and credit, at most once"

# a stalled instance (SIGSTOP for longer than the timeout) that comes back
# finds itself taken as lost, and ends
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference-split.ini --instance 0 $RUN $PEERS $LOSE \
	$EALS0 >"$TMP/stall-0.log" 2>&1 &
p0=$!
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference-split.ini --instance 1 $RUN $PEERS $LOSE \
	$EALS1 >"$TMP/stall-1.log" 2>&1 &
p1=$!
PIDS="$PIDS $p0 $p1"
if wait_phase "dfs1$$" measure; then
	kill -STOP $p1
	i=0
	until grep -q "instance 1 lost" "$TMP/stall-0.log" || [ $i -ge 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	kill -CONT $p1
fi
wait $p0
r0=$?
wait $p1
r1=$?
[ $r0 -eq 4 ] && [ $r1 -eq 1 ] &&
	grep -q "instance 0 took this instance as lost" "$TMP/stall-1.log"
ok $? "instance 1 stopped past the timeout, then continued: instance 0 went on without it (exit $r0), instance 1 learns it was taken as lost and ends (exit $r1)"

# 5. link failures and drains across instances: instance 0 makes the
# [faults] events, each once the last has settled everywhere, and tells
# instance 1, which makes them too. r2.p5 is a global link between the
# two, r20.p2 a local link in instance 1, router 25 in instance 1. Both
# hold their workers at each event's time until it is made in both, so
# the changes are made at the same emulated instants as in one instance,
# and the two deliver what one does (their digests add up to its).
EV="300:down:r2.p5,500:down:r20.p2,800:up:r2.p5,1000:up:r20.p2"
EV="$EV,1100:drain:25,1300:undrain:25"
CH="--set traffic.measure_ms=1500 --set routing.algorithm=ugal-l
	--set faults.events=$EV"
# shellcheck disable=SC2086
pair changes 0 $RUN $PEERS $CH
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference.ini $RUN $CH --set run.pace=none \
	--json "$TMP/changes1.json" $EAL0 >"$TMP/changes1.log" 2>&1 &&
	[ "$rc0" -eq 0 ] && [ "$rc1" -eq 0 ] && accounted changes &&
	python3 - "$TMP/changes-0.json" "$TMP/changes-1.json" \
		"$TMP/changes1.json" <<'PY'
import json, sys
a, b, s = (json.load(open(f)) for f in sys.argv[1:4])
ca = [c for c in a["changes"] if c["what"] != "settled"]
cb = [c for c in b["changes"] if c["what"] != "settled"]
print("# instance 0 made: %s" % ", ".join(
    "%s at %.3f s" % (c["what"], c["t_s"]) for c in ca))
print("# instance 1 made: %s" % ", ".join(
    "%s at %.3f s" % (c["what"], c["t_s"]) for c in cb))
want = ["link r2.p5 down", "link r20.p2 down", "link r2.p5 up",
        "link r20.p2 up", "drain 25", "undrain 25"]
assert [c["what"] for c in ca] == want and all(c["ok"] for c in ca)
assert [c["what"] for c in cb] == want and all(c["ok"] for c in cb)
# the same tables on both sides (the routes that differ, counted alike)
for x, y in zip(ca, cb):
    assert x["message"].split("; deadlock")[0] == \
        y["message"].split("; deadlock")[0], (x, y)
# each settled in both before the next (6 settle entries each)
for r in (a, b):
    assert sum(c["what"] == "settled" for c in r["changes"]) == 6
# at their times (the first step from each, a quantum of 2.56 us on),
# the same in both and in one instance
cs = [c for c in s["changes"] if c["what"] != "settled"]
due = [0.3, 0.5, 0.8, 1.0, 1.1, 1.3]
t = [[c["t_s"] for c in cc] for cc in (ca, cb, cs)]
assert t[0] == t[1] == t[2], t
assert all(0 <= x - d < 2.6e-6 for x, d in zip(t[0], due)), t
d = [int(x["digest_deliveries"], 16) for x in (s, a, b)]
print("# deliveries' digests with the changes: one instance %016x, two "
      "%016x" % (d[0], (d[1] + d[2]) % 2**64))
assert (d[1] + d[2]) % 2**64 == d[0]
PY
ok $? "[faults] events with a partition: instance 0 makes each once the last has settled in both, instance 1 makes the same changes in the same order with the same tables, both at each event's time as one instance does, their digests adding up to its; both complete, accounted"

# telemetry commands: made on instance 0 and announced, refused on the
# others (each dpdk-telemetry.py call takes most of a second here: a long
# window, ended with SIGINT to both)
EALC0="--eal --lcores=0@0,1@1 $MEM --file-prefix=dfc0$$"
EALC1="--eal --lcores=0@1,1@0 $MEM --file-prefix=dfc1$$"
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference-split.ini --instance 0 $RUN $PEERS \
	--set traffic.measure_ms=60000 --json "$TMP/tel-0.json" $EALC0 \
	>"$TMP/tel-0.log" 2>&1 &
p0=$!
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference-split.ini --instance 1 $RUN $PEERS \
	--set traffic.measure_ms=60000 --json "$TMP/tel-1.json" $EALC1 \
	>"$TMP/tel-1.log" 2>&1 &
p1=$!
PIDS="$PIDS $p0 $p1"
tel() { # PREFIX COMMAND
	echo "$2" | dpdk-telemetry.py -f "$1" 2>/dev/null | tail -1
}
# COMMAND on PREFIX again until its answer (in $TMP/t) has PATTERN, at
# most 50 times
until_tel() { # PREFIX COMMAND PATTERN
	i=0
	until tel "$1" "$2" >"$TMP/t" && grep -q "$3" "$TMP/t"; do
		i=$((i + 1))
		[ $i -lt 50 ] || return 1
		sleep 0.1
	done
}
wait_phase "dfc0$$" measure && wait_phase "dfc1$$" measure
tel "dfc1$$" /dfemu/link_down,r2.p6 >"$TMP/t1"
grep -q "changes are made on instance 0" "$TMP/t1"
ok $? "/dfemu/link_down on instance 1: refused, changes are made on instance 0"
tel "dfc0$$" /dfemu/link_down,r2.p6 >"$TMP/t2"
grep -q '"result": "done"' "$TMP/t2" &&
	until_tel "dfc1$$" /dfemu/changes "link r2.p6 down" &&
	until_tel "dfc0$$" /dfemu/link_up,r2.p6 '"result": "done"' &&
	until_tel "dfc1$$" /dfemu/changes "link r2.p6 up"
ok $? "/dfemu/link_down and link_up on instance 0: made there, and by instance 1 as announced"
kill -INT $p0 $p1
wait $p0
r0=$?
wait $p1
r1=$?
[ $r0 -eq 0 ] && [ $r1 -eq 0 ] && accounted tel
ok $? "both end on SIGINT after the commands, accounted"

# 6. three instances (groups 0-2, 3-5, 6-8), a memif port per pair; two
# vCPUs for three polling workers, so a low load (docs/instances.md)
L3=0.01
[ "${2:-}" = san ] && L3=0.005
S3=/run/dfemu/t3$$
THREE="--set partition.instances=3 --set partition.i0=0-2
	--set partition.i1=3-5 --set partition.i2=6-8
	--set partition.i0.peer1=net_memif0,role=server,socket=$S3-01.sock
	--set partition.i1.peer0=net_memif0,role=client,socket=$S3-01.sock
	--set partition.i0.peer2=net_memif1,role=server,socket=$S3-02.sock
	--set partition.i2.peer0=net_memif0,role=client,socket=$S3-02.sock
	--set partition.i1.peer2=net_memif1,role=server,socket=$S3-12.sock
	--set partition.i2.peer1=net_memif1,role=client,socket=$S3-12.sock
	--set traffic.load=$L3 --set partition.peer_timeout_ms=300"
# three NAME VICTIM [ARGS...]: the three instances, VICTIM (if not "")
# killed once its run has started; exit statuses in t0 t1 t2
three() {
	name=$1
	victim=$2
	shift 2
	for i in 0 1 2; do
		cpus=0@0,1@1
		[ "$i" -eq 1 ] && cpus=0@1,1@0
		# each instance in a session of its own: the two workers that
		# share a CPU yield it to each other (sched_yield), and a
		# yielding thread loses nearly every turn to a busy loop of
		# its own session on that CPU (docs/instances.md, "Three
		# instances"). Not a job-control shell, so setsid(1) execs
		# dfemu in place and $! is dfemu's (kill -9 and wait below).
		# shellcheck disable=SC2086
		setsid "$DFEMU" --config configs/reference-split.ini --instance $i \
			$RUN $THREE "$@" --json "$TMP/$name-$i.json" --eal \
			--lcores=$cpus $MEM --file-prefix=dft$name$i$$ \
			>"$TMP/$name-$i.log" 2>&1 &
		eval "q$i=$!"
		PIDS="$PIDS $!"
	done
	# the victim is killed once its run has started (warm-up, or the
	# window if a poll came after the warm-up): three instances beside
	# a busy loop on each core may take longer than wait_phase's 60 s
	# to reach the window
	if [ -n "$victim" ] &&
		wait_phase "dft$name$victim$$" '\(warmup\|measure\)'; then
		eval "kill -9 \$q$victim"
	fi
	for i in 0 1 2; do
		eval "wait \$q$i"
		eval "t$i=$?"
	done
	# every instance's exit status, and the report of one that failed
	echo "# $name: exit $t0 $t1 $t2"
	for i in 0 1 2; do
		eval "r=\$t$i"
		[ "$i" = "$victim" ] || [ "$r" -eq 0 ] ||
			{ [ -n "$victim" ] && [ "$r" -eq 4 ]; } ||
			grep -v '^ *$' "$TMP/$name-$i.log" | tail -40 | sed 's/^/#   /'
	done
}
# (a short window: three polling workers on two vCPUs keep in step by
# one quantum a round trip, and beside a busy loop on each core they ran
# at 0.0009 emulated s per wall s)
three three "" --set traffic.warmup_ms=10 --set traffic.measure_ms=60
# shellcheck disable=SC2154
[ "$t0" -eq 0 ] && [ "$t1" -eq 0 ] && [ "$t2" -eq 0 ] &&
	python3 - "$TMP"/three-0.json "$TMP"/three-1.json "$TMP"/three-2.json <<'PY'
import json, sys
r = [json.load(open(f)) for f in sys.argv[1:4]]
for x in r:
    n = x["partition"]["network"]
    assert n["exchanged"] and n["in_flight"] == 0
    assert n["lost"] == 0 and n["injected"] == n["delivered"], n
    assert x["exactly_once"] and x["credits_conserved"] and x["drained"]
tot = sum(x["packets"]["injected"] for x in r)
assert all(x["partition"]["network"]["injected"] == tot for x in r)
peer = {(x["partition"]["instance"], q["instance"]): q
        for x in r for q in x["partition"]["peers"]}
for (i, j), q in peer.items():
    assert q["sent"] == peer[(j, i)]["received"] > 0, (i, j)
    assert q["credits_sent"] == peer[(j, i)]["credits_received"] > 0, (i, j)
print("# three instances: %d packets injected, every pair's counts agree" % tot)
PY
ok $? "three instances over three memif pairs: all complete, every packet and credit of the network accounted for, each pair's sent = received both ways"
three lost 2 --set traffic.measure_ms=100
[ "$t0" -eq 4 ] && [ "$t1" -eq 4 ] &&
	python3 - "$TMP"/lost-0.json "$TMP"/lost-1.json <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
na, nb = a["partition"]["network"], b["partition"]["network"]
print("# instances 0 and 1 without 2: %s" % na)
for x, n in ((a, na), (b, nb)):
    assert n["lost_instances"] == 1 and n["in_flight"] == 0
    assert n["injected"] + n["from_lost"] == \
        n["delivered"] + n["lost"] + n["to_lost"]
    assert x["drained"] and x["credits_conserved"] and x["at_most_once"]
    assert [q["instance"] for q in x["partition"]["peers"] if q["lost"]] == [2]
# both see the same network left
assert na == nb, (na, nb)
PY
ok $? "three instances, instance 2 killed: 0 and 1 both take it as lost, go on, exit 4, and agree on the accounting of the network left"

# 7. refusals: another plan; a peer that never comes
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference-split.ini --instance 1 $RUN $PEERS \
	--set partition.wait_ms=3000 $EAL1 >"$TMP/plan-1.log" 2>&1 &
p1=$!
PIDS="$PIDS $p1"
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference-split.ini --instance 0 $RUN $PEERS \
	--set partition.wait_ms=3000 --set traffic.packet_bytes=256 $EAL0 \
	>"$TMP/plan-0.log" 2>&1
r0=$?
wait $p1
r1=$?
# the first to hear the other names the mismatch and stops; the other
# then hears nothing more and stops at wait_ms
[ $r0 -eq 3 ] && [ $r1 -eq 3 ] &&
	cat "$TMP/plan-0.log" "$TMP/plan-1.log" | grep -q "runs another plan"
rc=$?
[ $rc -eq 0 ] || cat "$TMP/plan-0.log" "$TMP/plan-1.log" | tail -6 | sed 's/^/# /'
ok $rc "instances given different configs: both refuse (exit $r0, $r1), the mismatch named ($(cat "$TMP/plan-0.log" "$TMP/plan-1.log" | grep -o "instance . runs another plan" | head -1))"
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference-split.ini --instance 0 $RUN $PEERS \
	--set partition.wait_ms=300 $EAL0 >"$TMP/alone.log" 2>&1
[ $? -eq 3 ] && grep -q "did not all answer" "$TMP/alone.log"
ok $? "an instance whose peer never starts: exit 3 after partition.wait_ms, said why"
# a NIC by PCI address (dfemu's own EAL arguments: -a, no --no-pci); this
# machine has none there
# shellcheck disable=SC2086
"$DFEMU" --config configs/reference-split.ini --instance 0 $RUN \
	--set partition.i0.peer1=ff:1f.7,rxq_size=512 >"$TMP/pci.log" 2>&1
[ $? -eq 3 ] && grep -q "no DPDK port at PCI 0000:ff:1f.7: the device must exist" "$TMP/pci.log"
ok $? "a peer port given as a PCI address that holds no device: exit 3, the address named in its full form, what it needs said"

tap_done
