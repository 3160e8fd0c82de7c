#!/bin/sh
# The fleet fault simulator's acceptance matrix: every case with 3 seeds on
# (a) a generated rail-optimised fleet of 2,000 hosts x 8 rails (8 planes,
# leaves of 32 hosts, 32 spines per plane) and (b) the swept routes of the
# 324-node ibsim tree, then the table, totals and targets
# (bench/fleet_fault_json.py matrix).
#
# usage: bench/fleet_fault_matrix.sh [--fleet a|b|both] [--topology FILE] [--seeds "1 2 3"] [--hosts N] [--cases RE]
#                                    [--bin build/bin/fleet_fault_sim] [--out DIR] [-- EXTRA FLAGS]
#   --topology FILE  (b)'s `rdmactl fabric discover --routes --json` of the 324-node tree
#                    (tests/fabric/gen_net.py fattree --leaves 24 --hosts 12 --spines 12 under
#                    ibsim + opensm); without it (b) is skipped, saying so.
#                    (bench/fleet_fault_topology.py makes it)
#   --hosts N        (a) with N hosts instead of 2,000 (same leaves, spines and rails; N >= 256
#                    keeps every case's subject)
#   --cases RE       only the cases whose name matches the extended regular expression RE
#   EXTRA FLAGS go to every run (e.g. --http, --threads 8).
# Cases: (1) host dead, (2) NIC loss 30 %, (3) a leaf-spine link at 5 % and at
# 30 %, (4) a spine down, (5) a leaf down, (6) network latency +50 % fleet-wide,
# (7) RNR on one host, (8) two faults at once (different planes; on the
# one-plane tree, different leaves), (9) a link flapping every 30 s, (10)
# background loss 0.1 % plus one NIC at 10 %; and 30 clean minutes per seed.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fleet=both topology= seeds="1 2 3" hosts=2000 cases=. bin="$here/../build/bin/fleet_fault_sim" out=
while [ $# -gt 0 ]; do
  case $1 in
    --fleet) fleet=$2; shift 2 ;;
    --topology) topology=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "unknown argument $1 (see the head of $0)" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "no $bin: build the target fleet_fault_sim first" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d /tmp/fleet_fault_matrix.XXXXXX)
mkdir -p "$out"
echo "results in $out" >&2

# One case: NAME, then the fleet's flags and the case's flags as one list.
case_run() {
  name=$1; shift
  echo "$name" | grep -Eq -- "$cases" || return 0
  for seed in $seeds; do
    echo "$(date +%T) $name seed $seed" >&2
    "$bin" "$@" --seed "$seed" --json > "$out/$name.s$seed.json" 2> "$out/$name.s$seed.log" ||
      { echo "  $name seed $seed failed: $(tail -1 "$out/$name.s$seed.log")" >&2; rm -f "$out/$name.s$seed.json"; }
  done
}

fleet_a() {
  set -- --fat-tree $(( (hosts + 31) / 32 )),32,32,8 --hosts "$hosts" "$@"
  # Plane p's GUIDs: leaves 0x0008f104 pp 0000ll, spines 0x0008f105 pp 0000ss (1-based); a
  # leaf's uplink to spine s is port 32 + s + 1.
  case_run a01-host-dead "$@" --fault host:node0010
  case_run a02-nic-loss30 "$@" --fault nic:node0020/mlx5_3:loss=0.3
  case_run a03-link-loss5 "$@" --fault link:0x0008f10402000006/36:loss=0.05
  case_run a03-link-loss30 "$@" --fault link:0x0008f10402000006/36:loss=0.3
  case_run a04-spine-down "$@" --fault switch:0x0008f10503000004
  case_run a05-leaf-down "$@" --fault switch:0x0008f10401000008
  case_run a06-fleet-latency50 "$@" --fault fleet:all:delay=50%
  case_run a07-host-rnr "$@" --fault host:node0030:rnr
  case_run a08-two-planes "$@" --fault nic:node0040/mlx5_1:loss=0.3 --fault link:0x0008f10406000003/40:loss=0.3
  case_run a09-link-flap30 "$@" --fault link:0x0008f10404000002/34:flap=30
  case_run a10-background-nic10 "$@" --background-loss 0.001 --fault nic:node0050/mlx5_5:loss=0.1
  case_run a00-clean30 "$@" --clean-minutes 30
}

fleet_b() {
  if [ -z "$topology" ]; then
    echo "fleet (b) skipped: give --topology FILE (the 324-node tree's fabric discover --routes --json)" >&2
    return
  fi
  eval "$(python3 "$here/fleet_fault_json.py" subjects "$topology")"
  set -- --topology "$topology" "$@"
  case_run b01-host-dead "$@" --fault "host:$HOST1"
  case_run b02-nic-loss30 "$@" --fault "nic:$HOST2/$DEV2:loss=0.3"
  case_run b03-link-loss5 "$@" --fault "link:$UPLINK:loss=0.05"
  case_run b03-link-loss30 "$@" --fault "link:$UPLINK:loss=0.3"
  case_run b04-spine-down "$@" --fault "switch:$SPINE"
  case_run b05-leaf-down "$@" --fault "switch:$LEAF"
  case_run b06-fleet-latency50 "$@" --fault fleet:all:delay=50%
  case_run b07-host-rnr "$@" --fault "host:$HOST3:rnr"
  case_run b08-two-leaves "$@" --fault "nic:$HOST1/$DEV1:loss=0.3" --fault "link:$UPLINK2:loss=0.3"
  case_run b09-link-flap30 "$@" --fault "link:$UPLINK:flap=30"
  case_run b10-background-nic10 "$@" --background-loss 0.001 --fault "nic:$HOST2/$DEV2:loss=0.1"
  case_run b00-clean30 "$@" --clean-minutes 30
}

case $fleet in
  a) fleet_a "$@" ;;
  b) fleet_b "$@" ;;
  both) fleet_a "$@"; fleet_b "$@" ;;
  *) echo "--fleet a, b or both" >&2; exit 2 ;;
esac
python3 "$here/fleet_fault_json.py" matrix "$out"
