#!/bin/bash
# Lab test, runs inside the VM: the collector over HTTPS with a read token,
# two agents reporting and fetching pinglists over HTTPS (verifying the test
# CA, fixtures/tls), probing each other.
#  1. Within 30 s `rdmactl status` over HTTPS with the read token lists both
#     nodes and probe pairs between them.
#  2. Without the read token it is refused (exit 2, "read token"); with an
#     unrelated CA it is refused ("not trusted"); plain HTTP gets no answer.
. /opt/rdmascope/lab/lab.sh
FLEET_TLS=1
. /opt/rdmascope/lab/fleet.sh
lab_require_bin rdmascope-collector rdmascope-agent rdmactl || exit 1
cd "$FLEET_DIR" || exit 1
TLS=/opt/rdmascope/fixtures/tls
echo "* lab-read-token-$$" > read.tokens
echo "lab-read-token-$$" > read.token

fleet_start_collector --read-token-file "$FLEET_DIR/read.tokens" || lab_fail "collector did not listen"
grep -q "(HTTPS)" collector.log || lab_fail "collector does not say it serves HTTPS: $(cat collector.log)"
for i in 0 1; do fleet_start_agent "$i" || lab_fail "agent node-$i did not start"; done
URL="https://$(echo "$LAB_IPS" | cut -d' ' -f1):$FLEET_PORT"

both_nodes_probed() {
  rdmactl status --collector "$URL" --ca-file "$TLS/ca.crt" --token-file "$FLEET_DIR/read.token" --json \
    > status.json 2> status.err
  grep -q '"name": "node-0"' status.json && grep -q '"name": "node-1"' status.json &&
    grep -q '"src": "node-0"' status.json && grep -q '"src": "node-1"' status.json
}
t0=$(lab_uptime)
if lab_wait 30 "both nodes and their probe pairs over HTTPS" both_nodes_probed; then
  echo "PASS https: rdmactl status lists node-0, node-1 and their pairs after $(( $(lab_uptime) - t0 )) s"
else
  cat status.json status.err collector.log agent-*.log | tail -n 40
  lab_fail "https: nodes or pairs missing after 30 s"
fi

out=$(rdmactl status --collector "$URL" --ca-file "$TLS/ca.crt" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q "read token" || lab_fail "no read token: exit $rc, $out"
echo "PASS read token: without it, exit 2: $(echo "$out" | head -c 160)"
out=$(rdmactl status --collector "$URL" --ca-file "$TLS/other-ca.crt" --token-file "$FLEET_DIR/read.token" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q "not trusted" || lab_fail "unrelated CA: exit $rc, $out"
echo "PASS unrelated CA refused: $(echo "$out" | head -c 160)"
if timeout 10 wget -q -O plain.out "http://127.0.0.1:$FLEET_PORT/healthz" 2>/dev/null; then
  lab_fail "plain HTTP got an answer from the HTTPS port: $(cat plain.out)"
fi
echo "PASS plain HTTP to the HTTPS port gets no answer"
fleet_stop
echo "PASS lab tls"
