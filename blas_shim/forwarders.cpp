// SPDX-License-Identifier: BSD-3-Clause
// Counting forwarders: the single- and double-precision real BLAS level-2
// and level-3 routines that a GPU BLAS does not run on its matrix units (or
// that the shim does not emulate) go to the system BLAS untouched, and are
// counted, so that MMA_VERBOSE=1 tells which part of a program did not run on
// the model. The system BLAS checks their arguments (its own xerbla).
#include <algorithm>

#include "runtime.h"

namespace {
// Operation counts (the usual ones: a multiply-add is 2 flops); a negative
// size (an argument error the system BLAS reports) counts as 0.
double nonneg(int x) { return std::max(0, x); }
double f_mn(int m, int n) { return 2.0 * nonneg(m) * nonneg(n); }  // gemv, ger
double f_nn(int n) { return nonneg(n) * nonneg(n); }                // trmv, trsv, syr, ...
double f_band(int n, int kd) { return 2.0 * nonneg(n) * (2.0 * nonneg(kd) + 1); }  // sbmv: 2 n (2 kd + 1)
double f_gbmv(int m, int n, int kl, int ku) { return 2.0 * nonneg(std::min(m, n)) * (nonneg(kl) + nonneg(ku) + 1); }
// symm: 2 m n times the order of the symmetric matrix (m left, n right).
double f_symm(bool left, int m, int n) { return f_mn(m, n) * nonneg(left ? m : n); }
// trmm, trsm: the triangle is m x m (left) or n x n (right).
double f_side(bool left, int m, int n) { return left ? f_nn(m) * nonneg(n) : nonneg(m) * f_nn(n); }
bool left(const char* side) { return *side == 'L' || *side == 'l'; }
bool cleft(int side) { return side == mmaemu::shim::kLeft; }
}  // namespace

// The forwarders are defined at global scope (C linkage, exported).

