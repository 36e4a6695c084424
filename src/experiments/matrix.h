// SPDX-License-Identifier: BSD-3-Clause
// Dense binary64 matrices for the experiments: random generation with a
// documented, platform-independent generator, and reading from files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace mmaemu::experiments {

/// Row-major binary64 matrix.
struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> v;

  Matrix() = default;
  Matrix(std::size_t r, std::size_t c) : rows(r), cols(c), v(r * c, 0.0) {}
  double& operator()(std::size_t i, std::size_t j) { return v[i * cols + j]; }
  double operator()(std::size_t i, std::size_t j) const { return v[i * cols + j]; }
};

/// Element distributions (--dist):
///   uniform[:LO:HI]      uniform in [LO, HI), default [-1, 1)
///   normal[:MU:SIGMA]    normal, default N(0, 1)
///   loguniform[:LO:HI]   magnitudes 10^U(log10 LO, log10 HI) with random
///                        signs, 0 < LO <= HI; default 1e-10:1e10 (the papers)
///   int:LO:HI            integers uniform in [LO, HI] (exact in every format
///                        that holds them)
struct Dist {
  enum class Kind { uniform, normal, loguniform, integer } kind = Kind::normal;
  double a = 0, b = 1;  // loguniform: log10 of LO and HI
  std::string text;     // as given, for reports
};

/// Parses a --dist value; throws UsageError.
Dist parse_dist(const std::string& text);

/// The generator: 64-bit Mersenne Twister (std::mt19937_64, specified
/// exactly by the C++ standard); doubles from its top 53 bits.
class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  /// Uniform in [0, 1), a multiple of 2^-53.
  double uniform01() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }
  bool coin() { return (g_() >> 63) != 0; }
  /// Standard normal (Marsaglia's polar method).
  double normal();
  uint64_t next() { return g_(); }

 private:
  std::mt19937_64 g_;
  bool have_spare_ = false;
  double spare_ = 0;
};

/// Fills m row by row with draws of d.
void fill(Matrix& m, const Dist& d, Rng& rng);

/// Reads a matrix from a file:
///  * `.npy` (NumPy format 1.0-3.0): a 2-D array of float64, float32, int64
///    or int32, little-endian, C or Fortran order;
///  * otherwise text: one row per line, numbers separated by white space or
///    commas (strtod syntax: 1.5, -2e-3, 0x1p-24, inf, nan); empty lines and
///    lines starting with '#' are skipped; every row must have the same
///    length.
/// Throws UsageError naming the file (and line) on any problem.
Matrix read_matrix(const std::string& path);

/// Writes a matrix as text readable by read_matrix (%.17g, exact).
void write_matrix_text(const std::string& path, const Matrix& m);

}  // namespace mmaemu::experiments
