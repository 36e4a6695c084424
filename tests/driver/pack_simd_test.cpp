// SPDX-License-Identifier: BSD-3-Clause
// The SIMD conversion and decode of packing (kernels/pack_simd.h, through
// driver::pack_vectors) against the element-by-element packing, bit for
// bit, on every compiled and supported SIMD target: fp32 storage to each
// registry row's fp16, bf16 or tf32 input under RNE (overflow ieee, inf)
// and RZ, A and B panels (B lane-interleaved, groups split), k contiguous
// and strided, interleaved panels (the scalar way in both), several seeds.
// Elements: normal values, rounding ties and their neighbours, values that
// round up into the next binade or overflow, the unit's subnormals and
// fp32's, zeros, Inf, NaN, random words; vectors with none of the rare
// kinds too (wholly SIMD). fp8 rows: every code's neighbourhood, ties,
// overflow, subnormal edges, NaN, Inf and -0 under several rounding and
// overflow policies, interleaved panels too (all by the SIMD path); the
// packed codes also against convert() itself.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/engine_rows.h"
#include "driver/pack.h"
#include "hwy/highway.h"
#include "kernels/fp_env.h"
#include "models/row_facts.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

// One fp32 pattern for unit format `in` (man fraction bits, exponents
// [emin, emax] of its normals); `plain`: normal values only.
uint32_t draw(Gen& g, Fmt in, bool plain) {
  const int man = info(in).man_bits;
  const int emin = in == Fmt::fp16 ? -14 : -126, emax = in == Fmt::fp16 ? 15 : 127;
  const uint64_t r = g.rng();
  const uint32_t sign = static_cast<uint32_t>(r & 1) << 31;
  const uint32_t frac = static_cast<uint32_t>(g.rng() & 0x7FFFFFu);
  const auto at = [&](int e) { return sign | static_cast<uint32_t>(e + 127) << 23; };
  const int kind = plain ? 0 : static_cast<int>((r >> 8) % 20);
  const int e = emin + static_cast<int>((r >> 16) % static_cast<uint64_t>(emax - emin + 1));
  const uint32_t cut = 1u << (23 - man), half = cut >> 1;  // the unit's ulp and tie in fp32's fraction
  switch (kind) {
    case 0: case 1: case 2: case 3: case 4: return at(e) | frac;  // normal
    case 5: case 6: {  // a tie, just below or above
      const uint32_t lo = (r >> 24) % 3;
      return at(e) | ((frac & ~(cut - 1)) + half + lo - 1);
    }
    case 7: return at(e) | (0x7FFFFFu & ~((r >> 24) % 2 ? 0u : half - 1));  // carries into the next binade
    case 8: return at(emax) | (0x7FFFFFu & ~(half - 1)) | (frac & (half - 1));  // overflows or nearly
    case 9: {  // the unit's subnormal range (fp16), fp32 subnormals (bf16, tf32)
      if (in != Fmt::fp16) return sign | (frac >> ((r >> 24) % 24));
      return at(emin - 1 - static_cast<int>((r >> 24) % 12)) | frac;
    }
    case 10: return sign;                                                  // zero
    case 11: return sign | 0x7F800000u;                                    // Inf
    case 12: return sign | 0x7F800000u | (frac ? frac : 1u);               // NaN
    case 13: return sign | 0x7F800000u | (frac & 0x1FFFu ? frac & 0x1FFFu : 1u);  // NaN, payload below tf32's
    case 14: return at(emax + 1 + static_cast<int>((r >> 24) % static_cast<uint64_t>(std::max(127 - emax, 1)))) | frac;  // beyond
    default: return static_cast<uint32_t>(g.rng());  // any word
  }
}

bool is_fp8(Fmt f) { return f == Fmt::e4m3 || f == Fmt::e5m2 || f == Fmt::e4m3fnuz || f == Fmt::e5m2fnuz; }

