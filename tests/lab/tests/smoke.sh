#!/bin/sh
# Lab smoke test, runs inside the VM (run-in-lab.sh --script): the harness
# itself works. Exit 0 = pass.
#  1. Every rxe device of the lab is listed by libibverbs, its port is
#     PORT_ACTIVE on an Ethernet link layer, and `rdma link` shows it.
#  2. An RC ping-pong between rxe1 (client) and rxe0 (server) completes (200 iterations).
. /opt/rdmascope/lab/lab.sh
cd /tmp || exit 1

echo "== devices: $LAB_DEVS (RoCE v2 GID index $LAB_GID_INDEX)"
ibv_devinfo -l || lab_fail "ibv_devinfo -l failed"
for d in $LAB_DEVS; do
  ibv_devinfo -d "$d" > "devinfo.$d" || lab_fail "ibv_devinfo -d $d failed"
  grep -q 'state:.*PORT_ACTIVE' "devinfo.$d" || { cat "devinfo.$d"; lab_fail "$d: port not PORT_ACTIVE"; }
  grep -q 'link_layer:.*Ethernet' "devinfo.$d" || { cat "devinfo.$d"; lab_fail "$d: link layer not Ethernet"; }
  rdma link show "$d/1" | grep -q 'state ACTIVE' || lab_fail "rdma link show $d/1: not ACTIVE"
done
rdma link show

echo "== ibv_rc_pingpong rxe1 -> rxe0 ($(lab_ip rxe0))"
timeout 120 ibv_rc_pingpong -d rxe0 -g "$LAB_GID_INDEX" -n 200 > server.log 2>&1 &
server=$!
lab_wait_listen 18515 30 || { cat server.log; lab_fail "ibv_rc_pingpong server did not listen"; }
timeout 120 ibv_rc_pingpong -d rxe1 -g "$LAB_GID_INDEX" -n 200 "$(lab_ip rxe0)" > client.log 2>&1 ||
  { cat server.log client.log; lab_fail "ibv_rc_pingpong client failed"; }
wait $server || { cat server.log; lab_fail "ibv_rc_pingpong server failed"; }
cat client.log
grep -q 'iters in' client.log || lab_fail "client printed no iteration summary"

echo "smoke: PASS"
