// SPDX-License-Identifier: BSD-3-Clause
// Exact remainders by a small fixed divisor without a division: Lemire,
// Kaser & Kurz, "Faster remainder by direct computation" (Softw. Pract.
// Exper. 2019), Theorem 1 with N = 32, F = 64: for a divisor 0 < d < 2^32,
// c = ceil(2^64 / d) and any 32-bit a, a mod d = ((c a mod 2^64) d) >> 64.
// The results are the same integers as `%`, so every caller's bits are those
// of the plain division.
#pragma once

#include <cstdint>

namespace mmaemu::ozaki {

class FastMod {
 public:
  FastMod() = default;
  explicit FastMod(uint32_t d) : d_(d), c_(~uint64_t{0} / d + 1) {}
  /// a mod d for any 32-bit a.
  uint32_t operator()(uint32_t a) const {
    const uint64_t low = c_ * a;
    return static_cast<uint32_t>((static_cast<unsigned __int128>(low) * d_) >> 64);
  }
  /// a mod d for any a < 2^64: a = h 2^32 + l, (h mod d)(2^32 mod d) + l mod d < 2^32 for d < 2^16.
  uint32_t wide(uint64_t a) const {
    const uint32_t high = (*this)(static_cast<uint32_t>(a >> 32)), low = (*this)(static_cast<uint32_t>(a));
    return (*this)(high * (*this)(0xFFFFFFFFu) + high + low);  // 2^32 mod d = ((2^32 - 1) mod d + 1) mod d
  }
  uint32_t divisor() const { return d_; }

 private:
  uint32_t d_ = 1;
  uint64_t c_ = 0;
};

}  // namespace mmaemu::ozaki
