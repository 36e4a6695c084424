// SPDX-License-Identifier: BSD-3-Clause
// SIMD conversion and decode for packing (Highway, dispatched at run time):
// fp32 storage elements rounded to the unit's fp16, bf16 or tf32 input and
// decoded into the steps kernels' operand fields, the work the driver's
// scalar packing does element by element (docs/kernels.md, "pack
// schemas"). Only normal results and zeros are decoded here; an element
// that is NaN in storage or whose unit value is subnormal, infinite or NaN
// is listed for the caller to pack by the scalar path.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mmaemu::kernels {

/// The storage -> unit conversion (fp32 storage). fp8_table: fp32 -> an
/// fp8 format by its conversion table (formats/narrow_table.h, every
/// rounding and overflow policy), decoded by the row's table of codes.
enum class PackConv : uint8_t { fp16_rne, bf16_rne, tf32_rne, tf32_rz, fp8_table };

/// The decoding of a row's operands (kernels/scalar.h, pack_element()).
/// A normal unit value x = (-1)^s 1.f 2^e with man fraction bits gives:
///   integer operands: sig = +-(1.f * 2^man), exp = e, fsig = sig, fval = x;
///   real operands:    sig = the fp32 bits of x, exp = 0, fsig = 0, fval = x.
/// Zeros take the caller's decoded +0 and -0 (row facts decide them).
struct PackDecode {
  PackConv conv;
  bool real;  // (fp16 and bf16 units only)
  int32_t zero_sig[2], zero_exp[2];  // [0]: +0, [1]: -0
  float zero_fsig[2], zero_fval[2];
  // fp8_table only: the conversion table (fp32_narrow_table(), readable 3
  // bytes past its last entry), per code its decoded fields as 4 words
  // (sig, exp, fsig and fval as fp32 bits: driver::Decoded) and a nonzero
  // word where the code is NaN or Inf. Every field of every element comes
  // from these; the NaN/Inf elements are listed (for the caller's flags).
  const uint8_t* narrow = nullptr;
  const int32_t* decoded = nullptr;
  const int32_t* nonfinite = nullptr;
};

/// Destinations of pack_convert(): element i of row r goes to
/// bits/sig[r'*bs + i] and exp/fsig/fval[r'*ls + i], r' = row_at[r] (r when
/// row_at is null); fsig and fval may be null (not written).
struct PackDest {
  uint64_t* bits;
  int32_t* sig;
  std::size_t bs;
  int32_t* exp;
  float* fsig;
  float* fval;
  std::size_t ls;
  const std::size_t* row_at = nullptr;
};

/// Converts and decodes `rows` rows of n fp32 patterns, row r at
/// src[r*src_stride .. + n). Elements outside the envelope above are
/// written with unspecified fields and their indices r*n + i listed in
/// odd[] (room for rows*n); returns how many. Needs the host in
/// round-to-nearest without FTZ/DAZ (kernels/fp_env.h), as the scalar
/// conversion does.
std::size_t pack_convert(const PackDecode& p, const uint32_t* src, std::size_t src_stride, std::size_t rows,
                         std::size_t n, const PackDest& dst, std::size_t* odd);

}  // namespace mmaemu::kernels
