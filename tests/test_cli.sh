#!/bin/sh
# dfemu's command line: --help, argument errors, --check summaries and the
# exit codes (0 ok, 2 bad arguments or config). Only --help and --check are
# run: no emulation, no EAL.
# Usage: tests/test_cli.sh PATH/TO/dfemu   (from the repository root)
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
case $DFEMU in # absolute, before changing directory
*/*) DFEMU=$(cd "$(dirname "$DFEMU")" && pwd)/$(basename "$DFEMU") ;;
esac
cd "$(dirname "$0")/.." || exit 1
REF=configs/reference.ini
BAD=tests/data/bad/bad_enum.ini
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
n=0
failed=0

ok() { # condition-status description
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# run ARGS...: stdout in $TMP/out, stderr in $TMP/err, status in $rc
run() {
	"$DFEMU" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}

# expect_rc WANT DESC
expect_rc() {
	[ "$rc" -eq "$1" ]
	r=$?
	ok $r "$2 exits $1 (got $rc)"
	[ $r -eq 0 ] || sed 's/^/#   /' "$TMP/err" "$TMP/out" | head -10
}

# has FILE TEXT DESC: fixed string TEXT appears in FILE
has() {
	grep -qF -- "$2" "$1"
	r=$?
	ok $r "$3 mentions '$2'"
	[ $r -eq 0 ] || sed 's/^/#   /' "$1" | head -10
}

# --help
run --help
expect_rc 0 "--help"
for w in --config --set --json --check --eal topology arrangement algorithm \
	load relative absolute; do
	has "$TMP/out" "$w" "--help"
done

# argument errors
run
expect_rc 2 "no arguments"
has "$TMP/err" "--config" "no arguments: stderr"
run --no-such-option
expect_rc 2 "unknown option"
has "$TMP/err" "--help" "unknown option: stderr"
run --check --config "$REF" stray
expect_rc 2 "stray argument"
has "$TMP/err" "unexpected argument 'stray'" "stray argument: stderr"
run --check --config
expect_rc 2 "--config without a file"

# --check on the reference dragonfly, MIN
run --check --config "$REF"
expect_rc 0 "--check reference.ini"
for w in "36 routers" "72 terminals" "36 global" "54 local" "acyclic" \
	"VCs local    2:" "VCs global   1:"; do
	has "$TMP/out" "$w" "--check reference.ini"
done
[ ! -s "$TMP/err" ]
ok $? "--check reference.ini: nothing on stderr"

# --check with VAL: local links 3 VCs, global 2 ([DF] Fig. 7)
run --check --config "$REF" --set routing.algorithm=val
expect_rc 0 "--check --set routing.algorithm=val"
for w in "routing      val:" "VCs local    3:" "VCs global   2:" "acyclic"; do
	has "$TMP/out" "$w" "--check val"
done

# short options
run -k -c "$REF" -s traffic.load=0.5
expect_rc 0 "-k -c FILE -s traffic.load=0.5"

# bad config file: exit 2, message (file:line) on stderr, nothing on stdout
run --check --config "$BAD"
expect_rc 2 "--check bad config"
has "$TMP/err" "$BAD:7:" "bad config: stderr"
has "$TMP/err" "relative | absolute" "bad config: stderr"
[ ! -s "$TMP/out" ]
ok $? "bad config: nothing on stdout"

# bad --set
run --check --config "$REF" --set traffic.load=2
expect_rc 2 "--set traffic.load=2"
has "$TMP/err" "--set traffic.load=2" "--set traffic.load=2: stderr"
has "$TMP/err" "a number from 0 to 1" "--set traffic.load=2: stderr"
run --check --config "$REF" --set traffic.load
expect_rc 2 "--set traffic.load (no value)"
has "$TMP/err" "SECTION.KEY=VALUE" "--set without value: stderr"
run --check --config "$REF" --set links.local_vcs=2 \
	--set routing.algorithm=val
expect_rc 2 "--set links.local_vcs=2 with val"
has "$TMP/err" "too few" "too few VCs: stderr"

# missing config file
run --check --config "$TMP/no-such.ini"
expect_rc 2 "missing config file"
has "$TMP/err" "cannot open" "missing config file: stderr"
has "$TMP/err" "$TMP/no-such.ini" "missing config file: stderr"

echo "1..$n"
[ "$failed" -eq 0 ]
