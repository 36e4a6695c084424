// SPDX-License-Identifier: BSD-3-Clause
#include "experiments/numerics.h"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <stdexcept>

#include "driver/gemm.h"
#include "formats/wide_accumulator.h"

namespace mmaemu::experiments {

Matrix exact_product(const Matrix& A, const Matrix& B, int threads) {
  if (A.cols != B.rows) throw std::invalid_argument("exact_product: inner dimensions differ");
  const std::size_t m = A.rows, k = A.cols, n = B.cols;
  std::vector<double> bt(n * k);  // B transposed: columns contiguous
  for (std::size_t l = 0; l < k; ++l)
    for (std::size_t j = 0; j < n; ++j) bt[j * k + l] = B(l, j);
  Matrix C(m, n);
  driver::parallel_for(driver::thread_count(threads), m * n, driver::Assign::dynamic, [&](std::size_t e) {
    const std::size_t i = e / n, j = e % n;
    const double* a = &A.v[i * k];
    const double* b = &bt[j * k];
    WideAccumulator acc;
    bool special = false;
    for (std::size_t l = 0; l < k && !special; ++l) {
      // Each binary64 operand as sig * 2^exp (sig < 2^53); the product is
      // exact in 106 bits and enters the accumulator exactly.
      const uint64_t xa = std::bit_cast<uint64_t>(a[l]), xb = std::bit_cast<uint64_t>(b[l]);
      const int ea = static_cast<int>((xa >> 52) & 0x7FF), eb = static_cast<int>((xb >> 52) & 0x7FF);
      if (ea == 0x7FF || eb == 0x7FF) {
        special = true;
        break;
      }
      uint64_t sa = xa & 0xFFFFFFFFFFFFFull, sb = xb & 0xFFFFFFFFFFFFFull;
      if (ea) sa |= 1ull << 52;
      if (eb) sb |= 1ull << 52;
      if (sa == 0 || sb == 0) continue;
      const int exp = (ea ? ea - 1075 : -1074) + (eb ? eb - 1075 : -1074);
      acc.add(((xa ^ xb) >> 63) != 0, static_cast<unsigned __int128>(sa) * sb, exp);
    }
    if (special) {
      // NaN/Inf operands: binary64 arithmetic gives the IEEE special result.
      double s = 0;
      for (std::size_t l = 0; l < k; ++l) s += a[l] * b[l];
      C(i, j) = s;
    } else {
      C(i, j) = std::bit_cast<double>(acc.round(Fmt::fp64, Round::rne, Overflow::ieee));
    }
  });
  return C;
}

namespace {

// sqrt(sum x_i^2) without overflow or underflow: scaled by the largest |x_i|.
template <class F>
double scaled_norm2(std::size_t count, F elem) {
  double big = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double x = std::fabs(elem(i));
    if (std::isnan(x)) return x;
    big = std::max(big, x);
  }
  if (big == 0 || std::isinf(big)) return big;
  long double s = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const long double x = elem(i) / big;
    s += x * x;
  }
  return big * static_cast<double>(std::sqrt(s));
}

}  // namespace

double normwise_error_fro(const Matrix& C, const Matrix& R) {
  const double d = scaled_norm2(C.v.size(), [&](std::size_t i) { return C.v[i] - R.v[i]; });
  const double r = scaled_norm2(R.v.size(), [&](std::size_t i) { return R.v[i]; });
  if (std::isnan(d) || std::isnan(r)) return NAN;
  if (r == 0) return d == 0 ? 0.0 : INFINITY;
  return d / r;
}

double componentwise_error(const Matrix& C, const Matrix& R) {
  double worst = 0;
  for (std::size_t i = 0; i < C.v.size(); ++i) {
    const double c = C.v[i], r = R.v[i];
    if (std::isnan(c) || std::isnan(r)) return NAN;
    double e;
    if (c == r) e = 0;  // also equal infinities
    else if (r == 0 || std::isinf(r) || std::isinf(c)) e = INFINITY;
    else e = std::fabs(c - r) / std::fabs(r);
    worst = std::max(worst, e);
  }
  return worst;
}

double norm_inf(const Matrix& X) {
  double best = 0;
  for (std::size_t i = 0; i < X.rows; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < X.cols; ++j) s += std::fabs(X(i, j));
    if (std::isnan(s)) return s;
    best = std::max(best, s);
  }
  return best;
}

double norm_inf_diff(const Matrix& C, const Matrix& R) {
  Matrix D(C.rows, C.cols);
  for (std::size_t i = 0; i < D.v.size(); ++i) D.v[i] = C.v[i] - R.v[i];
  return norm_inf(D);
}

