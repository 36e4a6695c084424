// SPDX-License-Identifier: BSD-3-Clause
// Per-element conversions the GEMM driver makes while packing and storing,
// with the frequent cases done without the generic decode. Each returns
// exactly what convert() (or one round_pack()) returns.
#pragma once

#include <algorithm>
#include <cstdint>

#include "formats/fast_round.h"
#include "formats/format.h"

namespace mmaemu {

/// convert(from, to, bits, RNE) for exact widenings and identities: the
/// identity and fp16 -> fp32 without decoding.
/// convert_input(from, to, bits, r, ov) = convert(from, to, bits, r, ov):
/// the storage -> unit-input conversion of one element; fp32 ->
/// tf32/fp16/bf16 with RNE/RNA (and tf32 with RZ) without the generic decode.
inline uint64_t convert_fast(Fmt from, Fmt to, uint64_t bits) {
  if (from == to && !is_nan(from, bits)) return bits;
  if (from == Fmt::fp16 && to == Fmt::fp32 && (bits & 0x7C00u) != 0x7C00u) return fp16_to_fp32(static_cast<uint32_t>(bits));
  return convert(from, to, bits, Round::rne);
}

inline uint64_t convert_input(Fmt from, Fmt to, uint64_t bits, Round r, Overflow ov) {
  if (from == to) return bits;
  const uint32_t b = static_cast<uint32_t>(bits);
  const uint32_t bexp = (b >> 23) & 255;
  if (from != Fmt::fp32 || bexp == 255 || ov == Overflow::saturate) return convert(from, to, bits, r, ov);
  const bool neg = b >> 31;
  const uint64_t sig = (b & 0x7FFFFFu) | (bexp ? 1u << 23 : 0u);
  const int exp = static_cast<int>(std::max(bexp, 1u)) - 127 - 23;
  if (sig == 0) return convert(from, to, bits, r, ov);  // signed zero
  switch (to) {
    case Fmt::tf32:  // fp32 layout, 10 fraction bits; no overflow possible for RZ
      if (r == Round::rz) return b & 0xFFFFE000u;
      if (r == Round::rne || r == Round::rna) return round_fp32(neg, sig, exp, r, 10);
      break;
    case Fmt::fp16:  // RNE/RNA overflow is Inf, as Overflow::inf gives
      if (r == Round::rne || r == Round::rna) return round_fp16(neg, sig, exp, r);
      break;
    case Fmt::bf16:
      if (r == Round::rne || r == Round::rna) return round_binary<7, 127, 15>(neg, sig, exp, r, 7);
      break;
    default: break;
  }
  return convert(from, to, bits, r, ov);
}


/// x (format f) times the double s, rounded once to `out` with RNE (NaN:
/// the default NaN of `out`).
uint64_t scale_round(double s, Fmt f, uint64_t x, Fmt out);

}  // namespace mmaemu
