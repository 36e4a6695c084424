// SPDX-License-Identifier: BSD-3-Clause
// The SIMD block quantisers (kernels/quantise_simd.h) against the scalar
// ones (formats/block_quantise.h), codes and scales byte for byte, on
// every SIMD target Highway compiled and this CPU runs
// (hwy::SetSupportedTargetsForTest). OCP MX with each element format
// (e4m3, e5m2, e3m2, e2m3, e2m1) and NVFP4 with the line's own global
// scale, encode 1 and random encode factors. Blocks of random kinds:
// normals over a few binades, values on and next to the element grid and
// its midpoints (ties), the saturation bound and beyond, subnormal results
// and underflow to zero, signed zeros, all-zero blocks, fp32 subnormals,
// NaN and Inf, random words; lines with a short last block. Several
// seeds. Also each line's largest finite magnitude (finite_abs_max)
// against nvfp4_global_scale's loop. MMAEMU_TEST_SEED changes the seeds,
// MMAEMU_DIFF_SCALE multiplies the counts.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "hwy/targets.h"

#include "common/engine_rows.h"
#include "formats/block_quantise.h"
#include "kernels/fp_env.h"
#include "kernels/quantise_simd.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

float of_bits(uint32_t b) { return std::bit_cast<float>(b); }

// One block of `len` values; `top` is the element's largest value, the
// scale of the grid (ties) and of the saturation kinds.
void draw_block(std::mt19937_64& rng, float top, float* v, std::size_t len) {
  const int kind = static_cast<int>(rng() % 10);
  const int base = static_cast<int>(rng() % 200) - 100;  // the block's binade
  const auto sign = [&] { return (rng() & 1) ? -1.0f : 1.0f; };
  for (std::size_t i = 0; i < len; ++i) {
    const uint64_t r = rng();
    float x = 0;
    switch (kind) {
      case 0:  // normals over a few binades
        x = sign() * std::ldexp(1.0f + static_cast<float>(r % (1u << 23)) / (1u << 23), base - static_cast<int>((r >> 30) % 6));
        break;
      case 1: case 2: {  // on the grid, its midpoints, one fp32 ulp either side
        x = sign() * std::ldexp(static_cast<float>(r % 64), base - 5);
        const int nudge = static_cast<int>((r >> 8) % 5);
        if (nudge == 1) x = std::nextafter(x, INFINITY);
        if (nudge == 2) x = std::nextafter(x, -INFINITY);
        break;
      }
      case 3:  // near the largest element value times a power of two: saturation
        x = sign() * std::ldexp(top * (1.0f + static_cast<float>(r % 32) / 256.0f), base);
        if ((r >> 8) % 4 == 0) x = sign() * std::ldexp(of_bits(0x3FFFFFFFu - static_cast<uint32_t>((r >> 40) % 8)), base);
        break;
      case 4:  // one large value, the rest far below: subnormal results, zeros
        x = i == 0 ? std::ldexp(top, base) : sign() * std::ldexp(1.0f + static_cast<float>(r % 1024) / 1024, base - static_cast<int>((r >> 20) % 30));
        break;
      case 5: x = (r & 1) ? -0.0f : 0.0f; break;  // signed zeros only
      case 6: x = of_bits(static_cast<uint32_t>(r) & 0x807FFFFFu); break;  // fp32 subnormals and zeros
      case 7:  // normals with a NaN or Inf now and then
        x = sign() * std::ldexp(1.0f + static_cast<float>(r % 4096) / 4096, base);
        if ((r >> 20) % 16 == 0) x = (r >> 30) & 1 ? of_bits(0x7FC00000u | static_cast<uint32_t>(r >> 40) % 1000) : sign() * INFINITY;
        break;
      case 8: x = std::ldexp(sign() * static_cast<float>(r % 7), base); break;  // few distinct values, ties
      default: x = of_bits(static_cast<uint32_t>(r)); break;  // any word
    }
    v[i] = x;
  }
}

struct Tally {
  std::size_t lines = 0, blocks = 0, simd_blocks = 0, bad = 0;
};

std::size_t compare(const std::string& what, const std::vector<float>& v, std::size_t block,
                    const std::vector<uint8_t>& c1, const std::vector<uint8_t>& c0, const std::vector<uint8_t>& s1,
                    const std::vector<uint8_t>& s0) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < c0.size(); ++i)
    if (c1[i] != c0[i] && ++bad <= 3)
      FAIL_CHECK(what << " code [" << i << "] of v " << hex(std::bit_cast<uint32_t>(v[i])) << ": simd " << hex(c1[i])
                      << " scalar " << hex(c0[i]));
  for (std::size_t t = 0; t < s0.size(); ++t)
    if (s1[t] != s0[t] && ++bad <= 3)
      FAIL_CHECK(what << " scale [" << t << "] (block at " << t * block << "): simd " << hex(s1[t]) << " scalar "
                      << hex(s0[t]));
  return bad;
}

