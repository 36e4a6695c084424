// SPDX-License-Identifier: BSD-3-Clause
#include "experiments/toolbox.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <stdexcept>

#include "experiments/multiword.h"
#include "experiments/numerics.h"

namespace mmaemu::experiments {

namespace {

constexpr std::size_t kRows = 10, kCols = 10;  // matmul_test.m's m and q
constexpr int kPoints = 20;                    // floor(logspace(1, 6, 20))
constexpr std::size_t kNmax = 1000000;

// Fills X (rows x cols, row-major) column by column, as MATLAB fills rand(rows, cols).
template <class Draw>
void fill_column_major(Matrix& X, Draw draw) {
  for (std::size_t j = 0; j < X.cols; ++j)
    for (std::size_t i = 0; i < X.rows; ++i) X(i, j) = draw();
}

}  // namespace

void toolbox_matrices(MatlabRng& rng, std::size_t m, std::size_t n, std::size_t q, Matrix& A, Matrix& B) {
  constexpr double l = 10;
  // A = 10.^(rand(m,n)*2*l-l), evaluated left to right as MATLAB does.
  auto magnitude = [&] { return std::pow(10.0, rng.rand() * 2 * l - l); };
  A = Matrix(m, n);
  B = Matrix(n, q);
  fill_column_major(A, magnitude);
  fill_column_major(B, magnitude);
  // sA = randi(2,m,n)*2-3, sB likewise; A = A.*sA.
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < m; ++i) A(i, j) *= rng.randi2() * 2 - 3;
  for (std::size_t j = 0; j < q; ++j)
    for (std::size_t i = 0; i < n; ++i) B(i, j) *= rng.randi2() * 2 - 3;
}

uint64_t toolbox_draws(std::size_t m, std::size_t n, std::size_t q) {
  return 2 * (static_cast<uint64_t>(m) * n + static_cast<uint64_t>(n) * q);
}

// The toolbox's MI300XMC as it made the published files: the late c
// rounded down in a single stage (every point then reproduces; with two
// stages, 3 of the 140 differ in the 5th digit).
constexpr const char* kToolboxMi300 = "custom:base=MI300X,late_rd=single_stage";

const std::vector<ToolboxSeries>& toolbox_series() {
  // experiments.m, in its order. Every model starts from rng(seed) except
  // b200rn on fp8-e5m2, which continues after b200's p = 1, 4, 6.
  static const std::vector<ToolboxSeries> table{
      {Fmt::fp16, "v100", {1, 2, 3}, 0}, {Fmt::fp16, "a100", {1, 2, 3}, 0},
      {Fmt::fp16, "b200", {1, 2, 3}, 0}, {Fmt::fp16, "b200rn", {1, 2, 3}, 0},
      {Fmt::bf16, "a100", {1, 2, 3}, 0}, {Fmt::bf16, "b200", {1, 2, 3}, 0},
      {Fmt::bf16, "b200rn", {1, 2, 3}, 0}, {Fmt::e5m2, "l40s", {1, 4, 6}, 0},
      {Fmt::e5m2, "h100", {1, 4, 6}, 0}, {Fmt::e5m2, "b200", {1, 4, 6}, 0},
      {Fmt::e5m2, "b200rn", {1, 4, 6}, 3},
      // experiments_CDNA.m (matmul_test_CDNA.m: the MI*MC models).
      {Fmt::fp16, "mi100", {1, 2, 3}, 0},
      {Fmt::fp16, "mi250", {1, 2, 3}, 0},
      {Fmt::fp16, "mi300x", {1, 2, 3}, 0, Fmt::fp64, kToolboxMi300},
      {Fmt::bf16, "mi100", {1, 2, 3}, 0},
      {Fmt::bf16, "mi250", {1, 2, 3}, 0},
      {Fmt::bf16, "mi300x", {1, 2, 3}, 0, Fmt::fp64, kToolboxMi300},
      {Fmt::e5m2, "mi300x", {1, 4, 6}, 0, Fmt::e5m2fnuz, kToolboxMi300},
  };
  return table;
}

