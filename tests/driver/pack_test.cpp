// SPDX-License-Identifier: BSD-3-Clause
// The packing fast paths (driver/pack.h) against the generic code, bit for
// bit: convert_packed() against convert() on every sign and exponent of
// fp32 with fractions at and around each rounding tie, specials and random
// patterns; pack_vectors() against decode_operand() (pack_element, ldexp)
// on every code of each registry row's input format (16 bits or fewer),
// on edge and random patterns of the fp32-layout formats, and with the
// fp32 -> unit conversions, both layouts of k (contiguous and strided);
// the CDNA1 exact panels' SIMD lane-group packer against pack_exact().
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <vector>

#include "common/engine_rows.h"
#include "driver/pack.h"
#include "formats/fast_convert.h"
#include "hwy/targets.h"
#include "kernels/plan.h"
#include "kernels/fp_env.h"
#include "models/row_facts.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

// fp32 patterns: per sign and biased exponent, the fractions at, just
// below and above the tie of every kept width (bf16 7, fp16 10 and its
// subnormal range, tf32 10) and random ones; then random 32-bit words.
std::vector<uint32_t> fp32_cases(Gen& g) {
  std::vector<uint32_t> v;
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t e = 0; e < 256; ++e) {
      const uint32_t base = sign << 31 | e << 23;
      for (int cut = 0; cut < 23; ++cut) {  // the tie below fraction bit `cut`
        const uint32_t half = cut ? 1u << (cut - 1) : 0u;
        for (uint32_t hi : {0u, 1u << cut, 0x7FFFFFu & ~((2u << cut) - 1), 0x7FFFFFu & ~((1u << cut) - 1)})
          for (uint32_t lo : {half, half - 1, half + 1, 0u})
            v.push_back(base | ((hi | lo) & 0x7FFFFFu));
      }
      for (int r = 0; r < 64; ++r) v.push_back(base | static_cast<uint32_t>(g.rng() & 0x7FFFFFu));
    }
  for (int r = 0; r < (1 << 18); ++r) v.push_back(static_cast<uint32_t>(g.rng()));
  return v;
}

}  // namespace

TEST_CASE("convert_packed equals convert: fp32 -> fp16/bf16/tf32/fp8, every exponent, ties, specials") {
  kernels::FpEnvGuard env;
  Gen g(kSeed ^ 0x9ac4);
  const std::vector<uint32_t> cases = fp32_cases(g);
  std::size_t bad = 0, fast_cases = 0;
  for (Fmt to : {Fmt::fp16, Fmt::bf16, Fmt::tf32, Fmt::e4m3, Fmt::e5m2, Fmt::e4m3fnuz, Fmt::e5m2fnuz})
    for (Round r : {Round::rne, Round::rz, Round::rna})
      for (Overflow ov : {Overflow::ieee, Overflow::inf, Overflow::saturate}) {
        const driver::InputConv conv = driver::input_conv(Fmt::fp32, to, r, ov);
        fast_cases += conv.path != driver::InputPath::generic;
        for (uint32_t b : cases) {
          const uint64_t want = convert(Fmt::fp32, to, b, r, ov);
          const uint64_t got = driver::convert_packed(conv, Fmt::fp32, to, b, r, ov);
          if (got != want && ++bad <= 5)
            FAIL_CHECK("seed " << kSeed << " fp32 -> " << std::string(info(to).name) << " round " << static_cast<int>(r)
                               << " overflow " << static_cast<int>(ov) << " of " << hex(b) << ": convert "
                               << hex(want) << " packed " << hex(got));
        }
      }
  // fp16, bf16: RNE with overflow ieee or inf; tf32: those and RZ under all
  // three; fp8: every rounding and overflow (the table).
  CHECK(fast_cases == 2 + 2 + 5 + 4 * 9);
  CHECK(bad == 0);
}

