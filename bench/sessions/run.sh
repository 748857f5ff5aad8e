#!/usr/bin/env bash
# Live sessions on the accuracy benchmark's clips: seconds of audio a session hears before it
# decides (its 10 s clips through the speaker→room→mic chain, at 0 dB pink noise, and with people
# talking over them), and whether any negative clip (every one of the set: hard negatives, also
# talked over, noise, silence, speech) is matched when run as a session. Each clip is converted
# to raw 8 kHz S16_LE and played through ALSA's `file` plugin into `soundtrace match --device`,
# which is exact and not paced in real time: "heard" is counted in captured audio, as the session
# does. Needs the accuracy benchmark's work dir for the set (bench/accuracy/run.sh --set SET, or
# blind.sh, creates it).
#
#   bench/sessions/run.sh [--soundtrace PATH] [--work DIR] [--set tuning|dev|dev2|dev3|dev4|dev5|blind] [--no-negatives]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
binary="$repo/.build/release/soundtrace"
work=/tmp/soundtrace-bench
set_name=tuning
negatives=1
while [ $# -gt 0 ]; do
  case "$1" in
    --soundtrace) binary=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --set) set_name=$2; shift 2 ;;
    --no-negatives) negatives=0; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$set_name" in tuning|dev|dev2|dev3|dev4|dev5|blind) ;; *) echo "--set is tuning, dev, dev2, dev3, dev4, dev5 or blind, not '$set_name'" >&2; exit 2 ;; esac
results="$work/results-$set_name-full.jsonl"
[ -f "$results" ] || { echo "run bench/accuracy/run.sh --set $set_name first (no $results)" >&2; exit 1; }
python3 "$here/sessions.py" "$binary" "$work" "$set_name" "$negatives"
