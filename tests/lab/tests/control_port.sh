#!/usr/bin/bash
# The agent's control port against hostile and unauthenticated peers, in one
# lab boot (run inside the VM by tests/lab/run-in-lab.sh --script). Prints one
# line per case (case, what happened, PASS/FAIL) and exits 1 when any failed.
#
# Agent: a responder on rxe1 with a fleet secret (strict, the default).
#  1. 64 idle control connections from one client (rxe2's address, reopened
#     whenever the agent closes one) while a real prober on rxe0 runs RC and
#     UD probes with the secret: every probe answered; the agent holds at most
#     its per-address cap of the idle ones and closes each at the auth deadline.
#  2. A prober without the secret: refused ("authentication required"), no QPN;
#     a raw ud_info and a v1 hello get no QPN and no nonce.
#  3. A prober with a wrong secret: refused, no QPN.
#  4. A prober with the secret against an agent without one (strict prober):
#     refused, no downgrade.
#  5. An agent with two --device listens on both devices' addresses.
. /opt/rdmascope/lab/lab.sh

lab_require_bin rdmascope-agent rdmactl lab_control_hold || exit 1
FAILED=0
row() {  # row CASE RESULT OK(0/1)
  local verdict=PASS
  [ "$3" = 0 ] || { verdict=FAIL; FAILED=$((FAILED + 1)); }
  printf '%-52s %-4s %s\n' "$1" "$verdict" "$2"
}
SRC=rxe0 DST=rxe1 HOSTILE=rxe2
DST_IP=$(lab_ip $DST) HOSTILE_IP=$(lab_ip $HOSTILE) || exit 1
OUT=$(mktemp -d /tmp/control-port.XXXXXX) || exit 1
printf 'lab-fleet-secret\n' > $OUT/secret; printf 'wrong\n' > $OUT/wrong

start_agent() {  # start_agent NAME PORT ARGS...
  local name=$1 port=$2; shift 2
  timeout 400 rdmascope-agent --responder-only --device $DST --control-port "$port" "$@" > "$OUT/$name.log" 2>&1 &
  eval "PID_$name=$!"
  lab_wait_listen "$port" 30 || { cat "$OUT/$name.log"; lab_fail "agent $name did not listen on $port"; }
}
probe() {  # probe OUTFILE ARGS...: rdmactl probe from rxe0; exit status in PROBE_RC
  local f=$1; shift
  timeout 120 rdmactl probe --device $SRC "$@" > "$f" 2> "$f.err"
  PROBE_RC=$?
}
f_recv() { awk '/^sent /{print $4}' "$1"; }
ask() {  # ask PORT LINE: one line on a fresh connection, prints the reply
  timeout 10 bash -c 'exec 3<>/dev/tcp/$1/$2 || exit 1; printf "%s\n" "$3" >&3; IFS= read -r -t 5 l <&3; printf "%s\n" "$l"' _ "$DST_IP" "$1" "$2"
}

start_agent strict 18670 --control-secret-file $OUT/secret

# 1. The siege: 64 idle connections from one address while a real prober works.
lab_control_hold --host "$DST_IP" --from "$HOSTILE_IP" --port 18670 --count 64 --seconds 20 \
  --ready-file $OUT/siege > $OUT/hold.txt 2>&1 &
HOLD=$!
lab_wait 30 "the agent holding and refusing the idle connections" test -e $OUT/siege ||
  { cat $OUT/hold.txt; lab_fail "the siege never began"; }
probe $OUT/rc.txt --transport rc "$DST_IP:18670" --count 20 --interval-ms 0 --control-secret-file $OUT/secret
RC_RC=$PROBE_RC
probe $OUT/ud.txt --transport ud "$DST_IP:18670" --count 20 --interval-ms 0 --control-secret-file $OUT/secret
UD_RC=$PROBE_RC
kill -0 $HOLD 2>/dev/null; SIEGE_ON=$?  # the probes ran while the siege lasted
wait $HOLD
HOLD_LINE=$(cat $OUT/hold.txt)
MOST_HELD=$(sed -n 's/.*most held at once \([0-9]*\).*/\1/p' $OUT/hold.txt)
REFUSED=$(sed -n 's/.*refused at once \([0-9]*\).*/\1/p' $OUT/hold.txt)
LONGEST=$(sed -n 's/.*longest idle kept \([0-9.]*\) s.*/\1/p' $OUT/hold.txt)
ok=1
[[ $RC_RC == 0 && $UD_RC == 0 && $(f_recv $OUT/rc.txt) == 20 && $(f_recv $OUT/ud.txt) == 20 && $SIEGE_ON == 0 &&
   -n $MOST_HELD && $MOST_HELD -le 16 && ${REFUSED:-0} -gt 0 ]] &&
  awk -v l="${LONGEST:-99}" 'BEGIN { exit !(l <= 7) }' && ok=0
