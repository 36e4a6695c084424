// SPDX-License-Identifier: BSD-3-Clause
// Bit identity of the block-scaled macro-kernel (driver::gemm) with
// the reference GEMM (tests/common/scaled_gemm.h), docs/block-scaled.md: every row of
// src/models/scaled_units.cpp, every element-format pair, both subnormal
// conventions, both accumulation semantics, odd shapes and k padding,
// NaN/Inf elements, NaN and zero scales, extreme scales, zero groups, 1
// and 2 threads, and every compiled and supported SIMD target.
// MMAEMU_TEST_SEED changes the seed, MMAEMU_DIFF_SCALE the counts.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/engine_rows.h"
#include "common/scaled_draw.h"
#include "common/scaled_gemm.h"
#include "driver/gemm.h"
#include "hwy/targets.h"
#include "kernels/plan.h"
#include "models/model.h"
#include "models/scaled_units.h"
#include "ref/block_scaled.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

struct Trial {
  std::size_t m, n, k;
  Fmt fa, fb;
  Mix mix;
  test::ScaledAccumulate acc;
  int threads;
  float alpha, beta, g_a, g_b;
};

std::string describe(const ScaledUnit& u, const Trial& t) {
  return std::string(u.gpu) + " " + u.instruction + " " + info(t.fa).name + "x" + info(t.fb).name +
         (u.subnormals == NarrowSubnormals::normalize ? " normalize" : "") + " m" + std::to_string(t.m) +
         " n" + std::to_string(t.n) + " k" + std::to_string(t.k) + " mix " + std::to_string(int(t.mix)) +
         (t.acc == test::ScaledAccumulate::into_c ? " into_c" : " gpu_blas") + " threads " + std::to_string(t.threads);
}

// g on driver::gemm (C copied to D, then D in place), the operands read
// where they are (A by rows, B by columns, k contiguous: op(B) transposed),
// B's chunks block_bytes at a time (0: the default).
std::vector<float> run_driver(const test::ScaledGemm& g, int threads, std::size_t block_bytes) {
  const std::size_t nb = g.unit->block ? g.k / g.unit->block : 0;
  const auto k = static_cast<std::ptrdiff_t>(g.k), nbl = static_cast<std::ptrdiff_t>(nb);
  const driver::Operand la{g.fa, g.A, k, false, g.SA, nbl}, lb{g.fb, g.B, k, true, g.SB, nbl};
  const driver::ScaledSpec scaled{g.unit, g.g_a, g.g_b, block_bytes};
  driver::GemmSpec spec;
  spec.scaled = &scaled;
  spec.accumulate_into_c = g.accumulate == test::ScaledAccumulate::into_c;
  spec.threads = threads;
  spec.work_per_thread = 1;
  std::vector<float> D(g.C, g.C + g.m * g.n);
  driver::gemm(spec, g.m, g.n, g.k, g.alpha, la, lb, g.beta,
               Fmt::fp32, D.data(), static_cast<std::ptrdiff_t>(g.n));
  return D;
}

// One GEMM on both engines; returns the number of differing elements
// (the first two reported in hex).
int compare(const ScaledUnit& u, const Trial& t, uint64_t seed, const std::string& where) {
  Draw d{std::mt19937_64(seed), t.mix};
  const std::size_t nb = u.block ? t.k / u.block : 0;
  std::vector<uint8_t> A(t.m * t.k), B(t.n * t.k), SA(t.m * nb + 1), SB(t.n * nb + 1);
  for (auto& x : A) x = d.element(t.fa);
  for (auto& x : B) x = d.element(t.fb);
  for (auto& x : SA) x = d.scale(u.scale);
  for (auto& x : SB) x = d.scale(u.scale);
  // Zero groups: now and then 16 consecutive zero elements in a row or column.
  for (std::size_t r = 0; r < t.m && t.k >= 16; ++r)
    if (d.rng() % 4 == 0) std::fill_n(&A[r * t.k + (d.rng() % (t.k / 16)) * 16], 16, 0);
  for (std::size_t r = 0; r < t.n && t.k >= 16; ++r)
    if (d.rng() % 4 == 0) std::fill_n(&B[r * t.k + (d.rng() % (t.k / 16)) * 16], 16, 0);
  std::vector<float> C(t.m * t.n), Dref(t.m * t.n);
  for (auto& x : C) x = d.c_value();
  test::ScaledGemm g{&u, t.fa, t.fb, t.m, t.n, t.k, A.data(), SA.data(), B.data(), SB.data(),
                    t.alpha, t.beta, t.g_a, t.g_b, t.acc, C.data(), Dref.data()};
  test::scaled_gemm(g);
  // B's columns in one block, and one panel per block (a unit outside the
  // kernels' envelope takes its reference steps).
  const std::vector<float> Dfast = run_driver(g, t.threads, 0), Dblock = run_driver(g, t.threads, 1);
  int bad = 0;
  for (const auto& [got_d, engine] : {std::pair{&Dfast, "fast"}, std::pair{&Dblock, "blocked"}})
    for (std::size_t i = 0; i < Dref.size(); ++i) {
      const uint32_t want = std::bit_cast<uint32_t>(Dref[i]), got = std::bit_cast<uint32_t>((*got_d)[i]);
      if (want != got && ++bad <= 2)
        FAIL_CHECK("seed " << seed << " " << where << " " << describe(u, t) << " at (" << i / t.n << ","
                           << i % t.n << "): ref " << hex(want) << " " << engine << " " << hex(got));
    }
  return bad;
}

