// SPDX-License-Identifier: BSD-3-Clause
// Multi-word splitting, scaling, sizes and bound of the multi-word
// experiment, checked against exact arithmetic and the papers' numbers.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <vector>

#include "experiments/matrix.h"
#include "experiments/multiword.h"
#include "experiments/numerics.h"
#include "formats/wide_accumulator.h"

using namespace mmaemu;
using namespace mmaemu::experiments;

namespace {

// x - sum_j u^(j-1) w_j, exactly (Kulisch), rounded to binary64.
double exact_residual(double x, const std::vector<FormatArray>& w, std::size_t i, int p, int t) {
  WideAccumulator acc;
  auto add = [&](double v, bool negate) {
    if (v == 0) return;
    int e = 0;
    const double f = std::frexp(std::fabs(v), &e);  // |v| = f 2^e, f in [0.5, 1)
    const uint64_t sig = static_cast<uint64_t>(std::ldexp(f, 53));
    acc.add((v < 0) != negate, sig, e - 53);
  };
  add(x, false);
  for (int j = 0; j < p; ++j) add(std::ldexp(w[static_cast<std::size_t>(j)].value(i), -j * t), true);
  return std::bit_cast<double>(acc.round(Fmt::fp64, Round::rne, Overflow::ieee));
}

}  // namespace

TEST_CASE("split_words: every word is a value of the format, and the words sum to x within u^p|x| (+ subnormal term)") {
  for (Fmt f : {Fmt::fp16, Fmt::bf16, Fmt::e4m3, Fmt::e5m2, Fmt::e5m2fnuz, Fmt::tf32}) {
    CAPTURE(info(f).name);
    const int t = precision(f);
    const double u = std::ldexp(1.0, -t), fmax = max_finite(f);
    const double eta = std::ldexp(1.0, info(f).emin() - t);  // half the smallest subnormal spacing
    Rng rng(42);
    std::vector<double> x(4000);
    for (double& v : x) {
      // Magnitudes over the whole range of the format and below it.
      const double e = -40.0 + (std::log2(fmax) + 40.0) * rng.uniform01();
      v = std::min(std::exp2(e), fmax) * (rng.coin() ? -1 : 1);
    }
    x[0] = fmax;
    x[1] = -fmax;
    x[2] = 0;
    for (int p = 1; p <= 6; ++p) {
      CAPTURE(p);
      const std::vector<FormatArray> w = split_words(x.data(), x.size(), f, p);
      REQUIRE(w.size() == static_cast<std::size_t>(p));
      for (std::size_t i = 0; i < x.size(); ++i) {
        for (int j = 0; j < p; ++j) {
          // Representable: the stored bits decode to a finite value that
          // converts back to the same bits.
          const uint64_t b = w[static_cast<std::size_t>(j)].bits(i);
          const double v = w[static_cast<std::size_t>(j)].value(i);
          REQUIRE(std::isfinite(v));
          REQUIRE(convert(Fmt::fp64, f, std::bit_cast<uint64_t>(v), Round::rz) == b);
        }
        const double r = exact_residual(x[i], w, i, p, t);
        const double limit = std::pow(u, p) * std::fabs(x[i]) + p * std::pow(u, p - 1) * eta;
        REQUIRE(std::fabs(r) <= limit);
      }
    }
  }
}

TEST_CASE("split_words: a normal-range value splits to within u^p exactly as by hand") {
  // fp16, u = 2^-11: x = 1 + 2^-12 + 2^-30.
  const double x = 1 + std::ldexp(1.0, -12) + std::ldexp(1.0, -30);
  const std::vector<FormatArray> w = split_words(&x, 1, Fmt::fp16, 3);
  CHECK(w[0].value(0) == 1.0);                      // fl(x) = 1
  CHECK(w[1].value(0) == 0.5);                      // fl((2^-12 + 2^-30) 2^11) = 0.5
  CHECK(w[2].value(0) == std::ldexp(1.0, -8));      // (2^-30) 2^22 = 2^-8
  // A value below fp16's subnormals: 3 * 2^-27 rounds to 0 (below half of
  // 2^-24); the second word holds it exactly (3 * 2^-16, a subnormal).
  const double y = 3 * std::ldexp(1.0, -27);
  const std::vector<FormatArray> v = split_words(&y, 1, Fmt::fp16, 2);
  CHECK(v[0].value(0) == 0.0);
  CHECK(v[1].value(0) == 3 * std::ldexp(1.0, -16));
}

