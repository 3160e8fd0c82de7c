# shellcheck shell=sh
# Helpers for scripts that run inside the lab VM (busybox sh or bash).
# Source it:  . /opt/rdmascope/lab/lab.sh
#
# Contract:
#   - Sourcing also loads the lab's facts written at boot (/opt/rdmascope/lab/env):
#       LAB_DEVS       rxe devices, e.g. "rxe0 rxe1 rxe2" (all PORT_ACTIVE)
#       LAB_NETDEVS    their netdevs, same order, e.g. "eth0 eth1 eth2"
#       LAB_IPS        their IPv4 addresses, same order (192.168.77.1 ...)
#       LAB_GID_INDEX  GID index of the RoCE v2 ::ffff:IPv4 GID (same on all)
#   - Every wait has a deadline in whole seconds and polls; none sleeps blindly.
#   - Helpers return non-zero with a message on stderr; they never exit the
#     caller, except lab_fail, which exists to do so.

LAB_HOME=/opt/rdmascope/lab
# shellcheck disable=SC1091
[ -r "$LAB_HOME/env" ] && . "$LAB_HOME/env"

# lab_uptime: whole seconds since the VM booted (no fork).
lab_uptime() {
  read -r _lab_up _ < /proc/uptime
  echo "${_lab_up%.*}"
}

# lab_wait SECONDS WHAT CMD [ARGS...]: run CMD every 50 ms until it succeeds;
# fail after SECONDS with "timed out ... waiting for WHAT".
lab_wait() {
  _lab_secs=$1 _lab_what=$2
  shift 2
  _lab_end=$(( $(lab_uptime) + _lab_secs ))
  until "$@"; do
    if [ "$(lab_uptime)" -ge "$_lab_end" ]; then
      echo "lab_wait: timed out after ${_lab_secs}s waiting for $_lab_what" >&2
      return 1
    fi
    sleep 0.05
  done
}

# lab_is_listening PORT: true when a TCP socket listens on PORT (IPv4 or IPv6).
lab_is_listening() {
  _lab_hex=$(printf ':%04X ' "$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
    awk -v p="$_lab_hex" 'index($2 " ", p) && $4 == "0A" { f = 1 } END { exit !f }'
}

# lab_wait_listen PORT [SECONDS]: wait for a TCP listener (default 30 s), e.g.
# the out-of-band port of ibv_rc_pingpong (18515) before starting its client.
lab_wait_listen() {
  lab_wait "${2:-30}" "a TCP listener on port $1" lab_is_listening "$1"
}

# lab_ip DEV: IPv4 address of rxe device DEV (e.g. lab_ip rxe1).
lab_ip() {
  _lab_i=1
  for _lab_d in $LAB_DEVS; do
    if [ "$_lab_d" = "$1" ]; then
      echo "$LAB_IPS" | cut -d' ' -f"$_lab_i"
      return 0
    fi
    _lab_i=$((_lab_i + 1))
  done
  echo "lab_ip: no rxe device $1 (have: $LAB_DEVS)" >&2
  return 1
}

# lab_require_bin NAME...: fail unless each project binary is in /opt/rdmascope/bin.
lab_require_bin() {
  for _lab_b in "$@"; do
    if [ ! -x "/opt/rdmascope/bin/$_lab_b" ]; then
      echo "lab_require_bin: project binary '$_lab_b' missing in /opt/rdmascope/bin (not built? build dir copied: $(ls /opt/rdmascope/bin 2>/dev/null | tr '\n' ' '))" >&2
      return 1
    fi
  done
}

# lab_fail MSG: print "FAIL: MSG" to stderr and exit 1.
lab_fail() {
  echo "FAIL: $*" >&2
  exit 1
}
