#!/bin/sh
# One-time set-up on Debian 12, safe to run again: installs the Debian
# packages dfemu needs (apt-get, only what is missing), reserves hugepages
# when run as root (best effort: dfemu falls back to --no-huge), then
# configures and builds. Usage: tools/setup.sh [BUILD_DIR [meson options]]
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
[ $# -gt 0 ] && shift

PKGS="gcc meson ninja-build pkg-config libdpdk-dev dpdk dpdk-dev libpcap-dev libnuma-dev
      python3 iproute2 ethtool iputils-ping iperf3 tcpdump tshark gnuplot-nox graphviz
      clang libclang-rt-14-dev"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing$missing"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi

# Hugepages: 3-7x faster than --no-huge (TLB misses, measured on our VMs).
if [ "$(id -u)" -eq 0 ] && [ -w /proc/sys/vm/nr_hugepages ]; then
	want=512
	have=$(cat /proc/sys/vm/nr_hugepages)
	[ "$have" -ge "$want" ] || echo "$want" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
	if ! grep -q " hugetlbfs " /proc/mounts; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages 2>/dev/null ||
			echo "setup: no hugetlbfs mount possible; dfemu will use --no-huge"
	fi
fi

if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" "$@" >/dev/null
fi
ninja -C "$BUILD" >/dev/null
echo "setup: built $BUILD"
