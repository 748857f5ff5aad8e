#!/usr/bin/env bash
# Prints the path of .build/release/soundtraced, building it first when it is missing or older than
# a source, with the flags `make test` uses (-enable-testing), so that the benchmarks that drive the
# real daemon and the tests share one build. Build output goes to stderr.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
export PATH=/opt/swift/usr/bin:$PATH
binary=$repo/.build/release/soundtraced
if [[ ! -x $binary ]] || [[ -n $(find "$repo/Sources" "$repo/Package.swift" -newer "$binary" -print -quit) ]]; then
    (cd "$repo" && swift build -c release -Xswiftc -enable-testing --product soundtraced >&2)
fi
echo "$binary"
