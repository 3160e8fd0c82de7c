#!/bin/bash
# Lab test, runs inside the VM: the collector and one agent per rxe device
# (the first LAB_AGENTS devices, default 3), each agent probing the others
# from the collector's pinglist (guest/fleet.sh).
#  1. Within 30 s the API lists every node with its ports, and UD and RC probe
#     summaries for every ordered pair of nodes.
#  2. SIGKILL one agent (its responder dies with it): an event involving it,
#     with the decoded error, opens, and /metrics shows the WC error.
#  3. Restart that agent: the event closes.
#  4. Spool: the collector is down for OUTAGE_S (default 60) seconds while the
#     agents run; after its restart the spools drain, and once the agents are
#     stopped every report each agent process made is in the database exactly
#     once (counted by id; the last one, spooled at stop, excepted), in
#     generation order (backlog first, oldest first), and no counter event
#     opens from the first post-outage delta.
#  5. Full disk: node-2's spool is a tmpfs of SPOOL2_KB (default 64) KiB, too
#     small for the outage: its agent deletes its oldest spooled reports to
#     keep the newest, and tells the collector, which keeps reports_lost
#     events (reason disk_full, ended) whose counts are exactly the reports
#     of node-2 missing from the database (and the agent's own count).
. /opt/rdmascope/lab/lab.sh
. /opt/rdmascope/lab/fleet.sh
lab_require_bin rdmascope-collector rdmascope-agent rdmascope-labcheck || exit 1
cd "$FLEET_DIR" || exit 1

fleet_start_collector || lab_fail "collector did not listen"
FULL_NODE=2
mkdir -p "spool-$FULL_NODE" && mount -t tmpfs -o "size=${SPOOL2_KB:-64}k" tmpfs "spool-$FULL_NODE" ||
  lab_fail "could not mount a ${SPOOL2_KB:-64} KiB tmpfs on spool-$FULL_NODE"
trap 'umount "$FLEET_DIR/spool-$FULL_NODE" 2>/dev/null' EXIT
NODES=()
for i in $(seq 0 $((${LAB_AGENTS:-3} - 1))); do
  fleet_start_agent "$i" || lab_fail "agent node-$i did not start"
  NODES+=("node-$i")
done

t0=$(lab_uptime)
if lab_wait 30 "every node and every pair in the API" fleet_all_pairs "${NODES[@]}"; then
  tail -n 1 pairs.txt
  echo "PASS api: every node and pair listed after $(( $(lab_uptime) - t0 )) s"
else
  cat pairs.txt collector.log agent-*.log | tail -n 40
  lab_fail "api: not every node and pair listed within 30 s"
fi

echo "== SIGKILL node-1's agent"
kill -9 "$AGENT_1"
wait "$AGENT_1" 2>/dev/null
# On rxe a dead peer's RC QP gives RETRY_EXC_ERR or no completion at all (the
# prober's own deadline); either is the decoded error the event must carry.
event_open() {
  fleet_get "/api/v1/events?limit=1000" events.json &&
    rdmascope-labcheck event events.json wc_error node-1 open RETRY_EXC_ERR,PROBE_DEADLINE > event.txt
}
t0=$(lab_uptime)
lab_wait 60 "an open RETRY_EXC_ERR or PROBE_DEADLINE event involving node-1" event_open ||
  { cat event.txt; lab_fail "no decoded error event for the killed agent"; }
grep -m 3 OPEN event.txt
echo "PASS event: opened $(( $(lab_uptime) - t0 )) s after the kill"
fleet_get /metrics metrics.txt || lab_fail "GET /metrics"
grep -E '^rdmascope_wc_errors_total\{' metrics.txt | head -n 5
awk '/^rdmascope_events_open\{kind="wc_error"\}/ { if ($2 >= 1) ok = 1 } END { exit !ok }' metrics.txt &&
  grep -q '^rdmascope_wc_errors_total{' metrics.txt ||
  lab_fail "/metrics does not show the WC error (rdmascope_wc_errors_total, rdmascope_events_open{kind=\"wc_error\"})"
echo "PASS metrics: rdmascope_wc_errors_total and rdmascope_events_open{kind=\"wc_error\"} >= 1"

