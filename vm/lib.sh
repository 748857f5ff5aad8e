# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by the scripts
# Shared settings for the virtual-board scripts (sourced, not run).
# Everything downloaded or built lives in the cache below, never in the repository.

# modinfo and depmod live in /usr/sbin, which a normal user's PATH on Debian lacks.
PATH=$PATH:/usr/sbin:/sbin
vm_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$vm_dir/.." && pwd)

if [ -n "${SOUNDTRACE_VM_CACHE:-}" ]; then
  cache=$SOUNDTRACE_VM_CACHE
elif [ "$(id -u)" = 0 ]; then
  cache=/var/cache/soundtrace-vm
else
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/soundtrace-vm
fi
debs=$cache/debs            # downloaded .deb files
kroot=$cache/kernel         # kernel image, modules, headers and kbuild unpacked here
guestroot=$cache/guest-pkgs # busybox, gpiod, alsa-utils unpacked here
srcdir=$cache/src           # the few kernel source files gpio-sim needs
build=$cache/build          # gpio-sim build tree and initramfs images

say() { printf '[vm] %s\n' "$*" >&2; }
die() { printf '[vm] error: %s\n' "$*" >&2; exit 1; }

apt_lock=(-o DPkg::Lock::Timeout=600)

# The kernel ABI name, e.g. 6.1.0-57-amd64: taken from the newest linux-headers-amd64 apt knows,
# so the image, headers and source all come from one Debian kernel version.
# Override with SOUNDTRACE_VM_KABI=6.1.0-NN-amd64.
kernel_abi() {
  if [ -n "${SOUNDTRACE_VM_KABI:-}" ]; then echo "$SOUNDTRACE_VM_KABI"; return; fi
  if [ -f "$cache/KABI" ]; then cat "$cache/KABI"; return; fi
  local dep
  dep=$(apt-cache depends linux-headers-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-headers-\(.*-amd64\)$/\1/p' | head -n 1)
  [ -n "$dep" ] || die "apt knows no linux-headers-amd64; run: apt-get update"
  echo "$dep"
}

# The Debian source version of a binary package as apt would download it (e.g. 6.1.192-3).
pkg_version() { apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1; }

# Installs host packages the scripts use, only when a command is missing.
need_host() { # need_host COMMAND PACKAGE
  command -v "$1" >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || die "$1 is missing: apt-get install $2 (as root)"
  say "installing $2 on the host (for $1)"
  DEBIAN_FRONTEND=noninteractive apt-get "${apt_lock[@]}" install -y --no-install-recommends "$2" >&2 \
    || die "could not install $2; try: apt-get update && apt-get install $2"
}
