#!/usr/bin/env bash
# Usage: package_debian.sh SOURCE_DIR ARTIFACTS_DIR
# The Debian packages, end to end, as a new user gets them:
#  1. dpkg-buildpackage -us -uc -b in a copy of the tree (tracked and new
#     files; ccache when installed) and lintian on the result: no errors;
#  2. a clean Debian 12 minbase root (mmdebstrap, from this machine's apt
#     sources) with both packages and their dependencies installed;
#  3. in it: rdmactl --version, man -w for every page, the units enabled, the
#     conffiles registered, the system users, systemd-analyze verify and the
#     security exposure of both units (<= 2.0);
#  4. in private network, mount and pid namespaces (so port 9470 and every
#     process stay inside): the README's "Deploy on a cluster" steps, run
#     line by line as written (COLLECTOR=127.0.0.1; systemctl is
#     chroot_systemctl.sh, starting the units' ExecStart as their users),
#     then the dashboard of that collector, started from /usr/sbin without
#     --web-dir, checked in chromium with the node in it.
# Prints the time of each phase. Exit 0 pass, 1 fail, 77 skipped (a tool is
# missing: tests/tool_missing.sh, which fails under CI=true).
set -euo pipefail
src=$(cd "${1:?source dir}" && pwd)
artifacts=${2:?artifacts dir}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$artifacts"
artifacts=$(cd "$artifacts" && pwd)

for t in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian mmdebstrap:mmdebstrap scdoc:scdoc \
         node:nodejs chromium:chromium unshare:util-linux ip:iproute2; do
  command -v "${t%%:*}" >/dev/null || exec "$here/../tool_missing.sh" "${t%%:*}" "${t#*:}" "the Debian packages"
done
if [ "$(id -u)" -ne 0 ]; then
  echo "SKIPPED: needs root (mmdebstrap --mode=root, chroot, namespaces)"
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rdmascope-package.XXXXXX")
cleanup() {  # nothing mounted below $work may be followed by rm
  { findmnt -rn -o TARGET | grep "^$work/" || true; } | sort -r | while read -r m; do umount -l "$m" || true; done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
start=$(date +%s)
phase() { echo "== package_debian: $1 ($(( $(date +%s) - start )) s)"; }

phase "copying the tree"
mkdir "$work/src"
(cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
  tar -xf - -C "$work/src"
RDMASCOPE_GIT_REVISION=$(git -C "$src" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
export RDMASCOPE_GIT_REVISION

phase "dpkg-buildpackage"
# debhelper sets HOME to a temporary directory: name the caller's cache.
# debian/rules makes paths relative to the copy being built (CCACHE_BASEDIR);
# a base directory inherited from the caller (scripts/test-all.sh sets its
# own) would leave them absolute and miss the cache.
if command -v ccache >/dev/null; then
  CCACHE_DIR=$(ccache -k cache_dir)
  export CCACHE_DIR
  unset CCACHE_BASEDIR
fi
stats_before=$(ccache --print-stats 2>/dev/null || true)
TIMEFORMAT="package build: %0R s wall, %0U s user + %0S s sys CPU (children)"
if ! time (cd "$work/src" && DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -us -uc -b > "$artifacts/package-build.log" 2>&1); then
  tail -n 60 "$artifacts/package-build.log"
  echo "FAIL: dpkg-buildpackage (log: $artifacts/package-build.log)"
  exit 1
fi
if command -v ccache >/dev/null; then  # this build's share of the (shared) cache counters
  stats_after=$(ccache --print-stats 2>/dev/null || true)
  awk 'FNR == NR { b[$1] = $2; next } { a[$1] = $2 }
       END { printf "ccache: %d hits, %d misses\n",
             a["direct_cache_hit"] + a["preprocessed_cache_hit"] - b["direct_cache_hit"] - b["preprocessed_cache_hit"],
             a["cache_miss"] - b["cache_miss"] }' <(printf '%s\n' "$stats_before") <(printf '%s\n' "$stats_after")
fi
debs=("$work"/rdmascope-agent_*.deb "$work"/rdmascope-collector_*.deb)
ls -l "${debs[@]}"

phase "lintian"
lintian -I "$work"/rdmascope_*.changes > "$artifacts/lintian.txt" 2>&1 || true
cat "$artifacts/lintian.txt"
e=$(grep -c '^E:' "$artifacts/lintian.txt" || true)
w=$(grep -c '^W:' "$artifacts/lintian.txt" || true)
i=$(grep -c '^I:' "$artifacts/lintian.txt" || true)
echo "lintian: $e errors, $w warnings, $i info"
[ "$e" -eq 0 ] || { echo "FAIL: lintian reports errors"; exit 1; }

phase "mmdebstrap (Debian 12 minbase + the packages)"
mirrors=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -s "$f" ] && mirrors+=("$f")
done
root=$work/root
if ! mmdebstrap --mode=root --variant=minbase --include=man-db --include="${debs[0]}" --include="${debs[1]}" \
      --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
      bookworm "$root" "${mirrors[@]}" > "$artifacts/mmdebstrap.log" 2>&1; then
  tail -n 40 "$artifacts/mmdebstrap.log"
  echo "FAIL: mmdebstrap"
  exit 1
fi
cp "${debs[@]}" "$root/root/"

phase "checks in the clean root"
fail=0
check() {  # check WHAT COMMAND...: runs COMMAND, prints it and its output
  local what=$1; shift
  echo "-- $what: $*"
  if ! "$@"; then echo "FAIL: $what"; fail=1; fi
}
in_root() { chroot "$root" "$@"; }
check "rdmactl --version" in_root rdmactl --version
check "rdmascope-agent --version" in_root rdmascope-agent --version
check "rdmascope-collector --version" in_root rdmascope-collector --version
for page in rdmactl rdmascope-agent rdmascope-collector "5 rdmascope.conf"; do
  # shellcheck disable=SC2086
  check "man -w $page" in_root man -w $page
done
for u in rdmascope-agent rdmascope-collector; do
  check "$u.service installed" test -f "$root/lib/systemd/system/$u.service"
  check "$u.service enabled" test -L "$root/etc/systemd/system/multi-user.target.wants/$u.service"
  check "user $u" in_root id "$u"
done
conffiles=$(in_root dpkg-query -W -f='${Conffiles}\n' rdmascope-agent rdmascope-collector)
echo "$conffiles"
for c in /etc/rdmascope/agent.conf /etc/rdmascope/collector.conf; do
  check "conffile $c" grep -q "^ $c " <<< "$conffiles"
done
check "bash completion for rdmactl" in_root bash -c 'source /usr/share/bash-completion/completions/rdmactl && complete -p rdmactl'
check "alert rules and dashboard" test -s "$root/usr/share/rdmascope/prometheus/rdmascope.rules.yml" -a \
  -s "$root/usr/share/rdmascope/grafana/rdmascope.json"

install -m 0755 "$here/chroot_systemctl.sh" "$root/usr/local/sbin/systemctl"

phase "in private namespaces: systemd-analyze, the README's steps, the dashboard in chromium"
unshare --net --mount --pid --fork --mount-proc -- \
  bash "$here/package_runtime.sh" "$root" "$src" "$artifacts" || fail=1

phase "done"
if [ "$fail" -ne 0 ]; then echo "package_debian: FAILED"; exit 1; fi
echo "package_debian: passed in $(( $(date +%s) - start )) s"
