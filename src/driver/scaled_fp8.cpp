// SPDX-License-Identifier: BSD-3-Clause
#include "driver/scaled_fp8.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/fp_env.h"
#include "driver/schedule_parts.h"

namespace mmaemu::driver {

void scaled_fp8_gemm(const GemmSpec& spec, std::size_t m, std::size_t n, std::size_t k, const Operand& A,
                     const float* sa, const Operand& B, const float* sb, ScaleLayout layout, float* D,
                     std::ptrdiff_t ldd) {
  const ModelRow& row = *spec.row;
  if (row.out != Fmt::fp32 || info(row.in).width != 8)
    throw std::invalid_argument("scaled fp8 GEMM: the unit must read fp8 and accumulate in fp32");
  if (layout.block_k == 0 || layout.block_n == 0 || layout.block_k % row.k != 0)
    throw std::invalid_argument("scaled fp8 GEMM: block_k = " + std::to_string(layout.block_k) +
                                " is not a positive multiple of the instruction k = " + std::to_string(row.k) +
                                " of " + row.instr + (layout.block_n == 0 ? ", or block_n = 0" : ""));
  if (m == 0 || n == 0) return;
  const std::size_t kb = (k + layout.block_k - 1) / layout.block_k, nbk = (n + layout.block_n - 1) / layout.block_n;
  const int threads = thread_count(spec.threads);
  const std::size_t nb = std::min<std::size_t>(n, std::max<std::size_t>(16, (std::size_t{32} << 20) / (8 * m)));
  std::vector<float> main(m * nb), piece(m * nb);
  const MainEpilogue epi{row, 1.0, 0.0, false, Fmt::fp32, D, ldd, threads};
  const kernels::KernelPlan plan = plan_of(spec);  // once per call, for every piece
  for (std::size_t j0 = 0; j0 < n; j0 += nb) {
    const Block blk{m, j0, std::min(nb, n - j0), threads};
    fill_zero(blk, main.data());
    for (std::size_t q = 0; q < kb; ++q) {
      const std::size_t k0 = q * layout.block_k;
      unit_piece(spec, plan, blk, {k0, std::min(layout.block_k, k - k0)}, A, B, Fmt::fp32, piece.data());
      parallel_for(threads, m, Assign::blocks, [&](std::size_t i) {  // binary32 RNE
        const float a_scale = sa[i * kb + q];
        for (std::size_t w = 0; w < blk.nc; ++w) {
          const float s = a_scale * sb[q * nbk + (j0 + w) / layout.block_n];
          main[i * blk.nc + w] = std::fma(piece[i * blk.nc + w], s, main[i * blk.nc + w]);
        }
      });
    }
    store_main(epi, blk, main.data());
  }
}

void quantize_fp8_blocks(Fmt f, std::size_t rows, std::size_t cols, const float* X, std::ptrdiff_t ldx,
                         std::size_t block_rows, std::size_t block_cols, uint8_t* Q, std::ptrdiff_t ldq,
                         float* scales) {
  if (f != Fmt::e4m3 && f != Fmt::e5m2) throw std::invalid_argument("fp8 quantisation: the format must be e4m3 or e5m2");
  if (block_rows == 0 || block_cols == 0) throw std::invalid_argument("fp8 quantisation: zero block size");
  kernels::FpEnvGuard env;
  const float fmax = std::bit_cast<float>(static_cast<uint32_t>(to_fp32_bits(f, max_finite_bits(f, false))));
  const std::size_t bcols = (cols + block_cols - 1) / block_cols;
  auto x_at = [&](std::size_t i, std::size_t j) { return X[static_cast<std::ptrdiff_t>(i) * ldx + static_cast<std::ptrdiff_t>(j)]; };
  for (std::size_t r0 = 0; r0 < rows; r0 += block_rows)
    for (std::size_t c0 = 0; c0 < cols; c0 += block_cols) {
      const std::size_t r1 = std::min(rows, r0 + block_rows), c1 = std::min(cols, c0 + block_cols);
      float amax = 0;
      for (std::size_t i = r0; i < r1; ++i)
        for (std::size_t j = c0; j < c1; ++j) {
          if (!std::isfinite(x_at(i, j)))
            throw std::invalid_argument("fp8 quantisation: element (" + std::to_string(i) + ", " + std::to_string(j) +
                                        ") is NaN or Inf");
          amax = std::max(amax, std::fabs(x_at(i, j)));
        }
      float scale = amax == 0 ? 1.0f : std::max(amax / fmax, std::numeric_limits<float>::denorm_min());
      scales[(r0 / block_rows) * bcols + c0 / block_cols] = scale;
      for (std::size_t i = r0; i < r1; ++i)
        for (std::size_t j = c0; j < c1; ++j)
          Q[static_cast<std::ptrdiff_t>(i) * ldq + static_cast<std::ptrdiff_t>(j)] = static_cast<uint8_t>(
              convert(Fmt::fp32, f, std::bit_cast<uint32_t>(x_at(i, j) / scale), Round::rne, Overflow::saturate));
    }
}

}  // namespace mmaemu::driver
