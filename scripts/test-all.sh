#!/usr/bin/env bash
# Runs every test on a fresh Debian 12 machine: installs the dependencies,
# builds the tree into build/, and runs CTest (unit, integration and the
# Soft-RoCE lab tests, which boot a qemu VM). Exit status: CTest's.
#   RDMASCOPE_SKIP_LAB=1   run everything but the lab-labelled tests
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/setup-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
# Unit and integration tests in parallel; lab tests one at a time (each boots
# a VM that wants both cores).
status=0
ctest --test-dir build --output-on-failure -j"$(nproc)" -LE 'lab|bench' || status=$?
# Benchmarks one at a time, verbose, so their figures are in the log.
ctest --test-dir build -V -L bench -LE lab || status=$?
if [ "${RDMASCOPE_SKIP_LAB:-0}" != 1 ]; then
  ctest --test-dir build --output-on-failure -j1 -L lab || status=$?
fi
echo "test-all: wall time $(( $(date +%s) - start )) s, exit $status"
exit $status
