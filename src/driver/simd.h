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

/// Which SIMD kernel serves a row.
enum class SimdKind : uint8_t { aligned, late, fma_chain, pairwise };

struct SimdParams {
  SimdKind kind;
  int32_t F;          // alignment window fraction bits
  int32_t man2;       // fraction bits of a product's significand (2 * man)
  int32_t floor;      // alignment exponent floor
  bool rz;            // RZ (else RNE)
  int32_t frac_mask;  // clears result bits beyond out_frac_bits
  int32_t pair_group;    // pairwise: products per tree
  bool keep_sign;        // pairwise: FTZ of products and c keeps the sign
  bool out_subnormals;   // pairwise: false = FTZ
  int32_t nan32;         // the unit's NaN
  bool odd_even;         // late: CDNA3 fp8 odd/even groups
  bool exact_zero_c;     // late: ModelRow::late_exact_zero_c
  int32_t cutoff;        // late: c dropped more than this many binades below (-1: never)
};

/// Parameters of the SIMD kernel for `row`, or false if the row has none
/// (the driver then runs the scalar kernel).
bool simd_params(const ModelRow& row, SimdParams& p);

/// `steps` consecutive blocks (of `step` elements, the last of `last_len`)
/// of the aligned, c-early, fp32-result path for 16 lanes, none of whose
/// inputs is NaN or Inf. av/af/ae: A's row at the first block's first k
/// (value as float, integer significand as float, decomposition exponent);
/// bv/bf/be: the same of B's lane-interleaved panel; acc: c in, d out (fp32
/// bits; a NaN or Inf c is handled).
void simd_aligned_run16(const SimdParams& p, int steps, int step, int last_len, const float* av, const float* af,
                        const int32_t* ae, const float* bv, const float* bf, const int32_t* be, uint32_t* acc);

/// The CDNA3 late-c path (two-stage round-down, contiguous or odd/even groups), layout
/// as simd_aligned_run16. Returns the number of blocks done: fewer than
/// `steps` when a block's products may reach 2^128 (acc then holds the state
/// before it, and the caller runs it on the scalar kernel).
int simd_late_run16(const SimdParams& p, int steps, int step, int last_len, const float* av, const float* af,
                    const int32_t* ae, const float* bv, const float* bf, const int32_t* be, uint32_t* acc);

/// fp32 FMA chain for 16 lanes: acc[j] = fma(av[l], bv[l*16 + j], acc[j]),
/// l = 0..len-1 (values as floats, B lane-interleaved).
void simd_fma_chain16(int len, const float* av, const float* bv, float* acc);

/// CDNA2 pairwise steps for 16 lanes (layout as simd_aligned_run16); af/bf
/// flag flushed (subnormal) operands, whose products are +0. IEEE
/// arithmetic: NaN and Inf need no special care (NaN bits are the host's).
void simd_pairwise_run16(const SimdParams& p, int steps, int step, int last_len, const float* av, const int32_t* af,
                         const float* bv, const int32_t* bf, float* acc);

/// The instruction set the dispatcher chose ("AVX3", "AVX2", ...).
const char* simd_target_name();

}  // namespace mmaemu::fast
