#!/usr/bin/env bash
# Usage: build-initramfs.sh --kernel KDIR --build-dir BDIR --extra XDIR --out FILE
# Writes FILE, a newc cpio (uncompressed: TCG unpacks it faster than gzip)
# that boots the lab:
#   /init                      tests/lab/guest/init
#   /opt/rdmascope/lab/        the other tests/lab/guest files, the kernel
#                              modules in load order (modules/order)
#   /opt/rdmascope/bin/        every executable of BDIR/bin but the
#                              GoogleTest programs (*_test: they run on the
#                              host, and are three quarters of the bytes a
#                              slow TCG boot has to load), debug info
#                              stripped; missing or empty BDIR/bin is fine
#   /opt/rdmascope/fixtures/   tests/fixtures
#   /opt/rdmascope/web/        web/ (the dashboard the collector serves)
#   busybox applets, the rdma/ibverbs/perftest/iproute2 tools, bash (also as
#   /bin/sh), the rxe
#   verbs provider with only rxe.driver, and every library ldd lists for all
#   included binaries, at the paths ldd names.
#   XDIR's content is copied over the root last (run-specific files).
# FILE is two newc archives back to back, which the kernel unpacks in order:
# the base (all but XDIR) and XDIR's. With BDIR, the base is kept as
# BDIR/lab/initramfs-base.cpio and reused while its key (BDIR/lab/
# initramfs-base.key: this script, modules.sh, the guest files, the kernel,
# the names, sizes and times of BDIR/bin, tests/fixtures and web/, and the
# host's package database) is unchanged; every lab boot of one build would
# otherwise spend seconds making the same archive. BDIR/lab/.lock serialises
# runs that share BDIR.
# Must run as root (mknod /dev/console). Fails naming the missing piece.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

kdir="" bdir="" xdir="" out=""
while (($#)); do
  case $1 in
    --kernel) kdir=$2; shift 2 ;;
    --build-dir) bdir=$2; shift 2 ;;
    --extra) xdir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) lab_die "build-initramfs.sh: unknown argument $1" ;;
  esac
done
[[ -n $kdir && -n $out ]] || lab_die "build-initramfs.sh: --kernel and --out are required"

# Modules the lab loads, roots only: modules.sh adds their dependencies.
# crc32_generic is not a declared dependency: rxe asks the crypto API for it.
MODULES=(virtio_pci virtio_net crc32_generic ib_uverbs rdma_rxe sch_netem sch_prio cls_u32 rdma_ucm)
HOST_TOOLS=(/usr/sbin/ip /usr/sbin/tc /usr/bin/rdma /usr/bin/bash)
PROVIDER=/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
PROVIDER_DRIVER=/etc/libibverbs.d/rxe.driver

root=$out.root
xroot=$out.xroot
rm -rf "$root" "$xroot"
trap 'rm -rf "$root" "$xroot" "$out.base.part"' EXIT

