#!/bin/sh
# Paper-scale networks start, check, run and drain on one machine: the
# [DF] 1K dragonfly (p=4 a=8 h=4 g=33: 264 routers, 1,056 terminals), the
# [OC] 5K one (p=h=6 a=12 g=73: 876 routers, 5,256 terminals), radix-64
# routers, and the [FB] 32-ary 2-flat (radix 63). Each run is short and at
# low link rates: what is checked is the accounting (every packet
# delivered exactly once, credits conserved, nothing in flight), not
# timing (docs/performance.md has the figures).
# Usage: tests/test_scale.sh PATH/TO/dfemu (from the repo root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 10
REF=configs/reference.ini
SLOW="--set links.terminal_bandwidth_gbps=0.01
      --set links.local_bandwidth_gbps=0.01
      --set links.global_bandwidth_gbps=0.01
      --set traffic.warmup_ms=20 --set traffic.measure_ms=150"
K1="--set topology.p=4 --set topology.a=8 --set topology.h=4 --set topology.g=33"
K5="--set topology.p=6 --set topology.a=12 --set topology.h=6 --set topology.g=73"
# radix 64: p + a - 1 + h = 16 + 33 - 1 + 16, g = 3 groups
K64="--set topology.p=16 --set topology.a=33 --set topology.h=16 --set topology.g=3"

# check NAME CONFIG ROUTERS TERMINALS RADIX SETS...: --check names the
# size and the memory the plan needs
check() {
	name=$1 cfg=$2 routers=$3 terms=$4 radix=$5
	shift 5
	"$DFEMU" --check --config "$cfg" "$@" >"$TMP/c.txt" 2>&1 &&
		grep -q "size *$routers routers (radix $radix), $terms terminals" \
			"$TMP/c.txt" &&
		grep -Eq "memory +[0-9]+ MB" "$TMP/c.txt"
	ok $? "$name: --check builds and checks the plan, names its size and memory"
}

# run NAME CONFIG SETS...: a short low-load run, accounted, exit 0
run_one() {
	name=$1 cfg=$2
	shift 2
	# shellcheck disable=SC2086
	"$DFEMU" --config "$cfg" $SLOW "$@" --quiet --json "$TMP/r.json" \
		>"$TMP/r.txt" 2>&1
	rc=$?
	[ $rc -eq 0 ] && accounted "$TMP/r.json"
	ok $? "$name: a short run drains, every packet delivered once, credits conserved (exit $rc)"
	[ $rc -eq 0 ] || tail -5 "$TMP/r.txt" | sed 's/^/#   /'
}

# shellcheck disable=SC2086
check "[DF] 1K dragonfly" $REF 264 1056 15 $K1
# shellcheck disable=SC2086
run_one "[DF] 1K dragonfly, MIN" $REF $K1 --set traffic.load=0.05
# shellcheck disable=SC2086
run_one "[DF] 1K dragonfly, UGAL-L" $REF $K1 --set traffic.load=0.05 \
	--set routing.algorithm=ugal-l
# shellcheck disable=SC2086
check "[OC] 5K dragonfly" $REF 876 5256 23 $K5
# shellcheck disable=SC2086
run_one "[OC] 5K dragonfly, MIN" $REF $K5 --set traffic.load=0.02
# shellcheck disable=SC2086
check "radix-64 dragonfly" $REF 99 1584 64 $K64
# shellcheck disable=SC2086
run_one "radix-64 dragonfly, VAL" $REF $K64 --set traffic.load=0.02 \
	--set routing.algorithm=val
check "[FB] 32-ary 2-flat" configs/flatfly.ini 32 1024 63 \
	--set topology.k=32 --set topology.n=2
# shellcheck disable=SC2086
run_one "[FB] 32-ary 2-flat, MIN" configs/flatfly.ini \
	--set topology.k=32 --set topology.n=2 --set traffic.load=0.05

# a radix beyond 64 is refused with the limit named
"$DFEMU" --check --config $REF --set topology.p=17 --set topology.a=33 \
	--set topology.h=16 --set topology.g=3 >"$TMP/c.txt" 2>&1
[ $? -eq 2 ] && grep -q "exceeds the supported 64 ports" "$TMP/c.txt"
ok $? "radix 65 refused, naming the 64-port limit"

tap_done
