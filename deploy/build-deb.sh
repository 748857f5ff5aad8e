#!/usr/bin/env bash
# Builds the Debian package `soundtrace` for this machine's architecture with dpkg-deb:
#   1. builds soundtrace the deployed way, scripts/swift-build-static.sh: release mode with the Swift
#      standard library and GCC's C++ runtime linked in (a separate scratch folder, .build/deb, so the
#      everyday .build/release is left alone). One binary is both programs: /usr/bin/soundtraced is a
#      link to it, and the name it is started under picks the program (two static binaries would
#      carry two copies of the Swift runtime, about 8 MB each);
#   2. stages it with deploy/install.sh (one list of installed files for both ways of installing),
#      strips it as Debian does, and keeps its debug information in soundtrace_VERSION_ARCH.debug
#      beside the package (for a crash's addresses: gdb or addr2line with that file);
#   3. computes Depends with dpkg-shlibdeps and checks it against the libraries the binaries load;
#   4. writes control, conffiles, md5sums and the maintainer scripts, and runs dpkg-deb.
#
#   deploy/build-deb.sh [--bin-dir DIR] [--out DIR]
#
# Build it on the kind of system it is for (e.g. on the Raspberry Pi OS release of the appliance):
# the package depends on that release's library versions (glibc, ALSA, SQLite, and libgpiod: libgpiod2
# on bookworm, libgpiod3 on trixie; dpkg-shlibdeps names them from what the binaries load).
set -euo pipefail

program=build-deb.sh
die() { echo "$program: error: $*" >&2; exit 1; }
note() { echo "$program: $*" >&2; }

root=$(cd "$(dirname "$0")/.." && pwd)
out_dir="$root/.build/debian"
bin_dir=

