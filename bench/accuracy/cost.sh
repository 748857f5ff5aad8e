#!/usr/bin/env bash
# Extraction cost in instructions per audio second, counted by callgrind.
#
#   bench/accuracy/cost.sh [--soundtrace PATH] [--work DIR] [--catalog C.catalog [--track WAV]]
#
# Runs `soundtrace match --catalog C --json` once on a 10 s and once on a 20 s query under
# `valgrind --tool=callgrind` and reports (instr(20 s) - instr(10 s)) / 10: process start-up
# and catalog loading are the same in both runs and cancel, leaving the per-audio-second cost of
# decoding, fingerprinting and lookup. Instruction counts, unlike wall time, do not depend on
# what else the machine is doing, so the number is comparable between runs and machines.
#
# Valgrind cannot read the DWARF that the Swift compiler emits, so the binary under test is a
# copy stripped with `strip --strip-debug` (code and symbols unchanged, only debug info gone).
#
# Without --catalog, the benchmark's own tuning-set catalog is used (prepared by accuracy.py if
# needed): the full one when DIR/catalog-tuning-full.catalog exists, otherwise the quick one.
# The query is cut from the first track of that preparation, or from --track (a WAV of at least
# 30 s, e.g. a recording of the catalog; then nothing is prepared: bench/scale runs the same
# query against catalogs of 1, 10 and 100 hours this way).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
binary="$repo/.build/release/soundtrace"
work=/tmp/soundtrace-bench
catalog=""
track=""
while [ $# -gt 0 ]; do
  case "$1" in
    --soundtrace) binary=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --catalog) catalog=$2; shift 2 ;;
    --track) track=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -x "$binary" ] || { echo "no soundtrace binary at $binary (swift build -c release, or --soundtrace)" >&2; exit 1; }
binary=$(realpath "$binary")

# valgrind and strip (binutils) are not part of the accuracy run's needs; install when missing.
need=()
command -v valgrind >/dev/null || need+=(valgrind)
command -v strip >/dev/null || need+=(binutils)
if [ ${#need[@]} -gt 0 ]; then
  apt-get -o DPkg::Lock::Timeout=600 install -y "${need[@]}" >&2 \
    || { apt-get -o DPkg::Lock::Timeout=600 update >&2; apt-get -o DPkg::Lock::Timeout=600 install -y "${need[@]}" >&2; }
fi

# Tracks (and, without --catalog, the catalog) come from the accuracy benchmark's preparation,
# which is cached and rebuilds the catalog only when the binary or the manifest changed.
if [ -n "$track" ]; then
  [ -n "$catalog" ] || { echo "--track needs --catalog" >&2; exit 2; }
  [ -f "$track" ] || { echo "no track at $track" >&2; exit 1; }
else
  mode=(--quick)
  [ -f "$work/catalog-tuning-full.catalog" ] && mode=()
  prepare=(--prepare-only)
  [ -n "$catalog" ] && prepare=(--tracks-only)
  prepared=$("$here/run.sh" --set tuning --soundtrace "$binary" --work "$work" "${mode[@]}" "${prepare[@]}")
  [ -n "$catalog" ] || catalog=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["catalog"])' "$prepared")
  track=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["tracks"][0])' "$prepared")
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The stripped copy. SwiftPM resource bundles sit next to the executable, so link them along.
cp "$binary" "$tmp/soundtrace"
strip --strip-debug "$tmp/soundtrace"
for res in "$(dirname "$binary")"/*.resources; do
  [ -e "$res" ] && ln -s "$res" "$tmp/"
done

# Both queries start at the same place in the same catalog track, in the benchmark's query
# format (16 kHz mono 16-bit), so the longer one is the shorter one plus 10 s more audio.
for len in 10 20; do
  sox -V1 -D -R "$track" -b 16 "$tmp/q$len.wav" trim 10 "$len" channels 1 rate 16000
done

count() {  # instructions of one match run under callgrind
  local len=$1 out="$tmp/callgrind.$1"
  valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$tmp/soundtrace" match --catalog "$catalog" --json "$tmp/q$len.wav" >"$tmp/match.$len" 2>"$tmp/valgrind.$len" \
    || { echo "match under valgrind failed ($len s):" >&2; tail -20 "$tmp/valgrind.$len" >&2; exit 1; }
  # Older callgrind writes "summary:", newer ones "totals:"; either carries the Ir total.
  awk '/^(totals|summary):/ {print $2; exit}' "$out"
}

echo "[cost.sh] callgrind on $binary (stripped copy), catalog $catalog" >&2
i10=$(count 10)
i20=$(count 20)
per_second=$(( (i20 - i10) / 10 ))
fixed=$(( i10 - 10 * per_second ))

echo "## Extraction cost (callgrind)"
echo
echo "- binary: \`$binary\` (sha256 $(sha256sum "$binary" | cut -c1-12)), catalog \`$catalog\` ($(stat -c %s "$catalog") bytes)"
echo "- query source: \`$(basename "$track")\` from 10 s, 16 kHz mono"
echo "- instructions: 10 s query $(printf "%'d" "$i10"), 20 s query $(printf "%'d" "$i20")"
echo "- **$(printf "%'d" "$per_second") instructions per audio second** = (instr(20 s) − instr(10 s)) / 10"
echo "- start-up + catalog loading (instr(10 s) − 10 × per-second cost): $(printf "%'d" "$fixed") instructions"
echo "- 10 s result: $(head -n 1 "$tmp/match.10")"
echo "- 20 s result: $(head -n 1 "$tmp/match.20")"
