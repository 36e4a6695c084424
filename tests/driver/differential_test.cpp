// SPDX-License-Identifier: BSD-3-Clause
// Bit identity of the GEMM driver with the reference engine, for every
// registry row: whole GEMMs with random shapes, transposes, strides, both
// accumulation semantics and 1 or more threads, on every SIMD target, and
// the kernels' edge cases through the driver (special-value fallback,
// hand-backs). The step kernels alone: tests/kernels. MMAEMU_DIFF_SCALE
// multiplies the counts (the "full" label runs with 100); MMAEMU_TEST_SEED
// changes the seed (tests/common/engine_rows.h).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "common/engine_rows.h"
#include "common/int_operands.h"
#include "driver/gemm.h"
#include "formats/fast_convert.h"
#include "hwy/targets.h"
#include "kernels/plan.h"
#include "kernels/simd.h"
#include "ref/reference.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

// B's format: row.in, or an integer unit's in_b (mixed signedness).
Fmt b_fmt(const ModelRow& row) { return is_integer_row(row) ? row.in_b : row.in; }

// Random GEMMs of one row through the driver, compared with ref::dot
// element by element; returns the number of dot products compared.
std::size_t compare_gemms(const std::string& name, const ModelRow& row, std::size_t min_dots, bool simd_off) {
  Gen g(kSeed ^ (std::hash<std::string>{}(name) * 3));
  std::size_t row_dots = 0;
  for (int t = 0; row_dots < min_dots; ++t) {
    // Now and then k spans several of the driver's k-chunks (256).
    const bool long_k = t % 7 == 3;
    const std::size_t m = 1 + g.rng() % (long_k ? 5 : 23), n = 1 + g.rng() % 40,
                      k = long_k ? 250 + g.rng() % 600 : g.rng() % 70;
    const bool ta = g.rng() & 1, tb = g.rng() & 1, into_c = t % 2;
    const std::ptrdiff_t lda = (ta ? m : k) + g.rng() % 3, ldb = (tb ? k : n) + g.rng() % 3,
                         ldc = n + g.rng() % 3;
    const bool narrow = t % 3 == 0;
    const int ca = is_integer_row(row) ? 0 : static_cast<int>(g.rng() % ((1u << info(row.in).exp_bits) - 1)) + 1;
    // Operands stored in the unit's input format (no conversion).
    std::vector<uint64_t> A((ta ? k : m) * lda + 1), B((tb ? n : k) * ldb + 1), C(m * ldc + 1);
    for (auto& x : A) x = g.bits(row.in, narrow, ca);
    for (auto& x : B) x = g.bits(b_fmt(row), narrow, ca);
    for (auto& x : C) x = g.bits(row.out, narrow, ca);
    const std::vector<uint64_t> C0 = C;
    driver::GemmSpec spec;
    spec.row = &row;
    spec.accumulate_into_c = into_c;
    spec.threads = 1 + t % 3;
    spec.work_per_thread = 1;  // thread even the tiny products
    spec.simd_off = simd_off;
    std::vector<uint8_t> As(A.size() * 8), Bs(B.size() * 8), Cs(C.size() * 8);
    for (std::size_t i = 0; i < A.size(); ++i) driver::store(row.in, As.data(), i, A[i]);
    for (std::size_t i = 0; i < B.size(); ++i) driver::store(b_fmt(row), Bs.data(), i, B[i]);
    for (std::size_t i = 0; i < C.size(); ++i) driver::store(row.out, Cs.data(), i, C[i]);
    driver::Operand a{row.in, As.data(), lda, ta}, b{b_fmt(row), Bs.data(), ldb, tb};
    driver::gemm(spec, m, n, k, 1.0, a, b, into_c ? 1.0 : 0.0, row.out, Cs.data(), ldc);
    std::vector<uint64_t> ar(k), bc(k);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t l = 0; l < k; ++l) {
          ar[l] = A[ta ? l * lda + i : i * lda + l];
          bc[l] = B[tb ? j * ldb + l : l * ldb + j];
        }
        // alpha = 1: D is the unit's accumulator itself; the chain starts
        // from C (into-c, beta = 1) or from +0 (gpu-blas, beta = 0).
        const uint64_t c0 = into_c ? C0[i * ldc + j] : zero_bits(row.out, false);
        uint64_t want = ref::dot(row, k, ar.data(), bc.data(), c0);
        if (is_nan(row.out, want)) want = ref::nan_result(row);  // k = 0 passes C's NaN on
        const uint64_t got = driver::load(row.out, Cs.data(), i * ldc + j);
        if (got != want && ++bad <= 2)
          FAIL_CHECK("seed " << kSeed << " " << name << " m" << m << " n" << n << " k" << k << " ta" << ta
                             << " tb" << tb << " into_c " << into_c << " threads " << spec.threads
                             << " simd_off " << simd_off << " at (" << i << "," << j << "): ref " << hex(want)
                             << " gemm " << hex(got));
        ++row_dots;
      }
    // Padding between rows (ldc > n) is never written.
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = n; j < static_cast<std::size_t>(ldc); ++j)
        CHECK(driver::load(row.out, Cs.data(), i * ldc + j) == C0[i * ldc + j]);
    if (bad) break;
  }
  return row_dots;
}

}  // namespace

TEST_CASE("the differential set holds every row of every registered GPU") {
  // all_rows() walks gpus(), so a new GPU's rows (T4's m16n8k8 and m8n8k4
  // rows among them) are compared without being listed here.
  const auto set = all_rows();
  std::size_t found = 0;
  for (const Gpu& g : gpus()) {
    const Model m = *gpu_model(g.name);
    for (const ModelRow& r : m.rows) {
      const std::string name = std::string(g.name) + " " + r.instr;
      const bool in = std::any_of(set.begin(), set.end(), [&](const auto& e) {
        return e.first == name && e.second.in == r.in && e.second.out == r.out;
      });
      CHECK_MESSAGE(in, name << " " << info(r.in).name << "->" << info(r.out).name << " is not compared");
      found += in;
    }
  }
  const auto t4 = std::count_if(set.begin(), set.end(),
                                [](const auto& e) { return e.first.rfind("T4 ", 0) == 0 && !is_integer_row(e.second); });
  CHECK(t4 == 4);
  // And every integer unit (Model::integer), with its satfinite variants where it has them.
  for (const Gpu& g : gpus()) {
    const Model m = *gpu_model(g.name);
    for (const ModelRow& r : m.integer) {
      const auto n = std::count_if(set.begin(), set.end(), [&](const auto& e) {
        const ModelRow& x = e.second;
        return is_integer_row(x) && std::string(x.family) == r.family && std::string(x.instr) == r.instr &&
               x.in == r.in && x.in_b == r.in_b && x.k == r.k && x.has_satfinite == r.has_satfinite;
      });
      CHECK_MESSAGE(n == (r.has_satfinite ? 3 : 1), g.name << " " << r.instr << " " << info(r.in).name);
    }
  }
  MESSAGE(found << " registry rows in the differential set");
}

