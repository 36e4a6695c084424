// SPDX-License-Identifier: BSD-3-Clause
// ssyrk: C = alpha op(A) op(A)^T + beta C on one triangle (numpy's A @ A.T;
// docs/shim.md). Each element gets exactly the bits the model's GEMM element
// would: the triangle is computed blockwise by GEMMs on tiles (an element of
// the model's GEMM depends only on its row of op(A), column of op(A)^T and
// c, never on the tiling). Off-diagonal tiles lie wholly in the triangle and
// are written in place; a diagonal tile goes through a small scratch tile
// (bounded memory at any n: kSyrkTile^2 floats; a block-scaled policy adds
// op(A)'s codes, one byte per element: syrk_scaled.cpp).
#include <algorithm>
#include <vector>

#include "syrk_scaled.h"

namespace mmaemu::shim {
namespace {

constexpr int kSyrkTile = 512;        // diagonal tile: 1 MiB of scratch
constexpr int kSyrkPanelRows = 4096;  // rows per in-place GEMM (bounds the driver's packing)

struct SyrkCall {
  char uplo, trans;
  int n, k;
  float alpha;
  const float* A;
  int lda;
  float beta;
  const ScaledOperand* scaled;  // block-scaled policy: op(A) quantised once; else null
};

// C(i0:i0+rows, j0:j0+cols) (column-major, ldc) = the GEMM tile of op(A) op(A)^T.
void syrk_tile(const SyrkCall& s, int i0, int rows, int j0, int cols, float* C, int ldc) {
  if (s.scaled) {
    if (scaled_syrk_tile(config(), *s.scaled, s.alpha, s.beta, i0, rows, j0, cols, C, ldc) != MMAEMU_OK)
      fail_call("SSYRK ");
    return;
  }
  const bool notrans = s.trans == 'N';
  // op(A) is n x k: A (n x k) if 'N', else A^T with A k x n; row i of op(A)
  // starts at A + i ('N') or A + i*lda ('T').
  auto row_of = [&](int i) {
    return s.A + (notrans ? static_cast<std::size_t>(i) : static_cast<std::size_t>(i) * s.lda);
  };
  model_gemm("SSYRK ", Gemm::s, notrans ? 'N' : 'T', notrans ? 'T' : 'N', rows, cols, s.k, s.alpha, row_of(i0),
             s.lda, row_of(j0), s.lda, s.beta, C, ldc);
}

float* at(float* base, int ld, int i, int j) { return base + static_cast<std::size_t>(j) * ld + i; }

// The diagonal tile of block column j0 (nb wide) through the scratch W: the
// triangle from C (read only if beta != 0), back into C.
void syrk_diagonal(const SyrkCall& s, int j0, int nb, std::vector<float>& W, float* C, int ldc) {
  auto in_tri = [&](int i, int j) { return s.uplo == 'U' ? i <= j : i >= j; };
  for (int j = 0; j < nb; ++j)
    for (int i = 0; i < nb; ++i)
      *at(W.data(), nb, i, j) = s.beta != 0.0f && in_tri(i, j) ? *at(C, ldc, j0 + i, j0 + j) : 0.0f;
  syrk_tile(s, j0, nb, j0, nb, W.data(), nb);
  for (int j = 0; j < nb; ++j)
    for (int i = 0; i < nb; ++i)
      if (in_tri(i, j)) *at(C, ldc, j0 + i, j0 + j) = *at(W.data(), nb, i, j);
}

void syrk_tiles(const SyrkCall& s, float* C, int ldc) {
  const int step = kSyrkTile;
  const std::size_t tile = static_cast<std::size_t>(std::min(step, std::max(1, s.n)));
  std::vector<float> W;
  no_throw("SSYRK ", [&] { W.assign(tile * tile, 0.0f); });
  for (int j0 = 0; j0 < s.n; j0 += step) {
    const int nb = std::min(step, s.n - j0);
    syrk_diagonal(s, j0, nb, W, C, ldc);
    // The rest of the block column, in place: rows above (upper) or below (lower).
    const int first = s.uplo == 'U' ? 0 : j0 + nb, last = s.uplo == 'U' ? j0 : s.n;
    for (int i0 = first; i0 < last; i0 += kSyrkPanelRows) {
      const int rows = std::min(kSyrkPanelRows, last - i0);
      syrk_tile(s, i0, rows, j0, nb, at(C, ldc, i0, j0), ldc);
    }
  }
}

void syrk_col(SyrkCall s, float* C, int ldc) {
  // A block-scaled policy quantises op(A) once, whole (nvfp4: one scale per
  // tensor); the tiles then read its codes.
  ScaledOperand q;
  if (config().block_scaled) {
    if (const std::string error = scaled_k_error(config(), s.k); !error.empty()) fail("SSYRK ", error.c_str());
    int status = MMAEMU_OK;
    no_throw("SSYRK ", [&] { status = quantise_syrk_operand(config(), s.trans, s.n, s.k, s.A, s.lda, q); });
    if (status != MMAEMU_OK) fail_call("SSYRK ");
    s.scaled = &q;
  }
  syrk_tiles(s, C, ldc);
}

// The Fortran ssyrk check (netlib order); the parameter number, 0 if none.
int syrk_info(char uplo, char trans, int n, int k, int lda, int ldc) {
  const int nrowa = trans == 'N' ? n : k;
  if (uplo != 'U' && uplo != 'L') return 1;
  if (trans != 'N' && trans != 'T' && trans != 'C') return 2;
  if (n < 0) return 3;
  if (k < 0) return 4;
  if (lda < std::max(1, nrowa)) return 7;
  if (ldc < std::max(1, n)) return 10;
  return 0;
}

}  // namespace
}  // namespace mmaemu::shim

