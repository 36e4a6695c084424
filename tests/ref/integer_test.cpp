// SPDX-License-Identifier: BSD-3-Clause
// The integer units' reference (src/ref/integer.h; docs/models.md, Integer
// units) on hand-computed vectors: wrapping modulo 2^32 in a long chain,
// .satfinite clamping at both clamp points (sat_point), mixed signedness,
// int4 sign extension and packing, and the combinations the registry
// refuses (int4 on Hopper and Blackwell, satfinite on AMD). Every check
// prints the model, the row's formats and the values in hex.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/hex.h"
#include "formats/format.h"
#include "formats/int4_packing.h"
#include "models/model.h"
#include "ref/integer.h"
#include "ref/reference.h"

using namespace mmaemu;

namespace {

// The nonzero (a_i, b_i) of a chain; every other input is 0.
struct Pairs {
  std::vector<std::pair<std::size_t, std::pair<uint64_t, uint64_t>>> at;  // position, (a, b)
};

std::string describe(const std::string& model, const ModelRow& r, std::size_t k, const Pairs& p, uint64_t c) {
  std::string s = model + " " + r.instr + " " + formats_of(r) + " overflow=" +
                  (r.overflow == IntOverflow::wrap ? "wrap" : "satfinite") +
                  (r.sat_point == SatPoint::addition ? " sat_point=addition" : "") + ", k=" + std::to_string(k) +
                  ", c=" + hex(c) + ", a,b:";
  for (std::size_t i = 0; i < p.at.size() && i < 6; ++i)
    s += " [" + std::to_string(p.at[i].first) + "] " + hex(p.at[i].second.first) + "*" + hex(p.at[i].second.second);
  if (p.at.size() > 6) s += " ... (" + std::to_string(p.at.size()) + " pairs)";
  return s;
}

// ref::dot of the row over k inputs against the expected s32 code.
void check_dot(const std::string& model, const ModelRow& r, std::size_t k, const Pairs& p, uint64_t c,
               uint64_t want) {
  std::vector<uint64_t> a(k, 0), b(k, 0);
  for (const auto& [i, ab] : p.at) a[i] = ab.first, b[i] = ab.second;
  const uint64_t got = ref::dot(r, k, a.data(), b.data(), c);
  CHECK_MESSAGE(got == want, describe(model, r, k, p, c) << ": got " << hex(got) << ", want " << hex(want));
}

const ModelRow& unit(const Model& m, Fmt a, Fmt b) { return m.require_integer(a, b, Fmt::s32); }

// Every position 0..k-1 holds the same pair.
Pairs all(std::size_t k, uint64_t a, uint64_t b) {
  Pairs p;
  for (std::size_t i = 0; i < k; ++i) p.at.push_back({i, {a, b}});
  return p;
}

}  // namespace

TEST_CASE("integer codes: sign extension of s8, s4 and s32, unsigned u8 and u4") {
  CHECK(int_value(Fmt::s8, 0x7F) == 127);
  CHECK(int_value(Fmt::s8, 0x80) == -128);
  CHECK(int_value(Fmt::s8, 0xFF) == -1);
  CHECK(int_value(Fmt::u8, 0xFF) == 255);
  CHECK(int_value(Fmt::s4, 0x8) == -8);
  CHECK(int_value(Fmt::s4, 0xF) == -1);
  CHECK(int_value(Fmt::s4, 0x7) == 7);
  CHECK(int_value(Fmt::s4, 0xF8) == -8);  // only the low nibble is read
  CHECK(int_value(Fmt::u4, 0xF) == 15);
  CHECK(int_value(Fmt::s32, 0x80000000) == -2147483648LL);
  CHECK(int_value(Fmt::s32, 0x7FFFFFFF) == 2147483647);
  const Unpacked u = decode(Fmt::s8, 0x80);
  CHECK((u.cls == Class::finite && u.neg && u.sig == 128 && u.exp == 0));
  CHECK(decode(Fmt::u4, 0).cls == Class::zero);
  CHECK(parse_int_fmt("int8") == Fmt::s8);
  CHECK(parse_int_fmt("U4") == Fmt::u4);
  CHECK(!parse_fmt("s8"));  // the C API's formats stay the floating-point and scale ones
  CHECK(ref::wrap_s32(int64_t{1} << 31) == 0x80000000u);
  CHECK(ref::clamp_s32(int64_t{1} << 31) == 0x7FFFFFFFu);
  CHECK(ref::clamp_s32(-(int64_t{1} << 31) - 1) == 0x80000000u);
}

