#!/bin/sh
# The real Pktgen-DPDK as dfemu's peer over memif (docs/ports-and-hosts.md):
# Pktgen runs the committed tools/pktgen/ scripts, with a
# finite count and a low rate, against terminal t0 of configs/reference.ini
# (a memif server), and a Lua epilogue writes Pktgen's own port counters
# to a file. Each case reconciles them with dfemu's per-terminal counters
# (JSON ports.terminals): sent by Pktgen = received on t0's port =
# injected = delivered, per destination; nothing dropped; both exit 0;
# no process left behind.
# Pktgen is not packaged by Debian: PKTGEN=/path/to/pktgen (tools/test.sh
# builds one when it can); without it every case is reported as skipped.
# Usage: tests/test_pktgen_peer.sh PATH/TO/dfemu (from the repo root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
. tests/tap.sh
# without Pktgen, each of the 7 cases is one skipped point
if [ -z "${PKTGEN:-}" ]; then tap_plan 7; else tap_plan 14; fi
CASES="one-destination uniform one-lua uniform-lua adversarial-lua round-trip run-uniform"
if [ -z "${PKTGEN:-}" ]; then
	for c in $CASES; do
		skip "Pktgen $c" "${PKTGEN_WHY:-no Pktgen (set PKTGEN=/path/to/pktgen)}"
	done
	tap_done
	exit
fi
peer_scratch pg pgA pgd
# dfemu runs in a session of its own (run_case), out of reach of a
# Ctrl-C: an INT or TERM ends this script, whose EXIT trap kills it
trap 'exit 130' INT
trap 'exit 143' TERM
[ -x "$PKTGEN" ]
ok $? "PKTGEN=$PKTGEN is an executable"
COUNT=1600 # a multiple of the uniform script's 16 destinations

# Pktgen's epilogue: once port 0 has sent COUNT frames and a second has
# passed for the last to arrive, its counters to PG_OUT, then quit.
cat >"$TMP/counters.lua" <<'LUA'
local want = tonumber(os.getenv("PG_COUNT"))
for _ = 1, 600 do
	if pktgen.portStats("all", "port")[0].opackets >= want then break end
	pktgen.delay(100)
end
pktgen.delay(1000)
local s = pktgen.portStats("all", "port")
local f = io.open(os.getenv("PG_OUT"), "w")
for p = 0, s.n - 1 do
	f:write(string.format("%d %d %d\n", p, s[p].opackets, s[p].ipackets))
end
f:close()
pktgen.quit()
LUA

# run_case NAME SCRIPT: dfemu with t0 on a memif server; Pktgen runs
# SCRIPT with COUNT frames at 0.01 % of memif's 100 Gb/s (10 Mb/s, a
# twentieth of the terminal link) and the epilogue; dfemu stops on SIGINT.
run_case() {
	{
		cat configs/reference.ini
		echo "[terminals]"
		echo "t0 = net_memif0,role=server,socket=$SOCK/t0.sock,socket-abstract=no"
	} >"$TMP/$1.ini"
	# dfemu in a session of its own: its main lcore's millisecond naps
	# beside a busy loop of the same session would leave Pktgen's
	# threads on that CPU almost no time (docs/ports-and-hosts.md,
	# "Sharing CPUs with busy processes"). Not a job-control shell, so
	# setsid(1) execs dfemu in place and $! is dfemu's.
	# shellcheck disable=SC2086
	setsid "$DFEMU" --config "$TMP/$1.ini" --quiet \
		--set traffic.load=0 --set traffic.warmup_ms=0 \
		--set traffic.measure_ms=300000 --json "$TMP/$1.json" \
		--eal -l 0-1 --no-pci --no-huge -m 512 --no-shconf \
		--log-level=warning --file-prefix=pgd$$ >"$TMP/$1.log" 2>&1 &
	emu=$!
	PIDS="$PIDS $emu"
	wait_for_sock "$SOCK/t0.sock"
	script=$TMP/$1.${2##*.} # a .pkt command file, or Lua
	sed -e "s/^set 0 rate .*/set 0 rate 0.01/" \
		-e "s/^set 0 count .*/set 0 count $COUNT/" \
		-e "s/^pktgen.set(\"0\", \"rate\", .*/pktgen.set(\"0\", \"rate\", 0.01)/" \
		-e "s/^pktgen.set(\"0\", \"count\", .*/pktgen.set(\"0\", \"count\", $COUNT)/" \
		"$2" >"$script"
	case $2 in
	*.lua) echo "dofile(\"$TMP/counters.lua\")" >>"$script" ;;
	*) echo "script $TMP/counters.lua" >>"$script" ;;
	esac
	# Pktgen draws on a terminal: script(1) gives it one
	PG_COUNT=$COUNT PG_OUT="$TMP/$1.pg" timeout 120 script -qec \
		"$PKTGEN -l 0-1 --no-pci --no-huge -m 256 --no-shconf \
		--no-telemetry --file-prefix=pgA$$ \
		--vdev=net_memif0,role=client,socket=$SOCK/t0.sock,socket-abstract=no \
		-- -P -T -m [1].0 -f $script" /dev/null \
		</dev/null >"$TMP/$1.pglog" 2>&1
	pg=$?
	# t0's detail from dfemu's telemetry while it still runs
	echo /dfemu/terminals,0 | dpdk-telemetry.py -f pgd$$ >"$TMP/$1.tel" 2>&1
	kill -INT "$emu"
	wait "$emu"
	rc=$?
	PIDS=""
	# dfemu's exit status: its lag's verdict (tests/tap.sh)
	[ "$pg" -eq 0 ] && real_time_exit "$rc" "$TMP/$1.json" &&
		[ -s "$TMP/$1.pg" ]
}

