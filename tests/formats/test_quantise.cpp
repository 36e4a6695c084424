// SPDX-License-Identifier: BSD-3-Clause
// Quantisation to OCP MX and NVFP4 and back (docs/block-scaled.md §4.6):
// hand-derived cases and round-trip properties.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <ios>
#include <random>
#include <vector>

#include "formats/block_quantise.h"

using mmaemu::Fmt;

TEST_CASE("MX quantisation: hand-derived blocks") {
  // e2m1 (emax 2): amax 6 -> X = floor(log2 6) - 2 = 0, scale 0x7F;
  // 5 is a tie between 4 and 6 -> 4; 7 saturates to 6; -0.25 ties to -0.
  std::vector<float> v(32, 0.0f);
  v[0] = 6;
  v[1] = 5;
  v[2] = -0.25f;
  v[3] = 1.5f;
  std::vector<uint8_t> codes(32), sc(1);
  mmaemu::quantise_mx(Fmt::e2m1, 32, v.data(), 32, codes.data(), sc.data());
  CHECK(sc[0] == 0x7F);
  CHECK(codes[0] == 0x7);
  CHECK(codes[1] == 0x6);
  CHECK(codes[2] == 0x8);
  CHECK(codes[3] == 0x3);
  // amax 7.9 -> X = 0 still: 7.9 saturates to 6 (the floor rule's top binade).
  v[0] = 7.9f;
  mmaemu::quantise_mx(Fmt::e2m1, 32, v.data(), 32, codes.data(), sc.data());
  CHECK(sc[0] == 0x7F);
  CHECK(codes[0] == 0x7);
  // e4m3 (emax 8): amax 1024 -> X = 10 - 8 = 2, 1024/4 = 256 = 0x78.
  v.assign(32, 0.0f);
  v[5] = 1024;
  v[6] = -3;  // -3/4 = -1.5*2^-1 -> e4m3 0xB4
  mmaemu::quantise_mx(Fmt::e4m3, 32, v.data(), 32, codes.data(), sc.data());
  CHECK(sc[0] == 0x81);
  CHECK(codes[5] == 0x78);
  CHECK(codes[6] == 0xB4);
  // All zero: X = -127 (0x00), elements keep their sign.
  v.assign(32, 0.0f);
  v[1] = -0.0f;
  mmaemu::quantise_mx(Fmt::e5m2, 32, v.data(), 32, codes.data(), sc.data());
  CHECK(sc[0] == 0x00);
  CHECK(codes[0] == 0x00);
  CHECK(codes[1] == 0x80);
  // A NaN or Inf in the block: NaN scale, codes 0; the next block is unaffected.
  v.assign(64, 1.0f);
  v[3] = INFINITY;
  codes.resize(64);
  sc.resize(2);
  mmaemu::quantise_mx(Fmt::e2m3, 32, v.data(), 64, codes.data(), sc.data());
  CHECK(sc[0] == 0xFF);
  CHECK(codes[3] == 0);
  CHECK(sc[1] == 0x7D);  // amax 1: X = 0 - 2 = -2, 1/2^-2 = 4 = e2m3 0x18
  CHECK(codes[40] == 0x18);
  // Tiny amax clamps X at -127: 2^-140 -> X = -142 - ... clamped.
  v.assign(32, std::ldexp(1.0f, -140));
  mmaemu::quantise_mx(Fmt::e2m1, 32, v.data(), 32, codes.data(), sc.data());
  CHECK(sc[0] == 0x00);
  CHECK(codes[0] == 0x0);  // 2^-140 / 2^-127 = 2^-13 rounds to 0 in e2m1
}

TEST_CASE("NVFP4 quantisation: hand-derived blocks") {
  std::vector<float> v(16, 0.0f);
  v[0] = 2688;  // amax: encode = 2688/2688 = 1, decode 1
  v[1] = -448;
  const mmaemu::Nvfp4Global g = mmaemu::nvfp4_global_scale(v.data(), 16);
  CHECK(g.encode == 1.0f);
  CHECK(g.decode == 1.0f);
  std::vector<uint8_t> codes(16), sc(1);
  mmaemu::quantise_nvfp4(v.data(), 16, g.encode, codes.data(), sc.data());
  CHECK(sc[0] == 0x7E);  // 2688/6 = 448: ue4m3 max
  CHECK(codes[0] == 0x7);  // 2688/448 = 6
  CHECK(codes[1] == 0xA);  // -448/448 = -1
  // amax 3: encode = 896; block scale = 3/6*896 = 448 (0x7E); element 3*896/448 = 6.
  v.assign(16, 0.0f);
  v[2] = 3;
  v[3] = 0.75f;  // 0.75*896/448 = 1.5
  const mmaemu::Nvfp4Global g2 = mmaemu::nvfp4_global_scale(v.data(), 16);
  CHECK(g2.encode == 896.0f);
  CHECK(g2.decode == 1.0f / 896.0f);
  mmaemu::quantise_nvfp4(v.data(), 16, g2.encode, codes.data(), sc.data());
  CHECK(sc[0] == 0x7E);
  CHECK(codes[2] == 0x7);
  CHECK(codes[3] == 0x3);
  // A zero block: scale 0, elements zero with their sign.
  v.assign(16, 0.0f);
  v[4] = -0.0f;
  mmaemu::quantise_nvfp4(v.data(), 16, 1.0f, codes.data(), sc.data());
  CHECK(sc[0] == 0x00);
  CHECK(codes[4] == 0x8);
  // Block scale rounding: amax 1 with encode 1 -> 1/6 = 0.1666.. -> ue4m3 RNE:
  // 1/6 = 1.333..*2^-3 -> 1.375*2^-3 (0x23), one rounding of the exact quotient.
  v.assign(16, 0.0f);
  v[0] = 1;
  mmaemu::quantise_nvfp4(v.data(), 16, 1.0f, codes.data(), sc.data());
  CHECK(sc[0] == 0x23);
  CHECK(codes[0] == 0x7);  // 1 / 0.171875 = 5.8 -> 6
}