TEST_CASE("int4 packing: two per byte, element 2i in the low nibble") {
  const uint8_t codes[5] = {0xF, 0x8, 0x1, 0x7, 0x9};
  uint8_t packed[3] = {};
  pack_int4(codes, 5, packed);
  CHECK(packed[0] == 0x8F);
  CHECK(packed[1] == 0x71);
  CHECK(packed[2] == 0x09);
  CHECK(int4_packed_bytes(5) == 3);
  CHECK(int_value(Fmt::s4, int4_at(packed, 0)) == -1);
  CHECK(int_value(Fmt::s4, int4_at(packed, 1)) == -8);
  CHECK(int_value(Fmt::u4, int4_at(packed, 1)) == 8);
}

TEST_CASE("wrap: 127*127 products overflow 2^31 in a long chain and wrap modulo 2^32") {
  // 134400 products of 16129 = 2167737600 = 0x81350d00: above 2^31 - 1,
  // so the s32 result reads -2127229696. Every s8 unit wraps alike (the
  // sum is exact whatever the instruction's k).
  const std::size_t k = 134400;
  for (const char* name : {"T4", "A100", "L40S", "H100", "B200", "RTXPRO6000", "MI100", "MI250", "MI300X"}) {
    const Model m = lookup_model(name);
    check_dot(name, unit(m, Fmt::s8, Fmt::s8), k, all(k, 0x7F, 0x7F), 0, 0x81350d00);
    // -128 * -128 from c = 0x7ff00000: 0x7ff00000 + 134400 * 16384 wraps.
    check_dot(name, unit(m, Fmt::s8, Fmt::s8), k, all(k, 0x80, 0x80), 0x7ff00000,
              (0x7ff00000ull + 134400ull * 16384ull) & 0xFFFFFFFFull);
  }
  // c = MIN_INT32 plus -1 wraps to MAX_INT32.
  const Model a100 = lookup_model("A100");
  check_dot("A100", unit(a100, Fmt::s8, Fmt::s8), 1, {{{0, {0xFF, 0x01}}}}, 0x80000000, 0x7FFFFFFF);
}

TEST_CASE("satfinite: one clamp per instruction (the default) or one per addition") {
  const Model sat = lookup_model("custom:base=A100,overflow=satfinite");
  const Model add = lookup_model("custom:base=A100,overflow=satfinite,sat_point=addition");
  const Model wrap = lookup_model("A100");
  const ModelRow& rs = unit(sat, Fmt::s8, Fmt::s8);
  const ModelRow& ra = unit(add, Fmt::s8, Fmt::s8);
  const ModelRow& rw = unit(wrap, Fmt::s8, Fmt::s8);
  REQUIRE(rs.k == 32);
  const uint64_t c = 0x7FFFFFF0;  // MAX_INT32 - 15
  // +16129 then -16129 in one instruction: the exact sum is c; clamping
  // every partial sum clamps c + 16129 to MAX_INT32 first.
  const Pairs up_down{{{0, {0x7F, 0x7F}}, {1, {0x81, 0x7F}}}};
  check_dot("A100 satfinite", rs, 32, up_down, c, 0x7FFFFFF0);
  check_dot("A100 satfinite addition", ra, 32, up_down, c, 0x7FFFC0FE);  // MAX_INT32 - 16129
  check_dot("A100", rw, 32, up_down, c, 0x7FFFFFF0);
  // The same two products in two instructions: each instruction clamps.
  const Pairs split{{{0, {0x7F, 0x7F}}, {32, {0x81, 0x7F}}}};
  check_dot("A100 satfinite", rs, 64, split, c, 0x7FFFC0FE);
  check_dot("A100 satfinite addition", ra, 64, split, c, 0x7FFFC0FE);
  check_dot("A100", rw, 64, split, c, 0x7FFFFFF0);
  // One positive product past MAX_INT32: clamped (both points) or wrapped.
  const Pairs up{{{5, {0x7F, 0x7F}}}};
  check_dot("A100 satfinite", rs, 32, up, c, 0x7FFFFFFF);
  check_dot("A100 satfinite addition", ra, 32, up, c, 0x7FFFFFFF);
  check_dot("A100", rw, 32, up, c, 0x80003EF1);
  // Below MIN_INT32: c = MIN_INT32, product -1.
  const Pairs down{{{0, {0xFF, 0x01}}}};
  check_dot("A100 satfinite", rs, 32, down, 0x80000000, 0x80000000);
  check_dot("A100 satfinite addition", ra, 32, down, 0x80000000, 0x80000000);
  // The long chain: clamped at MAX_INT32 from the instruction that crosses it on.
  check_dot("A100 satfinite", rs, 134400, all(134400, 0x7F, 0x7F), 0, 0x7FFFFFFF);
  // wgmma and tcgen05.mma have .satfinite too.
  const Model h = lookup_model("custom:base=H100,overflow=satfinite@wgmma");
  check_dot("H100@wgmma satfinite", unit(h, Fmt::s8, Fmt::s8), 32, up, c, 0x7FFFFFFF);
  const Model b = lookup_model("custom:base=B200,overflow=satfinite@tcgen05.mma");
  check_dot("B200@tcgen05.mma satfinite", unit(b, Fmt::u8, Fmt::s8), 32, up, c, 0x7FFFFFFF);
}

