#!/bin/sh
# Every test: the same set-up as tools/run.sh, plus a sanitizer build
# (ASan + UBSan), then tests/run.sh, which ends with "N passed, N failed".
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh build
tools/setup.sh build-san -Dsanitize=true -Dbuildtype=debugoptimized
exec tests/run.sh build build-san
