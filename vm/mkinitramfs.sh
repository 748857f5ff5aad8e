#!/usr/bin/env bash
# Builds an uncompressed initramfs (cpio newc) for the virtual board.
#
#   vm/mkinitramfs.sh -o OUT.cpio [-m MODULE[:ARGS]]... [-b BINARY[=GUESTPATH]]... [-p DIR] [-y SCRIPT.py] -c COMMAND
#
#   -m  a kernel module by name (snd-aloop, or gpio-sim for the one built by build-gpio-sim.sh),
#       loaded at boot after its dependencies (from the image's modules.dep); ARGS are module
#       parameters separated by commas, e.g. -m snd-aloop:pcm_substreams=1
#   -b  a dynamically linked program: copied with every library `ldd` reports (Swift runtime
#       libraries included), at the same paths; BINARY=GUESTPATH puts the program itself at
#       GUESTPATH (needed when its host path is under /tmp, which the guest's /init mounts over). gpio*, aplay and arecord from the cache are added always.
#   -p  a directory copied to /payload (the command's working directory)
#   -y  the host's Debian python3 as /usr/bin/python3, with just the standard library modules that
#       SCRIPT.py imports (found by importing it on the host; it must not run anything on import),
#       their compiled .pyc and the C libraries of their extension modules: a few MB, not the 50 MB
#       of the whole library. Run it in the guest as `python3 -S -E SCRIPT.py` (no site module).
#   -c  the shell command the guest runs; its exit status is the VM's result
#
# Always included: busybox, ALSA's configuration (/usr/share/alsa) and the guest /init.
# Uncompressed because decompressing under TCG costs more than reading the bigger image.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out='' command='' payload='' pyscript=''
mods=() bins=()
while getopts "o:m:b:p:y:c:" opt; do
  case $opt in
    o) out=$OPTARG ;; m) mods+=("$OPTARG") ;; b) bins+=("$OPTARG") ;;
    p) payload=$OPTARG ;; y) pyscript=$OPTARG ;; c) command=$OPTARG ;;
    *) die "usage: $0 -o OUT.cpio [-m MODULE[:ARGS]]... [-b BINARY[=GUESTPATH]]... [-p DIR] [-y SCRIPT.py] -c COMMAND" ;;
  esac
done
[ -n "$out" ] && [ -n "$command" ] || die "usage: $0 -o OUT.cpio [-m MODULE[:ARGS]]... [-b BINARY[=GUESTPATH]]... [-p DIR] -c COMMAND"
abi=$(kernel_abi)
moddir=$kroot/lib/modules/$abi
[ -f "$moddir/modules.dep" ] || die "no unpacked kernel in $kroot; run vm/fetch.sh"
[ -x "$guestroot/bin/busybox" ] || die "no busybox in $guestroot; run vm/fetch.sh"

