// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled reference engine (src/ref/block_scaled.h) against every
// vector of docs/block-scaled.md §5, on the B200 (tcgen05) rows and on the
// RTX PRO 6000 (mma.sync) rows, which give the same bits; the unit table
// against §2; the fp6/fp4 subnormal switch.
#include <doctest/doctest.h>

#include <bit>
#include <cstdio>
#include <sstream>
#include <string>

#include "block_scaled_vectors.h"
#include "formats/fp4_packing.h"
#include "models/scaled_units.h"
#include "common/scaled_gemm.h"
#include "ref/block_scaled.h"

using namespace bs_test;
using mmaemu::ScaledUnit;

namespace {

// Expands "i:cc", "i..j:cc" (hex codes) or "packed XX" into k codes.
std::vector<uint8_t> expand(const char* text, int k) {
  std::vector<uint8_t> v(static_cast<size_t>(k), 0);
  std::istringstream in(text);
  std::string tok;
  while (in >> tok) {
    if (tok == "packed") {
      in >> tok;
      const uint8_t byte = static_cast<uint8_t>(std::stoul(tok, nullptr, 16));
      mmaemu::unpack_fp4(&byte, 2, v.data());
      continue;
    }
    const size_t colon = tok.find(':'), dots = tok.find("..");
    const int first = std::stoi(tok.substr(0, dots == std::string::npos ? colon : dots));
    const int last = dots == std::string::npos ? first : std::stoi(tok.substr(dots + 2, colon - dots - 2));
    for (int i = first; i <= last; ++i) v.at(static_cast<size_t>(i)) = static_cast<uint8_t>(std::stoul(tok.substr(colon + 1), nullptr, 16));
  }
  return v;
}

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%08llx", static_cast<unsigned long long>(v));
  return b;
}

// "tcgen05.mma.kind::X" -> "mma.sync.kind::X" (the sm_120 row).
std::string on_rtx(const std::string& ins) { return "mma.sync." + ins.substr(ins.find("kind::")); }

uint64_t run(const ScaledUnit& u, const InstrVector& v) {
  const std::vector<uint8_t> a = expand(v.a, u.k), b = expand(v.b, u.k);
  return mmaemu::ref::scaled_instruction(u, v.out, {v.fa, v.fb, a.data(), b.data(), v.sa.data(), v.sb.data(), v.c});
}

}  // namespace

TEST_CASE("block-scaled spec vectors: 61 instructions on B200 and RTX PRO 6000") {
  int n = 0;
  for (const InstrVector& v : kInstrVectors) {
    for (const std::string& gpu : {std::string("B200"), std::string("RTXPRO6000")}) {
      const std::string ins = gpu == "B200" ? v.instruction : on_rtx(v.instruction);
      const ScaledUnit& u = mmaemu::scaled_unit(gpu, ins);
      const uint64_t got = run(u, v);
      CHECK_MESSAGE(got == v.expected, v.id << " (" << v.what << ") on " << gpu << " " << ins << ": got "
                                            << hex(got) << " want " << hex(v.expected));
    }
    ++n;
  }
  CHECK(n == 61);
}

TEST_CASE("block-scaled spec vectors: renormalised fp6/fp4 subnormals (ST14, T2)") {
  // docs/block-scaled.md §1.3: the alternative decomposition gives 0x3C000001 and 0x3D000001.
  for (const InstrVector& v : kInstrVectors) {
    const std::string id = v.id;
    if (id != "ST14" && id != "T2") continue;
    ScaledUnit u = mmaemu::scaled_unit("B200", v.instruction);
    u.subnormals = mmaemu::NarrowSubnormals::normalize;
    CHECK(run(u, v) == (id == "ST14" ? 0x3C000001u : 0x3D000001u));
  }
}

