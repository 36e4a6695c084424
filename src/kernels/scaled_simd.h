// SPDX-License-Identifier: BSD-3-Clause
// The SIMD step kernels of the block-scaled units (Highway, dispatched at
// run time): T-FDPA / ST-FDPA and GST-FDPA (docs/block-scaled.md §3) for 16
// output columns at a time, each lane one output element, whose inputs hold
// no NaN or Inf element and no NaN scale (the driver sends those steps to
// the reference). c may be anything: a NaN c gives the unit's NaN, an
// infinite c passes through. Which units they serve is plan()'s decision
// (kernels/plan.h); the numerics are in scaled_simd.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/simd.h"

namespace mmaemu::kernels {

inline constexpr std::size_t kScaledLanes = 16;

/// The alignment exponent of a zero element and of a zero scale: so far
/// below every e_zero that such a product or group never sets E.
inline constexpr int32_t kScaledZeroExp = -4096;

/// The T/ST kernel (SimdKind::st) in the one step-kernel prototype
/// (simd.h): run.steps instructions of run.step elements (even, <= 32; the
/// last zero-padded, run.last_len unused), p.frac <= 25, p.floor the
/// unit's e_zero, p.rz (else RNE). A's row: val[l] the element's value,
/// exp16[l] its alignment exponent (docs/block-scaled.md §1.3; zero:
/// kScaledZeroExp), scale_exp[s] the scale's exponent per step (T: 0); B's
/// 16 columns lane-interleaved (LanePanel). One A row (a.rows = 1, else
/// std::invalid_argument); does every step.
int simd_st_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc);

/// The GST kernel (SimdKind::gst): run.step a multiple of 16, <= 64;
/// p.block a multiple of 16 dividing it; p.frac <= 40. A's row: val[l] =
/// 2 * the e2m1 value (an integer), nz[s*G + g] bit i set when element i
/// of group g of step s is nonzero (G = run.step/16 groups), scale[t] and
/// scale_exp[t] the value and alignment exponent of block t's scale (zero
/// scale: 0, kScaledZeroExp); B lane-interleaved. acc as simd_st_run16.
int simd_gst_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc);

}  // namespace mmaemu::kernels
