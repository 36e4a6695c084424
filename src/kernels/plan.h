// SPDX-License-Identifier: BSD-3-Clause
// plan(row, options): the one place that decides which kernel serves a row.
// The driver runs the macro-kernel the plan names; `mmaemu models` prints
// plan(row).name. The micro-kernel contract is docs/kernels.md.
//
// Per-row index (accumulation path -> reference function in ref/reference.cpp
// -> scalar kernel in kernels/scalar.cpp -> SIMD kernel -> macro-kernel). The
// steps macro-kernel's SIMD kernels share one prototype, StepKernel
// (kernels/simd.h): plan() puts the row's in KernelPlan::kernel.
//
//   path (rows)                     reference       scalar kernel   SIMD kernel (file)            macro
//   aligned, c early                aligned_step    aligned_step    simd_aligned_run16            steps
//     (NVIDIA fp32/fp16 results)                                      (aligned_simd.cpp)
//   aligned, pair_interleave,       aligned_step    aligned_step    simd_interleaved_run16        steps
//     c late RNE (HMMA fp8)                                           (aligned_simd.cpp)
//   aligned, c late round-down      aligned_step    aligned_step    simd_late_run16               steps
//     (CDNA3)                                                         (late_simd.cpp)
//   exact (CDNA1)                   exact_step      exact_step      simd_exact_run16              exact
//                                                                     (exact_simd.cpp)
//   pairwise (CDNA2)                pairwise_step   pairwise_step   simd_pairwise_run16           steps
//                                                                     (real_simd.cpp)
//   fma_chain, fp32 result (SFMA)   fma_step        fma_step        simd_chain_tile (real_simd)   chain
//   fma_chain, fp64 (DMMA, f64)     fma_step        fp64_chain      simd_chain_tile64 (real_simd) chain
//
// A row outside a SIMD kernel's envelope (some custom rows) runs the
// scalar kernel on every step (plan().why says which condition it misses); a row without a scalar kernel (fp32_rne
// products on the aligned/exact paths, steps over kMaxStep) runs the
// reference. Steps with NaN or Inf inputs always run the reference (the
// special-value fallback, docs/kernels.md); the driver does that.
//
// A block-scaled or narrow-format unit (models/scaled_units.h) runs the
// steps loop nest with the block-scaled plug-in (driver/scaled_kind.cpp):
// with fp32 results on the SIMD kernels of kernels/scaled_simd.h, in the one
// StepKernel prototype (T-FDPA and ST-FDPA: simd_st_run16; GST-FDPA:
// simd_gst_run16) inside their envelopes, on the reference
// (ref/block_scaled.h) otherwise (docs/block-scaled.md, "Speed").
// Steps with NaN/Inf elements or NaN scales run on the reference whatever
// the plan says.
//
// An integer unit (accum = integer, docs/models.md §11) runs the steps loop
// nest with the integer plug-in (driver/integer_kind.cpp, macro integer):
// on simd_integer_run16 (kernels/integer_simd.cpp) inside its envelope,
// on ref::step (ref/integer.h) otherwise.
#pragma once

#include <cstdint>

#include "kernels/scalar.h"
#include "kernels/scaled_simd.h"
#include "kernels/simd.h"
#include "models/model.h"
#include "models/scaled_units.h"

namespace mmaemu::kernels {

/// The loop nest (driver macro-kernel) a row runs on.
enum class Macro : uint8_t {
  steps,  // step after step per output element: SIMD (16 lanes), scalar or reference steps
  chain,  // register-blocked FMA-chain tiles (simd_chain_tile / simd_chain_tile64)
  exact,  // CDNA1 exact blocks in binary64 (simd_exact_run16)
  scaled,  // a block-scaled unit's GEMM: the steps nest with the block-scaled plug-in
  integer,  // an integer unit's GEMM: the steps nest with the integer plug-in
};

struct PlanOptions {
  bool use_reference = false;  // every step on the reference (tests)
  bool simd_off = false;       // scalar kernels only (tests)
};

struct KernelPlan {
  Macro macro = Macro::steps;
  /// steps: the scalar step kernel (none: the reference runs every step);
  /// exact: the scalar kernel for lanes the SIMD kernel cannot sum exactly.
  /// Data: kernels::scalar_step runs it.
  ScalarKernel step = ScalarKernel::none;
  /// steps, scaled: run the SIMD step kernel `kernel` (16 lanes);
  /// otherwise the scalar loop (scaled: the reference).
  bool simd = false;
  /// steps and scaled with simd: the step kernel (the one prototype,
  /// simd.h), called with simd_params; null otherwise.
  StepKernel kernel = nullptr;
  SimdParams simd_params{};
  /// steps with fp64 operands: the host binary64 FMA chain (fp64_chain).
  bool fp64 = false;
  /// "simd", "scalar", "fp64" (host binary64 FMAs) or "reference".
  const char* name = "reference";
  /// Why no SIMD kernel serves the row ("" when one does), e.g. "fp16
  /// result rounded other than RNE": what `mmaemu models` prints.
  const char* why = "";
};

KernelPlan plan(const ModelRow& row, PlanOptions options = {});
/// The plan for a GEMM with fp32 results on a block-scaled unit (macro
/// scaled; simd: a SIMD kernel serves it, else the reference runs every step).
KernelPlan plan(const ScaledUnit& unit, PlanOptions options = {});

/// plan(row).name: the fast path `mmaemu models` reports.
inline const char* kernel_name(const ModelRow& row) { return plan(row).name; }
/// plan(row).why: why the row runs no SIMD kernel ("" when it does).
inline const char* kernel_why(const ModelRow& row) { return plan(row).why; }

}  // namespace mmaemu::kernels
