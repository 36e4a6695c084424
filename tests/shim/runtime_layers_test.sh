#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The shim's runtime files call each other one way only (blas_shim/runtime.h,
# docs/building.md): runtime, runtime_select < runtime_stats < runtime_config
# < runtime_switch. Reads each object file's defined and undefined
# mmaemu::shim symbols with nm and fails if a file calls one of its own rank
# or above (skipped where nm is missing).
# usage: runtime_layers_test.sh OBJECT[:OBJECT...]
set -euo pipefail
if ! command -v nm >/dev/null; then
  echo "runtime layers test: skipped: nm not found (binutils)"
  exit 77
fi
rank() {
  case "$(basename "$1")" in
    runtime.cpp.o | runtime_select.cpp.o) echo 0 ;;
    runtime_stats.cpp.o) echo 1 ;;
    runtime_config.cpp.o) echo 2 ;;
    runtime_switch.cpp.o) echo 3 ;;
    *) echo -1 ;;
  esac
}
IFS=: read -r -a objects <<<"$1"
declare -A defined_in
runtime=()
for o in "${objects[@]}"; do
  [ "$(rank "$o")" -ge 0 ] || continue
  runtime+=("$o")
  while read -r sym; do defined_in[$sym]=$o; done < <(nm --defined-only "$o" | awk '$2 ~ /[TW]/ {print $3}' |
    grep '^_ZN6mmaemu4shim' || true)
done
[ "${#runtime[@]}" -eq 5 ] || { echo "expected the 5 runtime object files, found ${#runtime[@]}"; exit 1; }
bad=0
for o in "${runtime[@]}"; do
  while read -r sym; do
    def=${defined_in[$sym]:-}
    [ -n "$def" ] || continue
    if [ "$(rank "$def")" -ge "$(rank "$o")" ]; then
      echo "$(basename "$o") calls $(c++filt "$sym") of $(basename "$def") (same rank or above)"
      bad=1
    fi
  done < <(nm -u "$o" | awk '{print $2}' | grep '^_ZN6mmaemu4shim' || true)
done
[ "$bad" -eq 0 ] || exit 1
echo "runtime layers test passed: ${#runtime[@]} files, calls one way"
