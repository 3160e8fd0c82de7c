#!/usr/bin/env bash
# Runs every test on a fresh Debian 12 machine: installs the dependencies,
# builds the tree into build/, and runs CTest one label at a time, then prints
# one line per label (run, passed, failed, skipped, wall time) and the total.
#   RDMASCOPE_SKIP_LAB=1   run everything but the lab-labelled tests
# Phase "asan": a second build (clang -O0, ASan/UBSan, libFuzzer; unity
# batches, which cut its compile time by about a quarter; -O0 takes almost
# half off the product code's compile time for a tenth more test time) in
# build-asan/ of the target sanitized_checks (tests/CMakeLists.txt: the unit
# tests of the input-facing code, and the fuzzers) runs them once more there;
# tests of executables outside that target are not built and not run, nor the
# checks of the whole main build (every binary's --version, every test's labels).
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
# The main build compiles with the package build's flags (dpkg-buildflags
# under debian/rules' DEB_BUILD_MAINT_OPTIONS, CPPFLAGS folded in as debhelper
# does for CMake) through ccache with paths relative to the tree, so that the
# package test's dpkg-buildpackage finds the product's objects in the cache
# instead of compiling all of them a second time. The test files' precompiled
# header (tests/CMakeLists.txt) is cached only with the sloppiness below.
build_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
if command -v ccache >/dev/null && command -v dpkg-buildflags >/dev/null; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=pch_defines,time_macros
  maint=$(sed -n 's/^export DEB_BUILD_MAINT_OPTIONS = //p' debian/rules)
  flags() { DEB_BUILD_MAINT_OPTIONS=$maint dpkg-buildflags --get "$1"; }
  build_args=(-DCMAKE_BUILD_TYPE=None -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
              "-DCMAKE_C_FLAGS=$(flags CFLAGS) $(flags CPPFLAGS)" "-DCMAKE_CXX_FLAGS=$(flags CXXFLAGS) $(flags CPPFLAGS)")
fi
cmake -S . -B build "${build_args[@]}"
cmake --build build -j"$(nproc)"

# The lab's kernel package, resolved (and fetched) once for all lab tests,
# which would otherwise each ask apt-cache again (1.5 s a boot). If this
# fails, each lab test fails naming the cause.
if [[ ${RDMASCOPE_SKIP_LAB:-0} != 1 && -z ${LAB_KERNEL_PKG:-} ]] && kdir=$(bash tests/lab/lib/fetch-kernel.sh); then
  export LAB_KERNEL_PKG=${kdir##*/}
fi

results=$(mktemp -d "${TMPDIR:-/tmp}/rdmascope-test-all.XXXXXX")
trap 'rm -rf "$results"' EXIT
# label:parallelism, in the order they run; earlier-claiming labels first in CLAIM.
PHASES=(unit:"$(nproc)" integration:"$(nproc)" asan:"$(nproc)" web:1 fabric:1 package:1 bench:1 lab:1)
CLAIM=(lab bench package fabric web integration unit)
status=0
for phase in "${PHASES[@]}"; do
  label=${phase%%:*} jobs=${phase#*:}
  if [[ $label == asan ]]; then
    echo "== test-all: unit tests and fuzzers under ASan/UBSan (build-asan, clang)"
    t0=$(date +%s)
    rc=0
    { CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS=-O0 -DCMAKE_CXX_FLAGS=-O0 \
        -DRDMASCOPE_SANITIZE=ON -DCMAKE_UNITY_BUILD=ON && cmake --build build-asan -j"$(nproc)" --target sanitized_checks; } || rc=$?
    if ((rc == 0)); then
      ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -L '^unit$' \
          -E '_NOT_BUILT$|^version_every_binary$|^suite_every_test_has_timeout_and_label$' \
          --output-junit "$results/asan.xml" || rc=$?
      echo "$label $(( $(date +%s) - t0 )) $results/asan.xml" >> "$results/phases"
      t0=$(date +%s)
      # The fuzzers verbosely, so their executions and coverage are in the log;
      # one per core (each is single-threaded and works in its own directory).
      fuzz_rc=0
      ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan -V -j"$(nproc)" -L '^fuzz$' --output-junit "$results/fuzz.xml" ||
        fuzz_rc=$?
      if ((rc == 0)); then rc=$fuzz_rc; fi
      echo "fuzz $(( $(date +%s) - t0 )) $results/fuzz.xml" >> "$results/phases"
    else
      echo "test-all: the ASan/UBSan build failed (exit $rc)"
      echo "$label $(( $(date +%s) - t0 )) $results/asan.xml" >> "$results/phases"
    fi
    if ((rc != 0 && status == 0)); then status=$rc; fi
    continue
  fi
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
  # Benchmarks, the package test and the lab verbosely, so their figures (the
  # package's lintian summary, security scores and phase times; the lab's
  # TIMING lines) are in the log.
  [[ $label == bench || $label == package || $label == lab ]] && args+=(-V)
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
