#!/usr/bin/env bash
# Runs the real unit under a real systemd, with a real ALSA device, in a throw-away VM:
# Debian's kernel boots (qemu, TCG) into THIS machine's root file system, shared read-only over 9p
# with a tmpfs overlay on top, so nothing on the host changes. Inside, deploy/install.sh installs the
# static binary (soundtraced is a link to soundtrace), snd-aloop provides a sound card, and the
# checks below drive soundtraced.service.
#
#   deploy/vm-check.sh [--bin-dir DIR]      (root; Debian 12 x86_64 host with systemd and qemu)
#
# The package (dpkg -i, upgrade, disable, remove, purge, the watchdog) is checked by
# vm/systemd-unit.sh, in `make test`; this script checks the source install.
# Needs: scripts/setup.sh vm (qemu-system-x86, cpio, kmod); Debian's kernel and busybox packages are
# fetched with `apt-get download` into .build/vm-check (never installed). Takes 4–8 minutes, up to 20 on a busy machine (qemu has no KVM here).
# Prints the in-VM log and ends with "vm-check: PASS" (status 0) or "vm-check: FAIL ..." (status 1).
# Not covered: GPIO (Debian's kernel has no gpio-sim or gpio-mockup) and udev (device groups are set by hand).
set -euo pipefail

program=vm-check.sh
die() { echo "$program: error: $*" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
bin_dir="$root/.build/deb/release"
while [ $# -gt 0 ]; do
    case "$1" in
        --bin-dir) [ $# -ge 2 ] || die "--bin-dir needs a folder"; bin_dir=$2; shift 2 ;;
        --deb) die "the package is checked by vm/systemd-unit.sh --deb PATH (part of make test)" ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) die "unknown argument '$1'" ;;
    esac
done
[ "$(id -u)" -eq 0 ] || die "run it as root (apt-get download, and the VM reads the whole root file system)"
[ "$(dpkg --print-architecture)" = amd64 ] || die "only an amd64 host can boot its own root in qemu-system-x86_64"
for tool in qemu-system-x86_64 cpio modprobe depmod; do
    command -v "$tool" >/dev/null || die "'$tool' is missing: scripts/setup.sh vm"
done
[ -x "$bin_dir/soundtrace" ] \
    || die "no built 'soundtrace' in $bin_dir: run deploy/build-deb.sh first (or pass --bin-dir)"
