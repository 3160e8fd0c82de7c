#!/usr/bin/env bash
# The main job: build everything, boot the Soft-RoCE lab (a qemu VM with
# rdma_rxe devices rxe0..rxe5) and run rdmascope there: the collector and one
# agent per device (node-0..node-5, groups a = node-0..2 and b = node-3..5),
# probing each other over UD and RC and reporting every 4 s. Then, unless
# RDMASCOPE_FAULTS=0, it cycles through injected faults one at a time (an
# agent killed, an application not posting receives, loss and delay on one
# NIC, loss between the groups, a port down), announcing each on the terminal
# with what the dashboard should now show, and clearing each before the next.
# The dashboard is forwarded to the host:
#   http://127.0.0.1:${RDMASCOPE_PORT:-8080}/
# Runs in the foreground until Ctrl-C, which stops the VM.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${RDMASCOPE_PORT:-8080}
bash scripts/setup-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
cycle=--fault-cycle
[ "${RDMASCOPE_FAULTS:-1}" = 0 ] && cycle=--groups
LAB_NICS=6 LAB_MEM=1024 exec tests/lab/serve.sh --build-dir build --host-port "$port" --guest-port 9470 -- \
  /opt/rdmascope/lab/fleet-up "$cycle" --url "http://127.0.0.1:$port/"
