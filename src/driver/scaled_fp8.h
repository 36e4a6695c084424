// SPDX-License-Identifier: BSD-3-Clause
// Fine-grained scaled fp8 GEMM, the recipe of DeepSeek-V3 (technical report,
// Sec. 3.3 "FP8 training": tile/block-wise quantisation, promotion to CUDA
// cores every 128 elements of k) and of DeepGEMM.
//
//   A (m x k) fp8 codes, one fp32 scale per (row, block_k elements of k)
//   B (k x n) fp8 codes, one fp32 scale per (block_k of k, block_n columns)
//   for each k block q, in k order:
//     partial = the unit's sum of block q from +0 (fp32)
//     main    = fma(partial, fl32(sa[i][q] * sb[q][j / block_n]), main)
//   D = main (binary32, RNE)
//
// The scale product rounded once and one fused multiply-add per block is the
// common kernel form (DeepGEMM's promotion); a kernel may instead multiply
// and add separately, or fold the scales differently, and give other bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "driver/gemm.h"

namespace mmaemu::driver {

struct ScaleLayout {
  std::size_t block_k = 128, block_n = 128;
};

/// D (m x n, fp32, leading dimension ldd) as above. A and B are operands of
/// fp8 storage (the unit's input format); sa is m x ceil(k/block_k)
/// row-major, sb is ceil(k/block_k) x ceil(n/block_n) row-major. block_k
/// must be a multiple of the instruction k (std::invalid_argument).
void scaled_fp8_gemm(const GemmSpec& spec, std::size_t m, std::size_t n, std::size_t k, const Operand& A,
                     const float* sa, const Operand& B, const float* sb, ScaleLayout layout, float* D,
                     std::ptrdiff_t ldd);

/// Quantises X (rows x cols fp32, leading dimension ldx) to fp8 codes of f
/// (e4m3 or e5m2) in blocks of block_rows x block_cols: per block
/// scale = fl32(amax / max_finite(f)) (1 for an all-zero block, at least
/// the smallest fp32 subnormal), code = f(fl32(x / scale)) with RNE and
/// saturation. Q is rows x cols (ldq); scales are ceil(rows/block_rows) x
/// ceil(cols/block_cols) row-major. NaN or Inf in X: std::invalid_argument.
void quantize_fp8_blocks(Fmt f, std::size_t rows, std::size_t cols, const float* X, std::ptrdiff_t ldx,
                         std::size_t block_rows, std::size_t block_cols, uint8_t* Q, std::ptrdiff_t ldq,
                         float* scales);

}  // namespace mmaemu::driver
