// SPDX-License-Identifier: BSD-3-Clause
// Counting forwarders of the Fortran level-1 BLAS routines that LAPACK's
// unblocked panels call (pivot search, swaps, scaling, Householder vectors,
// plane rotations): they go to the system BLAS untouched, and MMA_VERBOSE=1
// lists them with the level-2/3 forwarders, so that the report of a LAPACK
// run names every BLAS call that did not run on the model (docs/lapack.md).
// A GPU BLAS runs these on its FMA cores too. Only the Fortran names: the
// CBLAS level-1 names stay uninterposed.
#include <algorithm>

#include "runtime.h"

namespace {
double len(const int* n) { return std::max(0, *n); }
}  // namespace

// Forwards the value-returning (R) or void routine `name`, counted as
// `routine` with `flops`, as MMAEMU_FORWARD in forwarders.cpp does.
#define MMAEMU_FORWARD_L1(R, name, routine, flops, PARAMS, ARGS)                                    \
  MMAEMU_EXPORT R name PARAMS {                                                                     \
    using Fn = R(*) PARAMS;                                                                         \
    static const auto real = reinterpret_cast<Fn>(mmaemu::shim::real_symbol(#name));              \
    if (mmaemu::shim::config().model && !mmaemu::shim::nested())                                         \
      mmaemu::shim::count_forwarded(routine, flops);                                                \
    mmaemu::shim::NestGuard guard;                                                                  \
    return real ARGS;                                                                               \
  }

#define MMAEMU_LEVEL1(T, s, i)                                                                                  \
  MMAEMU_FORWARD_L1(void, s##swap_, #s "swap", 0.0,                                                            \
                    (const int* n, T* x, const int* incx, T* y, const int* incy), (n, x, incx, y, incy))      \
  MMAEMU_FORWARD_L1(void, s##scal_, #s "scal", len(n), (const int* n, const T* a, T* x, const int* incx),    \
                    (n, a, x, incx))                                                                            \
  MMAEMU_FORWARD_L1(void, s##copy_, #s "copy", 0.0,                                                            \
                    (const int* n, const T* x, const int* incx, T* y, const int* incy), (n, x, incx, y, incy))  \
  MMAEMU_FORWARD_L1(void, s##axpy_, #s "axpy", 2.0 * len(n),                                                  \
                    (const int* n, const T* a, const T* x, const int* incx, T* y, const int* incy),            \
                    (n, a, x, incx, y, incy))                                                                   \
  MMAEMU_FORWARD_L1(T, s##dot_, #s "dot", 2.0 * len(n),                                                        \
                    (const int* n, const T* x, const int* incx, const T* y, const int* incy), (n, x, incx, y, incy)) \
  MMAEMU_FORWARD_L1(T, s##nrm2_, #s "nrm2", 2.0 * len(n), (const int* n, const T* x, const int* incx),        \
                    (n, x, incx))                                                                               \
  MMAEMU_FORWARD_L1(T, s##asum_, #s "asum", len(n), (const int* n, const T* x, const int* incx), (n, x, incx)) \
  MMAEMU_FORWARD_L1(void, s##rot_, #s "rot", 6.0 * len(n),                                                     \
                    (const int* n, T* x, const int* incx, T* y, const int* incy, const T* c, const T* s_),     \
                    (n, x, incx, y, incy, c, s_))                                                               \
  MMAEMU_FORWARD_L1(int, i##amax_, #i "amax", len(n), (const int* n, const T* x, const int* incx), (n, x, incx))

MMAEMU_LEVEL1(float, s, is)
MMAEMU_LEVEL1(double, d, id)
