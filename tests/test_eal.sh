#!/bin/sh
# EAL's arguments when none are given (docs/usage.md, "EAL
# arguments"): -l 0-N for the workers, --no-pci, and --in-memory on free
# hugepages, else --no-huge with the memory the plan needs. Read back
# from the running process through DPDK telemetry's /eal/params, then
# the run ended with SIGINT and checked.
# Usage: tests/test_eal.sh PATH/TO/dfemu (from the repo root).
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	for p in $PIDS; do rm -rf "/run/dpdk/dfemu-$p"; done
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
. tests/tap.sh
tap_plan 4
RUN="--config configs/small.ini --quiet --set traffic.measure_ms=600000"

# defaults NAME [CMD...]: dfemu with no EAL arguments (CMD, e.g. unshare,
# runs it), its /eal/params in NAME.params, ended with SIGINT; exit
# status in rc
defaults() {
	name=$1
	shift
	# shellcheck disable=SC2086
	"$@" "$DFEMU" $RUN --json "$TMP/$name.json" >"$TMP/$name.log" 2>&1 &
	pid=$!
	PIDS="$PIDS $pid"
	# (the process keeps its PID through unshare and sh's exec: its
	# default file prefix is dfemu-PID)
	wait_phase "dfemu-$pid" measure &&
		echo /eal/params | dpdk-telemetry.py -f "dfemu-$pid" \
			2>/dev/null | tail -1 >"$TMP/$name.params"
	kill -INT $pid
	wait $pid
	rc=$?
	echo "# $name: exit $rc, $(cat "$TMP/$name.params")"
}

# has NAME WORD...: every WORD is one of NAME's EAL arguments
has() {
	python3 - "$TMP/$1.params" "$@" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["/eal/params"]
assert all(w in p for w in sys.argv[3:]), (p, sys.argv[3:])
PY
}

free=$(awk '/HugePages_Free/ {f = $2} /Hugepagesize/ {s = $2} END {print f * s / 1024}' /proc/meminfo)
if [ "${free%.*}" -ge 256 ] && mount | grep -q hugetlbfs; then
	defaults huge
	[ $rc -eq 0 ] && has huge -l0-1 --no-pci --in-memory &&
		! grep -q -- --no-huge "$TMP/huge.params"
	ok $? "no EAL arguments, $free MB of free hugepages: -l0-1 --no-pci --in-memory"
	accounted "$TMP/huge.json"
	ok $? "  and the run ends on SIGINT, accounted"
else
	skip "no EAL arguments, free hugepages: --in-memory" "$free MB of free hugepages here (256 needed)"
	skip "  and the run ends on SIGINT, accounted" "no hugepages here"
fi
# no hugetlbfs mounted (a private mount namespace without it)
defaults nohuge unshare -m --propagation private sh -c \
	'umount /dev/hugepages 2>/dev/null; umount -a -t hugetlbfs 2>/dev/null; exec "$@"' sh
[ $rc -eq 0 ] && has nohuge -l0-1 --no-pci --no-huge --no-shconf &&
	grep -q '"-m[0-9]*"' "$TMP/nohuge.params"
ok $? "no EAL arguments, no hugepages: -l0-1 --no-pci --no-huge -m (the plan's memory) --no-shconf"
accounted "$TMP/nohuge.json"
ok $? "  and the run ends on SIGINT, accounted"

tap_done
