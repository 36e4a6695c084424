// SPDX-License-Identifier: BSD-3-Clause
// Random operands of the block-scaled units for the engine tests
// (tests/driver): element codes, scale codes and fp32 accumulators, with
// a mix of specials, zeros, narrow exponents and extreme scales.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "formats/format.h"

namespace mmaemu::test {

inline constexpr Fmt kElements[] = {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1};

// How a trial draws its codes.
enum class Mix { any, finite, narrow, extreme };

struct Draw {
  std::mt19937_64 rng;
  Mix mix;

  uint8_t element(Fmt f) {
    const FormatInfo& fi = info(f);
    const uint8_t all = static_cast<uint8_t>((1u << fi.width) - 1);
    for (;;) {
      const uint64_t r = rng();
      uint8_t c = static_cast<uint8_t>(r & all);
      if (r % 100 < 12) c = static_cast<uint8_t>(r >> 40 & 1 ? 1u << (fi.width - 1) : 0);  // +-0
      if (mix == Mix::narrow) {  // the exponent within two binades of the middle: cancellation
        const unsigned e = (1u << (fi.exp_bits - 1)) - 1 + static_cast<unsigned>(r >> 20) % 3;
        c = static_cast<uint8_t>((c & ~(((1u << fi.exp_bits) - 1) << fi.man_bits)) | e << fi.man_bits);
      }
      const Class cls = decode(f, c).cls;
      if (mix == Mix::any || (cls != Class::nan && cls != Class::inf)) return c;
    }
  }

  uint8_t scale(Fmt f) {
    const uint64_t r = rng();
    const int pick = static_cast<int>(r % 100);
    if (mix == Mix::any && pick < 3) return f == Fmt::ue8m0 ? 0xFF : (r >> 8 & 1 ? 0xFF : 0x7F);  // NaN
    if (f == Fmt::ue8m0) {
      if (mix == Mix::extreme || pick < 8) {
        const uint8_t ends[] = {0x00, 0x01, 0x14, 0x54, 0xB3, 0xB4, 0xE3, 0xFD, 0xFE};
        return ends[(r >> 16) % 9];
      }
      return static_cast<uint8_t>(127 - 4 + (r >> 16) % 9);
    }
    if (mix == Mix::extreme || pick < 10) {  // zero, subnormals, the top, the sign bit
      const uint8_t ends[] = {0x00, 0x80, 0x01, 0x07, 0x08, 0x7E, 0xFE, 0xB8, 0x09};
      return ends[(r >> 16) % 9];
    }
    return static_cast<uint8_t>(0x30 + (r >> 16) % 0x10);
  }

  float c_value() {
    const uint64_t r = rng();
    const int pick = static_cast<int>(r % 100);
    if (mix == Mix::any && pick < 4) {
      const float sp[] = {NAN, INFINITY, -INFINITY, 0x1p127f};
      return sp[(r >> 8) % 4];
    }
    if (pick < 15) return r >> 8 & 1 ? -0.0f : 0.0f;
    if (pick < 20) return std::bit_cast<float>(static_cast<uint32_t>(r >> 12) & 0x807FFFFFu);  // subnormal
    return std::ldexp(static_cast<float>(static_cast<int64_t>(r >> 40) - (1 << 23)), static_cast<int>((r >> 8) % 40) - 40);
  }
};

}  // namespace mmaemu::test