// The rows under test: every registry row, and each with renormalised
// fp6/fp4 subnormals.
std::vector<ScaledUnit> units() {
  std::vector<ScaledUnit> v;
  for (const ScaledUnit& u : scaled_units()) {
    v.push_back(u);
    ScaledUnit w = u;
    w.subnormals = NarrowSubnormals::normalize;
    v.push_back(w);
  }
  return v;
}

// `count` trials of unit u; covers every format pair when count >= 25.
void run_trials(const ScaledUnit& u, int count, uint64_t seed, const std::string& where) {
  std::mt19937_64 rng(seed);
  const std::vector<Fmt> fmts = u.algo == ScaledAlgo::gst_fdpa ? std::vector<Fmt>{Fmt::e2m1}
                                                                : std::vector<Fmt>(std::begin(kElements), std::end(kElements));
  const std::size_t nf = fmts.size();
  for (int i = 0; i < count; ++i) {
    Trial t{};
    t.fa = fmts[i % nf];
    t.fb = fmts[(i / nf) % nf];
    const std::size_t unit_k = u.block ? static_cast<std::size_t>(u.block) : 1;
    t.k = u.block ? unit_k * (rng() % 6) : rng() % 100;  // 0 now and then; GST: k % 64 = 32 or 48 pads
    t.m = 1 + rng() % 7;
    if (i % 10 == 7) t.m = 33 + rng() % 9;  // more rows than one task (32)
    if (i % 5 == 4) {  // long k: more steps than the driver's chunk of steps (24 KiB of B panel)
      t.k = (u.block ? unit_k : 32) * (12 + rng() % 12) + (u.block ? 0 : rng() % 32);
      t.m = 1 + rng() % 3;
    }
    t.n = 1 + rng() % 37;  // more than one panel of 16, a partial one
    t.mix = static_cast<Mix>(i % 4);
    t.acc = i % 2 ? test::ScaledAccumulate::into_c : test::ScaledAccumulate::gpu_blas;
    t.threads = 1 + (i / 2) % 2;
    const float alphas[] = {1.0f, 0.5f, -3.0f, 0.0f}, betas[] = {0.0f, 1.0f, 2.0f, -0.5f};
    t.alpha = alphas[rng() % 4];
    t.beta = betas[rng() % 4];
    t.g_a = rng() % 3 ? 1.0f : 0.125f;
    t.g_b = rng() % 3 ? 1.0f : 3.0f;
    compare(u, t, rng(), where);
  }
}

}  // namespace

TEST_CASE("every block-scaled row runs on the SIMD kernels, and use_reference reaches the reference") {
  for (const ScaledUnit& u : scaled_units()) {
    INFO(u.gpu << " " << u.instruction);
    CHECK(kernels::plan(u).simd);
    CHECK(!kernels::plan(u, {true, false}).simd);
  }
  ScaledUnit wide = scaled_units()[0];
  wide.frac = 30;  // outside the T/ST kernel's int32 bound: the reference serves it
  CHECK(!kernels::plan(wide).simd);
}

TEST_CASE("fast engine equals test::scaled_gemm: every row, format pair, semantics, shapes, specials") {
  uint64_t seed = kSeed;
  for (const ScaledUnit& u : units()) run_trials(u, static_cast<int>(30 * kScale), seed++, "default target");
}

