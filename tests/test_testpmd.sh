#!/bin/sh
# dpdk-testpmd as dfemu's peer over memif: testpmd txonly ->
# terminal t0 -> dragonfly -> terminal t5 -> testpmd rxonly, every frame
# counted on both sides and in dfemu's report; then testpmd replaying a
# pcap (io mode) -> t0 -> t5 -> testpmd writing a pcap: the frames for t5
# come out byte-identical and in order, those for a built-in terminal are
# absorbed by its sink, and dfemu's counts match. Ctrl-C (SIGINT) ends
# dfemu's run with a drained, conserved report.
# Needs dpdk-testpmd (Debian package dpdk-dev).
# Usage: tests/test_testpmd.sh PATH/TO/dfemu (from the repo root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
. tests/tap.sh
tap_plan 9
peer_scratch tpmd tpA tpB
[ -n "${KEEP:-}" ] && trap - EXIT # KEEP=1: leave logs and captures
TESTPMD=$(command -v dpdk-testpmd)
[ -n "$TESTPMD" ]
ok $? "dpdk-testpmd is installed (Debian package dpdk-dev)"
[ -n "$TESTPMD" ] || {
	tap_done
	exit 1
}
EAL="--eal -l 0-1 --no-pci --no-huge -m 512 --no-shconf --log-level=warning"
# testpmd: the forwarding lcore on the other core than dfemu's worker
TP="--no-pci --no-huge -m 256 --no-shconf --log-level=warning"
TPAPP="--auto-start --stats-period=1 --total-num-mbufs=2048"

# wait_for FILE EXTENDED-REGEX SECONDS: poll until FILE matches
wait_for() {
	i=0
	while [ $i -lt $(($3 * 10)) ]; do
		grep -aqE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# last_stat FILE PORT FIELD: the last value testpmd printed for a port
# (periodic NIC statistics, or the forward statistics it prints on exit)
last_stat() {
	awk -v port="$2" -v f="$3:" '
		/statistics for port/ { cur = $0; sub(/.*port */, "", cur)
					sub(/ .*/, "", cur) }
		/Accumulated/ { cur = "" }
		cur == port { for (i = 1; i < NF; i++)
			if ($i == f) v = $(i + 1) }
		END { print v + 0 }' "$1"
}

# start_dfemu NAME: dfemu with t0 and t5 on memif servers, no built-in
# traffic, a run long enough for the test (a signal ends it)
start_dfemu() {
	{
		cat configs/small.ini
		echo "[terminals]"
		echo "t0 = net_memif0,role=server,socket=$SOCK/t0.sock,socket-abstract=no"
		echo "t5 = net_memif5,role=server,socket=$SOCK/t5.sock,socket-abstract=no"
	} >"$TMP/$1.ini"
	# shellcheck disable=SC2086
	"$DFEMU" --config "$TMP/$1.ini" --quiet --set traffic.load=0 \
		--set traffic.warmup_ms=0 --set traffic.measure_ms=120000 \
		--json "$TMP/$1.json" $EAL --file-prefix=tpd$$ \
		>"$TMP/$1.log" 2>&1 &
	emu=$!
	PIDS="$PIDS $emu"
	wait_for_sock "$SOCK/t0.sock" && wait_for_sock "$SOCK/t5.sock"
}

# stop_dfemu NAME: SIGINT, as Ctrl-C would; dfemu drains and reports,
# its exit status its lag's verdict (tests/tap.sh, real_time_exit)
stop_dfemu() {
	kill -INT "$emu"
	wait "$emu"
	real_time_exit $? "$TMP/$1.json"
}

addr() { # terminal field
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[int(sys.argv[2])][sys.argv[3]])' "$TMP/addr.json" "$1" "$2"
}
"$DFEMU" --print-addresses --config configs/small.ini >"$TMP/addr.json"

# 1. txonly -> rxonly: one burst of 256 64-byte frames (--tx-first), to t5
start_dfemu tx
ok $? "dfemu up, memif sockets for t0 and t5"
# shellcheck disable=SC2086
"$TESTPMD" --lcores=0@1,1@0 $TP --file-prefix=tpB$$ \
	--vdev=net_memif0,role=client,socket=$SOCK/t5.sock,socket-abstract=no \
	-- --forward-mode=rxonly $TPAPP </dev/null >"$TMP/B.log" 2>&1 &
B=$!
PIDS="$PIDS $B"
wait_for "$TMP/B.log" "Port statistics" 30
ok $? "testpmd rxonly attached to t5"
# shellcheck disable=SC2086
"$TESTPMD" -l 0,1 $TP --file-prefix=tpA$$ \
	--vdev=net_memif0,role=client,socket=$SOCK/t0.sock,socket-abstract=no \
	-- --forward-mode=rxonly --tx-first --burst=256 --txpkts=64 \
	--eth-peer=0,"$(addr 5 mac)" --tx-ip="$(addr 0 ip),$(addr 5 ip)" \
	$TPAPP </dev/null >"$TMP/A.log" 2>&1 &
