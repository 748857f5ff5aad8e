#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser of untrusted bytes (docs/RELIABILITY.md, "Fuzzing"):
# builds the libFuzzer harnesses of bench/fuzz/harness with AddressSanitizer, runs each for
# SECONDS (default 600), and reports per harness executions per second, coverage, corpus size,
# crashes and sanitizer reports. Exits non-zero if a harness fails to build, crashes, hangs,
# runs out of memory or draws an ASan or leak report.
#
# The corpora in bench/fuzz/corpus are read-only seeds: what the fuzzer adds goes to DIR/corpus,
# which later runs start from; artifacts (crash-*, leak-*, timeout-*, oom-*) and logs go to
# DIR/artifacts (kept across runs) and DIR/logs; slow-unit-* files are listed but are not failures.
# `make test` runs `bench/fuzz/run.sh --jobs 2 20`.
#
#   bench/fuzz/run.sh [--dir DIR] [--jobs N] [--only HARNESS[,HARNESS…]] [SECONDS]
#     --dir   scratch folder outside the repository (default /tmp/soundtrace-fuzz/CHECKOUT, where
#             CHECKOUT is a checksum of this checkout's path: checkouts must not share objects)
#     --jobs  harnesses fuzzed at once (default 1; one core each)
#     --only  these harnesses (default: every file in bench/fuzz/harness)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=/tmp/soundtrace-fuzz/$(printf '%s' "$here" | cksum | cut -d ' ' -f 1)
jobs=1
only=""
seconds=600
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    [0-9]*) seconds=$1; shift ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -n "$only" ]; then
  harnesses=(${only//,/ })
else
  harnesses=($(cd "$here/harness" && ls *.swift | sed 's/\.swift$//'))
fi
mkdir -p "$dir/logs"
# One run at a time per folder (two would share objects, logs and corpora).
exec 9>"$dir/lock"
flock -n 9 || { echo "fuzz: waiting for another run in $dir" >&2; flock 9; }
failed=0

started=$(date +%s)
# Artifacts of earlier runs stay (a crash must not vanish with the next run); this run's are newer.
touch "$dir/logs/.started"
"$here/build.sh" "$dir/build" "${harnesses[@]}" || failed=1
built=$(date +%s)

# One harness: its own corpus first (libFuzzer writes new inputs to the first folder), the
# repository's seeds second. A Swift runtime trap is left to libFuzzer's signal handler (the
# Swift backtracer would run its own crash handler under ASan); leaks are checked at exit.
fuzz() {
  local harness=$1
  local corpora=("$dir/corpus/$harness")
  # A harness without seeds yet starts from nothing (libFuzzer refuses a missing folder).
  [ -d "$here/corpus/$harness" ] && corpora+=("$here/corpus/$harness")
  mkdir -p "$dir/corpus/$harness" "$dir/artifacts/$harness"
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 \
    "$dir/build/fuzz-$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$dir/artifacts/$harness/" "${corpora[@]}" > "$dir/logs/$harness.log" 2>&1
}

running=0
for harness in "${harnesses[@]}"; do
  [ -x "$dir/build/fuzz-$harness" ] || continue
  echo "fuzz: $harness for $seconds s"
  fuzz "$harness" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true

printf '\n%-9s %9s %7s %7s %13s %7s %8s %s\n' harness "exec/s" cov ft corpus "rss MB" crashes "ASan/leak reports"
for harness in "${harnesses[@]}"; do
  log="$dir/logs/$harness.log"
  if [ ! -x "$dir/build/fuzz-$harness" ] || [ ! -f "$log" ]; then
    printf '%-9s build failed\n' "$harness"; failed=1; continue
  fi
  # The last status line: "#N DONE cov: C ft: F corp: U/S lim: L exec/s: E rss: R".
  status=$(grep -aE '^#[0-9]+' "$log" | tail -n 1 || true)
  field() { sed -nE "s|.* $1: ([^ ]+).*|\\1|p" <<<"$status"; }
  # libFuzzer's final stats when it printed them, else its last status line's figures.
  rate=$(LC_ALL=C sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log" | tail -n 1)
  rss=$(LC_ALL=C sed -nE 's/^stat::peak_rss_mb: *([0-9]+)/\1/p' "$log" | tail -n 1)
  rate=${rate:-$(field exec/s)}
  rss=${rss:-$(field rss | tr -d Mb)}
  # A slow-unit-* file only says one input once took longer than libFuzzer's report bar; on a shared
  # 2-core machine a stall of the machine does that to inputs that run in a tenth of a second. A real
  # hang still fails: it leaves a timeout-* (-timeout=10). Slow units are listed, not counted.
  artifacts=$(find "$dir/artifacts/$harness" -type f -newer "$dir/logs/.started" ! -name 'slow-unit-*' | wc -l)
  slow=$(find "$dir/artifacts/$harness" -type f -newer "$dir/logs/.started" -name 'slow-unit-*' | wc -l)
  [ "$slow" -eq 0 ] || echo "  $harness: $slow slow unit(s) (not a failure): $dir/artifacts/$harness/slow-unit-*" >&2
  reports=$(grep -acE 'ERROR: (AddressSanitizer|LeakSanitizer)' "$log" || true)
  printf '%-9s %9s %7s %7s %13s %7s %8s %s\n' "$harness" "${rate:-?}" "$(field cov)" "$(field ft)" "$(field corp)" \
    "${rss:-?}" "$artifacts" "$reports"
  if [ "$artifacts" -gt 0 ] || [ "$reports" -gt 0 ] || ! grep -aqE '^#[0-9]+[[:space:]]+DONE' "$log"; then
    failed=1
    echo "  $harness: see $log and $dir/artifacts/$harness" >&2
    grep -a -m 3 -E 'Fatal error|ERROR:|SUMMARY:' "$log" | sed 's/^/    /' >&2 || true
  fi
done
echo "build $((built - started)) s, fuzzing $(( $(date +%s) - built )) s; corpora in $dir/corpus"
exit $failed