TEST_CASE("mixed signedness: the same bits read by s8 x s8, s8 x u8, u8 x s8 and u8 x u8") {
  for (const char* name : {"T4", "A100", "H100", "B200", "RTXPRO6000"}) {
    const Model m = lookup_model(name);
    CAPTURE(name);
    // 0xff * 0xff: (-1)(-1), (-1)(255), (255)(-1), 255*255.
    const Pairs ff{{{3, {0xFF, 0xFF}}}};
    check_dot(name, unit(m, Fmt::s8, Fmt::s8), 16, ff, 0, 0x1);
    check_dot(name, unit(m, Fmt::s8, Fmt::u8), 16, ff, 0, 0xFFFFFF01);
    check_dot(name, unit(m, Fmt::u8, Fmt::s8), 16, ff, 0, 0xFFFFFF01);
    check_dot(name, unit(m, Fmt::u8, Fmt::u8), 16, ff, 0, 0xFE01);
    // 0x80 * 0x80: 16384, -16384, -16384, 16384; plus c = 1.
    const Pairs h80{{{0, {0x80, 0x80}}}};
    check_dot(name, unit(m, Fmt::s8, Fmt::s8), 16, h80, 1, 0x4001);
    check_dot(name, unit(m, Fmt::s8, Fmt::u8), 16, h80, 1, 0xFFFFC001);
    check_dot(name, unit(m, Fmt::u8, Fmt::s8), 16, h80, 1, 0xFFFFC001);
    check_dot(name, unit(m, Fmt::u8, Fmt::u8), 16, h80, 1, 0x4001);
  }
  // Wrap with u8 x u8: 255*255 = 65025 per product, 33100 products from 0:
  // 2152327500 = 0x8049e94c, past MAX_INT32.
  const Model a100 = lookup_model("A100");
  check_dot("A100", unit(a100, Fmt::u8, Fmt::u8), 33100, all(33100, 0xFF, 0xFF), 0, 0x8049e94c);
}

TEST_CASE("int4: s4 sign extension and u4, on the units that run int4") {
  for (const char* name : {"T4", "A100", "A2", "L40S", "RTX1000"}) {
    const Model m = lookup_model(name);
    CAPTURE(name);
    const std::size_t k = static_cast<std::size_t>(unit(m, Fmt::s4, Fmt::s4).k);
    const Pairs p{{{0, {0x8, 0xF}}}};  // s4: -8 * -1; u4: 8 and 15
    check_dot(name, unit(m, Fmt::s4, Fmt::s4), k, p, 0, 0x8);
    check_dot(name, unit(m, Fmt::u4, Fmt::s4), k, p, 0, 0xFFFFFFF8);
    check_dot(name, unit(m, Fmt::s4, Fmt::u4), k, p, 0, 0xFFFFFF88);
    check_dot(name, unit(m, Fmt::u4, Fmt::u4), k, p, 0, 0x78);
    // A full instruction of -8 * 7 from c = 100: 100 - 56*k.
    check_dot(name, unit(m, Fmt::s4, Fmt::s4), k, all(k, 0x8, 0x7), 100,
              ref::wrap_s32(100 - 56 * static_cast<int64_t>(k)));
  }
}