TEST_CASE("quantise then dequantise: exact values survive, the error is bounded") {
  std::mt19937_64 rng(12345);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  for (Fmt f : {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1}) {
    std::vector<float> v(256), back(256);
    for (float& x : v) x = nd(rng);
    std::vector<uint8_t> codes(256), sc(8);
    mmaemu::quantise_mx(f, 32, v.data(), 256, codes.data(), sc.data());
    mmaemu::dequantise(f, Fmt::ue8m0, 32, codes.data(), sc.data(), 256, 1.0f, back.data());
    // Quantising the dequantised values again reproduces the same codes.
    std::vector<uint8_t> codes2(256), sc2(8);
    mmaemu::quantise_mx(f, 32, back.data(), 256, codes2.data(), sc2.data());
    for (size_t i = 0; i < 256; ++i) {
      if (sc2[i / 32] == sc[i / 32]) CHECK(codes2[i] == codes[i]);
      CHECK(std::signbit(back[i]) == std::signbit(v[i]));
    }
  }
  std::vector<float> v(256), back(256);
  for (float& x : v) x = nd(rng);
  const mmaemu::Nvfp4Global g = mmaemu::nvfp4_global_scale(v.data(), 256);
  std::vector<uint8_t> codes(256), sc(16);
  mmaemu::quantise_nvfp4(v.data(), 256, g.encode, codes.data(), sc.data());
  mmaemu::dequantise(Fmt::e2m1, Fmt::ue4m3, 16, codes.data(), sc.data(), 256, g.decode, back.data());
  for (size_t i = 0; i < 256; ++i) {
    float amax = 0;
    for (size_t j = i / 16 * 16; j < i / 16 * 16 + 16; ++j) amax = std::max(amax, std::fabs(v[j]));
    // Half an e2m1 step at the top binade (1 of 6) plus the scale's rounding.
    CHECK(std::fabs(back[i] - v[i]) <= amax * 0.26f);
  }
  // Dequantisation is one rounding of element*scale*g.
  CHECK(mmaemu::mul3_rne32(3.0f, 0.1f, 1.0f) == 0.3f);  // RNE32(3 * fl(0.1)) = fl(0.3)
  CHECK(std::isnan(mmaemu::mul3_rne32(0.0f, INFINITY, 1.0f)));
}

// The per-element conversion the quantisers make (encode_element, a search
// over the codes) against one generic round_pack() of the exact value or
// quotient: random values over the formats' ranges, every code's value, and
// every midpoint between neighbours and its neighbouring doubles.
TEST_CASE("encode_element equals round_pack: MX values and NVFP4 quotients") {
  using namespace mmaemu;
  std::mt19937_64 rng(12);
  auto slow = [](Fmt f, bool neg, double num, uint64_t den) {
    if (num == 0) return static_cast<uint8_t>(zero_bits(f, neg));
    int e = 0;
    const double m = std::frexp(num, &e);  // num = m * 2^e, m in [0.5, 1): 53 bits
    const uint64_t wide = static_cast<uint64_t>(std::ldexp(m, 53)) << 8;
    // wide / den keeps >= 57 bits, the remainder is the sticky bit: one rounding.
    return static_cast<uint8_t>(
        round_pack(f, neg, wide / den, e - 53 - 8, wide % den != 0, Round::rne, Overflow::saturate));
  };
  for (Fmt f : {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1}) {
    std::vector<double> probes;
    const int top = (1 << (info(f).width - 1)) - 1;
    std::vector<double> vals;
    for (int c = 0; c <= top; ++c) {
      const Unpacked u = decode(f, static_cast<uint64_t>(c));
      if (u.cls == Class::nan || u.cls == Class::inf) break;
      vals.push_back(u.cls == Class::zero ? 0.0 : std::ldexp(static_cast<double>(u.sig), u.exp));
    }
    for (std::size_t c = 0; c < vals.size(); ++c) {
      probes.push_back(vals[c]);
      const double next = c + 1 < vals.size() ? vals[c + 1] : vals[c] * 1.25;
      const double mid = (vals[c] + next) / 2;
      for (double p : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e300), next * 4})
        probes.push_back(p);
    }
    for (int i = 0; i < 20000; ++i)
      probes.push_back(std::ldexp(static_cast<double>(rng() >> 40), static_cast<int>(rng() % 40) - 50));
    for (uint64_t den : {1, 3, 5, 7, 9, 11, 13, 15}) {
      for (double p : probes) {
        // p * den / den: the midpoints again; p / den: inexact quotients.
        for (const double num : {p * static_cast<double>(den), p})
        for (bool neg : {false, true}) {
          const uint8_t want = slow(f, neg, num, den), got = encode_element(f, neg, num, static_cast<double>(den));
          if (want != got)
            FAIL_CHECK(info(f).name << " neg " << neg << " num " << std::hexfloat << num << " den " << den
                                    << ": round_pack 0x" << std::hex << int(want) << " encode 0x" << int(got));
        }
      }
    }
  }
}
