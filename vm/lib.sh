# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by the scripts
# Shared settings for the virtual-board scripts (sourced, not run).
# Everything downloaded or built lives in the cache below, never in the repository.

# modinfo and depmod live in /usr/sbin, which a normal user's PATH on Debian lacks.
PATH=$PATH:/usr/sbin:/sbin
vm_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$vm_dir/.." && pwd)

if [ -n "${SOUNDTRACE_VM_CACHE:-}" ]; then
  cache=$SOUNDTRACE_VM_CACHE
elif [ "$(id -u)" = 0 ]; then
  cache=/var/cache/soundtrace-vm
else
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/soundtrace-vm
fi
debs=$cache/debs            # downloaded .deb files
kroot=$cache/kernel         # kernel image, modules, headers and kbuild unpacked here
guestroot=$cache/guest-pkgs # busybox, gpiod, alsa-utils unpacked here
srcdir=$cache/src           # the few kernel source files gpio-sim needs
build=$cache/build          # gpio-sim build tree and initramfs images

say() { printf '[vm] %s\n' "$*" >&2; }
die() { printf '[vm] error: %s\n' "$*" >&2; exit 1; }

apt_lock=(-o DPkg::Lock::Timeout=600)

# The kernel ABI name, e.g. 6.1.0-57-amd64: taken from the newest linux-headers-amd64 apt knows,
# so the image, headers and source all come from one Debian kernel version.
# Override with SOUNDTRACE_VM_KABI=6.1.0-NN-amd64.
kernel_abi() {
  if [ -n "${SOUNDTRACE_VM_KABI:-}" ]; then echo "$SOUNDTRACE_VM_KABI"; return; fi
  if [ -f "$cache/KABI" ]; then cat "$cache/KABI"; return; fi
  local dep
  dep=$(apt-cache depends linux-headers-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-headers-\(.*-amd64\)$/\1/p' | head -n 1)
  [ -n "$dep" ] || die "apt knows no linux-headers-amd64; run: apt-get update"
  echo "$dep"
}

# The Debian source version of a binary package as apt would download it (e.g. 6.1.192-3).
pkg_version() { apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1; }

# Installs host packages the scripts use, only when a command is missing.
need_host() { # need_host COMMAND PACKAGE
  command -v "$1" >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || die "$1 is missing: apt-get install $2 (as root)"
  say "installing $2 on the host (for $1)"
  DEBIAN_FRONTEND=noninteractive apt-get "${apt_lock[@]}" install -y --no-install-recommends "$2" >&2 \
    || die "could not install $2; try: apt-get update && apt-get install $2"
}

# static_soundtraced LIBGPIOD: sets bin to the deployed binary (scripts/swift-build-static.sh
# --product soundtrace, which the package installs and runs as the daemon under the name
# soundtraced; the guests place it at /usr/bin/soundtraced) with libgpiod LIBGPIOD (1 or 2) linked
# in, built in a scratch folder of its own unless SOUNDTRACED_VM_BIN names one; dies unless the
# binary has that libgpiod in it.
static_soundtraced() {
  local libgpiod=$1 scratch swift_path linked
  bin=${SOUNDTRACED_VM_BIN:-}
  if [ -z "$bin" ]; then
    # A scratch path of its own (per libgpiod): the static build must not disturb the usual .build.
    scratch=${SOUNDTRACE_VM_SCRATCH:-${TMPDIR:-/tmp}/st-vm-static}
    [ "$libgpiod" = 1 ] || scratch=$scratch-libgpiod$libgpiod
    swift_path=${SWIFT_BIN_DIR:-/opt/swift/usr/bin}
    [ -d "$swift_path" ] && PATH=$swift_path:$PATH
    command -v swift >/dev/null || die "swift is not on PATH (or set SOUNDTRACED_VM_BIN)"
    say "building the deployed binary with libgpiod $(pkg-config --modversion libgpiod) linked in (scripts/swift-build-static.sh) in $scratch"
    "$repo_root/scripts/swift-build-static.sh" --static-libgpiod --product soundtrace --scratch-path "$scratch" >&2 \
      || die "swift build of soundtrace failed"
    bin=$scratch/release/soundtrace
  fi
  [ -x "$bin" ] || die "no soundtraced binary at $bin"
  # Which libgpiod is in the binary, by a function only that major has (nm reads to the end: no SIGPIPE).
  linked=$(nm "$bin" 2>/dev/null | awk '$2 ~ /^[Tt]$/ && $3 == "gpiod_chip_request_lines" { v = 2 }
                                        $2 ~ /^[Tt]$/ && $3 == "gpiod_line_request_bulk" { v = 1 } END { print v }')
  if [ -z "$linked" ] && readelf -d "$bin" | grep -E 'NEEDED.*\[libgpiod\.so\.2\]' >/dev/null; then
    linked=1  # libgpiod.so.2 is libgpiod 1.x's soname (2.x's is libgpiod.so.3)
  fi
  [ "$linked" = "$libgpiod" ] || die "$bin has libgpiod ${linked:-(none found)} in it, not libgpiod $libgpiod"
  say "$bin uses libgpiod $linked"
}

# board_config STATE_DIR: the daemon's configuration on the virtual board (gpio-sim's named lines,
# the loopback's capture side, the protocol on loopback), with its state in STATE_DIR.
board_config() {
  cat <<EOF
gpio = yes
button_line = GPIO17
listening_led_line = GPIO23
result_led_line = GPIO24
buzzer_line = GPIO25
device = plughw:Loopback,1,0
catalog = /payload/soundtrace.catalog
state_dir = $1
bind = 127.0.0.1
port = 6680
EOF
}

# write_excerpt CATALOG_DIR OUT_DIR: 12 s of the first catalog recording (from 30 s on) after 1 s of
# silence as OUT_DIR/excerpt.wav, and its reference id as OUT_DIR/excerpt.id, for guest sessions.
write_excerpt() {
  python3 - "$1" "$2" <<'PY'
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
}

# write_excerpt_48k_stereo OUT_DIR: OUT_DIR/excerpt.wav (16 kHz mono, from write_excerpt) as
# OUT_DIR/excerpt48.wav, 48 kHz stereo 16-bit, what most USB microphones deliver: each sample
# becomes three by linear interpolation, the same on both channels.
write_excerpt_48k_stereo() {
  python3 - "$1" <<'PY'
import array, sys, wave
out = sys.argv[1]
with wave.open(f"{out}/excerpt.wav", "rb") as w:
    if (w.getnchannels(), w.getsampwidth(), w.getframerate()) != (1, 2, 16000):
        sys.exit(f"excerpt.wav is {w.getparams()}, not 16 kHz mono 16-bit")
    mono = array.array("h", w.readframes(w.getnframes()))
stereo = array.array("h")
for i, a in enumerate(mono):
    b = mono[i + 1] if i + 1 < len(mono) else a
    for k in range(3):
        v = (a * (3 - k) + b * k) // 3
        stereo.extend((v, v))
with wave.open(f"{out}/excerpt48.wav", "wb") as o:
    o.setnchannels(2); o.setsampwidth(2); o.setframerate(48000)
    o.writeframes(stereo.tobytes())
PY
}

# boot_and_report NAME WORK SUMMARY_TAG TIMINGS: boots WORK/NAME.cpio, prints the guest's CHECK,
# OBSERVE and SUMMARY_TAG lines and the timings (completed with boot+test and total from $t_start),
# keeps the log as $cache/logs/NAME-last.log, removes WORK on success, and exits with the guest's status.
boot_and_report() {
  local name=$1 work=$2 tag=$3 timings=$4 rc t_booted
  set +e
  "$vm_dir/run.sh" -i "$work/$name.cpio" -t "${SOUNDTRACE_VM_TIMEOUT:-600}" -l "$work/$name.log" -q
  rc=$?
  set -e
  t_booted=$(date +%s)
  grep -aE "^(CHECK|OBSERVE|$tag)" "$work/$name.log" >&2 || true
  say "timings: $timings, boot+test $((t_booted - t_initrd)) s, total $((t_booted - t_start)) s"
  cp "$work/$name.log" "$cache/logs/$name-last.log" 2>/dev/null || true
  if [ "$rc" = 0 ]; then
    rm -rf "$work"
    say "$name: PASS (log $cache/logs/$name-last.log)"
  else
    say "$name: FAIL (status $rc; log $work/$name.log, initramfs and payload kept in $work)"
  fi
  exit "$rc"
}