// fp32 patterns around every code of fp8 format f: each finite code's
// value and its fp32 neighbours, the halfway points to the next code up
// (ties of RNE/RNA) and theirs, a step beyond the largest finite value
// (overflow, saturation), half a subnormal step (below the smallest
// subnormal) and its neighbours, zeros, Inf, NaNs (several payloads).
std::vector<uint32_t> fp8_edges(Fmt f) {
  std::vector<uint32_t> out;
  const auto value = [&](uint32_t code) { return std::bit_cast<float>(to_fp32_bits(f, code)); };
  const auto near = [&](float x) {
    const uint32_t b = std::bit_cast<uint32_t>(x);
    for (uint32_t s : {0u, 0x80000000u}) {
      out.push_back((b | s));
      if ((b & 0x7FFFFFFFu) != 0) out.push_back((b - 1) | s);
      out.push_back((b + 1) | s);
    }
  };
  float largest = 0.0f, smallest = 0.0f;
  for (uint32_t c = 0; c < 128; ++c) {
    const float x = value(c);
    if (!std::isfinite(x)) continue;
    near(x);
    largest = std::max(largest, x);
    if (x > 0.0f && (smallest == 0.0f || x < smallest)) smallest = x;
    const float up = c + 1 < 128 ? value(c + 1) : NAN;
    if (std::isfinite(up) && up > x) near((x + up) / 2);  // exact: a few significant bits
  }
  // Beyond the largest: its binade's step (the next value's, were there
  // one), half of it (the overflow tie), a quarter.
  const float ulp = std::ldexp(1.0f, std::ilogb(largest) - info(f).man_bits);
  for (float x : {largest + ulp / 4, largest + ulp / 2, largest + ulp, 2 * largest, smallest / 2, smallest / 4,
                  smallest * 0.75f, 65504.0f, 3.4e38f})
    near(x);
  for (uint32_t s : {0u, 0x80000000u})
    for (uint32_t w : {0u, 0x7F800000u, 0x7FC00000u, 0x7F800001u, 0x7FFFFFFFu, 0x7F80FFFFu, 1u, 0x7FFFFFu})
      out.push_back(w | s);
  return out;
}

// fp8 rows: the edge patterns in turn (each panel sweeps the list from a
// random start), random words and values in (-2, 2) between them.
uint32_t draw_fp8(Gen& g, const std::vector<uint32_t>& edges, std::size_t& next) {
  const uint64_t r = g.rng();
  switch (r % 4) {
    case 0: return static_cast<uint32_t>(g.rng());
    case 1: return std::bit_cast<uint32_t>(static_cast<float>(static_cast<double>(r >> 11) * 0x1p-52 - 2.0));
    default: return edges[next++ % edges.size()];
  }
}

template <typename T>
uint64_t as_bits(T v) {
  if constexpr (std::is_same_v<T, float>) return std::bit_cast<uint32_t>(v);
  else if constexpr (std::is_same_v<T, int32_t>) return static_cast<uint32_t>(v);
  else return v;
}

// Element-wise comparison of one array; the first mismatches printed.
template <typename T>
std::size_t compare(const std::string& what, const std::vector<T>& simd, const std::vector<T>& scalar) {
  std::size_t bad = simd.size() != scalar.size();
  for (std::size_t i = 0; i < std::min(simd.size(), scalar.size()); ++i)
    if (as_bits(simd[i]) != as_bits(scalar[i]) && ++bad <= 3)
      FAIL_CHECK("seed " << kSeed << " " << what << " [" << i << "]: simd " << hex(as_bits(simd[i])) << " scalar "
                         << hex(as_bits(scalar[i])));
  return bad;
}

std::string target_name;  // the SIMD target under test

struct Case {
  bool is_a, lanes, simd, trans, interleave, plain;
  std::size_t k = 203;  // (past one chunk of the SIMD path: above 800)
};

