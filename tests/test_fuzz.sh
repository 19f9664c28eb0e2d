#!/bin/sh
# Bad input: libFuzzer targets (clang, Debian's libclang-rt-14-dev)
# for the config parser and plan, the DPDK-port frame classifier and the
# file: link-list reader. Each runs for FUZZ_SECONDS (default 15) from its
# seed corpus (fuzz/corpus, plus configs/ and tests/data/bad for the config
# target) under ASan and UBSan; every input in fuzz/regress/TARGET (crashes
# found before, now fixed) is run first. A crash is a failure, and its
# input is kept in the log directory.
# Usage: tests/test_fuzz.sh [BUILD_DIR] (from the repo root)
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${1:-build-fuzz}
SECS=${FUZZ_SECONDS:-15}
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
. tests/tap.sh
tap_plan 6
mkdir -p "$OUT"

# shellcheck disable=SC2046
CFLAGS="-g -O1 -fsanitize=fuzzer,address,undefined
	-fno-sanitize-recover=undefined -D_GNU_SOURCE -include rte_config.h
	-Icontrol -Idataplane -Idataplane/routing -Iemu
	$(pkg-config --cflags libdpdk)"
LIBS="$(pkg-config --libs libdpdk) -lm"
CONTROL=$(ls control/*.c)

# target NAME SOURCES...: build fuzz/NAME.c with the sources it needs
target() {
	name=$1
	shift
	# shellcheck disable=SC2086
	clang $CFLAGS -o "$OUT/$name" "fuzz/$name.c" "$@" $LIBS \
		>"$TMP/$name.build" 2>&1
	r=$?
	ok $r "fuzz target $name builds with clang -fsanitize=fuzzer"
	[ $r -eq 0 ] || sed 's/^/#   /' "$TMP/$name.build" | head -20
	return $r
}

# fuzz NAME SEED-DIRS...: regressions, then SECS seconds of fuzzing
fuzz() {
	name=$1
	shift
	corpus="$TMP/corpus-$name"
	mkdir -p "$corpus"
	for d in "$@"; do
		cp "$d"/* "$corpus"/ 2>/dev/null
	done
	if [ -d "fuzz/regress/$name" ]; then
		"$OUT/$name" -runs=1 fuzz/regress/"$name"/* >"$TMP/$name.regress" 2>&1
		ok $? "$name: every input in fuzz/regress/$name runs clean"
	fi
	"$OUT/$name" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$TMP/$name-" -print_final_stats=1 \
		"$corpus" >"$TMP/$name.log" 2>&1
	r=$?
	execs=$(grep -m1 '^stat::number_of_executed_units' "$TMP/$name.log" |
		awk '{print $2}')
	echo "# $name: ${execs:-?} inputs in ${SECS} s, corpus $(ls "$corpus" | wc -l)"
	ok $r "$name: no crash, leak, sanitizer report or timeout in ${SECS} s"
	if [ $r -ne 0 ]; then
		grep -E "ERROR|SUMMARY|runtime error|Test unit written" \
			"$TMP/$name.log" | head -10 | sed 's/^/#   /'
		KEEP=1
		echo "# crash inputs and logs kept in $TMP"
	fi
}

# shellcheck disable=SC2086
target fuzz_config $CONTROL &&
	fuzz fuzz_config configs tests/data/bad fuzz/corpus/config
target fuzz_ingress dataplane/ingress.c dataplane/addr.c &&
	fuzz fuzz_ingress fuzz/corpus/ingress
# shellcheck disable=SC2086
target fuzz_links $CONTROL && fuzz fuzz_links fuzz/corpus/links
rm -f /tmp/dfemu-fuzz-*
tap_done
