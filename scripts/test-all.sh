#!/usr/bin/env bash
# Runs every test on a fresh Debian 12 machine: installs the dependencies,
# builds the tree into build/, and runs CTest one label at a time, then prints
# one line per label (run, passed, failed, skipped, wall time) and the total.
#   RDMASCOPE_SKIP_LAB=1   run everything but the lab-labelled tests
# Every test has exactly one phase: the first of PHASES' labels it carries
# (lab_dashboard, labelled "lab;web", runs with the lab). Unit, integration and
# web tests run in parallel; benchmarks and lab tests one at a time (a lab test
# boots a VM that wants both cores). In CI (CI=true) a test whose tool is
# missing fails instead of skipping (tests/support/required_tool.h).
# Exit status: 0 when every phase passed, else the first failing CTest status.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/setup-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"

results=$(mktemp -d "${TMPDIR:-/tmp}/rdmascope-test-all.XXXXXX")
trap 'rm -rf "$results"' EXIT
# label:parallelism, in the order they run; earlier-claiming labels first in CLAIM.
PHASES=(unit:"$(nproc)" integration:"$(nproc)" web:1 fabric:1 package:1 bench:1 lab:1)
CLAIM=(lab bench package fabric web integration unit)
status=0
for phase in "${PHASES[@]}"; do
  label=${phase%%:*} jobs=${phase#*:}
  if [[ $label == lab && ${RDMASCOPE_SKIP_LAB:-0} == 1 ]]; then
    echo "$label 0 -" >> "$results/phases"
    continue
  fi
  # Labels that claim a test before this one does.
  exclude=()
  for l in "${CLAIM[@]}"; do [[ $l == "$label" ]] && break; exclude+=("$l"); done
  args=(--test-dir build --output-on-failure --no-tests=ignore -j"$jobs" -L "^$label\$"
        --output-junit "$results/$label.xml")
  if ((${#exclude[@]})); then args+=(-LE "^($(IFS='|'; echo "${exclude[*]}"))\$"); fi
  # Benchmarks verbosely, so their figures are in the log.
  [[ $label == bench ]] && args+=(-V)
  echo "== test-all: label $label (-j$jobs)"
  t0=$(date +%s)
  rc=0
  ctest "${args[@]}" || rc=$?
  echo "$label $(( $(date +%s) - t0 )) $results/$label.xml" >> "$results/phases"
  if ((rc != 0 && status == 0)); then status=$rc; fi
done
echo "== test-all: summary"
python3 scripts/test-summary.py "$results/phases"
echo "test-all: wall time $(( $(date +%s) - start )) s, exit $status"
exit $status
