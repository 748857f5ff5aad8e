#!/usr/bin/env bash
# The soak on the virtual board (issue 14 part 3; docs/RELIABILITY.md): the real static soundtraced
# on gpio-sim and snd-aloop, as in vm/daemon-board.sh, for CYCLES session cycles with a 3 s window.
# Each cycle plays one kind of clip into the loopback (a catalog excerpt, music outside the catalog,
# noise or digital silence) and starts a session with `listen` or a bouncing button press, while 8
# protocol clients send listen, cancel, status, idle, history, favorite and delete at random and the
# button is sometimes pressed mid-session or held (calm mode). vm/guest/soak.py drives it and checks,
# over the whole run: no stale results, double events, stuck states, restarts, leaked fds or
# threads; every match recorded once with the reference played; VmRSS growth <= 1 MB after the
# first 100 sessions; the LEDs and buzzer as `status` says; then history.db's integrity_check.
#
#   vm/soak.sh [CYCLES]     default 50 (what `make test` runs, ~4 min); 1000 cycles take ~75 min
#
# Exit status: the guest's (the number of failed CHECKs), 124/125 for a hung or crashed guest.
# SOUNDTRACED_VM_BIN=PATH uses that binary instead of building one (see vm/daemon-board.sh);
# SOAK_SEED=N another random sequence (default 14).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case "${1:-}" in
  -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
esac
cycles=${1:-50}
[[ $cycles =~ ^[1-9][0-9]*$ ]] || die "CYCLES must be a positive whole number, not '$cycles'"
run=soak

t_start=$(date +%s)
"$vm_dir/fetch.sh"
"$vm_dir/build-gpio-sim.sh" >/dev/null
need_host python3 python3-minimal
t_fetched=$(date +%s)
static_soundtraced 1
t_built=$(date +%s)

mkdir -p "$build" "$cache/logs"
work=$(mktemp -d "$build/$run.XXXXXX")
mkdir -p "$work/payload/clips"
cp "$vm_dir/guest/soak-guest.sh" "$vm_dir/guest/soak.py" "$vm_dir/guest/checks.sh" "$vm_dir/guest/board.sh" \
  "$repo_root/bench/protocol-stress/stress.py" "$repo_root/catalog/soundtrace.catalog" "$work/payload/"

# The clips, 8 s each (longer than a session; the guest loops them while sessions run), 16 kHz
# mono like the catalog: every catalog recording from two places, the two pieces the project
# composed to stay outside the catalog (catalog/outside) from two places, white and brown noise
# at about -20 dBFS, and digital silence. Named KIND--NAME.wav; a catalog clip's NAME is its
# reference id and start, so the guest knows what a session heard.
python3 - "$repo_root/catalog" "$work/payload/clips" <<'PY'
import array, json, os, random, sys, wave
catalog, out = sys.argv[1], sys.argv[2]
rate, seconds = 16000, 8

def write(name, samples):
    with wave.open(os.path.join(out, name + ".wav"), "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(rate)
        w.writeframes(samples.tobytes())

def excerpt(path, start):
    with wave.open(path, "rb") as w:
        if (w.getnchannels(), w.getsampwidth(), w.getframerate()) != (1, 2, rate):
            sys.exit(f"{path} is {w.getparams()}, not 16 kHz mono 16-bit")
        start = min(start, max(0, w.getnframes() / rate - seconds - 1))
        w.setpos(int(start * rate))
        return array.array("h", w.readframes(seconds * rate)), int(start)

for ref in json.load(open(f"{catalog}/manifest.json"))["references"]:
    for at in (20, 60):
        a, s = excerpt(f"{catalog}/{ref['sourceFile']}", at)
        write(f"catalog--{ref['id']}@{s}", a)
for name in sorted(os.listdir(f"{catalog}/outside")):
    for at in (4, 20):
        a, s = excerpt(f"{catalog}/outside/{name}", at)
        write(f"outside--{name[:-4]}@{s}", a)
r = random.Random(14)
write("noise--white", array.array("h", (int(r.gauss(0, 3300)) for _ in range(seconds * rate))))
b, v = array.array("h"), 0.0
for _ in range(seconds * rate):
    v = max(-1.0, min(1.0, v * 0.998 + r.gauss(0, 0.02)))
    b.append(int(v * 6000))
write("noise--brown", b)
write("silence--digital", array.array("h", bytes(2 * seconds * rate)))
PY

# The shortest window the daemon takes (3 s) and its early decisions: sessions are real time.
{ board_config /tmp/soak-state; echo "window_seconds = 3"; } >"$work/payload/soak.conf"

"$vm_dir/mkinitramfs.sh" -o "$work/$run.cpio" -m snd-aloop:pcm_substreams=1 -m gpio-sim \
  -b "$bin=/usr/bin/soundtraced" -p "$work/payload" -y "$work/payload/soak.py" -c "sh /payload/soak-guest.sh $cycles ${SOAK_SEED:-14}"
t_initrd=$(date +%s)

# A cycle takes 3-6 s of real time; the rest is the boot and the checks.
export SOUNDTRACE_VM_TIMEOUT=${SOUNDTRACE_VM_TIMEOUT:-$((300 + cycles * 12))}
boot_and_report "$run" "$work" SOAK-SUMMARY "fetch+gpio-sim $((t_fetched - t_start)) s, swift build $((t_built - t_fetched)) s, initramfs $((t_initrd - t_built)) s"
