#!/bin/sh
# The main job: set up, build, and run the default emulation (the
# 72-terminal reference dragonfly under uniform traffic), printing the
# report. Extra arguments go to dfemu, e.g. --set routing.algorithm=val.
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh build
exec build/emu/dfemu --config configs/reference.ini "$@"
