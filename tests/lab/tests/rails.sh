#!/bin/bash
# Lab test (issue 7), runs inside a VM with at least 4 rxe devices (LAB_NICS=4):
# two agents with two rails each, node-a on rxe0+rxe1 and node-b on rxe2+rxe3
# (--rail r0=... --rail r1=...), reporting every 2 s to a collector.
#  1. Every rail probes the same rail of the peer: /api/v1/probes has clean
#     (0 loss) A->B and B->A summaries for r0 and r1, UD and RC.
#  2. `ip link set` A's rxe1 netdev down: within 2 intervals /api/v1/ports
#     shows node-a rxe1 DOWN and a port_state event is open; A keeps running;
#     r0 stays clean; A's r1 is reported as not run (local port DOWN).
#  3. Link up: A->B r1 clean again within 3 intervals.
#  4. A new IPv6 address on A's rxe1 netdev, then its link down and up three
#     times: A's rxe1 keeps its UD QPN through the new GID, and rail r0 keeps
#     its QPN (printed before and after) and shows 0 lost probes and no errors
#     both ways over the whole time (the responder changes per port).
#  5. `rdma link delete rxe1`: the delete completes, the agent survives and
#     uses little CPU while the device is gone; `rdma link add` brings r1 back.
#  6. An agent started while all its ports are down runs, reports them DOWN,
#     and probes once they come up.
#  7. An agent with default rail names on three devices, started while the
#     middle one is deleted: when it is added back it becomes rail 2, and the
#     other two keep names 0 and 1 (rail tables printed before and after);
#     restarted with all three present, it names them as before (the names
#     kept in its spool directory), not by position.
#  8. An agent with --inject ud-send-error: its UD responder's 10th echo fails
#     and the QP leaves RTS; echoes resume within 5 probes (10 ms apart), the
#     QPN stays, and one closed responder_qp_error event in the collector names
#     the QPN and the completion status.
#  9. An agent with --inject ud-cq-overrun: its UD responder's CQ overruns,
#     rxe raises the async event CQ_ERR on the responder's context, the agent
#     reads it and builds the responder again with a new QPN; probes to it
#     then lose nothing, and a closed responder_qp_error event names the old
#     QPN, CQ_ERR and the new QPN.
# Along the way, rdmactl health as a monitoring plugin on the real ports: OK
# with perfdata, WARNING from --expect-rate above the rxe rate, CRITICAL for
# the downed port, UNKNOWN (exit 3) for a sysfs root that does not exist.
# Timings are printed; a bound fails only past the issue's interval counts
# plus 2 s for this script's polling (a wget and a check per poll, slow
# under TCG on a loaded host).
. /opt/rdmascope/lab/lab.sh
. /opt/rdmascope/lab/fleet.sh
lab_require_bin rdmascope-collector rdmascope-agent rdmascope-labcheck rdmactl || exit 1
cd "$FLEET_DIR" || exit 1
set -- $LAB_DEVS
[ $# -ge 4 ] || lab_fail "needs 4 rxe devices (LAB_NICS=4), have: $LAB_DEVS"
A0=$1 A1=$2 B0=$3 B1=$4
set -- $LAB_NETDEVS
NA0=$1 NA1=$2
INTERVAL=$FLEET_INTERVAL
INTERVAL_MS=$((INTERVAL * 1000))

# Centiseconds since boot (for timings) and wall-clock ms (for API filters).
now_cs() { local u; read -r u _ < /proc/uptime; u=${u/./}; echo $((10#$u)); }
wall_ms() { echo $(($(date +%s) * 1000)); }
elapsed() { local cs=$(($(now_cs) - $1)); printf '%d.%02d' $((cs / 100)) $((cs % 100)); }
# within START_CS LIMIT_MS: true when at most LIMIT_MS passed since START_CS.
within() { [ $((($(now_cs) - $1) * 10)) -le "$2" ]; }

# start_node NAME CONTROL_PORT DEV0 DEV1: an agent with rails r0=DEV0, r1=DEV1.
start_node() {
  local name=$1 port=$2 d0=$3 d1=$4
  rdmascope-agent --collector "http://127.0.0.1:$FLEET_PORT" --token-file "$FLEET_DIR/token" \
    --node-name "$name" --rail "r0=$d0" --rail "r1=$d1" --control-port "$port" \
    --control-host "$(lab_ip "$d0")" --spool-dir "$FLEET_DIR/spool-$name" --interval "$INTERVAL" \
    --inventory-interval 30 --probe-count 5 >> "$FLEET_DIR/agent-$name.log" 2>&1 &
  eval "PID_${name//-/_}=$!"
  lab_wait_listen "$port" 30 || { tail -n 20 "$FLEET_DIR/agent-$name.log" >&2; return 1; }
}
probes_json() { fleet_get "/api/v1/probes?limit=100000" probes.json; }
rail() { probes_json && rdmascope-labcheck rail probes.json "$@" > rail.txt; }
port_is() { fleet_get /api/v1/ports ports.json && rdmascope-labcheck port ports.json "$@" > port.txt; }
event_open() { fleet_get "/api/v1/events?limit=1000" events.json &&
  rdmascope-labcheck event events.json port_state "$1" open > event.txt; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
alive() { kill -0 "$1" 2>/dev/null || lab_fail "$2 exited: $(tail -n 20 "$FLEET_DIR/agent-$2.log")"; }
# health WANT_EXIT ARGS...: rdmactl health ARGS, printed with its exit code;
# fails unless it exits WANT_EXIT and (for 0..2) carries perfdata after '|'.
health() {
  local want=$1 out rc=0; shift
  out=$(rdmactl "$@" 2>&1) || rc=$?
  echo "\$ rdmactl $* -> exit $rc"; echo "$out"
  [ "$rc" = "$want" ] || lab_fail "rdmactl $* exited $rc, want $want"
  if [ "$want" -lt 3 ]; then grep -q '|' <<< "$out" || lab_fail "rdmactl $*: no perfdata after '|'"; fi
}
show_fail() { cat rail.txt port.txt event.txt 2>/dev/null; tail -n 30 agent-*.log; lab_fail "$*"; }

fleet_start_collector || lab_fail "collector did not listen"
start_node node-a 18611 "$A0" "$A1" || lab_fail "node-a did not start"
start_node node-b 18612 "$B0" "$B1" || lab_fail "node-b did not start"

echo "== 1. both rails, both directions"
t0=$(now_cs)
all_clean() {
  rail node-a node-b r0 0 clean && rail node-a node-b r1 0 clean &&
    rail node-b node-a r0 0 clean && rail node-b node-a r1 0 clean
}
lab_wait 90 "clean r0 and r1 summaries both ways" all_clean || show_fail "rails not probed both ways"
for s in "node-a node-b r0" "node-a node-b r1" "node-b node-a r0" "node-b node-a r1"; do
  # shellcheck disable=SC2086
  rail $s 0 clean; cat rail.txt
done
echo "PASS rails: r0 and r1 clean A->B and B->A, UD and RC, $(elapsed "$t0") s after start"
health 0 health --port "$A0" --port "$A1"
health 1 health --port "$A0" --expect-rate 100
health 3 --sysfs-root /nonexistent health
echo "PASS health: OK and WARNING (--expect-rate 100) with perfdata, UNKNOWN exit 3 without sysfs"

echo "== 2. ip link set $NA1 down (node-a's $A1, rail r1)"
since=$(wall_ms)
t0=$(now_cs)
ip link set "$NA1" down
lab_wait 20 "node-a $A1 DOWN in /api/v1/ports" port_is node-a "$A1" 1 DOWN || show_fail "port not DOWN"
t_port=$(elapsed "$t0"); within "$t0" $((2 * INTERVAL_MS + 2000)) && ok_port=1 || ok_port=0
cat port.txt
lab_wait 20 "an open port_state event for node-a" event_open node-a || show_fail "no port_state event"
t_event=$(elapsed "$t0"); within "$t0" $((2 * INTERVAL_MS + 2000)) && ok_event=1 || ok_event=0
grep -m 2 OPEN event.txt
echo "TIMING link down -> DOWN in /api/v1/ports ${t_port} s, port_state event open ${t_event} s (bound $((2 * INTERVAL)) s + 2 s polling)"
[ $ok_port = 1 ] && [ $ok_event = 1 ] || show_fail "DOWN/event took longer than 2 intervals"
lab_wait 20 "node-a r1 reported as not run" rail node-a node-b r1 "$since" not-run || show_fail "r1 not reported as not run"
cat rail.txt
t_notrun=$(elapsed "$t0")
lab_wait 20 "node-a r0 clean after the r1 link went down" rail node-a node-b r0 "$since" clean || show_fail "r0 not clean"
cat rail.txt
alive "$PID_node_a" node-a
health 2 health --port "$A1"
echo "PASS link down: A keeps running, r0 clean, r1 not run (local port DOWN) after ${t_notrun} s"

echo "== 3. ip link set $NA1 up"
since=$(wall_ms)
t0=$(now_cs)
ip link set "$NA1" up
lab_wait 30 "node-a r1 clean again" rail node-a node-b r1 "$since" clean || show_fail "r1 not back"
t_up=$(elapsed "$t0"); within "$t0" $((3 * INTERVAL_MS + 1000)) && ok_up=1 || ok_up=0
cat rail.txt
echo "TIMING link up -> A->B r1 0 loss ${t_up} s (bound $((3 * INTERVAL)) s + 1 s)"
[ $ok_up = 1 ] || show_fail "r1 took longer than 3 intervals to come back"
lab_wait 30 "node-b r1 to node-a clean again" rail node-b node-a r1 "$since" clean || show_fail "B->A r1 not back"
echo "PASS link up: r1 back to 0 loss (B->A after $(elapsed "$t0") s)"

echo "== 4. a new IPv6 address on $NA1, then its link down and up three times: rail r0 untouched"
IP_A=$(lab_ip "$A0")
# qpns [PORT]: "DEV=QPN" of every UD endpoint the control port PORT (default
# node-a's, 18611) on $IP_A lists, once each; the raw first page in ud_info.txt.
qpns() {
  local line=
  exec 3<>"/dev/tcp/$IP_A/${1:-18611}" || return 1
  printf '{"op":"ud_info"}\n' >&3
  IFS= read -r -t 10 line <&3
  exec 3>&-
  printf '%s' "$line" > ud_info.txt
  grep -o '"device":"[^"]*"[^}]*"qpn":[0-9]*' ud_info.txt |
    sed 's/"device":"\([^"]*\)".*"qpn":\([0-9]*\)/\1=\2/' | sort -u | tr '\n' ' '
}
# qpn_of DEV [PORT]: the UD QPN listed for DEV.
qpn_of() { qpns "${2:-18611}" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
serves() { grep -c 'responder: serving' "$FLEET_DIR/agent-node-a.log"; }
served_since() { [ "$(serves)" -gt "$1" ]; }
# hold N: keep the current state for N report intervals, so probe rounds run in it.
hold() { local t; t=$(now_cs); while within "$t" $(($1 * INTERVAL_MS)); do sleep 0.2; done; }
lists_gid() { qpns > /dev/null && grep -q "\"$1\"" ud_info.txt; }
before=$(qpns)
q0=$(qpn_of "$A0") q1=$(qpn_of "$A1")
[ -n "$q0" ] && [ -n "$q1" ] || show_fail "node-a's ud_info lists no QPN for $A0 or $A1: '$before'"
echo "node-a UD QPNs before: $before"
since=$(wall_ms)
t0=$(now_cs)
n=$(serves)
ip -6 addr add fd00:77:1::a1/64 dev "$NA1" nodad || show_fail "ip -6 addr add on $NA1"
lab_wait 20 "node-a's ud_info to list the new GID fd00:77:1::a1" lists_gid fd00:77:1::a1 ||
  show_fail "the new IPv6 GID never reached ud_info: $(cat ud_info.txt)"
served_since "$n" || show_fail "the responder listed the new GID without serving again"
q1_gid=$(qpn_of "$A1")
echo "after the new GID: $A1 QPN $q1 -> $q1_gid"
[ "$q1_gid" = "$q1" ] || show_fail "$A1's UD QP was rebuilt for a new GID on an unchanged port ($q1 -> $q1_gid)"
hold 2
for i in 1 2 3; do
  n=$(serves)
  ip link set "$NA1" down
  lab_wait 20 "node-a's responder to leave $A1 (flap $i)" served_since "$n" || show_fail "flap $i: $A1 still served"
  hold 1
  n=$(serves)
  ip link set "$NA1" up
  lab_wait 30 "node-a's responder to serve $A1 again (flap $i)" served_since "$n" ||
    show_fail "flap $i: $A1 not served again"
  hold 2
done
until_ms=$(wall_ms)
echo "TIMING new GID and three flaps done in $(elapsed "$t0") s"
after=$(qpns)
echo "node-a UD QPNs after:  $after"
[ "$(qpn_of "$A0")" = "$q0" ] || show_fail "rail r0's UD QPN changed ($q0 -> $(qpn_of "$A0")) while only $A1 changed"
# Both directions of r0 have summaries ending after the window, so the window is whole.
lab_wait 30 "r0 summaries after the flaps" rail node-b node-a r0 "$until_ms" clean || show_fail "B->A r0 not clean after the flaps"
lab_wait 30 "r0 summaries after the flaps" rail node-a node-b r0 "$until_ms" clean || show_fail "A->B r0 not clean after the flaps"
probes_json || show_fail "GET /api/v1/probes"
rdmascope-labcheck rail-window probes.json node-b node-a r0 "$since" "$until_ms" > window.txt; ok_ba=$?
rdmascope-labcheck rail-window probes.json node-a node-b r0 "$since" "$until_ms" >> window.txt; ok_ab=$?
cat window.txt
[ $ok_ba = 0 ] && [ $ok_ab = 0 ] || show_fail "rail r0 lost probes or saw errors while only r1 changed"
lab_wait 30 "node-a r1 clean again" rail node-a node-b r1 "$until_ms" clean || show_fail "r1 not back after the flaps"
# (The link going down took the IPv6 address with it: Linux drops them unless keep_addr_on_down.)
echo "PASS per-port responder: new GID kept $A1's QPN $q1; r0 kept QPN $q0 with 0 lost both ways through a new GID and 3 flaps of r1"

echo "== 5. rdma link delete $A1, then add it again"
# The agent's CPU over 10 s with both rails up, beside the window below.
c0=$(cpu_ticks "$PID_node_a")
t0=$(now_cs)
while within "$t0" 10000; do sleep 0.5; done
cpu_base=$(($(cpu_ticks "$PID_node_a") - c0))
window_base=$(elapsed "$t0")
t0=$(now_cs)
timeout 30 rdma link delete "$A1" || show_fail "rdma link delete $A1 failed or hung (an agent holding the device?)"
echo "TIMING rdma link delete completed in $(elapsed "$t0") s"
alive "$PID_node_a" node-a
c0=$(cpu_ticks "$PID_node_a")
t0=$(now_cs)
# The device stays away for a 10 s window: the agent must not spin.
while within "$t0" 10000; do sleep 0.5; done
c1=$(cpu_ticks "$PID_node_a")
cpu=$((c1 - c0))
window=$(elapsed "$t0")
alive "$PID_node_a" node-a
echo "TIMING agent CPU while $A1 was gone: $((cpu / 100)).$(printf '%02d' $((cpu % 100))) s over ${window} s" \
  "(with both rails up: $((cpu_base / 100)).$(printf '%02d' $((cpu_base % 100))) s over ${window_base} s)"
[ "$cpu" -le 500 ] || show_fail "agent used $cpu ticks of CPU in 10 s with the device gone (spinning?)"
grep -h "gone or fatal\|REMOVED\|DEVICE_FATAL" agent-node-a.log | head -n 3
lab_wait 10 "node-a r1 reported as not run while $A1 is gone" rail node-a node-b r1 "$(wall_ms)" not-run ||
  show_fail "r1 not reported as not run with the device gone"
cat rail.txt
since=$(wall_ms)
t0=$(now_cs)
rdma link add "$A1" type rxe netdev "$NA1" || show_fail "rdma link add $A1"
lab_wait 60 "node-a r1 clean after the device came back" rail node-a node-b r1 "$since" clean || show_fail "r1 not back after add"
cat rail.txt
echo "TIMING device back -> A->B r1 0 loss $(elapsed "$t0") s"
echo "PASS delete/add: agent survived, low CPU while gone, r1 back"

echo "== 6. an agent started with all its ports down"
kill -TERM "$PID_node_a"; wait "$PID_node_a" 2>/dev/null
ip link set "$NA0" down
ip link set "$NA1" down
lab_wait 10 "$A0 and $A1 DOWN" sh -c "grep -q DOWN /sys/class/infiniband/$A0/ports/1/state && grep -q DOWN /sys/class/infiniband/$A1/ports/1/state" ||
  lab_fail "ports did not go down"
start_node node-c 18613 "$A0" "$A1" || show_fail "node-c did not start with its ports down"
lab_wait 20 "node-c $A0 DOWN reported" port_is node-c "$A0" 1 DOWN || show_fail "node-c ports not reported DOWN"
cat port.txt
port_is node-c "$A1" 1 DOWN && cat port.txt
alive "$PID_node_c" node-c
since=$(wall_ms)
t0=$(now_cs)
ip link set "$NA0" up
ip link set "$NA1" up
lab_wait 60 "node-c r0 probing node-b cleanly" rail node-c node-b r0 "$since" clean || show_fail "node-c not probing after up"
cat rail.txt
echo "TIMING all-down start: probing $(elapsed "$t0") s after the links came up"
echo "PASS all ports down at start: ran, reported DOWN, probed after up"
echo "== 7. default rail names: an agent started with $A1 absent, $A1 added later"
kill -TERM "$PID_node_c"; wait "$PID_node_c" 2>/dev/null
timeout 30 rdma link delete "$A1" || show_fail "rdma link delete $A1 failed or hung"
# start_node_d LOG: node-d on three devices with default rail names, logging to LOG (log_d).
start_node_d() {
  log_d=$1
  rdmascope-agent --collector "http://127.0.0.1:$FLEET_PORT" --token-file "$FLEET_DIR/token" \
    --node-name node-d --device "$A0" --device "$A1" --device "$B1" --control-port 18614 \
    --control-host "$(lab_ip "$A0")" --spool-dir "$FLEET_DIR/spool-node-d" --interval "$INTERVAL" \
    --inventory-interval 30 --probe-count 5 >> "$log_d" 2>&1 &
  PID_node_d=$!
  lab_wait_listen 18614 30 || show_fail "node-d did not start"
}
start_node_d "$FLEET_DIR/agent-node-d.log"
# rail_table: NAME=DEV/PORT of every rail node-d has named so far (from its log).
rail_table() { sed -n 's/.*rail \([^ ]*\) (\([^)]*\)): .* -> .*/\1=\2/p' "$log_d" | sort -u | tr '\n' ' '; }
rails_named() { [ "$(rail_table | wc -w)" -ge "$1" ]; }
lab_wait 20 "node-d's rails on $A0 and $B1" rails_named 2 || show_fail "node-d named no rails: $(tail -n 5 "$log_d")"
before=$(rail_table)
echo "rail table before: $before"
[ "$before" = "0=$A0/1 1=$B1/1 " ] || show_fail "node-d's rails before $A1 came: '$before', want '0=$A0/1 1=$B1/1'"
rdma link add "$A1" type rxe netdev "$NA1" || show_fail "rdma link add $A1"
lab_wait 30 "node-d's rail on $A1" rails_named 3 || show_fail "node-d did not take $A1 as a rail: $(tail -n 5 "$log_d")"
after=$(rail_table)
echo "rail table after:  $after"
grep -m 1 "rail 2 = $A1/1" "$log_d"
[ "$after" = "0=$A0/1 1=$B1/1 2=$A1/1 " ] || show_fail "node-d's rails after $A1 came: '$after', want '0=$A0/1 1=$B1/1 2=$A1/1'"
alive "$PID_node_d" node-d
echo "PASS late device: $A1 became rail 2; rails 0 ($A0) and 1 ($B1) kept their names"
# Restarted with every device present, node-d names its ports as before (the
# names kept in its spool directory), not by position (which would swap
# rails 1 and 2).
kill -TERM "$PID_node_d"; wait "$PID_node_d" 2>/dev/null
echo "names kept: $(tr -d ' \n' < "$FLEET_DIR/spool-node-d/rail-names.json")"
start_node_d "$FLEET_DIR/agent-node-d2.log"
lab_wait 20 "node-d's three rails after the restart" rails_named 3 || show_fail "node-d named no rails: $(tail -n 5 "$log_d")"
restarted=$(rail_table)
echo "rail table after a restart: $restarted"
[ "$restarted" = "$after" ] || show_fail "node-d's rails after a restart: '$restarted', want '$after'"
alive "$PID_node_d" node-d
echo "PASS restart: every rail kept its name ($restarted)"

echo "== 8. a UD responder QP forced into error (--inject ud-send-error): it recovers and says so"
kill -TERM "$PID_node_d"; wait "$PID_node_d" 2>/dev/null
# start_injected NAME CONTROL_PORT FAULT: an agent on rail r0=$A0 with
# --inject FAULT, logging to agent-NAME.log; sets PID_<NAME> and, once its UD
# endpoint on $A0 is listed, QPN to that endpoint's QPN.
start_injected() {
  rdmascope-agent --collector "http://127.0.0.1:$FLEET_PORT" --token-file "$FLEET_DIR/token" \
    --node-name "$1" --rail "r0=$A0" --control-port "$2" --control-host "$IP_A" \
    --spool-dir "$FLEET_DIR/spool-$1" --interval "$INTERVAL" --inventory-interval 30 --probe-count 5 \
    --inject "$3" >> "$FLEET_DIR/agent-$1.log" 2>&1 &
  eval "PID_${1//-/_}=$!"
  lab_wait_listen "$2" 30 || show_fail "$1 did not start"
  has_qpn() { QPN=$(qpn_of "$A0" "$1"); [ -n "$QPN" ]; }
  lab_wait 20 "$1's UD endpoint on $A0" has_qpn "$2" || show_fail "$1 lists no UD endpoint on $A0"
}
log_e=$FLEET_DIR/agent-node-e.log
start_injected node-e 18615 ud-send-error
qe=$QPN
since=$(wall_ms)
# 40 probes 10 ms apart: the 10th echo fails (a bad key; at least that probe is
# lost), the QP leaves RTS and must come back.
rc=0
rdmactl probe --transport ud --device "$B0" "$IP_A:18615" --count 40 > probe-e.txt 2>&1 || rc=$?
cat probe-e.txt
lost=$(sed -n 's/.*lost \([0-9]*\).*/\1/p' probe-e.txt | head -n 1)
# At most 5 lost: echoes were back within 60 ms of the failure (recovery is a
# QP reset and 64 receives posted under TCG), far inside 2 report intervals.
[ "$rc" -le 1 ] && [ -n "$lost" ] && [ "$lost" -ge 1 ] && [ "$lost" -le 5 ] ||
  show_fail "after the injected send error, echoes did not resume within 5 probes (exit $rc, lost '${lost}')"
rdmactl probe --transport ud --device "$B0" "$IP_A:18615" --count 20 > probe-e2.txt 2>&1 ||
  show_fail "a second probe run after the recovery lost probes or failed: $(cat probe-e2.txt)"
grep -m 1 'lost' probe-e2.txt
events_json() { fleet_get "/api/v1/events?kind=responder_qp_error&limit=100" events.json; }
event_closed() { events_json && rdmascope-labcheck event events.json responder_qp_error node-e closed > event.txt; }
t0=$(now_cs)
lab_wait 20 "node-e's responder_qp_error event, closed" event_closed || show_fail "no closed responder_qp_error event for node-e"
cat event.txt
echo "TIMING event in the collector $(elapsed "$t0") s after the probe run"
grep -q "QPN $qe:" event.txt || show_fail "the event does not name QPN $qe"
grep -q "LOC_" event.txt || show_fail "the event does not name the completion status"
[ "$(grep -c '^CLOSED' event.txt)" = 1 ] || show_fail "want exactly one responder_qp_error event for node-e"
qe_after=$(qpn_of "$A0" 18615)
[ "$qe_after" = "$qe" ] || show_fail "the recovered UD QP changed its QPN ($qe -> $qe_after)"
grep -m 2 "QPN $qe" "$log_e"
alive "$PID_node_e" node-e
echo "PASS UD responder recovery: $lost of 40 lost at the injected error, 0 of 20 after, QPN $qe kept, one closed event naming it"

echo "== 9. a UD responder CQ overrun (--inject ud-cq-overrun): the async CQ_ERR is read, the responder built again"
kill -TERM "$PID_node_e"; wait "$PID_node_e" 2>/dev/null
log_f=$FLEET_DIR/agent-node-f.log
start_injected node-f 18616 ud-cq-overrun
qf=$QPN
# 60 probes in bursts of 10 (rdmactl's default pattern): once a burst's 10
# probes came in (the fleet's spread probes never come 10 within 100 ms), the
# responder leaves its 2-entry CQ unpolled for 500 ms, the next bursts overrun
# it and rxe raises CQ_ERR on the responder's context.
rdmactl probe --transport ud --device "$B0" "$IP_A:18616" --count 60 > probe-f.txt 2>&1
grep -m 1 'lost' probe-f.txt
t0=$(now_cs)
rebuilt() { qf_after=$(qpn_of "$A0" 18616); [ -n "$qf_after" ] && [ "$qf_after" != "$qf" ]; }
lab_wait 10 "node-f's UD responder built again (a new QPN)" rebuilt ||
  show_fail "node-f's UD responder was not built again after the CQ overrun (QPN $qf): $(tail -n 5 "$log_f")"
echo "TIMING UD responder built again $(elapsed "$t0") s after the probe run: QPN $qf -> $qf_after"
grep -m 1 "async event CQ_ERR" "$log_f" || show_fail "node-f's log does not name the async event CQ_ERR"
rdmactl probe --transport ud --device "$B0" "$IP_A:18616" --count 20 > probe-f2.txt 2>&1 ||
  show_fail "probes to the rebuilt UD responder lost probes or failed: $(cat probe-f2.txt)"
grep -m 1 'lost' probe-f2.txt
event_f_closed() { events_json && rdmascope-labcheck event events.json responder_qp_error node-f closed > event.txt; }
lab_wait 20 "node-f's responder_qp_error event, closed" event_f_closed || show_fail "no closed responder_qp_error event for node-f"
cat event.txt
grep -q "QPN $qf stopped (CQ_ERR); built again with QPN $qf_after" event.txt ||
  show_fail "the event does not say QPN $qf stopped on CQ_ERR and was built again as $qf_after"
alive "$PID_node_f" node-f
echo "PASS UD responder CQ overrun: async CQ_ERR read, QPN $qf -> $qf_after, 0 of 20 lost after, a closed event naming both"
fleet_stop
kill -TERM "$PID_node_a" "$PID_node_b" "$PID_node_c" "$PID_node_f" 2>/dev/null
wait 2>/dev/null
echo "rails: PASS"
