#!/bin/sh
# tests/report.py, which tools/test.sh ends with, on crafted meson logs:
# passed, failed and skipped points counted; a crash, a non-zero exit, a
# TAP error and no points each one failure; a test meson lists that did
# not run and meson's failing status with nothing else failed are
# failures; with --fail-skips, a skipped point of a matching test is.
# Usage: tests/test_report.sh (from anywhere)
set -u
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 8

# log NAME: write $TMP/NAME.json from "name|stdout|returncode|result" lines
log() {
	python3 -c '
import json, sys
with open(sys.argv[1], "w") as f:
    for line in sys.stdin:
        name, out, rc, res = line.rstrip("\n").split("|")
        f.write(json.dumps({"name": "dfemu:s / " + name,
                            "stdout": out.replace("\\n", "\n"),
                            "stderr": "", "returncode": int(rc),
                            "result": res, "duration": 1}) + "\n")
' "$TMP/$1.json"
}

# closing NAME [ARGS]: report.py's last line and its status
closing() {
	name=$1
	shift
	out=$(tests/report.py "$@" "$TMP/$name.json")
	st=$?
	echo "$(echo "$out" | tail -1) rc=$st"
}

log good <<'L'
a|ok 1 - x\nok 2 - y\n1..2|0|OK
p|ok 1 - y # SKIP no pktgen\nok 2 - z\n1..2|0|OK
L
[ "$(closing good)" = "3 passed, 0 failed, 1 skipped rc=0" ]
ok $? "points counted: 3 passed, 1 skipped, exit 0"
[ "$(closing good --fail-skips p)" = "3 passed, 1 failed, 0 skipped rc=1" ]
ok $? "--fail-skips: the skipped point of a matching test fails"

log bad <<'L'
f|ok 1 - x\nnot ok 2 - y\n1..2|1|FAIL
c|ok 1 - x|-11|FAIL
e|ok 1 - x\n1..1|3|FAIL
t|ok 1 - x\n1..3|0|ERROR
z||0|OK
L
[ "$(closing bad)" = "4 passed, 5 failed, 0 skipped rc=1" ]
ok $? "a not ok, a crash, an exit 3, a TAP error and no points: 5 failed"

log ran <<'L'
a|ok 1 - x\n1..1|0|OK
L
printf 'dfemu:s / a\ndfemu:s / gone\n' >"$TMP/ran.list"
[ "$(closing ran)" = "1 passed, 1 failed, 0 skipped rc=1" ]
ok $? "a test meson lists that did not run: 1 failed"
tests/report.py "$TMP/ran.json" | grep '^not ok - dfemu:s / gone: listed' >/dev/null
ok $? "... named"
rm "$TMP/ran.list"
echo 2 >"$TMP/ran.status"
[ "$(closing ran)" = "1 passed, 1 failed, 0 skipped rc=1" ]
ok $? "meson test exited 2, no test failed: 1 failed"
echo 0 >"$TMP/ran.status"
[ "$(closing ran)" = "1 passed, 0 failed, 0 skipped rc=0" ]
ok $? "meson test exited 0: nothing added"
[ "$(closing missing)" = "0 passed, 1 failed, 0 skipped rc=1" ]
ok $? "no log at all: 1 failed"
tap_done
