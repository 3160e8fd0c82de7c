#!/bin/bash
# By hand, not in the suite (it runs for minutes): the agent's own reported
# latency in its default probe pattern against ib_send_lat on the same pair,
# same boot. Two agents (node-0 on rxe0, node-1 on rxe1) report to a
# collector every 2 s with no probe flag; after --minutes M (default 5) the
# median of node-0 -> node-1's per-summary network p50 (UD and RC) is set
# against ib_send_lat's t_typical x 2 from rxe0 to rxe1, run --lat-runs N
# times (default 3) while the agents probe, the median of them. Prints one
# BENCH line per transport with the ratio and the agents' CPU per 1,000
# probes; exits 0 when both ratios are <= 1.10, 1 when one is over. With
# --one-way node-1 is a responder only (it probes nothing back) and node-0
# probes it as its one --probe-target: the pair alone, without the other
# direction's probers and responders sharing the VM's two vCPUs.
#   tests/lab/run-in-lab.sh --timeout 1200 --script tests/lab/probes/agent_latency.sh -- --minutes 5
. /opt/rdmascope/lab/lab.sh
. /opt/rdmascope/lab/fleet.sh

MINUTES=5 LAT_RUNS=3 ONE_WAY=0
while (($#)); do
  case $1 in
    --minutes) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "FAIL args: --minutes wants a count"; exit 2; }
               MINUTES=$2; shift 2 ;;
    --lat-runs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "FAIL args: --lat-runs wants a count"; exit 2; }
                LAT_RUNS=$2; shift 2 ;;
    --one-way) ONE_WAY=1; shift ;;
    *) echo "FAIL args: unknown argument $1 (--minutes M, --lat-runs N, --one-way)"; exit 2 ;;
  esac
done
lab_require_bin rdmascope-collector rdmascope-agent rdmascope-labcheck || exit 1
command -v ib_send_lat > /dev/null || lab_fail "ib_send_lat (perftest) is not in the lab image"
set -- $LAB_DEVS
SRC=$1 DST=$2
DST_IP=$(lab_ip "$DST")
gid=${LAB_GID_INDEX:-1}
cd "$FLEET_DIR" || exit 1
now_s() { read -r u _ < /proc/uptime; echo "${u%.*}"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

fleet_start_collector || lab_fail "collector did not listen"
if [ "$ONE_WAY" = 1 ]; then
  rdmascope-agent --responder-only --device "$DST" --control-port 18611 >> agent-1.log 2>&1 &
  AGENT_1=$!
  lab_wait_listen 18611 30 || lab_fail "node-1 (responder only) did not start: $(tail -n 5 agent-1.log)"
  fleet_start_agent 0 --probe-target "node-1=$DST_IP:18611" || lab_fail "node-0 did not start"
  node0_probes() { fleet_get "/api/v1/probes?limit=100000" probes.json &&
    rdmascope-labcheck latency probes.json node-0 node-1 ud 0 > /dev/null; }
  lab_wait 60 "node-0 probing node-1" node0_probes || lab_fail "node-0 reported no probe of node-1"
else
  fleet_start_agent 0 || lab_fail "node-0 did not start"
  fleet_start_agent 1 || lab_fail "node-1 did not start"
  lab_wait 60 "node-0 and node-1 probing each other" fleet_all_pairs node-0 node-1 || lab_fail "no pairs: $(cat pairs.txt)"
fi
since=$(($(date +%s) * 1000))
c0=$(cpu_ticks "$AGENT_0") c1=$(cpu_ticks "$AGENT_1")
start=$(now_s)
end=$((start + MINUTES * 60))
lats=""
for ((i = 0; i < LAT_RUNS; i++)); do
  # Spread over the window: run i at i / LAT_RUNS of it (a stimulus schedule, not a wait for a result).
  at=$((start + MINUTES * 60 * i / LAT_RUNS))
  while [ "$(now_s)" -lt "$at" ]; do sleep 1; done
  timeout 60 ib_send_lat -d "$DST" -x "$gid" -n 2000 > lat-server.txt 2>&1 &
  srv=$!
  lab_wait_listen 18515 30 || lab_fail "ib_send_lat server did not listen"
  timeout 60 ib_send_lat -d "$SRC" -x "$gid" -n 2000 "$DST_IP" > lat-client.txt 2>&1
  wait $srv
  l=$(awk '/t_typical/ { getline; print 2 * $5; exit }' lat-client.txt)
  [[ $l =~ ^[0-9]+(\.[0-9]+)?$ ]] && lats+="$l "
  echo "ib_send_lat run $((i + 1)): t_typical x 2 = ${l:-none} usec"
  [[ $l =~ ^[0-9]+(\.[0-9]+)?$ ]] || sed -n '/t_typical/,+2p' lat-client.txt
done
while [ "$(now_s)" -lt "$end" ]; do sleep 1; done
ticks=$(($(cpu_ticks "$AGENT_0") - c0 + $(cpu_ticks "$AGENT_1") - c1))
fleet_get "/api/v1/probes?limit=100000" probes.json || lab_fail "GET /api/v1/probes"
LAT=$(echo "$lats" | median)
[ -n "$LAT" ] || lab_fail "ib_send_lat gave no figure: $(tail -n 3 lat-client.txt)"
rc=0
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
for t in ud rc; do
  rdmascope-labcheck latency probes.json node-0 node-1 $t "$since" > latency-$t.txt || lab_fail "no $t summaries: $(cat latency-$t.txt)"
  head -n 1 latency-$t.txt
  net=$(sed -n 's/^network_p50 //p' latency-$t.txt)
  ratio=$(awk -v n="$net" -v l="$LAT" 'BEGIN { printf "%.2f", n / l }')
  ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.10) ? "met" : "NOT met" }')
  [ "$ok" = met ] || rc=1
  echo "BENCH agent $t network p50 $net usec vs ib_send_lat $LAT usec: ratio $ratio, target <= 1.10: $ok" \
    "(rdmascope-agent with no probe flag$([ "$ONE_WAY" = 1 ] && echo " but --probe-target, peer --responder-only"), 2 s interval, ${MINUTES} min; ib_send_lat -n 2000 t_typical x 2, median of $LAT_RUNS runs: $lats)"
done
# Probes sent: one or two pairs x two transports x the default count per 2 s round.
probes=$(((2 - ONE_WAY) * 2 * 10 * MINUTES * 60 / 2))
echo "BENCH agent CPU: $(awk -v t="$ticks" -v hz="$hz" -v n="$probes" 'BEGIN { printf "%.2f", t / hz * 1000 / n }') s per 1000 probes" \
  "(both agents together, probing and responding, about $probes probes each way)"
fleet_stop
kill -TERM "$AGENT_1" 2>/dev/null
wait 2>/dev/null
exit $rc
