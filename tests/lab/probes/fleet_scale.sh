#!/usr/bin/bash
# Fleet scale of the probe responder, in one lab boot (run inside the VM by
# tests/lab/run-in-lab.sh --script). Prints "PASS name: detail" /
# "FAIL name: detail", "TIMING name: seconds" and "RESPONDER ..." lines with
# the responder's RSS, fd, thread and QP counts; exits 1 when any check failed.
#
# A. One responder agent on rxe0 (default 60 s idle timeout); one
#    lab_fleet_probe process, also on rxe0 (rxe to itself: the path across
#    the lab's hub has 67 ms retransmit stalls that would only slow the run
#    down), opens RC_N RC sessions and runs UD_N UD probers beside them on 4
#    threads, then probes every RC session again on its round-1 QP (round 2)
#    and holds them. Checks: 0 refused, 0 lost, 0 reconnects; the responder
#    holds RC_N RC QPs at once (more than the control server's 64 concurrent
#    setups) with its fd and thread counts flat (one shard, no connection
#    per session).
# B. A second responder with --rc-idle-timeout 5; 50 RC sessions probed and
#    left: within 15 s every session is gone and the responder's QPs, fds and
#    threads are back at their baseline.
#
# QPs are counted from rxe0's resource summary (`rdma res show`): the per-QP
# listing names no process for QPs whose creating thread has ended, and its
# dump came back short with 400 QPs. While the prober holds its RC_N
# sessions the responder's are the count minus the baseline minus RC_N.
. /opt/rdmascope/lab/lab.sh

RC_N=${1:-200} UD_N=${2:-200}
PASSED=0 FAILED=0
pass() { echo "PASS $1: $2"; PASSED=$((PASSED + 1)); }
fail() { echo "FAIL $1: $2"; FAILED=$((FAILED + 1)); }
check() { if eval "$3"; then pass "$1" "$2"; else fail "$1" "$2"; fi; }
secs_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

lab_require_bin rdmascope-agent lab_fleet_probe || exit 1
DEV=rxe0
IP=$(lab_ip $DEV) || exit 1
OUT=$(mktemp -d /tmp/fleet-scale.XXXXXX) || exit 1
ulimit -n 8192  # the prober process holds RC_N device contexts and CQ channels

rss_kb() { awk '/^VmRSS:/{print $2}' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }
threads() { awk '/^Threads:/{print $2}' "/proc/$1/status"; }
# QPs of any kind on $DEV, both ends (prober and responder).
qps() { rdma res show 2>/dev/null | awk -v d="$DEV:" '$2 == d { for (i = 3; i < NF; i++) if ($i == "qp") print $(i + 1) }'; }
figures() { echo "RESPONDER $1: rss_kb=$(rss_kb $2) fds=$(fds $2) threads=$(threads $2) qps_on_$DEV=$(qps)"; }
# start_agent PORT ARGS...: a responder in the background, its pid in AGENT.
start_agent() {
  local port=$1; shift
  timeout 600 rdmascope-agent --responder-only --device $DEV --control-port "$port" "$@" > "$OUT/agent-$port.log" 2>&1 &
  AGENT=$!
  lab_wait_listen "$port" 30 || { cat "$OUT/agent-$port.log"; lab_fail "the responder on port $port did not listen"; }
}
stop_agent() {
  kill "$1" 2>/dev/null
  wait "$1" 2>/dev/null
  grep -v 'responder ready\|  ud rxe' "$OUT/agent-$2.log" | head -10 | sed 's/^/    agent: /'
}

# --- A. RC_N RC sessions + UD_N UD probers against one responder -----------
start_agent 18650
A=$AGENT
figures "A before" $A
RSS0=$(rss_kb $A) FD0=$(fds $A) TH0=$(threads $A) QP0=$(qps)
HOLD=$OUT/hold
start=$(date +%s.%N)
timeout 300 lab_fleet_probe --device $DEV --host "$IP" --port 18650 --rc "$RC_N" --ud "$UD_N" \
  --count 5 --threads 4 --hold-file "$HOLD" > "$OUT/probe.log" 2>&1 &