// Whether the SIMD path does the block itself: finite, whole (the lane
// counts divide every block length used here).
bool finite_block(const float* v, std::size_t len) {
  for (std::size_t i = 0; i < len; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

void line(std::mt19937_64& rng, Fmt elem, bool nvfp4, std::size_t block, std::size_t n, const std::string& where,
          Tally& t) {
  std::vector<float> v(n);
  const float top = nvfp4 ? 6.0f : std::bit_cast<float>(static_cast<uint32_t>(to_fp32_bits(elem, element_top_code(elem))));
  for (std::size_t b0 = 0; b0 < n; b0 += block) draw_block(rng, top, v.data() + b0, std::min(block, n - b0));
  const std::size_t nb = (n + block - 1) / block;
  std::vector<uint8_t> c0(n, 0xAA), c1(n, 0x55), s0(nb, 0xAA), s1(nb, 0x55);
  std::string what = where + (nvfp4 ? " nvfp4" : std::string(" mx ") + info(elem).name);
  if (nvfp4) {
    const int how = static_cast<int>(rng() % 4);
    const float encode = how == 0 ? 1.0f
                         : how == 1 ? std::ldexp(1.0f + static_cast<float>(rng() % (1u << 23)) / (1u << 23),
                                                 static_cast<int>(rng() % 60) - 30)
                                    : nvfp4_global_scale(v.data(), n).encode;
    what += " encode " + hex(std::bit_cast<uint32_t>(encode));
    quantise_nvfp4(v.data(), n, encode, c0.data(), s0.data());
    kernels::quantise_nvfp4_simd(v.data(), n, encode, c1.data(), s1.data());
  } else {
    quantise_mx(elem, block, v.data(), n, c0.data(), s0.data());
    kernels::quantise_mx_simd(elem, block, v.data(), n, c1.data(), s1.data());
  }
  // The per-tensor maximum of NVFP4's global scale (nvfp4_global_scale's loop).
  float amax = 0;
  for (float x : v)
    if (std::isfinite(x)) amax = std::max(amax, std::fabs(x));
  const float fast_amax = kernels::finite_abs_max(v.data(), n);
  if (std::bit_cast<uint32_t>(fast_amax) != std::bit_cast<uint32_t>(amax) && ++t.bad <= 3)
    FAIL_CHECK(what << " finite |v| max of " << n << ": simd " << hex(std::bit_cast<uint32_t>(fast_amax)) << " scalar "
                    << hex(std::bit_cast<uint32_t>(amax)));
  ++t.lines;
  for (std::size_t b0 = 0; b0 < n; b0 += block) {
    ++t.blocks;
    t.simd_blocks += n - b0 >= block && finite_block(v.data() + b0, block);
  }
  t.bad += compare(what, v, block, c1, c0, s1, s0);
}

}  // namespace

TEST_CASE("SIMD block quantisation equals the scalar quantisers: every target, MX formats and NVFP4") {
  kernels::FpEnvGuard env;
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  Tally t;
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string tname = hwy::TargetName(target);
    for (uint64_t seed = 0; seed < 4; ++seed) {
      std::mt19937_64 rng(kSeed ^ (seed << 40) ^ static_cast<uint64_t>(target));
      const std::string where = "seed " + std::to_string(kSeed) + "/" + std::to_string(seed) + " target " + tname;
      for (std::size_t rep = 0; rep < 40 * kScale; ++rep) {
        const std::size_t tail = rep % 3 == 0 ? rng() % 16 : 0;  // a short last block now and then
        for (Fmt elem : {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3, Fmt::e2m1})
          line(rng, elem, false, 32, 32 * 8 + tail, where, t);
        line(rng, Fmt::e2m1, true, 16, 16 * 16 + tail, where, t);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  MESSAGE(targets.size() << " targets, " << t.lines << " lines, " << t.blocks << " blocks, " << t.simd_blocks
                         << " finite whole blocks (the SIMD path), " << t.bad << " mismatches");
  CHECK(t.simd_blocks > t.blocks / 2);
  CHECK(t.bad == 0);
}

TEST_CASE("SIMD MX quantisation refuses a format that is not an MX element") {
  const float v[32] = {};
  uint8_t codes[32], scales[1];
  CHECK_THROWS_AS(kernels::quantise_mx_simd(Fmt::fp16, 32, v, 32, codes, scales), std::invalid_argument);
}
