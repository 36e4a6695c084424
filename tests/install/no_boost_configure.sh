#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Boost and Eigen3 serve the tools only (docs/building.md): a configure that
# cannot find them, tests off, succeeds and builds the library, and the
# Python package without _mmaemu_internal (configure only: `.ci/run full`
# builds it).
# usage: no_boost_configure.sh SOURCE_DIR GENERATOR C_COMPILER CXX_COMPILER
set -euo pipefail
src=$1 generator=$2 cc=$3 cxx=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/mmaemu-noboost.XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! out=$(cmake -S "$src" -B "$work" -G "$generator" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON -DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=ON -DMMAEMU_BUILD_TESTS=OFF \
    -DMMAEMU_BUILD_TOOLS=OFF -DMMAEMU_BUILD_OCTAVE=OFF 2>&1); then
  echo "$out"
  echo "configure without Boost and Eigen3 failed"
  exit 1
fi
grep -q "Boost >= 1.74 or Eigen3 >= 3.3 not found: building libmmaemu" <<<"$out" || {
  echo "$out"
  echo "the configure found Boost or Eigen3 (or said nothing)"
  exit 1
}
# The Python package, where pybind11 is found: _mmaemu without _mmaemu_internal.
if grep -q '^mmaemu_python:' "$work/Makefile" 2>/dev/null && grep -q '^mmaemu_python_internal:' "$work/Makefile"; then
  echo "the Python package's _mmaemu_internal (Boost, Eigen3) is in the build"
  exit 1
fi
grep -q '^mmaemu:' "$work/Makefile" 2>/dev/null || [ -f "$work/build.ninja" ] || {
  echo "no target mmaemu in the generated build"
  exit 1
}
echo "configure without Boost and Eigen3 passed"
