#!/usr/bin/env bash
# The companion CLI's weight (issue 17, docs/BENCHMARKS.md "The CLI: size and start"): builds the
# Debian package (deploy/build-deb.sh), reports its Installed-Size and the binaries' sizes, starts
# the packaged soundtraced on a free loopback port (no GPIO, the null capture device), and runs the
# packaged `soundtrace status` 20 times after 5 warm-up runs: median and spread of start-to-exit
# wall time (fork and exec included, timed from Python) and of peak RSS (getrusage of the child).
# Beside it, alternating run for run, the floor: a Swift program that prints one line, compiled
# with the deployed build's flags (scripts/swift-build-static.sh --swiftc-flags) and stripped as
# the package is, measured the same way: what any Swift program linked so costs on this machine.
#
#   bench/cli/run.sh [--deb FILE]     measure an already built package instead of building one
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
deb=""
while [ $# -gt 0 ]; do
  case "$1" in
    --deb) deb=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d /tmp/soundtrace-cli-bench.XXXXXX)
trap 'kill "$daemon" 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -z "$deb" ]; then
  "$repo/deploy/build-deb.sh" --out "$work/out" >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; exit 1; }
  deb=$(ls "$work"/out/*.deb)
fi
dpkg-deb -x "$deb" "$work/root"
echo "package $(basename "$deb"): Installed-Size $(dpkg-deb -f "$deb" Installed-Size) KB"
for b in "$work/root/usr/bin/"*; do echo "  $(basename "$b"): $(stat -c %s "$b") bytes"; done

mkdir -p "$work/state"
"$work/root/usr/bin/soundtraced" --config /dev/null --no-gpio --catalog "$repo/catalog/soundtrace.catalog" \
  --state-dir "$work/state" --port 0 --device null >/dev/null 2>"$work/daemon.log" &
daemon=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*serving protocol [0-9]* on [^ ]* port \([0-9]*\).*/\1/p' "$work/daemon.log" | head -n 1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "soundtraced did not start:" >&2; cat "$work/daemon.log" >&2; exit 1; }

[ -x /usr/bin/time ] || { echo "bench/cli: /usr/bin/time is missing: apt-get install time" >&2; exit 1; }
command -v swiftc >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
floor_flags_text=$("$repo/scripts/swift-build-static.sh" --swiftc-flags --scratch-path "$work/floor-scratch")
mapfile -t floor_flags <<<"$floor_flags_text"
echo 'print("soundtraced is running")' >"$work/floor.swift"
swiftc -O "${floor_flags[@]}" "$work/floor.swift" -o "$work/floor" >"$work/floor.log" 2>&1 \
  || { cat "$work/floor.log" >&2; exit 1; }
strip --strip-all "$work/floor"
python3 - "$work/root/usr/bin/soundtrace" "$port" "$work/floor" <<'PY'
import os, statistics, subprocess, sys, time
cli, port, floor = sys.argv[1], sys.argv[2], sys.argv[3]
times, rss, floor_times, floor_rss = [], [], [], []

def peak_rss(command):
    # Peak RSS through GNU time: a child forked from Python would count Python's pages too (the
    # kernel carries the old address space's peak across exec); time's own is far smaller.
    timed = subprocess.run(["/usr/bin/time", "-f", "%M", *command],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    return int(timed.stderr.strip().splitlines()[-1]) / 1024

def wall_ms(command):
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    if child.wait() != 0:
        sys.exit(f"{' '.join(command)} exited with {child.returncode}")
    return (time.perf_counter() - start) * 1000

for i in range(25):
    status = [cli, "status", "--port", port]
    elapsed, peak = wall_ms(status), peak_rss(status)
    floor_elapsed, floor_peak = wall_ms([floor]), peak_rss([floor])
    if i >= 5:
        times.append(elapsed)
        rss.append(peak)
        floor_times.append(floor_elapsed)
        floor_rss.append(floor_peak)

def report(name, times, rss):
    print(f"{name}, 20 runs after 5 warm-up: start-to-exit median {statistics.median(times):.2f} ms "
          f"(min {min(times):.2f}, max {max(times):.2f}); peak RSS median {statistics.median(rss):.2f} MiB "
          f"(min {min(rss):.2f}, max {max(rss):.2f})")

report("soundtrace status", times, rss)
report("floor (a Swift program that prints one line, linked and stripped the same way)", floor_times, floor_rss)
PY
