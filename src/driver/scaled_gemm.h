// SPDX-License-Identifier: BSD-3-Clause
// The fast engine of the block-scaled GEMM (docs/block-scaled.md §4 and
// "Speed"): ref::scaled_gemm's bits, with codes and scales decoded once per
// panel, threads over M x N (never along k: the chain order is the
// model's), the SIMD kernels of kernels/scaled_simd.h, and the reference
// for the steps with NaN/Inf elements or NaN scales and for the units
// plan() leaves out.
#pragma once

#include <cstddef>

#include "driver/scaled_source.h"
#include "ref/block_scaled.h"

namespace mmaemu::driver {

struct ScaledOptions {
  int threads = 0;             // 0: MMA_NUM_THREADS, OMP_NUM_THREADS, all cores (thread_count)
  bool use_reference = false;  // every step on the reference (tests)
  std::size_t block_bytes = 0;  // of B's columns read and packed at a time; 0: 24 MiB (tests: smaller)
  std::size_t work_per_thread = 0;  // multiply-adds per thread (work_threads), 0: kWorkPerThread (tests: 1)
};

/// ref::scaled_gemm(g), bit for bit; the same arguments and errors.
void scaled_gemm(const ref::ScaledGemm& g, ScaledOptions options = {});

/// The same with op(A) and op(B) read through a and b, a few lines at a
/// time (g.A, g.SA, g.B, g.SB unused): memory beyond the operands and C is
/// a block of B's columns (options.block_bytes) and kRowsPerTask rows of A
/// per thread, whatever the shape.
void scaled_gemm(const ref::ScaledGemm& g, const ScaledSource& a, const ScaledSource& b,
                 ScaledOptions options = {});

}  // namespace mmaemu::driver
