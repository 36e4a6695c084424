// SPDX-License-Identifier: BSD-3-Clause
// The envelopes of the block-scaled SIMD kernels (the bounds their exact
// arithmetic rests on, kernels/scaled_simd.cpp).
#include "kernels/scaled_plan.h"

namespace mmaemu::fast {
namespace {

// The kernels take e_zero as an unconditional floor of E. That equals the
// fused sum's rule (zero terms lift E to e_zero, nonzero ones to their own
// exponent) only while e_zero <= -126: c is always a term, a nonzero fp32 c
// has e >= -126 and c = 0 is a zero term, so E >= e_zero either way
// (docs/block-scaled.md §3.1, the simplification). A custom bs_e_zero above
// -126 runs on the reference. The lower bound keeps 2^(E - F), 2^(F - E) in
// binary64's normal range and a zero element or scale (kScaledZeroExp)
// under the floor.
bool exponents_ok(const ScaledUnit& u) { return u.e_zero >= -300 && u.e_zero <= -126; }

bool rounding_ok(const ScaledUnit& u) { return u.round32 == Round::rz || u.round32 == Round::rne; }

// T/ST: t_i < 2^(F+2) <= 2^27, so 16 terms sum below 2^31 in each of the
// two int32 halves (k <= 32, even); ST reads one scale per instruction.
bool st_envelope(const ScaledUnit& u) {
  if (u.algo == ScaledAlgo::gst_fdpa || u.group != 0) return false;
  if (u.algo == ScaledAlgo::st_fdpa && u.block != u.k) return false;
  if (u.algo == ScaledAlgo::t_fdpa && u.block != 0) return false;
  return u.k > 0 && u.k <= 32 && u.k % 2 == 0 && u.F >= 0 && u.F <= 25;
}

// GST: groups of 16 (|Q| <= 2304, exact in fp32), at most 4 per
// instruction, S < 2^(F+13) <= 2^53.
bool gst_envelope(const ScaledUnit& u) {
  if (u.algo != ScaledAlgo::gst_fdpa || u.group != 16) return false;
  return u.k > 0 && u.k <= 64 && u.k % 16 == 0 && u.block > 0 && u.block % 16 == 0 && u.k % u.block == 0 &&
         u.F >= 0 && u.F <= 40;
}

}  // namespace

ScaledPlan scaled_plan(const ScaledUnit& u, bool use_reference) {
  ScaledPlan plan;
  if (use_reference || !exponents_ok(u) || !rounding_ok(u)) return plan;
  const bool st = st_envelope(u), gst = gst_envelope(u);
  if (!st && !gst) return plan;
  plan.kernel = st ? ScaledKernel::st : ScaledKernel::gst;
  plan.params = {u.F, u.e_zero, u.k, u.block, u.round32 == Round::rne};
  plan.name = "simd";
  return plan;
}

}  // namespace mmaemu::fast
