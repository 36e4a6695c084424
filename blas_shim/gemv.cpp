// SPDX-License-Identifier: BSD-3-Clause
// gemv: y = alpha op(A) x + beta y, under MMA_GEMV (docs/shim.md):
//   native (default)  a GPU BLAS runs gemv on its FMA cores, not on the
//                     matrix unit: the call goes to the system BLAS (and is
//                     listed as not emulated under MMA_VERBOSE=1);
//   model             the unit's GEMM with n = 1: op(A) (rows x cols) times
//                     x as a cols x 1 matrix, as a BLAS that sends gemv to
//                     its GEMM does. dgemv also needs MMA_DGEMM=model.
// Argument errors as the reference BLAS reports them (xerbla).
#include <algorithm>
#include <vector>

#include "runtime.h"

namespace mmaemu::shim {
namespace {

// Fortran gemv argument check, netlib order: the number of the first bad
// parameter (0: none).
int f77_gemv_info(char trans, int m, int n, int lda, int incx, int incy) {
  if (trans != 'N' && trans != 'T' && trans != 'C') return 1;
  if (m < 0) return 2;
  if (n < 0) return 3;
  if (lda < std::max(1, m)) return 6;
  if (incx == 0) return 8;
  if (incy == 0) return 11;
  return 0;
}

// CBLAS gemv check, numbered in the caller's list (Order = 1, ..., incY =
// 12). Row-major runs as the column-major transposed problem (M, N swapped).
int cblas_gemv_info(int order, char trans, int m, int n, int lda, int incx, int incy) {
  if (order != kRowMajor && order != kColMajor) return 1;
  if (order == kColMajor) {
    static const int cblas_number[12] = {0, 2, 3, 4, 0, 0, 7, 0, 9, 0, 0, 12};
    return cblas_number[f77_gemv_info(trans, m, n, lda, incx, incy)];
  }
  static const int cblas_number[12] = {0, 2, 4, 3, 0, 0, 7, 0, 9, 0, 0, 12};
  return cblas_number[f77_gemv_info(trans == '?' ? '?' : 'N', n, m, lda, incx, incy)];
}

// Element i of a BLAS vector of length n with stride inc (negative: from
// the end, as the reference BLAS walks it).
std::size_t at(int i, int n, int inc) {
  return static_cast<std::size_t>(inc > 0 ? static_cast<long>(i) * inc : static_cast<long>(i - (n - 1)) * inc);
}

template <typename T>
constexpr bool kDouble = sizeof(T) == 8;

// Column-major gemv on the model (arguments already checked).
template <typename T>
void model_gemv(const char* name, char trans, int m, int n, T alpha, const T* A, int lda, const T* x, int incx,
                T beta, T* y, int incy) {
  if (m == 0 || n == 0 || (alpha == T(0) && beta == T(1))) return;  // the reference BLAS's quick return
  const int rows = trans == 'N' ? m : n, cols = trans == 'N' ? n : m;
  std::vector<T> xv(cols), yv(rows, T(0));
  for (int i = 0; i < cols; ++i) xv[i] = x[at(i, cols, incx)];
  if (beta != T(0))
    for (int i = 0; i < rows; ++i) yv[i] = y[at(i, rows, incy)];
  timed(kDouble<T> ? Emulated::dgemv : Emulated::sgemv, 2.0 * m * n, [&] {
    model_gemm(name, kDouble<T> ? Gemm::d : Gemm::s, trans == 'N' ? 'N' : 'T', 'N', rows, 1, cols, alpha, A, lda,
               xv.data(), cols, beta, yv.data(), rows);
    for (int i = 0; i < rows; ++i) y[at(i, rows, incy)] = yv[i];
  });
}

// True if this call runs on the model; false: it goes to the system BLAS,
// counted unless nothing is emulated or it is nested.
template <typename T>
bool emulated(int m, int n) {
  const Config& cfg = config();
  if (cfg.model && !nested() && cfg.gemv_on_model && (!kDouble<T> || cfg.emulate_dgemm)) return true;
  if (cfg.model && !nested()) count_forwarded(kDouble<T> ? "dgemv" : "sgemv", 2.0 * std::max(0, m) * std::max(0, n));
  return false;
}

template <typename T>
using F77Gemv = void (*)(const char*, const int*, const int*, const T*, const T*, const int*, const T*, const int*,
                         const T*, T*, const int*);
template <typename T>
using CblasGemv = void (*)(int, int, int, int, T, const T*, int, const T*, int, T, T*, int);

template <typename T>
void f77_gemv(const char* name, const char* real_name, const char* trans, const int* m, const int* n,
              const T* alpha, const T* A, const int* lda, const T* x, const int* incx, const T* beta, T* y,
              const int* incy) {
  if (!emulated<T>(*m, *n)) {
    static const auto real = reinterpret_cast<F77Gemv<T>>(real_symbol(real_name));
    NestGuard guard;
    return real(trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
  }
  NestGuard guard;
  const char t = upper(trans);
  if (const int info = f77_gemv_info(t, *m, *n, *lda, *incx, *incy)) return report(name, info);
  model_gemv(name, t, *m, *n, *alpha, A, *lda, x, *incx, *beta, y, *incy);
}

template <typename T>
void cblas_gemv(const char* name, const char* real_name, int order, int trans, int m, int n, T alpha, const T* A,
                int lda, const T* x, int incx, T beta, T* y, int incy) {
  if (!emulated<T>(m, n)) {
    static const auto real = reinterpret_cast<CblasGemv<T>>(real_symbol(real_name));
    NestGuard guard;
    return real(order, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
  }
  NestGuard guard;
  const char t = cblas_trans(trans);
  if (const int info = cblas_gemv_info(order, t, m, n, lda, incx, incy)) return report(name, info);
  // Row-major A (m x n) is the column-major n x m matrix A^T.
  if (order == kColMajor) model_gemv(name, t, m, n, alpha, A, lda, x, incx, beta, y, incy);
  else model_gemv(name, t == 'N' ? 'T' : 'N', n, m, alpha, A, lda, x, incx, beta, y, incy);
}

}  // namespace
}  // namespace mmaemu::shim

using mmaemu::shim::cblas_gemv;
using mmaemu::shim::f77_gemv;

MMAEMU_EXPORT void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* A,
                          const int* lda, const float* x, const int* incx, const float* beta, float* y,
                          const int* incy) {
  f77_gemv("SGEMV ", "sgemv_", trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
MMAEMU_EXPORT void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* A,
                          const int* lda, const double* x, const int* incx, const double* beta, double* y,
                          const int* incy) {
  f77_gemv("DGEMV ", "dgemv_", trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
MMAEMU_EXPORT void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float* A, int lda,
                               const float* x, int incx, float beta, float* y, int incy) {
  cblas_gemv("SGEMV ", "cblas_sgemv", order, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
MMAEMU_EXPORT void cblas_dgemv(int order, int trans, int m, int n, double alpha, const double* A, int lda,
                               const double* x, int incx, double beta, double* y, int incy) {
  cblas_gemv("DGEMV ", "cblas_dgemv", order, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
