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

namespace mmaemu::kernels {

inline constexpr std::size_t kScaledLanes = 16;

/// The alignment exponent of a zero element and of a zero scale: so far
/// below every e_zero that such a product or group never sets E.
inline constexpr int32_t kScaledZeroExp = -4096;

/// One unit's parameters (ScaledUnit, fp32 result).
struct ScaledSimdParams {
  int32_t frac;    // F: fraction bits of the alignment window
  int32_t e_zero;  // alignment exponent of a zero term (a floor of E)
  int32_t k;       // elements per instruction
  int32_t block;   // GST: elements per scale
  bool rne;        // final rounding RNE (else RZ)
};

/// T/ST, A's row from the run's first element: val[l] the element's value,
/// exp[l] its alignment exponent (docs/block-scaled.md §1.3; zero:
/// kScaledZeroExp), scale_exp[s] the scale's exponent per step (T: 0).
struct StRowPanel {
  const float* val;
  const int16_t* exp;
  const int32_t* scale_exp;
};
/// T/ST, B's 16 columns, lane-interleaved: element l of lane j at
/// val[l*16 + j]; exponents in pairs, element l of lane j at
/// exp[(l/2)*32 + 2j + l%2] (one int32 lane holds a pair); the scale
/// exponent of step s at scale_exp[s*16 + j].
struct StLanePanel {
  const float* val;
  const int16_t* exp;
  const int32_t* scale_exp;
};

/// `steps` consecutive instructions of p.k elements (p.k even, <= 32,
/// p.frac <= 25). acc: c in, d out (fp32 bits).
void simd_st_run16(const ScaledSimdParams& p, int steps, StRowPanel a, StLanePanel b, uint32_t* acc);

/// GST, A's row from the run's first element: val2[l] = 2 * the e2m1 value
/// (an integer), nz[s*G + g] bit i set when element i of group g of step s
/// is nonzero (G = k/16 groups), scale[t] and scale_exp[t] the value and
/// alignment exponent of block t's scale (zero scale: 0, kScaledZeroExp).
struct GstRowPanel {
  const float* val2;
  const uint32_t* nz;
  const double* scale;
  const int32_t* scale_exp;
};
/// GST, B's 16 columns lane-interleaved: val2[l*16 + j],
/// nz[(s*G + g)*16 + j], scale[t*16 + j], scale_exp[t*16 + j].
struct GstLanePanel {
  const float* val2;
  const uint32_t* nz;
  const double* scale;
  const int32_t* scale_exp;
};

/// `steps` consecutive instructions (p.k a multiple of 16, <= 64; p.block
/// a multiple of 16 dividing p.k; p.frac <= 40). acc as simd_st_run16.
void simd_gst_run16(const ScaledSimdParams& p, int steps, GstRowPanel a, GstLanePanel b, uint32_t* acc);

}  // namespace mmaemu::kernels
