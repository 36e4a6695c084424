// SPDX-License-Identifier: BSD-3-Clause
// An exact fixed-point (Kulisch) accumulator wide enough for any sum of
// binary64 products: the engines' oracle for exact additions.
#pragma once

#include <array>
#include <cstdint>

#include "formats/format.h"

namespace mmaemu {

/// Two's complement fixed point, bit 0 of limb 0 weighing 2^kLsbExp. Only
/// the limbs [lo_, hi_] that additions have reached are stored; every limb
/// above hi_ equals ext_ (0, or all ones for a negative sum), every limb
/// below lo_ is 0. So the cost of an operation is that of the span of the
/// terms, not of the accumulator's full width.
class WideAccumulator {
 public:
  // Covers every binary64 product (2^-2148 .. 2^2048) plus carries.
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
  bool is_negative() const { return ext_ != 0; }

  /// floor(sum / 2^lsb_exp); the result must fit in an int64_t.
  int64_t floor_scaled(int lsb_exp) const;

  /// Rounds the exact sum to `f` (see round_pack). A zero sum gives
  /// zero_bits(f, zero_neg).
  uint64_t round(Fmt f, Round r, Overflow ov, bool zero_neg = false, int prec = -1) const;

 private:
  void cover(int lo, int hi);  // extends the stored window to [lo, hi]

  std::array<uint64_t, kLimbs> limb_;  // only [lo_, hi_] is meaningful
  int lo_ = kLimbs, hi_ = -1;
  uint64_t ext_ = 0;
};

}  // namespace mmaemu
