# shellcheck shell=bash
# Shared host-side helpers for the lab harness. Sourced, never executed.
#
# Contract:
#   - LAB_DIR is tests/lab, LAB_REPO the repository root, LAB_CACHE the kernel
#     cache, outside the source tree so a clone stays small and `git clean`
#     keeps it: RDMASCOPE_LAB_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/rdmascope-lab.
#     VM work dirs are mktemp dirs under ${TMPDIR:-/tmp} (prepare.sh).
#   - lab_log writes one line to stderr, prefixed "lab: " and the seconds
#     elapsed since the harness started.
#   - lab_step NAME starts a named step; lab_step_done prints its duration.
#     lab_die names the current step in its message, prints the tail of the
#     VM console log when one exists (LAB_CONSOLE), and exits 125, so a
#     harness failure never looks like a command's own exit status of 0..124.
#   - Files under $LAB_DIR/lib are the only helpers; the guest side lives in
#     $LAB_DIR/guest.

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck disable=SC2034  # LAB_REPO, LAB_CACHE: used by the scripts that source this
LAB_REPO=$(cd "$LAB_DIR/../.." && pwd)
# shellcheck disable=SC2034
LAB_CACHE=${RDMASCOPE_LAB_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/rdmascope-lab}
LAB_T0=${LAB_T0:-$EPOCHREALTIME}
export LAB_T0
LAB_STEP=${LAB_STEP:-setup}
export LAB_STEP
LAB_CONSOLE=${LAB_CONSOLE:-}
LAB_EXIT_HARNESS=125

# lab_elapsed [T0]: seconds since T0 (default: harness start), one decimal.
lab_elapsed() {
  local t0=${1:-$LAB_T0}
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

lab_log() {
  printf 'lab: [%6ss] %s\n' "$(lab_elapsed)" "$*" >&2
}

lab_step() {
  LAB_STEP=$1
  LAB_STEP_T0=$EPOCHREALTIME
  lab_log "step '$LAB_STEP' ..."
}

lab_step_done() {
  lab_log "step '$LAB_STEP' done in $(lab_elapsed "$LAB_STEP_T0")s${1:+ ($1)}"
}

# lab_console_tail [LINES]: last lines of the VM console, if there is one.
lab_console_tail() {
  local n=${1:-40}
  if [[ -n $LAB_CONSOLE && -s $LAB_CONSOLE ]]; then
    printf 'lab: ---- last %s lines of the VM console (all logs: rerun with --keep) ----\n' "$n" >&2
    tail -n "$n" "$LAB_CONSOLE" | tr -d '\r' | sed 's/^/lab: | /' >&2
    printf 'lab: ---- end of console ----\n' >&2
  fi
  if [[ -n ${LAB_QEMU_LOG:-} ]] && grep -qv 'is not connected to host network' "$LAB_QEMU_LOG" 2>/dev/null; then
    printf 'lab: ---- qemu messages ----\n' >&2
    grep -v 'is not connected to host network' "$LAB_QEMU_LOG" | tail -n 20 | sed 's/^/lab: | /' >&2
  fi
}

lab_die() {
  printf 'lab: FAILED at step %s: %s\n' "'$LAB_STEP'" "$*" >&2
  lab_console_tail 40
  exit "$LAB_EXIT_HARNESS"
}

# lab_need_cmd CMD PACKAGE: fail clearly when a host tool is missing.
lab_need_cmd() {
  command -v "$1" >/dev/null 2>&1 ||
    lab_die "host tool '$1' missing (Debian package $2): run tests/lab/setup-host.sh"
}
