#!/usr/bin/env bash
# Usage: fetch-kernel.sh
# Prints (stdout, one line) the directory of an unpacked Debian kernel:
#   DIR/vmlinuz, DIR/config, DIR/modules/ (the lib/modules/<version> tree),
#   and DIR/vmlinux when the kernel can boot through its PVH entry.
#
# Contract:
#   - The package is LAB_KERNEL_PKG, or the versioned package the metapackage
#     linux-image-amd64 depends on (apt-cache depends), resolved at each run.
#   - Cached by package name under $LAB_CACHE/<pkg>/; a complete cache entry
#     (marker file .complete) is reused without any network access.
#   - `apt-get download` is retried once after `apt-get update`, only if the
#     first attempt fails. The package is never installed.
#   - Concurrent runs serialise on $LAB_CACHE/.lock. A new download removes
#     the cache entries of other kernel packages.
#   - Deadline: LAB_FETCH_TIMEOUT seconds (default 600) for each apt step.
#   - DIR/vmlinux is the uncompressed kernel (an ELF with a PVH entry note),
#     taken out of vmlinuz once, also for a cache entry made before it was
#     kept. qemu starts it directly: under TCG, the bzImage's own xz
#     decompression costs about 6 s of every boot. It is absent when the
#     kernel has no PVH entry or cannot be unpacked; the VM then boots vmlinuz.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

timeout_s=${LAB_FETCH_TIMEOUT:-600}

resolve_pkg() {
  apt-cache depends linux-image-amd64 2>/dev/null |
    awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

pkg=${LAB_KERNEL_PKG:-}
if [[ -z $pkg ]]; then
  pkg=$(resolve_pkg || true)
  if [[ -z $pkg ]]; then
    lab_log "apt-cache does not know linux-image-amd64; running apt-get update"
    timeout "$timeout_s" apt-get update -q >&2 || lab_die "apt-get update failed"
    pkg=$(resolve_pkg || true)
  fi
  [[ -n $pkg ]] || lab_die "cannot resolve the kernel package: apt-cache depends linux-image-amd64 names no linux-image-<version> (set LAB_KERNEL_PKG)"
fi

dir=$LAB_CACHE/$pkg
mkdir -p "$LAB_CACHE" || lab_die "cannot create cache dir $LAB_CACHE"
exec 9>"$LAB_CACHE/.lock"
flock -w "$timeout_s" 9 || lab_die "cache lock $LAB_CACHE/.lock busy for ${timeout_s}s"

# extract_vmlinux DIR: write DIR/vmlinux (see the contract) if missing and
# possible; DIR/.no-pvh records that it is not, so it is tried once.
extract_vmlinux() {
  local d=$1 magic tool off
  [[ -f $d/vmlinux || -f $d/.no-pvh ]] && return 0
  for magic in xz gzip zstd; do
    case $magic in
      xz) off=$(LC_ALL=C grep -abo $'\xfd7zXZ\x00' "$d/vmlinuz" | head -1 || true) tool=(xz -dc --single-stream) ;;
      gzip) off=$(LC_ALL=C grep -abo $'\x1f\x8b\x08' "$d/vmlinuz" | head -1 || true) tool=(gzip -dc) ;;
      zstd) off=$(LC_ALL=C grep -abo $'\x28\xb5\x2f\xfd' "$d/vmlinuz" | head -1 || true) tool=(zstd -dc) ;;
    esac
    [[ -n $off ]] && command -v "${tool[0]}" >/dev/null || continue
    tail -c +$((${off%%:*} + 1)) "$d/vmlinuz" | "${tool[@]}" > "$d/vmlinux.tmp" 2>/dev/null || true
    # 0x12 is XEN_ELFNOTE_PHYS32_ENTRY, the PVH entry point qemu looks for.
    if [[ $(head -c 4 "$d/vmlinux.tmp" | od -An -tx1 | tr -d ' ') == 7f454c46 ]] &&
       readelf -n "$d/vmlinux.tmp" 2>/dev/null | grep -Eq 'Xen[[:space:]]+0x[0-9a-f]+[[:space:]]+Unknown note type: \(0x00000012\)'; then
      mv "$d/vmlinux.tmp" "$d/vmlinux"
      lab_log "kernel: uncompressed PVH kernel in $d/vmlinux"
      return 0
    fi
  done
  rm -f "$d/vmlinux.tmp"
  touch "$d/.no-pvh"
  lab_log "kernel: no PVH entry in $d/vmlinuz; the VM boots the compressed kernel"
}

if [[ -f $dir/.complete ]]; then
  extract_vmlinux "$dir"
  lab_log "kernel $pkg: cached in $dir"
  echo "$dir"
  exit 0
fi

rm -rf "$dir" "$dir.tmp"
mkdir -p "$dir.tmp/deb"
trap 'rm -rf "$dir.tmp"' EXIT
download() {
  (cd "$dir.tmp/deb" && timeout "$timeout_s" apt-get -q -o APT::Sandbox::User=root download "$pkg") >&2
}
lab_log "kernel $pkg: downloading"
if ! download; then
  lab_log "apt-get download $pkg failed; running apt-get update and retrying once"
  timeout "$timeout_s" apt-get update -q >&2 || lab_die "apt-get update failed"
  download || lab_die "cannot download kernel package $pkg (apt-get download failed twice)"
fi
debs=("$dir.tmp"/deb/*.deb)
deb=${debs[0]}
[[ -f $deb ]] || lab_die "apt-get download $pkg produced no .deb"

lab_log "kernel $pkg: unpacking $(basename "$deb")"
mkdir -p "$dir.tmp/root"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir.tmp/root" ||
  lab_die "cannot unpack $deb (dpkg-deb --fsys-tarfile | tar -x)"

# The package may use /lib or /usr/lib for modules; take whichever exists.
shopt -s nullglob
vmlinuz=("$dir.tmp"/root/boot/vmlinuz-*)
config=("$dir.tmp"/root/boot/config-*)
mods=("$dir.tmp"/root/lib/modules/*/ "$dir.tmp"/root/usr/lib/modules/*/)
shopt -u nullglob
((${#vmlinuz[@]} && ${#mods[@]})) || lab_die "$pkg holds no boot/vmlinuz-* or lib/modules/<version>/"
mv "${vmlinuz[0]}" "$dir.tmp/vmlinuz"
if ((${#config[@]})); then mv "${config[0]}" "$dir.tmp/config"; fi
mv "${mods[0]%/}" "$dir.tmp/modules"
rm -rf "$dir.tmp/root"
extract_vmlinux "$dir.tmp"
touch "$dir.tmp/.complete"
mv "$dir.tmp" "$dir"
# One kernel is enough: drop entries of older package names.
for old in "$LAB_CACHE"/linux-image-*; do
  [[ $old == "$dir" ]] || rm -rf "$old"
done
lab_log "kernel $pkg: ready in $dir"
echo "$dir"