# base_key: one line that changes whenever the base archive would.
base_key() {
  {
    cat "$LAB_DIR/lib/build-initramfs.sh" "$LAB_DIR/lib/modules.sh" "$LAB_DIR"/guest/*
    echo "kernel $kdir"
    find "$kdir/vmlinuz" "$kdir/modules" -maxdepth 0 -printf '%p %s %T@\n'
    find "$bdir/bin" "$LAB_REPO/tests/fixtures" "$LAB_REPO/web" -printf '%p %s %T@ %m\n' 2>/dev/null | LC_ALL=C sort || true
    find /var/lib/dpkg/status -printf '%s %T@\n'
  } | sha256sum | cut -d' ' -f1
}

# write_base FILE: the base archive.
write_base() {
  mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{dev,proc,sys,tmp,run,root,etc} \
    "$root"/opt/rdmascope/{bin,fixtures,lab/modules}
  for d in bin sbin lib lib64; do ln -s "usr/$d" "$root/$d"; done

  declare -A copied
  # put SRC DEST: copy SRC (dereferenced) to absolute path DEST inside the root.
  put() {
    [[ -n ${copied[$2]:-} ]] && return 0
    copied[$2]=1
    mkdir -p "$root$(dirname "$2")"
    rm -f "$root$2"
    cp -L "$1" "$root$2" || lab_die "cannot copy $1 into the initramfs"
  }
  is_elf() { [[ $(head -c4 "$1" 2>/dev/null) == $'\177ELF' ]]; }
  # put_libs ELF: copy every library ldd lists for ELF.
  put_libs() {
    local lines lib
    lines=$(ldd "$1" 2>&1) || { [[ $lines == *"not a dynamic executable"* ]] && return 0; lab_die "ldd $1 failed: $lines"; }
    if grep -q 'not found' <<<"$lines"; then
      lab_die "$1 needs a library that is not on the host: $(grep 'not found' <<<"$lines" | tr -s ' \t' ' ')"
    fi
    while read -r lib; do put "$lib" "$lib"; done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$lines")
  }
  # put_bin SRC DEST: a binary plus its libraries.
  put_bin() { put "$1" "$2"; put_libs "$1"; }

  # busybox first: real tools copied later replace its applet links.
  [[ -x /bin/busybox ]] || lab_die "/bin/busybox missing (Debian package busybox-static): run tests/lab/setup-host.sh"
  put /bin/busybox /usr/bin/busybox
  while read -r applet; do
    [[ -e $root/$applet || -L $root/$applet ]] || { mkdir -p "$root/$(dirname "$applet")"; ln -s /usr/bin/busybox "$root/$applet"; }
  done < <(/bin/busybox --list-full)

  # Host RDMA and network tools.
  tools=("${HOST_TOOLS[@]}")
  for pkg in ibverbs-utils perftest; do
    mapfile -t -O "${#tools[@]}" tools < <(dpkg-query -L "$pkg" 2>/dev/null | grep '^/usr/bin/') ||
      true
    dpkg-query -W "$pkg" >/dev/null 2>&1 || lab_die "Debian package $pkg missing: run tests/lab/setup-host.sh"
  done
  for t in "${tools[@]}"; do
    [[ -f $t ]] || lab_die "host tool $t missing: run tests/lab/setup-host.sh"
    if is_elf "$t"; then put_bin "$t" "$t"; else put "$t" "$t"; fi
  done
  while read -r f; do put "$f" "$f"; done < <(dpkg-query -L iproute2 | grep '/tc/.*\.dist$')
  # busybox's sh runs its own applets (ip, tc, ping...) ahead of PATH, so
  # /bin/sh is bash: the tools named ip and tc are iproute2's everywhere.
  rm -f "$root/usr/bin/sh"
  ln -s bash "$root/usr/bin/sh"
  [[ -f $PROVIDER && -f $PROVIDER_DRIVER ]] ||
    lab_die "rxe verbs provider ($PROVIDER, $PROVIDER_DRIVER) missing: Debian package ibverbs-providers, run tests/lab/setup-host.sh"
  put_bin "$PROVIDER" "$PROVIDER"
  put "$PROVIDER_DRIVER" "$PROVIDER_DRIVER"

  # The project's binaries.
  nbin=0
  if [[ -n $bdir && -d $bdir/bin ]]; then
    for f in "$bdir"/bin/*; do
      [[ -f $f && -x $f && $f != *_test ]] || continue
      dest=/opt/rdmascope/bin/${f##*/}
      if is_elf "$f"; then
        objcopy --strip-debug "$f" "$root$dest" || lab_die "objcopy --strip-debug $f failed"
        put_libs "$f"
      else
        cp "$f" "$root$dest"
      fi
      nbin=$((nbin + 1))
    done
  fi
  lab_log "initramfs: $nbin project binaries from ${bdir:-<none>}/bin"

  # Kernel modules, in load order.
  mapfile -t kos < <("$LAB_DIR/lib/modules.sh" "$kdir/modules" "${MODULES[@]}") ||
    lab_die "cannot resolve kernel modules ${MODULES[*]}"
  ((${#kos[@]})) || lab_die "module resolution returned nothing"
  for ko in "${kos[@]}"; do
    cp "$kdir/modules/$ko" "$root/opt/rdmascope/lab/modules/" || lab_die "cannot copy module $ko"
    echo "${ko##*/}" >> "$root/opt/rdmascope/lab/modules/order"
  done

  # Guest scripts, fixtures, run-specific files.
  cp "$LAB_DIR/guest/init" "$root/init"
  for f in "$LAB_DIR"/guest/*; do
    [[ ${f##*/} == init ]] || cp -r "$f" "$root/opt/rdmascope/lab/"
  done
  [[ -d $LAB_REPO/tests/fixtures ]] && cp -r "$LAB_REPO/tests/fixtures/." "$root/opt/rdmascope/fixtures/"
  if [[ -d $LAB_REPO/web ]]; then
    mkdir -p "$root/opt/rdmascope/web" && cp -r "$LAB_REPO/web/." "$root/opt/rdmascope/web/" || lab_die "cannot copy web/"
  fi
  chmod 755 "$root/init"

  mknod -m 600 "$root/dev/console" c 5 1 || lab_die "mknod /dev/console failed (the harness must run as root)"
  mknod -m 666 "$root/dev/null" c 1 3 || lab_die "mknod /dev/null failed"

  (cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$1" ||
    lab_die "cpio failed"
  rm -rf "$root"
  lab_log "initramfs: base $(du -m "$1" | cut -f1) MB, ${#kos[@]} modules"
}

if [[ -n $bdir && -d $bdir/bin ]]; then
  cache=$bdir/lab
  mkdir -p "$cache" || lab_die "cannot create $cache"
  exec 8>"$cache/.lock"
  flock -w 300 8 || lab_die "$cache/.lock busy for 300 s"
  key=$(base_key)
  if [[ -f $cache/initramfs-base.cpio && $(cat "$cache/initramfs-base.key" 2>/dev/null) == "$key" ]]; then
    lab_log "initramfs: base unchanged, reused from $cache"
  else
    rm -f "$cache/initramfs-base.key"
    write_base "$out.base.part"
    mv "$out.base.part" "$cache/initramfs-base.cpio"
    echo "$key" > "$cache/initramfs-base.key"
  fi
  base=$cache/initramfs-base.cpio
else
  write_base "$out.base.part"
  base=$out.base.part
fi

# The run's own files, as a second archive after the base.
mkdir -p "$xroot"
[[ -n $xdir ]] && cp -a "$xdir/." "$xroot/"
{ cat "$base" && (cd "$xroot" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet); } > "$out.part" ||
  lab_die "cpio failed"
mv "$out.part" "$out"
lab_log "initramfs: $(du -m "$out" | cut -f1) MB"
