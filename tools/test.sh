#!/bin/sh
# Every test: the same set-up as tools/run.sh, plus a sanitizer build
# (ASan + UBSan), then meson's harness on both builds (the tests and
# which build runs which are listed in tests/meson.build), one test at a
# time, and tests/report.py, which counts their TAP points and ends with
# "N passed, N failed, N skipped". Exit status 0 if nothing failed.
#
# Pktgen-DPDK, a test peer Debian does not package: PKTGEN=/path/to/pktgen,
# or, when the Pktgen source folder PKTGEN_SRC (default ../shared/pktgen,
# beside the repository) exists, its build.sh builds one into a cache
# outside the repository (PKTGEN_CACHE, default /var/tmp/dfemu-pktgen;
# about 20 s once). Without either, the Pktgen tests are skipped and the
# closing line says so.
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh build
tools/setup.sh build-san -Dsanitize=true -Dbuildtype=debugoptimized
PKTGEN_SRC=${PKTGEN_SRC:-../shared/pktgen}
PKTGEN_WHY="no Pktgen: set PKTGEN=/path/to/pktgen or provide $PKTGEN_SRC"
if [ -z "${PKTGEN:-}" ] && [ -x "$PKTGEN_SRC/build.sh" ]; then
	log=$(mktemp)
	PKTGEN=$("$PKTGEN_SRC/build.sh" "${PKTGEN_CACHE:-/var/tmp/dfemu-pktgen}" 2>"$log") ||
		PKTGEN_WHY="building Pktgen from $PKTGEN_SRC failed: $(tail -1 "$log")"
	rm -f "$log"
fi
if [ -n "${PKTGEN:-}" ]; then echo "test: Pktgen at $PKTGEN"; else echo "test: $PKTGEN_WHY"; fi
export PKTGEN="${PKTGEN:-}" PKTGEN_WHY
# One test at a time, as before: the timing tests are only honest alone
# on 2 cores. Setup "full": the unit tests under the sanitizers only. A
# failing test does not stop the run; tests/report.py counts it, a build
# whose tests did not run at all, a test meson lists that did not run,
# and meson's own failing status (beside each log: .list and .status).
# With Pktgen's source at hand, a skipped Pktgen point is a failure.
for b in build-san build; do
	log=$b/meson-logs/testlog-full
	rm -f "$log.json" "$log.list" "$log.status"
	meson test -C "$b" --setup full --list 2>/dev/null | grep ' / ' >"$log.list" || :
	st=0
	meson test -C "$b" --setup full --num-processes 1 || st=$?
	echo "$st" >"$log.status"
done
strict=
[ ! -x "$PKTGEN_SRC/build.sh" ] || strict="--fail-skips pktgen"
# shellcheck disable=SC2086
exec tests/report.py $strict build-san/meson-logs/testlog-full.json \
	build/meson-logs/testlog-full.json
