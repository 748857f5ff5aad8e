#!/bin/sh
# Runs inside the virtual board (busybox sh) for vm/power-cut.sh: history.db on ext4 over a
# dm-flakey target over a loop device, and bench/power-loss/power_loss.py driving the real
# soundtraced on it for CYCLES cycles, each ended by SIGKILL and a power cut below the file system
# (`cut`, below): every write the "disk" has not received by then is dropped, as a power loss
# drops what sits in the page cache, then the file system is mounted again (its journal replayed)
# and the history checked.
#
#   sh /payload/power-cut-guest.sh CYCLES SEED        the test
#   sh /payload/power-cut-guest.sh cut                one cut (power_loss.py runs it after each kill)
# Exit status: the number of failed checks.
disk=/tmp/disk.img mnt=/mnt/history dm=cut
# The host's tools (vm/power-cut.sh puts them there), by path: busybox has no dmsetup, its mke2fs
# and blkid know no ext4, and its sh runs its own applets before anything on PATH.
PATH=/opt/host:$PATH

# The device-mapper tables (xfstests' common/dmflakey uses the same two): writes pass while the
# "up" interval lasts (180 s, reloaded at every cut, far longer than a cycle), or are acknowledged
# and dropped during the "down" interval with drop_writes; reads always pass.
table_up() { echo "0 $(blockdev --getsz /dev/loop0) flakey /dev/loop0 0 180 0"; }
table_drop() { echo "0 $(blockdev --getsz /dev/loop0) flakey /dev/loop0 0 0 180 1 drop_writes"; }
# --nolockfs: suspending must not freeze the file system, which would write back its dirty pages
# first (the very writes a power loss loses); --noudevsync: there is no udev on the board.
# Sectors written to the device-mapper device so far (the 7th field of its block statistics).
written() { awk '{ print $7 }' "/sys/block/$(dmsetup info -c --noheadings -o blkdevname $dm)/stat"; }
load() { dmsetup suspend --nolockfs --noudevsync $dm && dmsetup load $dm --table "$1" && dmsetup resume --noudevsync $dm; }

if [ "$1" = cut ]; then
  # The daemon is dead (SIGKILL) but its last writes may still be dirty pages: from here on the disk
  # takes nothing. Unmounting writes them back and into the void; the next mount sees the disk alone.
  load "$(table_drop)" || exit 1
  before=$(written)
  umount $mnt || { echo "umount: busy? $(ls -l /proc/*/fd 2>/dev/null | grep -c $mnt) open files"; exit 1; }
  # What the disk was sent while it took nothing: the writes this cut lost (sectors of 512 bytes).
  echo $(($(written) - before)) >>/tmp/dropped-sectors
  load "$(table_up)" || exit 1
  mount -t ext4 /dev/mapper/$dm $mnt || exit 1
  exit 0
fi

. /payload/checks.sh
cycles=${1:-20} seed=${2:-14}
finish() {
  echo "POWER-CUT-GUEST failures=$fails guest-seconds=$(since $t0)"
  exit $fails
}
ip link set lo up

# A 64 MiB disk: a sparse file on the guest's tmpfs, which keeps whatever reached it.
truncate -s 64M $disk && losetup /dev/loop0 $disk
check loop-device $? "$(losetup -a 2>&1 | one_line)"
dmsetup create $dm --noudevsync --table "$(table_up)"
check dm-flakey $? "$(dmsetup table $dm 2>&1 | one_line)"
# Without udev, /dev/mapper/NAME is made on request.
dmsetup mknodes $dm && [ -b /dev/mapper/$dm ]
check dm-node $? "$(ls -l /dev/mapper 2>&1 | one_line)"
# 4 KiB blocks like a full-size card's file system (mke2fs would pick 1 KiB for a disk this small).
MKE2FS_CONFIG=/payload/mke2fs.conf /opt/host/mke2fs -q -t ext4 -b 4096 /dev/mapper/$dm
check mkfs-ext4 $? "$(/opt/host/blkid /dev/mapper/$dm 2>&1 | one_line)"
mkdir -p $mnt && mount -t ext4 /dev/mapper/$dm $mnt
check mount $? "$(grep " $mnt " /proc/mounts | one_line)"
[ $fails = 0 ] || finish

# What a cut drops must really be dropped: a file written and not synced before a cut is gone,
# one written and synced is there (the tables above do what they claim on this kernel).
# (The journal's commit interval is raised for this check alone, so that its 5 s timer cannot
# commit the unsynced file first; the cut mounts again with the defaults the daemon runs on.)
echo synced >$mnt/synced && mount -o remount,commit=600 $mnt && sync
echo unsynced >$mnt/unsynced
sh /payload/power-cut-guest.sh cut
[ "$(cat $mnt/synced 2>/dev/null)" = synced ] && [ ! -s $mnt/unsynced ]
check cut-drops-unsynced-writes $? "synced: '$(cat $mnt/synced 2>&1)', unsynced: $(ls -l $mnt/unsynced 2>&1 | one_line); the cut dropped $(cat /tmp/dropped-sectors) sectors"
rm -f $mnt/synced $mnt/unsynced && sync

cd /payload
python3 -S -E -X utf8 /payload/bench/power-loss/power_loss.py --binary /usr/bin/soundtraced \
  --cycles "$cycles" --seed "$seed" --kill-within 4 --state-dir $mnt/state --cut "sh /payload/power-cut-guest.sh cut" 2>&1 | tee /tmp/power-loss.log
rc=$(grep -c '^FAIL' /tmp/power-loss.log)
grep -q '^power loss:' /tmp/power-loss.log && [ "$rc" = 0 ]
check power-loss $? "$(grep -E '^(power loss:|FAIL)' /tmp/power-loss.log | one_line)"
# The first line is the check above; the rest are the daemon's cuts.
dropped=$(tail -n +2 /tmp/dropped-sectors | awk '$1 > 0 { n++; s += $1 } END { printf "%d cuts of %d dropped writes, %d KiB in all", n, NR, s / 2 }')
echo "POWER-CUT-SUMMARY $(grep '^power loss:' /tmp/power-loss.log | one_line); $dropped"
finish