case "$bin_dir" in /*) ;; *) bin_dir="$PWD/$bin_dir" ;; esac

work="$root/.build/vm-check"
mkdir -p "$work/debs"
# The kernel that linux-image-amd64 currently points at, and a static busybox for the initramfs.
kernel_package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ && k == "" { k = $2 } END { print k }')
[ -n "$kernel_package" ] || die "cannot tell which kernel linux-image-amd64 depends on (run apt-get update)"
release=${kernel_package#linux-image-}
if [ ! -d "$work/kernel/lib/modules/$release" ]; then
    (cd "$work/debs" && apt-get download "$kernel_package" busybox-static) || die "apt-get download failed"
    rm -rf "$work/kernel" "$work/busybox"
    dpkg-deb -x "$work"/debs/linux-image-*.deb "$work/kernel"
    dpkg-deb -x "$work"/debs/busybox-static_*.deb "$work/busybox"
    depmod -b "$work/kernel" "$release"
fi

# The initramfs: load virtio + 9p + overlay, mount the host root read-only under a tmpfs overlay,
# add the check service, hand over to systemd.
initrd="$work/initrd"
rm -rf "$initrd" && mkdir -p "$initrd"/{bin,mods,proc,sys,dev,lower,upper,newroot}
cp "$work/busybox/bin/busybox" "$initrd/bin/"
boot_modules="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci 9pnet 9pnet_virtio netfs fscache 9p overlay"
for module in $boot_modules; do
    file=$(modprobe -d "$work/kernel" -S "$release" --show-depends "$module" | tail -n 1 | awk '{ print $2 }')
    [ -f "$file" ] || die "kernel module $module not found in $kernel_package"
    cp "$file" "$initrd/mods/$module.ko"
done
cat > "$initrd/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $boot_modules; do insmod /mods/\$m.ko || echo "insmod \$m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 hostroot /lower || { echo "9p mount failed"; poweroff -f; }
mount -t tmpfs -o size=1500m tmpfs /upper; mkdir -p /upper/u /upper/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /newroot || { echo "overlay failed"; poweroff -f; }
rm -rf /newroot/lib/modules/$release; mkdir -p /newroot/lib/modules
ln -s $work/kernel/lib/modules/$release /newroot/lib/modules/$release
s=/newroot/etc/systemd/system
mkdir -p \$s/multi-user.target.wants
# tmpfiles would empty /tmp at boot (only in the overlay, but slowly over 9p); a getty would hang up the console.
for u in systemd-tmpfiles-setup.service systemd-tmpfiles-clean.timer serial-getty@ttyS0.service getty@tty1.service; do ln -sf /dev/null \$s/\$u; done
cp /newroot$work/vm-check.service \$s/; ln -sf ../vm-check.service \$s/multi-user.target.wants/
: > /newroot/etc/machine-id
umount /proc /sys; mount --move /dev /newroot/dev
exec switch_root /newroot /lib/systemd/systemd
EOF
chmod +x "$initrd/init"
(cd "$initrd" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$work/initrd.gz"

cat > "$work/vm-check.service" <<EOF
[Unit]
Description=Soundtrace deployment check
[Service]
Type=oneshot
ExecStart=/bin/bash $work/inside.sh
ExecStopPost=/bin/systemctl poweroff --force
EOF

# The checks, run by systemd inside the VM. Each "CHECK name: ok|FAILED" line is judged on the host.
cat > "$work/inside.sh" <<EOF
#!/bin/bash
mkdir -p /vmout && mount -t 9p -o trans=virtio,version=9p2000.L vmout /vmout
exec > /vmout/result.log 2>&1
check() { if eval "\$2"; then echo "CHECK \$1: ok"; else echo "CHECK \$1: FAILED"; fi; }
proto() { exec 3<>/dev/tcp/127.0.0.1/6680 || return; for l in "\$@"; do printf '%s\n' "\$l" >&3; sleep \${WAIT:-1}; done; timeout 2 cat <&3; exec 3<&-; }
echo "kernel \$(uname -r); \$(systemctl --version | head -n 1)"
modprobe snd-aloop; sleep 1
# What Debian's udev rules do for sound devices (this root has no udev).
chgrp -R audio /dev/snd; chmod 0660 /dev/snd/*
$root/deploy/install.sh --bin-dir $bin_dir; check install "[ \$? -eq 0 ]"
printf 'device = hw:Loopback,1\ngpio = no\nwindow_seconds = 3\n' >> /etc/soundtrace/soundtraced.conf
systemctl daemon-reload
systemctl start soundtraced.service
check ready "[ \"\$(systemctl show -P ActiveState soundtraced.service)\" = active ]"
check groups "ps -o supgrp= -C soundtraced | grep -q audio"
check user "[ \"\$(ps -o user= -C soundtraced)\" = soundtrace ]"
check state-dir "[ \"\$(stat -c '%U %a' /var/lib/soundtrace)\" = 'soundtrace 750' ]"
proto ping status | tee /tmp/status.txt; check protocol "grep -q '^catalog: ok' /tmp/status.txt"
WAIT=6 proto listen status | tee /tmp/listen.txt
check capture-in-sandbox "grep -q '^session_state: noMatch' /tmp/listen.txt && grep -q '^device_health: ok' /tmp/listen.txt"
sleep 40
check watchdog "[ \"\$(systemctl show -P NRestarts soundtraced.service)\" = 0 ] && [ \"\$(systemctl show -P ActiveState soundtraced.service)\" = active ]"
systemctl reload soundtraced.service; sleep 3
check reload "journalctl -u soundtraced.service -o cat | grep -q 'catalog reloaded'"
systemctl stop soundtraced.service
check clean-stop "[ \"\$(systemctl show -P Result soundtraced.service)\" = success ] && [ \"\$(systemctl show -P ExecMainStatus soundtraced.service)\" = 0 ]"
# Control: the same unit without DeviceAllow= must lose the microphone, or the check above proves nothing.
mkdir -p /etc/systemd/system/soundtraced.service.d
printf '[Service]\nDeviceAllow=\n' > /etc/systemd/system/soundtraced.service.d/no-devices.conf
systemctl daemon-reload; systemctl start soundtraced.service
WAIT=6 proto listen status | tee /tmp/denied.txt
check control-denied "! grep -q '^session_state: noMatch' /tmp/denied.txt"
systemctl stop soundtraced.service
echo "--- journal"; journalctl --no-pager -o short-monotonic -u soundtraced.service
echo "--- end"
EOF

out="$work/out"
rm -rf "$out" && mkdir -p "$out"
timeout 1200 qemu-system-x86_64 -accel tcg -m 2048 -smp 2 -nographic -no-reboot -display none -monitor none \
    -kernel "$work/kernel/boot/vmlinuz-$release" -initrd "$work/initrd.gz" \
    -append "console=ttyS0 quiet panic=-1 systemd.show_status=0" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs local,path="$out",mount_tag=vmout,security_model=none \
    -serial file:"$work/console.log" >"$work/qemu.log" 2>&1 || true

[ -f "$out/result.log" ] || die "the VM wrote no result (see $work/console.log and $work/qemu.log)"
cat "$out/result.log"
grep -q '^--- end' "$out/result.log" || { echo "vm-check: FAIL (the checks did not finish)"; exit 1; }
failed=$( (grep '^CHECK .*: FAILED' "$out/result.log" || true) | sed 's/^CHECK //; s/: FAILED//' | tr '\n' ' ')
[ -z "$failed" ] || { echo "vm-check: FAIL ($failed)"; exit 1; }
echo "vm-check: PASS ($(grep -c '^CHECK .*: ok' "$out/result.log") checks)"
