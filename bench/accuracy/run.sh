#!/usr/bin/env bash
# Accuracy benchmark entry point.
#
#   bench/accuracy/run.sh [--set tuning|dev|dev2|dev3|dev4|dev5|blind|both] [--soundtrace PATH] [--work DIR] [--quick] [--build]
#                         [accuracy.py options]
#
#   --set SET          tuning (default), dev, dev2, dev3, dev4, dev5, blind (only for final reports; see blind.sh) or both
#                      (tuning and blind)
#   --soundtrace PATH  binary under test (default: .build/release/soundtrace of this repo)
#   --work DIR         where audio, catalogs and results go (default /tmp/soundtrace-bench);
#                      generated files are cached there, so reruns only pay for matching
#   --quick            smoke run: fewer tracks and offsets (a few minutes)
#   --build            run `swift build -c release` first
#
# The Markdown report goes to stdout (and to DIR/report-SET-{full,quick}.md); progress to stderr.
# Nothing is written inside the repository, and no audio is ever committed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

build=0
pass=()
for arg in "$@"; do
  case "$arg" in
    --build) build=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exec python3 "$here/accuracy.py" --help ;;
    *) pass+=("$arg") ;;
  esac
done

# The music comes from Debian packages (nobody on the project wrote it): every set's packages are
# needed whatever --set says, because duplicates are looked for across all of them. sox does the
# signal work, espeak-ng speaks the speech negatives, and fluidsynth with its General MIDI
# soundfont renders the derivative pieces (catalog/render.sh --derivatives). Install only what is
# missing.
packages=(wesnoth-1.16-music hyperrogue-music supertux-data freedroidrpg-data fillets-ng-data
          ufoai-music megaglest-data flare-game hedgewars-data widelands-data 0ad-data supertuxkart-data
          warmux-data extremetuxracer-data unknown-horizons redeclipse-data
          singularity-music planetblupi-music-ogg drascula-music lincity-ng-data xmoto-data nexuiz-music
          sox libsox-fmt-all espeak-ng fluidsynth fluid-soundfont-gm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[run.sh] installing ${missing[*]}" >&2
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  install=("${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y "${missing[@]}")
  # A fresh machine may have no package lists yet; update once and retry only then.
  if ! "${install[@]}" >&2; then
    "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update >&2
    "${install[@]}" >&2
  fi
fi

if [ "$build" -eq 1 ]; then
  (cd "$repo" && swift build -c release >&2)
fi

exec python3 "$here/accuracy.py" "${pass[@]}"