std::size_t check(const std::string& name, const ModelRow& row, const driver::GemmSpec& spec, const Case& c,
                  Gen& g, std::size_t& simd_panels) {
  const std::size_t step = step_k(row), k = c.k, pos0 = step, count = c.lanes ? 21 : 5, v0 = c.lanes ? 3 : 1;
  const std::size_t kp = (pos0 + k + step - 1) / step * step, total = v0 + count;
  // op(X) is count x k (vectors x k): stored with k contiguous or strided.
  const bool k_contig = c.is_a != c.trans;
  const std::size_t ld = k_contig ? k + 3 : count + 2;
  std::vector<uint32_t> mem(ld * (k_contig ? count : k), 0);
  const std::vector<uint32_t> edges = is_fp8(row.in) ? fp8_edges(row.in) : std::vector<uint32_t>{};
  std::size_t next = edges.empty() ? 0 : g.rng() % edges.size();
  for (std::size_t q = 0; q < count; ++q)
    for (std::size_t l = 0; l < k; ++l)
      mem[k_contig ? q * ld + l : l * ld + q] = edges.empty() ? draw(g, row.in, c.plain) : draw_fp8(g, edges, next);
  const driver::Operand X{Fmt::fp32, mem.data(), static_cast<std::ptrdiff_t>(ld), c.trans};
  driver::Panel p[2];
  p[0].interleave = c.interleave;
  simd_panels += driver::pack_simd_applies(row, spec, Fmt::fp32, p[0]);
  for (int m = 0; m < 2; ++m) {
    p[m].kp = kp;
    p[m].steps = kp / step;
    p[m].interleave = c.interleave;
    p[m].resize(total, c.simd, c.lanes);
    driver::pack_vectors(row, spec, X, c.is_a, 0, count, 0, k, p[m], v0, pos0,
                         m ? driver::PackMode::scalar : driver::PackMode::best);
  }
  const std::string what = name + " fp32 -> " + std::string(info(row.in).name) + " round " +
                           std::to_string(static_cast<int>(spec.input_round)) + " overflow " +
                           std::to_string(static_cast<int>(spec.input_overflow)) + (c.is_a ? " A" : " B") +
                           (c.lanes ? " lanes" : "") + (c.simd ? " simd" : "") + (c.trans ? " trans" : "") +
                           (c.interleave ? " interleave" : "") + (c.plain ? " normals" : "") + " target " +
                           target_name;
  std::size_t bad = 0;
  // The codes against the reference conversion itself, element by element.
  for (std::size_t q = 0; q < count; ++q)
    for (std::size_t l = 0; l < k; ++l) {
      const uint32_t x = mem[k_contig ? q * ld + l : l * ld + q];
      const uint64_t want = convert(Fmt::fp32, row.in, x, spec.input_round, spec.input_overflow);
      const uint64_t got = p[0].bits[(v0 + q) * kp + pos0 + l];
      if (got != want && ++bad <= 3)
        FAIL_CHECK("seed " << kSeed << " " << what << " convert(" << hex(x) << "): packed " << hex(got)
                           << " reference " << hex(want));
    }
  bad += compare(what + " bits", p[0].bits, p[1].bits);
  bad += compare(what + " sig", p[0].sig, p[1].sig);
  bad += compare(what + " exp", p[0].exp, p[1].exp);
  bad += compare(what + " special", p[0].special, p[1].special);
  bad += compare(what + " fsig", p[0].fsig, p[1].fsig);
  bad += compare(what + " fval", p[0].fval, p[1].fval);
  bad += compare(what + " lane_sig", p[0].lane_sig, p[1].lane_sig);
  bad += compare(what + " lane_val", p[0].lane_val, p[1].lane_val);
  bad += compare(what + " lane_exp", p[0].lane_exp, p[1].lane_exp);
  bad += compare(what + " group_special", p[0].group_special, p[1].group_special);
  return bad;
}

}  // namespace

