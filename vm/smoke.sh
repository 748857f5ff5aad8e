#!/usr/bin/env bash
# The virtual board's smoke test: fetches and builds what is missing, boots Debian's kernel under
# qemu with gpio-sim and snd-aloop, and runs vm/guest/smoke-guest.sh inside. Exit status 0 when
# every CHECK passed. When the `soundtrace` CLI is built (.build/release or .build/debug, or
# SOUNDTRACE_VM_SWIFT_BIN), it also runs in the guest: `match --device` on the loopback hears a
# catalog excerpt, reports a held device as busy and an unbound card as disconnected.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_start=$(date +%s)
"$vm_dir/fetch.sh"
"$vm_dir/build-gpio-sim.sh" >/dev/null
need_host python3 python3-minimal
t_ready=$(date +%s)

# A directory per run, so runs can overlap; kept only when the run fails.
mkdir -p "$build" "$cache/logs"
work=$(mktemp -d "$build/smoke.XXXXXX")
mkdir -p "$work/payload"
# 2 s of a 1 kHz tone, 48 kHz stereo S16_LE, amplitude 12000: the loopback must carry it unchanged.
python3 - "$work/payload/tone.wav" <<'PY'
import math, struct, sys, wave
rate, secs, amp = 48000, 2, 12000
frames = b"".join(struct.pack("<hh", s, s) for s in
                  (int(amp * math.sin(2 * math.pi * 1000 * n / rate)) for n in range(rate * secs)))
with wave.open(sys.argv[1], "wb") as w:
    w.setnchannels(2); w.setsampwidth(2); w.setframerate(rate); w.writeframes(frames)
PY
cp "$vm_dir/guest/smoke-guest.sh" "$vm_dir/guest/checks.sh" "$vm_dir/guest/board.sh" "$work/payload/"

bins=()
swift_bin=${SOUNDTRACE_VM_SWIFT_BIN:-}
if [ -z "$swift_bin" ]; then
  for c in "$repo_root"/.build/{release,debug}/soundtrace; do
    if [ -x "$c" ]; then swift_bin=$c; break; fi
  done
fi
if [ -n "$swift_bin" ]; then
  swift_bin=$(readlink -f "$swift_bin")
  # A fixed path in the guest: the guest's /init mounts a tmpfs over /tmp, so a checkout under
  # /tmp (a CI clone) would hide a binary kept at its host path.
  bins+=(-b "$swift_bin=/usr/bin/soundtrace")
  echo /usr/bin/soundtrace >"$work/payload/swift-bin"
  say "including Swift binary $swift_bin"
  if [ -f "$repo_root/catalog/soundtrace.catalog" ] && [ -f "$repo_root/catalog/manifest.json" ]; then
    # 12 s of the first catalog recording (from 30 s on) after 1 s of silence, for match --device.
    cp "$repo_root/catalog/soundtrace.catalog" "$work/payload/"
    write_excerpt "$repo_root/catalog" "$work/payload"
  fi
fi

"$vm_dir/mkinitramfs.sh" -o "$work/smoke.cpio" -m snd-aloop -m gpio-sim "${bins[@]+"${bins[@]}"}" \
  -p "$work/payload" -c 'sh /payload/smoke-guest.sh'
t_initrd=$(date +%s)

boot_and_report smoke "$work" SMOKE-SUMMARY "fetch+build $((t_ready - t_start)) s, initramfs $((t_initrd - t_ready)) s"
