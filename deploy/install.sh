#!/usr/bin/env bash
# Installs Soundtrace from a source checkout: the binary (soundtrace, with soundtraced a symbolic link
# to it: the name it is started under picks the program), the systemd unit, the sysusers entry,
# the default configuration and a random LAN token (never over existing ones), the catalog, the udev
# rules, the man pages and the bash completion.
#
#   deploy/install.sh [--bin-dir DIR] [--enable]        install into / (as root)
#   DESTDIR=/tmp/stage deploy/install.sh                 staged install (no root needed, nothing run)
#
# Build the binary first, the deployed way (Swift standard library and GCC's C++ runtime linked in,
# so the box needs no Swift runtime and the daemon does not load libstdc++.so):
#   scripts/swift-build-static.sh --product soundtrace
# One binary instead of two because each static binary carries its own copy of the Swift runtime
# (about 8 MB apiece; docs/DEPLOY.md).
# Running it again is harmless: files are replaced with the same content, the configuration is kept.
set -euo pipefail

program=install.sh
die() { echo "$program: error: $*" >&2; exit 1; }
note() { echo "$program: $*" >&2; }

root=$(cd "$(dirname "$0")/.." && pwd)
bin_dir="$root/.build/release"
enable=no
destdir=${DESTDIR:-}

usage() {
    cat <<EOF
Usage: $program [--bin-dir DIR] [--destdir DIR] [--enable]

Installs soundtrace (soundtraced is a link to it) and their system files.
  --bin-dir DIR   where the built soundtrace is (default: .build/release of this checkout)
  --destdir DIR   stage the install under DIR instead of / (same as DESTDIR=DIR)
  --enable        after installing into /, enable and start soundtraced.service
Without a staging folder it must run as root; it then also creates the service user
(systemd-sysusers), reloads udev rules and systemd units when they are running.
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
        --bin-dir) [ $# -ge 2 ] || die "--bin-dir needs a folder"; bin_dir=$2; shift 2 ;;
        --destdir) [ $# -ge 2 ] || die "--destdir needs a folder"; destdir=$2; shift 2 ;;
        --enable) enable=yes; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done

# A relative staging folder would change meaning below; make it absolute, and drop a trailing slash.
if [ -n "$destdir" ]; then
    mkdir -p "$destdir" || die "cannot create the staging folder '$destdir'"
    destdir=$(cd "$destdir" && pwd)
    [ "$destdir" = / ] && destdir=
fi
if [ -z "$destdir" ] && [ "$(id -u)" -ne 0 ]; then
    die "installing into / needs root: run it with sudo, or stage it with DESTDIR=/some/folder"
fi
if [ "$enable" = yes ] && [ -n "$destdir" ]; then
    die "--enable starts the service on this machine; it makes no sense with a staging folder"
fi

# Check every input before changing anything, so a failed run leaves nothing half-installed.
[ -x "$bin_dir/soundtrace" ] || die "no built 'soundtrace' in $bin_dir
  build it first: scripts/swift-build-static.sh --product soundtrace
  (or point --bin-dir at the folder that holds it)"
# The service starts /usr/bin/soundtraced: the binary must be the daemon under that name (a
# soundtrace built before the two became one binary is not). Asked through a link, as systemd will.
probe=$(mktemp -d "${TMPDIR:-/tmp}/soundtrace-install.XXXXXX") || die "cannot make a temporary folder"
ln -s "$(cd "$bin_dir" && pwd)/soundtrace" "$probe/soundtraced"
daemon_version=$("$probe/soundtraced" --version 2>/dev/null) || daemon_version=
rm -rf "$probe"
case "$daemon_version" in
    "soundtraced "*) ;;
    *) die "$bin_dir/soundtrace does not run as the daemon when started as 'soundtraced' (it printed '$(printf '%s\n' "$daemon_version" | head -n 1)')
  rebuild it from this checkout: scripts/swift-build-static.sh --product soundtrace" ;;
esac
for input in deploy/soundtraced.service deploy/sysusers.d/soundtrace.conf deploy/soundtraced.conf \
             catalog/soundtrace.catalog udev/60-soundtrace-gpio.rules \
             udev/70-soundtrace-usb-mic.rules.template man/soundtraced.8 deploy/bash-completion/soundtrace; do
    [ -f "$root/$input" ] || die "missing $input in $root (is this a complete checkout?)"
done
command -v gzip >/dev/null || die "gzip is needed to install the man pages (apt-get install gzip)"