# check NAME WANT [TOL]: Pktgen's counters against dfemu's; WANT: the
# terminals that must each get COUNT/len(WANT) frames, exactly or within
# the fraction TOL, and no others
check() {
	python3 - "$TMP/$1.json" "$TMP/$1.pg" "$COUNT" "$2" "$TMP/$1.tel" \
		"${3:-0}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
tel = [json.loads(l)["/dfemu/terminals"] for l in open(sys.argv[5])
       if l.startswith("{")][0]
pg = {int(l.split()[0]): list(map(int, l.split()[1:]))
      for l in open(sys.argv[2])}
count, want = int(sys.argv[3]), [int(x) for x in sys.argv[4].split(",")]
tol = float(sys.argv[6])
p, q = r["packets"], r["ports"]
t = {x["terminal"]: x for x in q["terminals"]}
print("# Pktgen port 0 sent %d; dfemu t0 %s" % (pg[0][0], t.get(0)))
print("# delivered from ports: %s" %
      {k: v["delivered_from_ports"] for k, v in t.items()})
assert pg[0][0] == count, pg
assert t[0]["rx"] == t[0]["injected"] == count, t[0]
assert q["rx"] == count and q["tx"] == 0 and q["stalls"] == 0, q
assert p["injected"] == p["delivered"] == count, p
assert sum(p["dropped"].values()) == 0, p
got = {k: v["delivered_from_ports"] for k, v in t.items()
       if v["delivered_from_ports"]}
share = count / len(want)
assert set(got) == set(want), got
assert all(abs(n - share) <= tol * share for n in got.values()), got
assert r["credits_conserved"] is True and r["corrupt_frames"] == 0
# per terminal: t0's bytes, its frames' latency, the same in telemetry
assert t[0]["rx_bytes"] == t[0]["injected_bytes"] == 60 * count, t[0]
assert t[0]["latency_ns"]["packets"] == count, t[0]
assert 0 < t[0]["latency_ns"]["min"] <= t[0]["latency_ns"]["max"], t[0]
assert tel["rx"] == tel["injected"] == count, tel
assert tel["latency"]["packets"] == count, tel
PY
}

addr_terms() { # pattern: the terminals a committed script sends to
	python3 - "$TMP/addr.json" "$1" <<'PY'
import json, re, sys
a = {x["mac"]: x["terminal"] for x in json.load(open(sys.argv[1]))}
# the .pkt's commands, or the same inside a Lua script's strings
macs = re.findall(r'^set \d+ dst mac (\S+)|^\s*"?seq \d+ 0 dst (\S+)',
                  open(sys.argv[2]).read(), re.M)
assert macs, "no destination in " + sys.argv[2]
print(",".join(str(t) for t in sorted({a[m or n] for m, n in macs})))
PY
}
"$DFEMU" --print-addresses --config configs/reference.ini >"$TMP/addr.json"

run_case one tools/pktgen/one.pkt
ok $? "one.pkt: Pktgen exits 0, dfemu as its lag says, Pktgen's counters written"
check one "$(addr_terms tools/pktgen/one.pkt)"
ok $? "one.pkt: $COUNT sent by Pktgen = received on t0's port = injected = delivered to t71, none dropped"

run_case uniform tools/pktgen/uniform.pkt
ok $? "uniform.pkt: Pktgen exits 0, dfemu as its lag says, Pktgen's counters written"
want=$(addr_terms tools/pktgen/uniform.pkt)
check uniform "$want"
ok $? "uniform.pkt: $COUNT sent, $((COUNT / 16)) delivered to each of its 16 destinations ($want), none dropped"

# a Lua script, run from outside Pktgen's tree without require
tools/dfemu-pktgen lua --dfemu "$DFEMU" --config configs/reference.ini \
	--terminal 0 --pattern to:71 >"$TMP/one.lua"
