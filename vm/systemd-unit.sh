#!/usr/bin/env bash
# The packaged unit under a real systemd: boots Debian's kernel under qemu into a Debian 12 system
# (debootstrap's minbase with systemd and udev, the whole tree as the initramfs, systemd as PID 1),
# with snd-aloop and gpio-sim for a microphone and the kiosk's lines, and runs
# vm/guest/systemd-unit-guest.sh there as a oneshot unit: `dpkg -i` of the package (its postinst
# makes the user and starts soundtraced.service with every sandbox setting of
# deploy/soundtraced.service), then the protocol, a session through plughw: at 48 kHz stereo, the
# button and LED, reload, restart and stop, and the sandbox read back from /proc; then a reinstall
# (the upgrade path), the watchdog (idle, then a frozen daemon), dpkg -r and dpkg -P.
# Exit status: the number of failed CHECKs; 124 for a guest that never reported, 125 when qemu
# ended without a summary.
#
#   vm/systemd-unit.sh [--deb FILE]   the package to install (default: deploy/build-deb.sh builds one)
#
# The Debian tree is made once and kept in the cache ($cache/systemd-rootfs: about 300 MB,
# downloaded from deb.debian.org). The guest runs under qemu's TCG in about 150 s (a minute of it the watchdog's periods).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

