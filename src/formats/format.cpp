// SPDX-License-Identifier: BSD-3-Clause
#include "formats/format.h"

#include <array>
#include <bit>
#include <cassert>
#include <cctype>
#include <stdexcept>
#include <string>

namespace mmaemu {
namespace {

// One row per format; indexed by Fmt.
constexpr std::array<FormatInfo, kFmtCount> kFormats = {{
    //  id              name        width exp man bias shift specials
    {Fmt::fp64, "fp64", 64, 11, 52, 1023, 0, Specials::ieee},
    {Fmt::fp32, "fp32", 32, 8, 23, 127, 0, Specials::ieee},
    {Fmt::tf32, "tf32", 32, 8, 10, 127, 13, Specials::ieee},
    {Fmt::bf16, "bf16", 16, 8, 7, 127, 0, Specials::ieee},
    {Fmt::fp16, "fp16", 16, 5, 10, 15, 0, Specials::ieee},
    {Fmt::e4m3, "e4m3", 8, 4, 3, 7, 0, Specials::e4m3fn},
    {Fmt::e5m2, "e5m2", 8, 5, 2, 15, 0, Specials::ieee},
    {Fmt::e4m3fnuz, "e4m3fnuz", 8, 4, 3, 8, 0, Specials::fnuz},
    {Fmt::e5m2fnuz, "e5m2fnuz", 8, 5, 2, 16, 0, Specials::fnuz},
    {Fmt::e3m2, "e3m2", 6, 3, 2, 3, 0, Specials::finite},
    {Fmt::e2m3, "e2m3", 6, 2, 3, 1, 0, Specials::finite},
    {Fmt::e2m1, "e2m1", 4, 2, 1, 1, 0, Specials::finite},
    {Fmt::ue8m0, "ue8m0", 8, 8, 0, 127, 0, Specials::ue8m0},
    {Fmt::ue4m3, "ue4m3", 8, 4, 3, 7, 0, Specials::ue4m3},
    // Integers: man_bits = the magnitude bits of the largest value.
    {Fmt::s8, "s8", 8, 0, 7, 0, 0, Specials::finite, IntKind::twos_complement},
    {Fmt::u8, "u8", 8, 0, 8, 0, 0, Specials::finite, IntKind::unsigned_binary},
    {Fmt::s4, "s4", 4, 0, 3, 0, 0, Specials::finite, IntKind::twos_complement},
    {Fmt::u4, "u4", 4, 0, 4, 0, 0, Specials::finite, IntKind::unsigned_binary},
    {Fmt::s32, "s32", 32, 0, 31, 0, 0, Specials::finite, IntKind::twos_complement},
}};

struct Alias {
  const char* name;
  Fmt fmt;
};
constexpr Alias kAliases[] = {
    {"fp64", Fmt::fp64},         {"f64", Fmt::fp64},          {"double", Fmt::fp64},
    {"binary64", Fmt::fp64},     {"fp32", Fmt::fp32},         {"f32", Fmt::fp32},
    {"single", Fmt::fp32},       {"float", Fmt::fp32},        {"binary32", Fmt::fp32},
    {"tf32", Fmt::tf32},         {"xf32", Fmt::tf32},         {"tensorfloat32", Fmt::tf32},
    {"bf16", Fmt::bf16},         {"bfloat16", Fmt::bf16},     {"brainfloat16", Fmt::bf16},
    {"fp16", Fmt::fp16},         {"f16", Fmt::fp16},          {"half", Fmt::fp16},
    {"binary16", Fmt::fp16},     {"e4m3", Fmt::e4m3},         {"fp8-e4m3", Fmt::e4m3},
    {"e4m3fn", Fmt::e4m3},       {"e5m2", Fmt::e5m2},         {"fp8-e5m2", Fmt::e5m2},
    {"e4m3fnuz", Fmt::e4m3fnuz}, {"fp8", Fmt::e4m3fnuz},      {"e5m2fnuz", Fmt::e5m2fnuz},
    {"bf8", Fmt::e5m2fnuz},      {"e3m2", Fmt::e3m2},         {"fp6-e3m2", Fmt::e3m2},
    {"e2m3", Fmt::e2m3},         {"fp6-e2m3", Fmt::e2m3},     {"e2m1", Fmt::e2m1},
    {"fp4", Fmt::e2m1},          {"fp4-e2m1", Fmt::e2m1},     {"ue8m0", Fmt::ue8m0},
    {"e8m0", Fmt::ue8m0},        {"ue4m3", Fmt::ue4m3},
};
constexpr Alias kIntAliases[] = {
    {"s8", Fmt::s8},   {"int8", Fmt::s8},   {"u8", Fmt::u8},    {"uint8", Fmt::u8},  {"s4", Fmt::s4},
    {"int4", Fmt::s4}, {"u4", Fmt::u4},     {"uint4", Fmt::u4}, {"s32", Fmt::s32},   {"int32", Fmt::s32},
};

constexpr uint64_t mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

// Packs sign, biased exponent and fraction (man_bits wide) into the container.
// The unsigned formats never get a sign bit.
uint64_t pack(const FormatInfo& fi, bool neg, uint64_t biased_exp, uint64_t frac) {
  uint64_t bits = ((biased_exp << fi.man_bits) | frac) << fi.frac_shift;
  if (neg && !fi.is_unsigned()) bits |= 1ull << (fi.width - 1);
  return bits;
}

}  // namespace

const FormatInfo& info(Fmt f) { return kFormats[static_cast<int>(f)]; }

namespace {
template <std::size_t N>
std::optional<Fmt> parse_in(const Alias (&aliases)[N], std::string_view name) {
  std::string low;
  for (char ch : name) low += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const Alias& a : aliases)
    if (low == a.name) return a.fmt;
  return std::nullopt;
}
}  // namespace

