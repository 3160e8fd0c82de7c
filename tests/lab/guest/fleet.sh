# shellcheck shell=bash
# A fleet inside the lab VM: one rdmascope-collector and one rdmascope-agent
# per rxe device, each agent a node of its own (node-I on the I-th device of
# LAB_DEVS, with its own control port and spool). Source after lab.sh:
#   . /opt/rdmascope/lab/lab.sh; . /opt/rdmascope/lab/fleet.sh
#
# Contract:
#   - Files live in FLEET_DIR (default /tmp/fleet): token (the agents'),
#     tokens (the collector's: `* TOKEN`, the fleet token), lab.db,
#     collector.log, agent-I.log, spool-I/.
#   - The collector listens on 0.0.0.0:FLEET_PORT (default 9470) with the
#     token, serves /opt/rdmascope/web as the dashboard; the agents reach it
#     over rxe0's netdev and report every FLEET_INTERVAL s (default 2).
#   - fleet_start_collector / fleet_start_agent start in the background, set
#     FLEET_COLLECTOR_PID / AGENT_I (the agent's PID) and return non-zero with
#     a message when the process is not up by its deadline.
#   - fleet_get PATH OUT: GET from the collector's API into OUT (10 s deadline).
#   - fleet_all_pairs [--sent] NODE...: true when the API lists every NODE with
#     ports and UD and RC summaries for every ordered pair (rdmascope-labcheck
#     api-pairs); its report goes to FLEET_DIR/pairs.txt.
#   - fleet_stop: SIGTERM every agent, then the collector, and wait for them.

FLEET_DIR=${FLEET_DIR:-/tmp/fleet}
FLEET_PORT=${FLEET_PORT:-9470}
FLEET_INTERVAL=${FLEET_INTERVAL:-2}
# FLEET_TLS=1: the collector serves HTTPS with the test certificate
# (fixtures/tls) and agents verify it with the test CA; fleet_get needs HTTP.
FLEET_TLS=${FLEET_TLS:-0}
FLEET_CA=/opt/rdmascope/fixtures/tls/ca.crt
FLEET_SCHEME=http
[ "$FLEET_TLS" = 1 ] && FLEET_SCHEME=https
FLEET_API=http://127.0.0.1:$FLEET_PORT
FLEET_AGENTS=""
mkdir -p "$FLEET_DIR"
[ -s "$FLEET_DIR/token" ] || echo "lab-token-$$" > "$FLEET_DIR/token"
echo "* $(cat "$FLEET_DIR/token")" > "$FLEET_DIR/tokens"

# fleet_start_collector [ARGS...]: extra ARGS go to rdmascope-collector.
fleet_start_collector() {
  local tls=()
  [ "$FLEET_TLS" = 1 ] && tls=(--tls-cert /opt/rdmascope/fixtures/tls/collector.crt
                               --tls-key /opt/rdmascope/fixtures/tls/collector.key)
  rdmascope-collector --listen "0.0.0.0:$FLEET_PORT" --db "$FLEET_DIR/lab.db" \
    --token-file "$FLEET_DIR/tokens" --web-dir /opt/rdmascope/web --report-interval-s "$FLEET_INTERVAL" "${tls[@]}" "$@" \
    >> "$FLEET_DIR/collector.log" 2>&1 &
  FLEET_COLLECTOR_PID=$!
  lab_wait_listen "$FLEET_PORT" 30 || { tail -n 20 "$FLEET_DIR/collector.log" >&2; return 1; }
}

# fleet_start_agent I [ARGS...]: node-I on the I-th rxe device, control port
# 18610+I; extra ARGS go to rdmascope-agent (e.g. --inject rnr).
fleet_start_agent() {
  local i=$1 dev ip collector_ip
  shift
  dev=$(echo "$LAB_DEVS" | cut -d' ' -f$((i + 1)))
  [ -n "$dev" ] || { echo "fleet_start_agent: no rxe device number $i (have: $LAB_DEVS)" >&2; return 1; }
  ip=$(lab_ip "$dev") || return 1
  collector_ip=$(echo "$LAB_IPS" | cut -d' ' -f1)
  local tls=()
  [ "$FLEET_TLS" = 1 ] && tls=(--ca-file "$FLEET_CA")
  rdmascope-agent --collector "$FLEET_SCHEME://$collector_ip:$FLEET_PORT" --token-file "$FLEET_DIR/token" "${tls[@]}" \
    --node-name "node-$i" --device "$dev" --control-port $((18610 + i)) \
    --control-host "$ip" --spool-dir "$FLEET_DIR/spool-$i" --interval "$FLEET_INTERVAL" \
    --inventory-interval 30 "$@" >> "$FLEET_DIR/agent-$i.log" 2>&1 &
  eval "AGENT_$i=$!"
  case " $FLEET_AGENTS " in *" $i "*) ;; *) FLEET_AGENTS="$FLEET_AGENTS $i" ;; esac
  lab_wait_listen $((18610 + i)) 30 || { tail -n 20 "$FLEET_DIR/agent-$i.log" >&2; return 1; }
}

fleet_get() {
  timeout 10 wget -q -O "$2" "$FLEET_API$1"
}

fleet_all_pairs() {
  local sent=""
  [ "$1" = --sent ] && { sent=--sent; shift; }
  fleet_get /api/v1/nodes "$FLEET_DIR/nodes.json" && fleet_get "/api/v1/probes?limit=100000" "$FLEET_DIR/probes.json" &&
    rdmascope-labcheck api-pairs $sent "$FLEET_DIR/nodes.json" "$FLEET_DIR/probes.json" "$@" > "$FLEET_DIR/pairs.txt"
}

fleet_stop() {
  local i pid
  for i in $FLEET_AGENTS; do
    eval "pid=\$AGENT_$i"
    kill -TERM "$pid" 2>/dev/null
  done
  for i in $FLEET_AGENTS; do
    eval "pid=\$AGENT_$i"
    wait "$pid" 2>/dev/null
  done
  [ -n "${FLEET_COLLECTOR_PID:-}" ] && kill -TERM "$FLEET_COLLECTOR_PID" 2>/dev/null &&
    wait "$FLEET_COLLECTOR_PID" 2>/dev/null
  return 0
}
