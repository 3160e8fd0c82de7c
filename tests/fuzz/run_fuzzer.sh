#!/usr/bin/env bash
# Runs a libFuzzer binary for a bounded time over a copy of its seed corpus
# (new inputs go to a temporary directory, never into the source tree) and
# prints executions, coverage and crashes. Exit 0 only when the run ended
# without a crash, sanitizer report, leak or timeout.
#   run_fuzzer.sh FUZZER SEED_DIR SECONDS [LIBFUZZER_FLAG...]
set -uo pipefail
fuzzer=$1 seeds=$2 seconds=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/rdmascope-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
"$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
  -artifact_prefix="$work/" "$@" "$work/corpus" "$seeds" > "$work/log" 2>&1
rc=$?
crashes=$(find "$work" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'leak-*' -o -maxdepth 1 -name 'timeout-*' | wc -l)
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n1)
cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -n1)
echo "fuzz $(basename "$fuzzer"): ${runs:-?} executions in ${seconds} s, ${cov:-cov: ?}, $(ls "$work/corpus" | wc -l) corpus inputs, $crashes crash(es), exit $rc"
if ((rc != 0 || crashes != 0)); then
  # The input first, then the report: a log cut to its end keeps the stack
  # trace and the sanitizer's summary.
  for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
    [[ -e $f ]] && { echo "--- $(basename "$f"), $(stat -c %s "$f") bytes (base64, first 4000 characters):"; base64 -w0 "$f" | head -c 4000; echo; }
  done
  echo "--- the fuzzer's report:"
  grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|RELOAD|pulse)' "$work/log" | tail -n 60
  exit 1
fi