std::optional<Fmt> parse_fmt(std::string_view name) { return parse_in(kAliases, name); }

std::optional<Fmt> parse_int_fmt(std::string_view name) { return parse_in(kIntAliases, name); }

int64_t int_value(Fmt f, uint64_t bits) {
  const FormatInfo& fi = info(f);
  assert(fi.is_integer());
  const uint64_t code = bits & mask(fi.width);
  const bool neg = fi.integer == IntKind::twos_complement && ((code >> (fi.width - 1)) & 1);
  return neg ? static_cast<int64_t>(code) - static_cast<int64_t>(1ull << fi.width) : static_cast<int64_t>(code);
}

// ---------------------------------------------------------------------------

Unpacked decode(Fmt f, uint64_t bits) {
  const FormatInfo& fi = info(f);
  if (fi.is_integer()) {
    const int64_t v = int_value(f, bits);
    return {v == 0 ? Class::zero : Class::finite, v < 0, 0, static_cast<uint64_t>(v < 0 ? -v : v)};
  }
  bits &= mask(fi.width);
  if (fi.specials == Specials::ue8m0)  // 8 exponent bits, no sign, no zero
    return bits == 0xFF ? Unpacked{Class::nan, false, 0, 0}
                        : Unpacked{Class::finite, false, static_cast<int>(bits) - fi.bias, 1};
  if (fi.specials == Specials::ue4m3) bits &= 0x7F;  // the sign bit is ignored
  const bool neg = (bits >> (fi.width - 1)) & 1;
  const uint64_t frac = (bits >> fi.frac_shift) & mask(fi.man_bits);
  const uint64_t bexp = (bits >> (fi.frac_shift + fi.man_bits)) & mask(fi.exp_bits);
  const uint64_t all_ones = mask(fi.exp_bits);

  switch (fi.specials) {
    case Specials::ieee:
      if (bexp == all_ones) return {frac ? Class::nan : Class::inf, neg, 0, 0};
      break;
    case Specials::e4m3fn:
    case Specials::ue4m3:
      if (bexp == all_ones && frac == mask(fi.man_bits)) return {Class::nan, neg, 0, 0};
      break;
    case Specials::fnuz:
      if (bits == 1ull << (fi.width - 1)) return {Class::nan, true, 0, 0};
      break;
    case Specials::finite:
    case Specials::ue8m0:  // handled above
      break;
  }
  if (bexp == 0) {
    if (frac == 0) return {Class::zero, neg, 0, 0};
    return {Class::finite, neg, fi.emin() - fi.man_bits, frac};
  }
  return {Class::finite, neg, static_cast<int>(bexp) - fi.bias - fi.man_bits,
          frac | (1ull << fi.man_bits)};
}

uint64_t default_nan(Fmt f) {
  const FormatInfo& fi = info(f);
  switch (fi.specials) {
    case Specials::ieee:
      return pack(fi, false, mask(fi.exp_bits), 1ull << (fi.man_bits - 1));
    case Specials::e4m3fn:
    case Specials::ue4m3:
      return pack(fi, false, mask(fi.exp_bits), mask(fi.man_bits));
    case Specials::fnuz:
      return 1ull << (fi.width - 1);
    case Specials::ue8m0:
      return 0xFF;
    case Specials::finite:
      break;
  }
  throw std::domain_error(std::string(fi.name) + " has no NaN");
}