deb=''
while [ $# -gt 0 ]; do
  case "$1" in
    --deb) [ $# -ge 2 ] || die "--deb needs a file"; deb=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (known: --deb FILE)" ;;
  esac
done

t_start=$(date +%s)
"$vm_dir/fetch.sh"
gpio_sim=$("$vm_dir/build-gpio-sim.sh")
need_host debootstrap debootstrap
need_host cpio cpio
need_host python3 python3-minimal
need_host qemu-system-x86_64 qemu-system-x86
abi=$(kernel_abi)

if [ -z "$deb" ]; then
  mkdir -p "$build/systemd-unit-deb"
  deb=$("$repo_root/deploy/build-deb.sh" --out "$build/systemd-unit-deb") || die "deploy/build-deb.sh failed"
fi
[ -f "$deb" ] || die "no package at $deb"

# The Debian tree, once: what the package depends on is installed by dpkg in the guest, so the
# tree holds those libraries already (dpkg -i does not fetch), plus aplay for the loopback.
rootfs=$cache/systemd-rootfs
packages=systemd,udev,kmod,procps,alsa-utils,libasound2,libsqlite3-0,libgpiod2,libjansson4,libmd0
if [ "$(cat "$rootfs/.complete" 2>/dev/null)" != "$packages" ]; then
  # The Debian mirror this machine's apt uses (deb822 or one-line sources), else deb.debian.org.
  mirror=$(sed -n 's|^URIs: *\(http[^ ]*/debian\)/*$|\1|p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
  [ -n "$mirror" ] || mirror=$(sed -n 's|^deb \(\[[^]]*\] \)\{0,1\}\(http[^ ]*/debian\)/* bookworm .*|\2|p' /etc/apt/sources.list 2>/dev/null | head -n 1)
  mirror=${mirror:-http://deb.debian.org/debian}
  mkdir -p "$cache/logs"
  say "debootstrap of Debian 12 (minbase, systemd, udev) from $mirror into $rootfs"
  rm -rf "$rootfs.tmp"
  debootstrap --variant=minbase --include="$packages" bookworm "$rootfs.tmp" "$mirror" >"$cache/logs/debootstrap.log" 2>&1 \
    || die "debootstrap failed (log: $cache/logs/debootstrap.log)"
  echo "$packages" >"$rootfs.tmp/.complete"
  rm -rf "$rootfs" && mv "$rootfs.tmp" "$rootfs"
fi
t_fetched=$(date +%s)

mkdir -p "$build" "$cache/logs"
work=$(mktemp -d "$build/systemd-unit.XXXXXX")
stage=$work/root
cp -a "$rootfs" "$stage"
rm -rf "$stage/var/cache/apt/archives"/*.deb "$stage/usr/share/doc" "$stage/usr/share/man" "$stage/usr/share/locale"

# Modules: the sound drivers, configfs and gpio-sim (built for this kernel by build-gpio-sim.sh), indexed for modprobe.
moddir=$kroot/lib/modules/$abi
mkdir -p "$stage/lib/modules/$abi/kernel" "$stage/lib/modules/$abi/extra"
mkdir -p "$stage/lib/modules/$abi/kernel/fs"
cp -a "$moddir/kernel/sound" "$stage/lib/modules/$abi/kernel/"
cp -a "$moddir/kernel/fs/configfs" "$stage/lib/modules/$abi/kernel/fs/"
cp "$gpio_sim" "$stage/lib/modules/$abi/extra/"
cp "$moddir"/modules.builtin "$moddir"/modules.builtin.modinfo "$moddir"/modules.order "$stage/lib/modules/$abi/"
depmod -b "$stage" "$abi"
echo "options snd-aloop pcm_substreams=1" >"$stage/etc/modprobe.d/soundtrace-vm.conf"

# The guest's payload and the unit that runs it once the system is up. Nothing else talks on the
# serial line: no getty there.
mkdir -p "$stage/payload"
cp "$vm_dir/guest/systemd-unit-guest.sh" "$vm_dir/guest/checks.sh" "$vm_dir/guest/board.sh" "$stage/payload/"
cp "$deb" "$stage/payload/soundtrace.deb"
write_excerpt "$repo_root/catalog" "$stage/payload"
write_excerpt_48k_stereo "$stage/payload"
cat >"$stage/etc/systemd/system/soundtrace-unit-check.service" <<'EOF'
[Unit]
Description=Soundtrace: the packaged unit, checked
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/bin/bash /payload/systemd-unit-guest.sh
[Install]
WantedBy=default.target
EOF
mkdir -p "$stage/etc/systemd/system/default.target.wants"
ln -s /etc/systemd/system/soundtrace-unit-check.service "$stage/etc/systemd/system/default.target.wants/"
ln -sf /dev/null "$stage/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$stage/etc/systemd/system/getty@tty1.service"
echo soundtrace-vm >"$stage/etc/hostname"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/systemd-unit.cpio"
rm -rf "$stage"
t_initrd=$(date +%s)

# TCG, as vm/run.sh: this machine's /dev/kvm hung the guest before the kernel printed anything.
accel=tcg
log=$work/systemd-unit.log
set +e
timeout --foreground -k 5 "${SOUNDTRACE_VM_TIMEOUT:-600}" qemu-system-x86_64 -accel "$accel" -nographic -no-reboot \
  -m 2048M -smp 2 -kernel "$kroot/boot/vmlinuz-$abi" -initrd "$work/systemd-unit.cpio" \
  -append "console=ttyS0 rdinit=/lib/systemd/systemd panic=-1 loglevel=4 systemd.show_status=0" \
  -nic none -monitor none -serial stdio </dev/null >"$log" 2>&1
qemu_status=$?
set -e
t_booted=$(date +%s)
tr -d '\r' <"$log" >"$log.txt" && mv "$log.txt" "$log"
grep -aE "^(CHECK|OBSERVE|UNIT-SUMMARY)" "$log" >&2 || true
say "timings: fetch+debootstrap $((t_fetched - t_start)) s, initramfs $((t_initrd - t_fetched)) s, boot+test ($accel) $((t_booted - t_initrd)) s"
cp "$log" "$cache/logs/systemd-unit-last.log"
failures=$(sed -n 's/^UNIT-SUMMARY failures=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
if [ -z "$failures" ]; then
  say "no summary from the guest (qemu status $qemu_status); last lines of $log:"
  tail -n 20 "$log" >&2
  [ "$qemu_status" = 124 ] && exit 124
  exit 125
fi
if [ "$failures" = 0 ]; then
  rm -rf "$work"
  say "systemd-unit: PASS (log $cache/logs/systemd-unit-last.log)"
else
  say "systemd-unit: FAIL ($failures; log $log, initramfs kept in $work)"
fi
exit "$failures"