A=$!
PIDS="$PIDS $A"
wait_for "$TMP/B.log" "RX-packets: +256 " 60
ok $? "testpmd rxonly received 256 frames"
# testpmd first: memif's counters restart when its server goes away
kill -INT "$A" "$B"
wait "$A" "$B"
stop_dfemu tx
ok $? "SIGINT: dfemu ends the run, its exit status its lag's verdict"
sent=$(last_stat "$TMP/A.log" 0 TX-packets)
got=$(last_stat "$TMP/B.log" 0 RX-packets)
bytes=$(last_stat "$TMP/B.log" 0 RX-bytes)
python3 - "$TMP/tx.json" "$sent" "$got" "$bytes" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sent, got, nbytes = map(int, sys.argv[2:5])
p, q = r["packets"], r["ports"]
print("# testpmd sent %d, received %d (%d bytes); dfemu %s %s" % (sent, got, nbytes, p, q))
assert sent == got == 256 and nbytes == 256 * 64
assert q["rx"] == sent and q["tx"] == got and q["stalls"] == 0
assert p["injected"] == p["delivered"] == sent and sum(p["dropped"].values()) == 0
assert r["credits_conserved"] is True and r["interrupted"] == 1
PY
ok $? "testpmd txonly -> t0 -> t5 -> testpmd rxonly: 256 sent, 256 received, dfemu counts the same"

# 2. a pcap through testpmd (io mode) both ways: 40 frames for t5 of
# growing size and 10 for t3, which has no port (its sink absorbs them)
python3 - "$TMP" "$(addr 5 mac)" "$(addr 3 mac)" <<'PY'
import json, struct, sys
d = sys.argv[1]
mac = lambda s: bytes(int(x, 16) for x in s.split(":"))
def pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1, i, len(fr), len(fr)) + fr)
src = mac("02:00:00:00:00:01")
t5 = [mac(sys.argv[2]) + src + b"\x88\xb5" + bytes([i]) * (46 + 31 * i)
      for i in range(40)]
t3 = [mac(sys.argv[3]) + src + b"\x88\xb5" + bytes([200 + i]) * 100
      for i in range(10)]
frames = []
for i in range(40):
    frames.append(t5[i])
    if i % 4 == 3:
        frames.append(t3[i // 4])
pcap(d + "/in.pcap", frames)
pcap(d + "/empty.pcap", [])
json.dump([f.hex() for f in t5], open(d + "/want.json", "w"))
PY
start_dfemu io
ok $? "dfemu up again"
# shellcheck disable=SC2086
"$TESTPMD" --lcores=0@1,1@0 $TP --file-prefix=tpB$$ \
	--vdev=net_memif0,role=client,socket=$SOCK/t5.sock,socket-abstract=no \
	--vdev=net_pcap1,rx_pcap=$TMP/empty.pcap,tx_pcap=$TMP/out.pcap \
	-- --forward-mode=io $TPAPP </dev/null >"$TMP/B2.log" 2>&1 &
B=$!
PIDS="$PIDS $B"
wait_for "$TMP/B2.log" "Port statistics" 30
# --no-flush-rx: testpmd would otherwise drain the pcap before forwarding
# shellcheck disable=SC2086
"$TESTPMD" -l 0,1 $TP --file-prefix=tpA$$ \
	--vdev=net_pcap0,rx_pcap=$TMP/in.pcap,tx_pcap=$TMP/a.pcap \
	--vdev=net_memif1,role=client,socket=$SOCK/t0.sock,socket-abstract=no \
	-- --forward-mode=io --no-flush-rx $TPAPP </dev/null >"$TMP/A2.log" 2>&1 &
A=$!
PIDS="$PIDS $A"
# B's port 0 (memif) has received all 40
i=0
while [ "$(last_stat "$TMP/B2.log" 0 RX-packets)" -lt 40 ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -INT "$A" "$B"
wait "$A" "$B"
stop_dfemu io
ok $? "SIGINT: dfemu ends the second run, its exit status its lag's verdict"
python3 - "$TMP" "$(last_stat "$TMP/A2.log" 1 TX-packets)" <<'PY'
import json, struct, sys
d = sys.argv[1]
raw = open(d + "/out.pcap", "rb").read()
got, o = [], 24
while o < len(raw):
    n = struct.unpack("<IIII", raw[o:o + 16])[2]
    got.append(raw[o + 16:o + 16 + n].hex())
    o += 16 + n
want = json.load(open(d + "/want.json"))
r = json.load(open(d + "/io.json"))
p, q = r["packets"], r["ports"]
print("# testpmd A sent %s, %d frames out of testpmd B; dfemu %s %s"
      % (sys.argv[2], len(got), p, q))
assert got == want, (len(got), len(want))
assert int(sys.argv[2]) == 50 and q["rx"] == 50 and q["tx"] == 40, q
assert p["injected"] == p["delivered"] == 50, p
assert r["credits_conserved"] is True and r["exactly_once"] is True
PY
ok $? "pcap -> testpmd io -> t0 -> t5 -> testpmd io -> pcap: the 40 frames for t5 byte-identical and in order, t3's sink took 10"
tap_done