// Forwards `name` to the system BLAS, counting the call as `routine` with
// `flops` unless MMA_MODEL is unset or the call is nested in another BLAS
// routine. PARAMS: the typed parameter list; ARGS: the names.
#define MMAEMU_FORWARD(name, routine, flops, PARAMS, ARGS)                                              \
  MMAEMU_EXPORT void name PARAMS {                                                                      \
    using Fn = void(*) PARAMS;                                                                          \
    static const auto real = reinterpret_cast<Fn>(mmaemu::shim::real_symbol(#name));                  \
    if (mmaemu::shim::config().model && !mmaemu::shim::nested())                                        \
      mmaemu::shim::count_forwarded(routine, flops);                                                    \
    mmaemu::shim::NestGuard guard;                                                                      \
    real ARGS;                                                                                          \
  }

// Each shape: the Fortran entry (name_) and the CBLAS one (cblas_name), for
// T = float ("s") and double ("d").
#define MMAEMU_L3_SYMM(T, s)                                                                               \
  MMAEMU_FORWARD(s##symm_, #s "symm", f_symm(left(side), *m, *n),                               \
                 (const char* side, const char* uplo, const int* m, const int* n, const T* alpha, const T* a,    \
                  const int* lda, const T* b, const int* ldb, const T* beta, T* c, const int* ldc),              \
                 (side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc))                                        \
  MMAEMU_FORWARD(cblas_##s##symm, #s "symm", f_symm(cleft(side), m, n),                               \
                 (int order, int side, int uplo, int m, int n, T alpha, const T* a, int lda, const T* b, int ldb, \
                  T beta, T* c, int ldc),                                                                         \
                 (order, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc))
#define MMAEMU_L3_SYRK(T, s, rk, factor, BP, BA, CBP, CBA)                                                    \
  MMAEMU_FORWARD(s##rk##_, #s #rk, factor * f_nn(*n) * nonneg(*k),                                             \
                 (const char* uplo, const char* trans, const int* n, const int* k, const T* alpha, const T* a,   \
                  const int* lda BP, const T* beta, T* c, const int* ldc),                                       \
                 (uplo, trans, n, k, alpha, a, lda BA, beta, c, ldc))                                            \
  MMAEMU_FORWARD(cblas_##s##rk, #s #rk, factor * f_nn(n) * nonneg(k),                                          \
                 (int order, int uplo, int trans, int n, int k, T alpha, const T* a, int lda CBP, T beta, T* c,  \
                  int ldc),                                                                                      \
                 (order, uplo, trans, n, k, alpha, a, lda CBA, beta, c, ldc))
#define MMAEMU_COMMA ,
#define MMAEMU_L3_TRI(T, s, tr)                                                                                 \
  MMAEMU_FORWARD(s##tr##_, #s #tr, f_side(left(side), *m, *n),                                                 \
                 (const char* side, const char* uplo, const char* transa, const char* diag, const int* m,        \
                  const int* n, const T* alpha, const T* a, const int* lda, T* b, const int* ldb),               \
                 (side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb))                                         \
  MMAEMU_FORWARD(cblas_##s##tr, #s #tr, f_side(cleft(side), m, n),                                             \
                 (int order, int side, int uplo, int transa, int diag, int m, int n, T alpha, const T* a, int lda, \
                  T* b, int ldb),                                                                                 \
                 (order, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb))

#define MMAEMU_LEVEL3(T, s)                                                                                       \
  MMAEMU_L3_SYMM(T, s)                                                                                            \
  MMAEMU_L3_SYRK(T, s, syr2k, 2.0, MMAEMU_COMMA const T* b MMAEMU_COMMA const int* ldb, MMAEMU_COMMA b MMAEMU_COMMA ldb, \
                 MMAEMU_COMMA const T* b MMAEMU_COMMA int ldb, MMAEMU_COMMA b MMAEMU_COMMA ldb)                     \
  MMAEMU_L3_TRI(T, s, trmm)                                                                                        \
  MMAEMU_L3_TRI(T, s, trsm)

MMAEMU_LEVEL3(float, s)
MMAEMU_LEVEL3(double, d)
// dsyrk (ssyrk is emulated: syrk.cpp).
MMAEMU_L3_SYRK(double, d, syrk, 1.0, , , , )

// Level 2. gemv is in gemv.cpp (MMA_GEMV).
#define MMAEMU_L2(T, s)                                                                                            \
  MMAEMU_FORWARD(s##gbmv_, #s "gbmv", f_gbmv(*m, *n, *kl, *ku),                                    \
                 (const char* trans, const int* m, const int* n, const int* kl, const int* ku, const T* alpha,    \
                  const T* a, const int* lda, const T* x, const int* incx, const T* beta, T* y, const int* incy), \
                 (trans, m, n, kl, ku, alpha, a, lda, x, incx, beta, y, incy))                                    \
  MMAEMU_FORWARD(cblas_##s##gbmv, #s "gbmv", f_gbmv(m, n, kl, ku),                                 \
                 (int order, int trans, int m, int n, int kl, int ku, T alpha, const T* a, int lda, const T* x,   \
                  int incx, T beta, T* y, int incy),                                                              \
                 (order, trans, m, n, kl, ku, alpha, a, lda, x, incx, beta, y, incy))                             \
  MMAEMU_FORWARD(s##symv_, #s "symv", 2.0 * f_nn(*n),                                                               \
                 (const char* uplo, const int* n, const T* alpha, const T* a, const int* lda, const T* x,         \
                  const int* incx, const T* beta, T* y, const int* incy),                                         \
                 (uplo, n, alpha, a, lda, x, incx, beta, y, incy))                                                \
  MMAEMU_FORWARD(cblas_##s##symv, #s "symv", 2.0 * f_nn(n),                                                          \
                 (int order, int uplo, int n, T alpha, const T* a, int lda, const T* x, int incx, T beta, T* y,   \
                  int incy),                                                                                      \
                 (order, uplo, n, alpha, a, lda, x, incx, beta, y, incy))                                         \
  MMAEMU_FORWARD(s##sbmv_, #s "sbmv", f_band(*n, *k),                                                               \
                 (const char* uplo, const int* n, const int* k, const T* alpha, const T* a, const int* lda,       \
                  const T* x, const int* incx, const T* beta, T* y, const int* incy),                             \
                 (uplo, n, k, alpha, a, lda, x, incx, beta, y, incy))                                             \
  MMAEMU_FORWARD(cblas_##s##sbmv, #s "sbmv", f_band(n, k),                                                           \
                 (int order, int uplo, int n, int k, T alpha, const T* a, int lda, const T* x, int incx, T beta,  \
                  T* y, int incy),                                                                                \
                 (order, uplo, n, k, alpha, a, lda, x, incx, beta, y, incy))                                      \
  MMAEMU_FORWARD(s##spmv_, #s "spmv", 2.0 * f_nn(*n),                                                               \
                 (const char* uplo, const int* n, const T* alpha, const T* ap, const T* x, const int* incx,       \
                  const T* beta, T* y, const int* incy),                                                          \
                 (uplo, n, alpha, ap, x, incx, beta, y, incy))                                                    \
  MMAEMU_FORWARD(cblas_##s##spmv, #s "spmv", 2.0 * f_nn(n),                                                          \
                 (int order, int uplo, int n, T alpha, const T* ap, const T* x, int incx, T beta, T* y, int incy), \
                 (order, uplo, n, alpha, ap, x, incx, beta, y, incy))                                             \
  MMAEMU_L2_TRIANGULAR(T, s, trmv, f_nn(*n), f_nn(n), (const T* a, const int* lda), (a, lda), (const T* a, int lda), \
                       (a, lda))                                                                                  \
  MMAEMU_L2_TRIANGULAR(T, s, trsv, f_nn(*n), f_nn(n), (const T* a, const int* lda), (a, lda), (const T* a, int lda), \
                       (a, lda))                                                                                  \
  MMAEMU_L2_TRIANGULAR(T, s, tpmv, f_nn(*n), f_nn(n), (const T* ap), (ap), (const T* ap), (ap))                    \
  MMAEMU_L2_TRIANGULAR(T, s, tpsv, f_nn(*n), f_nn(n), (const T* ap), (ap), (const T* ap), (ap))                    \
  MMAEMU_L2_BAND_TRIANGULAR(T, s, tbmv)                                                                           \
  MMAEMU_L2_BAND_TRIANGULAR(T, s, tbsv)                                                                           \
  MMAEMU_FORWARD(s##ger_, #s "ger", f_mn(*m, *n),                                                                   \
                 (const int* m, const int* n, const T* alpha, const T* x, const int* incx, const T* y,            \
                  const int* incy, T* a, const int* lda),                                                         \
                 (m, n, alpha, x, incx, y, incy, a, lda))                                                         \
  MMAEMU_FORWARD(cblas_##s##ger, #s "ger", f_mn(m, n),                                                               \
                 (int order, int m, int n, T alpha, const T* x, int incx, const T* y, int incy, T* a, int lda),   \
                 (order, m, n, alpha, x, incx, y, incy, a, lda))                                                  \
  MMAEMU_L2_RANK(T, s, syr, f_nn, (T * a, const int* lda), (a, lda), (T * a, int lda), (a, lda), , , , )         \
  MMAEMU_L2_RANK(T, s, spr, f_nn, (T * ap), (ap), (T * ap), (ap), , , , )                                          \
  MMAEMU_L2_RANK(T, s, syr2, 2.0 * f_nn, (T * a, const int* lda), (a, lda), (T * a, int lda), (a, lda),           \
                 MMAEMU_COMMA const T* y MMAEMU_COMMA const int* incy, MMAEMU_COMMA y MMAEMU_COMMA incy,            \
                 MMAEMU_COMMA const T* y MMAEMU_COMMA int incy, MMAEMU_COMMA y MMAEMU_COMMA incy)                   \
  MMAEMU_L2_RANK(T, s, spr2, 2.0 * f_nn, (T * ap), (ap), (T * ap), (ap),                                           \
                 MMAEMU_COMMA const T* y MMAEMU_COMMA const int* incy, MMAEMU_COMMA y MMAEMU_COMMA incy,            \
                 MMAEMU_COMMA const T* y MMAEMU_COMMA int incy, MMAEMU_COMMA y MMAEMU_COMMA incy)

#define MMAEMU_UNPAREN(...) __VA_ARGS__
// trmv, trsv, tpmv, tpsv: (uplo, trans, diag, n, <matrix>, x, incx).
#define MMAEMU_L2_TRIANGULAR(T, s, r, FLOPS, CFLOPS, MP, MA, CMP, CMA)                                          \
  MMAEMU_FORWARD(s##r##_, #s #r, FLOPS,                                                                          \
                 (const char* uplo, const char* trans, const char* diag, const int* n, MMAEMU_UNPAREN MP, T* x,  \
                  const int* incx),                                                                              \
                 (uplo, trans, diag, n, MMAEMU_UNPAREN MA, x, incx))                                             \
  MMAEMU_FORWARD(cblas_##s##r, #s #r, CFLOPS,                                                                    \
                 (int order, int uplo, int trans, int diag, int n, MMAEMU_UNPAREN CMP, T* x, int incx),         \
                 (order, uplo, trans, diag, n, MMAEMU_UNPAREN CMA, x, incx))
// tbmv, tbsv: (uplo, trans, diag, n, k, a, lda, x, incx).
#define MMAEMU_L2_BAND_TRIANGULAR(T, s, r)                                                                      \
  MMAEMU_FORWARD(s##r##_, #s #r, f_band(*n, *k) / 2,                                                             \
                 (const char* uplo, const char* trans, const char* diag, const int* n, const int* k, const T* a, \
                  const int* lda, T* x, const int* incx),                                                        \
                 (uplo, trans, diag, n, k, a, lda, x, incx))                                                     \
  MMAEMU_FORWARD(cblas_##s##r, #s #r, f_band(n, k) / 2,                                                          \
                 (int order, int uplo, int trans, int diag, int n, int k, const T* a, int lda, T* x, int incx), \
                 (order, uplo, trans, diag, n, k, a, lda, x, incx))
// syr, spr, syr2, spr2: (uplo, n, alpha, x, incx[, y, incy], <matrix>).
#define MMAEMU_L2_RANK(T, s, r, FLOPS, MP, MA, CMP, CMA, YP, YA, CYP, CYA)                                      \
  MMAEMU_FORWARD(s##r##_, #s #r, FLOPS(*n),                                                                      \
                 (const char* uplo, const int* n, const T* alpha, const T* x, const int* incx YP,                \
                  MMAEMU_UNPAREN MP),                                                                            \
                 (uplo, n, alpha, x, incx YA, MMAEMU_UNPAREN MA))                                                \
  MMAEMU_FORWARD(cblas_##s##r, #s #r, FLOPS(n),                                                                  \
                 (int order, int uplo, int n, T alpha, const T* x, int incx CYP, MMAEMU_UNPAREN CMP),            \
                 (order, uplo, n, alpha, x, incx CYA, MMAEMU_UNPAREN CMA))

MMAEMU_L2(float, s)
MMAEMU_L2(double, d)
