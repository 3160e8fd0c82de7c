# shellcheck shell=bash
# Faults for a six-node, two-group fleet in the lab VM (the diagnosis fault
# matrix test and the main job's fault cycle). Source after lab.sh and
# fleet.sh:
#   . /opt/rdmascope/lab/lab.sh; . /opt/rdmascope/lab/fleet.sh
#   . /opt/rdmascope/lab/faults.sh
#
# Contract:
#   - Groups: node-0..node-2 are group a, node-3..node-5 group b (label
#     group=...). fault_start_agent I [ARGS] starts node-I with its label.
#   - FAULTS lists the faults in the order they run. For each NAME:
#     fault_what NAME (what is done, one line), fault_expect NAME (the
#     diagnosis the collector should open: "SCOPE SUBJECT KIND"),
#     fault_inject NAME and fault_clear NAME (return non-zero with a message
#     when they could not; fault_clear leaves the fleet as it was).
#   - The link between the groups is impaired with tc filters: every NIC
#     sends its packets for the other group's addresses through a netem
#     band. The six NICs hang on one qemu hub, so there is no bridge between
#     the groups to impair; only cross-group packets suffer, which is the
#     evidence the collector sees from a bad inter-group link.
#   - fabric_link (only when fault_fabric_link has named the cable; the main
#     job puts it first in FAULTS): symbol errors on one inter-switch cable
#     of the simulated InfiniBand subnet the host runs beside the VM
#     (tests/fabric/sim_sweeper.py) and sweeps into this collector. The VM
#     cannot reach that subnet: fault_inject / fault_clear print the line
#     "fabric-fault: inject" / "fabric-fault: clear" on stdout, which the
#     host reads in the lab's output stream and acts on. Expected: a warning
#     `link_errors` on that cable (counters alone, no probe crosses it).

FAULTS="agent_kill rnr nic_loss group_loss nic_delay port_down"
FAULT_FABRIC_LINK="" FAULT_FABRIC_NAME="" FAULT_SWEEPER=""

# fault_fabric_link SUBJECT NAME SWEEPER: the cable's diagnosis subject
# ("0xA/P<->0xB/Q"), its ends as read by people, and the node name of the
# sweeping agent whose reports carry the subnet; puts fabric_link first.
fault_fabric_link() {
  FAULT_FABRIC_LINK=$1 FAULT_FABRIC_NAME=$2 FAULT_SWEEPER=$3
  FAULTS="fabric_link $FAULTS"
}

fault_group_of() { if [ "$1" -lt 3 ]; then echo a; else echo b; fi; }
fault_netdev() { echo "$LAB_NETDEVS" | cut -d' ' -f$(($1 + 1)); }
fault_dev() { echo "$LAB_DEVS" | cut -d' ' -f$(($1 + 1)); }
fault_ip() { echo "$LAB_IPS" | cut -d' ' -f$(($1 + 1)); }

fault_start_agent() {
  fleet_start_agent "$1" --labels "group=$(fault_group_of "$1")" "${@:2}"
}

_fault_stop_agent() {
  local pid
  eval "pid=\$AGENT_$1"
  kill -"${2:-TERM}" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

fault_what() {
  case $1 in
    agent_kill) echo "node-1's agent killed (SIGKILL): its responder is gone" ;;
    rnr) echo "node-3's agent restarted with --inject rnr: its RC responder posts no receives" ;;
    nic_loss) echo "netem loss 30% on node-2's NIC ($(fault_netdev 2))" ;;
    group_loss) echo "loss 30% on the link between group a (node-0..2) and group b (node-3..5)" ;;
    nic_delay) echo "netem delay +5ms on node-4's NIC ($(fault_netdev 4))" ;;
    port_down) echo "node-5's port down ($(fault_netdev 5) down, so $(fault_dev 5) port 1 goes DOWN)" ;;
    fabric_link) echo "symbol errors rising on both ends of the simulated InfiniBand cable $FAULT_FABRIC_NAME (ibsim on the host, swept by $FAULT_SWEEPER)" ;;
    *) echo "unknown fault $1" ;;
  esac
}

fault_expect() {
  case $1 in
    agent_kill) echo "host node-1 unreachable" ;;
    rnr) echo "host node-3 rnr" ;;
    nic_loss) echo "nic node-2/$(fault_dev 2) loss" ;;
    group_loss) echo "group_link a<->b loss" ;;
    nic_delay) echo "nic node-4/$(fault_dev 4) latency" ;;
    port_down) echo "port node-5/$(fault_dev 5)/1 port_down" ;;
    fabric_link) echo "link $FAULT_FABRIC_LINK link_errors" ;;
  esac
}

fault_inject() {
  local i j dev
  case $1 in
    agent_kill) _fault_stop_agent 1 KILL ;;
    rnr) _fault_stop_agent 3 && fault_start_agent 3 --inject rnr ;;
    nic_loss) tc qdisc replace dev "$(fault_netdev 2)" root netem loss 30% ;;
    group_loss)
      # One tc process for all six NICs, its commands written without a
      # fork: the link goes bad at once, not NIC by NIC over the seconds that
      # dozens of processes take in the emulated VM.
      local -a devs=($LAB_NETDEVS) ips=($LAB_IPS)
      for i in 0 1 2 3 4 5; do
        echo "qdisc replace dev ${devs[i]} root handle 1: prio"
        echo "qdisc add dev ${devs[i]} parent 1:3 handle 30: netem loss 30%"
        for j in 0 1 2 3 4 5; do
          (( (i < 3) == (j < 3) )) && continue
          echo "filter add dev ${devs[i]} parent 1: protocol ip prio 1 u32 match ip dst ${ips[j]}/32 flowid 1:3"
        done
      done > /tmp/fault-group-loss.tc
      tc -batch /tmp/fault-group-loss.tc ;;
    nic_delay) tc qdisc replace dev "$(fault_netdev 4)" root netem delay 5ms ;;
    port_down) ip link set "$(fault_netdev 5)" down ;;
    fabric_link)
      # The host raises the counters; first its sweeper must be reporting here.
      lab_wait 120 "the sweeping agent $FAULT_SWEEPER in the collector" \
        fleet_get "/api/v1/nodes/$FAULT_SWEEPER" "$FLEET_DIR/sweeper.json" 2>/dev/null ||
        { echo "fault_inject: $FAULT_SWEEPER has not reported (is the host's sim_sweeper.py running?)" >&2; return 1; }
      echo "fabric-fault: inject" ;;
    *) echo "fault_inject: unknown fault $1" >&2; return 1 ;;
  esac
}

