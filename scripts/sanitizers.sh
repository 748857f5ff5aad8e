#!/usr/bin/env bash
# The unit and acceptance tests under one sanitizer (docs/RELIABILITY.md, "Sanitizers"):
#
#   scripts/sanitizers.sh thread|address [more `swift test` arguments, e.g. --filter Appliance]
#
# Builds everything (the test bundle and the `soundtrace`, `soundtraced` and
# `soundtrace-store-writer` binaries the acceptance tests start: they come from the same build,
# see Tests/SoundtraceTestSupport/BuiltProducts.swift) with `--sanitize=thread` or
# `--sanitize=address`, in release mode like `make test` (the DSP is too slow unoptimized), in its
# own scratch folder (.build/sanitize-thread or .build/sanitize-address; SANITIZER_SCRATCH
# overrides it) so it never mixes with the ordinary build, then runs `swift test`.
#
# Every sanitized process of the run — the test runner and each child binary — writes its reports
# to one folder (the runtimes' log_path option, which ChildProcess passes on to children started
# with a minimal environment). The run fails when the tests fail or when that folder holds any
# report; the reports are printed at the end. The folder is kept (its path is printed) when it
# holds reports, removed otherwise.
#
# Reports that are not bugs of ours (and cannot be avoided in our code) are suppressed in
# bench/sanitizers/*.supp, each entry with its reason.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
export PATH=/opt/swift/usr/bin:$PATH
die() { echo "sanitizers.sh: error: $*" >&2; exit 2; }

kind=${1:-}
case "$kind" in
  thread|address) shift ;;
  *) die "usage: scripts/sanitizers.sh thread|address [swift test arguments]" ;;
esac
command -v swift >/dev/null || die "swift is not on PATH (the toolchain is expected at /opt/swift)"

"$repo/scripts/setup.sh"

scratch=${SANITIZER_SCRATCH:-$repo/.build/sanitize-$kind}
reports=$(mktemp -d "${TMPDIR:-/tmp}/soundtrace-$kind-sanitizer.XXXXXX")
# Children run as `nobody` in some tests (setpriv): they must be able to write their reports too.
chmod 1777 "$reports"

# Suppression files, one per runtime, used when present (bench/sanitizers/tsan.supp, asan.supp,
# lsan.supp); every entry there says why it is not a bug of ours.
supp() { [ -f "$repo/bench/sanitizers/$1.supp" ] && echo " suppressions=$repo/bench/sanitizers/$1.supp" || true; }
case "$kind" in
  thread)
    # Every race is reported, not only the first (halt_on_error=0), and the run still fails.
    export TSAN_OPTIONS="log_path=$reports/report halt_on_error=0 second_deadlock_stack=1$(supp tsan)${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
    ;;
  address)
    # Leak checking stays on (the default on Linux): the daemon runs for months. A process stops
    # at its first memory error (the default), so a failing test points at the first one.
    export ASAN_OPTIONS="log_path=$reports/report detect_leaks=1 detect_stack_use_after_return=1$(supp asan)${ASAN_OPTIONS:+ $ASAN_OPTIONS}"
    export LSAN_OPTIONS="${LSAN_OPTIONS:-}$(supp lsan)"
    ;;
esac

# The tests are all swift-testing. `swift test` would also start the bundle once for XCTest, which
# finds no test case and leaks its own bookkeeping at exit (LeakSanitizer: XCTest's suite objects,
# nothing of ours), so that pass is left out. Should XCTest cases ever appear, stop rather than
# skip them silently.
if grep -rlq --include='*.swift' '^import XCTest' "$repo/Tests"; then
  die "Tests/ now imports XCTest: remove --disable-xctest below and deal with XCTest's own leaks"
fi
flags=(-c release -Xswiftc -enable-testing --sanitize="$kind" --disable-xctest)
# gold, the default linker, warns "Cannot export local symbol '__asan_extra_spill_area'" when it
# links an AddressSanitizer build with exported symbols (the test bundle, the executables); the
# toolchain's lld links the same without a warning.
if [ "$kind" = address ]; then flags+=(-Xswiftc -use-ld=lld); fi

started=$(date +%s)
echo "sanitizers.sh: building and testing under --sanitize=$kind in $scratch; reports go to $reports" >&2
status=0
swift test --package-path "$repo" --scratch-path "$scratch" "${flags[@]}" "$@" || status=$?
elapsed=$(( $(date +%s) - started ))

# A runtime also writes a file when it only used suppressions (their counts, at exit): such a
# file is listed, not counted; any file with an error or a warning in it is a report.
shopt -s nullglob
reported=()
for file in "$reports"/report*; do
  if grep -q -E '^(==[0-9]+==)?(ERROR|WARNING): ' "$file"; then
    reported+=("$file")
  else
    echo "sanitizers.sh: suppressions used in process ${file##*.}:" >&2
    grep -E '^ +[0-9]+ +[0-9]+ ' "$file" >&2 || cat "$file" >&2
    rm "$file"
  fi
done
if [ ${#reported[@]} -gt 0 ]; then
  for report in "${reported[@]}"; do
    echo "==== $report" >&2
    cat "$report" >&2
  done
  echo "sanitizers.sh: ${#reported[@]} process(es) reported under --sanitize=$kind (kept in $reports)" >&2
  [ "$status" -ne 0 ] || status=1
else
  rmdir "$reports"
fi
echo "sanitizers.sh: --sanitize=$kind: tests exited $status, ${#reported[@]} process(es) with reports, $((elapsed / 60)) min $((elapsed % 60)) s" >&2
exit "$status"
