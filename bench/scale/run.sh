#!/usr/bin/env bash
# Catalog scale benchmark: nested catalogs of 1, 10 and 100 hours of music, built and measured
# side by side (build speed, bytes per audio second, daemon start and memory, query cost and
# time, accuracy with the same queries against every size). See bench/scale/README.md.
#
#   bench/scale/run.sh [--work DIR] [--sizes 1,10,100] [--soundtrace PATH] [--prepare-only]
#                      [--jobs N] [--rebuild] [--runs N]
#
#   --work DIR         where the music, catalogs and queries are cached (default $WORK, else
#                      /var/cache/soundtrace-scale); never inside the repository. About 6 GB at 100 h.
#   --sizes LIST       catalog sizes in hours (default 1,10,100); each catalog holds the smaller ones
#   --soundtrace PATH  binary under test (default: .build/release/soundtrace of this repository)
#   --prepare-only     only convert and render the music the largest size needs (resumable), then stop
#   --jobs N           conversions, renderings and match processes at once (default 2)
#   --rebuild          build the catalogs even when the binary and manifests are unchanged
#   --runs N           daemon starts per catalog for start→ready and memory (default 3)
#
# Everything runs at nice 10 (this machine's 2 cores are shared). The Markdown report goes to
# stdout and DIR/report.md, progress to stderr. Needs root or sudo to install missing packages.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# Reserved for independent evaluation: this benchmark never installs or reads them.
forbidden=(warzone2100-music asc-music)
# The music packages (bench/scale/scale.py SOURCES says where each one's music lies) and the tools.
music=(wesnoth-1.16-music hyperrogue-music supertux-data freedroidrpg-data fillets-ng-data
       singularity-music planetblupi-music-ogg drascula-music lincity-ng-data xmoto-data nexuiz-music
       ufoai-music megaglest-data flare-game hedgewars-data widelands-data)
tools=(sox libsox-fmt-all fluidsynth fluid-soundfont-gm valgrind binutils time)

pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --work|--sizes|--soundtrace|--jobs|--runs) [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
      pass+=("$1" "$2"); shift 2 ;;
    --prepare-only|--rebuild) pass+=("$1"); shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done

for p in "${music[@]}"; do
  for f in "${forbidden[@]}"; do
    [ "$p" != "$f" ] || { echo "refusing $p: it is reserved for independent evaluation" >&2; exit 2; }
  done
done

missing=()
for p in "${music[@]}" "${tools[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[run.sh] installing ${missing[*]}" >&2
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  install=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y
           --no-install-recommends "${missing[@]}")
  if ! "${install[@]}" >&2; then
    "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update >&2
    "${install[@]}" >&2
  fi
fi

renice -n 10 -p $$ >/dev/null
exec python3 "$here/scale.py" "${pass[@]}"
