#!/usr/bin/env bash
# Installs what building and testing Soundtrace needs on Debian 12, and fetches KissFFT's and the
# MQTT client library's sources (from Debian's source packages).
# Idempotent: installs only missing packages, fetches only missing sources.
set -euo pipefail

# Build and test needs. The Swift toolchain itself is expected at /opt/swift or on PATH.
# Tests simulate a microphone with ALSA's file plugin and a PulseAudio null sink, and run the daemon
# in network namespaces (`ip netns`, veth pairs: iproute2; `unshare`, `nsenter`, `setpriv`: util-linux).
packages=(ca-certificates pkg-config libc6-dev libsqlite3-dev libasound2-dev libgpiod-dev libmd-dev libjansson-dev libasound2-plugins pulseaudio pulseaudio-utils)
# The libgpiod 2 test build (scripts/build-libgpiod2.sh): pip downloads its sources from PyPI.
packages+=(python3-pip)
# `soundtrace explain`'s pictures are checked by rendering them (rsvg-convert).
packages+=(librsvg2-bin)
packages+=(iproute2 util-linux)
# soundtraced's MQTT link: libmosquitto's header to build (the daemon loads libmosquitto1 at run
# time for TLS; plain TCP uses the library compiled in from Debian's sources, scripts/fetch-mosquitto.sh,
# which needs dpkg-source from dpkg-dev, below), and a real broker and its command-line clients for MQTTAcceptanceTests, which makes the
# TLS broker's certificates with the openssl command.
packages+=(libmosquitto-dev mosquitto mosquitto-clients openssl)
# Deployment tests: systemd-analyze and systemd-sysusers (systemd), dpkg-shlibdeps (dpkg-dev),
# objdump and strip (binutils), for the unit, install.sh and build-deb.sh.
packages+=(systemd dpkg-dev binutils gzip procps)
# Extra packages by purpose, selected with arguments: `setup.sh catalog` adds the renderer.
for purpose in "$@"; do
  case "$purpose" in
    catalog) packages+=(fluidsynth fluid-soundfont-gm sox) ;;
    bench) packages+=(sox libsox-fmt-all espeak-ng valgrind wesnoth-1.16-music hyperrogue-music) ;;
    vm) packages+=(qemu-system-x86 cpio kmod) ;;  # deploy/vm-check.sh
    *) echo "setup.sh: unknown purpose '$purpose' (known: catalog, bench, vm)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
  $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "note: swift is not on PATH; use /opt/swift/usr/bin or add it to PATH" >&2
  else
    echo "setup.sh: no Swift toolchain found; install Swift 6 (swift.org) and put it on PATH" >&2
    exit 1
  fi
fi

"$(dirname "$0")/fetch-kissfft.sh"
"$(dirname "$0")/fetch-mosquitto.sh"
