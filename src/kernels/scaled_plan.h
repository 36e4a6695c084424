// SPDX-License-Identifier: BSD-3-Clause
// scaled_plan(unit, options): the one place that decides which engine runs
// a block-scaled or narrow-format unit's GEMM (docs/block-scaled.md,
// "Speed"): the SIMD kernels of kernels/scaled_simd.h for the units inside
// their envelope, the reference (ref/block_scaled.h) for the rest. Steps
// with NaN/Inf elements or NaN scales run on the reference whatever the
// plan says (the driver's special-value fallback, as docs/kernels.md).
#pragma once

#include "kernels/scaled_simd.h"
#include "models/scaled_units.h"

namespace mmaemu::fast {

enum class ScaledKernel : uint8_t {
  reference,  // ref::scaled_gemm
  st,         // simd_st_run16 (T-FDPA and ST-FDPA)
  gst,        // simd_gst_run16
};

struct ScaledPlan {
  ScaledKernel kernel = ScaledKernel::reference;
  ScaledSimdParams params{};
  const char* name = "reference";  // "simd" or "reference"
};

/// The plan for a GEMM with fp32 results on `unit`; use_reference: every
/// step on the reference (tests).
ScaledPlan scaled_plan(const ScaledUnit& unit, bool use_reference = false);

}  // namespace mmaemu::fast