TEST_CASE("pow2_floor and the diagonal scalings") {
  CHECK(pow2_floor(1.0) == 1.0);
  CHECK(pow2_floor(1.5) == 1.0);
  CHECK(pow2_floor(0.75) == 0.5);
  CHECK(pow2_floor(65504.0) == 32768.0);
  CHECK(pow2_floor(std::ldexp(1.0, -1074)) == std::ldexp(1.0, -1074));
  CHECK_THROWS(pow2_floor(0.0));
  Matrix A(2, 3);
  A(0, 0) = 3;
  A(0, 1) = -100;
  A(0, 2) = 1;  // max 100: L = 2^floor(log2(65504/100)) = 512
  const std::vector<double> L = row_scaling(A, 65504);
  CHECK(L[0] == 512);
  CHECK(L[1] == 1);  // zero row
  const std::vector<double> M = col_scaling(A, 65504);
  CHECK(M[1] == 512);
  CHECK(M[0] == 16384);  // 65504 / 3 = 21834.7 -> 2^14
  for (std::size_t j = 0; j < 3; ++j) CHECK(std::fabs(A(0, j) * L[0]) <= 65504);
}

TEST_CASE("multiword sizes and bound reproduce the papers' grid and bound values") {
  // floor(logspace(1, 6, 20)) of matmul_test.m.
  const std::vector<std::size_t> paper{10,    18,    33,    61,     112,    206,    379,
                                       695,   1274,  2335,  4281,   7847,   14384,  26366,
                                       48329, 88586, 162377, 297635, 545559, 1000000};
  CHECK(multiword_sizes(20, 1000000) == paper);
  const std::vector<std::size_t> dflt = multiword_sizes(20, 550000);
  CHECK(dflt.size() == 20);
  CHECK(dflt.front() == 10);
  CHECK(dflt.back() == 550000);
  CHECK(multiword_sizes(1, 1234) == std::vector<std::size_t>{1234});
  // The bound column of the toolbox's .dat files (6 significant digits).
  auto rel = [](double a, double b) { return std::fabs(a - b) / b; };
  CHECK(rel(multiword_bound(Fmt::fp16, Fmt::fp32, 10), 9.775313e-04) < 1e-6);
  CHECK(rel(multiword_bound(Fmt::fp16, Fmt::fp32, 545559), 1.109351e+03) < 1e-6);
  CHECK(rel(multiword_bound(Fmt::e5m2, Fmt::fp32, 10), 2.500010e-01) < 1e-6);
  CHECK(rel(multiword_bound(Fmt::e5m2, Fmt::fp32, 1000000), 4.257784e+03) < 1e-6);
  // bf16: theta = sqrt(Fmax / n) < fmax.
  CHECK(multiword_theta(Fmt::bf16, Fmt::fp32, 100) == std::sqrt(max_finite(Fmt::fp32) / 100));
  CHECK(multiword_theta(Fmt::fp16, Fmt::fp32, 100) == 65504);
}

TEST_CASE("exact_product is the correctly rounded sum of exact products") {
  // 1e16 + 1 - 1e16 cancels exactly: binary64 left to right gives 0.
  Matrix A(1, 3), B(3, 1);
  A(0, 0) = 1e16;
  A(0, 1) = 1;
  A(0, 2) = -1e16;
  B(0, 0) = B(1, 0) = B(2, 0) = 1;
  CHECK(exact_product(A, B)(0, 0) == 1.0);
  // (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104: the tiny term decides a tie.
  Matrix C(1, 2), D(2, 1);
  C(0, 0) = 1 + std::ldexp(1.0, -52);
  D(0, 0) = C(0, 0);
  C(0, 1) = std::ldexp(1.0, -53);  // + 2^-53: exact sum 1 + 2^-51 + 2^-53 + 2^-104
  D(1, 0) = 1;
  CHECK(exact_product(C, D)(0, 0) == 1 + std::ldexp(1.0, -51) + std::ldexp(1.0, -52));
  // NaN and Inf operands: IEEE results.
  A(0, 1) = INFINITY;
  CHECK(std::isinf(exact_product(A, B)(0, 0)));
}
