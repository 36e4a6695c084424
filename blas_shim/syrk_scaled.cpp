// SPDX-License-Identifier: BSD-3-Clause
// ssyrk under a block-scaled policy (mxfp8, ..., nvfp4; docs/block-scaled.md).
// mmaemu_sgemm_block_scaled(op(A), op(A)^T) quantises op(A)'s rows and
// op(A)^T's columns -- the same vectors, so the same codes and scales; under
// NVFP4 each operand's per-tensor scale comes from its largest finite |x|,
// the same value for both. Quantised once here (n x kp bytes), op(A) then
// runs through mmaemu_gemm_block_scaled on tiles: an element of the
// block-scaled GEMM depends only on its row's and column's codes and
// scales, c and the epilogue (docs/block-scaled.md §4), so any tiling over
// n gives the whole product's bits.
#include <algorithm>
#include <cmath>

#include "syrk_scaled.h"

namespace mmaemu::shim {
namespace {

// The NVFP4 per-tensor scales of op(A) (n x k): those of its amax row (the
// one holding the largest finite |x|). `load(i)` puts row i into `row`.
template <class Load>
int nvfp4_scales(int n, std::vector<float>& row, Load&& load, float& encode, float& decode) {
  int amax_row = 0;
  float amax = -1.0f;
  for (int i = 0; i < n; ++i) {
    load(i);
    for (float x : row)
      if (std::isfinite(x) && std::fabs(x) > amax) amax = std::fabs(x), amax_row = i;
  }
  load(amax_row);
  return mmaemu_nvfp4_global_scale(row.size(), row.data(), &encode, &decode);
}

}  // namespace

std::string scaled_k_error(const Config& cfg, int k) {
  // An m = n = 0 product with this k: the C API checks k padded to whole
  // blocks as for the product itself, before anything is read.
  if (mmaemu_sgemm_block_scaled(cfg.model, cfg.policy.c_str(), MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_TRANS, 0, 0,
                                k, 1.0f, nullptr, 1, nullptr, 1, 0.0f, nullptr, 1) != MMAEMU_OK)
    return mmaemu_last_error();
  return "";
}

int quantise_syrk_operand(const Config& cfg, char trans, int n, int k, const float* A, int lda, ScaledOperand& q) {
  if (const int status = mmaemu_parse_block_scaled_policy(cfg.policy.c_str(), &q.desc)) return status;
  q.desc.accumulate = cfg.options.accumulate;
  const int bs = q.desc.block_size;
  q.n = n;
  q.kp = (k + bs - 1) / bs * bs;
  q.kb = q.kp / bs;
  q.codes.assign(static_cast<size_t>(n) * q.kp, 0);
  q.scales.assign(static_cast<size_t>(n) * q.kb, 0);
  std::vector<float> row(static_cast<size_t>(k));
  auto load = [&](int i) {  // row i of op(A), contiguous
    for (int l = 0; l < k; ++l)
      row[l] = trans == 'N' ? A[i + static_cast<size_t>(l) * lda] : A[l + static_cast<size_t>(i) * lda];
  };
  const bool nvfp4 = q.desc.scale_format == MMAEMU_UE4M3;
  float encode = 1.0f, decode = 1.0f;
  if (nvfp4 && n > 0 && k > 0)
    if (const int status = nvfp4_scales(n, row, load, encode, decode)) return status;
  q.desc.a_global_scale = q.desc.b_global_scale = decode;
  for (int i = 0; i < n && k > 0; ++i) {
    load(i);
    uint8_t* codes = &q.codes[static_cast<size_t>(i) * q.kp];
    uint8_t* scales = &q.scales[static_cast<size_t>(i) * q.kb];
    const int status = nvfp4 ? mmaemu_quantize_nvfp4(row.size(), row.data(), encode, codes, scales)
                             : mmaemu_quantize_mx(q.desc.a_format, bs, row.size(), row.data(), codes, scales);
    if (status) return status;
  }
  return MMAEMU_OK;
}

int scaled_syrk_tile(const Config& cfg, const ScaledOperand& q, float alpha, float beta, int i0, int rows, int j0,
                     int cols, float* C, int ldc) {
  // Column-major: the codes (n rows of kp, row-major) are op(A)^T, kp x n
  // with ld kp; rows i0.. transposed are the tile's A, columns j0.. its B.
  const uint8_t* codes = q.codes.data();
  const uint8_t* scales = q.scales.data();
  const size_t kp = static_cast<size_t>(q.kp), kb = static_cast<size_t>(q.kb);
  return mmaemu_gemm_block_scaled(cfg.model, &q.desc, MMAEMU_COL_MAJOR, MMAEMU_TRANS, MMAEMU_NO_TRANS, rows, cols,
                                  q.kp, alpha, codes + i0 * kp, std::max(q.kp, 1), scales + i0 * kb,
                                  std::max(q.kb, 1), codes + j0 * kp, std::max(q.kp, 1), scales + j0 * kb,
                                  std::max(q.kb, 1), beta, C, ldc);
}

}  // namespace mmaemu::shim
