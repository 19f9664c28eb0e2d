#!/bin/sh
# An mbuf pool that runs out (docs/robustness.md, "Resource limits"): a
# pool set small on purpose ([run] mbufs) makes injections fail, counted
# as no_mbuf, and the run goes on with the mbufs that come back. Every
# packet is still accounted for; on one worker the run is exact, on two
# the report says which part depended on the host. A pool smaller than a
# port's descriptor rings is refused before EAL starts.
# Usage: tests/test_pool.sh PATH/TO/dfemu (from the repo root).
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 7
# the reference at its load 0.3: about 30 packets in the network on
# average, in bursts of more; 64 mbufs run out now and then
REF="--config configs/reference.ini --quiet --set run.pace=none
	--set traffic.warmup_ms=50 --set traffic.measure_ms=200"

# run NAME ARGS...: the reference with ARGS, its report in NAME.txt and
# NAME.json; its exit status in rc
run() {
	name=$1
	shift
	# shellcheck disable=SC2086
	"$DFEMU" $REF "$@" --json "$TMP/$name.json" >"$TMP/$name.txt" 2>&1
	rc=$?
	echo "# $name: exit $rc"
}

# field NAME EXPR: EXPR over the report r of run NAME
field() {
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); \
p=r['packets']; print($2)" "$TMP/$1.json"
}

# 1. the pool as sized from the network: it never runs out
run auto --set run.workers=1
[ $rc -eq 0 ] && accounted "$TMP/auto.json"
ok $? "auto pool: exit 0, nothing dropped, every packet and credit accounted for"

# 2. 64 mbufs, one worker: no_mbuf drops and nothing else, and the run
# went on: every mbuf was used over and over
run small --set run.workers=1 --set run.mbufs=64
[ $rc -eq 0 ] && accounted "$TMP/small.json" no_mbuf &&
	[ "$(field small "p['injected'] > 100 * 64")" = True ]
ok $? "64 mbufs: exit 0, dropped as no_mbuf only ($(field small "p['dropped']['no_mbuf']")), injected $(field small "p['injected']") > 100 x 64, generated = injected + dropped + never injected, exactly once, credits conserved"

# 3. on one worker the pool's state follows emulated time: a second run
# drops the same packets
run again --set run.workers=1 --set run.mbufs=64
d1=$(field small "r['digest'], p['dropped']['no_mbuf']")
d2=$(field again "r['digest'], p['dropped']['no_mbuf']")
echo "# digests and no_mbuf: $d1 / $d2"
[ $rc -eq 0 ] && [ "$d1" = "$d2" ] &&
	[ "$(field auto "r['digest']")" != "$(field small "r['digest']")" ]
ok $? "64 mbufs, one worker: the same digest and no_mbuf count twice, unlike the auto pool's"

# 4. two workers: the counts still add up, and the report says that the
# digest depended on the host
run two --set run.workers=2 --set run.mbufs=64
[ $rc -eq 0 ] && accounted "$TMP/two.json" no_mbuf &&
	grep -q "WARNING: the mempool ran out (\[run\] mbufs = 64)" "$TMP/two.txt"
ok $? "64 mbufs, two workers: exit 0, accounted, the report warns that the digest is the host's"

# 5. one worker never prints that warning
! grep -q "mempool ran out" "$TMP/small.txt"
ok $? "one worker: no warning"

# 6. --check: the pool's memory follows the key
m_auto=$("$DFEMU" --check $REF | sed -n 's/^  memory *\([0-9]*\) MB.*/\1/p')
m_small=$("$DFEMU" --check $REF --set run.mbufs=64 |
	sed -n 's/^  memory *\([0-9]*\) MB.*/\1/p')
echo "# --check memory: auto $m_auto MB, 64 mbufs $m_small MB"
[ -n "$m_auto" ] && [ -n "$m_small" ] && [ "$m_small" -lt "$m_auto" ]
ok $? "--check: less memory with 64 mbufs than auto"

# 7. a port's descriptor rings need more than 64: refused with the key
# named, before EAL starts (exit 2)
"$DFEMU" --check --config configs/reference.ini --set run.mbufs=64 \
	--set terminals.t0=net_null0 >"$TMP/port.txt" 2>&1
rc=$?
cat "$TMP/port.txt" | sed 's/^/# /'
[ $rc -eq 2 ] && grep -q "^dfemu: \[run\] mbufs = 64: .*allowed: 0 (auto) or at least" "$TMP/port.txt"
ok $? "64 mbufs with a DPDK port: exit 2, the key and what is allowed named"

tap_done
