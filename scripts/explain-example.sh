#!/usr/bin/env bash
# Renders docs/explain-example.svg: `soundtrace explain` on 6 s of a bundled recording with quiet
# pink noise mixed in, against the bundled catalog. Deterministic (sox's noise is seeded), so running
# it again gives the same file. Needs sox and a built soundtrace (swift build -c release).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${SOUNDTRACE:-$repo/.build/release/soundtrace}
[ -x "$bin" ] || { echo "no $bin: run swift build -c release first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sox -V1 -D "$repo/catalog/audio/harbor-lights-piano.wav" -r 16000 -c 1 "$work/clip.wav" trim 30 6
sox -V1 -D -R -r 16000 -c 1 -n "$work/noise.wav" synth 6 pinknoise vol 0.05
sox -V1 -D -m "$work/clip.wav" "$work/noise.wav" "$work/harbor-lights-in-noise.wav"
"$bin" explain --catalog "$repo/catalog/soundtrace.catalog" "$work/harbor-lights-in-noise.wav" --svg "$repo/docs/explain-example.svg"
