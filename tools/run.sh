#!/bin/sh
# The main job: set up, build, and run the default emulation (the
# 72-terminal reference dragonfly under uniform traffic), printing the
# report. Extra arguments go to dfemu, e.g. --set routing.algorithm=val.
# Emulated time is exact (docs/realtime.md): a host that cannot keep up
# makes the run slower, never its figures different, so the run is paced
# in real time and needs no time scale.
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh build
exec build/emu/dfemu --config configs/reference.ini "$@"
