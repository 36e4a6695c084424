// SPDX-License-Identifier: BSD-3-Clause
// An independent implementation of the two Ozaki schemes as docs/ozaki.md
// defines them, in exact integer arithmetic: scheme I's digits extracted
// from each double's integer significand, the slice products and their
// groups as int64 sums, the fp64 sums in the documented order; scheme II's
// scaled integers A', B' and their product A'B' exactly in __int128 (no
// moduli: the reconstruction must give A'B' itself), rounded once. The
// slice and modular products of a unit that computes them exactly are these.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ozaki_ref {

struct Mat {  // row-major
  std::size_t rows, cols;
  std::vector<double> v;
  double at(std::size_t i, std::size_t j) const { return v[i * cols + j]; }
};

// |x| = M 2^X with M an integer below 2^53.
inline void significand(double x, uint64_t& M, int& X) {
  int E = 0;
  const double f = std::frexp(std::fabs(x), &E);
  M = static_cast<uint64_t>(std::ldexp(f, 53));
  X = E - 53;
}

// The exponent e of a line: frexp exponent of its largest magnitude, 0 for zeros.
inline int exponent_of_max(const std::vector<double>& line) {
  double most = 0;
  for (double x : line) most = std::fmax(most, std::fabs(x));
  int e = 0;
  if (most > 0) std::frexp(most, &e);
  return e;
}

// Digit s (1-based) of x in a line of exponent e: floor(|x| 2^(bits s - e)) mod 2^bits, x's sign.
inline int64_t digit(double x, int e, int bits, int s) {
  if (x == 0) return 0;
  uint64_t M;
  int X;
  significand(x, M, X);
  const int shift = X + bits * s - e;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t d;
  if (shift >= 0) d = shift >= bits ? 0 : (M << shift) & mask;
  else d = -shift >= 64 ? 0 : (M >> -shift) & mask;
  return x < 0 ? -static_cast<int64_t>(d) : static_cast<int64_t>(d);
}

// Scheme I: D = A B (A m x k, B k x n) with S slices of `bits`, triangle or all pairs.
inline std::vector<double> scheme1(const Mat& A, const Mat& B, int S, int bits, bool all) {
  const std::size_t m = A.rows, k = A.cols, n = B.cols;
  std::vector<int> ea(m), fb(n);
  std::vector<std::vector<int64_t>> da(S, std::vector<int64_t>(m * k)), db(S, std::vector<int64_t>(k * n));
  for (std::size_t i = 0; i < m; ++i) {
    std::vector<double> line(A.v.begin() + i * k, A.v.begin() + (i + 1) * k);
    ea[i] = exponent_of_max(line);
    for (std::size_t l = 0; l < k; ++l)
      for (int s = 1; s <= S; ++s) da[s - 1][i * k + l] = digit(A.at(i, l), ea[i], bits, s);
  }
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<double> line(k);
    for (std::size_t l = 0; l < k; ++l) line[l] = B.at(l, j);
    fb[j] = exponent_of_max(line);
    for (std::size_t l = 0; l < k; ++l)
      for (int s = 1; s <= S; ++s) db[s - 1][l * n + j] = digit(B.at(l, j), fb[j], bits, s);
  }
  std::vector<double> D(m * n, 0.0);
  for (int g = all ? 2 * S : S + 1; g >= 2; --g)
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        int64_t q = 0;
        for (int s = 1; s <= S; ++s) {
          const int t = g - s;
          if (t < 1 || t > S) continue;
          for (std::size_t l = 0; l < k; ++l) q += da[s - 1][i * k + l] * db[t - 1][l * n + j];
        }
        D[i * n + j] += std::ldexp(static_cast<double>(q), ea[i] + fb[j] - bits * g);
      }
  return D;
}

// trunc(x 2^mu) exactly, as __int128 (|x 2^mu| < 2^120).
inline __int128 scaled_integer(double x, int mu) {
  if (x == 0) return 0;
  uint64_t M;
  int X;
  significand(x, M, X);
  const int shift = X + mu;
  __int128 v = shift >= 0 ? static_cast<__int128>(M) << shift : (-shift >= 64 ? 0 : static_cast<__int128>(M >> -shift));
  return x < 0 ? -v : v;
}

// Scheme II's scale of a line (docs/ozaki.md): L = floor(log2 P).
inline int line_scale(const std::vector<double>& line, int log2_p) {
  const int e = exponent_of_max(line);
  bool zero = true;
  for (double x : line) zero = zero && x == 0;
  if (zero) return 0;
  double s = 0;
  for (double x : line) {
    const double w = std::ldexp(x, -e);
    s += w * w;
  }
  int xe = 0;
  std::frexp(s * (1.0 + 0x1p-20), &xe);
  const int a = log2_p - 1 - xe;
  return (a >= 0 ? a / 2 : -((-a + 1) / 2)) - e;
}

// Scheme II with moduli whose product has floor(log2 P) = log2_p (P < 2^126).
inline std::vector<double> scheme2(const Mat& A, const Mat& B, int log2_p) {
  const std::size_t m = A.rows, k = A.cols, n = B.cols;
  std::vector<int> mu(m), nu(n);
  std::vector<__int128> a(m * k), b(k * n);
  for (std::size_t i = 0; i < m; ++i) {
    std::vector<double> line(A.v.begin() + i * k, A.v.begin() + (i + 1) * k);
    mu[i] = line_scale(line, log2_p);
    for (std::size_t l = 0; l < k; ++l) a[i * k + l] = scaled_integer(A.at(i, l), mu[i]);
  }
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<double> line(k);
    for (std::size_t l = 0; l < k; ++l) line[l] = B.at(l, j);
    nu[j] = line_scale(line, log2_p);
    for (std::size_t l = 0; l < k; ++l) b[l * n + j] = scaled_integer(B.at(l, j), nu[j]);
  }
  std::vector<double> D(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      __int128 c = 0;
      for (std::size_t l = 0; l < k; ++l) c += a[i * k + l] * b[l * n + j];
      D[i * n + j] = std::ldexp(static_cast<double>(c), -(mu[i] + nu[j]));  // libgcc: correctly rounded
    }
  return D;
}

// floor(log2 of the product of the first N moduli), computed here afresh:
// 256 down, each kept when coprime to those kept.
inline int moduli_log2(int N) {
  std::vector<int> p;
  for (int c = 256; static_cast<int>(p.size()) < N; --c) {
    bool ok = true;
    for (int q : p) {
      int x = c, y = q;
      while (y) {
        const int t = x % y;
        x = y, y = t;
      }
      ok = ok && x == 1;
    }
    if (ok) p.push_back(c);
  }
  long double lg = 0;  // the sum of log2 p: no product is within 2^-40 of a power of two
  for (int q : p) lg += std::log2(static_cast<long double>(q));
  return static_cast<int>(std::floor(lg));
}

}  // namespace ozaki_ref
