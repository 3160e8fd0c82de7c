#!/usr/bin/env bash
# Installs the Debian packages the lab needs on the host. Idempotent: when
# every package is already installed it changes nothing and does not touch
# the network. Needs root (apt-get).
set -euo pipefail

packages=(qemu-system-x86 busybox-static cpio rdma-core ibverbs-providers
          ibverbs-utils perftest iproute2 binutils xz-utils)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup-host: all lab packages are installed" >&2
  exit 0
fi

echo "setup-host: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q || { echo "setup-host: FAILED at step 'apt-get update'" >&2; exit 1; }
apt-get install -y -q --no-install-recommends "${missing[@]}" ||
  { echo "setup-host: FAILED at step 'apt-get install ${missing[*]}'" >&2; exit 1; }