TEST_CASE("fast engine equals test::scaled_gemm on every compiled and supported SIMD target") {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    uint64_t seed = kSeed ^ static_cast<uint64_t>(target);
    for (const ScaledUnit& u : units()) run_trials(u, static_cast<int>(8 * kScale), seed++, hwy::TargetName(target));
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST_CASE("the steps loop nest's paths: shared B over several k chunks, few columns with long k, private B") {
  // Shapes that take each path of driver/steps_nest.h with 2 threads:
  // more rows than a task with k over several chunks (B shared, N panels
  // of 16 columns with block_bytes), at most 32 rows and one lane group
  // with k beyond the few-columns chunk (B double buffered, packed in
  // slices), and a short-wide product (private B).
  uint64_t seed = kSeed + 77;
  for (const ScaledUnit& u : scaled_units()) {
    const bool gst = u.algo == ScaledAlgo::gst_fdpa;
    const std::size_t kb = u.block ? static_cast<std::size_t>(u.block) : 32;
    const std::size_t shapes[][3] = {{70, 40, kb * 41}, {9, 12, kb * 70}, {3, 150, kb * 19}};
    for (const auto& s : shapes) {
      Trial t{};
      t.fa = gst ? Fmt::e2m1 : Fmt::e4m3;
      t.fb = gst ? Fmt::e2m1 : Fmt::e3m2;
      t.m = s[0], t.n = s[1], t.k = s[2];
      t.mix = static_cast<Mix>(seed % 4);
      t.acc = test::ScaledAccumulate::gpu_blas;
      t.threads = 2;
      t.alpha = 1.0f, t.beta = 0.5f, t.g_a = 1.0f, t.g_b = 1.0f;
      compare(u, t, seed++, "nest paths");
    }
  }
}

TEST_CASE("a row outside the kernels' envelope runs on the reference with the same bits") {
  ScaledUnit wide = scaled_units()[1];  // B200 ST
  wide.frac = 30;
  run_trials(wide, 6, kSeed + 99, "F 30 (reference)");
}

TEST_CASE("custom-key variants inside the envelopes (bs_frac, bs_e_zero, bs_round) equal the reference") {
  // custom:base=B200,bs_* models change these fields (docs/block-scaled.md
  // §2.1); the SIMD kernels read them from the row, so each edge of the
  // envelope is checked, on the fast path and just outside it.
  uint64_t seed = kSeed + 1234;
  for (const ScaledUnit& base : scaled_units()) {
    const bool gst = base.algo == ScaledAlgo::gst_fdpa;
    for (const int F : gst ? std::vector<int>{1, 13, 40, 41} : std::vector<int>{1, 9, 25, 26}) {
      for (const int e_zero : {base.e_zero, -126, -125, 0, -300}) {
        ScaledUnit u = base;
        u.frac = F;
        u.e_zero = e_zero;
        u.round = (F + e_zero) % 2 ? Round::rne : Round::rz;
        INFO(u.gpu << " " << u.instruction << " F " << F << " e_zero " << e_zero);
        const bool inside = F <= (gst ? 40 : 25) && e_zero <= -126;
        CHECK(kernels::plan(u).simd == inside);
        run_trials(u, 2, seed++, inside ? "custom variant (simd)" : "custom variant (reference)");
      }
    }
  }
}

TEST_CASE("a block-scaled GEMM refuses the GemmSpec fields it does not read, naming each") {
  // The unit takes element codes as they are (no storage -> input
  // conversion) and has no block-FMA row: input_round, input_overflow and
  // row set to anything but their defaults are refused, not ignored.
  const ScaledUnit& u = scaled_units()[1];  // B200 ST-FDPA, block 32
  const std::size_t k = 32;
  const std::vector<uint8_t> codes(k, 0x38), scales(1, 127);
  const driver::Operand la{Fmt::e4m3, codes.data(), k, false, scales.data(), 1};
  const driver::Operand lb{Fmt::e4m3, codes.data(), k, true, scales.data(), 1};
  const driver::ScaledSpec scaled{&u};
  const ModelRow* row = &*std::find_if(rows().begin(), rows().end(), [](const ModelRow& r) { return r.in == Fmt::e4m3; });
  auto run = [&](const driver::GemmSpec& spec) {
    float d = 0;
    driver::gemm(spec, 1, 1, k, 1.0, la, lb, 0.0, Fmt::fp32, &d, 1);
    return d;
  };
  driver::GemmSpec spec;
  spec.scaled = &scaled;
  CHECK(run(spec) == 32.0f);  // the defaults run: 32 products of 1 * 1
  driver::GemmSpec bad = spec;
  bad.input_round = Round::rz;
  CHECK_THROWS_WITH_AS(run(bad), doctest::Contains("GemmSpec::input_round"), std::invalid_argument);
  bad = spec;
  bad.input_overflow = Overflow::saturate;
  CHECK_THROWS_WITH_AS(run(bad), doctest::Contains("GemmSpec::input_overflow"), std::invalid_argument);
  bad = spec;
  bad.row = row;
  CHECK_THROWS_WITH_AS(run(bad), doctest::Contains("GemmSpec::row"), std::invalid_argument);
  // An empty product is refused the same way (the check precedes the quick return).
  bad = spec;
  bad.input_round = Round::rna;
  float d = 0;
  CHECK_THROWS_AS(driver::gemm(bad, 0, 0, k, 1.0, la, lb, 0.0, Fmt::fp32, &d, 1),
                  std::invalid_argument);
}

TEST_CASE("k not a multiple of the block: the one check, with the message the C API's caller reads") {
  // mmaemu_gemm_block_scaled leaves this check to driver::gemm; its message
  // is the C API's (tests/api/block_scaled_api_test.cpp).
  const ScaledUnit& u = scaled_units()[1];  // B200 ST-FDPA, block 32
  const std::vector<uint8_t> codes(48, 0x38), scales(2, 127);
  const driver::Operand la{Fmt::e4m3, codes.data(), 48, false, scales.data(), 1};
  const driver::Operand lb{Fmt::e4m3, codes.data(), 48, true, scales.data(), 1};
  const driver::ScaledSpec scaled{&u};
  driver::GemmSpec spec;
  spec.scaled = &scaled;
  float d = 0;
  CHECK_THROWS_WITH_AS(driver::gemm(spec, 1, 1, 48, 1.0, la, lb, 0.0, Fmt::fp32, &d, 1),
                       "k = 48 is not a multiple of block_size 32", std::invalid_argument);
  CHECK(d == 0.0f);
}
