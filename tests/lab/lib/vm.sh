# shellcheck shell=bash
# Starting, watching and stopping the lab VM. Sourced after common.sh.
#
# Contract:
#   - lab_vm_start WORK KDIR INITRD MODE [QEMU_ARGS...] starts qemu (TCG) in
#     the background: LAB_QEMU_PID. Files in WORK: console.log (ttyS0),
#     output.log (ttyS1: the command's raw output), status.log (ttyS2: the
#     events of tests/lab/guest/init), qemu.log (qemu's own messages).
#     LAB_NICS hub NICs (default 3), LAB_MEM MiB (default 512), LAB_SMP (2).
#     LAB_FWD=HOSTPORT:GUESTPORT adds one more NIC on a restricted user-mode
#     network (no way out) forwarding 127.0.0.1:HOSTPORT to the guest's
#     10.0.2.15:GUESTPORT.
#     The command's output is streamed to stdout while the VM runs.
#   - lab_vm_wait EVENT SECONDS returns once the guest reported EVENT
#     (READY or EXIT); it calls lab_die when the guest reports FAIL, when
#     qemu exits first, or at the deadline. LAB_VM_UPTIME / LAB_VM_RC hold
#     the guest's uptime at READY and the command's exit status.
#   - lab_vm_stop kills qemu and the streamer by PID; safe to call twice.
#     Callers run it from an EXIT trap so nothing is left running.

# shellcheck disable=SC2034  # LAB_VM_UPTIME is read by the callers
LAB_QEMU_PID="" LAB_TAIL_PID="" LAB_STATUS_SEEN=0
LAB_VM_READY="" LAB_VM_RC="" LAB_VM_FAIL="" LAB_VM_UPTIME=""

lab_vm_start() {
  local work=$1 kdir=$2 initrd=$3 mode=$4
  shift 4
  local nics=${LAB_NICS:-3} i netargs=()
  for ((i = 0; i < nics; i++)); do
    netargs+=(-netdev "hubport,id=n$i,hubid=0"
              -device "virtio-net-pci,netdev=n$i,mac=$(printf '52:54:00:77:00:%02x' $((i + 1)))")
  done
  LAB_CONSOLE=$work/console.log LAB_QEMU_LOG=$work/qemu.log
  LAB_OUTPUT=$work/output.log LAB_STATUS=$work/status.log
  : > "$LAB_OUTPUT"; : > "$LAB_STATUS"; : > "$LAB_CONSOLE"
  local fwd=0
  if [[ -n ${LAB_FWD:-} ]]; then
    fwd=1
    netargs+=(-netdev "user,id=fwd,restrict=on,hostfwd=tcp:127.0.0.1:${LAB_FWD%%:*}-:${LAB_FWD#*:}"
              -device "virtio-net-pci,netdev=fwd,mac=52:54:00:77:ff:01")
  fi
  lab_need_cmd qemu-system-x86_64 qemu-system-x86
  # The uncompressed PVH kernel when fetch-kernel.sh made one (it saves the
  # bzImage's in-guest decompression), else the compressed one.
  local kernel=$kdir/vmlinuz
  [[ -f $kdir/vmlinux ]] && kernel=$kdir/vmlinux
  # no_timer_check: under TCG on a busy host the kernel's IO-APIC timer probe
  # can miss its window and panic ("IO-APIC + timer doesn't work"); skip it.
  qemu-system-x86_64 \
    -accel tcg,thread=multi -cpu max -smp "${LAB_SMP:-2}" -m "${LAB_MEM:-512}" \
    -nodefaults -display none -no-reboot \
    -kernel "$kernel" -initrd "$initrd" \
    -append "console=ttyS0 panic=-1 no_timer_check rdmascope.nics=$nics rdmascope.fwd=$fwd rdmascope.mode=$mode ${LAB_APPEND:-}" \
    -chardev "file,id=con,path=$LAB_CONSOLE,append=on" -serial chardev:con \
    -chardev "file,id=out,path=$LAB_OUTPUT,append=on" -serial chardev:out \
    -chardev "file,id=st,path=$LAB_STATUS,append=on" -serial chardev:st \
    "${netargs[@]}" "$@" \
    < /dev/null > "$LAB_QEMU_LOG" 2>&1 &
  LAB_QEMU_PID=$!
  tail -c +1 -s 0.1 -f --pid="$LAB_QEMU_PID" "$LAB_OUTPUT" &
  LAB_TAIL_PID=$!
}