namespace {

// Packs `codes` (storage format `storage`, k of them, as one vector of A or
// B in both layouts) and compares every field with decode_operand() of
// the unit bits convert() gives.
std::size_t check_pack(const std::string& name, const ModelRow& row, Fmt storage, const std::vector<uint64_t>& codes,
                       bool lanes) {
  const std::size_t step = step_k(row), k = codes.size(), kp = (k + step - 1) / step * step;
  std::vector<uint8_t> mem(k * 8 * 3);
  std::size_t bad = 0;
  for (int layout = 0; layout < 2; ++layout) {
    // layout 0: k contiguous (A row-major); 1: k strided by 3 (B row-major, ld 3, vector 1 of 3).
    const std::ptrdiff_t stride = layout ? 3 : 1;
    std::memset(mem.data(), 0, mem.size());
    for (std::size_t l = 0; l < k; ++l) store(storage, mem.data(), static_cast<std::ptrdiff_t>(l) * stride + layout, codes[l]);
    driver::Operand X{storage, mem.data(), layout ? 3 : static_cast<std::ptrdiff_t>(k), false};
    driver::GemmSpec spec;
    spec.row = &row;
    driver::Panel p;
    p.kp = kp;
    p.steps = kp / step;
    p.resize(1, true, lanes);
    driver::pack_vectors(row, spec, X, layout == 0, layout, 1, 0, k, p, 0);
    std::vector<uint8_t> special(p.steps, 0);
    for (std::size_t l = 0; l < k; ++l) {
      // (convert_input: convert(), but a code already in the unit's format is kept as is)
      const uint64_t bits = convert_input(storage, row.in, codes[l], spec.input_round, spec.input_overflow);
      bool finite;
      const driver::Decoded d = driver::decode_operand(row, bits, finite);
      if (!finite) special[l / step] = 1;
      const float fsig = lanes ? p.lane_sig[l * kernels::kSimdLanes] : p.fsig[l];  // B: lane 0 of group 0
      const float fval = lanes ? p.lane_val[l * kernels::kSimdLanes] : p.fval[l];
      const bool same = p.bits[l] == bits && p.sig[l] == d.sig && p.exp[l] == d.exp &&
                        std::bit_cast<uint32_t>(fsig) == std::bit_cast<uint32_t>(d.fsig) &&
                        std::bit_cast<uint32_t>(fval) == std::bit_cast<uint32_t>(d.fval) &&
                        (!lanes || p.lane_exp[l * kernels::kSimdLanes] == d.exp);
      if (!same && ++bad <= 3)
        FAIL_CHECK("seed " << kSeed << " " << name << " from " << std::string(info(storage).name) << " layout " << layout
                           << " code " << hex(codes[l]) << ": bits " << hex(p.bits[l]) << "/" << hex(bits) << " sig "
                           << p.sig[l] << "/" << d.sig << " exp " << p.exp[l] << "/" << d.exp << " fval "
                           << hex(std::bit_cast<uint32_t>(fval)) << "/" << hex(std::bit_cast<uint32_t>(d.fval)));
    }
    for (std::size_t s = 0; s < p.steps; ++s)
      if (p.special[s] != special[s] && ++bad <= 3) FAIL_CHECK(name << " special flag of step " << s);
  }
  return bad;
}

}  // namespace

TEST_CASE("pack_vectors equals decode_operand: every code of each row's input, fp32-layout edges, fp32 storage") {
  kernels::FpEnvGuard env;
  std::size_t bad = 0, rows = 0;
  for (const auto& [name, row] : all_rows()) {
    if (kernels::decoding_of(row) == kernels::Decoding::real64) continue;
    if (is_integer_row(row)) continue;  // the integer plug-in reads its codes itself (driver/integer_kind.cpp)
    ++rows;
    Gen g(kSeed ^ std::hash<std::string>{}(name + " pack"));
    const FormatInfo& fi = info(row.in);
    std::vector<uint64_t> codes;
    if (fi.width <= 16) {
      for (uint64_t c = 0; c < (uint64_t{1} << fi.width); ++c) codes.push_back(c);
    } else {  // fp32 layout: every exponent, both signs, random fractions; random words
      for (uint64_t s = 0; s < 2; ++s)
        for (uint64_t e = 0; e < 256; ++e)
          for (int r = 0; r < 8; ++r)
            codes.push_back(s << 31 | e << 23 | ((g.rng() & 0x7FFFFF) & ~((uint64_t{1} << fi.frac_shift) - 1)));
      for (int r = 0; r < 4096; ++r) codes.push_back(g.rng() & 0xFFFFFFFFu & ~((uint64_t{1} << fi.frac_shift) - 1));
      for (int r = 0; r < 4096; ++r) codes.push_back(g.rng() & 0xFFFFFFFFu);  // tf32: bits below the fraction set
    }
    bad += check_pack(name, row, row.in, codes, rows % 2);
    // From fp32 storage (the sgemm shim): the conversion fast paths and the generic one.
    if (row.in != Fmt::fp32) {
      std::vector<uint64_t> f32;
      for (uint32_t b : fp32_cases(g)) f32.push_back(b);
      f32.resize(1 << 16);
      bad += check_pack(name, row, Fmt::fp32, f32, rows % 2 == 0);
    }
  }
  MESSAGE(rows << " rows");
  CHECK(bad == 0);
}