fault_clear() {
  local i dev
  case $1 in
    agent_kill) fault_start_agent 1 ;;
    rnr) _fault_stop_agent 3 && fault_start_agent 3 ;;
    nic_loss) tc qdisc del dev "$(fault_netdev 2)" root ;;
    group_loss)
      local -a devs=($LAB_NETDEVS)
      for i in 0 1 2 3 4 5; do echo "qdisc del dev ${devs[i]} root"; done > /tmp/fault-group-clear.tc
      tc -batch /tmp/fault-group-clear.tc ;;
    nic_delay) tc qdisc del dev "$(fault_netdev 4)" root ;;
    port_down)
      ip link set "$(fault_netdev 5)" up
      dev=$(fault_dev 5)
      lab_wait 20 "$dev port 1 ACTIVE again" grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state" ;;
    fabric_link) echo "fabric-fault: clear" ;;
    *) echo "fault_clear: unknown fault $1" >&2; return 1 ;;
  esac
}

# fault_diagnosis SCOPE SUBJECT KIND SINCE_MS open|closed: the collector's
# answer (labcheck diagnosis) for that diagnosis; output in FLEET_DIR/diag.txt.
fault_diagnosis() {
  fleet_get "/api/v1/diagnoses?all=1" "$FLEET_DIR/diagnoses.json" &&
    rdmascope-labcheck diagnosis "$FLEET_DIR/diagnoses.json" "$@" > "$FLEET_DIR/diag.txt"
}

# fault_not_reopenable SCOPE SUBJECT: no diagnosis of that element closed
# within the collector's reopen window (its default: 6 report intervals, plus
# one second), so a diagnosis of the element opened from now on is a new row
# with its own opened_at, not an earlier fault's row reopened (labcheck
# closed-within; output in FLEET_DIR/reopen.txt).
fault_not_reopenable() {
  fleet_get "/api/v1/diagnoses?all=1&limit=100000" "$FLEET_DIR/diagnoses.json" &&
    rdmascope-labcheck closed-within "$FLEET_DIR/diagnoses.json" "$1" "$2" $((6 * FLEET_INTERVAL * 1000 + 1000)) \
      > "$FLEET_DIR/reopen.txt" && return 0
  sleep 1  # the window ends in seconds: no need to ask 20 times a second
  return 1
}

# fault_none_open: no diagnosis open (rdmactl diagnose exit 0).
fault_none_open() {
  rdmactl diagnose --collector "$FLEET_API" > "$FLEET_DIR/diagnose.txt" 2>&1
}

# fault_cycle ROUNDS HOLD: the main job's demonstration, in the shell that
# started the agents. Injects the faults one at a time, ROUNDS times (0:
# forever); for each prints what was done and what the dashboard should now
# show, waits (up to 90 s) for the collector to open that diagnosis and says
# so, keeps the fault HOLD more seconds, clears it, waits until no diagnosis
# is open and pauses HOLD seconds on the healthy fleet.
fault_cycle() {
  local rounds=$1 hold=$2 round=0 f scope subject kind t_inj
  _say() { echo "fault-cycle [$(date +%H:%M:%S)] $*"; }
  while [ "$rounds" = 0 ] || [ "$round" -lt "$rounds" ]; do
    round=$((round + 1))
    for f in $FAULTS; do
      read -r scope subject kind <<< "$(fault_expect "$f")"
      t_inj=$(rdmascope-labcheck now-ms)
      _say "FAULT: $(fault_what "$f")"
      if ! fault_inject "$f"; then _say "could not inject $f; skipping it"; continue; fi
      _say "  the dashboard should now show, first on the overview: $scope $subject, $kind"
      if lab_wait 90 "$scope $subject $kind" fault_diagnosis "$scope" "$subject" "$kind" "$t_inj" open 2>/dev/null; then
        _say "  the collector opened it: $scope $subject $kind (kept for $hold s)"
      else
        fault_none_open
        _say "  not opened within 90 s; open now: $(grep '^OPEN ' "$FLEET_DIR/diagnose.txt" | tr -s ' ' | head -n 3 | tr '\n' ';')"
      fi
      sleep "$hold"
      _say "CLEARED: $f undone; the diagnosis should close within a few report intervals"
      fault_clear "$f" || _say "could not clear $f"
      if lab_wait 90 "no open diagnosis" fault_none_open 2>/dev/null; then
        _say "  no diagnosis open: the fleet is healthy again (next fault in $hold s)"
      else
        _say "  still open after 90 s: $(grep '^OPEN ' "$FLEET_DIR/diagnose.txt" | tr -s ' ' | head -n 3 | tr '\n' ';')"
      fi
      sleep "$hold"
    done
  done
}
