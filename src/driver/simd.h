// SPDX-License-Identifier: BSD-3-Clause
// The SIMD step kernels (Highway, dispatched at run time) and which rows
// they serve. A kernel computes one step for kSimdLanes output columns whose
// B operands are packed lane-interleaved: element l of lane j at l*16 + j.
#pragma once

#include <cstdint>

#include "driver/kernels.h"
#include "models/model.h"

namespace mmaemu::fast {

inline constexpr std::size_t kSimdLanes = 16;

struct SimdParams {
  int32_t F;          // alignment window fraction bits
  int32_t man2;       // fraction bits of a product's significand (2 * man)
  int32_t floor;      // alignment exponent floor
  bool rz;            // RZ (else RNE)
  int32_t frac_mask;  // clears result bits beyond out_frac_bits
};

/// Parameters of the SIMD kernel for `row`, or false if the row has none
/// (the driver then runs the scalar kernel).
bool simd_params(const ModelRow& row, SimdParams& p);

/// One block of the aligned, c-early, fp32-result path for 16 lanes.
/// av/af/ae: A's row at the block's first k (value as float, integer
/// significand as float, decomposition exponent); bv/bf/be: the same of B's
/// lane-interleaved panel; acc: c in, d out (fp32 bits). Lanes whose c is
/// Inf or NaN must be redone by the caller.
void simd_aligned_step16(const SimdParams& p, int len, const float* av, const float* af, const int32_t* ae,
                         const float* bv, const float* bf, const int32_t* be, uint32_t* acc);

/// The instruction set the dispatcher chose ("AVX3", "AVX2", ...).
const char* simd_target_name();

}  // namespace mmaemu::fast
