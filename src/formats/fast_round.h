// SPDX-License-Identifier: BSD-3-Clause
// Specialised, branch-light versions of round_pack() for the two accumulator
// formats (fp32, fp16) with Overflow::inf, and the fp32 -> fp16/bf16 RNE
// narrowing the packing routines use. They must return exactly what
// round_pack() / convert() return; tests/kernels checks it on every
// exponent, rounding mode and precision.
#pragma once

#include <bit>
#include <cstdint>

#include "formats/format.h"

namespace mmaemu {

/// Rounds (-1)^neg * mag * 2^exp (mag != 0, exact, no sticky) to a binary
/// format with `p` fraction bits kept (p <= man), exponent range
/// [emin, emax], stored with `man` fraction bits at bias `bias`,
/// sign bit at `sign_bit`. Overflow gives +-Inf. Same case table as
/// round_pack (src/formats/format.cpp).
template <int kMan, int kBias, int kSignBit>
inline uint32_t round_binary(bool neg, uint64_t mag, int exp, Round r, int p) {
  constexpr int emin = 1 - kBias;
  constexpr int emax = kBias;
  const uint32_t sign = neg ? (1u << kSignBit) : 0u;
  const uint32_t inf = sign | (((1u << (kSignBit - kMan)) - 1) << kMan);
  const int lead = 63 - std::countl_zero(mag);
  const int L = exp + lead;
  if (L > emax + 1) return inf;
  int q = (L < emin ? emin : L) - p;
  const int shift = q - exp;
  uint64_t kept;
  if (shift <= 0) {
    kept = mag << -shift;
  } else {
    kept = shift >= 64 ? 0 : mag >> shift;
    const uint64_t rest = shift >= 64 ? mag : mag & ((uint64_t{1} << shift) - 1);
    if (rest) {
      bool inc = false;
      switch (r) {
        case Round::rne: {
          const uint64_t half = shift > 64 ? 0 : uint64_t{1} << (shift - 1);
          inc = (rest & half) && ((rest & (half - 1)) || (kept & 1));
          break;
        }
        case Round::rna: inc = shift <= 64 && (rest >> (shift - 1)) & 1; break;
        case Round::rz: break;
        case Round::rd: inc = neg; break;
        case Round::ru: inc = !neg; break;
      }
      if (inc && ++kept >> (p + 1)) {
        kept >>= 1;
        ++q;
      }
    }
  }
  if (kept == 0) return sign;
  const bool normal = (kept >> p) != 0;
  const int E = q + p;
  if (normal && E > emax) return inf;
  const uint32_t biased = normal ? static_cast<uint32_t>(E + kBias) : 0u;
  return sign | (biased << kMan) | static_cast<uint32_t>((kept & ((uint64_t{1} << p) - 1)) << (kMan - p));
}

inline uint32_t round_fp32(bool neg, uint64_t mag, int exp, Round r, int p = 23) {
  return round_binary<23, 127, 31>(neg, mag, exp, r, p);
}
inline uint32_t round_fp16(bool neg, uint64_t mag, int exp, Round r, int p = 10) {
  return round_binary<10, 15, 15>(neg, mag, exp, r, p);
}

/// Rounds to the row's accumulator format (fp32 or fp16).
inline uint32_t round_out(Fmt out, bool neg, uint64_t mag, int exp, Round r, int p) {
  return out == Fmt::fp16 ? round_fp16(neg, mag, exp, r, p) : round_fp32(neg, mag, exp, r, p);
}

/// fp16 bits -> fp32 bits (exact).
inline uint32_t fp16_to_fp32(uint32_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 31, f = h & 0x3FFu;
  if (e == 31) return sign | 0x7F800000u | (f << 13);
  if (e != 0) return sign | ((e + 112) << 23) | (f << 13);
  if (f == 0) return sign;
  // Subnormal: f = 1.xxx * 2^b (b = its leading-one index), value 2^(b-24).
  const int lz = std::countl_zero(f) - 21;  // = 10 - b: brings the leading one to bit 10
  return sign | (static_cast<uint32_t>(113 - lz) << 23) | ((f << lz) & 0x3FFu) << 13;
}

/// fp32 -> fp16 and fp32 -> bf16 with RNE, overflow to Inf (what convert()
/// gives for those policies; NaN stays NaN, pattern aside). They need the
/// host in round-to-nearest without FTZ/DAZ (kernels/fp_env.h).
/// fp16: normal results by integer rounding of the shifted fp32 bits, the
/// subnormal range by one float addition that aligns the value at the fp16
/// subnormal grid 2^-24:
///
///   x + 2^-1  (exponent of 2^-1 fixes the ulp at 2^-24, RNE by the host)
///   bits(x + 2^-1) - bits(2^-1) = the fp16 subnormal's fraction
inline uint32_t f32_to_f16_rne(uint32_t f) {
  const uint32_t sign = (f >> 16) & 0x8000u;
  f &= 0x7FFFFFFFu;
  if (f >= (127u + 16u) << 23) return sign | (f > 0x7F800000u ? 0x7E00u : 0x7C00u);  // |x| >= 2^16, NaN
  if (f < (127u - 14u) << 23) {                                                       // below 2^-14
    const float magic = std::bit_cast<float>(((127u - 15u) + (23u - 10u) + 1u) << 23);  // 2^-1
    return sign | (std::bit_cast<uint32_t>(std::bit_cast<float>(f) + magic) - std::bit_cast<uint32_t>(magic));
  }
  const uint32_t odd = (f >> 13) & 1u;
  f += ((15u - 127u) << 23) + 0xFFFu + odd;  // rebias, round half to even
  return sign | (f >> 13);
}
inline uint32_t f32_to_bf16_rne(uint32_t f) {
  if ((f & 0x7FFFFFFFu) > 0x7F800000u) return (f >> 16) | 0x40u;  // NaN stays NaN
  return (f + 0x7FFFu + ((f >> 16) & 1u)) >> 16;
}

}  // namespace mmaemu
