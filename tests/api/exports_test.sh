#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# libmmaemu.so exports C names only: the C API (mmaemu_*) and, with the shim,
# the BLAS/CBLAS names of blas_shim/exports.map; the engine's C++ symbols are
# the internal libmmaemu_engine.so's (docs/building.md, "Internal C++
# target"). Fails on any exported C++ (_Z) symbol of libmmaemu.so, and on a
# function the header declares (MMAEMU_API) that the library does not export.
# usage: exports_test.sh LIBMMAEMU HEADER
set -euo pipefail
lib=$1 header=$2
if ! command -v nm >/dev/null; then
  echo "exports test: skipped: nm not found (binutils)"
  exit 77
fi
exported=$(nm -D --defined-only "$lib" | awk 'NF >= 3 {print $3}')
cxx=$(grep '^_Z' <<<"$exported" || true)
if [ -n "$cxx" ]; then
  echo "$lib exports $(wc -l <<<"$cxx") C++ symbols, e.g.:"
  head -5 <<<"$cxx" | c++filt
  exit 1
fi
api=$(grep -c '^mmaemu_' <<<"$exported" || true)
[ "$api" -gt 0 ] || { echo "$lib exports no mmaemu_* symbol"; exit 1; }
declared=$(tr '\n' ' ' <"$header" | grep -o 'MMAEMU_API [^;(]*(' | grep -o 'mmaemu_[a-z0-9_]*($' | tr -d '(' | sort -u)
[ "$(wc -l <<<"$declared")" -gt 40 ] || { echo "read only $(wc -l <<<"$declared") declarations from $header"; exit 1; }
missing=$(comm -23 <(echo "$declared") <(sort -u <<<"$exported"))
if [ -n "$missing" ]; then
  echo "$header declares functions $lib does not export:" $missing
  exit 1
fi
echo "exports test passed: $(wc -l <<<"$exported") C names ($api mmaemu_*, the header's $(wc -l <<<"$declared") among them), no C++ symbols"
