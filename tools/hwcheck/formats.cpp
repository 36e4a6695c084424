// SPDX-License-Identifier: BSD-3-Clause
#include "formats.h"

#include <bit>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace mmaemu::hwcheck {

namespace {

constexpr InFmtInfo kInfo[] = {
    {InFmt::fp16, "fp16", 5, 10, -14, 15, true, 2, 0x477fe000u},   // 65504
    {InFmt::bf16, "bf16", 8, 7, -126, 127, true, 2, 0x7f7f0000u},
    {InFmt::tf32, "tf32", 8, 10, -126, 127, true, 4, 0x7f7fe000u},
    {InFmt::e4m3, "E4M3", 4, 3, -6, 8, false, 1, 0x43e00000u},     // 448
    {InFmt::e5m2, "E5M2", 5, 2, -14, 15, true, 1, 0x47600000u},    // 57344
};

// Generic decode of a (sign, exponent, fraction) code of a small format.
uint32_t decode_small(const InFmtInfo& in, uint32_t code) {
  const int e_bits = in.exp_bits, m_bits = in.man_bits;
  const bool neg = (code >> (e_bits + m_bits)) & 1u;
  const uint32_t e = (code >> m_bits) & ((1u << e_bits) - 1u);
  const uint32_t m = code & ((1u << m_bits) - 1u);
  const uint32_t sign = neg ? 0x80000000u : 0u;
  const uint32_t e_all = (1u << e_bits) - 1u;
  if (in.has_inf && e == e_all) return sign | (m == 0 ? kFp32Inf : kFp32QNaN);
  if (!in.has_inf && e == e_all && m == (1u << m_bits) - 1u) return sign | kFp32QNaN;
  const int bias = (1 << (e_bits - 1)) - 1;
  if (e == 0) return fp32_from_scaled(neg, m, 1 - bias - m_bits);
  return fp32_from_scaled(neg, (1u << m_bits) | m, static_cast<int>(e) - bias - m_bits);
}

uint32_t canonical_nan(InFmt f, bool neg) {
  switch (f) {
    case InFmt::fp16: return (neg ? 0x8000u : 0u) | 0x7e00u;
    case InFmt::bf16: return (neg ? 0x8000u : 0u) | 0x7fc0u;
    case InFmt::tf32: return (neg ? 0x80000000u : 0u) | kFp32QNaN;
    case InFmt::e4m3: return (neg ? 0x80u : 0u) | 0x7fu;
    case InFmt::e5m2: return (neg ? 0x80u : 0u) | 0x7eu;
  }
  return 0;
}

// Reverse table for the formats decoded by table (fp16, e4m3, e5m2).
const std::unordered_map<uint32_t, uint32_t>& reverse_table(InFmt f) {
  static const auto build = [](InFmt g) {
    std::unordered_map<uint32_t, uint32_t> t;
    const InFmtInfo& in = info(g);
    const uint32_t n = 1u << (1 + in.exp_bits + in.man_bits);
    for (uint32_t c = 0; c < n; ++c) {
      const uint32_t v = decode_small(in, c);
      if (!fp32_is_nan(v)) t.emplace(v, c);
    }
    return t;
  };
  static const std::unordered_map<uint32_t, uint32_t> fp16 = build(InFmt::fp16);
  static const std::unordered_map<uint32_t, uint32_t> e4m3 = build(InFmt::e4m3);
  static const std::unordered_map<uint32_t, uint32_t> e5m2 = build(InFmt::e5m2);
  switch (f) {
    case InFmt::fp16: return fp16;
    case InFmt::e4m3: return e4m3;
    default: return e5m2;
  }
}

}  // namespace

const InFmtInfo& info(InFmt f) { return kInfo[static_cast<int>(f)]; }

std::optional<InFmt> parse_infmt(std::string_view s) {
  for (const auto& in : kInfo) {
    std::string lower(in.folder);
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (s == in.folder || s == lower) return in.id;
  }
  return std::nullopt;
}

uint32_t fp32_bits(float x) { return std::bit_cast<uint32_t>(x); }
float fp32_value(uint32_t b) { return std::bit_cast<float>(b); }

uint32_t fp32_from_scaled(bool negative, uint64_t m, int e) {
  if (m >= (1ull << 24)) throw std::invalid_argument("fp32_from_scaled: significand too wide");
  const double v = std::ldexp(static_cast<double>(m), e);  // exact in binary64
  const float f = static_cast<float>(v);
  if (static_cast<double>(f) != v) throw std::invalid_argument("fp32_from_scaled: not exact in fp32");
  return fp32_bits(f) | (negative ? 0x80000000u : 0u);
}

uint32_t decode_to_fp32(InFmt f, uint32_t code) {
  switch (f) {
    case InFmt::bf16: return (code & 0xffffu) << 16;
    case InFmt::tf32: return code & 0xffffe000u;
    default: return decode_small(info(f), code);
  }
}

std::optional<uint32_t> encode_from_fp32(InFmt f, uint32_t bits) {
  const bool neg = bits >> 31;
  if (fp32_is_nan(bits)) return canonical_nan(f, neg);
  switch (f) {
    case InFmt::bf16:
      if (bits & 0xffffu) return std::nullopt;
      return bits >> 16;
    case InFmt::tf32:
      if (bits & 0x1fffu) return std::nullopt;
      return bits;
    default: {
      const auto& t = reverse_table(f);
      const auto it = t.find(bits);
      if (it == t.end()) return std::nullopt;
      return it->second;
    }
  }
}

}  // namespace mmaemu::hwcheck