usage() {
    cat <<EOF
Usage: $program [--bin-dir DIR] [--out DIR]

Builds soundtrace_VERSION_ARCH.deb from freshly built binaries.
  --bin-dir DIR   package the soundtrace already built in DIR instead of building
                  (it must be built with scripts/swift-build-static.sh)
  --out DIR       where the .deb and its .debug file go (default: .build/debian)
The path of the built package is printed on standard output.
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
        --bin-dir) [ $# -ge 2 ] || die "--bin-dir needs a folder"; bin_dir=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || die "--out needs a folder"; out_dir=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done

for tool in dpkg-deb dpkg-shlibdeps dpkg objdump objcopy strip md5sum; do
    command -v "$tool" >/dev/null || die "'$tool' is missing: apt-get install dpkg-dev binutils (or run scripts/setup.sh)"
done
arch=$(dpkg --print-architecture)

# 1. Binaries.
if [ -z "$bin_dir" ]; then
    command -v swift >/dev/null || die "swift is not on PATH (export PATH=/opt/swift/usr/bin:\$PATH)"
    scratch="$root/.build/deb"
    note "building soundtrace (release, static Swift standard library and C++ runtime)"
    "$root/scripts/swift-build-static.sh" --scratch-path "$scratch" --product soundtrace >&2 \
        || die "building 'soundtrace' failed (see above)"
    bin_dir="$scratch/release"
fi
[ -x "$bin_dir/soundtrace" ] || die "no built 'soundtrace' in $bin_dir
  build it with: scripts/swift-build-static.sh --product soundtrace"
for binary in soundtrace; do
    swift_libs=$(objdump -p "$bin_dir/$binary" | awk '$1 == "NEEDED" && $2 ~ /^lib(swift|Foundation|dispatch|BlocksRuntime|_Foundation)/ { print $2 }' | tr '\n' ' ')
    [ -z "$swift_libs" ] || die "$bin_dir/$binary loads the Swift runtime from shared libraries ($swift_libs), which the box does not have
  rebuild it with: scripts/swift-build-static.sh --product $binary"
    # Loading libstdc++.so costs the daemon ~0.8 MiB of its 10 MB budget (docs/BENCHMARKS.md).
    cxx_libs=$(objdump -p "$bin_dir/$binary" | awk '$1 == "NEEDED" && $2 ~ /^lib(stdc\+\+|gcc_s)\./ { print $2 }' | tr '\n' ' ')
    [ -z "$cxx_libs" ] || die "$bin_dir/$binary loads GCC's C++ runtime from shared libraries ($cxx_libs), not the deployed build
  rebuild it with: scripts/swift-build-static.sh --product $binary"
done

# The linker packs the functions scripts/soundtrace.symbol-order names and silently skips names the
# binary no longer has. A list four days behind the code cost the daemon 0.4-0.8 MiB of resident
# code and `soundtrace status` 0.45 MiB (docs/BENCHMARKS.md, "The CLI: size and start"), so say when
# more than 1 in 20 of its names are gone.
order="$root/scripts/soundtrace.symbol-order"
ordered=$(grep -c . "$order")
gone=$(nm "$bin_dir/soundtrace" 2>/dev/null | awk 'NR == FNR { have[$NF] = 1; next } NF && !($0 in have) { n++ } END { print n + 0 }' - "$order")
if [ $((gone * 20)) -gt "$ordered" ]; then
    note "warning: $gone of the $ordered functions in scripts/soundtrace.symbol-order are not in this build, so its code is packed worse than it could be: regenerate the list with scripts/symbol-order.py $bin_dir/soundtrace"
fi

# 2. Stage the files.
work=$(mktemp -d "${TMPDIR:-/tmp}/soundtrace-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree="$work/tree"
"$root/deploy/install.sh" --bin-dir "$bin_dir" --destdir "$tree" 2>"$work/install.log" \
    || { cat "$work/install.log" >&2; die "staging with deploy/install.sh failed"; }
# Every box makes its own LAN token in postinst; one staged here would be the same on every box.
rm -f "$tree/etc/soundtrace/token"

# One version, from the programs themselves (the daemon through its staged link, as systemd starts
# it): `--version` prints "NAME VERSION [more]".
version_of() {
    local text word
    text=$("$tree/usr/bin/$1" --version 2>/dev/null) || die "'$1 --version' failed; cannot tell the package version"
    for word in ${text%%$'\n'*}; do
        if [[ "$word" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]]; then printf '%s\n' "$word"; return; fi
    done
    die "'$1 --version' printed no version number (got '$text')"
}
version=$(version_of soundtraced)
cli_version=$(version_of soundtrace)
[ "$version" = "$cli_version" ] || die "the binary says version $version as soundtraced but $cli_version as soundtrace, which cannot be one build"
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)

# Debian ships binaries stripped of debug sections and symbol tables (most of a Swift binary's size:
# 16 MB unstripped, 9 stripped). What they held stays beside the package, linked by the binary's
# build id and a debuglink, so a crash's addresses can still be read: gdb -s FILE.debug, or
# addr2line -e FILE.debug ADDRESS.
debug_file="$out_dir/soundtrace_${version}_${arch}.debug"
objcopy --only-keep-debug "$tree/usr/bin/soundtrace" "$debug_file" || die "objcopy could not save the debug information"
chmod 0644 "$debug_file"
strip --strip-all "$tree/usr/bin/soundtrace" || die "strip failed on the staged soundtrace"
(cd "$out_dir" && objcopy --add-gnu-debuglink="$(basename "$debug_file")" "$tree/usr/bin/soundtrace") \
    || die "objcopy could not link the binary to its debug information"
install -d -m 0755 "$tree/usr/share/doc/soundtrace"
# The binary carries two third-party libraries compiled in (PROVENANCE.md): their notices go with it.
kissfft_license="$root/Sources/CKissFFT/vendor/COPYING"
mosquitto_license="$root/Sources/CMosquittoBuiltin/vendor/edl-v10"
[ -f "$kissfft_license" ] || die "no $kissfft_license (scripts/fetch-kissfft.sh fetches it)"
[ -f "$mosquitto_license" ] || die "no $mosquitto_license (scripts/fetch-mosquitto.sh fetches it)"
{
    cat <<EOF
Soundtrace, offline recognizer for a small permitted catalog of recordings.
The bundled recordings and their licenses are listed in PROVENANCE, next to this file.

Compiled into /usr/bin/soundtrace:

- KissFFT (Debian source package kissfft), BSD-3-Clause:

EOF
    sed 's/^/    /' "$kissfft_license"
    cat <<EOF

- The MQTT client library of Eclipse Mosquitto (Debian source package mosquitto,
  $(cat "$root/Sources/CMosquittoBuiltin/vendor/SOURCE"), without TLS), used under the Eclipse
  Distribution License 1.0 (BSD-3-Clause), one of its two licences. Its files say:

EOF
    grep -h "Copyright (c)" "$root"/Sources/CMosquittoBuiltin/vendor/lib/* | sed 's/^[ *]*/    /' | sort -u
    echo
    sed 's/^/    /' "$mosquitto_license"
} > "$tree/usr/share/doc/soundtrace/copyright"
install -m 0644 "$root/PROVENANCE.md" "$tree/usr/share/doc/soundtrace/PROVENANCE"
[ -f "$root/docs/DEPLOY.md" ] && install -m 0644 "$root/docs/DEPLOY.md" "$tree/usr/share/doc/soundtrace/DEPLOY.md"
chmod -R u+rwX,go+rX,go-w "$tree"

# 3. Depends. dpkg-shlibdeps reads the shlibs/symbols files of the installed -dev packages' libraries;
# it wants a debian/control beside it and DEBIAN/ in the tree to place $ORIGIN.
install -d "$tree/DEBIAN" "$work/src/debian"
printf 'Source: soundtrace\n\nPackage: soundtrace\nArchitecture: any\n' > "$work/src/debian/control"
shlibs=$(cd "$work/src" && dpkg-shlibdeps -O -e"$tree/usr/bin/soundtrace" 2>"$work/shlibdeps.log") \
    || { cat "$work/shlibdeps.log" >&2; die "dpkg-shlibdeps could not compute the library dependencies"; }
lib_depends=${shlibs#shlibs:Depends=}
[ -n "$lib_depends" ] || die "dpkg-shlibdeps found no library dependencies, which cannot be right"
# Packed relocations (scripts/swift-build-static.sh) need glibc 2.36's dynamic linker. The binaries
# say so with the symbol-less version GLIBC_ABI_DT_RELR, which dpkg-shlibdeps does not map to a
# libc6 version, so raise libc6's minimum here.
relr_glibc=2.36
# (grep without -q reads to the end: an early exit would kill objdump with SIGPIPE, failing the pipeline.)
if objdump -p "$tree/usr/bin/soundtrace" | grep GLIBC_ABI_DT_RELR >/dev/null; then
    [[ "$lib_depends" =~ libc6\ \(\>=\ ([^\)]+)\) ]] || die "Depends ($lib_depends) names no libc6 version to raise to $relr_glibc"
    if dpkg --compare-versions "${BASH_REMATCH[1]}" lt "$relr_glibc"; then
        lib_depends=${lib_depends/"libc6 (>= ${BASH_REMATCH[1]})"/"libc6 (>= $relr_glibc)"}
    fi
fi
# Besides libraries: systemd-sysusers creates the user in postinst, deb-systemd-helper enables the unit.
depends="$lib_depends, systemd | systemd-standalone-sysusers, init-system-helpers"

# Every shared library the binary loads must come from a package named in Depends.
for binary in soundtrace; do
    for soname in $(objdump -p "$tree/usr/bin/$binary" | awk '$1 == "NEEDED" { print $2 }'); do
        # awk reads to the end: an early exit would kill ldconfig with SIGPIPE, failing the pipeline.
        path=$(ldconfig -p | awk -v s="$soname" '$1 == s && $NF ~ /^\// && found == "" { found = $NF } END { print found }')
        [ -n "$path" ] || die "$binary needs $soname, which this system does not have"
        owner=
        for candidate in "$path" "$(readlink -f "$path")" "${path#/usr}" "/usr${path}"; do
            owner=$(dpkg -S "$candidate" 2>/dev/null | awk -F: 'NR == 1 { print $1 }') && [ -n "$owner" ] && break
        done
        [ -n "$owner" ] || die "$binary needs $soname ($path), which no installed package owns"
        [[ ", $depends," == *", $owner "* || ", $depends," == *", $owner,"* ]] \
            || die "$binary needs $soname from package $owner, but Depends ($depends) does not name it"
    done
done

# 4. Control files.
installed_size=$(du -sk --exclude=DEBIAN "$tree" | cut -f1)
cat > "$tree/DEBIAN/control" <<EOF
Package: soundtrace
Version: $version
Architecture: $arch
Maintainer: Soundtrace Engineer <engineer@soundtrace.invalid>
Section: sound
Priority: optional
Installed-Size: $installed_size
Depends: $depends
Recommends: alsa-utils, libmosquitto1
Description: offline recognizer for a small catalog of owned recordings
 Soundtrace is a headless appliance daemon (soundtraced) that listens through
 a microphone when its button is pressed, matches an acoustic fingerprint
 against a bundled catalog, and shows the result on GPIO LEDs and a buzzer.
 Matches are kept in a local history. The companion command soundtrace talks
 to the daemon over a line protocol and builds and checks catalogs offline.
EOF
echo /etc/soundtrace/soundtraced.conf > "$tree/DEBIAN/conffiles"
(cd "$tree" && find . -path ./DEBIAN -prune -o -type f ! -path ./etc/\* -print | sed 's|^\./||' | LC_ALL=C sort | xargs md5sum) > "$tree/DEBIAN/md5sums"

cat > "$tree/DEBIAN/postinst" <<'EOF'
#!/bin/sh
# soundtrace postinst: the service user, the udev rules, then the unit (enabled on first install,
# started or restarted only when systemd is the running init).
set -e
case "$1" in
    configure|abort-upgrade|abort-deconfigure|abort-remove)
        systemd-sysusers /usr/lib/sysusers.d/soundtrace.conf
        # A random LAN token (192 bits), made once and kept: it is used only once bind and
        # token_file are set in soundtraced.conf, but nobody should have to invent one.
        if [ ! -e /etc/soundtrace/token ]; then
            (umask 077 && head -c 24 /dev/urandom | base64 > /etc/soundtrace/token.new)
            chgrp soundtrace /etc/soundtrace/token.new
            chmod 0640 /etc/soundtrace/token.new
            mv /etc/soundtrace/token.new /etc/soundtrace/token
        fi
        if [ -S /run/udev/control ]; then
            # udevd looks up GROUP= names when it parses a rules file, which it may have done at
            # any device event since the unpack, before systemd-sysusers above made the gpio group:
            # the rule then sets the mode but not the group, and a reload skips files whose stat
            # did not change. Touched, the rule is parsed again, now with the group.
            touch /usr/lib/udev/rules.d/60-soundtrace-gpio.rules || true
            udevadm control --reload-rules || true
            udevadm trigger --subsystem-match=gpio --action=change || true
        fi
        # deb-systemd-helper remembers whether the admin disabled the unit, so an upgrade keeps that
        # choice; a first install enables it. It works without a running systemd (symlinks only).
        deb-systemd-helper unmask soundtraced.service >/dev/null || true
        if deb-systemd-helper --quiet was-enabled soundtraced.service; then
            deb-systemd-helper enable soundtraced.service >/dev/null || true
        else
            deb-systemd-helper update-state soundtraced.service >/dev/null || true
        fi
        if [ -d /run/systemd/system ]; then
            systemctl --system daemon-reload >/dev/null || true
            # $2 is the previously configured version: restart on upgrade, start on first install.
            if [ -n "$2" ]; then action=restart; else action=start; fi
            deb-systemd-invoke "$action" soundtraced.service >/dev/null || true
        fi
        ;;
