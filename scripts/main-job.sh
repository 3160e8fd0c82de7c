#!/usr/bin/env bash
# The main job: build everything, boot the Soft-RoCE lab (qemu VM with rxe0 and
# rxe1 on real rdma_rxe devices) and run rdmascope there: inventory, counters,
# health, and a probe between the two devices.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
exec tests/lab/run-in-lab.sh --build-dir build -- '
  echo "== rdmactl ports"; rdmactl ports
  echo "== rdmactl counters rxe0"; rdmactl counters rxe0
  echo "== rdmactl health"; rdmactl health; echo "(health exit $?)"'
