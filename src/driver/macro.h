// SPDX-License-Identifier: BSD-3-Clause
// The macro-kernels: the loop nests around the kernels (BLIS's five loops
// around the micro-kernel), one per fast::Macro. Each owns its blocking
// constants (named at the top of its file), packs through pack.h and
// hands every finished row of accumulators to the Epilogue.
//
// Threads and blocking partition only M x N; the k order of every output
// element is the model's chain, so results never depend on them.
#pragma once

#include <cstddef>

#include "driver/epilogue.h"
#include "driver/gemm.h"
#include "kernels/plan.h"

namespace mmaemu::driver {

/// One GEMM call as the macro-kernels see it.
struct GemmCall {
  const GemmSpec& spec;
  const ModelRow& row;
  std::size_t m, n, k;
  const Operand& A;
  const Operand& B;
  int threads;
  const Epilogue& epilogue;
  const fast::KernelPlan& plan;
};

/// FMA chains on register-blocked tiles (macro_chain.cpp).
void run_chain_macro(const GemmCall& g);
/// CDNA1 exact rows on the binary64 SIMD kernel (macro_exact.cpp).
void run_exact_macro(const GemmCall& g);
/// Every other row, step after step: SIMD, scalar or reference steps (macro_steps.cpp).
void run_steps_macro(const GemmCall& g);

}  // namespace mmaemu::driver
