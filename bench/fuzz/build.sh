#!/usr/bin/env bash
# Builds the libFuzzer harnesses of bench/fuzz/harness into DIR (default: the build folder of
# run.sh's default scratch folder, /tmp/soundtrace-fuzz/CHECKOUT/build).
# SwiftPM cannot build them: a libFuzzer binary has no main of its own (libFuzzer's main calls
# LLVMFuzzerTestOneInput), so each module the harnesses need is compiled here with swiftc, with
# coverage and AddressSanitizer (-sanitize=fuzzer,address; C code with clang's fuzzer-no-link),
# into one object and a .swiftmodule, then each harness is linked against the modules it imports.
# A module is rebuilt only when a file it is made of is newer than its object.
#
#   bench/fuzz/build.sh [DIR] [HARNESS...]     (default: every harness)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-/tmp/soundtrace-fuzz/$(printf '%s' "$here" | cksum | cut -d ' ' -f 1)/build}
shift $(( $# > 0 ? 1 : 0 ))
command -v swiftc >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
mkdir -p "$out"
[ -f "$repo/Sources/CKissFFT/vendor/kiss_fft.c" ] || "$repo/scripts/fetch-kissfft.sh"
[ -f "$repo/Sources/CMosquittoBuiltin/vendor/SOURCE" ] || "$repo/scripts/fetch-mosquitto.sh"

# -O as in the shipped build (bounds and overflow checks stay on); -enable-testing so harnesses
# reach internal parsers through @testable import; Swift 6 mode, as Package.swift sets.
swift_flags=(-swift-version 6 -O -enable-testing -sanitize=fuzzer,address -parse-as-library -I "$out"
             -I "$out/maps/CKissFFT" -I "$repo/Sources/CALSA" -I "$out/maps/CGPIOD" -I "$repo/Sources/CLibmd"
             -I "$repo/Sources/CJansson" -I "$out/maps/CMosquitto" -I "$repo/Sources/CLibmosquitto"
             -I "$repo/Sources/CLinux" -I "$out/maps/CMappingGuard")

# Whether $1 is missing or older than any of the other files.
stale() {
  local target=$1; shift
  [ -f "$target" ] || return 0
  [ -n "$(find "$@" -newer "$target" -print -quit)" ]
}

# A module map for a C target's header (SwiftPM makes them from the include folder; outside SwiftPM
# each needs one), rewritten only when it changed so that nothing that imports it rebuilds.
module_map() {
  local name=$1 header=$2
  mkdir -p "$out/maps/$name"
  printf 'module %s {\n    header "%s"\n    export *\n}\n' "$name" "$header" > "$out/maps/$name/module.modulemap.new"
  cmp -s "$out/maps/$name/module.modulemap.new" "$out/maps/$name/module.modulemap" 2>/dev/null \
    || mv "$out/maps/$name/module.modulemap.new" "$out/maps/$name/module.modulemap"
  rm -f "$out/maps/$name/module.modulemap.new"
}

module_map CKissFFT "$repo/Sources/CKissFFT/include/CKissFFT.h"
if stale "$out/CKissFFT.o" "$repo/Sources/CKissFFT" "$0"; then
  echo "build: CKissFFT"
  clang -O2 -fsanitize=fuzzer-no-link,address -c "$repo/Sources/CKissFFT/kissfft_fixed.c" -o "$out/CKissFFT.o"
fi

# The SIGBUS guard of mapped catalogs (Sources/CMappingGuard, which SoundtraceFingerprint imports):
# libFuzzer's own SIGBUS handler, installed first, still sees every fault the guard does not own.
module_map CMappingGuard "$repo/Sources/CMappingGuard/include/mapping_guard.h"
if stale "$out/CMappingGuard.o" "$repo/Sources/CMappingGuard" "$0"; then
  echo "build: CMappingGuard"
  clang -O2 -fsanitize=fuzzer-no-link,address -I "$repo/Sources/CMappingGuard/include" \
    -c "$repo/Sources/CMappingGuard/mapping_guard.c" -o "$out/CMappingGuard.o"
fi

# The GPIO shim (Sources/CGPIOD, which SoundtracePlatform imports) likewise: a module map for its
# header, and its two files (one per libgpiod major; the installed <gpiod.h> empties the other)
# joined into one object. Harnesses that link SoundtracePlatform link libgpiod too.
module_map CGPIOD "$repo/Sources/CGPIOD/include/soundtrace_gpiod.h"
if stale "$out/CGPIOD.o" "$repo/Sources/CGPIOD" "$0"; then
  echo "build: CGPIOD"
  for major in 1 2; do
    clang -O2 -fsanitize=fuzzer-no-link,address $(pkg-config --cflags libgpiod) -I "$repo/Sources/CGPIOD/include" \
      -c "$repo/Sources/CGPIOD/gpiod_v$major.c" -o "$out/CGPIOD-v$major.o"
  done
  ld -r -o "$out/CGPIOD.o" "$out/CGPIOD-v1.o" "$out/CGPIOD-v2.o"
fi

# The MQTT loader (Sources/CMosquitto, which SoundtracePlatform imports) likewise: a module map for
# its header, and one object of the loader and the built-in MQTT library (Sources/CMosquittoBuiltin,
# compiled as Package.swift compiles it, hidden and without TLS); it dlopens Debian's libmosquitto
# itself for TLS, so nothing more is linked.
module_map CMosquitto "$repo/Sources/CMosquitto/include/soundtrace_mosquitto.h"
if stale "$out/CMosquitto.o" "$repo/Sources/CMosquitto" "$repo/Sources/CMosquittoBuiltin" "$0"; then
  echo "build: CMosquitto"
  builtin="$repo/Sources/CMosquittoBuiltin"
  rm -rf "$out/mosquitto" && mkdir -p "$out/mosquitto"
  for c in "$builtin"/vendor/lib/*.c; do
    clang -O2 -w -fvisibility=hidden -I "$builtin/vendor" -I "$builtin/vendor/include" \
      -I "$builtin/vendor/lib" -I "$builtin/vendor/deps" -c "$c" -o "$out/mosquitto/$(basename "$c" .c).o"
  done
  clang -O2 -fsanitize=fuzzer-no-link,address -I "$repo/Sources/CMosquitto/include" \
    -c "$repo/Sources/CMosquitto/mosquitto_loader.c" -o "$out/mosquitto/loader.o"
  ld -r -o "$out/CMosquitto.o" "$out"/mosquitto/*.o
fi

# module NAME: one object and module for Sources/NAME, in dependency order.
module() {
  local name=$1
  if stale "$out/$name.o" "$repo/Sources/$name" "$0" "$out/CKissFFT.o" "$out/CMappingGuard.o" "$out/CGPIOD.o" "$out/CMosquitto.o" $(printf '%s ' "${built[@]/#/$out/}"); then
    echo "build: $name"
    swiftc "${swift_flags[@]}" -module-name "$name" -wmo -c -emit-module -emit-module-path "$out/$name.swiftmodule" \
      -o "$out/$name.o" "$repo"/Sources/"$name"/*.swift
    # swiftc leaves an output alone when its bytes did not change; the stamp must still move.
    touch "$out/$name.o"
  fi
  built+=("$name.o")
}
built=()
for name in SoundtraceClock SoundtraceProtocol SoundtraceCore SoundtraceFingerprint SoundtracePlatform SoundtraceRecognition SoundtraceTools; do
  module "$name"
done

# The objects each harness links: the modules it imports and theirs (SoundtraceFingerprint's
# SHA-256 is libmd's and SoundtraceTools' JSON parser jansson's, linked with them).
objects() {
  case "$1" in
    config) echo SoundtraceCore.o ;;
    catalog|wav) echo CKissFFT.o CMappingGuard.o SoundtraceClock.o SoundtraceFingerprint.o ;;
    request|faults) echo SoundtraceClock.o SoundtraceProtocol.o SoundtraceCore.o CGPIOD.o CMosquitto.o SoundtracePlatform.o ;;
    manifest|reply) echo CKissFFT.o CMappingGuard.o SoundtraceClock.o SoundtraceProtocol.o SoundtraceCore.o SoundtraceFingerprint.o CGPIOD.o CMosquitto.o SoundtracePlatform.o SoundtraceRecognition.o SoundtraceTools.o ;;
    *) echo "build: no module list for harness '$1'" >&2; return 1 ;;
  esac
}

harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=($(cd "$here/harness" && ls *.swift | sed 's/\.swift$//'))
failed=0
for harness in "${harnesses[@]}"; do
  list=($(objects "$harness")) || { failed=1; continue; }
  paths=("${list[@]/#/$out/}")
  if stale "$out/fuzz-$harness" "$here/harness/$harness.swift" "$here/shared" "${paths[@]}"; then
    echo "build: fuzz-$harness"
    rm -f "$out/fuzz-$harness"
    # lld: the toolchain's gold prints a warning for every ASan helper symbol it cannot export.
    swiftc "${swift_flags[@]}" -use-ld=lld -module-name "Fuzz_$harness" -o "$out/fuzz-$harness" \
      "$here/harness/$harness.swift" "$here"/shared/*.swift "${paths[@]}" \
      $(case " ${list[*]} " in *" SoundtracePlatform.o "*) echo -lasound $(pkg-config --libs libgpiod) ;; esac) \
      $(case " ${list[*]} " in *" SoundtraceFingerprint.o "*) pkg-config --libs libmd ;; esac) \
      $(case " ${list[*]} " in *" SoundtraceTools.o "*) pkg-config --libs jansson ;; esac) || { echo "build: fuzz-$harness FAILED" >&2; failed=1; }
  fi
done
exit $failed
