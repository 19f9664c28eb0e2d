#!/bin/sh
# tools/dfemu-pktgen and the scripts in tools/pktgen/: the committed
# scripts are what the tool writes for configs/reference.ini; every
# destination in them is a terminal of the pattern (uniform: others,
# adversarial: group G+1), at most Pktgen's 16 sequence packets; a pcap it
# writes goes through dfemu (net_pcap terminal) with nothing dropped and
# every destination reached; bad arguments get exit 2 and a reason.
# Pktgen-DPDK itself is not packaged by Debian and is not run here.
# Usage: tests/test_pktgen.sh PATH/TO/dfemu (from the repo root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 27
G="tools/dfemu-pktgen --dfemu $DFEMU"
REF=configs/reference.ini

for pat in uniform adversarial; do
	for f in pkt lua; do
		$G $f --config $REF --terminal 0 --pattern $pat >"$TMP/$pat.$f"
		cmp -s "$TMP/$pat.$f" "tools/pktgen/$pat.$f"
		ok $? "tools/pktgen/$pat.$f is what dfemu-pktgen writes"
	done
done
$G pkt --config $REF --terminal 0 --pattern to:71 >"$TMP/one.pkt"
cmp -s "$TMP/one.pkt" tools/pktgen/one.pkt
ok $? "tools/pktgen/one.pkt is what dfemu-pktgen writes"

"$DFEMU" --print-addresses --config $REF >"$TMP/ref.json"
python3 - "$TMP" <<'PY'
import json, re, sys
d = sys.argv[1]
a = json.load(open(d + "/ref.json"))
by_mac = {x["mac"]: x for x in a}
def dests_pkt(path):
    out = []
    for line in open(path):
        m = re.match(r"seq (\d+) 0 dst (\S+) src \S+ dst (\S+) ", line)
        if m:
            out.append((int(m.group(1)), m.group(2), m.group(3)))
    return out
def dests_lua(path):
    # the same seq commands, as strings the script hands Pktgen to run
    return [(int(m.group(1)), m.group(2), m.group(3)) for m in
            re.finditer(r'^  "seq (\d+) 0 dst (\S+) src \S+ dst (\S+) ',
                        open(path).read(), re.M)]
for f, parse in (("pkt", dests_pkt), ("lua", dests_lua)):
    u = parse(d + "/uniform." + f)
    assert [i for i, _, _ in u] == list(range(16)), u
    assert all(by_mac[m]["ip"] == ip and by_mac[m]["terminal"] != 0
               for _, m, ip in u), u
    assert len({m for _, m, _ in u}) == 16
    groups = {by_mac[m]["group"] for _, m, _ in u}
    assert len(groups) >= 8, groups  # spread over the network
    v = parse(d + "/adversarial." + f)
    assert sorted(by_mac[m]["terminal"] for _, m, _ in v) == \
        [x["terminal"] for x in a if x["group"] == 1], v
    cnt = re.search(r'seq_cnt"?,? (\d+)', open(d + "/uniform." + f).read())
    assert int(cnt.group(1)) == 16
PY
ok $? "scripts: uniform = 16 distinct other terminals over >= 8 groups, adversarial = group 1's terminals, MAC and IP of one terminal each"

# the rate: the config's load (0.3) on its 0.2 Gb/s terminal link by
# default, --load X otherwise, as a percentage of memif's 100 Gb/s with
# Pktgen's 20 bytes of preamble and gap (and the FCS inside B); a finite
# count; the Lua needs nothing but Pktgen's own table
rate() { sed -n 's/^set 0 rate //p; s/^pktgen.set("0", "rate", \(.*\))$/\1/p' "$1"; }
$G pkt --config $REF --terminal 0 --pattern to:5 --load 0.5 --size 128 \
	>"$TMP/l5.pkt"
$G lua --config $REF --terminal 0 --pattern to:5 --port-gbps 10 \
	--set traffic.load=0.1 >"$TMP/l1.lua"
python3 - "$(rate tools/pktgen/one.pkt)" "$(rate "$TMP/l5.pkt")" \
	"$(rate "$TMP/l1.lua")" <<'PY'
