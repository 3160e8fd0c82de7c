#!/usr/bin/env bash
# Usage: modules.sh MODULES_DIR NAME...
# Prints, one per line, the .ko paths (relative to MODULES_DIR) to insmod in
# that order so that every NAME is loaded with its dependencies first.
#
# Contract:
#   - Dependencies come from each .ko's .modinfo "depends=" (read with
#     objcopy; no kmod is needed on the host). "-" and "_" in names are equal.
#   - A module built into the kernel (modules.builtin) is skipped silently.
#   - A name that is neither a .ko nor built in is an error (exit 1).
#   - Order: depth-first, dependencies before dependants, NAMEs in the given
#     order otherwise; each module appears once.
set -euo pipefail

mods=$1; shift
[[ -d $mods/kernel ]] || { echo "modules.sh: $mods/kernel is not a modules tree" >&2; exit 1; }

declare -A path builtin seen
while IFS= read -r f; do
  n=${f##*/}; n=${n%.ko}; path[${n//-/_}]=${f#"$mods"/}
done < <(find "$mods/kernel" -name '*.ko')
if [[ -f $mods/modules.builtin ]]; then
  while IFS= read -r f; do
    n=${f##*/}; n=${n%.ko}; builtin[${n//-/_}]=1
  done < "$mods/modules.builtin"
fi

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

depends_of() {
  objcopy -O binary --only-section=.modinfo "$mods/${path[$1]}" "$tmp" ||
    { echo "modules.sh: cannot read .modinfo of ${path[$1]}" >&2; exit 1; }
  tr '\0' '\n' < "$tmp" | sed -n 's/^depends=//p' | tr ',' '\n' | sed '/^$/d; s/-/_/g'
}

visit() {
  local n=${1//-/_} d deps
  [[ -n ${seen[$n]:-} ]] && return 0
  seen[$n]=1
  if [[ -z ${path[$n]:-} ]]; then
    [[ -n ${builtin[$n]:-} ]] && return 0
    echo "modules.sh: module $n is neither a .ko in $mods nor built in" >&2
    exit 1
  fi
  deps=$(depends_of "$n")
  for d in $deps; do visit "$d"; done
  echo "${path[$n]}"
}

for n in "$@"; do visit "$n"; done