TEST_CASE("the scalar reference steps one instruction of row.k at a time") {
  const Model m = lookup_model("MI300X");
  const ModelRow& r = unit(m, Fmt::s8, Fmt::s8);
  CHECK(ref::step_k(r) == 32);
  std::vector<uint64_t> a(40, 0x7F), b(40, 0x02);
  CHECK(ref::dot(r, 40, a.data(), b.data(), 7) == 7 + 40 * 254);
  CHECK(ref::step(r, 8, a.data(), b.data(), 7) == 7 + 8 * 254);
  // ignores_c (a custom variant): D = A*B.
  const Model d0 = lookup_model("custom:base=A100,ignores_c=1");
  CHECK(ref::dot(unit(d0, Fmt::s8, Fmt::s8), 40, a.data(), b.data(), 7) == 40 * 254);
}

TEST_CASE("refused: int4 on Hopper and Blackwell, satfinite on AMD; the valid ones are named") {
  for (const char* name : {"H100", "H200", "B200", "B200-RN", "RTXPRO6000"}) {
    CAPTURE(name);
    const Model m = lookup_model(name);
    CHECK(m.find_integer(Fmt::s4, Fmt::s4, Fmt::s32) == nullptr);
    CHECK(m.find_integer(Fmt::s8, Fmt::s8, Fmt::s32) != nullptr);
    CHECK_THROWS_WITH_AS(m.require_integer(Fmt::s4, Fmt::u4, Fmt::s32),
                         doctest::Contains("has no integer unit for s4 x u4->s32; its integer units: s8 x s8->s32, "
                                           "s8 x u8->s32, u8 x s8->s32, u8 x u8->s32"),
                         std::invalid_argument);
    std::string e;
    try {
      lookup_model(std::string("custom:base=") + name + ",in=s4");
    } catch (const std::invalid_argument& x) {
      e = x.what();
    }
    CHECK(e.find("has in=s4") != std::string::npos);
    CHECK(e.find("s8 x u8->s32") != std::string::npos);
  }
  for (const char* name : {"MI100", "MI250", "MI300X"}) {
    CAPTURE(name);
    std::string e;
    try {
      lookup_model(std::string("custom:base=") + name + ",overflow=satfinite");
    } catch (const std::invalid_argument& x) {
      e = x.what();
    }
    CHECK(e.find("overflow=satfinite needs an instruction with a .satfinite variant") != std::string::npos);
    CHECK(e.find("valid here overflow=wrap") != std::string::npos);
    CHECK(e.find("v_mfma_i32_") != std::string::npos);
    const Model m = lookup_model(name);
    CHECK_THROWS_WITH_AS(m.require_integer(Fmt::u8, Fmt::s8, Fmt::s32),
                         doctest::Contains("its integer units: s8 x s8->s32"), std::invalid_argument);
  }
  // V100 has no integer unit; a key only integer rows read is refused there.
  CHECK_THROWS_WITH_AS(lookup_model("V100").require_integer(Fmt::s8, Fmt::s8, Fmt::s32),
                       doctest::Contains("its integer units: none"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(lookup_model("custom:base=V100,overflow=satfinite"),
                       doctest::Contains("overflow=satfinite is refused: no row of V100 reads it"),
                       std::invalid_argument);
  // Integer formats only on the integer path, and one width for A and B.
  CHECK_THROWS_WITH_AS(lookup_model("custom:in=s8,out=s32"), doctest::Contains("integer path's formats"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(lookup_model("custom:in=s8,in_b=u4,out=s32,accum=integer"),
                       doctest::Contains("one width for both"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(lookup_model("custom:in=s8,out=fp32,accum=integer"), doctest::Contains("gives s32"),
                       std::invalid_argument);
  // A path switch applies to the floating-point rows; the integer units keep theirs.
  const Model a2 = lookup_model("custom:base=A2,accum=exact");
  REQUIRE(!a2.integer.empty());
  for (const ModelRow& r : a2.integer) CHECK(r.accum == Accumulation::integer);
}