uint64_t inf_bits(Fmt f, bool neg) {
  const FormatInfo& fi = info(f);
  assert(fi.specials == Specials::ieee);
  return pack(fi, neg, mask(fi.exp_bits), 0);
}

uint64_t max_finite_bits(Fmt f, bool neg) {
  const FormatInfo& fi = info(f);
  switch (fi.specials) {
    case Specials::ieee:
      return pack(fi, neg, mask(fi.exp_bits) - 1, mask(fi.man_bits));
    case Specials::e4m3fn:  // S.1111.110
    case Specials::ue4m3:
      return pack(fi, neg, mask(fi.exp_bits), mask(fi.man_bits) - 1);
    case Specials::fnuz:
    case Specials::finite:  // S.11..1.11..1
      return pack(fi, neg, mask(fi.exp_bits), mask(fi.man_bits));
    case Specials::ue8m0:  // 0xFE = 2^127
      return mask(fi.exp_bits) - 1;
  }
  return 0;
}

uint64_t zero_bits(Fmt f, bool neg) {
  const FormatInfo& fi = info(f);
  if (fi.specials == Specials::ue8m0) throw std::domain_error("ue8m0 has no zero");
  return (neg && fi.specials != Specials::fnuz && !fi.is_unsigned()) ? 1ull << (fi.width - 1) : 0;
}

namespace {

// The value a format gives to an overflowing result under `ov` and `r`.
uint64_t overflow_result(Fmt f, bool neg, Round r, Overflow ov) {
  const FormatInfo& fi = info(f);
  if (!fi.has_nan()) return max_finite_bits(f, neg);  // fp6/fp4: nothing else exists
  bool to_inf = true;
  switch (ov) {
    case Overflow::inf:
      break;
    case Overflow::saturate:
      to_inf = false;
      break;
    case Overflow::ieee:
      to_inf = r == Round::rne || r == Round::rna || (r == Round::rd && neg) ||
               (r == Round::ru && !neg);
      break;
  }
  if (!to_inf) return max_finite_bits(f, neg);
  if (fi.specials == Specials::ieee) return inf_bits(f, neg);
  return fi.specials == Specials::fnuz || fi.is_unsigned()
             ? default_nan(f)
             : default_nan(f) | (neg ? 1ull << (fi.width - 1) : 0);
}

}  // namespace

