#!/usr/bin/env bash
# The main job: build everything, boot the Soft-RoCE lab (a qemu VM with
# rdma_rxe devices rxe0..rxe2) and run rdmascope there: the collector and one
# agent per device (node-0..node-2), probing each other over UD and RC and
# reporting every 2 s. The dashboard is forwarded to the host:
#   http://127.0.0.1:${RDMASCOPE_PORT:-8080}/
# Runs in the foreground until Ctrl-C, which stops the VM.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${RDMASCOPE_PORT:-8080}
bash scripts/setup-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
exec tests/lab/serve.sh --build-dir build --host-port "$port" --guest-port 9470 -- \
  /opt/rdmascope/lab/fleet-up --url "http://127.0.0.1:$port/"