const char* toolbox_format_name(Fmt in) {
  switch (in) {
    case Fmt::fp16: return "binary16";
    case Fmt::bf16: return "bfloat16";
    case Fmt::e5m2: return "fp8-e5m2";
    default: throw std::invalid_argument("toolbox_format_name: the toolbox's experiment has no such input");
  }
}

std::string toolbox_file_name(Fmt in, const std::string& model, int p) {
  return std::string("matmul_test_") + toolbox_format_name(in) + "_binary32_words_" + std::to_string(p) + "_model_" +
         model + ".dat";
}

namespace {

// One point of matmul_test.m's loop: draws A and B, returns the error and the bound.
ToolboxPoint toolbox_point(MatlabRng& rng, const ToolboxSeries& series, const ModelRow& row, int p, std::size_t n,
                           Round split, int threads) {
  Matrix A, B;
  toolbox_matrices(rng, kRows, n, kCols, A, B);
  const Matrix Ctrue = exact_product(A, B, threads);
  const MultiwordInputs w = multiword_prepare(A, B, series.in, Fmt::fp32, p, split);
  const Matrix C = multiword_unscale(w, multiword_product(row, w, p, threads));
  ToolboxPoint pt;
  pt.n = n;
  pt.error = norm_inf_diff(C, Ctrue) / norm_inf(A) / norm_inf(B);  // as matmul_test.m divides
  pt.bound = multiword_bound(series.in, Fmt::fp32, n);
  return pt;
}

}  // namespace

std::vector<ToolboxSet> run_toolbox_series(const ToolboxSeries& series, const ModelRow& row,
                                           const std::vector<int>& words, std::size_t nmax, uint32_t seed, int threads,
                                           std::ostream* progress, bool session_start) {
  auto wanted = [&](int p) { return words.empty() || std::find(words.begin(), words.end(), p) != words.end(); };
  for (int p : words)
    if (std::find(series.words.begin(), series.words.end(), p) == series.words.end())
      throw std::invalid_argument("run_toolbox_series: the series has no such word count");
  const std::vector<std::size_t> grid = multiword_sizes(kPoints, kNmax);
  uint64_t per_grid = 0;
  for (std::size_t n : grid) per_grid += toolbox_draws(kRows, n, kCols);
  std::size_t last = 0;  // one past the last word count run
  for (std::size_t i = 0; i < series.words.size(); ++i)
    if (wanted(series.words[i])) last = i + 1;
  MatlabRng rng(seed);
  rng.discard(per_grid * static_cast<uint64_t>(series.grids_before));
  std::vector<ToolboxSet> sets;
  for (std::size_t i = 0; i < last; ++i) {
    const int p = series.words[i];
    if (!wanted(p)) {
      rng.discard(per_grid);  // drawn by the script for a file not asked for
      continue;
    }
    ToolboxSet set;
    set.words = p;
    for (std::size_t n : grid) {
      if (n > nmax) {
        if (i + 1 == last) break;  // nothing asked for follows in the stream
        rng.discard(toolbox_draws(kRows, n, kCols));  // the script's large n: drawn, not computed here
        continue;
      }
      const auto t0 = std::chrono::steady_clock::now();
      // CPFloat rounds to nearest until the session's first GEMM call.
      const bool first_of_session = session_start && i == 0 && n == grid.front();
      set.points.push_back(toolbox_point(rng, series, row, p, n, first_of_session ? Round::rne : Round::rz, threads));
      if (progress) {
        char line[160];
        std::snprintf(line, sizeof line, "multiword --toolbox: %s p = %d, n = %zu: %.1f s\n", series.model, p, n,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        *progress << line << std::flush;
      }
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

std::string toolbox_dat(const std::vector<ToolboxPoint>& points) {
  std::string s = "n error bound \n";  // fprintf(fileID, ['n error bound \n'])
  for (const ToolboxPoint& pt : points) {
    char line[96];
    std::snprintf(line, sizeof line, "%zu %e %e \n", pt.n, pt.error, pt.bound);
    s += line;
  }
  return s;
}

}  // namespace mmaemu::experiments