TEST_CASE("exact panels: the SIMD lane-group packer equals pack_exact, fp32 storage, every target") {
  // pack_exact_group() packs a lane group of a CDNA1 exact B panel from fp32
  // storage (rounded to fp16 or bf16 with RNE) with kernels::exact_pack_lanes
  // and hands NaN/Inf (and bf16 subnormal) blocks to pack_exact(); the panel
  // must equal pack_exact() column by column: values, bounds, flags. The
  // same for A's rows (pack_exact_rows(): 16 rows as the lanes). Both
  // layouts of B, partial groups, k0 inside the operand, kc not a multiple
  // of the block, step ranges (slices).
  kernels::FpEnvGuard env;
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::size_t bad = 0, rows = 0, panels = 0;
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    for (const auto& [name, row] : all_rows()) {
      if (kernels::plan(row).macro != kernels::Macro::exact) continue;
      if (row.in != Fmt::fp16 && row.in != Fmt::bf16) continue;
      ++rows;
      const std::string id = name + " " + hwy::TargetName(target);
      Gen g(kSeed ^ std::hash<std::string>{}(id + " exact pack"));
      const std::vector<uint32_t> cases = fp32_cases(g);
      const std::size_t step = step_k(row);
      for (int t = 0; t < 24; ++t) {
        const bool trans = t & 1;
        const std::size_t n = 1 + g.rng() % 40, k0 = g.rng() % 5, kc = 1 + g.rng() % 200, k = k0 + kc;
        const std::size_t steps = (kc + step - 1) / step, kp = steps * step;
        const std::size_t ld = (trans ? k : n) + g.rng() % 3;
        std::vector<uint32_t> B((trans ? n : k) * ld);
        for (auto& x : B) {
          const uint64_t r = g.rng() % 64;
          x = r == 0 ? 0x7FC00000u : r == 1 ? 0xFF800000u : r < 40 ? cases[g.rng() % cases.size()]
                                                             : static_cast<uint32_t>(g.bits(Fmt::fp32, true, 127));
        }
        const driver::Operand X{Fmt::fp32, B.data(), static_cast<std::ptrdiff_t>(ld), trans};
        driver::GemmSpec spec;
        spec.row = &row;
        driver::ExactPanel want, got;
        want.resize(n, kp, steps, true);
        got.resize(n, kp, steps, true);
        for (std::size_t v = 0; v < n; ++v) driver::pack_exact(row, spec, X, false, v, k0, kc, want, v);
        for (std::size_t v = 0; v < n; ++v)
          for (std::size_t s = 0; s < steps; ++s) want.group_special[(v / 16) * steps + s] |= want.special[v * steps + s];
        const std::size_t slices = 1 + t % 3;
        for (std::size_t gg = 0; gg < want.groups; ++gg)
          for (std::size_t j = 0; j < slices; ++j)
            driver::pack_exact_group(row, spec, X, 0, k0, kc, got, gg, steps * j / slices, steps * (j + 1) / slices);
        driver::pad_exact_lanes(row, want);
        driver::pad_exact_lanes(row, got);
        const std::size_t vals = want.groups * 16 * kp, bounds = want.groups * 16 * steps;
        bool same = std::memcmp(want.val.p.get(), got.val.p.get(), vals * sizeof(double)) == 0 &&
                    std::memcmp(want.lo.p.get(), got.lo.p.get(), bounds * sizeof(double)) == 0 &&
                    std::memcmp(want.hi.p.get(), got.hi.p.get(), bounds * sizeof(double)) == 0 &&
                    want.special == got.special && want.group_special == got.group_special;
        // The same storage as A (its n vectors: op(A)'s rows, A's bounds) by pack_exact_rows().
        driver::ExactPanel want_a, got_a;
        want_a.resize(n, kp, steps, false);
        got_a.resize(n, kp, steps, false);
        const driver::Operand XA{Fmt::fp32, B.data(), static_cast<std::ptrdiff_t>(ld), !trans};
        for (std::size_t v = 0; v < n; ++v) driver::pack_exact(row, spec, XA, true, v, k0, kc, want_a, v);
        driver::pack_exact_rows(row, spec, XA, 0, n, k0, kc, got_a);
        const bool same_a = std::memcmp(want_a.val.p.get(), got_a.val.p.get(), n * kp * sizeof(double)) == 0 &&
                            std::memcmp(want_a.lo.p.get(), got_a.lo.p.get(), n * steps * sizeof(double)) == 0 &&
                            std::memcmp(want_a.hi.p.get(), got_a.hi.p.get(), n * steps * sizeof(double)) == 0 &&
                            want_a.special == got_a.special;
        if (!same_a && ++bad <= 3)
          FAIL_CHECK("seed " << kSeed << " " << id << " A rows n" << n << " k0 " << k0 << " kc " << kc << " trans "
                             << !trans << ": pack_exact_rows differs from pack_exact");
        ++panels;
        if (!same && ++bad <= 3) {
          std::size_t at = 0;
          while (at < vals && std::bit_cast<uint64_t>(want.val.p[at]) == std::bit_cast<uint64_t>(got.val.p[at])) ++at;
          FAIL_CHECK("seed " << kSeed << " " << id << " n" << n << " k0 " << k0 << " kc " << kc << " trans " << trans
                             << " slices " << slices << ": first differing value at " << at << " of " << vals
                             << (at < vals ? ": pack_exact " + hex(std::bit_cast<uint64_t>(want.val.p[at])) + ", group " +
                                                 hex(std::bit_cast<uint64_t>(got.val.p[at]))
                                           : std::string(" (bounds or flags differ)")));
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  MESSAGE(rows << " rows x targets, " << panels << " panels");
  CHECK(rows > 0);
  CHECK(bad == 0);
}
