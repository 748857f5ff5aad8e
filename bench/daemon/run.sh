#!/usr/bin/env bash
# soundtraced's resources — memory idle and while listening, wakeups while idle, start→ready,
# listen→capture — for the dynamically linked release build and the deployed one
# (scripts/swift-build-static.sh: the Swift standard library and libstdc++ linked in; built in its
# own scratch path so .build is not clobbered; as packaged, the one `soundtrace` binary started
# through a link named soundtraced), plus do-nothing
# baseline programs. Prints Markdown tables (docs/BENCHMARKS.md records them). Takes ~5 minutes
# (two 60 s idle windows); --quick shortens the idle windows to 5 s and the repetitions, for trying.
#
#   bench/daemon/run.sh [--quick] [--no-build] [--runs N] [--sessions N] [--idle-seconds S]
#                       [--big-catalog PATH] [--json FILE] [--nice N]
#
# Needs: strace, sox, pulseaudio, pulseaudio-utils, libasound2-plugins, coreutils (stdbuf); run as
# root (it resets VmHWM through /proc/PID/clear_refs). Simulated microphones: ALSA's file plugin
# and a private PulseAudio null sink read through ALSA's pulse plugin.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export PATH=/opt/swift/usr/bin:$PATH
# SOUNDTRACE_BENCH_STATIC_SCRATCH: another scratch path for the deployed build (e.g. a second checkout).
static_scratch=${SOUNDTRACE_BENCH_STATIC_SCRATCH:-/tmp/st-static-build}
base_dir=$static_scratch/bench-baselines
build=1
extra=()
idle=60 runs=30 sessions=30
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) idle=5 runs=5 sessions=6; shift ;;
    --no-build) build=0; shift ;;
    --runs) runs=$2; shift 2 ;;
    --sessions) sessions=$2; shift 2 ;;
    --idle-seconds) idle=$2; shift 2 ;;
    --big-catalog) extra+=(--big-catalog "$2"); shift 2 ;;
    --json) extra+=(--json "$2"); shift 2 ;;
    --nice) extra+=(--nice "$2"); shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

missing=()
for program in strace sox pulseaudio paplay pactl stdbuf; do command -v "$program" >/dev/null || missing+=("$program"); done
[ -e /usr/lib/x86_64-linux-gnu/alsa-lib/libasound_module_pcm_pulse.so ] || [ -n "$(ls /usr/lib/*/alsa-lib/libasound_module_pcm_pulse.so 2>/dev/null)" ] || missing+=("libasound2-plugins")
if [ ${#missing[@]} -gt 0 ]; then
  echo "missing: ${missing[*]}; apt-get install strace sox pulseaudio pulseaudio-utils libasound2-plugins" >&2
  exit 1
fi

cd "$repo"
if [ "$build" = 1 ]; then
  echo "building soundtraced (dynamic, then the deployed build in $static_scratch)…" >&2
  swift build -c release --product soundtraced >&2
  "$repo/scripts/swift-build-static.sh" --product soundtrace --scratch-path "$static_scratch" >&2
fi
# The package's layout: /usr/bin/soundtraced is a link to the one binary (deploy/install.sh).
mkdir -p "$static_scratch/packaged"
ln -sfn ../release/soundtrace "$static_scratch/packaged/soundtraced"
for binary in "$static_scratch/packaged/soundtraced" .build/release/soundtraced; do
  [ -x "$binary" ] || { echo "no $binary: run without --no-build" >&2; exit 1; }
done
# Do-nothing baselines (seconds to build), the static ones linked like the deployed build.
mapfile -t deployed_flags < <("$repo/scripts/swift-build-static.sh" --swiftc-flags --scratch-path "$static_scratch")
mkdir -p "$base_dir"
for linking in static dynamic; do
  flags=(); [ "$linking" = static ] && flags=("${deployed_flags[@]}")
  if [ "$build" = 1 ] || [ ! -x "$base_dir/glibc-$linking" ]; then
    swiftc -O "${flags[@]}" "$here/baseline.swift" -o "$base_dir/glibc-$linking"
    swiftc -O "${flags[@]}" -DWITH_C_LIBRARIES "$here/baseline.swift" -o "$base_dir/glibc-sqlite-alsa-$linking" -lsqlite3 -lasound
  fi
done

python3 "$here/daemon.py" --repo "$repo" \
  --binary "static=$static_scratch/packaged/soundtraced" \
  --binary "dynamic=$repo/.build/release/soundtraced" \
  --baseline "Swift, Glibc only, linked like the deployed build=$base_dir/glibc-static" \
  --baseline "Swift, Glibc + SQLite + ALSA, linked like the deployed build=$base_dir/glibc-sqlite-alsa-static" \
  --baseline "Swift, Glibc only, dynamic=$base_dir/glibc-dynamic" \
  --baseline "Swift, Glibc + SQLite + ALSA, dynamic=$base_dir/glibc-sqlite-alsa-dynamic" \
  --idle-seconds "$idle" --runs "$runs" --sessions "$sessions" "${extra[@]}"
