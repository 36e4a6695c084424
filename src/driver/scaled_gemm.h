// SPDX-License-Identifier: BSD-3-Clause
// The fast engine of the block-scaled GEMM (docs/block-scaled.md §4 and
// "Speed"): ref::scaled_gemm's bits, with codes and scales decoded once per
// panel, threads over M x N (never along k: the chain order is the
// model's), the SIMD kernels of kernels/scaled_simd.h, and the reference
// for the steps with NaN/Inf elements or NaN scales and for the units
// scaled_plan() leaves out.
#pragma once

#include "ref/block_scaled.h"

namespace mmaemu::driver {

struct ScaledOptions {
  int threads = 0;             // 0: MMA_NUM_THREADS, OMP_NUM_THREADS, all cores (thread_count)
  bool use_reference = false;  // every step on the reference (tests)
};

/// ref::scaled_gemm(g), bit for bit; the same arguments and errors.
void scaled_gemm(const ref::ScaledGemm& g, ScaledOptions options = {});

}  // namespace mmaemu::driver
