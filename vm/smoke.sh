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
cp "$vm_dir/guest/smoke-guest.sh" "$vm_dir/guest/board.sh" "$work/payload/"

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
    python3 - "$repo_root/catalog" "$work/payload" <<'PY'
import json, sys, wave
catalog, out = sys.argv[1], sys.argv[2]
ref = json.load(open(f"{catalog}/manifest.json"))["references"][0]
with wave.open(f"{catalog}/{ref['sourceFile']}", "rb") as w:
    p = w.getparams()
    w.setpos(30 * p.framerate)
    audio = w.readframes(12 * p.framerate)
with wave.open(f"{out}/excerpt.wav", "wb") as o:
    o.setparams(p)
    o.writeframes(b"\0" * (p.framerate * p.sampwidth * p.nchannels) + audio)
open(f"{out}/excerpt.id", "w").write(ref["id"])
PY
  fi
fi

"$vm_dir/mkinitramfs.sh" -o "$work/smoke.cpio" -m snd-aloop -m gpio-sim "${bins[@]+"${bins[@]}"}" \
  -p "$work/payload" -c 'sh /payload/smoke-guest.sh'
t_initrd=$(date +%s)

set +e
"$vm_dir/run.sh" -i "$work/smoke.cpio" -t "${SOUNDTRACE_VM_TIMEOUT:-600}" -l "$work/smoke.log" -q
rc=$?
set -e
t_end=$(date +%s)
grep -aE '^(CHECK|OBSERVE|SMOKE-SUMMARY)' "$work/smoke.log" >&2 || true
say "timings: fetch+build $((t_ready - t_start)) s, initramfs $((t_initrd - t_ready)) s, boot+test $((t_end - t_initrd)) s, total $((t_end - t_start)) s"
cp "$work/smoke.log" "$cache/logs/smoke-last.log" 2>/dev/null || true
if [ "$rc" = 0 ]; then
  rm -rf "$work"
  say "smoke: PASS (log $cache/logs/smoke-last.log)"
else
  say "smoke: FAIL (status $rc; log $work/smoke.log, initramfs and payload kept in $work)"
fi
exit "$rc"
