#!/usr/bin/env bash
# Usage: dashboard_lab.sh [--build-dir DIR]
# The dashboard's browser test against lab data: boots the Soft-RoCE lab in
# serve mode (tests/lab/serve.sh) running the collector and three agents
# (tests/lab/guest/fleet-up, node-2 with the self-test fault --inject rnr),
# with the collector's port forwarded to a free port on the host's 127.0.0.1,
# then runs dashboard_lab.test.mjs in headless chromium against it. The lab
# is stopped on every exit. Exit status: the browser test's (125: the lab
# could not be started). Needs root (the lab) and tests/web/setup.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
case ${1:-} in
  --build-dir) build=$(cd "${2:?--build-dir needs a directory}" && pwd) ;;
  -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "dashboard_lab.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
esac
build=$(cd "$build" && pwd)
cd "$here"
port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
log=$build/web-artifacts/lab-serve.log
mkdir -p "$(dirname "$log")"

../lab/serve.sh --build-dir "$build" --host-port "$port" --guest-port 9470 -- \
  /opt/rdmascope/lab/fleet-up --fault 2=rnr > "$log" 2>&1 &
lab=$!
stop_lab() {
  kill -TERM "$lab" 2>/dev/null || true
  wait "$lab" 2>/dev/null || true
  echo "dashboard_lab: lab log: $log"
  tail -n 15 "$log"
}
trap stop_lab EXIT
echo "dashboard_lab: lab serving on 127.0.0.1:$port (pid $lab), log $log"
RDMASCOPE_DASHBOARD_URL=http://127.0.0.1:$port RDMASCOPE_LAB_PID=$lab RDMASCOPE_BUILD_DIR=$build \
  node --test --test-concurrency=1 dashboard_lab.test.mjs
