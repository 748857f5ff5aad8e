#!/usr/bin/env bash
# The virtual board's test of the real daemon: builds a static `soundtraced`, boots Debian's kernel
# under qemu with gpio-sim and snd-aloop (pcm_substreams=1), and runs vm/guest/daemon-board-guest.sh
# inside: the button pressed on the simulated chip, a catalog excerpt played into the loopback, the
# LED and buzzer lines asserted from the kernel's trace events, the history checked over the
# protocol, then the sound card unbound mid-session and a hold for calm mode.
# Exit status: the guest's (the number of failed CHECKs), 124/125 for a hung or crashed guest.
#
#   vm/daemon-board.sh              soundtraced built against Debian 12's libgpiod 1.6 (libgpiod-dev)
#   vm/daemon-board.sh --libgpiod2  the same checks with soundtraced built against libgpiod 2
#                                   (scripts/build-libgpiod2.sh: the C library of PyPI's gpiod sources)
# Either way libgpiod is linked in statically (scripts/swift-build-static.sh --static-libgpiod), so
# the library under test is the one in the binary, not the guest's (Debian's 1.6, for gpioinfo).
#
# SOUNDTRACED_VM_BIN=PATH uses that binary instead of building one (it should be the deployed build,
# scripts/swift-build-static.sh --product soundtrace: the dynamic Swift libraries would add 85 MB to
# the initramfs); the guest runs it as /usr/bin/soundtraced.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

libgpiod=1
while [ $# -gt 0 ]; do
  case "$1" in
    --libgpiod2) libgpiod=2; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (known: --libgpiod2)" ;;
  esac
done
run=daemon-board
[ "$libgpiod" = 1 ] || run=daemon-board-libgpiod$libgpiod

t_start=$(date +%s)
"$vm_dir/fetch.sh"
"$vm_dir/build-gpio-sim.sh" >/dev/null
need_host python3 python3-minimal
if [ "$libgpiod" = 2 ]; then
  pc_dir=$("$repo_root/scripts/build-libgpiod2.sh") || die "could not build libgpiod 2 (scripts/build-libgpiod2.sh)"
  export PKG_CONFIG_PATH=$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
fi
t_fetched=$(date +%s)

static_soundtraced "$libgpiod"
t_built=$(date +%s)

mkdir -p "$build" "$cache/logs"
work=$(mktemp -d "$build/$run.XXXXXX")
mkdir -p "$work/payload"
cp "$vm_dir/guest/daemon-board-guest.sh" "$vm_dir/guest/checks.sh" "$vm_dir/guest/board.sh" "$repo_root/catalog/soundtrace.catalog" "$work/payload/"
# 12 s of the first catalog recording (from 30 s on) after 1 s of silence, as in the smoke test.
write_excerpt "$repo_root/catalog" "$work/payload"
write_excerpt_48k_stereo "$work/payload"
# The virtual board: gpio-sim's named lines, the loopback's capture side, everything on tmpfs.
board_config /tmp/soundtrace-state >"$work/payload/soundtraced.conf"
# A second daemon, without GPIO, for the microphone's faults and formats (after the first stopped).
cat >"$work/payload/microphone.conf" <<'EOF'
gpio = no
device = plughw:Loopback,1,0
catalog = /payload/soundtrace.catalog
state_dir = /tmp/soundtrace-state-2
bind = 127.0.0.1
port = 6681
EOF

# -b copies the binary with its C libraries (ALSA, SQLite, glibc), to a fixed guest path: its
# host path may be under /tmp, which the guest's /init mounts a tmpfs over.
"$vm_dir/mkinitramfs.sh" -o "$work/$run.cpio" -m snd-aloop:pcm_substreams=1 -m gpio-sim \
  -b "$bin=/usr/bin/soundtraced" -p "$work/payload" -c 'sh /payload/daemon-board-guest.sh'
t_initrd=$(date +%s)

boot_and_report "$run" "$work" DAEMON-BOARD-SUMMARY "fetch+gpio-sim $((t_fetched - t_start)) s, swift build $((t_built - t_fetched)) s, initramfs $((t_initrd - t_built)) s"
