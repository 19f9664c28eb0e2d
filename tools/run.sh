#!/bin/sh
# The main job: set up, build, and run the default emulation (the
# 72-terminal reference dragonfly under uniform traffic), printing the
# report. Extra arguments go to dfemu, e.g. --set routing.algorithm=val.
# The reference keeps real time only just on a 2-vCPU VM (lateness p99
# 12-18 us against one packet time, 20.5 us: docs/realtime.md), so the
# main job lets dfemu choose the time scale (run.time_scale = auto),
# unless the arguments set it or bind ports or instances, which need a
# number.
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh build
case "$*" in
*time_scale* | *terminals.* | *partition* | *instance*) ;;
*) set -- --set run.time_scale=auto "$@" ;;
esac
exec build/emu/dfemu --config configs/reference.ini "$@"
