# Sourced by the shell tests: TAP output counted by tests/report.py.
# tap_plan N: the plan line, first: a script that ends early, or passes
# over a block of points, has fewer than planned, and fails.
# ok STATUS DESCRIPTION: a test point that passes when STATUS is 0.
# tap_done: the script's exit status (0: every planned point ran, and
# passed).
n=0
failed=0
plan=""

tap_plan() {
	plan=$1
	echo "1..$plan"
}

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# skip DESCRIPTION REASON: a test point that could not run (TAP's SKIP
# directive); tests/report.py counts it as skipped, never as passed.
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

tap_done() {
	if [ -z "$plan" ]; then
		echo "# no plan: tap_plan N comes first"
		return 1
	fi
	if [ "$n" -ne "$plan" ]; then
		echo "# $n points ran of the $plan planned"
		return 1
	fi
	[ "$failed" -eq 0 ]
}

# wait_phase PREFIX PHASE: poll the telemetry of the dfemu running with
# --file-prefix=PREFIX until /dfemu/info says PHASE (a basic regular
# expression; at most 60 s: several instances starting beside other
# tests on 2 vCPUs took more than 20)
wait_phase() {
	i=0
	until echo /dfemu/info | dpdk-telemetry.py -f "$1" 2>/dev/null |
		grep -q "\"phase\": \"$2\""; do
		i=$((i + 1))
		[ $i -lt 300 ] || return 1
		sleep 0.2
	done
}

# real_time_exit RC JSON: a run with DPDK ports needs real time
# (docs/realtime.md, "The lag and the verdict"): it exits 0 when its lag
# p99 was within its tolerance and 5 when it was not, a host that falls
# behind making it late, never wrong. On a 2-vCPU host that also runs its
# peers either may happen; what must hold is that the exit status, the
# report's verdict and its lag agree (and the accounting, checked apart).
real_time_exit() {
	python3 - "$1" "$2" <<'PY'
import json, sys
rc, r = int(sys.argv[1]), json.load(open(sys.argv[2]))
l = r["lateness_ns"]
kept = l["p99"] <= l["tolerance"]
assert r["needs_real_time"] is True, "needs_real_time false"
assert l["within_tolerance"] is kept and r["kept_real_time"] is kept, l
assert rc == (0 if kept else 5), "exit %d, lag %s" % (rc, l)
if not kept:
    print("# exit 5: lag p99 %d ns over the tolerance %d ns" %
          (l["p99"], l["tolerance"]))
PY
}

# accounted JSON [KIND]: a run's JSON report accounts for every
# packet: delivered exactly once, credits conserved, drained, nothing in
# flight, some delivered, and generated = injected + dropped (by reason)
# + never injected (still in a source queue when generation ended).
# KIND "" or "normal": nothing dropped; "overloaded": the source queues
# must have overflowed; a drop reason (e.g. no_mbuf): packets were
# dropped for it and for nothing else. Generation and injection follow
# emulated time, so a host that falls behind drops nothing.
accounted() {
	python3 - "$1" "${2:-}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["packets"]
drops = sum(p["dropped"].values())
assert r["exactly_once"] is True and r["credits_conserved"] is True, r
assert r["drained"] is True and p["in_flight"] == 0, p
assert p["injected"] == p["delivered"] > 0, p
assert p["generated"] == p["injected"] + drops + p["not_injected"], p
if sys.argv[2] == "overloaded":
    assert p["dropped"]["source_queue_full"] > 0, p
elif sys.argv[2] not in ("", "normal"):
    assert sys.argv[2] in p["dropped"], "no drop reason " + sys.argv[2]
    assert p["dropped"][sys.argv[2]] == drops > 0, p
else:
    assert drops == 0, p
PY
}

# peer_scratch NAME PREFIX...: for the tests that run DPDK peers over
# memif: a scratch directory $TMP, a socket directory $SOCK
# (/run/dfemu/NAME-PID) and a list $PIDS of processes. At exit those are
# killed, and $TMP, $SOCK and the EAL runtime directories of the given
# --file-prefixes (each with the PID appended; peers leave theirs behind)
# removed.
peer_scratch() {
	TMP=$(mktemp -d)
	SOCK=/run/dfemu/$1-$$
	shift
	PIDS=""
	RUNDIRS=""
	for p in "$@"; do RUNDIRS="$RUNDIRS /var/run/dpdk/$p$$"; done
	trap peer_cleanup EXIT
	mkdir -p "$SOCK"
}
peer_cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	# shellcheck disable=SC2086
	rm -rf "$TMP" "$SOCK" $RUNDIRS
}

# wait_for_sock PATH: poll until the memif server socket PATH exists (a
# dfemu started in the background has set its ports up; at most 30 s)
wait_for_sock() {
	i=0
	while [ ! -S "$1" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -S "$1" ]
}
