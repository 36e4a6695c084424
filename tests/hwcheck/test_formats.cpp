// SPDX-License-Identifier: BSD-3-Clause
#include <doctest/doctest.h>

#include <cmath>

#include "formats.h"
#include "independent.h"

using namespace mmaemu::hwcheck;

TEST_CASE("every encoding decodes to a representable value and encodes back") {
  for (InFmt f : {InFmt::fp16, InFmt::bf16, InFmt::e4m3, InFmt::e5m2}) {
    const std::string fmt_name = info(f).folder;
    CAPTURE(fmt_name);
    const uint32_t n = f == InFmt::e4m3 || f == InFmt::e5m2 ? 256u : 65536u;
    int nans = 0;
    for (uint32_t code = 0; code < n; ++code) {
      const uint32_t v = decode_to_fp32(f, code);
      REQUIRE(hwtest::representable(f, v));
      const auto back = encode_from_fp32(f, v);
      REQUIRE(back.has_value());
      if (std::isnan(hwtest::val(v))) {
        ++nans;
        CHECK((decode_to_fp32(f, *back) >> 31) == (v >> 31));
      } else {
        CHECK(*back == code);
      }
    }
    if (f == InFmt::e4m3) CHECK(nans == 2);
  }
}

TEST_CASE("known values") {
  CHECK(decode_to_fp32(InFmt::fp16, 0x3c00) == 0x3f800000u);
  CHECK(hwtest::val(decode_to_fp32(InFmt::fp16, 0x0001)) == std::ldexp(1.0f, -24));
  CHECK(hwtest::val(decode_to_fp32(InFmt::fp16, 0x7bff)) == 65504.0f);
  CHECK(decode_to_fp32(InFmt::fp16, 0xfc00) == 0xff800000u);
  CHECK(hwtest::val(decode_to_fp32(InFmt::e4m3, 0x7e)) == 448.0f);
  CHECK(hwtest::val(decode_to_fp32(InFmt::e4m3, 0x01)) == std::ldexp(1.0f, -9));
  CHECK(std::isnan(hwtest::val(decode_to_fp32(InFmt::e4m3, 0x7f))));
  CHECK(hwtest::val(decode_to_fp32(InFmt::e4m3, 0x78)) == 256.0f);  // exponent 1111 is finite
  CHECK(hwtest::val(decode_to_fp32(InFmt::e5m2, 0x7b)) == 57344.0f);
  CHECK(hwtest::val(decode_to_fp32(InFmt::e5m2, 0x01)) == std::ldexp(1.0f, -16));
  CHECK(decode_to_fp32(InFmt::e5m2, 0x7c) == 0x7f800000u);
  CHECK(decode_to_fp32(InFmt::bf16, 0x3f80) == 0x3f800000u);
  CHECK(decode_to_fp32(InFmt::tf32, 0x3f802000u) == 0x3f802000u);
  CHECK(decode_to_fp32(InFmt::fp16, 0x8000) == 0x80000000u);  // -0
}

TEST_CASE("non-representable values are refused") {
  CHECK_FALSE(encode_from_fp32(InFmt::fp16, fp32_bits(1.0f + std::ldexp(1.0f, -11))));
  CHECK_FALSE(encode_from_fp32(InFmt::fp16, fp32_bits(std::ldexp(1.0f, -25))));
  CHECK_FALSE(encode_from_fp32(InFmt::fp16, fp32_bits(65520.0f)));
  CHECK_FALSE(encode_from_fp32(InFmt::e4m3, fp32_bits(480.0f)));
  CHECK_FALSE(encode_from_fp32(InFmt::e4m3, kFp32Inf));
  CHECK_FALSE(encode_from_fp32(InFmt::e5m2, fp32_bits(1.125f)));
  CHECK_FALSE(encode_from_fp32(InFmt::bf16, 0x3f800001u));
  CHECK_FALSE(encode_from_fp32(InFmt::tf32, 0x3f801000u));
  CHECK(encode_from_fp32(InFmt::tf32, 0x3f802000u) == 0x3f802000u);
  CHECK(encode_from_fp32(InFmt::bf16, 0x00010000u) == 0x0001u);  // bf16 subnormal
}

TEST_CASE("tf32 encodings, sampled") {
  for (uint32_t code = 0; code < (1u << 19); code += 7) {
    const uint32_t bits = code << 13;
    const uint32_t v = decode_to_fp32(InFmt::tf32, bits);
    REQUIRE(hwtest::representable(InFmt::tf32, v));
    if (!std::isnan(hwtest::val(v))) REQUIRE(encode_from_fp32(InFmt::tf32, v) == bits);
  }
}

TEST_CASE("fp32_from_scaled is exact and refuses inexact requests") {
  CHECK(fp32_from_scaled(false, 1, -149) == 1u);
  CHECK(fp32_from_scaled(true, 3, 0) == fp32_bits(-3.0f));
  CHECK_THROWS(fp32_from_scaled(false, 1u << 24, 0));
  CHECK_THROWS(fp32_from_scaled(false, 1, -150));
  CHECK(parse_infmt("E4M3") == InFmt::e4m3);
  CHECK(parse_infmt("e5m2") == InFmt::e5m2);
  CHECK_FALSE(parse_infmt("fp8"));
}