import sys
want = [100 * 0.3 * 0.2 * 84 / (60 * 100), 100 * 0.5 * 0.2 * 148 / (124 * 100),
        100 * 0.1 * 0.2 * 84 / (60 * 10)]
got = [float(x) for x in sys.argv[1:]]
assert all(abs(g / w - 1) < 1e-5 for g, w in zip(got, want)), (got, want)
PY
ok $? "rate: the config's load, --load, --set traffic.load and --port-gbps as Pktgen percentages ($(rate tools/pktgen/one.pkt), $(rate "$TMP/l5.pkt"), $(rate "$TMP/l1.lua"))"
grep -q "^set 0 count 10000$" tools/pktgen/one.pkt &&
	! grep -q "require\|package.path" tools/pktgen/*.lua
ok $? "scripts: a finite count (10000), the Lua without require"

# a uniform pcap from t0 of small.ini through dfemu
$G pcap --config configs/small.ini --terminal 0 --packets 300 --size 128 \
	--out "$TMP/u.pcap"
ok $? "pcap written"
{
	cat configs/small.ini
	echo "[terminals]"
	echo "t0 = net_pcap0,rx_pcap=$TMP/u.pcap,tx_pcap=$TMP/o.pcap"
} >"$TMP/p.ini"
"$DFEMU" --config "$TMP/p.ini" --set traffic.load=0 \
	--set traffic.warmup_ms=0 --set traffic.measure_ms=200 \
	--json "$TMP/r.json" --eal -l 0-1 --no-pci --no-huge -m 512 \
	--no-shconf --log-level=warning --file-prefix=dfpg$$ >"$TMP/log" 2>&1
real_time_exit $? "$TMP/r.json"
ok $? "dfemu runs the pcap, its exit status its lag's verdict"
grep -q "^dfemu: t0 .* 02:df:00:00:00:00  10.0.0.1  net_pcap0," "$TMP/log"
ok $? "at start dfemu prints t0's address and port"
python3 - "$TMP/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["packets"]
assert p["injected"] == p["delivered"] == 300, p
assert sum(p["dropped"].values()) == 0, p
x = r["port_latency_by_pair_ns"]
# t0 is alone on its router (p=1): t1 is in its group, t2..t5 are not
assert x["same_router"]["packets"] == 0, x
assert x["same_group"]["packets"] > 0 and x["other_group"]["packets"] > 0, x
assert x["same_group"]["packets"] + x["other_group"]["packets"] == 300
PY
ok $? "300 UDP frames delivered, none dropped, both other-terminal classes reached"

while read -r want bad; do
	# shellcheck disable=SC2086
	$G $bad >/dev/null 2>"$TMP/err"
	[ $? -eq 2 ] && grep -q "^dfemu-pktgen: .*$want" "$TMP/err"
	ok $? "refused: $bad ($(cat "$TMP/err"))"
done <<END
needed pkt --config $REF
terminals.0..71 pkt --config $REF --terminal 72
other.than.0 pkt --config $REF --terminal 0 --pattern to:0
allowed.64..9000 pkt --config $REF --terminal 0 --size 60
above.0,.up.to.1 pkt --config $REF --terminal 0 --load 1.5
give.one pkt --config $REF --terminal 0 --load 0.1 --rate 1
no.load.to.send pkt --config $REF --terminal 0 --set traffic.load=0
needs.--out pcap --config $REF --terminal 0
unknown.command mkdir --config $REF
run.needs.--config.and.--terminals run --config $REF --terminal 0
not.one.of.--terminals run --config $REF --terminals 0,5 --send 3
a.terminal.twice run --config $REF --terminals 0,0
with.--packets,.not.--count run --config $REF --terminals 0 --count 5
the.network.has.terminals.0..71 run --config $REF --terminals 0,72 --pktgen /bin/true
END
# no Pktgen to be found: the message says where one comes from
PKTGEN="" PATH=/usr/bin:/bin $G run --config $REF --terminals 0 >/dev/null \
	2>"$TMP/err"
[ $? -eq 2 ] && grep -q "no Pktgen: Debian does not package it" "$TMP/err"
ok $? "refused: run with no Pktgen ($(cat "$TMP/err"))"
tap_done
