#!/bin/sh
# Usage: tool_missing.sh TOOL PACKAGE WHAT
# Registered by CMake in place of tests whose tool was not found at configure
# time, and exec'd by test scripts that find it missing on PATH. Exits 77 (CTest: skipped, with this message) on a developer's machine;
# exits 1 (failed) when every tool is required — CI=true or
# RDMASCOPE_REQUIRE_ALL=1 — because scripts/setup-deps.sh installs them all
# there, so a missing tool means a broken install step.
tool=$1 package=$2 what=$3
case "${CI:-}:${RDMASCOPE_REQUIRE_ALL:-}" in
  true:*|1:*|*:1)
    echo "FAILED: $tool was not found (on PATH, or when the build was configured; Debian package $package);" \
         "CI=true / RDMASCOPE_REQUIRE_ALL=1 requires it. Not checked: $what" >&2
    exit 1 ;;
esac
echo "SKIPPED: $tool was not found (on PATH, or when the build was configured; Debian package $package). Not checked: $what"
exit 77
