#!/bin/bash
# Lab test (issue 12): one black-holed target among 5 costs the others nothing.
# One prober agent (node "prober" on the first rxe device, --probe-count 5,
# 2 s interval; its reports are spooled: the collector URL leads nowhere)
# probes 5 targets t1..t5: responder agents on the second and third rxe
# devices (they share devices and ports, each with its own control port).
#  1. Every target has full UD and RC summaries (5 sent, 5 received, no
#     errors) in the reports of the last 3 intervals.
#  2. t3's agent is SIGSTOPped (its control port still accepts, its QPs never
#     answer): within ROUNDS + 3 intervals the 4 others have at least ROUNDS
#     full summaries each (every summary since the stop full) and t3 shows
#     loss (UD) and deadline errors or loss (RC).
# Prints the per-target sent/received of every summary and the timings.
. /opt/rdmascope/lab/lab.sh
lab_require_bin rdmascope-agent rdmascope-labcheck || exit 1
WORK=$(mktemp -d /tmp/probe-concurrency.XXXXXX) || exit 1
cd "$WORK" || exit 1
set -- $LAB_DEVS
[ $# -ge 2 ] || lab_fail "needs 2 rxe devices, have: $LAB_DEVS"
SRC=$1 R1=$2 R2=${3:-$2}
COUNT=5
ROUNDS=4
INTERVAL=2
TARGETS="t1 t2 t3 t4 t5"
STOPPED=t3
SPOOL=$WORK/spool

wall_ms() { echo $(($(date +%s) * 1000)); }
show_fail() { cat counts.txt 2>/dev/null; tail -n 20 prober.log; lab_fail "$*"; }
# counts SINCE_MS ROUNDS DEAD LIVE...: one look at the spooled reports (at most every 0.5 s).
counts() {
  sleep 0.5
  rdmascope-labcheck target-counts "$SPOOL" prober "$1" "$COUNT" "$2" "$3" "${@:4}" > counts.txt
}

target_args=()
for i in 1 2 3 4 5; do
  dev=$R1; [ $((i % 2)) = 0 ] && dev=$R2
  port=$((18620 + i))
  rdmascope-agent --responder-only --device "$dev" --control-port "$port" > "responder-t$i.log" 2>&1 &
  eval "PID_t$i=$!"
  lab_wait_listen "$port" 30 || { cat "responder-t$i.log"; lab_fail "responder t$i did not listen"; }
  target_args+=(--probe-target "t$i=$(lab_ip "$dev"):$port")
done
t0=$(lab_uptime)
rdmascope-agent --collector http://127.0.0.1:9 --node-name prober --device "$SRC" --control-port 18610 \
  --spool-dir "$SPOOL" --interval "$INTERVAL" --inventory-interval 30 --probe-count "$COUNT" "${target_args[@]}" \
  > prober.log 2>&1 &
PID_prober=$!

echo "== 1. all 5 targets probed"
# The summaries of the last 3 intervals (the first ones may predate the responders' GIDs).
recent() { counts $(( $(wall_ms) - 3 * INTERVAL * 1000 )) "$@"; }
# shellcheck disable=SC2086
lab_wait 60 "full summaries for every target" recent 1 - $TARGETS || show_fail "targets not all probed"
cat counts.txt
echo "PASS all-targets: 5 targets with full UD and RC summaries $(( $(lab_uptime) - t0 )) s after the prober started"

echo "== 2. SIGSTOP $STOPPED's agent"
live=$(echo "$TARGETS" | tr ' ' '\n' | grep -vx "$STOPPED" | tr '\n' ' ')
eval "stopped_pid=\$PID_$STOPPED"
since=$(wall_ms)
t0=$(lab_uptime)
kill -STOP "$stopped_pid"
bound=$(( (ROUNDS + 3) * INTERVAL ))
# shellcheck disable=SC2086
lab_wait "$bound" "$ROUNDS full rounds of the 4 live targets and loss for $STOPPED" counts "$since" "$ROUNDS" "$STOPPED" $live ||
  { kill -CONT "$stopped_pid"; show_fail "live targets lost probes or $STOPPED showed no loss within $bound s"; }
took=$(( $(lab_uptime) - t0 ))
cat counts.txt
echo "TIMING $STOPPED stopped -> $ROUNDS full rounds of each live target and loss for $STOPPED in $took s (bound $bound s, interval $INTERVAL s)"
echo "PASS black-hole: the 4 live targets kept $COUNT/$COUNT per interval, $STOPPED shows loss/deadline"
kill -CONT "$stopped_pid"
kill -TERM "$PID_prober"; wait "$PID_prober" 2>/dev/null
for i in 1 2 3 4 5; do eval "kill -TERM \$PID_t$i"; done
wait 2>/dev/null
echo "probe_concurrency: PASS"
