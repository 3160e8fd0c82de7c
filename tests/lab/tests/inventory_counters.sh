#!/bin/sh
# Lab test, runs inside the VM: rdmactl against real rxe devices.
#  1. Inventory cross-check: ibv_devinfo -v and rdmactl ports --json agree on
#     every compared field of every rxe device (rdmascope-labcheck inventory).
#  2. Counters: after an ibv_rc_pingpong between rxe0 and rxe1, rxe's
#     hw_counters sent_pkts / rcvd_pkts grew by at least the packets sent.
#  3. rdmactl health is OK (exit 0) on the all-ACTIVE lab.
. /opt/rdmascope/lab/lab.sh
lab_require_bin rdmactl rdmascope-labcheck || exit 1
fail=0
cd /tmp

echo "== inventory cross-check ($LAB_DEVS)"
ibv_devinfo -v > devinfo.txt || lab_fail "ibv_devinfo -v failed"
rdmactl ports --json > ports.json || lab_fail "rdmactl ports --json failed"
# shellcheck disable=SC2086
rdmascope-labcheck inventory devinfo.txt ports.json $LAB_DEVS || fail=1

echo "== counters after ibv_rc_pingpong rxe1 -> rxe0"
ITERS=500 SIZE=4096 MTU=1024
PKTS=$((ITERS * SIZE / MTU))  # packets each side sends, at least (ACKs add more)
rdmactl counters --json > before.json || lab_fail "rdmactl counters --json failed"
ibv_rc_pingpong -d rxe0 -g "$LAB_GID_INDEX" -n $ITERS -s $SIZE -m $MTU > server.log 2>&1 &
server=$!
lab_wait_listen 18515 30 || lab_fail "ibv_rc_pingpong server did not listen"
ibv_rc_pingpong -d rxe1 -g "$LAB_GID_INDEX" -n $ITERS -s $SIZE -m $MTU "$(lab_ip rxe0)" > client.log 2>&1 ||
  { cat server.log client.log; lab_fail "ibv_rc_pingpong client failed"; }
wait $server || { cat server.log; lab_fail "ibv_rc_pingpong server failed"; }
tail -n 1 client.log
rdmactl counters --json > after.json || lab_fail "rdmactl counters --json failed"
for dev in rxe0 rxe1; do
  for c in sent_pkts rcvd_pkts; do
    rdmascope-labcheck counter-grown before.json after.json $dev 1 $c $PKTS || fail=1
  done
done

echo "== rdmactl health"
rdmactl health; rc=$?
[ $rc -eq 0 ] || { echo "FAIL: rdmactl health exit $rc on an all-ACTIVE lab"; fail=1; }

[ $fail -eq 0 ] && echo "inventory_counters: PASS" || echo "inventory_counters: FAIL"
exit $fail