TEST_CASE("GEMM driver equals ref::dot: shapes, transposes, strides, semantics, threads") {
  std::size_t dots = 0;
  for (const auto& [name, row] : all_rows()) {
    dots += compare_gemms(name, row, 20000 * kScale, false);
    if (kernels::plan(row).simd) dots += compare_gemms(name + " scalar", row, 5000 * kScale, true);
  }
  MESSAGE(dots << " dot products compared");
}

TEST_CASE("SIMD kernel: every compiled and supported target") {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::size_t dots = 0;
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    for (const auto& [name, row] : all_rows()) {
      if (!kernels::plan(row).simd) continue;
      dots += compare_gemms(name + " " + std::string(hwy::TargetName(target)), row, 4000 * kScale, false);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  MESSAGE(targets.size() << " targets (best: " << std::string(kernels::simd_target_name()) << "), " << dots << " dot products");
  CHECK(!targets.empty());
}

TEST_CASE("results do not depend on the thread count") {
  const Model h100 = lookup_model("H100");
  const ModelRow& row = *h100.find(Fmt::fp16, Fmt::fp32);
  Gen g(kSeed);
  const std::size_t m = 67, n = 301, k = 133;
  std::vector<uint16_t> A(m * k), B(k * n);
  for (auto& x : A) x = static_cast<uint16_t>(g.bits(Fmt::fp16, false, 15));
  for (auto& x : B) x = static_cast<uint16_t>(g.bits(Fmt::fp16, false, 15));
  std::vector<uint32_t> C1(m * n), C3(m * n);
  driver::GemmSpec spec;
  spec.row = &row;
  driver::Operand a{Fmt::fp16, A.data(), static_cast<std::ptrdiff_t>(k), false};
  driver::Operand b{Fmt::fp16, B.data(), static_cast<std::ptrdiff_t>(n), false};
  spec.threads = 1;
  driver::gemm(spec, m, n, k, 1.0, a, b, 0.0, Fmt::fp32, C1.data(), n);
  spec.threads = 3;
  driver::gemm(spec, m, n, k, 1.0, a, b, 0.0, Fmt::fp32, C3.data(), n);
  CHECK(C1 == C3);
}

namespace {

// One GEMM of unit-format operands (A m x k, B k x n, C m x n, row-major,
// optionally transposed in storage) through the driver, compared with
// ref::dot element by element. Returns the number of mismatches.
std::size_t check_gemm(const std::string& name, const ModelRow& row, std::size_t m, std::size_t n, std::size_t k,
                       const std::vector<uint64_t>& A, const std::vector<uint64_t>& B, const std::vector<uint64_t>& C,
                       bool ta, bool tb, bool into_c, int threads) {
  std::vector<uint8_t> As(m * k * 8 + 8), Bs(k * n * 8 + 8), Cs(m * n * 8 + 8);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t l = 0; l < k; ++l) driver::store(row.in, As.data(), ta ? l * m + i : i * k + l, A[i * k + l]);
  for (std::size_t l = 0; l < k; ++l)
    for (std::size_t j = 0; j < n; ++j) driver::store(b_fmt(row), Bs.data(), tb ? j * k + l : l * n + j, B[l * n + j]);
  for (std::size_t i = 0; i < m * n; ++i) driver::store(row.out, Cs.data(), i, C[i]);
  driver::GemmSpec spec;
  spec.row = &row;
  spec.accumulate_into_c = into_c;
  spec.threads = threads;
  spec.work_per_thread = 1;
  driver::Operand a{row.in, As.data(), static_cast<std::ptrdiff_t>(ta ? m : k), ta};
  driver::Operand b{b_fmt(row), Bs.data(), static_cast<std::ptrdiff_t>(tb ? k : n), tb};
  driver::gemm(spec, m, n, k, 1.0, a, b, into_c ? 1.0 : 0.0, row.out, Cs.data(), static_cast<std::ptrdiff_t>(n));
  std::vector<uint64_t> ar(k), bc(k);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t l = 0; l < k; ++l) {
        ar[l] = A[i * k + l];
        bc[l] = B[l * n + j];
      }
      uint64_t want = ref::dot(row, k, ar.data(), bc.data(), into_c ? C[i * n + j] : zero_bits(row.out, false));
      if (is_nan(row.out, want)) want = ref::nan_result(row);
      const uint64_t got = driver::load(row.out, Cs.data(), static_cast<std::ptrdiff_t>(i * n + j));
      if (got != want && ++bad <= 2)
        FAIL_CHECK("seed " << kSeed << " " << name << " m" << m << " n" << n << " k" << k << " ta" << ta << " tb"
                           << tb << " into_c " << into_c << " at (" << i << "," << j << "): ref " << hex(want)
                           << " gemm " << hex(got));
    }
  return bad;
}

// A value of format f with biased exponent `e` (clamped to the finite
// range; 0: subnormal or zero), random sign and fraction.
uint64_t value_at(Gen& g, Fmt f, int e) {
  const FormatInfo& fi = info(f);
  const int max_e = (1 << fi.exp_bits) - 2 + (fi.specials == Specials::ieee ? 0 : 1);
  e = std::clamp(e, 0, max_e);
  const uint64_t frac = (g.rng() & ((1ull << fi.man_bits) - 1)) << fi.frac_shift;
  const uint64_t sign = g.rng() & 1;
  return (sign << (fi.width - 1)) | (static_cast<uint64_t>(e) << (fi.man_bits + fi.frac_shift)) | frac;
}

}  // namespace