PROBER=$!
if lab_wait 240 "the probers' two rounds" test -e "$HOLD"; then
  echo "TIMING fleet_probe_rounds: $(secs_since "$start")"
  figures "A with $RC_N RC sessions" $A
  RSS1=$(rss_kb $A) FD1=$(fds $A) TH1=$(threads $A) QP1=$(( $(qps) - QP0 - RC_N ))
  check fleet_rc_sessions_held "$QP1 RC QPs at the responder at once (want $RC_N)" "[ $QP1 -eq $RC_N ]"
  check fleet_fds_flat "responder fds $FD0 -> $FD1, threads $TH0 -> $TH1 with $RC_N sessions (want at most +2 each: one shard, no connection per session)" \
    "[ $FD1 -le $((FD0 + 2)) ] && [ $TH1 -le $((TH0 + 2)) ]"
  echo "INFO responder RSS per RC session: $(( (RSS1 - RSS0) * 1024 / (RC_N > 0 ? RC_N : 1) )) bytes (RSS growth / $RC_N, with the UD probers' share)"
  rm -f "$HOLD"
else
  fail fleet_probe_rounds "the prober did not finish its rounds in 240 s"
fi
wait $PROBER
PRC=$?
sed 's/^/    /' "$OUT/probe.log"
R1=$(grep '^rc round 1:' "$OUT/probe.log") R2=$(grep '^rc round 2:' "$OUT/probe.log") UD=$(grep '^ud:' "$OUT/probe.log")
num() { echo "$1" | awk -v k="$2" '{ for (i = 2; i <= NF; i++) if ($i ~ "^" k) { print $(i - 1); exit } }'; }
for line in "$R1" "$UD" "$R2"; do
  name=$(echo "$line" | cut -d: -f1 | tr ' ' _)
  sent=$(num "$line" probes) answered=$(num "$line" answered) lost=$(num "$line" lost) refused=$(num "$line" refused)
  check "fleet_$name" "$(num "$line" sessions) sessions, $sent sent, $answered answered, $lost lost, $refused refused" \
    "[ -n '$sent' ] && [ '$sent' -gt 0 ] && [ '$lost' = 0 ] && [ '$refused' = 0 ] && [ '$sent' = '$answered' ]"
done
check fleet_rc_round2_no_reconnect "round 2 reconnects: $(num "$R2" reconnects) (the sessions outlived their setup connections)" \
  "[ '$(num "$R2" reconnects)' = 0 ]"
check fleet_prober_clean "lab_fleet_probe exit status $PRC" "[ $PRC -eq 0 ]"
figures "A after the probers left" $A
stop_agent $A 18650

# --- B. idle expiry gives everything back ----------------------------------
start_agent 18651 --rc-idle-timeout 5
B=$AGENT
figures "B before" $B
FD0=$(fds $B) TH0=$(threads $B) QP0=$(qps)
timeout 120 lab_fleet_probe --device $DEV --host "$IP" --port 18651 --rc 50 --ud 0 --count 2 --threads 4 \
  > "$OUT/probe-b.log" 2>&1
PRC=$?
sed 's/^/    /' "$OUT/probe-b.log"
check fleet_idle_probers "50 RC sessions probed and left, lab_fleet_probe exit status $PRC" "[ $PRC -eq 0 ]"
left=$(date +%s.%N)
at_baseline() { [ "$(qps)" -le "$QP0" ] && [ "$(fds $B)" -le "$FD0" ] && [ "$(threads $B)" -le "$TH0" ]; }
if lab_wait 15 "the responder's sessions to idle out (5 s) and its shard to go" at_baseline; then
  pass fleet_idle_expiry "QPs, fds and threads back at baseline $(secs_since "$left") s after the probers left (idle timeout 5 s)"
else
  fail fleet_idle_expiry "15 s after the probers left: $(( $(qps) - QP0 )) QPs over the baseline, fds $FD0 -> $(fds $B), threads $TH0 -> $(threads $B)"
fi
figures "B after idle expiry" $B
stop_agent $B 18651
echo "fleet scale lab: $PASSED passed, $FAILED failed"
[ $FAILED -eq 0 ]
