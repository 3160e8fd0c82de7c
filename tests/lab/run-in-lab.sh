#!/usr/bin/env bash
# Usage: run-in-lab.sh [--build-dir DIR] [--timeout SECONDS] [--keep]
#                      [--script FILE] [--] [CMD [ARGS...]]
#
# Boots the Soft-RoCE lab VM (rxe0..rxe2 on virtio NICs, see README.md), runs
# one command in it and exits with that command's exit status.
#   CMD ARGS...    joined with spaces and run as `sh -c` inside the VM.
#   --script FILE  copy FILE into the VM and run it (its #! line decides the
#                  shell; busybox sh and bash exist); CMD ARGS become its
#                  arguments. Use it for several commands in one boot.
#   --build-dir    the project build whose bin/* goes to /opt/rdmascope/bin
#                  (default: <repo>/build; missing or empty is fine).
#   --timeout      deadline of the command itself (default 600 s).
#   --keep         keep the work dir (logs, initramfs) and print its path.
# The command's stdout+stderr are streamed to stdout; the harness's progress
# goes to stderr. A harness failure exits 125 naming the failed step, with
# the tail of the VM console. Deadlines: LAB_FETCH_TIMEOUT (600),
# LAB_BUILD_TIMEOUT (300), LAB_BOOT_TIMEOUT (180) seconds.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$LAB_DIR/lib/vm.sh"
source "$LAB_DIR/lib/prepare.sh"

build=$LAB_REPO/build timeout_s=600 script="" keep=${RDMASCOPE_LAB_KEEP:-0}
while (($#)); do
  case $1 in
    --build-dir) build=${2:?--build-dir needs a directory}; shift 2 ;;
    --timeout) timeout_s=${2:?--timeout needs seconds}; shift 2 ;;
    --script) script=${2:?--script needs a file}; shift 2 ;;
    --keep) keep=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) lab_die "unknown option $1 (see --help)" ;;
    *) break ;;
  esac
done
[[ $timeout_s =~ ^[0-9]+$ ]] || lab_die "--timeout wants whole seconds, got '$timeout_s'"
[[ -n $script || $# -gt 0 ]] || lab_die "nothing to run: give CMD after -- or --script FILE (see --help)"
[[ -z $script || -f $script ]] || lab_die "script $script not found"

lab_work_dir "$keep"
lab_prepare "$LAB_WORK" "$build" "$script" "$@"

lab_step "boot"
boot_t0=$EPOCHREALTIME
lab_vm_start "$LAB_WORK" "$LAB_KDIR" "$LAB_INITRD" run
lab_vm_wait READY "${LAB_BOOT_TIMEOUT:-180}"
boot_s=$(lab_elapsed "$boot_t0")
lab_step_done "rxe ready, guest uptime ${LAB_VM_UPTIME}s"

lab_step "command"
lab_vm_wait EXIT "$timeout_s"
lab_step_done "exit status $LAB_VM_RC"

lab_step "poweroff"
lab_vm_wait_exit 60
lab_step_done

lab_log "wall time $(lab_elapsed)s (qemu start to rxe ready ${boot_s}s); command exit status $LAB_VM_RC"
exit "$LAB_VM_RC"
