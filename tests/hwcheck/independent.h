// SPDX-License-Identifier: BSD-3-Clause
// Bit-level facts about the input formats written out independently of
// tools/hwcheck/formats.cpp (frexp/ldexp arithmetic, own constants), so the
// tests do not check the generator with its own code.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "formats.h"

namespace hwtest {

struct Facts {
  int p;          // precision incl. the hidden bit
  int emin;       // smallest normal exponent
  double max;     // largest finite value
  bool has_inf;
};

inline Facts facts(mmaemu::hwcheck::InFmt f) {
  using mmaemu::hwcheck::InFmt;
  switch (f) {
    case InFmt::fp16: return {11, -14, 65504.0, true};
    case InFmt::bf16: return {8, -126, std::ldexp(255.0, 120), true};
    case InFmt::tf32: return {11, -126, std::ldexp(2047.0, 117), true};
    case InFmt::e4m3: return {4, -6, 448.0, false};
    case InFmt::e5m2: return {3, -14, 57344.0, true};
  }
  return {0, 0, 0, false};
}

inline float val(uint32_t bits) { return std::bit_cast<float>(bits); }

/// Is the fp32 value with these bits exactly a value of format f?
inline bool representable(mmaemu::hwcheck::InFmt f, uint32_t bits) {
  const Facts x = facts(f);
  const double v = val(bits);
  if (std::isnan(v)) return true;  // every format has a NaN
  if (std::isinf(v)) return x.has_inf;
  if (v == 0) return true;
  const double m = std::fabs(v);
  if (m > x.max) return false;
  int e2;
  std::frexp(m, &e2);  // m = fr * 2^e2, fr in [0.5, 1)
  const int e = e2 - 1;  // m in [2^e, 2^(e+1))
  const int q = std::max(e, x.emin) - (x.p - 1);  // quantum exponent
  const double scaled = std::ldexp(m, -q);
  return scaled == std::floor(scaled);
}

/// Binade of a finite non-zero value: m in [2^e, 2^(e+1)).
inline int binade(uint32_t bits) {
  int e2;
  std::frexp(std::fabs(static_cast<double>(val(bits))), &e2);
  return e2 - 1;
}

}  // namespace hwtest
