#!/usr/bin/env bash
# Installs every build, test and lab dependency from Debian packages.
# Idempotent: packages already present are skipped; apt-get update runs only
# when something is missing. Needs root (or sudo) on Debian 12.
set -euo pipefail

PACKAGES=(
  # build
  build-essential cmake pkg-config
  libibverbs-dev librdmacm-dev libibumad-dev libibmad-dev
  libcpp-httplib-dev libsimdjson-dev libssl-dev nlohmann-json3-dev prometheus-cpp-dev libsqlite3-dev zlib1g-dev
  libgtest-dev libgmock-dev
  # lab: Soft-RoCE in a qemu VM (tests/lab)
  qemu-system-x86 busybox-static cpio binutils
  rdma-core ibverbs-providers ibverbs-utils perftest iproute2
  # collector tests: promtool and a real Prometheus server; the schema agreement check
  prometheus python3 python3-jsonschema
  # the PostgreSQL storage backend: libpq, and a real server its tests start (tests/support/postgres_server.h)
  libpq-dev postgresql
  # Debian packages, man pages and their test (issue 12): build, lint, a clean
  # Debian 12 root to install into; promtool's rule-coverage check; ccache
  dpkg-dev debhelper scdoc lintian mmdebstrap man-db systemd util-linux bash-completion
  python3-yaml ccache
  # sanitizer build of the unit tests and the libFuzzer harnesses (tests/fuzz)
  clang libclang-rt-14-dev
  # fabric tests: a simulated InfiniBand subnet (ibsim + the umad shim), its SM and the reference tools
  ibsim-utils libumad2sim0 opensm infiniband-diags
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all ${#PACKAGES[@]} packages present"
else
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup-deps: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# The dashboard's browser tests: Debian chromium and playwright-core from npm.
bash "$(dirname "$0")/../tests/web/setup.sh"