echo "== restart node-1's agent"
fleet_start_agent 1 || lab_fail "restart agent 1"
event_closed() { fleet_get "/api/v1/events?limit=1000" events.json && rdmascope-labcheck event events.json wc_error node-1 closed > event.txt; }
t0=$(lab_uptime)
lab_wait 90 "every wc_error event involving node-1 closed" event_closed || { cat event.txt; lab_fail "event did not close"; }
tail -n 1 event.txt
echo "PASS recovery: events closed $(( $(lab_uptime) - t0 )) s after the restart"

outage=${OUTAGE_S:-60}
echo "== collector down for $outage s while the agents run"
kill -TERM "$FLEET_COLLECTOR_PID"
wait "$FLEET_COLLECTOR_PID" 2>/dev/null
sleep "$outage"  # the outage itself, not a wait for a condition
spool_files() { find spool-* -type f -name 'report-*' 2>/dev/null | wc -l; }
spooled=$(spool_files)
echo "reports in the spools after the outage: $spooled"
[ "$spooled" -ge $(( ${#NODES[@]} * outage / FLEET_INTERVAL / 2 )) ] ||
  lab_fail "only $spooled reports spooled during a $outage s outage"
back_ms=$(($(date +%s) * 1000))
fleet_start_collector || lab_fail "collector did not come back"
spools_empty() { [ "$(spool_files)" -eq 0 ]; }
t0=$(lab_uptime)
lab_wait 60 "the agents' spools to drain" spools_empty || { ls -l spool-*; lab_fail "spools not drained"; }
echo "spools drained $(( $(lab_uptime) - t0 )) s after the collector's restart"
# Backlog first, oldest first: each node's reports reached the store in the
# order they were made (by the arrival sequence the collector keeps).
rdmascope-labcheck report-order lab.db "${NODES[@]}" || lab_fail "reports stored out of generation order"
# The replayed reports are judged like live ones; no delta spans the outage,
# so no counter event opens from the first post-outage report.
fleet_get "/api/v1/events?limit=1000" events.json || lab_fail "GET /api/v1/events"
rdmascope-labcheck no-event events.json counter_threshold "$back_ms" &&
  rdmascope-labcheck no-event events.json counter_saturated "$back_ms" ||
  lab_fail "a counter event opened from the post-outage reports"
echo "PASS order: every node's reports stored in generation order, no counter event from the outage"
grep -q "the file system is full" "agent-$FULL_NODE.log" ||
  lab_fail "node-$FULL_NODE's ${SPOOL2_KB:-64} KiB spool never filled: $(df -k "spool-$FULL_NODE" | tail -n 1)"
lost_told() {
  fleet_get "/api/v1/events?kind=reports_lost&limit=1000" events.json &&
    rdmascope-labcheck lost-reports events.json "node-$FULL_NODE" disk_full > lost.txt
}
lab_wait 30 "node-$FULL_NODE's reports_lost events, ended" lost_told || { cat lost.txt; lab_fail "report losses not told"; }
cat lost.txt
lost=$(sed -n 's/^lost //p' lost.txt)
echo "PASS full disk: node-$FULL_NODE's agent told the collector of $lost report(s) lost to its full spool"
fleet_stop
grep -h "stopped: delivered" agent-*.log
dropped=$(sed -n 's/.*stopped: delivered.*dropped from the spool \([0-9]*\),.*/\1/p' "agent-$FULL_NODE.log" | tail -n 1)
[ "$dropped" = "$lost" ] || lab_fail "node-$FULL_NODE's agent dropped $dropped report(s), the collector was told $lost"
last_ids=$(for i in "${!NODES[@]}"; do
  id=$(sed -n 's/.*stopping: last report \([^ ]*\) written to the spool.*/\1/p' "agent-$i.log" | tail -n 1)
  if [ "$i" = "$FULL_NODE" ]; then echo "$id=$lost"; else echo "$id"; fi
done)
[ "$(echo "$last_ids" | grep -c .)" -eq "${#NODES[@]}" ] ||
  lab_fail "expected ${#NODES[@]} agents to log their last report id, got: $last_ids"
# shellcheck disable=SC2086
rdmascope-labcheck exactly-once lab.db $last_ids || lab_fail "spool: reports missing or stored twice"
grep -h "stopped: delivered" agent-*.log | grep -q "replayed [1-9]" || lab_fail "no agent replayed its spool"
echo "PASS spool: every report of every agent in the database exactly once after a $outage s outage"
echo "collector_agents: PASS"
