// SPDX-License-Identifier: BSD-3-Clause
// The gemm family (docs/shim.md): sgemm, dgemm and sbgemm under their
// Fortran, bare Fortran (some ScaLAPACK builds call sgemm/dgemm without the
// underscore), upper-case and CBLAS names, with the reference BLAS's
// argument checks. sgemm runs on the model under the setting's input
// policy; dgemm is native by default, and MMA_DGEMM=model runs the model's
// fp64 unit (an IEEE FMA chain in the unit's order); sbgemm (below) runs on
// the model's bf16 unit. Calls with nothing to emulate, and nested calls
// from inside the real BLAS, go to the system BLAS.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime.h"

namespace mmaemu::shim {
namespace {

bool valid_trans(char t) { return t == 'N' || t == 'T' || t == 'C'; }

// Fortran gemm argument check, netlib order: the parameter number of the
// first bad argument (0: none).
int f77_gemm_info(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc) {
  const int nrowa = ta == 'N' ? m : k, nrowb = tb == 'N' ? k : n;
  if (!valid_trans(ta)) return 1;
  if (!valid_trans(tb)) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max(1, nrowa)) return 8;
  if (ldb < std::max(1, nrowb)) return 10;
  if (ldc < std::max(1, m)) return 13;
  return 0;
}

// CBLAS gemm argument check, as the reference CBLAS and OpenBLAS make it:
// Order and the transposes are CBLAS-level errors (numbers 1-3 of the
// caller's list, `cblas_level` set); the rest is the Fortran check of the
// call the entry makes, which for row-major is the column-major transposed
// problem (A and B, M and N swapped): its Fortran number goes to xerbla_,
// and a CBLAS error handler translates it (netlib's c_xerbla adds one and,
// for row-major, swaps 4/5 and 9/11).
int cblas_gemm_info(int order, char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc, bool& cblas_level) {
  cblas_level = true;
  if (order != kColMajor && order != kRowMajor) return 1;
  if (!valid_trans(ta)) return 2;
  if (!valid_trans(tb)) return 3;
  cblas_level = false;
  if (order == kColMajor) return f77_gemm_info(ta, tb, m, n, k, lda, ldb, ldc);
  return f77_gemm_info(tb, ta, n, m, k, ldb, lda, ldc);
}

// Checks a CBLAS gemm call and reports its first bad argument (CBLAS-level
// errors through cblas_xerbla as `cblas_name`, the rest through xerbla_ as
// `name`); true if one was.
bool report_cblas_gemm(const char* cblas_name, const char* name, int order, char ta, char tb, int m, int n, int k,
                       int lda, int ldb, int ldc) {
  bool cblas_level = false;
  const int info = cblas_gemm_info(order, ta, tb, m, n, k, lda, ldb, ldc, cblas_level);
  if (info && cblas_level) report_cblas(cblas_name, info);
  else if (info) report(name, info);
  return info != 0;
}

// The emulated Fortran gemm entry of `kind`, counted as `routine`; `name`:
// the routine's 6-character xerbla name.
void emulate_f77(Emulated routine, const char* name, Gemm kind, const char* transa, const char* transb, int m, int n,
                 int k, double alpha, const void* A, int lda, const void* B, int ldb, double beta, void* C, int ldc) {
  NestGuard guard;
  const char ta = upper(transa), tb = upper(transb);
  if (const int info = f77_gemm_info(ta, tb, m, n, k, lda, ldb, ldc)) return report(name, info);
  timed(routine, 2.0 * m * n * k, [&] { model_gemm(name, kind, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc); });
}

// The emulated CBLAS gemm entry of `kind` (both layouts).
void emulate_cblas(Emulated routine, const char* cblas_name, const char* name, Gemm kind, int order, int transa,
                   int transb, int m, int n, int k, double alpha, const void* A, int lda, const void* B, int ldb,
                   double beta, void* C, int ldc) {
  NestGuard guard;
  const char ta = cblas_trans(transa), tb = cblas_trans(transb);
  if (report_cblas_gemm(cblas_name, name, order, ta, tb, m, n, k, lda, ldb, ldc)) return;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
  timed(routine, 2.0 * m * n * k, [&] {
    if (order == kColMajor) model_gemm(name, kind, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    else model_gemm(name, kind, tb, ta, n, m, k, alpha, B, ldb, A, lda, beta, C, ldc);
  });
}

}  // namespace
}  // namespace mmaemu::shim

