// SPDX-License-Identifier: BSD-3-Clause
// An exact fixed-point (Kulisch) accumulator wide enough for any sum of
// binary64 products: the reference engine's oracle for exact additions.
#pragma once

#include <array>
#include <cstdint>

#include "formats/format.h"

namespace mmaemu::ref {

class WideAccumulator {
 public:
  // Bit 0 of limb 0 weighs 2^kLsbExp; the top limb holds the sign (two's
  // complement). Covers every binary64 product (2^-2148 .. 2^2048) plus carries.
  static constexpr int kLsbExp = -2240;
  static constexpr int kLimbs = 72;  // 4608 bits: up to 2^2367

  /// Adds (-1)^neg * sig * 2^exp exactly. Precondition: exp >= kLsbExp.
  void add(bool neg, uint64_t sig, int exp);
  /// The same for a 128-bit significand (binary64 products).
  void add(bool neg, unsigned __int128 sig, int exp) {
    add(neg, static_cast<uint64_t>(sig), exp);
    add(neg, static_cast<uint64_t>(sig >> 64), exp + 64);
  }

  bool is_zero() const;
  bool is_negative() const { return static_cast<int64_t>(limb_[kLimbs - 1]) < 0; }

  /// Rounds the exact sum to `f` (see round_pack). A zero sum gives
  /// zero_bits(f, zero_neg).
  uint64_t round(Fmt f, Round r, Overflow ov, bool zero_neg = false, int prec = -1) const;

 private:
  std::array<uint64_t, kLimbs> limb_{};
};

}  // namespace mmaemu::ref
