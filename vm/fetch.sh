#!/usr/bin/env bash
# Downloads what the virtual board needs from Debian into the cache (see lib.sh) and unpacks it:
#   kernel:  linux-image-<abi>, linux-headers-<abi>, linux-headers-<abi%-amd64>-common, linux-kbuild-6.1
#   source:  gpio-sim.c, gpiolib.h and irq_sim.c out of linux-source-6.1 (same Debian version as the image)
#   guest:   busybox-static, gpiod + libgpiod2 (libgpiod 1.6), alsa-utils + libasound2 + libasound2-data
#   host:    qemu-system-x86 and cpio (installed with apt if missing)
# Idempotent: what is already in the cache is not downloaded again.
#
# Why linux-source-6.1 and not `apt-get source linux`: both cost one ~140 MB download, but the
# .deb is already patched, needs no deb-src index (~45 MB of Sources lists) and no dpkg-source run
# (unpacking and patching ~1.3 GB), and we stream just three files out of it and drop the .deb.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

need_host qemu-system-x86_64 qemu-system-x86
need_host cpio cpio
need_host xz xz-utils
need_host gcc-12 gcc-12
need_host make make
need_host depmod kmod

# One fetch at a time per cache (parallel test runs share it).
mkdir -p "$cache"
exec 9>"$cache/.fetch.lock"
flock 9

# Everything fetched before by this same script: no apt queries (they cost 10-20 s per run).
# SOUNDTRACE_VM_REFRESH=1 looks again (newer guest packages; the kernel stays pinned by $cache/KABI).
self_sum=$(md5sum <"$0" | cut -c1-12)
if [ -z "${SOUNDTRACE_VM_REFRESH:-}" ] && [ -f "$cache/.complete-$self_sum" ] \
   && [ -f "$kroot/.unpacked-$(cat "$cache/KABI")" ] && [ -x "$guestroot/bin/busybox" ] \
   && compgen -G "$srcdir/.from-*" >/dev/null; then
  say "cache complete: $cache (kernel $(cat "$cache/KABI")); SOUNDTRACE_VM_REFRESH=1 to check for updates"
  exit 0
fi

abi=$(kernel_abi)
img_pkg=linux-image-$abi
kver=$(pkg_version "$img_pkg")
[ -n "$kver" ] || die "apt knows no $img_pkg; run: apt-get update (or set SOUNDTRACE_VM_KABI)"
hdr_ver=$(pkg_version "linux-headers-$abi")
[ "$hdr_ver" = "$kver" ] || die "linux-headers-$abi is $hdr_ver but $img_pkg is $kver; run: apt-get update"
series=$(echo "$abi" | cut -d. -f1-2)   # 6.1
mkdir -p "$debs" "$kroot" "$guestroot" "$srcdir"
echo "$abi" >"$cache/KABI"

# download PACKAGE [VERSION]: into $debs unless a .deb of that version is there.
download() {
  local pkg=$1 ver=${2:-} fver
  [ -n "$ver" ] || ver=$(pkg_version "$pkg")
  [ -n "$ver" ] || die "apt knows no package $pkg; run: apt-get update"
  fver=${ver//:/%3a}
  if compgen -G "$debs/${pkg}_${fver}_*.deb" >/dev/null; then return 0; fi
  say "downloading $pkg $ver"
  (cd "$debs" && apt-get -q -o APT::Sandbox::User=root download "$pkg=$ver" >&2) || {
    say "download failed; refreshing apt lists once"
    apt-get "${apt_lock[@]}" -q update >&2 || true
    (cd "$debs" && apt-get -q -o APT::Sandbox::User=root download "$pkg=$ver" >&2) || die "could not download $pkg=$ver"
  }
}
deb_of() { local f; f=$(ls "$debs/$1"_*.deb 2>/dev/null | sort -V | tail -n 1); [ -n "$f" ] || die "no .deb for $1"; echo "$f"; }

kernel_pkgs=("$img_pkg" "linux-headers-$abi" "linux-headers-${abi%-amd64}-common" "linux-kbuild-$series")
for p in "${kernel_pkgs[@]}"; do download "$p" "$kver"; done

if [ ! -f "$kroot/.unpacked-$abi" ]; then
  say "unpacking kernel $abi ($kver)"
  rm -rf "$kroot" && mkdir -p "$kroot"
  for p in "${kernel_pkgs[@]}"; do dpkg-deb -x "$(ls "$debs/${p}_${kver}"_*.deb)" "$kroot"; done
  # The headers' Makefile includes the common tree by its absolute /usr/src path: point it into the cache.
  sed -i "s|/usr/src/|$kroot/usr/src/|" "$kroot/usr/src/linux-headers-$abi/Makefile"
  # Debian's postinst generates modules.dep; the package does not ship it.
  depmod -b "$kroot" "$abi"
  touch "$kroot/.unpacked-$abi"
fi

# Three source files only: stream the tarball out of the .deb, then drop the .deb (139 MB).
src_files=(drivers/gpio/gpio-sim.c drivers/gpio/gpiolib.h kernel/irq/irq_sim.c)
src_stamp=$kver-$(echo "${src_files[*]}" | md5sum | cut -c1-8)
if [ ! -f "$srcdir/.from-$src_stamp" ]; then
  download "linux-source-$series" "$kver"
  say "extracting ${src_files[*]} from linux-source-$series $kver"
  rm -rf "$srcdir" && mkdir -p "$srcdir"
  dpkg-deb --fsys-tarfile "$(ls "$debs/linux-source-${series}_${kver}"_*.deb)" \
    | tar -xO "./usr/src/linux-source-$series.tar.xz" \
    | tar -xJ -C "$srcdir" --strip-components=1 "${src_files[@]/#/linux-source-$series/}"
  for f in "${src_files[@]}"; do [ -s "$srcdir/$f" ] || die "linux-source-$series has no $f"; done
  touch "$srcdir/.from-$src_stamp"
  rm -f "$debs/linux-source-${series}_"*.deb
fi

guest_pkgs=(busybox-static gpiod libgpiod2 alsa-utils libasound2 libasound2-data)
for p in "${guest_pkgs[@]}"; do download "$p"; done
stamp=$(for p in "${guest_pkgs[@]}"; do basename "$(deb_of "$p")"; done | md5sum | cut -c1-12)
if [ ! -f "$guestroot/.unpacked-$stamp" ]; then
  say "unpacking guest packages"
  rm -rf "$guestroot" && mkdir -p "$guestroot"
  for p in "${guest_pkgs[@]}"; do dpkg-deb -x "$(deb_of "$p")" "$guestroot"; done
  touch "$guestroot/.unpacked-$stamp"
fi

say "cache: $cache ($(du -sh "$cache" | cut -f1)); downloaded .debs: $(du -ch "$debs"/*.deb | tail -n 1 | cut -f1)"
say "kernel: $kroot/boot/vmlinuz-$abi"
rm -f "$cache"/.complete-*
touch "$cache/.complete-$self_sum"
