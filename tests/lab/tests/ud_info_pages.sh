#!/usr/bin/bash
# ud_info in pages on real devices, in one lab boot (ctest lab_ud_info_pages).
# The responder's device gets 62 global IPv6 addresses and then one more IPv4
# address (192.168.77.102/32), each a RoCE v2 GID, so its one port serves at
# least 64 endpoints: more than one 4096-byte control line holds.
#  1. Read raw on one connection, every ud_info page is one line within 4096
#     bytes, each `next` continues the previous page, and the pages add up to
#     `total` (>= 64).
#  2. The first page (all an older prober reads) holds the IPv4-mapped GID of
#     the address added last: the agent lists those first.
#  3. rdmactl probe, UD and RC, without and with a fleet secret (sealed
#     pages): every probe answered.
# Prints one line per check (name, PASS/FAIL, what was seen); exits 1 when any failed.
. /opt/rdmascope/lab/lab.sh

lab_require_bin rdmascope-agent rdmactl || exit 1
set -- $LAB_DEVS
[ $# -ge 2 ] || lab_fail "needs 2 rxe devices, have: $LAB_DEVS"
SRC=$1 DST=$2
set -- $LAB_NETDEVS
DST_NETDEV=$2
DST_IP=$(lab_ip "$DST") || exit 1
EXTRA_IP=192.168.77.102
OUT=$(mktemp -d /tmp/ud-info-pages.XXXXXX) || exit 1
printf 'lab-fleet-secret\n' > "$OUT/secret"
FAILED=0
check() {  # check NAME WHAT OK(0/1)
  local verdict=PASS
  [ "$3" = 0 ] || { verdict=FAIL; FAILED=$((FAILED + 1)); }
  printf '%-28s %-4s %s\n' "$1" "$verdict" "$2"
}

roce_v2_gids() {  # the number of RoCE v2 GIDs on $DST port 1
  grep -l 'RoCE v2' /sys/class/infiniband/$DST/ports/1/gid_attrs/types/* 2>/dev/null | wc -l
}
echo "== $DST ($DST_NETDEV): 62 IPv6 addresses, then $EXTRA_IP"
before=$(roce_v2_gids)
for i in $(seq 1 62); do
  ip -6 addr add "2001:db8:77:2::$(printf '%x' $((0x1000 + i)))/64" dev "$DST_NETDEV" nodad ||
    lab_fail "ip -6 addr add #$i on $DST_NETDEV"
done
ip addr add "$EXTRA_IP/32" dev "$DST_NETDEV" || lab_fail "ip addr add $EXTRA_IP/32 dev $DST_NETDEV"
want=$((before + 63))
enough() { [ "$(roce_v2_gids)" -ge "$want" ]; }
lab_wait 60 "$want RoCE v2 GIDs on $DST" enough || lab_fail "$DST has $(roce_v2_gids) RoCE v2 GIDs, wanted $want"
echo "    $DST port 1: $before RoCE v2 GIDs before, $(roce_v2_gids) after"

start_agent() {  # start_agent PORT ARGS...
  local port=$1; shift
  timeout 120 rdmascope-agent --responder-only --device "$DST" --control-port "$port" "$@" \
    > "$OUT/agent-$port.log" 2>&1 &
  lab_wait_listen "$port" 30 || { tail -n 5 "$OUT/agent-$port.log"; lab_fail "agent on $port did not listen"; }
}
start_agent 18680
start_agent 18681 --control-secret-file "$OUT/secret"

# pages IP PORT: every ud_info page on one connection; prints
# "PAGES ENDPOINTS TOTAL LONGEST CONTINUES" (CONTINUES: each next = from + its endpoints).
pages() {
  exec 3<>"/dev/tcp/$1/$2" || return 1
  local from=0 pages=0 n=0 total='' longest=0 continues=yes line next k
  while [ "$pages" -lt 100 ]; do
    if [ "$from" = 0 ]; then printf '{"op":"ud_info"}\n' >&3; else printf '{"op":"ud_info","from":%d}\n' "$from" >&3; fi
    IFS= read -r -t 10 line <&3 || break
    [ "$pages" = 0 ] && printf '%s\n' "$line" > "$OUT/first-page.txt"
    pages=$((pages + 1))
    [ "${#line}" -gt "$longest" ] && longest=${#line}
    k=$(printf '%s' "$line" | grep -o '"qpn":' | wc -l)
    n=$((n + k))
    total=$(printf '%s' "$line" | grep -o '"total":[0-9]*' | cut -d: -f2)
    next=$(printf '%s' "$line" | grep -o '"next":[0-9]*' | cut -d: -f2)
    [ -n "$next" ] || break
    [ "$next" = $((from + k)) ] || continues=no
    from=$next
  done
  exec 3>&-
  echo "$pages $n ${total:-none} $longest $continues"
}

echo "== 1. every page, raw"
pages "$DST_IP" 18680 > "$OUT/pages.txt"  # (no /dev/fd in the VM: no process substitution)
read -r P N T L C < "$OUT/pages.txt"
ok=1
[ "${P:-0}" -ge 2 ] && [ "$N" = "$T" ] && [ "$T" -ge 64 ] && [ "$L" -le 4096 ] && [ "$C" = yes ] && ok=0
check pages-in-full "$P pages, $N endpoints of total $T, longest line $L bytes, next continues: $C" $ok

echo "== 2. the first page"
mapped="\"gid\":\"::ffff:$EXTRA_IP\""
grep -q "$mapped" "$OUT/first-page.txt"
ok=$?
check first-page-mapped "the first page ($(grep -o '"qpn":' "$OUT/first-page.txt" | wc -l) endpoints) lists ::ffff:$EXTRA_IP" $ok

echo "== 3. rdmactl probe"
probe() {  # probe NAME ARGS...
  local name=$1; shift
  timeout 60 rdmactl probe --device "$SRC" --count 10 --interval-ms 0 "$@" > "$OUT/$name.txt" 2>&1
  local rc=$?
  check "$name" "exit $rc: $(grep -m1 -i 'sent\|error\|refused' "$OUT/$name.txt" | cut -c1-110)" $rc
}
probe probe-ud --transport ud "$DST_IP:18680"
probe probe-rc --transport rc "$DST_IP:18680"
probe probe-ud-sealed --transport ud "$DST_IP:18681" --control-secret-file "$OUT/secret"
probe probe-rc-sealed --transport rc "$DST_IP:18681" --control-secret-file "$OUT/secret"

if [ "$FAILED" != 0 ]; then
  for f in "$OUT"/*.txt "$OUT"/*.log; do echo "--- $f"; head -c 1500 "$f"; echo; done
  echo "FAIL: $FAILED check(s)"
  exit 1
fi
echo "PASS: all checks"
