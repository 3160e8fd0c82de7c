#!/bin/sh
# Usage: version_check.sh BINARY...
# Each BINARY --version exits 0 and prints "NAME VERSION (git REVISION)" on
# one line, NAME being the binary's file name.
set -eu
status=0
for bin in "$@"; do
  name=$(basename "$bin")
  out=$("$bin" --version) || { echo "FAIL: $bin --version exited $?"; status=1; continue; }
  echo "$out"
  if ! printf '%s\n' "$out" | grep -Eq "^$name [0-9]+\.[0-9]+\.[0-9]+ \(git [A-Za-z0-9._+-]+\)$"; then
    echo "FAIL: $bin --version printed '$out', expected '$name X.Y.Z (git REV)'"
    status=1
  fi
done
exit $status
