// SPDX-License-Identifier: BSD-3-Clause
// The macro-kernels: the loop nests around the kernels (BLIS's five loops
// around the micro-kernel), one per kernels::Macro, each registered as a unit
// kind (UnitKind, unit_kinds.cpp) that driver::gemm calls without a switch.
// Each owns its blocking constants (named at the top of its file), packs
// through pack.h and hands every finished row of accumulators to the
// Epilogue.
//
// Threads and blocking partition only M x N; the k order of every output
// element is the model's chain, so results never depend on them.
#pragma once

#include <cstddef>

#include "driver/acc_sink.h"
#include "driver/epilogue.h"
#include "driver/gemm.h"
#include "driver/scratch.h"
#include "kernels/plan.h"

namespace mmaemu::driver {

/// Few columns and long k (the multi-word experiment's 10 x 10 products of
/// k ~ 10^6): when a product of at most 32 rows has fewer lane groups (or
/// micro-panels) than threads, the macro-kernels split its rows over the
/// threads instead: tasks of ceil(m / threads) rows.
inline std::size_t rows_per_thread(std::size_t m, int threads) {
  const std::size_t t = static_cast<std::size_t>(threads);
  return (m + t - 1) / t;
}
/// Those products' k chunks (B packed by all threads, fewer barriers). Not
/// a power of two: a panel's vectors, kp elements apart, would then map to
/// the same few cache sets, 4 KiB apart.
inline constexpr std::size_t kKFewColumns = 1008;

/// What every macro-kernel is given: the product's shape, operands,
/// threads, epilogue and kernel plan.
struct MacroArgs {
  std::size_t m, n, k;
  const Operand& A;
  const Operand& B;
  int threads;
  const Epilogue& epilogue;
  const kernels::KernelPlan& plan;
};

/// One GEMM call of a block-FMA row as the macro-kernels see it.
struct GemmCall : MacroArgs {
  const GemmSpec& spec;
  const ModelRow& row;
  const RangeSink* sink = nullptr;  // steps macro-kernel only (acc_sink.h); null: the epilogue
};

/// FMA chains on register-blocked tiles (macro_chain.cpp).
void run_chain_macro(const GemmCall& g);
/// CDNA1 exact rows on the binary64 SIMD kernel (macro_exact.cpp).
void run_exact_macro(const GemmCall& g);
/// Every other row, step after step: SIMD, scalar or reference steps (the
/// steps loop nest, steps_nest.h, with the block-FMA plug-in of macro_steps.cpp).
void run_steps_macro(const GemmCall& g);

/// A block-scaled GEMM as its plug-in sees it: the unit in place of the
/// row, block-scaled operands (gemm.h, Operand).
struct ScaledCall : MacroArgs {
  const ScaledSpec& spec;
};

/// Block-scaled units: ref::scaled_chain's bits on the steps loop nest with
/// the block-scaled plug-in (scaled_kind.cpp).
void run_scaled_macro(const ScaledCall& g);
/// Throws std::invalid_argument for what run_scaled_macro cannot take (spec.scaled
/// set): a GemmSpec field it does not read set (row, input_round,
/// input_overflow), k not a multiple of the scale block, element formats the
/// unit does not take, C other than fp32.
void check_scaled(const GemmSpec& spec, std::size_t k, const Operand& A, const Operand& B, Fmt c_storage);

/// Integer units (accum = integer): ref::dot's bits on the steps loop nest
/// with the integer plug-in (integer_kind.cpp). Throws
/// std::invalid_argument for operand formats other than the row's (A:
/// row.in, B: row.in_b) and packed operands that are not int4.
void run_integer_macro(const GemmCall& g);

/// A unit kind as the driver sees it (docs/kernels.md, "Adding a unit
/// kind"): the loop nest that runs a GEMM on the plan's kernel. driver::gemm
/// calls `run` once per call, so the dispatch costs nothing per step.
struct UnitKind {
  kernels::Macro macro;  // the kind's id in KernelPlan::macro
  const char* name;   // "steps", "chain", "exact", "scaled", "integer"
  void (*run)(const MacroArgs& args, const GemmSpec& spec);
};

/// The registered kind of plan.macro (unit_kinds.cpp: one row per kernels::Macro).
const UnitKind& unit_kind(kernels::Macro macro);

}  // namespace mmaemu::driver