esac
exit 0
EOF
cat > "$tree/DEBIAN/prerm" <<'EOF'
#!/bin/sh
# soundtrace prerm: stop the daemon before its files go away (on upgrade postinst restarts it).
set -e
if [ -d /run/systemd/system ] && [ "$1" = remove ]; then
    deb-systemd-invoke stop soundtraced.service >/dev/null || true
fi
exit 0
EOF
cat > "$tree/DEBIAN/postrm" <<'EOF'
#!/bin/sh
# soundtrace postrm: forget the unit and the udev rule; on purge also the history in /var/lib/soundtrace.
# The soundtrace user and the gpio group stay (Debian never reuses or removes system users).
set -e
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
case "$1" in
    remove)
        if [ -x /usr/bin/deb-systemd-helper ]; then
            deb-systemd-helper mask soundtraced.service >/dev/null || true
        fi
        if [ -S /run/udev/control ]; then udevadm control --reload-rules || true; fi
        ;;
    purge)
        if [ -x /usr/bin/deb-systemd-helper ]; then
            deb-systemd-helper purge soundtraced.service >/dev/null || true
            deb-systemd-helper unmask soundtraced.service >/dev/null || true
        fi
        rm -rf /var/lib/soundtrace
        rm -f /etc/soundtrace/token
        rmdir /etc/soundtrace 2>/dev/null || true
        ;;
esac
exit 0
EOF
chmod 0755 "$tree/DEBIAN/postinst" "$tree/DEBIAN/prerm" "$tree/DEBIAN/postrm"
chmod 0644 "$tree/DEBIAN/control" "$tree/DEBIAN/conffiles" "$tree/DEBIAN/md5sums"

deb="$out_dir/soundtrace_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$tree" "$deb" >&2 || die "dpkg-deb could not build the package"
note "built $deb (Depends: $depends); its debug information: $debug_file"
echo "$deb"