// Rounding an exact value  (-1)^neg * mag * 2^exp  to p = prec fraction bits.
//
//   mag:  1 x x x x x x x x x x x x x x x x x x x   (after normalisation)
//         |<- p+1 kept bits ->|G|R . . . . . . |S   S = sticky (jammed)
//         q = exponent of the last kept bit = max(L, emin) - p,
//         L = exponent of the leading one.
//
// When L < emin the value is subnormal: q stays at emin - p and fewer than
// p+1 bits are kept. The case table for the increment ("round bit" = G,
// "rest" = R..S, lsb = last kept bit):
//   rne: G & (rest | lsb)      rna: G
//   rz:  never                 rd: negative & (G|rest)   ru: positive & (G|rest)
// An increment that carries out (1.11..1 -> 10.00..0) raises q by one;
// one that lifts a subnormal to 2^emin yields the smallest normal, which the
// packing below handles by itself (the hidden bit lands in the exponent field).
uint64_t round_pack(Fmt f, bool neg, uint64_t mag, int exp, bool sticky, Round r,
                    Overflow ov, int prec) {
  const FormatInfo& fi = info(f);
  const int p = prec < 0 ? fi.man_bits : prec;
  if (fi.is_unsigned()) {  // no negative values; -0 is +0
    if (neg && (mag != 0 || sticky)) return default_nan(f);
    neg = false;
  }
  if (fi.specials == Specials::ue8m0 && mag == 0 && !sticky) return default_nan(f);
  if (fi.specials == Specials::fnuz && mag == 0 && !sticky) return 0;
  if (mag == 0 && !sticky) return zero_bits(f, neg);
  if (sticky) {
    // Make room below the kept bits so that the jammed bit is only a sticky.
    // (mag == 0: lz = 64, a shift by 64 would be undefined; the value is then
    // just the sticky bit, placed 64 bits below exp.)
    const int lz = std::countl_zero(mag);
    mag = lz < 64 ? mag << lz : 0;
    exp -= lz;
    mag |= 1;
  }
  const int lead = 63 - std::countl_zero(mag);
  const int L = exp + lead;
  int q = (L < fi.emin() ? fi.emin() : L) - p;
  // Overflow; a largest-finite result keeps only p fraction bits (prec).
  const auto overflow = [&] {
    const uint64_t res = overflow_result(f, neg, r, ov);
    if (p >= fi.man_bits || res != max_finite_bits(f, neg)) return res;
    return res & ~(mask(fi.man_bits - p) << fi.frac_shift);
  };
  if (L > fi.emax() + 1) return overflow();

  uint64_t kept;
  const int shift = q - exp;
  bool inexact = false;
  if (shift <= 0) {
    kept = mag << -shift;  // exact; kept < 2^(p+1) because L - q <= p
  } else {
    kept = shift >= 64 ? 0 : mag >> shift;
    const uint64_t rest = shift >= 64 ? mag : mag & mask(shift);
    const uint64_t half = shift > 64 ? 0 : 1ull << (shift - 1);
    inexact = rest != 0;
    const bool g = shift <= 64 && (rest & half);
    const bool below = shift > 64 ? rest != 0 : (rest & (half - 1)) != 0;
    bool inc = false;
    switch (r) {
      case Round::rne: inc = g && (below || (kept & 1)); break;
      case Round::rna: inc = g; break;
      case Round::rz: inc = false; break;
      case Round::rd: inc = neg && inexact; break;
      case Round::ru: inc = !neg && inexact; break;
    }
    if (inc) {
      ++kept;
      if (kept >> (p + 1)) {  // carry out of the significand
        kept >>= 1;
        ++q;
      }
    }
  }
  (void)inexact;
  if (kept == 0 && fi.specials == Specials::ue8m0) return 0;  // no zero: the smallest, 2^-127
  if (kept == 0) return (fi.specials == Specials::fnuz) ? 0 : zero_bits(f, neg);

  // kept = significand with p fraction bits, value = kept * 2^q.
  const bool normal = (kept >> p) != 0;
  const int E = q + p;  // exponent of the hidden bit when normal
  if (normal && E > fi.emax()) return overflow();
  const uint64_t biased = normal ? static_cast<uint64_t>(E + fi.bias) : 0;
  const uint64_t frac = (kept & mask(p)) << (fi.man_bits - p);
  if ((fi.specials == Specials::e4m3fn || fi.specials == Specials::ue4m3) &&
      biased == mask(fi.exp_bits) &&
      frac == mask(fi.man_bits))  // would encode NaN: 480 and above
    return overflow();
  return pack(fi, neg, biased, frac);
}

uint64_t convert(Fmt from, Fmt to, uint64_t bits, Round r, Overflow ov) {
  const Unpacked u = decode(from, bits);
  const FormatInfo& ti = info(to);
  switch (u.cls) {
    case Class::nan:
      if (ti.specials == Specials::fnuz || ti.is_unsigned()) return default_nan(to);
      return default_nan(to) | (u.neg ? 1ull << (ti.width - 1) : 0);
    case Class::inf:
      if (ti.specials == Specials::ieee) return inf_bits(to, u.neg);
      if (ti.is_unsigned() && u.neg) return default_nan(to);
      return ov == Overflow::saturate ? max_finite_bits(to, u.neg)
                                      : overflow_result(to, u.neg, Round::rne, Overflow::inf);
    case Class::zero:
      if (ti.specials == Specials::ue8m0) return default_nan(to);  // no zero
      return zero_bits(to, ti.is_unsigned() ? false : u.neg);
    case Class::finite:
      break;
  }
  return round_pack(to, u.neg, u.sig, u.exp, false, r, ov);
}

uint32_t to_fp32_bits(Fmt f, uint64_t bits) {
  return static_cast<uint32_t>(convert(f, Fmt::fp32, bits, Round::rne));
}
uint64_t to_fp64_bits(Fmt f, uint64_t bits) { return convert(f, Fmt::fp64, bits, Round::rne); }

const char* round_name(Round r) {
  switch (r) {
    case Round::rne: return "RNE";
    case Round::rz: return "RZ";
    case Round::rd: return "RD";
    case Round::ru: return "RU";
    case Round::rna: return "RNA";
  }
  return "?";
}

}  // namespace mmaemu
