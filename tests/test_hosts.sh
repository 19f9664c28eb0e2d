#!/bin/sh
# tools/dfemu-hosts: namespaces carry the terminals' addresses as dfemu
# prints them, the [terminals] lines it writes pass dfemu's checks, status
# and down see exactly its own namespaces. Needs root and ip netns.
# Usage: tests/test_hosts.sh PATH/TO/dfemu (from the repo root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
P=dft$$x
trap 'tools/dfemu-hosts down --prefix $P >/dev/null 2>&1; rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 12

H="tools/dfemu-hosts --dfemu $DFEMU --prefix $P"
$H up --config configs/small.ini --terminals 1,3-4 --out "$TMP/t.ini" \
	>"$TMP/log" 2>&1
ok $? "up for terminals 1,3-4"
"$DFEMU" --print-addresses --config configs/small.ini >"$TMP/addr.json"
for t in 1 3 4; do
	want=$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))[int(sys.argv[2])]; print(a["mac"], a["ip"] + "/8")' "$TMP/addr.json" $t)
	got=$(ip -n "$P$t" -br link show eth0 | awk '{print $3}')" "$(ip -n "$P$t" -br -4 addr show eth0 | awk '{print $3}')
	[ "$got" = "$want" ]
	ok $? "namespace $P$t: eth0 is terminal $t ($want; got $got)"
done
grep -q "^t3 = net_af_packet3,iface=${P}3d," "$TMP/t.ini"
ok $? "the written [terminals] binds t3 to its veth"
cat configs/small.ini "$TMP/t.ini" >"$TMP/c.ini"
"$DFEMU" --check --config "$TMP/c.ini" >/dev/null 2>&1
ok $? "dfemu --check accepts the config with the written section"
"$DFEMU" --print-addresses --config "$TMP/c.ini" | grep -q "iface=${P}4d"
ok $? "--print-addresses shows the bound port"
[ "$($H status | grep -c "^$P")" -eq 3 ]
ok $? "status lists the 3 namespaces"
$H up --config configs/small.ini --terminals 1 >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "exists" "$TMP/err"
ok $? "up again on an existing namespace: exit 2, says so"
$H up --config configs/small.ini --terminals 9 >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "terminals 0..5" "$TMP/err"
ok $? "a terminal the network does not have: exit 2, the range named"
$H up --config configs/small.ini --terminals x >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "numbers and ranges" "$TMP/err"
ok $? "a bad --terminals list: exit 2, what is allowed"
$H down >/dev/null
[ -z "$(ip netns list | grep "^$P")" ] && ! ip link show "${P}1d" >/dev/null 2>&1
ok $? "down removes the namespaces and veths"
tap_done
