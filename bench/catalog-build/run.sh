#!/bin/bash
# Catalog build speed: wall time (median of 3) and peak RSS of `soundtrace catalog build --full`
# with --jobs 1 and 2, on the sample catalog and on the Battle for Wesnoth music (Debian's
# wesnoth-1.16-music, GPL-2.0-or-later) converted with sox to 16 kHz mono and 44.1 kHz stereo WAV.
# Prints the figures for docs/BENCHMARKS.md ("Catalog builds"). Needs sox and a release build.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(swift build -c release --show-bin-path)/soundtrace
music=/usr/share/games/wesnoth/1.16/data/core/music
work=${WORK:-/tmp/soundtrace-catalog-build-bench}
mkdir -p "$work"

# The music as WAV, once; pieces under 7 s are left out (a catalog recording needs 6 s).
for set in w16:"-r 16000 -c 1" w44:"-r 44100 -c 2"; do
    name=${set%%:*}
    mkdir -p "$work/$name/audio"
    [ -f "$work/$name/manifest.json" ] && continue
    for f in "$music"/*.ogg; do
        sox "$f" ${set#*:} -b 16 "$work/$name/audio/$(basename "$f" .ogg | tr _ -).wav"
    done
    python3 - "$work/$name" <<'PY'
import json, os, subprocess, sys
folder = sys.argv[1]
refs = []
for f in sorted(os.listdir(folder + "/audio")):
    if float(subprocess.check_output(["soxi", "-D", folder + "/audio/" + f])) < 7:
        continue
    refs.append({"id": f[:-4], "title": f[:-4], "creator": "Battle for Wesnoth", "license": "GPL-2.0-or-later",
                 "sourceFile": "audio/" + f})
json.dump({"version": 1, "references": refs}, open(folder + "/manifest.json", "w"), indent=1)
PY
done

for set in sample w16 w44; do
    manifest=$work/$set/manifest.json
    [ "$set" = sample ] && manifest=catalog/manifest.json
    for jobs in 1 2; do
        runs=()
        for _ in 1 2 3; do
            /usr/bin/time -f "%e %M" -o "$work/time" "$bin" catalog build --full --jobs "$jobs" \
                --manifest "$manifest" --out "$work/$set-$jobs.catalog" > "$work/out"
            runs+=("$(cat "$work/time")")
        done
        seconds=$(sed -n 's/.*, \([0-9.]*\) s of audio.*/\1/p' "$work/out")
        printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p | while read -r wall rss; do
            echo "$set --jobs $jobs: $seconds s of audio, median ${wall} s ($(python3 -c "print(round($seconds / $wall))")× real time), peak RSS $((rss / 1024)) MiB; runs: ${runs[*]}"
        done
    done
    cmp "$work/$set-1.catalog" "$work/$set-2.catalog" && echo "$set: --jobs 1 and 2 give the same bytes"
done
uptime