run_case one-lua "$TMP/one.lua"
ok $? "one.lua: Pktgen exits 0, dfemu as its lag says, Pktgen's counters written"
check one-lua "$(addr_terms tools/pktgen/one.pkt)"
ok $? "one.lua: $COUNT sent by Pktgen = received on t0's port = injected = delivered to t71, none dropped"

# the shipped Lua scripts: their sequence packets reach every destination
# they list (24.07.1's pktgen.seqTable would put sequence N on port N,
# leaving port 0 one destination and the rest unset)
for pat in uniform adversarial; do
	run_case $pat-lua tools/pktgen/$pat.lua
	ok $? "$pat.lua: Pktgen exits 0, dfemu as its lag says, Pktgen's counters written"
	want=$(addr_terms tools/pktgen/$pat.lua)
	# (not n: tests/tap.sh counts its points in n)
	ndst=$(echo "$want" | tr , '\n' | wc -l)
	check $pat-lua "$want" 0.1
	ok $? "$pat.lua: $COUNT sent, each of its $ndst destinations ($want) within 10 % of $((COUNT / ndst)), none dropped"
done

# dfemu-pktgen run: the whole experiment in one command. A two-port
# round trip, Pktgen port 0 on t0 -> t5 -> Pktgen port 1; then both ports
# sending the uniform pattern. The wrapper exits as dfemu did on timing:
# 0, or 5 when dfemu's lag went over its tolerance (real_time_exit above
# checks that verdict against the lag, where dfemu's report is ours).
# shellcheck disable=SC2086
tools/dfemu-pktgen run --dfemu "$DFEMU" --pktgen "$PKTGEN" \
	--config configs/reference.ini --terminals 0,5 --send 0 \
	--pattern to:5 --packets $COUNT --rate 0.01 \
	--json "$TMP/rt.json" >"$TMP/rt.txt" 2>&1
rc=$?
sed 's/^/# /' "$TMP/rt.txt"
python3 - "$TMP/rt.json" "$COUNT" "$rc" <<'PY'
import json, sys
r, n = json.load(open(sys.argv[1])), int(sys.argv[2])
assert r["reconciled"] is True and r["problems"] == [], r["problems"]
assert int(sys.argv[3]) == r["dfemu_exit"] in (0, 5), (sys.argv[3], r)
assert r["pktgen_exit"] == 0, r
a, b = r["terminals"]
assert (a["terminal"], a["pktgen_port"], b["terminal"], b["pktgen_port"]) == (0, 0, 5, 1)
assert a["sent"] == a["rx"] == a["injected"] == n and a["received"] == 0, a
assert b["sent"] == b["rx"] == 0, b
assert b["delivered_here"] == b["tx"] == b["received"] == n, b
assert a["latency_ns"]["packets"] == n and a["load"] > 0, a
assert r["network"]["to_built_in_terminals"] == 0, r["network"]
assert r["network"]["in_flight"] == 0 and r["network"]["dropped"] == {}
PY
ok $? "round trip (dfemu-pktgen run): Pktgen port 0 sent $COUNT = t0 received = injected = delivered at t5 = put on t5's port = received by Pktgen port 1; exit $rc, dfemu's"

# shellcheck disable=SC2086
tools/dfemu-pktgen run --dfemu "$DFEMU" --pktgen "$PKTGEN" \
	--config configs/reference.ini --terminals 0,5 --pattern uniform \
	--packets $COUNT --rate 0.01 --json - \
	>"$TMP/ru.json" 2>"$TMP/ru.txt"
rc=$?
sed 's/^/# /' "$TMP/ru.txt"
python3 - "$TMP/ru.json" "$COUNT" "$rc" <<'PY'
import json, sys
r, n = json.load(open(sys.argv[1])), int(sys.argv[2])
assert r["reconciled"] is True, r["problems"]
assert int(sys.argv[3]) == r["dfemu_exit"] in (0, 5), (sys.argv[3], r)
net = r["network"]
assert net["injected_from_ports"] == net["delivered_from_ports"] == 2 * n, net
here = sum(x["delivered_here"] for x in r["terminals"])
assert net["to_built_in_terminals"] == 2 * n - here > 0, net
for x in r["terminals"]:
    assert x["sent"] == x["rx"] == x["injected"] == n, x
    assert x["tx"] == x["received"] == x["delivered_here"], x
PY
ok $? "both ports uniform (dfemu-pktgen run --json -): $((2 * COUNT)) sent, injected and delivered, what reached t0 and t5 came back to Pktgen, reconciled"

left=$(pgrep -f "file-prefix=(pgA|pgd|dfpg)" | wc -l)
[ "$left" -eq 0 ]
ok $? "no Pktgen or dfemu process left behind"
tap_done
