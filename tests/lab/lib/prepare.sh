# shellcheck shell=bash
# The two steps before every boot. Sourced after common.sh.
#
# Contract: lab_prepare WORK BUILD SCRIPT [CMD...]
#   - step 'kernel': fetch-kernel.sh, sets LAB_KDIR.
#   - step 'initramfs': writes WORK/initramfs.cpio (LAB_INITRD) holding the
#     project's BUILD/bin and /opt/rdmascope/lab/cmd, the command line the
#     guest runs with sh -c: CMD joined with spaces, or, when SCRIPT is not
#     empty, SCRIPT (copied to /opt/rdmascope/lab/script) with CMD as its
#     arguments, each quoted.
#   Deadlines: LAB_FETCH_TIMEOUT (600 s per apt step), LAB_BUILD_TIMEOUT (300 s).

# lab_quote ARGS...: each argument single-quoted for sh, space-separated.
lab_quote() {
  local a out=""
  for a in "$@"; do out+=" '${a//\'/\'\\\'\'}'"; done
  printf '%s' "${out# }"
}

# lab_child_failed RC NAME: a helper script failed; it has named the failure
# itself unless it was killed by its deadline (timeout's 124) or crashed.
lab_child_failed() {
  (($1 == LAB_EXIT_HARNESS)) && exit "$LAB_EXIT_HARNESS"
  (($1 == 124)) && lab_die "$2 passed its deadline"
  lab_die "$2 failed with status $1"
}

lab_prepare() {
  local work=$1 build=$2 script=$3
  shift 3
  ((EUID == 0)) || lab_die "the lab must be built as root (mknod /dev/console in the initramfs)"

  lab_step "kernel"
  LAB_KDIR=$(timeout "$((${LAB_FETCH_TIMEOUT:-600} * 3 + 60))" "$LAB_DIR/lib/fetch-kernel.sh") ||
    lab_child_failed $? "fetch-kernel.sh"
  lab_step_done "$(basename "$LAB_KDIR")"

  lab_step "initramfs"
  local dir=$work/extra/opt/rdmascope/lab
  mkdir -p "$dir"
  if [[ -n $script ]]; then
    if ! cp "$script" "$dir/script" || ! chmod 755 "$dir/script"; then lab_die "cannot copy $script"; fi
    printf '%s\n' "/opt/rdmascope/lab/script $(lab_quote "$@")" > "$dir/cmd"
  else
    printf '%s\n' "$*" > "$dir/cmd"
  fi
  [[ -d $build/bin ]] || lab_log "note: $build/bin does not exist: no project binaries in the VM"
  LAB_INITRD=$work/initramfs.cpio
  timeout "${LAB_BUILD_TIMEOUT:-300}" "$LAB_DIR/lib/build-initramfs.sh" --kernel "$LAB_KDIR" \
    --build-dir "$build" --extra "$work/extra" --out "$LAB_INITRD" ||
    lab_child_failed $? "build-initramfs.sh"
  lab_step_done
}

# lab_work_dir KEEP: make the work dir (LAB_WORK) and the traps that stop the
# VM and remove it (unless KEEP is 1) on any exit or signal.
lab_work_dir() {
  LAB_KEEP=$1
  LAB_WORK=$(mktemp -d "${TMPDIR:-/tmp}/rdmascope-lab.XXXXXX") || lab_die "mktemp failed"
  trap lab_cleanup EXIT
  trap 'lab_log "interrupted (SIGINT) during step '"'"'$LAB_STEP'"'"'"; exit 130' INT
  trap 'lab_log "terminated (SIGTERM) during step '"'"'$LAB_STEP'"'"'"; exit 143' TERM
}

lab_cleanup() {
  lab_vm_stop
  if [[ $LAB_KEEP == 1 ]]; then lab_log "work dir kept: $LAB_WORK"; else rm -rf "$LAB_WORK"; fi
}
