#!/usr/bin/env bash
# Seconds of audio a live session hears before it decides, for the accuracy benchmark's 10 s
# speaker→room→mic clips and its 10 s clips at 0 dB pink noise. Each clip is converted to raw
# 8 kHz S16_LE and played through ALSA's `file` plugin into `soundtrace match --device`, which is
# exact and not paced in real time: "heard" is counted in captured audio, as the session does.
# Needs the accuracy benchmark's work dir (bench/accuracy/run.sh creates it).
#
#   bench/sessions/run.sh [--soundtrace PATH] [--work DIR] [--half evaluation|calibration]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
binary="$repo/.build/release/soundtrace"
work=/tmp/soundtrace-bench
half=evaluation
while [ $# -gt 0 ]; do
  case "$1" in
    --soundtrace) binary=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --half) half=$2; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -f "$work/results-full.jsonl" ] || { echo "run bench/accuracy/run.sh first (no $work/results-full.jsonl)" >&2; exit 1; }
python3 "$here/sessions.py" "$binary" "$work" "$half"