using mmaemu::shim::config;
using mmaemu::shim::nested;

using ssyrk_fn = void (*)(const char*, const char*, const int*, const int*, const float*, const float*, const int*,
                          const float*, float*, const int*);
using cblas_ssyrk_fn = void (*)(int, int, int, int, int, float, const float*, int, float, float*, int);

MMAEMU_EXPORT void ssyrk_(const char* uplo, const char* trans, const int* n, const int* k, const float* alpha,
                          const float* A, const int* lda, const float* beta, float* C, const int* ldc) {
  namespace shim = mmaemu::shim;
  if (!config().model || nested()) {
    static const auto real = reinterpret_cast<ssyrk_fn>(shim::real_symbol("ssyrk_"));
    return real(uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
  }
  shim::NestGuard guard;
  const char u = shim::upper(uplo), t = shim::upper(trans);
  if (const int info = shim::syrk_info(u, t, *n, *k, *lda, *ldc)) return shim::report("SSYRK ", info);
  shim::timed(shim::Emulated::ssyrk, 1.0 * *n * *n * *k,
              [&] { shim::syrk_col({u, t, *n, *k, *alpha, A, *lda, *beta, nullptr}, C, *ldc); });
}

MMAEMU_EXPORT void cblas_ssyrk(int order, int uplo, int trans, int n, int k, float alpha, const float* A, int lda,
                               float beta, float* C, int ldc) {
  namespace shim = mmaemu::shim;
  if (!config().model || nested()) {
    static const auto real = reinterpret_cast<cblas_ssyrk_fn>(shim::real_symbol("cblas_ssyrk"));
    return real(order, uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
  }
  shim::NestGuard guard;
  char u = uplo == shim::kUpper ? 'U' : uplo == shim::kLower ? 'L' : '?';
  char t = trans == shim::kNoTrans ? 'N' : (trans == shim::kTrans || trans == shim::kConjTrans) ? 'T' : '?';
  // Order, Uplo and Trans are CBLAS-level errors (as in the reference CBLAS).
  const int cblas_info = order != shim::kColMajor && order != shim::kRowMajor ? 1 : u == '?' ? 2 : t == '?' ? 3 : 0;
  if (cblas_info) return shim::report_cblas("cblas_ssyrk", cblas_info);
  if (order == shim::kRowMajor) {  // row-major = column-major of the transpose: swap uplo and trans
    u = u == 'U' ? 'L' : 'U';
    t = t == 'N' ? 'T' : 'N';
  }
  if (const int info = shim::syrk_info(u, t, n, k, lda, ldc)) return shim::report("SSYRK ", info);
  shim::timed(shim::Emulated::ssyrk, 1.0 * n * n * k,
              [&] { shim::syrk_col({u, t, n, k, alpha, A, lda, beta, nullptr}, C, ldc); });
}