TEST_CASE("SIMD pack conversion and decode equal the scalar packing: every target, fp16/bf16/tf32 rows") {
  kernels::FpEnvGuard env;
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::size_t bad = 0, panels = 0, rows = 0, simd_panels = 0;
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    target_name = hwy::TargetName(target);
    for (const auto& [name, row] : all_rows()) {
      if (row.in != Fmt::fp16 && row.in != Fmt::bf16 && row.in != Fmt::tf32) continue;
      if (kernels::decoding_of(row) == kernels::Decoding::real64) continue;
      rows += target == targets.front();
      for (int seed = 0; seed < 3; ++seed) {
        Gen g(kSeed ^ std::hash<std::string>{}(name + " pack simd") ^ (static_cast<uint64_t>(seed) << 40) ^
              static_cast<uint64_t>(target));
        for (const auto& [r, ov] : {std::pair{Round::rne, Overflow::ieee}, std::pair{Round::rne, Overflow::inf},
                                    std::pair{Round::rz, Overflow::ieee}}) {
          driver::GemmSpec spec;
          spec.row = &row;
          spec.input_round = r;
          spec.input_overflow = ov;
          for (const Case& c : {Case{true, false, true, false, false, seed == 0},
                                Case{true, false, false, true, false, false},
                                Case{true, false, true, true, false, false},
                                Case{false, true, true, false, false, seed == 0},
                                Case{false, true, true, true, false, false},
                                Case{false, false, true, false, false, false},
                                Case{true, false, true, false, true, false},
                                Case{false, true, true, false, true, false}}) {
            bad += check(name, row, spec, c, g, simd_panels);
            ++panels;
          }
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  MESSAGE(targets.size() << " targets, " << rows << " rows, " << panels << " panels compared, " << simd_panels
                       << " by the SIMD path");
  CHECK(rows > 0);
  CHECK(simd_panels > panels / 4);  // (RZ to fp16/bf16, interleave: the scalar way)
  CHECK(bad == 0);
}

TEST_CASE("SIMD pack conversion and decode equal the scalar packing: every target, fp8 rows") {
  kernels::FpEnvGuard env;
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::size_t bad = 0, panels = 0, simd_panels = 0;
  std::vector<std::string> rows;
  std::vector<Fmt> formats;
  std::size_t nformats = 0;
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    target_name = hwy::TargetName(target);
    for (const auto& [name, row] : all_rows()) {
      if (!is_fp8(row.in)) continue;
      if (target == targets.front()) rows.push_back(name);
      // The conversion depends on the format and the policy only: the other
      // policies on the first row of each format (per target).
      const bool first_of_format = std::find(formats.begin(), formats.end(), row.in) == formats.end();
      if (first_of_format) formats.push_back(row.in);
      Gen g(kSeed ^ std::hash<std::string>{}(name + " pack simd fp8") ^ static_cast<uint64_t>(target));
      // Every rounding and overflow policy the conversion tables serve, in
      // a few pairs (the sgemm policy first).
      for (const auto& [r, ov] : {std::pair{Round::rne, Overflow::ieee}, std::pair{Round::rne, Overflow::saturate},
                                  std::pair{Round::rna, Overflow::inf}, std::pair{Round::rz, Overflow::ieee},
                                  std::pair{Round::ru, Overflow::saturate}, std::pair{Round::rd, Overflow::inf}}) {
        driver::GemmSpec spec;
        spec.row = &row;
        spec.input_round = r;
        spec.input_overflow = ov;
        const bool sgemm = r == Round::rne && ov == Overflow::ieee;
        for (const Case& c : {Case{true, false, true, false, false, false}, Case{true, false, true, true, false, false},
                              Case{false, true, true, false, false, false}, Case{false, true, true, true, false, false},
                              Case{false, false, true, false, false, false}, Case{true, false, true, false, true, false},
                              Case{false, true, true, false, true, false}, Case{true, false, true, true, true, false},
                              Case{false, true, true, true, true, false}, Case{true, false, false, false, true, false},
                              Case{true, false, true, false, true, false, 1100},
                              Case{false, true, true, false, true, false, 1100},
                              Case{false, true, true, true, false, false, 1100}}) {
          if (!sgemm && (c.trans || c.interleave || c.k != 203 || !first_of_format)) continue;  // (layouts: the sgemm policy)
          const std::size_t before = simd_panels;
          bad += check(name, row, spec, c, g, simd_panels);
          CHECK_MESSAGE(simd_panels == before + 1, name << " target " << target_name << ": not the SIMD path");
          ++panels;
        }
      }
    }
    nformats = formats.size();
    formats.clear();
  }
  hwy::SetSupportedTargetsForTest(0);
  MESSAGE(targets.size() << " targets, " << rows.size() << " rows, " << nformats << " fp8 formats, " << panels
                       << " panels compared, " << simd_panels << " by the SIMD path");
  // The registry's fp8 rows: OCP e4m3 and e5m2 (NVIDIA, MI350), FNUZ (MI300X).
  CHECK(nformats == 4);
  CHECK(bad == 0);
}
