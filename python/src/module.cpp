// SPDX-License-Identifier: BSD-3-Clause
// _mmaemu: the compiled part of the Python package `mmaemu` (python/mmaemu).
// Every number it returns is computed by libmmaemu's C API (mmaemu.h), in
// libmmaemu.so (Model.units through its introspection calls); probe(),
// compare() and distinguish(), which read the internal libraries as the
// `mmaemu` CLI does, are in _mmaemu_internal (internal.cpp), over the same
// libmmaemu.so. The module only checks and translates arguments.
//
// Extension point: a new part of the C API gets its own bind_*.cpp file,
// declared in common.h and registered below with one line (the block-scaled
// formats and GEMM, the accumulation schedules).
#include "common.h"

PYBIND11_MODULE(_mmaemu, m) {
  m.doc() = "libmmaemu: GPU matrix-unit numerics on numpy arrays (compiled part)";
  mmaemu_py::bind_models(m);
  mmaemu_py::bind_formats(m);
  mmaemu_py::bind_gemm(m);
  mmaemu_py::bind_scaled(m);
  mmaemu_py::bind_batch(m);
  mmaemu_py::bind_integer(m);
  mmaemu_py::bind_ozaki(m);
}