// The entries (C linkage, exported) over the runtime and the code above.
using namespace mmaemu::shim;

// ---- sgemm ----------------------------------------------------------------

using sgemm_fn = void (*)(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                          const int*, const float*, const int*, const float*, float*, const int*);
using cblas_sgemm_fn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                                float*, int);

// Fortran entry; hidden string lengths are never read (Eigen passes none).
MMAEMU_EXPORT void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                          const float* alpha, const float* A, const int* lda, const float* B, const int* ldb,
                          const float* beta, float* C, const int* ldc) {
  if (!config().model || nested()) {
    static const auto real = reinterpret_cast<sgemm_fn>(real_symbol("sgemm_"));
    return real(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  emulate_f77(Emulated::sgemm, "SGEMM ", Gemm::s, transa, transb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C,
              *ldc);
}
MMAEMU_EXPORT void SGEMM(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* alpha,
                         const float* A, const int* lda, const float* B, const int* ldb, const float* beta, float* C,
                         const int* ldc) {
  sgemm_(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
MMAEMU_EXPORT void sgemm(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* alpha,
                         const float* A, const int* lda, const float* B, const int* ldb, const float* beta, float* C,
                         const int* ldc) {
  sgemm_(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

MMAEMU_EXPORT void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float* A, int lda,
                               const float* B, int ldb, float beta, float* C, int ldc) {
  if (!config().model || nested()) {
    static const auto real = reinterpret_cast<cblas_sgemm_fn>(real_symbol("cblas_sgemm"));
    return real(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  emulate_cblas(Emulated::sgemm, "cblas_sgemm", "SGEMM ", Gemm::s, order, ta, tb, m, n, k, alpha, A, lda, B, ldb,
                beta, C, ldc);
}

// ---- dgemm ----------------------------------------------------------------

using dgemm_fn = void (*)(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                          const int*, const double*, const int*, const double*, double*, const int*);
using cblas_dgemm_fn = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                                double*, int);

namespace {
// dgemm goes to the system BLAS: counted when a model is set and the call
// does not come from inside the real BLAS.
bool dgemm_forwarded(double flops) {
  const Config& cfg = config();
  if (cfg.model && cfg.emulate_dgemm && !nested()) return false;
  if (cfg.model && !nested()) count_forwarded("dgemm", flops);
  return true;
}
}  // namespace

MMAEMU_EXPORT void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                          const double* alpha, const double* A, const int* lda, const double* B, const int* ldb,
                          const double* beta, double* C, const int* ldc) {
  if (dgemm_forwarded(2.0 * *m * *n * *k)) {
    static const auto real = reinterpret_cast<dgemm_fn>(real_symbol("dgemm_"));
    return real(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  emulate_f77(Emulated::dgemm, "DGEMM ", Gemm::d, transa, transb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C,
              *ldc);
}
MMAEMU_EXPORT void DGEMM(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                         const double* alpha, const double* A, const int* lda, const double* B, const int* ldb,
                         const double* beta, double* C, const int* ldc) {
  dgemm_(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
MMAEMU_EXPORT void dgemm(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                         const double* alpha, const double* A, const int* lda, const double* B, const int* ldb,
                         const double* beta, double* C, const int* ldc) {
  dgemm_(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

MMAEMU_EXPORT void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double* A, int lda,
                               const double* B, int ldb, double beta, double* C, int ldc) {
  if (dgemm_forwarded(2.0 * m * n * k)) {
    static const auto real = reinterpret_cast<cblas_dgemm_fn>(real_symbol("cblas_dgemm"));
    return real(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  emulate_cblas(Emulated::dgemm, "cblas_dgemm", "DGEMM ", Gemm::d, order, ta, tb, m, n, k, alpha, A, lda, B, ldb,
                beta, C, ldc);
}

// ---- sbgemm ---------------------------------------------------------------
// OpenBLAS's bf16 GEMM (A, B bf16 as uint16_t, C fp32), the routine
// a GPU BLAS runs on its bf16 unit (docs/shim.md). Emulated on the model's
// bf16 -> fp32 row; a model without one stops the program. With MMA_MODEL
// unset it goes to the system BLAS's sbgemm, or, where that BLAS has none
// (Debian's OpenBLAS declares but does not export it), to its sgemm on the
// exactly widened operands.

using sbgemm_fn = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                           const uint16_t*, const int*, const uint16_t*, const int*, const float*, float*, const int*);
using cblas_sbgemm_fn = void (*)(int, int, int, int, int, int, float, const uint16_t*, int, const uint16_t*, int,
                                 float, float*, int);

namespace {

// bf16 -> fp32 is exact: the bf16 bits are the high half of the fp32 bits.
std::vector<float> widen_bf16(const uint16_t* x, int rows, int cols, int ld) {
  std::vector<float> w(static_cast<std::size_t>(std::max(1, rows)) * std::max(0, cols));
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) {
      const uint32_t bits = static_cast<uint32_t>(x[static_cast<std::size_t>(j) * ld + i]) << 16;
      std::memcpy(&w[static_cast<std::size_t>(j) * rows + i], &bits, 4);
    }
  return w;
}

// Native sbgemm when nothing is emulated (arguments already checked).
void native_sbgemm(char ta, char tb, int m, int n, int k, float alpha, const uint16_t* A, int lda,
                   const uint16_t* B, int ldb, float beta, float* C, int ldc) {
  static const auto sgemm = reinterpret_cast<sgemm_fn>(real_symbol("sgemm_"));
  const int ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m, br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
  std::vector<float> a, b;
  no_throw("SBGEMM", [&] { a = widen_bf16(A, ar, ac, lda), b = widen_bf16(B, br, bc, ldb); });
  const int la = std::max(1, ar), lb = std::max(1, br);
  const char sa[2] = {ta, 0}, sb[2] = {tb, 0};
  sgemm(sa, sb, &m, &n, &k, &alpha, a.data(), &la, b.data(), &lb, &beta, C, &ldc);
}

}  // namespace

MMAEMU_EXPORT void sbgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                           const float* alpha, const uint16_t* A, const int* lda, const uint16_t* B, const int* ldb,
                           const float* beta, float* C, const int* ldc) {
  if (config().model && !nested())
    return emulate_f77(Emulated::sbgemm, "SBGEMM", Gemm::sb, transa, transb, *m, *n, *k, *alpha, A, *lda, B, *ldb,
                       *beta, C, *ldc);
  static const auto real = reinterpret_cast<sbgemm_fn>(find_real("sbgemm_"));
  if (real) return real(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  NestGuard guard;
  const char ta = upper(transa), tb = upper(transb);
  if (const int info = f77_gemm_info(ta, tb, *m, *n, *k, *lda, *ldb, *ldc))
    return report("SBGEMM", info);
  native_sbgemm(ta, tb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C, *ldc);
}

MMAEMU_EXPORT void cblas_sbgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                                const uint16_t* A, int lda, const uint16_t* B, int ldb, float beta, float* C,
                                int ldc) {
  if (config().model && !nested())
    return emulate_cblas(Emulated::sbgemm, "cblas_sbgemm", "SBGEMM", Gemm::sb, order, transa, transb, m, n, k, alpha,
                         A, lda, B, ldb, beta, C, ldc);
  static const auto real = reinterpret_cast<cblas_sbgemm_fn>(find_real("cblas_sbgemm"));
  if (real) return real(order, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  NestGuard guard;
  const char ta = cblas_trans(transa), tb = cblas_trans(transb);
  if (report_cblas_gemm("cblas_sbgemm", "SBGEMM", order, ta, tb, m, n, k, lda, ldb, ldc)) return;
  if (order == kColMajor) native_sbgemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  else native_sbgemm(tb, ta, n, m, k, alpha, B, ldb, A, lda, beta, C, ldc);
}
