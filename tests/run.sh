#!/bin/sh
# Runs every test and prints one closing line "N passed, N failed, N
# skipped" (a TAP "ok ... # SKIP" line is a skipped test, not a passed one).
# Test programs speak TAP (tests/check.h); a program that crashes or exits
# non-zero without a "not ok" line counts as one more failure.
# Usage: tests/run.sh RELEASE_BUILD_DIR SANITIZER_BUILD_DIR
set -u
cd "$(dirname "$0")/.."
REL=${1:-build}
SAN=${2:-build-san}
passed=0
failed=0
skipped=0
LOG=${TEST_LOG_DIR:-$(mktemp -d)}
mkdir -p "$LOG" || exit 1

run() { # name command...
	name=$1
	shift
	out="$LOG/$name.log"
	start=$(date +%s)
	"$@" >"$out" 2>&1
	rc=$?
	s=$(grep -c '^ok .* # SKIP' "$out")
	p=$(($(grep -c '^ok ' "$out") - s))
	f=$(grep -c '^not ok ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $name exited with status $rc" >>"$out"
	elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
		# a program that ran no test at all has not passed
		f=1
		echo "not ok - $name reported no test points" >>"$out"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	printf '%-28s %4d passed %3d failed%s  (%ds)\n' "$name" "$p" "$f" \
		"$([ "$s" -gt 0 ] && echo " $s skipped")" $(($(date +%s) - start))
	[ "$s" -gt 0 ] && grep '^ok .* # SKIP' "$out" | head -1
	if [ "$f" -ne 0 ]; then
		grep -E '^not ok|^#' "$out" | head -40
		echo "--- last lines of $out:"
		tail -15 "$out"
	fi
}

# control/ needs no EAL: unit tests under the sanitizers.
run control-san "$SAN/tests/test_control"
run config-san "$SAN/tests/test_config" configs tests/data
run arrangements-san "$SAN/tests/test_arrangements"
run paths-san "$SAN/tests/test_paths"
run faults-unit-san "$SAN/tests/test_faults"
run ugal-san "$SAN/tests/test_ugal"
run fbfly-san "$SAN/tests/test_fbfly"
run credit-san "$SAN/tests/test_credit"
run xbar-san "$SAN/tests/test_xbar"
run alloc-san "$SAN/tests/test_alloc"
run notify-san "$SAN/tests/test_notify"
run ofar-san "$SAN/tests/test_ofar"
run addr-san "$SAN/tests/test_addr"
# dataplane on a real EAL, sanitizers on: conservation and accounting.
run dataplane-san "$SAN/tests/test_dataplane" conservation
# timing-sensitive tests on the optimised build
run dataplane-timing "$REL/tests/test_dataplane" timing
run paper-sanity "$REL/tests/test_dataplane" paper
run ofar-overload "$REL/tests/test_dataplane" overload
run ofar-overload-san "$SAN/tests/test_dataplane" overload
run cli "tests/test_cli.sh" "$REL/emu/dfemu"
run cli-san "tests/test_cli.sh" "$SAN/emu/dfemu"
run sweep "tests/test_sweep.sh" "$REL/emu/dfemu"
run sweep-san "tests/test_sweep.sh" "$SAN/emu/dfemu"
run hosts "tests/test_hosts.sh" "$REL/emu/dfemu"
run hosts-san "tests/test_hosts.sh" "$SAN/emu/dfemu"
run ports "tests/test_ports.sh" "$REL/emu/dfemu"
run ports-san "tests/test_ports.sh" "$SAN/emu/dfemu"
run testpmd "tests/test_testpmd.sh" "$REL/emu/dfemu"
run testpmd-san "tests/test_testpmd.sh" "$SAN/emu/dfemu"
run pktgen-scripts "tests/test_pktgen.sh" "$REL/emu/dfemu"
run pktgen-scripts-san "tests/test_pktgen.sh" "$SAN/emu/dfemu"
run pktgen "tests/test_pktgen_peer.sh" "$REL/emu/dfemu"
run capture "tests/test_capture.sh" "$REL/emu/dfemu"
run capture-san "tests/test_capture.sh" "$SAN/emu/dfemu" san
run faults "tests/test_faults.sh" "$REL/emu/dfemu"
run faults-san "tests/test_faults.sh" "$SAN/emu/dfemu"
run router "tests/test_router.sh" "$REL/emu/dfemu"
run router-san "tests/test_router.sh" "$SAN/emu/dfemu"
run scale "tests/test_scale.sh" "$REL/emu/dfemu"
run scale-san "tests/test_scale.sh" "$SAN/emu/dfemu"
run realtime "tests/test_realtime.sh" "$REL/emu/dfemu"
run realtime-san "tests/test_realtime.sh" "$SAN/emu/dfemu" san
run instances "tests/test_instances.sh" "$REL/emu/dfemu"
run instances-san "tests/test_instances.sh" "$SAN/emu/dfemu" san
run dissector "tests/test_dissector.sh"
run fuzz "tests/test_fuzz.sh" "$REL-fuzz"
run topo "tests/test_topo.sh" "$REL/tools/dfemu-topo"
run topo-san "tests/test_topo.sh" "$SAN/tools/dfemu-topo"

echo "logs in $LOG"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
