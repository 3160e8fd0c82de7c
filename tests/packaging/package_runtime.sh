#!/usr/bin/env bash
# Usage: package_runtime.sh ROOT SOURCE_DIR ARTIFACTS_DIR
# Phase 4 of package_debian.sh, run by it inside fresh network, mount and pid
# namespaces (unshare --net --mount --pid --fork --mount-proc), so that the
# collector's port 9470 and every process started here stay private and end
# with it. ROOT is the clean Debian root with the packages installed.
#  - systemd-analyze verify and security --offline=true on both installed
#    units (exposure <= 2.0);
#  - the README's "Deploy on a cluster" steps (the quickstart blocks), line
#    by line as written, with COLLECTOR=127.0.0.1 and systemctl being
#    chroot_systemctl.sh (installed in ROOT by package_debian.sh);
#  - the installed collector's built-in dashboard in chromium with the node
#    (tests/web/package_dashboard.test.mjs);
#  - a package upgrade over that installation: the database is kept and the
#    collector migrates it (tests/packaging/rollback_migration.py).
# Exit 0 when all of it passed.
set -euo pipefail
root=$1 src=$2 artifacts=$3
here=$(cd "$(dirname "$0")" && pwd)
collector_steps=$(sed -n '/^<!-- quickstart:collector -->$/,/^<!-- \/quickstart -->$/{/^    /s/^    //p}' "$src/README.md")
agent_steps=$(sed -n '/^<!-- quickstart:agent -->$/,/^<!-- \/quickstart -->$/{/^    /s/^    //p}' "$src/README.md")
[ -n "$collector_steps" ] && [ -n "$agent_steps" ] || { echo "FAIL: no quickstart blocks in README.md"; exit 1; }
ip link set lo up
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
mkdir -p "$root/run"
fail=0
for u in rdmascope-agent rdmascope-collector; do
  echo "-- systemd-analyze verify $u.service"
  chroot "$root" systemd-analyze verify "/lib/systemd/system/$u.service" || { echo "FAIL: verify $u"; fail=1; }
  score=$(chroot "$root" systemd-analyze security --offline=true "/lib/systemd/system/$u.service" 2>&1 |
          sed -n "s/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p")
  echo "systemd-analyze security --offline=true $u.service: exposure $score"
  awk -v s="$score" 'BEGIN { exit !(s != "" && s + 0 <= 2.0) }' || { echo "FAIL: $u exposure ${score:-?} > 2.0"; fail=1; }
done
run_steps() {  # one line at a time, as a person would type them; variables carry over
  while IFS= read -r line; do
    echo "# $line"
    printf '%s\n' "$line" > "$root/root/.step"
    chroot "$root" bash -c 'cd /root; set -a; . /root/.env; set +a; . /root/.step || exit $?
      declare -p token COLLECTOR 2>/dev/null | sed "s/^declare -[-x]* //" > /root/.env' || return 1
  done <<< "$1"
}
echo "COLLECTOR=127.0.0.1" > "$root/root/.env"
wait_http() {  # wait_http URL SECONDS
  local deadline=$(( $(date +%s) + $2 ))
  until python3 -c "import sys,urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" "$1" 2>/dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}
if ! run_steps "$collector_steps"; then echo "FAIL: the README collector steps"; exit 1; fi
wait_http http://127.0.0.1:9470/healthz 30 || { cat "$root/var/log/rdmascope-collector.service.log"; echo "FAIL: collector not answering"; exit 1; }
# The last agent step (rdmactl status) needs the first report: the steps up
# to it run once, then it is retried until the node is in (30 s deadline).
last=$(tail -n 1 <<< "$agent_steps")
if ! run_steps "$(sed "\$d" <<< "$agent_steps")"; then echo "FAIL: the README agent steps"; exit 1; fi
node=$(chroot "$root" hostname)
deadline=$(( $(date +%s) + 30 ))
until out=$(run_steps "$last" 2>&1) && grep -q "$node" <<< "$out"; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "$out"; cat "$root/var/log/rdmascope-agent.service.log"
    echo "FAIL: rdmactl status did not show $node within 30 s"; exit 1
  fi
  sleep 0.5
done
echo "$out"
cpid=$(cat "$root/run/rdmascope-collector.service.pid")
cuid=$(awk '/^Uid:/ { print $2 }' "/proc/$cpid/status")
echo "-- the collector runs as uid $cuid ($(chroot "$root" getent passwd "$cuid" | cut -d: -f1)): $(tr '\0' ' ' < "/proc/$cpid/cmdline")"
echo "-- database:"; chroot "$root" ls -l /var/lib/rdmascope/collector/
cd "$src/tests/web"
RDMASCOPE_DASHBOARD_URL=http://127.0.0.1:9470 RDMASCOPE_EXPECT_NODE=$node RDMASCOPE_WEB_ARTIFACTS=$artifacts \
  node --test --test-concurrency=1 package_dashboard.test.mjs || fail=1
chroot "$root" systemctl stop rdmascope-agent
chroot "$root" systemctl stop rdmascope-collector

# A package upgrade keeps the database and migrates it. The database is put
# back to the schema before the newest migration (its tables dropped, its
# version row removed), a copy of the collector package with a higher
# version is installed over the running one with dpkg -i, and the collector
# started again must find the same file, apply the migration and still know
# the node (rdmactl status, the README's last step).
echo "-- package upgrade: the database is kept and migrated"
db=$root/var/lib/rdmascope/collector/rdmascope.db
newest=$(ls "$src"/schemas/migrations/[0-9]*.sql | sort | tail -n 1)
python3 "$here/rollback_migration.py" "$db" "$newest" || { echo "FAIL: rolling the database back"; exit 1; }
inode=$(stat -c %i "$db")
old_deb=$(ls "$root"/root/rdmascope-collector_*.deb)
old_version=$(dpkg-deb -f "$old_deb" Version)
unpacked=$(mktemp -d)
dpkg-deb -R "$old_deb" "$unpacked/pkg"
sed -i "s/^Version: .*/Version: $old_version+upgrade1/" "$unpacked/pkg/DEBIAN/control"
dpkg-deb -b "$unpacked/pkg" "$root/root/upgrade.deb" > /dev/null
rm -rf "$unpacked"
chroot "$root" dpkg -i /root/upgrade.deb || { echo "FAIL: dpkg -i of the upgrade"; exit 1; }
echo "installed: $(chroot "$root" dpkg-query -W -f='${Package} ${Version}' rdmascope-collector) over $old_version"
[ "$(stat -c %i "$db" 2>/dev/null)" = "$inode" ] || { echo "FAIL: the database file was replaced or removed by the upgrade"; exit 1; }
chroot "$root" systemctl start rdmascope-collector
wait_http http://127.0.0.1:9470/healthz 30 || { tail -n 20 "$root/var/log/rdmascope-collector.service.log"; echo "FAIL: upgraded collector not answering"; exit 1; }
python3 "$here/rollback_migration.py" --check "$db" "$newest" || { echo "FAIL: the upgraded collector did not migrate the database"; exit 1; }
if out=$(run_steps "$last" 2>&1) && grep -q "$node" <<< "$out"; then
  echo "after the upgrade, rdmactl status still lists $node"
else
  echo "$out"; echo "FAIL: the node is gone from the database after the upgrade"; fail=1
fi
chroot "$root" systemctl stop rdmascope-collector
exit $fail
