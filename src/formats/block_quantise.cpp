// SPDX-License-Identifier: BSD-3-Clause
#include "formats/block_quantise.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

namespace mmaemu {
namespace {

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

bool block_finite(const float* v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

float block_amax(const float* v, std::size_t n) {
  float a = 0;
  for (std::size_t i = 0; i < n; ++i) a = std::max(a, std::fabs(v[i]));
  return a;
}

// Rounds the exact value (-1)^neg * num * 2^exp / den to `to` (RNE,
// saturating); num < 2^48, 0 < den < 2^16. The quotient keeps 64 - 48 = 16
// extra bits and the remainder becomes the sticky bit, so this is one
// correct rounding.
uint64_t round_quotient(Fmt to, bool neg, uint64_t num, int exp, uint64_t den) {
  const uint64_t wide = num << 16;
  return round_pack(to, neg, wide / den, exp - 16, wide % den != 0, Round::rne, Overflow::saturate);
}

// The positive finite codes of an element format in increasing value
// (code c has value value[c]: E<<m | M grows with the value), for RNE with
// saturation by search instead of the generic round_pack().
struct ElementCodes {
  double value[128];
  int top = 0;  // the largest finite positive code
  uint8_t sign = 0;
  int man = 0, bias = 0;
  double sub_scale = 0;  // 2^(man - 1 + bias): a subnormal value times it is its code
  explicit ElementCodes(Fmt f) {
    const FormatInfo& fi = info(f);
    sign = static_cast<uint8_t>(1u << (fi.width - 1));
    man = fi.man_bits;
    bias = fi.bias;
    sub_scale = std::ldexp(1.0, man - 1 + bias);
    for (int c = 0; c < sign; ++c) {
      const Unpacked u = decode(f, static_cast<uint64_t>(c));
      if (u.cls == Class::nan || u.cls == Class::inf) break;
      value[c] = u.cls == Class::zero ? 0.0 : std::ldexp(static_cast<double>(u.sig), u.exp);
      top = c;
    }
  }
};

const ElementCodes& element_codes(Fmt f) {
  static const ElementCodes e4m3(Fmt::e4m3), e5m2(Fmt::e5m2), e3m2(Fmt::e3m2), e2m3(Fmt::e2m3), e2m1(Fmt::e2m1);
  switch (f) {
    case Fmt::e4m3: return e4m3;
    case Fmt::e5m2: return e5m2;
    case Fmt::e3m2: return e3m2;
    case Fmt::e2m3: return e2m3;
    case Fmt::e2m1: return e2m1;
    default: throw std::invalid_argument(std::string(info(f).name) + " is not an MX/NVFP4 element format");
  }
}

}  // namespace

uint8_t encode_element(Fmt elem, bool neg, double num, double den) {
  // value[c] * den and the midpoints times den have at most 4 + 4 + 1
  // significant bits: every comparison below is exact.
  const ElementCodes& t = element_codes(elem);
  int lo = 0, hi = t.top;  // the largest c with value[c] * den <= num
  if (den == 1 && num > 0) {  // a guess from num's bits (truncation), kept only if it is that c
    const uint64_t b = std::bit_cast<uint64_t>(num);
    const int E = static_cast<int>(b >> 52) - 1023 + t.bias;
    const int64_t g = E >= 1 ? (int64_t{E} << t.man) | static_cast<int64_t>((b >> (52 - t.man)) & ((1u << t.man) - 1))
                             : static_cast<int64_t>(num * t.sub_scale);
    const int c = static_cast<int>(std::min<int64_t>(g, t.top));
    if (t.value[c] <= num && (c == t.top || num < t.value[c + 1])) lo = hi = c;
  }
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (t.value[mid] * den <= num) lo = mid;
    else hi = mid - 1;
  }
  if (lo < t.top) {
    const double half = (t.value[lo] + t.value[lo + 1]) * 0.5 * den;
    if (num > half || (num == half && (lo & 1))) ++lo;  // ties to the even code (even significand)
  }
  return static_cast<uint8_t>((neg ? t.sign : 0) | lo);
}

int mx_shared_exponent(Fmt elem, float amax) {
  return amax == 0 ? -127 : std::clamp(std::ilogb(amax) - info(elem).emax(), -127, 127);
}

uint8_t nvfp4_block_scale(float amax, float encode) {
  // scale = amax * encode / 6, rounded once.
  const Unpacked a = decode(Fmt::fp32, bits(amax)), s = decode(Fmt::fp32, bits(encode));
  return static_cast<uint8_t>(
      a.cls == Class::zero ? 0 : round_quotient(Fmt::ue4m3, false, a.sig * s.sig, a.exp + s.exp, 6));
}

int element_top_code(Fmt elem) { return element_codes(elem).top; }

void quantise_mx(Fmt elem, std::size_t block, const float* v, std::size_t n, uint8_t* codes,
                 uint8_t* scales) {
  for (std::size_t b0 = 0; b0 < n; b0 += block) {
    const std::size_t len = std::min(block, n - b0);
    if (!block_finite(v + b0, len)) {  // NaN shared exponent, codes 0
      scales[b0 / block] = 0xFF;
      std::fill(codes + b0, codes + b0 + len, 0);
      continue;
    }
    const int X = mx_shared_exponent(elem, block_amax(v + b0, len));
    scales[b0 / block] = static_cast<uint8_t>(X + 127);
    for (std::size_t i = b0; i < b0 + len; ++i)  // |v| / 2^X is exact in binary64: only the exponent moves
      codes[i] = encode_element(elem, std::signbit(v[i]), std::ldexp(std::fabs(static_cast<double>(v[i])), -X), 1.0);
  }
}

Nvfp4Global nvfp4_global_scale(const float* v, std::size_t n) {
  float amax = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(v[i])) amax = std::max(amax, std::fabs(v[i]));
  return nvfp4_global_of_amax(amax);
}

