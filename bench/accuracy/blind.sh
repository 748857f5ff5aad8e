#!/usr/bin/env bash
# The blind set: run.sh with --set blind, for a final report only.
#
#   bench/accuracy/blind.sh [--soundtrace PATH] [--work DIR] [--quick] [--build] [accuracy.py options]
#
# The blind packages (see SOURCES in accuracy.py) are not looked at while the engine is tuned, so
# that this report shows whether the tuning carries over to music nobody tuned on. Run it when a
# change is finished, not to guide one. The report goes to stdout and to DIR/report-blind.md
# (also DIR/report-blind-{full,quick}.md); results to DIR/results-blind-{full,quick}.jsonl.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/soundtrace-bench
prev=""
for arg in "$@"; do
  case "$arg" in
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    --set|--set=*) echo "blind.sh always runs the blind set; use run.sh for another" >&2; exit 2 ;;
    --work=*) work=${arg#--work=} ;;
  esac
  [ "$prev" = "--work" ] && work=$arg
  prev=$arg
done

exec "$here/run.sh" --set blind --report-file "$work/report-blind.md" "$@"
