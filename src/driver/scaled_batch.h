// SPDX-License-Identifier: BSD-3-Clause
// Batched instructions of the block-scaled and narrow-format units
// (docs/batch.md): a stack of independent tiles, or of dot products along
// any k, on the SIMD kernels of kernels/scaled_simd.h with product panels
// (as driver/batch.h does for the block-FMA units), each output element
// exactly ref::scaled_chain of its operands.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/format.h"
#include "models/scaled_units.h"

namespace mmaemu::driver {

/// `count` tiles of m x n outputs, k deep, of `unit`: A_t m x k element
/// codes (one per byte), SA_t m x k/block scale codes, B_t k x n, SB_t
/// k/block x n, C_t and D_t m x n values of `out` (float, or uint16_t fp16
/// bits), row-major and contiguous, tile t at t times each operand's size.
/// Dot products are tiles with m = n = 1 (A and B then count x k). k a
/// multiple of the block (any k without scales); the last instruction is
/// padded with zero elements and neutral scales. C and D may alias.
struct ScaledBatch {
  const ScaledUnit* unit = nullptr;
  Fmt fa = Fmt::e4m3, fb = Fmt::e4m3, out = Fmt::fp32;
  std::size_t count = 0, m = 1, n = 1, k = 0;
  const uint8_t* A = nullptr;
  const uint8_t* SA = nullptr;
  const uint8_t* B = nullptr;
  const uint8_t* SB = nullptr;
  const void* C = nullptr;
  void* D = nullptr;
};

/// Every output element: ref::scaled_chain(unit, out, fa, fb, k, a, sa, b,
/// sb, c), bit for bit. threads as the GEMM; use_reference: every element
/// on the reference (tests).
void run_scaled_batch(const ScaledBatch& b, int threads = 0, bool use_reference = false);

}  // namespace mmaemu::driver