# install(1) with parents, replacing atomically: rerunning gives the same tree.
put() { # put MODE SOURCE TARGET
    install -D -m "$1" "$2" "$destdir$3" || die "cannot install $3 (from $2)"
}
put_man() { # put_man SOURCE SECTION
    local name target
    name=$(basename "$1")
    target="$destdir/usr/share/man/man$2/$name.gz"
    mkdir -p "$(dirname "$target")"
    # -n: no name or time stamp in the archive, so the result is the same on every run.
    gzip -9 -n -c "$1" > "$target.tmp" && chmod 0644 "$target.tmp" && mv -f "$target.tmp" "$target" \
        || die "cannot install $target"
}

put 0755 "$bin_dir/soundtrace" /usr/bin/soundtrace
# Relative, so that it points at the installed binary wherever the tree is staged; replaced atomically.
ln -sfn soundtrace "$destdir/usr/bin/.soundtraced.new" && mv -Tf "$destdir/usr/bin/.soundtraced.new" "$destdir/usr/bin/soundtraced" \
    || die "cannot link /usr/bin/soundtraced to soundtrace"
put 0644 "$root/deploy/soundtraced.service" /usr/lib/systemd/system/soundtraced.service
put 0644 "$root/deploy/sysusers.d/soundtrace.conf" /usr/lib/sysusers.d/soundtrace.conf
put 0644 "$root/catalog/soundtrace.catalog" /usr/share/soundtrace/soundtrace.catalog
put 0644 "$root/udev/60-soundtrace-gpio.rules" /usr/lib/udev/rules.d/60-soundtrace-gpio.rules
# A template to fill in, so it goes beside the catalog, not into rules.d (see the file's comments).
put 0644 "$root/udev/70-soundtrace-usb-mic.rules.template" /usr/share/soundtrace/70-soundtrace-usb-mic.rules.template
put_man "$root/man/soundtraced.8" 8
# Where Debian's bash-completion looks for a command's completion on its first TAB.
put 0644 "$root/deploy/bash-completion/soundtrace" /usr/share/bash-completion/completions/soundtrace
# The CLI's page is optional here so that an older checkout still installs.
if [ -f "$root/man/soundtrace.1" ]; then
    put_man "$root/man/soundtrace.1" 1
else
    note "warning: man/soundtrace.1 is missing; the soundtrace(1) man page is not installed"
fi

config="$destdir/etc/soundtrace/soundtraced.conf"
if [ -e "$config" ]; then
    if cmp -s "$root/deploy/soundtraced.conf" "$config"; then :; else
        note "kept your $config; the shipped default is deploy/soundtraced.conf"
    fi
else
    put 0644 "$root/deploy/soundtraced.conf" /etc/soundtrace/soundtraced.conf
fi

# A LAN token nobody chose: 24 random bytes (192 bits) in base64. It is used only once bind and
# token_file are set, but a box should never be one edit away from a guessable one.
token="$destdir/etc/soundtrace/token"
made_token=no
if [ ! -e "$token" ]; then
    (umask 077 && head -c 24 /dev/urandom | base64 > "$token.new") || die "could not write $token"
    chmod 0640 "$token.new"
    mv "$token.new" "$token"
    made_token=yes
    note "made a random LAN token in /etc/soundtrace/token (used once bind and token_file are set)"
fi

if [ -n "$destdir" ]; then
    note "staged in $destdir"
    exit 0
fi

# Installing into / : make the user, the device permissions and the unit take effect now.
if command -v systemd-sysusers >/dev/null; then
    systemd-sysusers /usr/lib/sysusers.d/soundtrace.conf || die "systemd-sysusers could not create the soundtrace user"
else
    die "systemd-sysusers is missing (apt-get install systemd); the service user cannot be created"
fi
# The daemon runs as soundtrace and reads the token; nobody else may.
if [ "$made_token" = yes ]; then
    chgrp soundtrace "$token" || die "could not give $token to the soundtrace group"
fi
if command -v udevadm >/dev/null && [ -d /run/udev ]; then
    # udevd may have parsed the rule at a device event since it was put in place, before the gpio
    # group existed (GROUP= names are looked up at parse time), and a reload skips files whose stat
    # did not change: touched, it is parsed again, now with the group.
    touch /usr/lib/udev/rules.d/60-soundtrace-gpio.rules
    udevadm control --reload || note "warning: udevadm could not reload the rules; reboot to apply them"
    udevadm trigger --subsystem-match=gpio --action=change || true
fi
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    if [ "$enable" = yes ]; then
        systemctl enable --now soundtraced.service
        note "soundtraced is enabled and started: systemctl status soundtraced"
    elif systemctl is-active --quiet soundtraced.service; then
        systemctl try-restart soundtraced.service
        note "restarted the running soundtraced with the new files"
    else
        note "installed; start it with: sudo systemctl enable --now soundtraced"
    fi
else
    note "installed; systemd is not running here, so nothing was started"
fi
