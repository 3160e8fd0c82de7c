#!/usr/bin/env bash
# Installs what the dashboard's browser tests and benchmark need:
#  - Debian's chromium (/usr/bin/chromium), with apt-get, skipped when installed;
#  - playwright-core from the npm registry into tests/web/node_modules, exactly
#    as package-lock.json pins it (npm ci; skipped when already in place).
# playwright-core only drives a browser: it downloads none. Idempotent; needs
# root (or sudo) for apt-get and the machine's node/npm (node >= 18).
set -euo pipefail
cd "$(dirname "$0")"

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ! dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q "install ok installed"; then
  echo "web setup: installing chromium"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium
fi

command -v node >/dev/null || { echo "web setup: node is not installed (need node >= 18 and npm)" >&2; exit 1; }
installed=$(node -p "try { require('./node_modules/playwright-core/package.json').version } catch { '' }")
wanted=$(node -p "require('./package-lock.json').packages['node_modules/playwright-core'].version")
if [ "$installed" != "$wanted" ]; then
  echo "web setup: npm ci (playwright-core $wanted)"
  npm ci --no-audit --no-fund --loglevel=error
fi
echo "web setup: chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}'), playwright-core $wanted"
