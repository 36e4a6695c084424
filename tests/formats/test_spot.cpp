// SPDX-License-Identifier: BSD-3-Clause
// Spot facts from the spec, the OCP FP8 document and the AMD ISA, and parse_fmt.
#include <cctype>

#include "oracle.h"

using namespace fmt_test;
using mmaemu::convert;
using mmaemu::round_pack;

namespace {

uint64_t f32(float f) { return std::bit_cast<uint32_t>(f); }

// convert(fp32 -> to) of a float.
uint64_t cv(Fmt to, float x, Round r, Overflow ov = Overflow::ieee) {
  return convert(Fmt::fp32, to, f32(x), r, ov);
}

#define SPOT_EQ(got, want)                                                                  \
  do {                                                                                      \
    ++n;                                                                                    \
    const uint64_t g_ = (got), w_ = (want);                                                 \
    CHECK_MESSAGE(g_ == w_, #got << ": got " << hex(g_) << " want " << hex(w_));            \
  } while (0)

}  // namespace

TEST_CASE("spot facts: fp8 extremes, overflow and specials") {
  int n = 0;
  // e4m3 (OCP "fn"): max 448 = 0x7E, NaN = S.1111.111, no Inf.
  SPOT_EQ(mmaemu::max_finite_bits(Fmt::e4m3, false), 0x7E);
  SPOT_EQ(mmaemu::max_finite_bits(Fmt::e4m3, true), 0xFE);
  SPOT_EQ(cv(Fmt::e4m3, 448.0f, Round::rne), 0x7E);
  SPOT_EQ(cv(Fmt::e4m3, 464.0f, Round::rne), 0x7E);  // tie between 448 and "480": even
  SPOT_EQ(cv(Fmt::e4m3, 464.0f, Round::rna), 0x7F);  // ties away: 480 overflows -> NaN
  SPOT_EQ(cv(Fmt::e4m3, 464.0f, Round::rna, Overflow::saturate), 0x7E);
  SPOT_EQ(cv(Fmt::e4m3, 465.0f, Round::rne), 0x7F);
  SPOT_EQ(cv(Fmt::e4m3, 479.0f, Round::rz), 0x7E);
  SPOT_EQ(cv(Fmt::e4m3, 480.0f, Round::rne), 0x7F);
  SPOT_EQ(cv(Fmt::e4m3, -480.0f, Round::rne), 0xFF);
  SPOT_EQ(cv(Fmt::e4m3, 480.0f, Round::rne, Overflow::inf), 0x7F);
  SPOT_EQ(cv(Fmt::e4m3, 480.0f, Round::rne, Overflow::saturate), 0x7E);
  SPOT_EQ(cv(Fmt::e4m3, -480.0f, Round::rne, Overflow::saturate), 0xFE);
  SPOT_EQ(cv(Fmt::e4m3, 480.0f, Round::rz), 0x7E);  // IEEE: RZ overflow -> max finite
  SPOT_EQ(cv(Fmt::e4m3, 480.0f, Round::rz, Overflow::inf), 0x7F);
  SPOT_EQ(cv(Fmt::e4m3, 449.0f, Round::ru), 0x7F);
  SPOT_EQ(cv(Fmt::e4m3, -449.0f, Round::ru), 0xFE);
  SPOT_EQ(cv(Fmt::e4m3, 1.0f, Round::rne), 0x38);
  SPOT_EQ(cv(Fmt::e4m3, 0x1p-9f, Round::rne), 0x01);  // smallest subnormal
  SPOT_EQ(cv(Fmt::e4m3, 0x1p-10f, Round::rne), 0x00);  // tie to even: 0
  SPOT_EQ(cv(Fmt::e4m3, 0x1p-10f, Round::rna), 0x01);
  SPOT_EQ(cv(Fmt::e4m3, -0x1p-12f, Round::rz), 0x80);  // -0 kept
  SPOT_EQ(cv(Fmt::e4m3, -0.0f, Round::rne), 0x80);
  SPOT_EQ(cv(Fmt::e4m3, INFINITY, Round::rne), 0x7F);
  SPOT_EQ(cv(Fmt::e4m3, -INFINITY, Round::rne, Overflow::saturate), 0xFE);
  SPOT_EQ(cv(Fmt::e4m3, -NAN, Round::rne), 0xFF);
  SPOT_EQ(cv(Fmt::e4m3, NAN, Round::rne), 0x7F);
  CHECK(mmaemu::decode(Fmt::e4m3, 0x7F).cls == Class::nan);
  CHECK(mmaemu::decode(Fmt::e4m3, 0x78).cls == Class::finite);  // 256: exponent 1111 is finite
  // e5m2 (OCP): IEEE-like.
  SPOT_EQ(mmaemu::max_finite_bits(Fmt::e5m2, false), 0x7B);
  SPOT_EQ(cv(Fmt::e5m2, 57344.0f, Round::rne), 0x7B);
  SPOT_EQ(cv(Fmt::e5m2, 61440.0f, Round::rne), 0x7C);  // tie to even -> 65536 -> Inf
  SPOT_EQ(cv(Fmt::e5m2, 61440.0f, Round::rne, Overflow::saturate), 0x7B);
  SPOT_EQ(cv(Fmt::e5m2, 1e6f, Round::rz), 0x7B);
  SPOT_EQ(cv(Fmt::e5m2, 1e6f, Round::rz, Overflow::inf), 0x7C);
  SPOT_EQ(cv(Fmt::e5m2, -INFINITY, Round::rz, Overflow::saturate), 0xFC);
  SPOT_EQ(cv(Fmt::e5m2, 1.0f, Round::rne), 0x3C);
  SPOT_EQ(cv(Fmt::e5m2, 0x1p-16f, Round::rne), 0x01);
  // e4m3fnuz (AMD fp8): max 240 = 0x7F, NaN 0x80, no -0, bias 8.
  SPOT_EQ(mmaemu::max_finite_bits(Fmt::e4m3fnuz, false), 0x7F);
  SPOT_EQ(mmaemu::max_finite_bits(Fmt::e4m3fnuz, true), 0xFF);
  SPOT_EQ(mmaemu::default_nan(Fmt::e4m3fnuz), 0x80);
  SPOT_EQ(cv(Fmt::e4m3fnuz, 240.0f, Round::rne), 0x7F);
  SPOT_EQ(cv(Fmt::e4m3fnuz, 247.0f, Round::rne), 0x7F);
  SPOT_EQ(cv(Fmt::e4m3fnuz, 248.0f, Round::rne), 0x80);  // tie to even -> 256 -> NaN
  SPOT_EQ(cv(Fmt::e4m3fnuz, -248.0f, Round::rne), 0x80);
  SPOT_EQ(cv(Fmt::e4m3fnuz, 248.0f, Round::rne, Overflow::saturate), 0x7F);
  SPOT_EQ(cv(Fmt::e4m3fnuz, -1e9f, Round::rne, Overflow::saturate), 0xFF);
  SPOT_EQ(cv(Fmt::e4m3fnuz, 1.0f, Round::rne), 0x40);
  SPOT_EQ(cv(Fmt::e4m3fnuz, 0x1p-10f, Round::rne), 0x01);
  SPOT_EQ(cv(Fmt::e4m3fnuz, -0.0f, Round::rne), 0x00);
  SPOT_EQ(cv(Fmt::e4m3fnuz, -0x1p-20f, Round::rz), 0x00);
  SPOT_EQ(cv(Fmt::e4m3fnuz, -0x1p-20f, Round::rd), 0x81);  // -2^-10
  SPOT_EQ(cv(Fmt::e4m3fnuz, -NAN, Round::rne), 0x80);
  SPOT_EQ(cv(Fmt::e4m3fnuz, INFINITY, Round::rne), 0x80);
  SPOT_EQ(cv(Fmt::e4m3fnuz, -INFINITY, Round::rne, Overflow::saturate), 0xFF);
  CHECK(mmaemu::decode(Fmt::e4m3fnuz, 0x80).cls == Class::nan);
  CHECK(mmaemu::decode(Fmt::e4m3fnuz, 0xFF).cls == Class::finite);
  // e5m2fnuz (AMD bf8): max 57344 = 0x7F, NaN 0x80, bias 16.
  SPOT_EQ(mmaemu::max_finite_bits(Fmt::e5m2fnuz, false), 0x7F);
  SPOT_EQ(cv(Fmt::e5m2fnuz, 57344.0f, Round::rne), 0x7F);
  SPOT_EQ(cv(Fmt::e5m2fnuz, 1e6f, Round::rne), 0x80);
  SPOT_EQ(cv(Fmt::e5m2fnuz, 1e6f, Round::rne, Overflow::saturate), 0x7F);
  SPOT_EQ(cv(Fmt::e5m2fnuz, 1.0f, Round::rne), 0x40);
  SPOT_EQ(cv(Fmt::e5m2fnuz, 0x1p-17f, Round::rne), 0x01);
  SPOT_EQ(mmaemu::default_nan(Fmt::e5m2fnuz), 0x80);
  // fp16 / bf16.
  SPOT_EQ(cv(Fmt::fp16, 65504.0f, Round::rne), 0x7BFF);
  SPOT_EQ(cv(Fmt::fp16, 65520.0f, Round::rne), 0x7C00);
  SPOT_EQ(cv(Fmt::fp16, 65519.996f, Round::rne), 0x7BFF);
  SPOT_EQ(cv(Fmt::fp16, 0x1p-24f, Round::rne), 0x0001);
  SPOT_EQ(cv(Fmt::fp16, -NAN, Round::rne), 0xFE00);
  SPOT_EQ(cv(Fmt::bf16, 1.00390625f, Round::rne), 0x3F80);  // 1 + 2^-8: tie to even
  SPOT_EQ(cv(Fmt::bf16, 1.01171875f, Round::rne), 0x3F82);  // 1 + 3*2^-8: tie to even (up)
  SPOT_EQ(cv(Fmt::bf16, -NAN, Round::rne), 0xFFC0);
  MESSAGE("fp8 spot facts: " << n << " cases");
}

TEST_CASE("spot facts: tf32 truncation and round_pack options") {
  int n = 0;
  // PA's CDNA3 xf32 test: a = 1 + 2^-10 + 2^-11.
  const float a = 1.0f + 0x1p-10f + 0x1p-11f;
  SPOT_EQ(cv(Fmt::tf32, a, Round::rz), f32(1.0f + 0x1p-10f));
  SPOT_EQ(cv(Fmt::tf32, -a, Round::rz), f32(-(1.0f + 0x1p-10f)));
  SPOT_EQ(cv(Fmt::tf32, a, Round::rna), f32(1.0f + 0x1p-9f));
  SPOT_EQ(cv(Fmt::tf32, a, Round::rne), f32(1.0f + 0x1p-9f));
  SPOT_EQ(cv(Fmt::tf32, 1.0f + 0x1p-11f, Round::rne), f32(1.0f));  // tie to even
  SPOT_EQ(cv(Fmt::tf32, 1.0f + 0x1p-11f, Round::rna), f32(1.0f + 0x1p-10f));
  SPOT_EQ(cv(Fmt::tf32, 0x1.fffffep127f, Round::rz), 0x7F7FE000);
  SPOT_EQ(cv(Fmt::tf32, 0x1.fffffep127f, Round::rne), 0x7F800000);
  SPOT_EQ(cv(Fmt::tf32, 0x1p-149f, Round::ru), 0x00002000);  // tf32 subnormal 2^-136
  SPOT_EQ(cv(Fmt::tf32, 0x1p-149f, Round::rne), 0x0);
  SPOT_EQ(cv(Fmt::tf32, -0x1p-149f, Round::rne), 0x80000000);
  SPOT_EQ(cv(Fmt::tf32, -NAN, Round::rz), 0xFFC00000);

  // round_pack with prec = 13 into fp32: 13 fraction bits, low 10 bits zero.
  const uint64_t m = (1ull << 23) | 0x7FF;  // 1 + 0x7FF * 2^-23
  SPOT_EQ(round_pack(Fmt::fp32, false, m, -23, false, Round::rne, Overflow::ieee, 13), 0x3F800800);
  SPOT_EQ(round_pack(Fmt::fp32, false, m, -23, false, Round::rz, Overflow::ieee, 13), 0x3F800400);
  SPOT_EQ(round_pack(Fmt::fp32, true, m, -23, false, Round::rd, Overflow::ieee, 13), 0xBF800800);
  SPOT_EQ(round_pack(Fmt::fp32, false, (1ull << 24) - 1, -23, false, Round::rne, Overflow::ieee, 13),
          0x40000000);  // carry into the exponent
  // ... and still subnormals, on a 2^-139 grid.
  SPOT_EQ(round_pack(Fmt::fp32, false, 1, -139, false, Round::rne, Overflow::ieee, 13), 0x400);
  SPOT_EQ(round_pack(Fmt::fp32, false, 3, -141, false, Round::rne, Overflow::ieee, 13), 0x400);
  SPOT_EQ(round_pack(Fmt::fp32, false, 1, -140, false, Round::rne, Overflow::ieee, 13), 0x0);
  SPOT_EQ(round_pack(Fmt::fp32, false, 1, -140, false, Round::rna, Overflow::ieee, 13), 0x400);
  SPOT_EQ(round_pack(Fmt::fp32, false, 1, -149, false, Round::ru, Overflow::ieee, 13), 0x400);
  SPOT_EQ(round_pack(Fmt::fp32, true, 1, -149, false, Round::rz, Overflow::ieee, 13), 0x80000000);
  SPOT_EQ(round_pack(Fmt::fp32, false, 0x12345, -149, false, Round::rne, Overflow::ieee, 13), 0x12400);
  SPOT_EQ(round_pack(Fmt::fp32, false, 0x12345, -149, false, Round::rz, Overflow::ieee, 13), 0x12000);
  SPOT_EQ(round_pack(Fmt::fp32, false, 0x7FFFFF, -149, false, Round::rne, Overflow::ieee, 13),
          0x00800000);  // rounds up to the smallest normal
  SPOT_EQ(round_pack(Fmt::fp32, false, 0xFFFFFF, 104, false, Round::rne, Overflow::ieee, 13),
          0x7F800000);  // (2 - 2^-23) * 2^127 rounds to 2^128 on the 13-bit grid
  SPOT_EQ(round_pack(Fmt::fp32, false, 0xFFFFFF, 104, false, Round::rne, Overflow::saturate, 13),
          0x7F7FFC00);  // the largest 13-bit value

  // Overflow::inf: Inf even under RZ; IEEE RZ gives the largest finite value.
  SPOT_EQ(round_pack(Fmt::fp32, false, 1, 128, false, Round::rz, Overflow::inf), 0x7F800000);
  SPOT_EQ(round_pack(Fmt::fp32, true, 1, 128, false, Round::rz, Overflow::inf), 0xFF800000);
  SPOT_EQ(round_pack(Fmt::fp32, false, 1, 128, false, Round::rz, Overflow::ieee), 0x7F7FFFFF);
  SPOT_EQ(round_pack(Fmt::fp32, false, 1, 128, false, Round::rd, Overflow::ieee), 0x7F7FFFFF);
  SPOT_EQ(round_pack(Fmt::fp32, true, 1, 128, false, Round::rd, Overflow::ieee), 0xFF800000);
  SPOT_EQ(round_pack(Fmt::fp32, false, 1, 128, false, Round::rne, Overflow::saturate), 0x7F7FFFFF);
  SPOT_EQ(round_pack(Fmt::fp32, false, 1, 200, false, Round::rz, Overflow::inf), 0x7F800000);
  // Below the overflow threshold RZ stays finite even under Overflow::inf.
  SPOT_EQ(round_pack(Fmt::fp32, false, (1ull << 30) - 1, 98, false, Round::rz, Overflow::inf),
          0x7F7FFFFF);
  SPOT_EQ(round_pack(Fmt::fp16, false, 1, 16, false, Round::rz, Overflow::inf), 0x7C00);
  SPOT_EQ(round_pack(Fmt::fp16, false, 1, 16, false, Round::rz, Overflow::ieee), 0x7BFF);
  // Zero results keep the sign (fnuz: +0 only).
  SPOT_EQ(round_pack(Fmt::fp16, true, 0, 0, false, Round::rne, Overflow::ieee), 0x8000);
  SPOT_EQ(round_pack(Fmt::e4m3fnuz, true, 0, 0, false, Round::rne, Overflow::ieee), 0x00);
  SPOT_EQ(round_pack(Fmt::e5m2fnuz, true, 1, -40, false, Round::rz, Overflow::ieee), 0x00);
  // mag = 0 with sticky: a value in (0, 2^exp), here far below fp16's 2^-24.
  SPOT_EQ(round_pack(Fmt::fp16, false, 0, -30, true, Round::ru, Overflow::ieee), 0x0001);
  SPOT_EQ(round_pack(Fmt::fp16, false, 0, -30, true, Round::rne, Overflow::ieee), 0x0000);
  SPOT_EQ(round_pack(Fmt::fp16, true, 0, -30, true, Round::rd, Overflow::ieee), 0x8001);
  SPOT_EQ(round_pack(Fmt::fp16, true, 0, -30, true, Round::rz, Overflow::ieee), 0x8000);
  // A sticky bit below an exact tie breaks it.
  SPOT_EQ(round_pack(Fmt::fp16, false, (1 << 11) | 1, -11, false, Round::rne, Overflow::ieee),
          0x3C00);  // 1 + 2^-11: tie to even
  SPOT_EQ(round_pack(Fmt::fp16, false, (1 << 11) | 1, -11, true, Round::rne, Overflow::ieee),
          0x3C01);  // just above the tie
  SPOT_EQ(round_pack(Fmt::fp16, false, 1ull << 63, -63, true, Round::ru, Overflow::ieee), 0x3C01);
  SPOT_EQ(round_pack(Fmt::fp16, false, 1ull << 63, -63, true, Round::rz, Overflow::ieee), 0x3C00);
  MESSAGE("tf32/round_pack spot facts: " << n << " cases");
}

TEST_CASE("parse_fmt: names and aliases") {
  int n = 0;
  struct Case {
    const char* name;
    std::optional<Fmt> fmt;
  };
  const Case cases[] = {
      {"fp64", Fmt::fp64},         {"double", Fmt::fp64},      {"binary64", Fmt::fp64},
      {"fp32", Fmt::fp32},         {"FP32", Fmt::fp32},        {"single", Fmt::fp32},
      {"float", Fmt::fp32},        {"binary32", Fmt::fp32},    {"tf32", Fmt::tf32},
      {"TF32", Fmt::tf32},         {"xf32", Fmt::tf32},        {"XF32", Fmt::tf32},
      {"bf16", Fmt::bf16},         {"BF16", Fmt::bf16},        {"bfloat16", Fmt::bf16},
      {"BFloat16", Fmt::bf16},     {"fp16", Fmt::fp16},        {"half", Fmt::fp16},
      {"Half", Fmt::fp16},         {"binary16", Fmt::fp16},    {"e4m3", Fmt::e4m3},
      {"E4M3", Fmt::e4m3},         {"e4m3fn", Fmt::e4m3},      {"e5m2", Fmt::e5m2},
      {"E5M2", Fmt::e5m2},         {"e4m3fnuz", Fmt::e4m3fnuz}, {"E4M3FNUZ", Fmt::e4m3fnuz},
      {"fp8", Fmt::e4m3fnuz},      {"FP8", Fmt::e4m3fnuz},     {"Fp8", Fmt::e4m3fnuz},
      {"e5m2fnuz", Fmt::e5m2fnuz}, {"bf8", Fmt::e5m2fnuz},     {"BF8", Fmt::e5m2fnuz},
      {"", std::nullopt},          {"fp9", std::nullopt},      {"fp8 ", std::nullopt},
      {" fp8", std::nullopt},      {"e4m3fnuzz", std::nullopt}, {"e3m4", std::nullopt},
      {"int8", std::nullopt},      {"tf", std::nullopt},       {"bf", std::nullopt},
  };
  for (const Case& c : cases) {
    ++n;
    INFO("name \"" << std::string(c.name) << "\"");
    const std::optional<Fmt> got = mmaemu::parse_fmt(c.name);
    CHECK(got.has_value() == c.fmt.has_value());
    if (got && c.fmt) CHECK(static_cast<int>(*got) == static_cast<int>(*c.fmt));
  }
  // Every canonical name parses back to its format, in any case.
  for (int i = 0; i < mmaemu::kFmtCount; ++i) {
    const Fmt f = static_cast<Fmt>(i);
    if (mmaemu::info(f).is_integer()) continue;  // parse_int_fmt's
    std::string up = mmaemu::info(f).name;
    for (char& ch : up) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    for (const std::string& nm : {std::string(mmaemu::info(f).name), up}) {
      ++n;
      INFO("name \"" << nm << "\"");
      const std::optional<Fmt> got = mmaemu::parse_fmt(nm);
      REQUIRE(got.has_value());
      CHECK(static_cast<int>(*got) == i);
    }
  }
  MESSAGE("parse_fmt: " << n << " cases");
}
