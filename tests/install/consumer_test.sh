#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the build tree into a fresh prefix, then builds and runs a C and
# a C++ consumer against it, once with find_package(mmaemu CONFIG) and once
# with pkg-config; checks the installed mmaemu-run preloads the installed
# library and the installed tools and data are there.
# usage: consumer_test.sh BUILD_DIR SOURCE_DIR C_COMPILER CXX_COMPILER "EXTRA_FLAGS" SHIM(ON|OFF) [ASAN_RUNTIME]
# (ASAN_RUNTIME: sanitizer builds; preloaded ahead of the instrumented
# libmmaemu that mmaemu-run preloads.)
set -euo pipefail
build=$1 src=$2 cc=$3 cxx=$4 flags=$5 shim=$6 asan=${7:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/mmaemu-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'echo "consumer_test.sh: failed at line $LINENO"' ERR
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
echo "installed into $prefix"

# find_package
cmake -S "$src/tests/install/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/consumer_c"
"$work/cmake/consumer_cxx"

# pkg-config
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
header_version=$(sed -n 's/^#define MMAEMU_VERSION_STRING "\(.*\)"/\1/p' "$prefix/include/mmaemu/version.h")
[ "$(pkg-config --modversion mmaemu)" = "$header_version" ]
libdir=$(pkg-config --variable=libdir mmaemu)
# shellcheck disable=SC2046,SC2086
"$cc" $flags "$src/tests/install/consumer/consumer.c" $(pkg-config --cflags --libs mmaemu) -Wl,-rpath,"$libdir" \
  -o "$work/pc_c"
# shellcheck disable=SC2046,SC2086
"$cxx" $flags "$src/tests/install/consumer/consumer.cpp" $(pkg-config --cflags --libs mmaemu) -Wl,-rpath,"$libdir" \
  -o "$work/pc_cxx"
"$work/pc_c" | sed 's/^/pkg-config: /'
"$work/pc_cxx" | sed 's/^/pkg-config: /'

# The internal engine beside libmmaemu (its RUNPATH $ORIGIN), with no
# development link: not for consumers to link (docs/building.md).
[ -f "$prefix/lib/libmmaemu_engine.so.0" ] && [ ! -e "$prefix/lib/libmmaemu_engine.so" ]
readelf -d "$prefix/lib/libmmaemu.so" | grep -q 'Library runpath: \[\$ORIGIN\]'

# The installed tools and data.
"$prefix/bin/mmaemu" models >/dev/null
[ -d "$prefix/share/mmaemu/data/hwdata" ] && [ -d "$prefix/share/mmaemu/data/refdata" ]
if [ "$shim" = ON ]; then
  # mmaemu-run from its installed place (another directory, no MMAEMU_LIBRARY).
  # shellcheck disable=SC2086
  "$cc" $flags "$src/tests/install/preload_probe.c" -ldl -o "$work/probe"
  out=$(cd / && env -u MMAEMU_LIBRARY LD_PRELOAD="$asan" "$prefix/bin/mmaemu-run" --model H100 -- "$work/probe")
  echo "mmaemu-run: $out"
  case "$out" in *"from $prefix/lib/libmmaemu.so"*) ;; *) echo "mmaemu-run did not preload the installed library"; exit 1 ;; esac
else
  if nm -D --defined-only "$prefix/lib/libmmaemu.so" | grep -qw sgemm_; then
    echo "MMAEMU_BUILD_BLAS_SHIM=OFF, but libmmaemu exports sgemm_"; exit 1
  fi
fi
# The Octave interface, where it was built: the installed gateway finds the
# installed library from its own place.
if [ -f "$prefix/share/mmaemu/matlab/mmaemu_mex.mex" ] && command -v octave-cli >/dev/null; then
  out=$(cd / && octave-cli --norc --no-history -q --eval \
    "addpath('$prefix/share/mmaemu/matlab'); printf('%g\\n', H100TC(1, [1 2], [3; 4], 0, 0, 'fp16'))" 2>&1 | grep -v "^error: ignoring")
  echo "octave: H100TC from the installed files: $out"
  [ "$out" = 11 ]
fi
echo "install consumer test passed"