TEST_CASE("block-scaled spec vectors: 6 GEMMs (chain, epilogue, padding-free K)") {
  for (const GemmVector& v : kGemmVectors) {
    const ScaledUnit& u = mmaemu::scaled_unit("B200", v.instruction);
    const std::vector<uint8_t> a = expand(v.a, v.K), b = expand(v.b, v.K);
    const float c = std::bit_cast<float>(v.c);
    float d = 0;
    mmaemu::test::ScaledGemm g{&u, v.fa, v.fb, 1, 1, static_cast<size_t>(v.K), a.data(), v.sa.data(),
                              b.data(), v.sb.data(), v.alpha, v.beta, v.g_a, v.g_b,
                              v.into_c ? mmaemu::test::ScaledAccumulate::into_c : mmaemu::test::ScaledAccumulate::gpu_blas,
                              &c, &d};
    mmaemu::test::scaled_gemm(g);
    CHECK_MESSAGE(std::bit_cast<uint32_t>(d) == v.expected,
                  v.id << " (" << v.what << "): got " << hex(std::bit_cast<uint32_t>(d)) << " want " << hex(v.expected));
  }
}

TEST_CASE("GEMM padding: K = 32 on a 64-wide GST unit equals the padded instruction") {
  // docs/block-scaled.md §4.3: the missing block is zero elements with a neutral scale.
  const ScaledUnit& u = mmaemu::scaled_unit("B200", "tcgen05.mma.kind::mxf4.block32.ue8m0");
  std::vector<uint8_t> a(64, 0), b(64, 0);
  a[0] = 0x0A;  // -1
  b[0] = 0x02;  // 1
  const uint8_t sa[2] = {0x54, 0x7F}, sb[2] = {0x7F, 0x7F};  // -2^-43 (fp32 normal, kept)
  const uint64_t one = mmaemu::ref::scaled_instruction(u, mmaemu::Fmt::fp32, {mmaemu::Fmt::e2m1, mmaemu::Fmt::e2m1, a.data(), b.data(), sa, sb, 0x80000000u});
  const uint64_t chained = mmaemu::ref::scaled_chain(u, mmaemu::Fmt::fp32, mmaemu::Fmt::e2m1, mmaemu::Fmt::e2m1, 32, a.data(), sa, b.data(), sb, 0x80000000u);
  CHECK(chained == one);
  CHECK(one == 0xAA000000u);  // -2^-43
  // The padded step alone: what lies past the 32 elements and the first
  // scale is never read (zero elements and a neutral scale take its place).
  std::vector<uint8_t> a2 = a, b2 = b;
  a2[40] = b2[40] = 0x07;  // 6
  const uint8_t sa2[2] = {0x54, 0x90}, sb2[2] = {0x7F, 0x90};
  CHECK(mmaemu::ref::scaled_step(u, mmaemu::Fmt::fp32, {mmaemu::Fmt::e2m1, mmaemu::Fmt::e2m1, a2.data(), b2.data(), sa2, sb2, 0x80000000u}, 32) == one);
  // k = 0 issues no instruction: a -0 accumulator stays -0.
  CHECK(mmaemu::ref::scaled_chain(u, mmaemu::Fmt::fp32, mmaemu::Fmt::e2m1, mmaemu::Fmt::e2m1, 0, a.data(), sa, b.data(), sb, 0x80000000u) == 0x80000000u);
}

TEST_CASE("scaled units: the table matches docs/block-scaled.md §2") {
  using mmaemu::Fmt;
  using mmaemu::ScaledAlgo;
  int rows = 0;
  for (const ScaledUnit& u : mmaemu::scaled_units()) {
    ++rows;
    const std::string ins = u.instruction;
    const bool rtx = std::string(u.gpu) == "RTXPRO6000";
    CHECK(ins.rfind(rtx ? "mma.sync.kind::" : "tcgen05.mma.kind::", 0) == 0);
    CHECK(u.round == (std::string(u.gpu) == "B200-RN" ? mmaemu::Round::rne : mmaemu::Round::rz));
    CHECK(u.subnormals == mmaemu::NarrowSubnormals::clamp);
    CHECK(u.m == (rtx ? 16 : u.algo == ScaledAlgo::t_fdpa ? 64 : 128));
    if (ins.find("kind::f8f6f4") != std::string::npos) {  // rows 1, 2
      CHECK(u.algo == ScaledAlgo::t_fdpa);
      CHECK((u.k == 32 && u.frac == 25 && u.e_zero == -133 && u.block == 0));
      CHECK(u.e_zero_f16 == (rtx ? -22 : -133));
      CHECK(u.outputs == (mmaemu::fmt_bit(Fmt::fp32) | mmaemu::fmt_bit(Fmt::fp16)));
      CHECK(u.elements == mmaemu::kF8F6F4);
    } else if (ins.find("kind::mxf8f6f4") != std::string::npos) {  // rows 3, 4
      CHECK(u.algo == ScaledAlgo::st_fdpa);
      CHECK((u.k == 32 && u.frac == 25 && u.e_zero == -133 && u.block == 32 && u.scale == Fmt::ue8m0));
      CHECK(u.elements == mmaemu::kF8F6F4);
    } else {  // rows 5-9
      CHECK(u.algo == ScaledAlgo::gst_fdpa);
      CHECK((u.k == 64 && u.group == 16 && u.frac == 35 && u.e_zero == -139));
      CHECK(u.elements == mmaemu::kFp4Only);
      CHECK(ins.find(u.scale == Fmt::ue8m0 ? ".ue8m0" : ".ue4m3") != std::string::npos);
      CHECK(ins.find(u.block == 16 ? ".block16" : ".block32") != std::string::npos);
    }
    if (ins.find("kind::mxf8f6f4") == std::string::npos && ins.find("kind::f8f6f4") == std::string::npos)
      CHECK(u.outputs == mmaemu::fmt_bit(Fmt::fp32));
  }
  CHECK(rows == 19);
  CHECK(mmaemu::scaled_units_of("B200").size() == 6);
  CHECK(mmaemu::scaled_units_of("RTXPRO6000").size() == 7);
  CHECK(mmaemu::scaled_units_of("H100").empty());
}