TEST_CASE("FMA-chain tiles and the exact kernel: every target, long k, exactness boundaries, NaN/Inf") {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::size_t dots = 0, bad = 0;
  int ti = 0;
  for (int64_t target : targets) {
    ++ti;
    hwy::SetSupportedTargetsForTest(target);
    const std::string tname = hwy::TargetName(target);
    for (const auto& [name, row] : all_rows()) {
      const kernels::Macro macro = kernels::plan(row).macro;
      if (macro == kernels::Macro::steps || macro == kernels::Macro::integer) continue;  // chain tiles, exact kernel
      const std::string id = name + " " + tname;
      Gen g(kSeed ^ (std::hash<std::string>{}(id) * 5));
      dots += compare_gemms(id, row, 2000 * kScale, false);
      if (ti == 1) dots += compare_gemms(name + " scalar", row, 2000 * kScale, true);  // the paths without them
      const int bias_in = info(row.in).bias, bias_out = info(row.out).bias;
      const int max_in = (1 << info(row.in).exp_bits) - 2;
      // Operands clustered around an exponent, c from 80 binades below to
      // 80 above the products (the exact kernel's checks (b) and (c)), a
      // spread of operand exponents (check (a)), some zeros, subnormals,
      // NaN and Inf.
      for (int t = 0; t < static_cast<int>(40 * kScale); ++t) {
        const std::size_t m = 1 + g.rng() % 5, n = 1 + g.rng() % 40, k = 1 + g.rng() % 13;
        const int centre = 1 + static_cast<int>(g.rng() % static_cast<uint64_t>(max_in));
        const int spread = static_cast<int>(g.rng() % 40);
        auto operand = [&] {
          const uint64_t r = g.rng() % 100;
          if (r < 3) return zero_bits(row.in, g.rng() & 1);
          if (r < 5) return value_at(g, row.in, 0);
          if (r == 5 && t % 4 == 0) return g.rng() & 1 ? default_nan(row.in) : inf_bits(row.in, g.rng() & 1);
          return value_at(g, row.in, centre + static_cast<int>(g.rng() % static_cast<uint64_t>(spread + 1)) - spread / 2);
        };
        std::vector<uint64_t> A(m * k), B(k * n), C(m * n);
        for (auto& x : A) x = operand();
        for (auto& x : B) x = operand();
        const int prod_e = 2 * (centre - bias_in);
        for (auto& x : C) {
          const uint64_t r = g.rng() % 100;
          x = r < 5 ? zero_bits(row.out, g.rng() & 1)
                    : value_at(g, row.out, prod_e + bias_out + static_cast<int>(g.rng() % 161) - 80);
        }
        bad += check_gemm(id + " boundaries", row, m, n, k, A, B, C, g.rng() & 1, g.rng() & 1, true, 1 + t % 2);
        dots += m * n;
      }
      // Long k (more than one k super-chunk of the chain tiles, several
      // chunks of the exact kernel) with full and edge tiles.
      for (int t = ti % 2; t < 2; t += 2) {
        const std::size_t m = 9 + g.rng() % 8, n = 33 + g.rng() % 16, k = 2049 + g.rng() % 300;
        std::vector<uint64_t> A(m * k), B(k * n), C(m * n);
        const int centre = bias_in + static_cast<int>(g.rng() % 5) - 2;
        for (auto& x : A) x = value_at(g, row.in, centre + static_cast<int>(g.rng() % 7) - 3);
        for (auto& x : B) x = value_at(g, row.in, centre + static_cast<int>(g.rng() % 7) - 3);
        for (auto& x : C) x = value_at(g, row.out, bias_out + static_cast<int>(g.rng() % 9) - 4);
        if (t == 1) {  // a NaN and an Inf somewhere
          A[g.rng() % A.size()] = default_nan(row.in);
          B[g.rng() % B.size()] = inf_bits(row.in, false);
        }
        bad += check_gemm(id + " long k", row, m, n, k, A, B, C, t == 1, t == 0, t == 1, 2);
        dots += m * n;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  MESSAGE(targets.size() << " targets, " << dots << " dot products");
  CHECK(bad == 0);
}

// Runs f(id, row) for every row whose SIMD kernel is `kind`, on every
// compiled target (id: row and target names); returns the number of targets.
template <class F>
std::size_t on_every_target(kernels::SimdKind kind, F&& f) {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    for (const auto& [name, row] : all_rows()) {
      const kernels::KernelPlan plan = kernels::plan(row);
      if (plan.simd && plan.simd_params.kind == kind) f(name + " " + hwy::TargetName(target), row);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  return targets.size();
}

TEST_CASE("NVIDIA aligned kernel: block sums near 2^31 and the edges of its exponent window, every target") {
  // aligned_simd.cpp sums a block in int32 lanes where every lane's E lies in
  // F - 125 .. min(100, F + 96) and |S| stays below 2^30 (else the general
  // path): random bit patterns seldom reach either edge.
  std::size_t dots = 0, bad = 0;
  const std::size_t targets = on_every_target(kernels::SimdKind::aligned, [&](const std::string& id, const ModelRow& row) {
      Gen g(kSeed ^ std::hash<std::string>{}(id + " aligned edges"));
      const FormatInfo& fi = info(row.in);
      const int step = static_cast<int>(ref::step_k(row)), hi = std::min(100, row.frac + 96);
      const std::size_t m = 3, n = 19, k = 2 * static_cast<std::size_t>(step) + 1;
      // Largest significand, biased exponent e, given sign.
      auto top = [&](Fmt f, int e, uint64_t sign) {
        const FormatInfo& x = info(f);
        return (sign << (x.width - 1)) | (static_cast<uint64_t>(e) << (x.man_bits + x.frac_shift)) |
               (((1ull << x.man_bits) - 1) << x.frac_shift);
      };
      for (int pattern = 0; pattern < 12; ++pattern) {
        std::vector<uint64_t> A(m * k), B(k * n), C(m * n);
        if (pattern >= 10) {
          // c in the top fp32 binade (every third the largest float), the
          // products large: sums past the largest float, where RD/RU rows
          // overflow away from zero and stay finite toward it.
          const int max_in = (1 << fi.exp_bits) - 2;
          for (std::size_t i = 0; i < C.size(); ++i)
            C[i] = i % 3 == 0 ? top(Fmt::fp32, 254, g.rng() & 1) : value_at(g, Fmt::fp32, 254);
          for (auto& x : A) x = value_at(g, row.in, max_in - static_cast<int>(g.rng() % 3));
          for (auto& x : B) x = value_at(g, row.in, max_in - static_cast<int>(g.rng() % 3));
        } else if (pattern < 2) {
          // Every product the largest at one exponent, one sign per column
          // (pattern 1: A's signs alternate), c the same size or near it.
          for (std::size_t i = 0; i < A.size(); ++i) A[i] = top(row.in, fi.bias, pattern == 1 ? i & 1 : 0);
          for (std::size_t i = 0; i < B.size(); ++i) B[i] = top(row.in, fi.bias, (i % n) % 3 == 0);
          for (std::size_t i = 0; i < C.size(); ++i)
            C[i] = i % 5 == 4 ? 0 : top(Fmt::fp32, 127 + static_cast<int>(i % 5) - 1, (i % n) % 3 == 0);
        } else {
          // c's exponent at an edge of the window (F - 126, F - 125, hi,
          // hi + 1), products from a few binades below it up to it.
          const int edge = (pattern - 2) % 4;
          const int ec = edge == 0 ? row.frac - 126 : edge == 1 ? row.frac - 125 : edge == 2 ? hi : hi + 1;
          for (auto& x : C) x = value_at(g, Fmt::fp32, ec + 127);
          for (std::size_t l = 0; l < k; ++l) {
            const int ep = ec - static_cast<int>(g.rng() % (pattern < 6 ? 4 : 30));
            const int ea = ep / 2;
            for (std::size_t i = 0; i < m; ++i) A[i * k + l] = value_at(g, row.in, ea + fi.bias);
            for (std::size_t j = 0; j < n; ++j) B[l * n + j] = value_at(g, row.in, ep - ea + fi.bias);
          }
        }
        bad += check_gemm(id + " edges " + std::to_string(pattern), row, m, n, k, A, B, C, false, pattern & 1, true, 1);
        dots += m * n;
      }
  });
  MESSAGE(targets << " targets, " << dots << " dot products");
  CHECK(bad == 0);
}

TEST_CASE("CDNA3 late-c kernel: c near the products, its cut-offs and the edges of the fast window, every target") {
  // late_simd.cpp takes a block on its fast path where every group's E lies
  // in [-100, 100] and, where c dominates, e_c in [-60, 120]; the c term is
  // formed at E_p = e_c + 26 beyond 26 binades (the fp8 cut-off is 25), and
  // a c just above the products rounds the sum down to 31 bits below its
  // lead: random bit patterns seldom reach these.
  std::size_t dots = 0, bad = 0;
  const std::size_t targets = on_every_target(kernels::SimdKind::late, [&](const std::string& id, const ModelRow& row) {
      Gen g(kSeed ^ std::hash<std::string>{}(id + " late edges"));
      const FormatInfo& fi = info(row.in);
      const int step = static_cast<int>(ref::step_k(row));
      const std::size_t m = 3, n = 19, k = 3 * static_cast<std::size_t>(step) + 1;
      // (e_c, lowest and highest offset of a product's exponent from e_c)
      const int cases[][3] = {{0, -1, 12},  {0, 0, 3},     {5, -2, 40},  {-61, -3, 3}, {-60, -3, 3},
                              {120, 0, 30}, {121, 0, 30},  {0, -30, -22}, {-40, -30, -22}, {10, -2, 2},
                              {-100, -3, 0}, {100, -1, 2}, {-126, -30, -20}};
      for (int pattern = 0; pattern < 13; ++pattern) {
        std::vector<uint64_t> A(m * k), B(k * n), C(m * n);
        const int ec = cases[pattern][0], lo = cases[pattern][1], hi = cases[pattern][2];
        for (auto& x : C) x = g.rng() % 7 == 0 ? 0 : value_at(g, Fmt::fp32, ec + 127);
        for (std::size_t l = 0; l < k; ++l) {
          const int ep = ec - lo - static_cast<int>(g.rng() % static_cast<uint64_t>(hi - lo + 1));
          const int ea = ep / 2;
          for (std::size_t i = 0; i < m; ++i) A[i * k + l] = value_at(g, row.in, ea + fi.bias);
          for (std::size_t j = 0; j < n; ++j) B[l * n + j] = value_at(g, row.in, ep - ea + fi.bias);
        }
        bad += check_gemm(id + " late edges " + std::to_string(pattern), row, m, n, k, A, B, C, false, pattern & 1,
                          true, 1);
        dots += m * n;
      }
  });
  MESSAGE(targets << " targets, " << dots << " dot products");
  CHECK(bad == 0);
}

TEST_CASE("NVIDIA aligned kernel, fp16 results: overflow to Inf, subnormal and vanishing results, every target") {
  // With fp16 results the aligned kernel rounds each block's sum to fp16
  // (RNE) and keeps the accumulators as fp32 bits inside a run: random bit
  // patterns seldom give sums at the fp16 overflow threshold (65520), in
  // the fp16 subnormal range or below half its step (2^-25), nor NaN/Inf c.
  std::size_t dots = 0, bad = 0, rows = 0;
  const std::size_t targets = on_every_target(kernels::SimdKind::aligned, [&](const std::string& id, const ModelRow& row) {
    if (row.out != Fmt::fp16) return;
    ++rows;
    Gen g(kSeed ^ std::hash<std::string>{}(id + " fp16 results"));
    const FormatInfo& fi = info(row.in);
    const int step = static_cast<int>(ref::step_k(row));
    const std::size_t m = 3, n = 21, k = 2 * static_cast<std::size_t>(step) + 3;
    // Result exponents: above the largest fp16, at it, the normal/subnormal
    // boundary, inside the subnormals, at and below half the smallest.
    const int targets_e[] = {16, 15, 14, -13, -14, -15, -20, -24, -25, -26, -30};
    for (int te : targets_e) {
      std::vector<uint64_t> A(m * k), B(k * n), C(m * n);
      for (std::size_t l = 0; l < k; ++l) {
        const int ep = te - static_cast<int>(g.rng() % 4), ea = ep / 2;
        for (std::size_t i = 0; i < m; ++i) A[i * k + l] = value_at(g, row.in, ea + fi.bias);
        for (std::size_t j = 0; j < n; ++j) B[l * n + j] = value_at(g, row.in, ep - ea + fi.bias);
      }
      for (std::size_t i = 0; i < C.size(); ++i) {
        const uint64_t r = g.rng() % 16;
        C[i] = r == 0   ? zero_bits(Fmt::fp16, g.rng() & 1)
               : r == 1 ? inf_bits(Fmt::fp16, g.rng() & 1)
               : r == 2 ? default_nan(Fmt::fp16)
               : r == 3 ? g.rng() & 0x83FF  // a subnormal
                        : value_at(g, Fmt::fp16, te + 15 - static_cast<int>(g.rng() % 3));
      }
      const bool into_c = te % 2 == 0;
      bad += check_gemm(id + " fp16 result at 2^" + std::to_string(te), row, m, n, k, A, B, C, false, te & 1, into_c,
                        1);
      dots += m * n;
    }
  });
  MESSAGE(targets << " targets, " << rows << " rows x targets, " << dots << " dot products");
  CHECK(rows > 0);
  CHECK(bad == 0);
}

TEST_CASE("few columns, long k: the pipeline of every macro-kernel over several chunks, 2 and 3 threads") {
  // m <= 32 with fewer lane groups (micro-panels) than threads runs as a
  // pipeline of row streams over chunks of k (driver/parallel_pipeline.h):
  // k over several chunks (1008; the chain tiles' 2048), NaN/Inf in some.
  std::size_t dots = 0, bad = 0;
  for (const auto& [name, row] : all_rows()) {
    if (is_integer_row(row)) continue;  // (the integer plug-in: integer_differential below)
    const kernels::KernelPlan plan = kernels::plan(row);
    if (!plan.simd && plan.macro == kernels::Macro::steps) continue;  // (scalar rows: slow over long k)
    Gen g(kSeed ^ std::hash<std::string>{}(name + " pipeline"));
    for (int threads : {2, 3}) {
      const std::size_t m = 1 + g.rng() % 10, n = 1 + g.rng() % 12, k = 4100 + g.rng() % 300;
      std::vector<uint64_t> A(m * k), B(k * n), C(m * n);
      const int centre = info(row.in).bias;
      for (auto& x : A) x = value_at(g, row.in, centre + static_cast<int>(g.rng() % 5) - 2);
      for (auto& x : B) x = value_at(g, row.in, centre + static_cast<int>(g.rng() % 5) - 2);
      for (auto& x : C) x = value_at(g, row.out, info(row.out).bias + static_cast<int>(g.rng() % 5) - 2);
      if (threads == 3 && info(row.in).specials != Specials::finite) A[g.rng() % A.size()] = default_nan(row.in);
      bad += check_gemm(name + " pipeline", row, m, n, k, A, B, C, g.rng() & 1, g.rng() & 1, threads == 3, threads);
      dots += m * n;
    }
  }
  MESSAGE(dots << " dot products");
  CHECK(bad == 0);
}

TEST_CASE("fp32 storage equals the unit's own storage of the converted operands, every row") {
  // An sgemm's operands are fp32, rounded to the unit's input format while
  // packing (the fast conversions, the SIMD packers of the steps and exact
  // kernels); the same GEMM on operands already converted (convert_input)
  // and stored in the unit's format must give the same D. Values at every
  // exponent and around the rounding ties, zeros, NaN and Inf; both layouts.
  std::size_t dots = 0, bad = 0, rows = 0;
  for (const auto& [name, row] : all_rows()) {
    if (is_integer_row(row) || row.in == Fmt::fp32 || row.in == Fmt::fp64 || row.out == Fmt::fp64) continue;
    ++rows;
    Gen g(kSeed ^ std::hash<std::string>{}(name + " fp32 storage"));
    for (int t = 0; t < 6; ++t) {
      const std::size_t m = 1 + g.rng() % 40, n = 1 + g.rng() % 40, k = 1 + g.rng() % 300;
      const bool ta = t & 1, tb = t & 2;
      std::vector<uint32_t> A32(m * k), B32(k * n);
      // NaN and Inf in a third of the products, seldom (each poisons its row or column).
      const uint64_t specials = t % 3 == 2 ? 4000 : 0;
      auto value = [&] {
        const uint64_t r = g.rng() % 4000;
        if (r < specials / 4000) return g.rng() & 1 ? 0x7FC00000u : (g.rng() & 1 ? 0xFF800000u : 0x7F800000u);
        if (r < 100) return static_cast<uint32_t>(g.rng() & 0x80000000u);
        // 2^-12 .. 2^7, inside every input format's range but for the
        // subnormals of the fp8 formats; the rounding ties (low bits random).
        const int e = 127 + static_cast<int>(g.rng() % 20) - 12;
        return static_cast<uint32_t>((g.rng() & 0x807FFFFFu) | (static_cast<uint64_t>(e) << 23));
      };
      for (auto& x : A32) x = value();
      for (auto& x : B32) x = value();
      std::vector<uint8_t> Au(A32.size() * 8), Bu(B32.size() * 8);
      const driver::GemmSpec conv_spec;
      for (std::size_t i = 0; i < A32.size(); ++i)
        driver::store(row.in, Au.data(), i, convert_input(Fmt::fp32, row.in, A32[i], conv_spec.input_round, conv_spec.input_overflow));
      for (std::size_t i = 0; i < B32.size(); ++i)
        driver::store(row.in, Bu.data(), i, convert_input(Fmt::fp32, row.in, B32[i], conv_spec.input_round, conv_spec.input_overflow));
      const auto lda = static_cast<std::ptrdiff_t>(ta ? m : k), ldb = static_cast<std::ptrdiff_t>(tb ? k : n);
      driver::GemmSpec spec;
      spec.row = &row;
      spec.threads = 1 + t % 2;
      spec.work_per_thread = 1;
      std::vector<uint8_t> C32(m * n * 8), Cu(m * n * 8);
      driver::gemm(spec, m, n, k, 1.0, {Fmt::fp32, A32.data(), lda, ta}, {Fmt::fp32, B32.data(), ldb, tb}, 0.0,
                   row.out, C32.data(), static_cast<std::ptrdiff_t>(n));
      driver::gemm(spec, m, n, k, 1.0, {row.in, Au.data(), lda, ta}, {row.in, Bu.data(), ldb, tb}, 0.0, row.out,
                   Cu.data(), static_cast<std::ptrdiff_t>(n));
      for (std::size_t i = 0; i < m * n; ++i) {
        const uint64_t x = driver::load(row.out, C32.data(), static_cast<std::ptrdiff_t>(i)),
                       y = driver::load(row.out, Cu.data(), static_cast<std::ptrdiff_t>(i));
        if (x != y && ++bad <= 3)
          FAIL_CHECK("seed " << kSeed << " " << name << " m" << m << " n" << n << " k" << k << " ta " << ta << " tb "
                             << tb << " at " << i << ": fp32 storage " << hex(x) << ", unit storage " << hex(y));
      }
      dots += m * n;
    }
  }
  MESSAGE(rows << " rows, " << dots << " elements");
  CHECK(rows > 0);
  CHECK(bad == 0);
}

TEST_CASE("fp16 results stored as fp32: the epilogue's direct path equals its generic one") {
  // fp16 results in fp32 storage (an sgemm on an fp16-result unit) take a
  // direct path in the epilogue; fp64 storage of the same C takes the
  // generic one (convert, is_nan). Each D, widened, must match; a NaN is
  // the unit's NaN in fp32. alpha and beta of both semantics, C with NaN,
  // Inf, zeros and values that overflow fp16.
  std::size_t dots = 0, bad = 0, rows = 0;
  for (const auto& [name, row] : all_rows()) {
    if (row.out != Fmt::fp16 || is_integer_row(row)) continue;
    ++rows;
    Gen g(kSeed ^ std::hash<std::string>{}(name + " fp16 into fp32"));
    const double alphas[] = {1.0, 0.5, -3.0, 1.0e-5}, betas[] = {0.0, 1.0, 0.25, -7.5e4};
    for (int t = 0; t < 16; ++t) {
      const std::size_t m = 1 + g.rng() % 9, n = 1 + g.rng() % 37, k = g.rng() % 40;
      const bool into_c = t % 2;
      const double alpha = alphas[t / 2 % 4], beta = betas[(t / 8 + t) % 4];
      std::vector<uint8_t> As(m * k * 8 + 8), Bs(k * n * 8 + 8);
      for (std::size_t i = 0; i < m * k; ++i) driver::store(row.in, As.data(), i, g.bits(row.in, false, 0));
      for (std::size_t i = 0; i < k * n; ++i) driver::store(row.in, Bs.data(), i, g.bits(row.in, false, 0));
      std::vector<uint32_t> C32(m * n);
      for (auto& x : C32) {
        const uint64_t r = g.rng() % 8;
        x = r == 0 ? 0x7FC00000u : r == 1 ? 0xFF800000u : r == 2 ? 0x80000000u
                   : static_cast<uint32_t>(g.bits(Fmt::fp32, true, 127 + static_cast<int>(g.rng() % 40) - 25));
      }
      std::vector<double> C64(m * n);
      for (std::size_t i = 0; i < C32.size(); ++i) C64[i] = std::bit_cast<float>(C32[i]);
      driver::GemmSpec spec;
      spec.row = &row;
      spec.accumulate_into_c = into_c;
      driver::Operand a{row.in, As.data(), static_cast<std::ptrdiff_t>(k), false};
      driver::Operand b{row.in, Bs.data(), static_cast<std::ptrdiff_t>(n), false};
      const auto ld = static_cast<std::ptrdiff_t>(n);
      driver::gemm(spec, m, n, k, alpha, a, b, beta, Fmt::fp32, C32.data(), ld);
      driver::gemm(spec, m, n, k, alpha, a, b, beta, Fmt::fp64, C64.data(), ld);
      for (std::size_t i = 0; i < m * n; ++i) {
        const float got = std::bit_cast<float>(C32[i]);
        const bool ok = std::isnan(C64[i]) ? C32[i] == static_cast<uint32_t>(row.nan32)
                                           : !std::isnan(got) && static_cast<double>(got) == C64[i] &&
                                                 std::signbit(got) == std::signbit(C64[i]);
        if (!ok && ++bad <= 3)
          FAIL_CHECK("seed " << kSeed << " " << name << " m" << m << " n" << n << " k" << k << " into_c " << into_c
                             << " alpha " << alpha << " beta " << beta << " at " << i << ": fp32 storage "
                             << hex(C32[i]) << ", fp64 storage " << hex(std::bit_cast<uint64_t>(C64[i])));
      }
      dots += m * n;
    }
  }
  MESSAGE(rows << " rows, " << dots << " elements");
  CHECK(rows > 0);
  CHECK(bad == 0);
}

namespace {

// The first registry or custom row of each kernel path (macro-kernel, SIMD
// kind, kernel name).
std::vector<std::pair<std::string, ModelRow>> one_row_per_path() {
  std::vector<std::pair<std::string, ModelRow>> out;
  std::vector<std::string> kinds;
  for (const auto& [name, row] : all_rows()) {
    const kernels::KernelPlan plan = kernels::plan(row);
    const std::string kind = std::to_string(static_cast<int>(plan.macro)) + (plan.simd ? "s" : "") +
                             std::to_string(static_cast<int>(plan.simd_params.kind)) + plan.name;
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) continue;
    kinds.push_back(kind);
    out.emplace_back(name, row);
  }
  return out;
}

}  // namespace

TEST_CASE("threads and blocking: m from 1 to past two row blocks, skinny and wide, 1-3 threads, one row per path") {
  // The driver's decisions (docs/kernels.md): m <= 32 runs tasks of column blocks
  // with their own B (run_steps_private), more rows share B's chunks among
  // tasks of rows x lane groups; column blocks split further with threads.
  std::size_t dots = 0, bad = 0, rows = 0;
  for (const auto& [name, row] : one_row_per_path()) {
    ++rows;
    Gen g(kSeed ^ std::hash<std::string>{}(name + " blocking"));
    const std::size_t shapes[][3] = {{1, 300, 37}, {16, 97, 300}, {17, 260, 20}, {33, 40, 19}, {70, 33, 9}, {300, 3, 41}};
    for (const auto& sh : shapes) {
      const std::size_t m = sh[0], n = sh[1], k = sh[2];
      std::vector<uint64_t> A(m * k), B(k * n), C(m * n);
      for (auto& x : A) x = g.bits(row.in, false, 0);
      for (auto& x : B) x = g.bits(b_fmt(row), false, 0);
      for (auto& x : C) x = g.bits(row.out, false, 0);
      const int threads = 1 + static_cast<int>(dots / 7 % 3);
      bad += check_gemm(name + " blocking t" + std::to_string(threads), row, m, n, k, A, B, C, m % 2, n % 2, k % 2,
                        threads);
      dots += m * n;
    }
  }
  MESSAGE(rows << " rows (one per path), " << dots << " dot products");
  CHECK(rows >= 6);
  CHECK(bad == 0);
}

TEST_CASE("threads and blocking: few rows and columns, long k (rows split over threads, B packed in k slices)") {
  // m <= 32 with fewer lane groups than threads (the multi-word
  // experiment's 10 x 10 products of long k): tasks of m/threads rows share
  // B's chunks of up to 4096 k, each lane group packed in slices of k by
  // all threads. Shapes cross several such chunks and end inside a step.
  std::size_t dots = 0, bad = 0, rows = 0;
  for (const auto& [name, row] : one_row_per_path()) {
    ++rows;
    Gen g(kSeed ^ std::hash<std::string>{}(name + " small mn"));
    const std::size_t shapes[][3] = {{10, 10, 9001}, {2, 1, 4500}, {5, 20, 8200}, {31, 16, 4099}};
    for (const auto& sh : shapes) {
      const std::size_t m = sh[0], n = sh[1], k = sh[2];
      std::vector<uint64_t> A(m * k), B(k * n), C(m * n);
      for (auto& x : A) x = g.bits(row.in, dots % 2 == 0, 0);
      for (auto& x : B) x = g.bits(b_fmt(row), dots % 2 == 0, 0);
      for (auto& x : C) x = g.bits(row.out, false, 0);
      for (int threads = 2; threads <= 3; ++threads) {
        bad += check_gemm(name + " small mn t" + std::to_string(threads), row, m, n, k, A, B, C, m % 2, n % 2,
                          threads == 3, threads);
        dots += m * n;
      }
    }
  }
  MESSAGE(rows << " rows (one per path), " << dots << " dot products");
  CHECK(rows >= 6);
  CHECK(bad == 0);
}

TEST_CASE("threads and blocking: few rows, many columns, short and long k (tasks pack their own B), 1-3 threads") {
  // m <= 64 with at least two micro-panels per thread: the chain tiles'
  // tasks of column blocks over the whole of N, each packing its own B
  // (short-wide products such as 10 x 10^6 x 10); every other path on the
  // same shapes. m = 65 stays on the shared B's path. Shapes cross the N
  // panels (1024 fp32, 512 fp64 columns) and the 256-k sub-chunks, with
  // edge tiles; inputs of every exponent (a few NaN/Inf), or within a few
  // binades of 1 so that sums cancel.
  std::size_t dots = 0, bad = 0, rows = 0;
  for (const auto& [name, row] : one_row_per_path()) {
    ++rows;
    Gen g(kSeed ^ std::hash<std::string>{}(name + " short wide"));
    const std::size_t shapes[][3] = {{10, 3000, 10}, {64, 700, 300}, {3, 1100, 530}, {65, 200, 20}, {1, 90, 0}};
    for (const auto& sh : shapes) {
      const std::size_t m = sh[0], n = sh[1], k = sh[2];
      std::vector<uint64_t> A(m * k), B(k * n), C(m * n);
      const bool narrow = dots % 2 == 0;
      const int centre = static_cast<int>(info(row.in).bias);
      for (auto& x : A) x = g.bits(row.in, narrow, centre);
      for (auto& x : B) x = g.bits(b_fmt(row), narrow, centre);
      for (auto& x : C) x = g.bits(row.out, false, 0);
      for (int threads = 1; threads <= 3; ++threads) {
        bad += check_gemm(name + " short wide t" + std::to_string(threads), row, m, n, k, A, B, C, threads == 2,
                          m % 2, threads != 1, threads);
        dots += m * n;
      }
    }
  }
  MESSAGE(rows << " rows (one per path), " << dots << " dot products");
  CHECK(rows >= 6);
  CHECK(bad == 0);
}

namespace {

// An integer GEMM against ref::dot: A, B as codes (s4/u4 with `packed`:
// two per byte along k, element 2i in the low nibble), C the s32 codes
// the chain starts from (into_c) or none.
std::size_t check_int_gemm(const std::string& name, const ModelRow& row, std::size_t m, std::size_t n,
                           std::size_t k, const std::vector<uint64_t>& A, const std::vector<uint64_t>& B,
                           const std::vector<uint64_t>& C, bool ta, bool tb, bool into_c, bool packed, int threads) {
  const std::size_t kb = packed ? (k + 1) / 2 : k;
  const IntOperandBytes ops = int_operand_bytes(m, n, k, ta, tb, packed, A.data(), B.data());
  const std::vector<uint8_t>&As = ops.a, &Bs = ops.b;
  std::vector<uint8_t> Cs(m * n * 4 + 4);
  for (std::size_t i = 0; i < m * n; ++i) driver::store(Fmt::s32, Cs.data(), i, C[i]);
  driver::GemmSpec spec;
  spec.row = &row;
  spec.threads = threads;
  spec.work_per_thread = 1;
  driver::Operand a{row.in, As.data(), static_cast<std::ptrdiff_t>(ta ? m : kb), ta};
  driver::Operand b{row.in_b, Bs.data(), static_cast<std::ptrdiff_t>(tb ? kb : n), tb};
  a.fp4_packed = b.fp4_packed = packed;
  driver::gemm(spec, m, n, k, 1.0, a, b, into_c ? 1.0 : 0.0, Fmt::s32, Cs.data(), static_cast<std::ptrdiff_t>(n));
  std::vector<uint64_t> ar(k), bc(k);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t l = 0; l < k; ++l) ar[l] = A[i * k + l], bc[l] = B[l * n + j];
      const uint64_t want = ref::dot(row, k, ar.data(), bc.data(), into_c ? C[i * n + j] : 0);
      const uint64_t got = driver::load(Fmt::s32, Cs.data(), static_cast<std::ptrdiff_t>(i * n + j));
      if (got != want && ++bad <= 2)
        FAIL_CHECK("seed " << kSeed << " " << name << " m" << m << " n" << n << " k" << k << " ta" << ta << " tb"
                           << tb << " into_c " << into_c << " packed " << packed << " at (" << i << "," << j
                           << "): ref " << hex(want) << " gemm " << hex(got));
    }
  return bad;
}

}  // namespace

TEST_CASE("integer units: extreme codes, long chains that wrap or clamp, packed int4, every target") {
  // Every integer row and its satfinite variants (engine_rows.h): operands
  // all at the extremes (-128, 127, 255, 0 and the int4 ones) with C near
  // MIN_INT32 / MAX_INT32, so that chains wrap (or clamp) once or many
  // times; sums that leave the s32 range and come back (sat_point
  // addition differs there); random codes; k over several chunks.
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::size_t dots = 0, bad = 0, rows = 0;
  // The GPUs share their integer units: each distinct unit once.
  std::vector<std::pair<std::string, ModelRow>> units;
  std::vector<std::string> keys;
  for (const auto& [name, row] : all_rows()) {
    if (!is_integer_row(row)) continue;
    const std::string key = std::string(row.family) + row.instr + info(row.in).name + info(row.in_b).name +
                            std::to_string(row.k) + std::to_string(static_cast<int>(row.overflow)) +
                            std::to_string(static_cast<int>(row.sat_point));
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    keys.push_back(key);
    units.emplace_back(name, row);
  }
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string tname = hwy::TargetName(target);
    for (const auto& [name, row] : units) {
      rows += target == targets.front();
      REQUIRE(kernels::plan(row).simd);
      const std::string id = name + " " + tname;
      Gen g(kSeed ^ (std::hash<std::string>{}(id) * 7));
      const FormatInfo &fa = info(row.in), &fb = info(row.in_b);
      auto extreme = [&](const FormatInfo& f) {
        const uint64_t top = 1ull << (f.width - 1), mask = (1ull << f.width) - 1;
        const bool s = f.integer == IntKind::twos_complement;
        const uint64_t r = g.rng() % 4;
        return r == 0 ? (s ? top : 0) : r == 1 ? (s ? top - 1 : mask) : r == 2 ? (s ? mask : 1) : (s ? top : mask);
      };
      const bool int4 = fa.width == 4;
      for (int t = 0; t < static_cast<int>(12 * kScale); ++t) {
        const bool long_k = t % 3 == 2;
        const std::size_t m = 1 + g.rng() % (long_k ? 4 : 37), n = 1 + g.rng() % 40,
                          k = long_k ? 3000 + g.rng() % 3000 : g.rng() % 300;
        std::vector<uint64_t> A(m * k), B(k * n), C(m * n);
        const int mode = t % 4;  // 0: random; 1: extremes; 2: one sign, then the other; 3: extremes, same sign
        for (std::size_t i = 0; i < m; ++i)
          for (std::size_t l = 0; l < k; ++l) {
            uint64_t& x = A[i * k + l];
            if (mode == 0) x = g.int_bits(row.in);
            else if (mode == 1) x = extreme(fa);
            else if (mode == 2) x = fa.integer == IntKind::twos_complement ? (l < k / 2 ? (1ull << (fa.width - 1)) - 1 : 1ull << (fa.width - 1)) : (1ull << fa.width) - 1;
            else x = fa.integer == IntKind::twos_complement ? 1ull << (fa.width - 1) : (1ull << fa.width) - 1;
          }
        for (auto& x : B) {
          if (mode == 0) x = g.int_bits(row.in_b);
          else if (mode == 1) x = extreme(fb);
          else x = fb.integer == IntKind::twos_complement ? (1ull << (fb.width - 1)) - 1 : (1ull << fb.width) - 1;
        }
        if (mode == 3 && fb.integer == IntKind::twos_complement)  // (-max)*(max) or (min)*(min): all one sign
          for (auto& x : B) x = 1ull << (fb.width - 1);
        for (auto& x : C) x = g.int_bits(Fmt::s32);
        const bool packed = int4 && t % 2 == 1;
        bad += check_int_gemm(id + " mode " + std::to_string(mode), row, m, n, k, A, B, C, g.rng() & 1,
                              g.rng() & 1, t % 5 != 4, packed, 1 + t % 3);
        dots += m * n;
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  MESSAGE(rows << " distinct integer units (with satfinite variants), " << targets.size() << " targets, " << dots
                << " dot products");
  CHECK(rows > 0);
  CHECK(bad == 0);
}

TEST_CASE("integer units: the GEMM refuses what the rule does not define") {
  const Model h100 = *gpu_model("H100");
  const ModelRow& row = h100.require_integer(Fmt::s8, Fmt::s8, Fmt::s32);
  int8_t a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4};
  int32_t c[4] = {};
  driver::GemmSpec spec;
  spec.row = &row;
  const driver::Operand A{Fmt::s8, a, 2, false}, B{Fmt::s8, b, 2, false}, U{Fmt::u8, b, 2, false};
  CHECK_THROWS_AS(driver::gemm(spec, 2, 2, 2, 2.0, A, B, 0.0, Fmt::s32, c, 2), std::invalid_argument);
  CHECK_THROWS_AS(driver::gemm(spec, 2, 2, 2, 1.0, A, B, 0.5, Fmt::s32, c, 2), std::invalid_argument);
  CHECK_THROWS_AS(driver::gemm(spec, 2, 2, 2, 1.0, A, B, 0.0, Fmt::fp32, c, 2), std::invalid_argument);
  CHECK_THROWS_AS(driver::gemm(spec, 2, 2, 2, 1.0, A, U, 0.0, Fmt::s32, c, 2), std::invalid_argument);
  driver::gemm(spec, 2, 2, 2, 1.0, A, B, 0.0, Fmt::s32, c, 2);
  CHECK(c[0] == 1 * 1 + 2 * 3);
  CHECK(c[3] == 3 * 2 + 4 * 4);
}