double pow2_floor(double x) {
  if (!(x > 0) || std::isinf(x)) throw std::invalid_argument("pow2_floor: needs a finite x > 0");
  int e = 0;
  (void)std::frexp(x, &e);  // x = f * 2^e, f in [0.5, 1)
  return std::ldexp(1.0, e - 1);
}

namespace {

double scale_for(double biggest, double theta) {
  if (biggest == 0 || !std::isfinite(biggest)) return 1.0;
  const double q = theta / biggest;
  return pow2_floor(std::isinf(q) ? DBL_MAX : q);
}

}  // namespace

std::vector<double> row_scaling(const Matrix& A, double theta) {
  std::vector<double> L(A.rows);
  for (std::size_t i = 0; i < A.rows; ++i) {
    double big = 0;
    for (std::size_t j = 0; j < A.cols; ++j) big = std::max(big, std::fabs(A(i, j)));
    L[i] = scale_for(big, theta);
  }
  return L;
}

std::vector<double> col_scaling(const Matrix& B, double theta) {
  std::vector<double> big(B.cols, 0.0), M(B.cols);
  for (std::size_t i = 0; i < B.rows; ++i)
    for (std::size_t j = 0; j < B.cols; ++j) big[j] = std::max(big[j], std::fabs(B(i, j)));
  for (std::size_t j = 0; j < B.cols; ++j) M[j] = scale_for(big[j], theta);
  return M;
}

std::vector<FormatArray> split_words(const double* x, std::size_t count, Fmt f, int p, Round rnd) {
  const int t = precision(f);
  std::vector<double> r(x, x + count);  // the residual, exact in binary64
  std::vector<FormatArray> words;
  for (int j = 1; j <= p; ++j) {
    // w_j = fl(r / u^(j-1)); then r -= u^(j-1) * w_j. Both scalings are by
    // powers of two (exact); the subtraction removes from r its own rounding
    // at a coarser grid, so it is exact too.
    const double up = std::ldexp(1.0, (j - 1) * t), down = std::ldexp(1.0, -(j - 1) * t);
    FormatArray w(f, count);
    for (std::size_t i = 0; i < count; ++i) {
      const uint64_t b = convert(Fmt::fp64, f, std::bit_cast<uint64_t>(r[i] * up), rnd, Overflow::ieee);
      w.set_bits(i, b);
      if (j < p) r[i] -= std::bit_cast<double>(to_fp64_bits(f, b)) * down;
    }
    words.push_back(std::move(w));
  }
  return words;
}

void model_gemm(const ModelRow& row, bool accumulate_into_c, std::size_t m, std::size_t n, std::size_t k,
                const FormatArray& A, const FormatArray& B, FormatArray& c, int threads,
                const driver::Schedule& schedule) {
  if (A.size() != m * k || B.size() != k * n || c.size() != m * n)
    throw std::invalid_argument("model_gemm: operand sizes do not match the shape");
  const int t = driver::thread_count(threads);
  const std::size_t aw = static_cast<std::size_t>(info(A.format()).width) / 8;
  const std::size_t cw = static_cast<std::size_t>(info(c.format()).width) / 8;
  auto run = [&](std::size_t i0, std::size_t rows, int th) {
    driver::GemmSpec spec;
    spec.row = &row;
    spec.accumulate_into_c = accumulate_into_c;
    spec.threads = th;
    const driver::Operand a{A.format(), static_cast<const unsigned char*>(A.data()) + i0 * k * aw,
                            static_cast<std::ptrdiff_t>(k), false};
    const driver::Operand b{B.format(), B.data(), static_cast<std::ptrdiff_t>(n), false};
    driver::scheduled_gemm(schedule, spec, rows, n, k, 1.0, a, b, accumulate_into_c ? 1.0 : 0.0, c.format(),
                 static_cast<unsigned char*>(c.data()) + i0 * n * cw, static_cast<std::ptrdiff_t>(n));
  };
  // The engine threads over tasks of 32 rows; with fewer rows than that per
  // thread, row slices run side by side on one thread each instead.
  constexpr std::size_t kEngineRows = 32;
  if (t <= 1 || m >= kEngineRows * static_cast<std::size_t>(t)) {
    run(0, m, t);
    return;
  }
  const int slices = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(t), m));
  const std::size_t parts = static_cast<std::size_t>(slices);
  driver::parallel_for(slices, parts, driver::Assign::blocks,
                       [&](std::size_t s) { run(m * s / parts, m * (s + 1) / parts - m * s / parts, 1); });
}

}  // namespace mmaemu::experiments
