#!/usr/bin/env bash
# Usage: serve.sh [--build-dir DIR] [--host-port 8080] [--guest-port 8080]
#                 [--keep] [--script FILE] [--] [CMD [ARGS...]]
#
# Boots the lab like run-in-lab.sh, runs CMD (e.g. one that starts the
# collector and agents) and keeps the VM running in the foreground until
# Ctrl-C or SIGTERM, then stops qemu. Exactly one port is forwarded:
# 127.0.0.1:HOST_PORT on the host to GUEST_PORT on the VM's 10.0.2.15, over
# a restricted user-mode network that gives the VM no way out.
# CMD's output is streamed to stdout; when CMD ends, the VM stays up.
# Exits 0 when stopped by a signal, 125 if the lab fails (step named).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$LAB_DIR/lib/vm.sh"
source "$LAB_DIR/lib/prepare.sh"

build=$LAB_REPO/build host_port=8080 guest_port=8080 script="" keep=${RDMASCOPE_LAB_KEEP:-0}
while (($#)); do
  case $1 in
    --build-dir) build=${2:?--build-dir needs a directory}; shift 2 ;;
    --host-port) host_port=${2:?--host-port needs a port}; shift 2 ;;
    --guest-port) guest_port=${2:?--guest-port needs a port}; shift 2 ;;
    --script) script=${2:?--script needs a file}; shift 2 ;;
    --keep) keep=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) lab_die "unknown option $1 (see --help)" ;;
    *) break ;;
  esac
done
for p in "$host_port" "$guest_port"; do
  if ! [[ $p =~ ^[0-9]+$ ]] || ((p < 1 || p > 65535)); then lab_die "bad port '$p'"; fi
done
[[ -z $script || -f $script ]] || lab_die "script $script not found"
if (exec 3<>"/dev/tcp/127.0.0.1/$host_port") 2>/dev/null; then
  lab_die "127.0.0.1:$host_port is already in use on the host (choose --host-port)"
fi

lab_work_dir "$keep"
# Stopping a server by a signal is its normal end.
trap 'lab_log "stopping the lab (SIGINT)"; exit 0' INT
trap 'lab_log "stopping the lab (SIGTERM)"; exit 0' TERM
[[ -n $script || $# -gt 0 ]] || set -- true
lab_prepare "$LAB_WORK" "$build" "$script" "$@"

lab_step "boot"
LAB_FWD=$host_port:$guest_port lab_vm_start "$LAB_WORK" "$LAB_KDIR" "$LAB_INITRD" serve
lab_vm_wait READY "${LAB_BOOT_TIMEOUT:-180}"
lab_step_done "rxe ready, guest uptime ${LAB_VM_UPTIME}s"

lab_step "serve"
lab_log "serving: http://127.0.0.1:$host_port/ -> guest 10.0.2.15:$guest_port (wall time to ready $(lab_elapsed)s); Ctrl-C stops the lab"
reported=""
while lab_pid_alive "$LAB_QEMU_PID"; do
  lab_vm_poll
  if [[ -n $LAB_VM_RC && -z $reported ]]; then
    lab_log "the command exited with status $LAB_VM_RC; the lab keeps running"
    reported=1
  fi
  sleep 0.2
done
lab_die "qemu exited while serving"