# lab_pid_alive PID: true while PID runs (a zombie counts as ended).
lab_pid_alive() {
  local st
  [[ -n $1 ]] && read -r _ _ st _ 2>/dev/null < "/proc/$1/stat" && [[ $st != Z ]]
}

# lab_vm_poll: read new status lines; relay guest steps to stderr.
lab_vm_poll() {
  local lines line n=0
  mapfile -t lines < <(tr -d '\r' < "$LAB_STATUS")
  for line in "${lines[@]:LAB_STATUS_SEEN}"; do
    n=$((n + 1))
    case $line in
      STEP\ *) line=${line#STEP }; lab_log "  guest [${line%% *}s] ${line#* }" ;;
      READY\ *) LAB_VM_READY=1; LAB_VM_UPTIME=${line#READY } ;;
      EXIT\ *) LAB_VM_RC=${line#EXIT } ;;
      FAIL\ *) LAB_VM_FAIL=${line#FAIL } ;;
    esac
  done
  LAB_STATUS_SEEN=$((LAB_STATUS_SEEN + n))
}

lab_vm_wait() {
  local event=$1 secs=$2 end
  end=$(awk -v t="$EPOCHREALTIME" -v s="$secs" 'BEGIN { printf "%d", t + s }')
  while :; do
    lab_vm_poll
    [[ -n $LAB_VM_FAIL ]] && lab_die "the VM reported: $LAB_VM_FAIL"
    case $event in
      READY) [[ -n $LAB_VM_READY ]] && return 0 ;;
      EXIT) [[ -n $LAB_VM_RC ]] && return 0 ;;
    esac
    if ! lab_pid_alive "$LAB_QEMU_PID"; then
      lab_vm_poll
      [[ $event == EXIT && -n $LAB_VM_RC ]] && return 0
      local rc=0
      wait "$LAB_QEMU_PID" || rc=$?
      LAB_QEMU_PID=""
      lab_die "qemu exited (status $rc) before the VM reported $event"
    fi
    ((${EPOCHREALTIME%.*} < end)) || lab_die "no $event from the VM within ${secs}s"
    sleep 0.1
  done
}

# lab_vm_wait_exit SECONDS: let qemu power off by itself, then reap it.
lab_vm_wait_exit() {
  local end=$((${EPOCHREALTIME%.*} + $1))
  while lab_pid_alive "$LAB_QEMU_PID" && ((${EPOCHREALTIME%.*} < end)); do sleep 0.1; done
  lab_pid_alive "$LAB_QEMU_PID" && lab_die "the VM did not power off within $1s"
  wait "$LAB_QEMU_PID" 2>/dev/null || true
  LAB_QEMU_PID=""
  # The streamer ends by itself once qemu is gone (tail --pid).
  [[ -n $LAB_TAIL_PID ]] && { wait "$LAB_TAIL_PID" 2>/dev/null || true; LAB_TAIL_PID=""; }
}

# lab_kill PID: TERM, up to 5 s grace, then KILL; reaps it.
lab_kill() {
  local pid=$1 i
  lab_pid_alive "$pid" || { wait "$pid" 2>/dev/null; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do lab_pid_alive "$pid" || break; sleep 0.1; done
  lab_pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
}

lab_vm_stop() {
  [[ -n $LAB_QEMU_PID ]] && lab_kill "$LAB_QEMU_PID"
  [[ -n $LAB_TAIL_PID ]] && lab_kill "$LAB_TAIL_PID"
  LAB_QEMU_PID="" LAB_TAIL_PID=""
}
