#!/usr/bin/env bash
# Render the Soundtrace sample reference catalog to WAV, reproducibly.
#
#   catalog/compose.py  writes the original compositions as MIDI files
#   fluidsynth          renders them with the FluidR3_GM soundfont (MIT)
#   sox                 mixes to mono, resamples to 16 kHz, trims the trailing
#                       silence, normalises to -1 dBFS and writes 16-bit PCM
#                       with dither disabled (-D), so the result is bit-exact
#
# Outputs (overwritten on every run; the same bytes every time):
#   catalog/audio/<id>.wav       the catalog references (see manifest.json)
#   catalog/outside/<name>.wav   two pieces that are NOT in the catalog
#
#   catalog/render.sh --derivatives OUTDIR
# renders instead only the derivative pieces (compose.py --derivatives: each
# keeps one layer of a catalog piece verbatim and replaces the rest; NOT in
# the catalog) to OUTDIR/<id>--keep-<part>[--take<k>].wav, with the same settings as the
# catalog, so the kept layer is the same sound.  OUTDIR must lie outside the
# repository; catalog/audio and catalog/outside are not touched.
#   catalog/render.sh --kept-most OUTDIR
# does the same for the probe pieces that keep most of a mix (compose.py
# --kept-most; bench/accuracy/kept-most.py).
#
# Needs the Debian packages python3, fluidsynth, fluid-soundfont-gm and sox.
# It installs nothing itself.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SF2=/usr/share/sounds/sf2/FluidR3_GM.sf2

usage() {
    echo "usage: catalog/render.sh                         render the catalog into catalog/audio and catalog/outside" >&2
    echo "       catalog/render.sh --derivatives OUTDIR    render only the derivative pieces into OUTDIR" >&2
    echo "       catalog/render.sh --kept-most OUTDIR      render only the kept-most probe pieces into OUTDIR" >&2
    exit 2
}
derivatives=""
kind=""
if [ $# -gt 0 ]; then
    if [ $# -ne 2 ] || { [ "$1" != "--derivatives" ] && [ "$1" != "--kept-most" ]; } || [ -z "$2" ]; then
        usage
    fi
    kind="${1#--}"
    # Resolved without creating anything, so a refused OUTDIR leaves no trace.
    derivatives="$(realpath -m -- "$2")"
    repo="$(realpath -- "$here/..")"
    case "$derivatives/" in
        "$repo"/*)
            echo "render.sh: $2 is inside the repository; render the derivatives elsewhere (e.g. /tmp/derivatives)" >&2
            exit 2 ;;
    esac
fi

need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "render.sh: '$1' is missing: install the Debian package '$2' (apt-get install $2)" >&2
        exit 1
    fi
}
need python3 python3
need fluidsynth fluidsynth
need sox sox
if [ ! -f "$SF2" ]; then
    echo "render.sh: soundfont $SF2 is missing: install the Debian package 'fluid-soundfont-gm' (apt-get install fluid-soundfont-gm)" >&2
    exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Fixed synthesis settings.  Raw 32-bit float output means fluidsynth applies
# no dither and does not clip (gain 0.2 keeps every piece's peak below 1.0, so
# sox does not clip either); one CPU core and sample-based MIDI timing keep the
# rendering fully deterministic.
render_one() {
    local mid="$1" out="$2"
    fluidsynth -n -i -q \
        -a file -F "$tmp/raw.f32" -T raw -O float -E little -r 44100 -g 0.2 \
        -R 1 -C 1 \
        -o synth.cpu-cores=1 \
        -o synth.polyphony=256 \
        -o synth.sample-rate=44100 \
        -o player.timing-source=sample \
        -o player.reset-synth=1 \
        -o synth.lock-memory=0 \
        "$SF2" "$mid" >/dev/null
    # mono mix -> 16 kHz -> peak-normalise to -1 dBFS -> cut the trailing
    # audio below -60 dBFS (the inaudible end of the release and reverb tail)
    # -> 16-bit, no dither.
    sox -D -V2 -t raw -e floating-point -b 32 -L -c 2 -r 44100 "$tmp/raw.f32" \
        -t wav -b 16 -e signed-integer -c 1 -r 16000 "$tmp/out.wav" \
        remix - \
        rate -v 16000 \
        gain -n -1 \
        reverse silence 1 0.02 -60d reverse
    mv -f "$tmp/out.wav" "$out"
    rm -f "$tmp/raw.f32"
}

if [ -n "$derivatives" ]; then
    python3 "$here/compose.py" "--$kind" "$tmp/midi"
    mkdir -p "$derivatives"
    for mid in "$tmp/midi/$kind"/*.mid; do
        name="$(basename "$mid" .mid)"
        render_one "$mid" "$derivatives/$name.wav"
        echo "$derivatives/$name.wav $(soxi -D "$derivatives/$name.wav") s"
    done
    exit 0
fi

python3 "$here/compose.py" "$tmp/midi"
mkdir -p "$here/audio" "$here/outside"
for mid in "$tmp"/midi/catalog/*.mid; do
    id="$(basename "$mid" .mid)"
    render_one "$mid" "$here/audio/$id.wav"
    echo "audio/$id.wav $(soxi -D "$here/audio/$id.wav") s"
done
for mid in "$tmp"/midi/outside/*.mid; do
    name="$(basename "$mid" .mid)"
    render_one "$mid" "$here/outside/$name.wav"
    echo "outside/$name.wav $(soxi -D "$here/outside/$name.wav") s"
done
