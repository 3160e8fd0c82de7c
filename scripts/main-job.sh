#!/usr/bin/env bash
# The main job: build everything, boot the Soft-RoCE lab (a qemu VM with
# rdma_rxe devices rxe0..rxe5) and run rdmascope there: the collector and one
# agent per device (node-0..node-5, groups a = node-0..2 and b = node-3..5),
# probing each other over UD and RC and reporting every 4 s. Beside the VM,
# on the host, a simulated InfiniBand subnet (ibsim + opensm, a fat tree of 4
# leaves x 4 hosts and 2 spines) is swept every 4 s by one more agent,
# fabric-sweep, under the umad shim, posting to the same collector through
# the forwarded port: the dashboard's Fabric page shows that tree
# (tests/fabric/sim_sweeper.py; RDMASCOPE_FABRIC=0 leaves it out). Then,
# unless RDMASCOPE_FAULTS=0, it cycles through injected faults one at a time
# (symbol errors rising on one leaf-spine cable of the simulated tree, an
# agent killed, an application not posting receives, loss and delay on one
# NIC, loss between the groups, a port down), announcing each on the terminal
# with what the dashboard should now show, and clearing each before the next.
# The cycle runs in the VM; the cable's counters are raised on the host, by
# sim_sweeper.py, when the cycle's output asks for it. The dashboard is
# forwarded to the host:
#   http://127.0.0.1:${RDMASCOPE_PORT:-8080}/
# Runs in the foreground until Ctrl-C (or SIGTERM), which stops the VM, the
# simulated subnet and the sweeping agent.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${RDMASCOPE_PORT:-8080}
bash scripts/setup-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
cycle=--fault-cycle
[ "${RDMASCOPE_FAULTS:-1}" = 0 ] && cycle=--groups
fleet=(/opt/rdmascope/lab/fleet-up "$cycle" --url "http://127.0.0.1:$port/")

work="" serve_pid="" fabric_pid=""
# shellcheck disable=SC2317  # run by the EXIT trap
stop_all() {
  trap - INT TERM
  if [[ -n $serve_pid ]]; then kill -TERM "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
  if [[ -n $fabric_pid ]]; then
    exec 3>&-  # the end of the lab's stream: sim_sweeper.py stops the agent, opensm and ibsim
    for _ in $(seq 300); do kill -0 "$fabric_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$fabric_pid" 2>/dev/null || true
    wait "$fabric_pid" 2>/dev/null || true
  fi
  [[ -z $work ]] || rm -rf "$work"
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "${RDMASCOPE_FABRIC:-1}" != 0 ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/rdmascope-main-job.XXXXXX")
  sweeper=fabric-sweep token="sweep-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  echo "$token" > "$work/token"
  mkfifo "$work/stream"
  # The lab's output goes through sim_sweeper.py (--echo): it prints every
  # line and acts on the cycle's "fabric-fault: inject|clear" lines.
  python3 tests/fabric/sim_sweeper.py --build-dir build --collector "http://127.0.0.1:$port" \
    --token-file "$work/token" --node-name "$sweeper" --interval 4 --info "$work/info" --echo < "$work/stream" &
  fabric_pid=$!
  exec 3> "$work/stream"
  for _ in $(seq 600); do
    [[ -s $work/info ]] && break
    kill -0 "$fabric_pid" 2>/dev/null || { echo "main job: the simulated subnet did not come up (above)" >&2; exit 1; }
    sleep 0.1
  done
  [[ -s $work/info ]] || { echo "main job: the simulated subnet was not up within 60 s" >&2; exit 1; }
  read -r subject name < <(python3 -c 'import json, sys; i = json.load(open(sys.argv[1])); print(i["subject"], i["description"])' "$work/info")
  # The guest runs the command line with sh -c: quote what has spaces or < >.
  fleet+=(--sweeper "$sweeper:$token")
  [ "$cycle" = --fault-cycle ] && fleet+=(--fabric-link "$(printf '%q' "$subject")" "$(printf '%q' "$name")")
else
  exec 3>&1
fi
# serve.sh writes to fd 3 as its stdout only, so the stream ends with it.
LAB_NICS=6 LAB_MEM=1024 tests/lab/serve.sh --build-dir build --host-port "$port" --guest-port 9470 -- "${fleet[@]}" >&3 3>&- &
serve_pid=$!
rc=0
if [[ -n $fabric_pid ]]; then
  wait -n "$serve_pid" "$fabric_pid" || rc=$?
  if ! kill -0 "$fabric_pid" 2>/dev/null; then
    echo "main job: the simulated subnet's sim_sweeper.py ended (status $rc, above); stopping the lab" >&2
    fabric_pid=""
    exit 1
  fi
else
  wait "$serve_pid" || rc=$?
fi
serve_pid=""
exit "$rc"