row "64 idle control connections from one client" \
  "prober rc $(f_recv $OUT/rc.txt)/20 ud $(f_recv $OUT/ud.txt)/20 during the siege; hostile: $HOLD_LINE" $ok
[ $ok = 0 ] || { cat $OUT/rc.txt.err $OUT/ud.txt.err; }

# 2. Without the secret: refused, no QPN, no nonce.
probe $OUT/none.txt --transport rc "$DST_IP:18670" --count 3 --interval-ms 0
R_UD=$(ask 18670 '{"op":"ud_info"}')
R_V1=$(ask 18670 '{"op":"hello"}')
ok=1
[[ $PROBE_RC != 0 && $R_UD == *"authentication required"* && $R_UD != *qpn* && $R_V1 == *"v2 required"* &&
   $R_V1 != *'"nonce":'* ]] && grep -q "authentication required" $OUT/none.txt.err && ! grep -qi qpn $OUT/none.txt &&
  ok=0
row "prober without the secret vs strict agent" \
  "exit $PROBE_RC: $(head -c 120 $OUT/none.txt.err | tr '\n' ' '); raw ud_info -> ${R_UD:0:70}; v1 hello -> ${R_V1:0:60}" $ok

# 3. A wrong secret: refused, no QPN.
probe $OUT/wrong.txt --transport rc "$DST_IP:18670" --count 3 --interval-ms 0 --control-secret-file $OUT/wrong
ok=1
[[ $PROBE_RC != 0 ]] && grep -q "wrong control secret" $OUT/wrong.txt.err && ! grep -qi qpn $OUT/wrong.txt && ok=0
row "prober with a wrong secret vs strict agent" "exit $PROBE_RC: $(head -c 120 $OUT/wrong.txt.err | tr '\n' ' ')" $ok

# 4. A prober with the secret against an agent without one: no downgrade.
start_agent open 18671
probe $OUT/down.txt --transport ud "$DST_IP:18671" --count 3 --interval-ms 0 --control-secret-file $OUT/secret
ok=1
[[ $PROBE_RC != 0 ]] && grep -q "offers no authentication" $OUT/down.txt.err && ok=0
row "prober with the secret vs agent without one" "exit $PROBE_RC: $(head -c 140 $OUT/down.txt.err | tr '\n' ' ')" $ok

# 5. The default control bind follows every --device: an agent serving rxe1
# and rxe2 listens on both devices' addresses, and a prober reaches it there.
timeout 400 rdmascope-agent --responder-only --device $DST --device $HOSTILE --control-port 18672 \
  > "$OUT/both.log" 2>&1 &
PID_both=$!
lab_wait_listen 18672 30 || { cat "$OUT/both.log"; lab_fail "agent both did not listen on 18672"; }
reach() { timeout 5 bash -c 'exec 3<>/dev/tcp/$1/$2' _ "$1" 18672 2>/dev/null && echo yes || echo no; }
AT_DST=$(reach "$DST_IP") AT_HOSTILE=$(reach "$HOSTILE_IP")
probe $OUT/both.txt --transport ud "$DST_IP:18672" --count 3 --interval-ms 0
ok=1
[[ $AT_DST == yes && $AT_HOSTILE == yes && $PROBE_RC == 0 && $(f_recv $OUT/both.txt) == 3 ]] && ok=0
row "control bind on every --device" \
  "--device $DST --device $HOSTILE: listening at $DST_IP $AT_DST, $HOSTILE_IP $AT_HOSTILE; ud probe to $DST_IP $(f_recv $OUT/both.txt)/3" $ok
[ $ok = 0 ] || { cat "$OUT/both.log" $OUT/both.txt.err; ss -ltn 2>/dev/null | grep 18672; }

kill $PID_strict $PID_open $PID_both 2>/dev/null
wait $PID_strict $PID_open $PID_both 2>/dev/null
echo "control port lab: $FAILED failed"
[ "$FAILED" = 0 ]