stage=$(mktemp -d "${TMPDIR:-/tmp}/soundtrace-vm-initrd.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,etc/vm,lib/modules/"$abi",usr/bin,usr/share,proc,sys,dev,tmp,run,root,payload}

install -m 0755 "$guestroot/bin/busybox" "$stage/bin/busybox"
install -m 0755 "$vm_dir/guest/init" "$stage/init"
cp -a "$guestroot/usr/share/alsa" "$stage/usr/share/alsa"
printf '%s\n' "$command" >"$stage/etc/vm/command"
echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"

# --- modules: dependency order from modules.dep (a module's dependencies load before it)
loaded=()
add_module_file() { # add_module_file RELPATH-or-ABSPATH ARGS
  local src=$1 args=$2 dest
  case $src in
    /*) dest=/lib/modules/$abi/extra/$(basename "$src") ;;
    *) dest=/lib/modules/$abi/$src; src=$moddir/$src ;;
  esac
  for l in "${loaded[@]+"${loaded[@]}"}"; do [ "$l" = "$dest" ] && return 0; done
  mkdir -p "$stage$(dirname "$dest")"
  cp "$src" "$stage$dest"
  loaded+=("$dest")
  echo "$dest ${args//,/ }" >>"$stage/etc/vm/modules"
}
add_module_with_deps() { # add_module_with_deps RELPATH ARGS
  local rel=$1 deps d
  deps=$(sed -n "s|^$rel: *||p" "$moddir/modules.dep")
  # modules.dep lists each module's dependencies closest-first: load them from the end.
  for d in $(echo "$deps" | tr ' ' '\n' | tac); do add_module_file "$d" ""; done
  add_module_file "$rel" "$2"
}
: >"$stage/etc/vm/modules"
for spec in "${mods[@]+"${mods[@]}"}"; do
  name=${spec%%:*} args=
  [ "$name" = "$spec" ] || args=${spec#*:}
  if [ "$name" = gpio-sim ]; then
    ko=$("$vm_dir/build-gpio-sim.sh")
    for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
      rel=$(grep -E "(^|/)${dep//[-_]/[-_]}\.ko(\.[a-z]+)?:" "$moddir/modules.dep" | cut -d: -f1 | head -n 1)
      [ -n "$rel" ] || die "gpio-sim needs $dep, which $abi does not ship as a module"
      add_module_with_deps "$rel" ""
    done
    add_module_file "$ko" "$args"
  else
    rel=$(grep -E "(^|/)${name//[-_]/[-_]}\.ko(\.[a-z]+)?:" "$moddir/modules.dep" | cut -d: -f1 | head -n 1)
    [ -n "$rel" ] || die "kernel $abi has no module $name (built in? see $moddir/modules.builtin)"
    add_module_with_deps "$rel" "$args"
  fi
done

# --- programs and their libraries
guest_libs=$guestroot/usr/lib/x86_64-linux-gnu:$guestroot/lib/x86_64-linux-gnu
add_file() { # add_file HOSTPATH [GUESTPATH]: at the same path in the guest (cache prefix stripped) unless GUESTPATH, symlinks resolved
  local src=$1 dest=${2:-${1#"$guestroot"}}
  [ -e "$stage$dest" ] && return 0
  mkdir -p "$stage$(dirname "$dest")"
  cp -L "$src" "$stage$dest"
}
add_binary() { # add_binary HOSTPATH [GUESTPATH]
  local bin=$1
  [ -x "$bin" ] || die "not an executable: $bin"
  add_file "$bin" "${2:-}"
  add_libraries "$bin"
}
add_libraries() { # add_libraries HOSTPATH: the shared libraries a program or library needs
  local bin=$1 line lib ldd_out
  if ! ldd_out=$(LD_LIBRARY_PATH=$guest_libs ldd "$bin" 2>&1); then
    case $ldd_out in *"not a dynamic executable"*) return 0 ;; esac
    die "ldd $bin failed: $ldd_out"
  fi
  while read -r line; do
    case $line in
      *"not found"*) die "$bin needs a library the host cannot find: $line" ;;
      *"=> /"*) lib=${line#*=> }; lib=${lib%% (*} ;;
      /*) lib=${line%% (*} ;;
      *) continue ;;
    esac
    add_file "$lib"
    # the loader must also be reachable under the name the binary asks for (e.g. /lib64/ld-linux-x86-64.so.2)
  done <<<"$ldd_out"
}
for b in gpiodetect gpioinfo gpiofind gpioget gpioset gpiomon; do add_binary "$guestroot/usr/bin/$b"; done
for b in aplay arecord amixer; do add_binary "$guestroot/usr/bin/$b"; done
for b in "${bins[@]+"${bins[@]}"}"; do
  case $b in
    *=/*) add_binary "$(readlink -f "${b%%=*}")" "${b#*=}" ;;
    *) add_binary "$(readlink -f "$b")" ;;
  esac
done
if [ -n "$pyscript" ]; then
  [ -f "$pyscript" ] || die "no python script $pyscript"
  # Debian's interpreter, not one from PATH (pyenv's, say, would want its own prefix).
  py=$(readlink -f /usr/bin/python3)
  [ -x "$py" ] || die "no /usr/bin/python3 on the host"
  add_binary "$py" /usr/bin/python3
  # Imported the way the guest runs it (-S -E: no site, no environment), with the encodings a
  # C-locale start needs and the one sockets load lazily; what the script's own folder provides
  # comes with the payload.
  py_files=$(cd "$(dirname "$pyscript")" && "$py" -S -E -c '
import os, sys
sys.path.insert(0, ".")
import encodings.utf_8, encodings.ascii, encodings.latin_1, encodings.idna  # idna: socket.getaddrinfo
__import__(sys.argv[1])
lib = os.path.dirname(os.__file__)
print(os.__file__)
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None)
    if f and os.path.abspath(f).startswith(lib + "/"):
        print(os.path.abspath(f))' "$(basename "$pyscript" .py)") || die "python3 could not import $pyscript on the host"
  tag=$("$py" -c 'import sys; print(sys.implementation.cache_tag)')
  while read -r f; do
    [ -n "$f" ] || continue
    mkdir -p "$stage$(dirname "$f")"
    # -p: a .pyc is used only while its source keeps the modification time it was compiled from.
    cp -pL "$f" "$stage$f"
    case $f in
      *.py) pyc=$(dirname "$f")/__pycache__/$(basename "$f" .py).$tag.pyc
            if [ -f "$pyc" ]; then mkdir -p "$stage$(dirname "$pyc")" && cp -p "$pyc" "$stage$pyc"; fi ;;
      *.so) add_libraries "$f" ;;
    esac
  done <<<"$py_files"
fi
# Debian's /lib is a symlink to /usr/lib on the host; in the guest both spellings must work.
for d in lib lib64; do
  if [ -d "$stage/usr/$d" ]; then
    if [ -d "$stage/$d" ]; then cp -a "$stage/$d/." "$stage/usr/$d/" && rm -rf "${stage:?}/$d"; fi
    ln -s "usr/$d" "$stage/$d"
  fi
done

if [ -n "$payload" ]; then
  [ -d "$payload" ] || die "payload directory not found: $payload"
  cp -a "$payload/." "$stage/payload/"
fi

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc --owner=0:0) >"$out.tmp"
mv "$out.tmp" "$out"
say "initramfs $out: $(du -h "$out" | cut -f1), modules: $(cut -d' ' -f1 "$stage/etc/vm/modules" | xargs -n1 basename | tr '\n' ' ')"