TEST_CASE("scaled units: selection and refusals") {
  using mmaemu::Fmt;
  using mmaemu::UnitChoice;
  auto pick = [](Fmt fa, Fmt fb, bool scaled, Fmt s, int blk, UnitChoice c) {
    return std::string(mmaemu::select_scaled_unit("B200", fa, fb, scaled, s, blk, c).instruction);
  };
  CHECK(pick(Fmt::e2m1, Fmt::e2m1, true, Fmt::ue8m0, 32, UnitChoice::automatic) == "tcgen05.mma.kind::mxf4.block32.ue8m0");
  CHECK(pick(Fmt::e2m1, Fmt::e2m1, true, Fmt::ue8m0, 32, UnitChoice::st) == "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0");
  CHECK(pick(Fmt::e2m1, Fmt::e2m1, true, Fmt::ue4m3, 16, UnitChoice::automatic) == "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3");
  CHECK(pick(Fmt::e4m3, Fmt::e2m1, true, Fmt::ue8m0, 32, UnitChoice::automatic) == "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0");
  CHECK(pick(Fmt::e3m2, Fmt::e5m2, false, Fmt::fp32, 0, UnitChoice::automatic) == "tcgen05.mma.kind::f8f6f4");
  CHECK_THROWS_AS(pick(Fmt::e4m3, Fmt::e4m3, true, Fmt::ue4m3, 16, UnitChoice::automatic), std::invalid_argument);
  CHECK_THROWS_AS(pick(Fmt::e4m3, Fmt::e4m3, true, Fmt::ue8m0, 32, UnitChoice::gst), std::invalid_argument);
  CHECK_THROWS_AS(pick(Fmt::e2m1, Fmt::e2m1, true, Fmt::ue4m3, 32, UnitChoice::automatic), std::invalid_argument);  // B200 has no row 9
  CHECK_THROWS_AS(mmaemu::select_scaled_unit("H100", Fmt::e2m1, Fmt::e2m1, true, Fmt::ue8m0, 32, UnitChoice::automatic), std::invalid_argument);
  CHECK_THROWS_AS(mmaemu::scaled_unit("B200", "tcgen05.mma.kind::nope"), std::invalid_argument);
  // A row refuses formats it does not take and outputs it does not have.
  const ScaledUnit& gst = mmaemu::scaled_unit("B200", "tcgen05.mma.kind::mxf4.block32.ue8m0");
  const uint8_t z[64] = {}, s[2] = {0x7F, 0x7F};
  CHECK_THROWS_AS(mmaemu::ref::scaled_instruction(gst, Fmt::fp32, {Fmt::e4m3, Fmt::e2m1, z, z, s, s, 0}), std::invalid_argument);
  CHECK_THROWS_AS(mmaemu::ref::scaled_instruction(gst, Fmt::fp16, {Fmt::e2m1, Fmt::e2m1, z, z, s, s, 0}), std::invalid_argument);
}
