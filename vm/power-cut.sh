#!/usr/bin/env bash
# Power cuts below the file system on the virtual board (issue 14 part 5; docs/RELIABILITY.md):
# history.db on ext4 over a dm-flakey target over a loop device, in Debian's kernel under qemu, and
# bench/power-loss/power_loss.py driving the real static soundtraced on it. Each cycle SIGKILLs the
# daemon at a random moment of its sessions, deletes and favorites, then switches the disk to drop
# every write (dm-flakey's drop_writes), unmounts (what was still in the page cache goes nowhere),
# lets writes through again and mounts (the ext4 journal is replayed); then history.db is checked
# with Python's SQLite: integrity_check, every acknowledged event, delete and favorite as
# acknowledged, and the daemon starts on it again. The guest first checks that a cut really drops
# an unsynced file and keeps a synced one.
#
#   vm/power-cut.sh [CYCLES]     default 20 (what `make test` runs, ~2 min); 200 cycles take ~13 min
#
# Exit status: the guest's (the number of failed CHECKs), 124/125 for a hung or crashed guest.
# SOUNDTRACED_VM_BIN=PATH uses that binary instead of building one (see vm/daemon-board.sh);
# POWER_CUT_SEED=N another random sequence (default 14).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case "${1:-}" in
  -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
esac
cycles=${1:-20}
[[ $cycles =~ ^[1-9][0-9]*$ ]] || die "CYCLES must be a positive whole number, not '$cycles'"
run=power-cut

t_start=$(date +%s)
"$vm_dir/fetch.sh"
need_host python3 python3-minimal
# The host's device-mapper and ext4 tools go into the guest with their libraries, in /opt/host
# (busybox has its own mke2fs and blkid, which know no ext4).
need_host dmsetup dmsetup
need_host mke2fs e2fsprogs
need_host blkid util-linux
t_fetched=$(date +%s)
static_soundtraced 1
t_built=$(date +%s)

mkdir -p "$build" "$cache/logs"
work=$(mktemp -d "$build/$run.XXXXXX")
p=$work/payload
mkdir -p "$p/bench/power-loss" "$p/bench/protocol-stress" "$p/catalog/audio"
# power_loss.py finds the catalog and its microphone's recording where the repository keeps them.
cp "$vm_dir/guest/power-cut-guest.sh" "$vm_dir/guest/checks.sh" "$p/"
cp "$repo_root/bench/power-loss/power_loss.py" "$p/bench/power-loss/"
cp "$repo_root/bench/protocol-stress/stress.py" "$p/bench/protocol-stress/"
cp "$repo_root/catalog/soundtrace.catalog" "$p/catalog/"
cp "$repo_root/catalog/audio/harbor-lights-piano.wav" "$p/catalog/audio/"
cp /etc/mke2fs.conf "$p/mke2fs.conf"

"$vm_dir/mkinitramfs.sh" -o "$work/$run.cpio" -m loop -m dm-flakey -m crc32c_generic -m ext4 \
  -b "$bin=/usr/bin/soundtraced" -b "$(command -v dmsetup)=/opt/host/dmsetup" -b "$(command -v mke2fs)=/opt/host/mke2fs" \
  -b "$(command -v blkid)=/opt/host/blkid" \
  -p "$p" -y "$p/bench/power-loss/power_loss.py" -c "sh /payload/power-cut-guest.sh $cycles ${POWER_CUT_SEED:-14}"
t_initrd=$(date +%s)

export SOUNDTRACE_VM_TIMEOUT=${SOUNDTRACE_VM_TIMEOUT:-$((300 + cycles * 20))}
boot_and_report "$run" "$work" POWER-CUT-SUMMARY "fetch $((t_fetched - t_start)) s, swift build $((t_built - t_fetched)) s, initramfs $((t_initrd - t_built)) s"