Nvfp4Global nvfp4_global_of_amax(float amax) {
  const float enc = amax == 0 ? 1.0f : std::min(448.0f * 6.0f / amax, FLT_MAX);  // one IEEE division
  return {enc, 1.0f / enc};
}

void quantise_nvfp4(const float* v, std::size_t n, float encode, uint8_t* codes, uint8_t* scales) {
  constexpr std::size_t kBlock = 16;
  for (std::size_t b0 = 0; b0 < n; b0 += kBlock) {
    const std::size_t len = std::min(kBlock, n - b0);
    if (!block_finite(v + b0, len)) {
      scales[b0 / kBlock] = 0x7F;  // ue4m3 NaN
      std::fill(codes + b0, codes + b0 + len, 0);
      continue;
    }
    const uint8_t sc = nvfp4_block_scale(block_amax(v + b0, len), encode);
    scales[b0 / kBlock] = sc;
    const Unpacked q = decode(Fmt::ue4m3, sc);
    const double scale = q.cls == Class::zero ? 0.0 : std::ldexp(static_cast<double>(q.sig), q.exp);
    for (std::size_t i = b0; i < b0 + len; ++i) {  // |v| * encode (exact in binary64) / scale, rounded once
      const bool neg = std::signbit(v[i]);
      codes[i] = scale == 0 ? static_cast<uint8_t>(zero_bits(Fmt::e2m1, neg))
                            : encode_element(Fmt::e2m1, neg, std::fabs(static_cast<double>(v[i])) * double{encode}, scale);
    }
  }
}

float mul3_rne32(float x, float y, float z) {
  const float v[3] = {x, y, z};
  bool neg = false, inf = false, zero = false;
  for (float f : v) {
    if (std::isnan(f)) return std::nanf("");
    neg ^= std::signbit(f);
    inf |= std::isinf(f);
    zero |= f == 0;
  }
  if (inf && zero) return std::nanf("");
  if (inf) return neg ? -INFINITY : INFINITY;
  if (zero) return neg ? -0.0f : 0.0f;
  unsigned __int128 mag = 1;
  int exp = 0;
  for (float f : v) {
    const Unpacked u = decode(Fmt::fp32, bits(f));
    mag *= u.sig;
    exp += u.exp;
  }
  // At most 72 bits: keep the top 64 and jam the rest into the sticky bit.
  bool sticky = false;
  while (mag >> 64) {
    sticky |= (mag & 1) != 0;
    mag >>= 1;
    ++exp;
  }
  return std::bit_cast<float>(static_cast<uint32_t>(
      round_pack(Fmt::fp32, neg, static_cast<uint64_t>(mag), exp, sticky, Round::rne, Overflow::ieee)));
}

void dequantise(Fmt elem, Fmt scale, std::size_t block, const uint8_t* codes, const uint8_t* scales,
                std::size_t n, float g, float* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const float e = std::bit_cast<float>(to_fp32_bits(elem, codes[i]));
    const float s = std::bit_cast<float>(to_fp32_bits(scale, scales[i / block]));
    out[i] = mul3_rne32(e, s, g);
  }
}

}  // namespace mmaemu
