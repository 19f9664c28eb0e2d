#!/usr/bin/env python3
"""Counts the test points of meson test runs, from their JSON logs.

Usage: tests/report.py [--fail-skips WORD] LOG...
  LOG: a meson test JSON log, or a build directory for the log of its
  last plain meson test run (BUILD_DIR/meson-logs/testlog.json; with
  --setup NAME, meson writes testlog-NAME.json instead).
  --fail-skips WORD: a skipped point of a test whose name holds WORD is
  a failure (tools/test.sh: "pktgen" when Pktgen's source is at hand).

Reads each log (one JSON object per test, with its stdout, stderr, exit
status and meson's verdict) and prints one line per test (passed, failed
and skipped points, time), for a failing test its "not ok" and "#" lines
and the last lines of its output, and last one closing line "N passed,
N failed, N skipped". Exit status 1 if anything failed, else 0.

Test programs speak TAP (tests/check.h, tests/tap.sh): an "ok" line is a
passed point, "not ok" a failed one, "ok ... # SKIP" a skipped one (never
a passed one). A program that crashed, timed out or exited non-zero
without a "not ok" line, that reported no test point at all, or that
meson judged failed (a TAP error: a plan it did not keep, "Bail out!")
without a "not ok" line counts as one more failure. So does a log that
is missing: meson test did not get to run its tests. Beside a log
X.json, tools/test.sh leaves X.list (meson test --list: each test
listed that is not in the log is one more failure) and X.status (meson
test's exit status: non-zero with no failure counted in the log is one
more).
"""
import json
import os
import re
import sys

OK = re.compile(r"^ok ")
NOT_OK = re.compile(r"^not ok ")
SKIP = re.compile(r"^ok .* # SKIP")
DIAG = re.compile(r"^(not ok|#)")


def tail(text, n):
    return text.splitlines()[-n:]


def report(name, t, fail_skips):
    """Prints one test's line (and details if it failed); its counts."""
    out = t.get("stdout") or ""
    err = t.get("stderr") or ""
    lines = out.splitlines()
    s = sum(1 for line in lines if SKIP.match(line))
    p = sum(1 for line in lines if OK.match(line)) - s
    f = sum(1 for line in lines if NOT_OK.match(line))
    rc = t.get("returncode")
    verdict = t.get("result")
    # why the program counts as one more failure (when it has no "not
    # ok" line), or, for a timeout or a TAP error, a note besides them
    if verdict == "TIMEOUT":
        why = f"{name} timed out after {t['duration']:.0f} s"
    elif verdict not in ("OK", "SKIP", "FAIL") and rc == 0:
        why = f"{name}: meson says {verdict} (a TAP error)"
    elif rc is not None and rc < 0 and f == 0:
        why = f"{name} was killed by signal {-rc}"
    elif rc != 0 and f == 0:
        why = f"{name} exited with status {rc}"
    elif p == 0 and s == 0 and f == 0:
        # a program that ran no test at all has not passed
        why = f"{name} reported no test points"
    else:
        why = None
    counted = why is not None and f == 0
    if counted:
        f = 1
    # skipped where it must run: each skipped point is a failed one
    strict = s if fail_skips and fail_skips in name else 0
    f, s = f + strict, s - strict
    more = f" {s} skipped" if s else ""
    print(f"{name:<28} {p:4d} passed {f:3d} failed{more}  "
          f"({t['duration']:.0f}s)")
    if s or strict:
        print(next(line for line in lines if SKIP.match(line)))
    if strict:
        print(f"not ok - {name}: {strict} point(s) skipped, but "
              f"{fail_skips} must run here")
    if f:
        for line in [line for line in lines if DIAG.match(line)][:40]:
            print(line)
        if why:
            print(f"{'not ok -' if counted else '#'} {why}")
        print(f"--- last lines of {name}'s output:")
        for line in tail(out, 15):
            print(line)
        if err.strip():
            print(f"--- last lines of {name}'s stderr:")
            for line in tail(err, 15):
                print(line)
    return p, f, s


def side(path, ext):
    """The lines of the file beside log path with extension ext, or
    None when there is none."""
    try:
        with open(re.sub(r"\.json$", ext, path), encoding="utf-8") as fh:
            return [line.strip() for line in fh if line.strip()]
    except OSError:
        return None


def missing(path, tests):
    """Failures from the files beside log path: tests meson listed that
    did not run, and meson's failing status with no failure counted."""
    f = 0
    ran = {t["name"] for t in tests}
    for name in side(path, ".list") or []:
        if name not in ran:
            print(f"not ok - {name}: listed by meson test --list, not run")
            f += 1
    st = side(path, ".status")
    if st and st[0] != "0" and not f and all(
            t.get("result") in ("OK", "SKIP") for t in tests):
        print(f"not ok - meson test exited {st[0]} ({path})")
        f += 1
    return f


def main(args):
    fail_skips = None
    if args[:1] == ["--fail-skips"] and len(args) > 1:
        fail_skips, args = args[1], args[2:]
    if not args:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    passed = failed = skipped = 0
    logs = []
    for path in args:
        if os.path.isdir(path):
            path = os.path.join(path, "meson-logs", "testlog.json")
        logs.append(re.sub(r"\.json$", ".txt", path))
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                tests = [json.loads(line) for line in fh if line.strip()]
        except (OSError, ValueError) as e:
            print(f"not ok - no meson test log: {e}")
            failed += 1
            continue
        for t in tests:
            # meson names it "project:suite / name"
            p, f, s = report(t["name"].rsplit(" / ", 1)[-1], t, fail_skips)
            passed += p
            failed += f
            skipped += s
        failed += missing(path, tests)
    print("logs in " + " ".join(logs))
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
