// SPDX-License-Identifier: BSD-3-Clause
// The OCP Microscaling element formats (fp6 e3m2/e2m3, fp4 e2m1) and the
// block-scale formats (ue8m0, ue4m3), docs/block-scaled.md §1: every code
// decoded, every code round-tripped, and encoding from fp32/fp64 checked
// against an independent oracle:
//  * the fp6/fp4 values are the code table of docs/block-scaled.md §1.1,
//    typed in, not computed from the bit fields;
//  * ue8m0 is 2^(code-127) and ue4m3 the e4m3 value of code & 0x7F, by ldexp;
//  * rounding is MPFR's (oracle.h ref_round), then saturation at the largest
//    finite value, then a search of the value table.
#include "formats/fp4_packing.h"
#include "oracle.h"

using namespace fmt_test;

namespace {

// Positive codes 0..7 (e2m1) or 0..31 (e2m3, e3m2), from the spec's table.
const double kE2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
const double kE2m3[32] = {0,    0.125, 0.25, 0.375, 0.5,  0.625, 0.75, 0.875, 1,   1.125, 1.25,
                          1.375, 1.5,  1.625, 1.75, 1.875, 2,    2.25,  2.5,  2.75, 3,   3.25,
                          3.5,  3.75, 4,     4.5,  5,     5.5,  6,     6.5,  7,    7.5};
const double kE3m2[32] = {0,    0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375,
                          0.5,  0.625,  0.75,  0.875,  1,    1.25,   1.5,   1.75,
                          2,    2.5,    3,     3.5,    4,    5,      6,     7,
                          8,    10,     12,    14,     16,   20,     24,    28};

// One new format: its positive values by code, NaN codes, rounding parameters.
struct Narrow {
  Fmt fmt;
  const char* name;
  int codes;      // number of codes (16, 64, 256)
  bool is_signed; // top bit is a sign
  int mbits;      // fraction bits
  int emin;       // exponent of the smallest normal (ue8m0: of 2^-127)
  double max_finite;
  uint64_t max_code;
};

const Narrow kNarrow[] = {
    {Fmt::e2m1, "e2m1", 16, true, 1, 0, 6.0, 0x7},
    {Fmt::e2m3, "e2m3", 64, true, 3, 0, 7.5, 0x1F},
    {Fmt::e3m2, "e3m2", 64, true, 2, -2, 28.0, 0x1F},
    {Fmt::ue8m0, "ue8m0", 256, false, 0, -127, 0x1p127, 0xFE},
    {Fmt::ue4m3, "ue4m3", 256, false, 3, -6, 448.0, 0x7E},
};

bool ref_is_nan(const Narrow& n, uint64_t code) {
  if (n.fmt == Fmt::ue8m0) return code == 0xFF;
  if (n.fmt == Fmt::ue4m3) return (code & 0x7F) == 0x7F;
  return false;
}

// The value of a non-NaN code.
double ref_value(const Narrow& n, uint64_t code) {
  switch (n.fmt) {
    case Fmt::e2m1: return (code & 8 ? -1 : 1) * kE2m1[code & 7];
    case Fmt::e2m3: return (code & 0x20 ? -1 : 1) * kE2m3[code & 0x1F];
    case Fmt::e3m2: return (code & 0x20 ? -1 : 1) * kE3m2[code & 0x1F];
    case Fmt::ue8m0: return std::ldexp(1.0, static_cast<int>(code) - 127);
    case Fmt::ue4m3: {
      const int e = static_cast<int>((code >> 3) & 0xF), m = static_cast<int>(code & 7);
      return e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
    }
    default: throw std::logic_error("not a narrow format");
  }
}

// The code of a nonnegative representable magnitude (the positive code).
uint64_t ref_code(const Narrow& n, double mag) {
  for (uint64_t c = 0; c < static_cast<uint64_t>(n.codes); ++c)
    if (!ref_is_nan(n, c) && ref_value(n, c) == mag && !std::signbit(ref_value(n, c))) return c;
  throw std::logic_error("not representable");
}

uint64_t sign_bit(const Narrow& n) { return n.is_signed ? static_cast<uint64_t>(n.codes / 2) : 0; }
uint64_t ref_nan(const Narrow& n) { return n.fmt == Fmt::ue8m0 ? 0xFF : 0x7F; }

// What encoding the exact value x must give under rounding r (saturating).
uint64_t ref_encode(const Narrow& n, double x, Round r) {
  if (std::isnan(x)) return ref_nan(n);  // only asked for the scale formats
  const bool neg = std::signbit(x);
  if (!n.is_signed && neg && x != 0) return ref_nan(n);
  if (n.fmt == Fmt::ue8m0 && x == 0) return ref_nan(n);
  if (std::isinf(x)) return n.max_code | (neg ? sign_bit(n) : 0);
  const Rounded rd = ref_round(x, n.mbits, n.emin, n.max_finite, r);
  if (rd.overflow) return n.max_code | (neg ? sign_bit(n) : 0);
  if (rd.mag == 0 && n.fmt == Fmt::ue8m0) return 0;  // no zero: the smallest value
  return ref_code(n, rd.mag) | (neg && n.is_signed ? sign_bit(n) : 0);
}

// Inputs around every value of the format: each value, each midpoint between
// neighbours and the next host values on both sides, beyond the largest
// finite and below the smallest; both signs.
template <class T>
std::vector<T> boundary_inputs(const Narrow& n) {
  std::vector<double> vals;
  for (int c = 0; c < n.codes; ++c)
    if (!ref_is_nan(n, c) && !std::signbit(ref_value(n, c))) vals.push_back(ref_value(n, c));
  std::sort(vals.begin(), vals.end());
  vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
  vals.push_back(2 * n.max_finite);  // the "next" value past the top: saturation edge
  std::vector<T> in;
  auto around = [&](double v) {
    const T t = static_cast<T>(v);
    if (static_cast<double>(t) != v) return;  // not exact in T (ue8m0 extremes in fp32)
    for (T x : {t, std::nextafter(t, T(0)), std::nextafter(t, std::numeric_limits<T>::infinity())})
      for (T s : {x, -x}) in.push_back(s);
  };
  for (size_t i = 0; i + 1 < vals.size(); ++i) {
    around(vals[i]);
    around((vals[i] + vals[i + 1]) / 2);  // exact: neighbours differ by few bits
  }
  around(vals.front() / 2);
  around(vals.front() / 4 * 3);
  for (T s : {T(0), -T(0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
              std::numeric_limits<T>::max(), std::numeric_limits<T>::denorm_min(),
              std::numeric_limits<T>::min()})
    in.push_back(s);
  return in;
}

template <class T>
void check_encode(const Narrow& n, const std::vector<T>& in, Round r, Counter& c) {
  const Fmt from = sizeof(T) == 4 ? Fmt::fp32 : Fmt::fp64;
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  for (T x : in) {
    if (std::isnan(x) && n.is_signed) continue;  // fp6/fp4 have no NaN: tested separately
    const uint64_t got = mmaemu::convert(from, n.fmt, std::bit_cast<Bits>(x), r, Overflow::saturate);
    c.eq(got, ref_encode(n, static_cast<double>(x), r), [&] {
      return std::string(n.name) + " from " + (sizeof(T) == 4 ? "fp32 " : "fp64 ") + hexf(x) +
             " " + mmaemu::round_name(r);
    });
  }
}

}  // namespace

TEST_CASE("narrow and scale formats: every code decodes to the table value") {
  for (const Narrow& n : kNarrow) {
    Counter c(n.name);
    const mmaemu::FormatInfo& fi = mmaemu::info(n.fmt);
    CHECK(std::string(fi.name) == n.name);
    CHECK(mmaemu::parse_fmt(n.name) == n.fmt);
    for (int code = 0; code < n.codes; ++code) {
      const mmaemu::Unpacked u = mmaemu::decode(n.fmt, static_cast<uint64_t>(code));
      const auto ctx = [&] { return std::string(n.name) + " code " + hex(code); };
      if (ref_is_nan(n, code)) {
        c.ok(u.cls == Class::nan, ctx);
        continue;
      }
      const double want = ref_value(n, code);
      const double got =
          u.cls == Class::zero ? 0.0 : std::ldexp(static_cast<double>(u.sig), u.exp);
      c.ok(u.cls != Class::nan && u.cls != Class::inf, ctx);
      c.ok(got == std::fabs(want) && u.neg == (n.is_signed && (code & sign_bit(n))), ctx);
      c.ok((u.cls == Class::zero) == (want == 0), ctx);
      // Widening to fp32 and fp64 is exact.
      c.eq(mmaemu::to_fp32_bits(n.fmt, code), std::bit_cast<uint32_t>(static_cast<float>(
                                                  (u.neg ? -1 : 1) * std::fabs(want))), ctx);
      c.eq(mmaemu::to_fp64_bits(n.fmt, code),
           std::bit_cast<uint64_t>((u.neg ? -1.0 : 1.0) * std::fabs(want)), ctx);
    }
    c.finish();
  }
}

TEST_CASE("narrow and scale formats: table facts") {
  using mmaemu::info;
  CHECK(info(Fmt::e2m1).emax() == 2);
  CHECK(info(Fmt::e2m3).emax() == 2);
  CHECK(info(Fmt::e3m2).emax() == 4);
  CHECK(info(Fmt::ue8m0).emax() == 127);
  CHECK(info(Fmt::ue8m0).emin() == -127);
  CHECK(info(Fmt::ue4m3).emax() == 8);
  for (const Narrow& n : kNarrow) {
    CHECK(mmaemu::max_finite_bits(n.fmt, false) == n.max_code);
    CHECK(info(n.fmt).has_nan() == !n.is_signed);
    CHECK(info(n.fmt).is_unsigned() == !n.is_signed);
  }
  CHECK(mmaemu::default_nan(Fmt::ue8m0) == 0xFF);
  CHECK(mmaemu::default_nan(Fmt::ue4m3) == 0x7F);
  CHECK_THROWS_AS(mmaemu::default_nan(Fmt::e2m1), std::domain_error);
  CHECK_THROWS_AS(mmaemu::zero_bits(Fmt::ue8m0, false), std::domain_error);
  // ue4m3: the unit ignores the sign bit (0xB8 reads as 1.0, 0xFF as NaN).
  CHECK(mmaemu::to_fp32_bits(Fmt::ue4m3, 0xB8) == 0x3F800000u);
  CHECK(mmaemu::is_nan(Fmt::ue4m3, 0xFF));
  CHECK(mmaemu::to_fp32_bits(Fmt::ue8m0, 0x7F) == 0x3F800000u);
  CHECK(mmaemu::to_fp32_bits(Fmt::ue8m0, 0x00) == 0x00400000u);  // 2^-127: fp32 subnormal
}

TEST_CASE("narrow and scale formats: every code round-trips through fp32 and fp64") {
  for (const Narrow& n : kNarrow) {
    Counter c(n.name);
    for (int code = 0; code < n.codes; ++code) {
      uint64_t want = static_cast<uint64_t>(code);
      if (ref_is_nan(n, code)) want = ref_nan(n);
      if (n.fmt == Fmt::ue4m3) want &= 0x7F;  // the ignored sign bit is dropped
      for (Fmt via : {Fmt::fp32, Fmt::fp64}) {
        const uint64_t wide = mmaemu::convert(n.fmt, via, code, Round::rne);
        c.eq(mmaemu::convert(via, n.fmt, wide, Round::rne, Overflow::saturate), want,
             [&] { return std::string(n.name) + " code " + hex(code) + " via " + mmaemu::info(via).name; });
      }
    }
    c.finish();
  }
}

TEST_CASE("narrow and scale formats: encoding from fp32 and fp64 around every value") {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  for (const Narrow& n : kNarrow) {
    Counter c(n.name);
    const std::vector<float> in32 = boundary_inputs<float>(n);
    const std::vector<double> in64 = boundary_inputs<double>(n);
    std::vector<float> rnd;
    for (int i = 0; i < 20000; ++i) rnd.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
    for (Round r : kRounds) {
      check_encode(n, in32, r, c);
      check_encode(n, in64, r, c);
      check_encode(n, rnd, r, c);
    }
    c.finish();
  }
  MESSAGE("seed " << hex(seed));
}

TEST_CASE("narrow formats: saturation whatever the overflow policy; NaN has no encoding") {
  for (Fmt f : {Fmt::e2m1, Fmt::e2m3, Fmt::e3m2}) {
    const uint64_t sign = f == Fmt::e2m1 ? 0x8 : 0x20;
    for (Overflow ov : kOverflows)
      for (Round r : kRounds) {
        CHECK(mmaemu::convert(Fmt::fp32, f, 0x7F800000u, r, ov) == mmaemu::max_finite_bits(f, false));
        CHECK(mmaemu::convert(Fmt::fp32, f, 0xC7000000u, r, ov) == (mmaemu::max_finite_bits(f, false) | sign));
      }
    CHECK_THROWS_AS(mmaemu::convert(Fmt::fp32, f, 0x7FC00000u, Round::rne), std::domain_error);
  }
  // Spot values: e2m1 5 is a tie between 4 and 6 -> 4 (even); 7 -> 6 (saturates);
  // e2m1 0.25 is a tie between 0 and 0.5 -> +0.
  CHECK(mmaemu::convert(Fmt::fp32, Fmt::e2m1, 0x40A00000u, Round::rne) == 0x6);
  CHECK(mmaemu::convert(Fmt::fp32, Fmt::e2m1, 0x40E00000u, Round::rne, Overflow::saturate) == 0x7);
  CHECK(mmaemu::convert(Fmt::fp32, Fmt::e2m1, 0xBE800000u, Round::rne) == 0x8);
  // ue4m3 and ue8m0 refuse negative values (NaN); ue8m0 has no zero.
  CHECK(mmaemu::convert(Fmt::fp32, Fmt::ue4m3, 0xBF800000u, Round::rne) == 0x7F);
  CHECK(mmaemu::convert(Fmt::fp32, Fmt::ue4m3, 0x80000000u, Round::rne) == 0x00);
  CHECK(mmaemu::convert(Fmt::fp32, Fmt::ue8m0, 0x00000000u, Round::rne) == 0xFF);
  CHECK(mmaemu::convert(Fmt::fp32, Fmt::ue8m0, 0x3FC00000u, Round::rne) == 0x80);  // 1.5 -> 2
  CHECK(mmaemu::convert(Fmt::fp32, Fmt::ue8m0, 0x3FC00000u, Round::rz) == 0x7F);
}

TEST_CASE("packed fp4: element 2i in the low nibble") {
  const uint8_t codes[5] = {0x1, 0x7, 0xA, 0xF, 0x3};
  uint8_t packed[3] = {0xEE, 0xEE, 0xEE};
  mmaemu::pack_fp4(codes, 5, packed);
  CHECK(packed[0] == 0x71);
  CHECK(packed[1] == 0xFA);
  CHECK(packed[2] == 0x03);
  CHECK(mmaemu::fp4_packed_bytes(5) == 3);
  uint8_t back[5] = {};
  mmaemu::unpack_fp4(packed, 5, back);
  for (int i = 0; i < 5; ++i) CHECK(back[i] == codes[i]);
  // Every byte unpacks and repacks to itself.
  for (int b = 0; b < 256; ++b) {
    const uint8_t byte = static_cast<uint8_t>(b);
    uint8_t two[2], again = 0;
    mmaemu::unpack_fp4(&byte, 2, two);
    mmaemu::pack_fp4(two, 2, &again);
    CHECK(again == byte);
  }
}
