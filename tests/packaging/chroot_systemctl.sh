#!/bin/bash
# Usage (inside the package test's chroot, as /usr/local/sbin/systemctl):
#   systemctl start UNIT | stop UNIT | is-active UNIT
# A stand-in for the service manager where none runs (a chroot): it starts
# the installed unit's ExecStart the way the unit says, so the README's steps
# run as written and the unit's own lines are exercised: ConditionPathExists=
# (unmet: not started, like systemd), User=/Group= (setpriv, no capabilities),
# StateDirectory=/StateDirectoryMode=, LoadCredential= (copied to
# $CREDENTIALS_DIRECTORY), UMask=. Output goes to /var/log/UNIT.log, the pid
# to /run/UNIT.pid. Sandboxing, watchdog and readiness are not emulated.
set -euo pipefail
cmd=${1:?command} unit=${2:?unit}
unit=${unit%.service}.service
file=/lib/systemd/system/$unit
[ -f "$file" ] || { echo "Unit $unit not found." >&2; exit 5; }
pidfile=/run/$unit.pid
get() { sed -n "s/^$1=//p" "$file"; }

case $cmd in
  stop)
    [ -f "$pidfile" ] || exit 0
    pid=$(cat "$pidfile")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$pidfile"
    exit 0 ;;
  is-active)
    [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && { echo active; exit 0; }
    echo inactive; exit 3 ;;
  start) ;;
  *) echo "chroot systemctl stand-in: $cmd is not supported" >&2; exit 1 ;;
esac

while read -r path; do
  [ -e "$path" ] || { echo "$unit: condition ConditionPathExists=$path unmet, not started"; exit 0; }
done < <(get ConditionPathExists)
user=$(get User) group=$(get Group)
mode=$(get StateDirectoryMode); mode=${mode:-0755}
for d in $(get StateDirectory); do
  mkdir -p "/var/lib/$d"
  chown "$user:$group" "/var/lib/$d"
  chmod "$mode" "/var/lib/$d"
done
creds=/run/credentials/$unit
rm -rf "$creds"
mkdir -p "$creds"
while IFS=: read -r name src; do
  install -m 0400 -o "$user" -g "$group" "$src" "$creds/$name"
done < <(get LoadCredential)
exec_start=$(get ExecStart)
exec_start=${exec_start//'${CREDENTIALS_DIRECTORY}'/$creds}
um=$(get UMask)
umask "${um:-0022}"
read -r -a argv <<< "$exec_start"
CREDENTIALS_DIRECTORY=$creds setsid setpriv --reuid="$user" --regid="$group" --init-groups --inh-caps=-all \
  --bounding-set=-all -- "${argv[@]}" >> "/var/log/$unit.log" 2>&1 < /dev/null &
echo $! > "$pidfile"
echo "started $unit (pid $!) as $user: ${argv[*]}"
