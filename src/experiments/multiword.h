// SPDX-License-Identifier: BSD-3-Clause
// The multi-word GEMM experiment of Mary and Mikaitis ("Error analysis of
// matrix multiplication with narrow range floating-point arithmetic", SIAM
// J. Sci. Comput. 47(4), 2025, Sec. 5), as reproduced on GPU models by
// Khattak and Mikaitis (NVIDIA paper §5, Figs. 6-8; AMD paper §8.1, Figs.
// 4-6) with the MATLAB toolbox's experiments/matmul_test.m:
//
//  1. A (10 x n), B (n x 10): |a_ij| = 10^U(-10, 10), random signs.
//  2. theta = min(fmax, sqrt(Fmax / n)) (fmax: the input format's largest
//     value, Fmax: the accumulator's); row scaling L_i = 2^floor(log2(theta
//     / max_j |a_ij|)), column scaling M_j likewise for B, so that every
//     element of LA and BM is at most theta (no overflow in the words, no
//     overflow of the fp32 sums).
//  3. LA and BM are split into p words of the input format (split_words):
//     LA ~ sum_j u^(j-1) A_j, BM ~ sum_k u^(k-1) B_k.
//  4. On the unit, in this order: C = 0; for j = 1..p, for k = 1..p, if
//     j + k - 2 < p: C = GEMM(u^(j+k-2), A_j, B_k, 1, C), the toolbox's
//     GEMM: alpha = u^(j+k-2) multiplies A_j *before* A_j is rounded to the
//     input format (which can push small elements into the subnormal range
//     or to zero), and C is the first accumulator of the chain of block
//     FMAs (into-c), so every partial sum lives in the unit's
//     fp32 accumulator from the first pair to the last.
//  5. C = L^-1 (LA*BM) M^-1 (exact powers of two, binary64);
//     error = ||C - C_ref||_inf / (||A||_inf ||B||_inf) with C_ref the exact
//     product rounded to binary64.
//  6. bound = 2u + nU + 4n^2 fmin/theta + 4n^2 Fmin/theta^2 (the bound
//     (3.26) as matmul_test.m evaluates it, whatever p), u = 2^-t and fmin
//     = 2^emin of the input format, U and Fmin those of the accumulator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "experiments/common.h"
#include "experiments/matrix.h"
#include "models/model.h"

namespace mmaemu::experiments {

/// The inner dimensions: `points` values floor(10^(1 + i (log10(nmax) - 1)
/// / (points - 1))), i = 0..points-1 (the toolbox's floor(logspace(1, 6,
/// 20)) for nmax = 10^6); one point gives nmax alone.
std::vector<std::size_t> multiword_sizes(int points, std::size_t nmax);

/// theta of step 2 and the bound of step 6.
double multiword_theta(Fmt in, Fmt out, std::size_t n);
double multiword_bound(Fmt in, Fmt out, std::size_t n);

/// The random A (m x n) and B (n x q) of step 1 for inner dimension n: the
/// same for every model, word count and list of points (seeded by seed and
/// n).
void multiword_matrices(std::size_t m, std::size_t n, std::size_t q, uint64_t seed, Matrix& A, Matrix& B);

/// Steps 2-3 for up to pmax words (the first p words do not depend on pmax),
/// the words rounded by `split` (split_words).
struct MultiwordInputs {
  Fmt in = Fmt::fp16, out = Fmt::fp32;
  std::size_t m = 0, n = 0, q = 0;
  double theta = 0;
  std::vector<double> L, M;          // the diagonal scalings
  std::vector<FormatArray> Aw, Bw;   // words of LA (m x n) and BM (n x q)
};
MultiwordInputs multiword_prepare(const Matrix& A, const Matrix& B, Fmt in, Fmt out, int pmax,
                                  Round split = Round::rne);

/// Step 4 on the unit `row` with p words: LA*BM as the binary64 values of
/// the unit's results. Words of a format other than row.in (the toolbox's
/// MI300 fp8 run: OCP e5m2 words on the FNUZ unit) are rounded to row.in,
/// RNE and saturating, as the toolbox's GEMM.m does.
Matrix multiword_product(const ModelRow& row, const MultiwordInputs& inputs, int p, int threads = 0);

/// Step 5: C = L^-1 P M^-1.
Matrix multiword_unscale(const MultiwordInputs& inputs, const Matrix& P);

struct MultiwordConfig {
  Fmt in = Fmt::fp16, out = Fmt::fp32;
  std::vector<int> words{2};
  std::vector<Model> models;
  int points = 20;
  std::size_t nmax = 550000;
  std::size_t m = 10, q = 10;
  uint64_t seed = 1;
  int threads = 0;
  bool progress = true;
};

struct MultiwordRecord {
  std::string model;
  std::string instr;
  int words = 0;
  std::size_t n = 0;
  double error = 0, bound = 0;
};

struct MultiwordRun {
  std::vector<MultiwordRecord> records;  // by model, words, n
  std::vector<std::string> skipped;      // "MODEL: reason"
};

/// Runs the experiment; progress lines (one per n) go to `progress`.
MultiwordRun run_multiword(const MultiwordConfig& cfg, std::ostream& progress);

/// The CSV: header `model,input,words,n,error,bound`, one line per record.
void write_multiword_csv(std::ostream& os, const MultiwordConfig& cfg, const MultiwordRun& run);
/// A gnuplot script drawing DIR/multiword.png: one curve per (model, words),
/// log-log, and the bound.
std::string multiword_plot_script(const MultiwordConfig& cfg, const MultiwordRun& run, const std::string& png);

}  // namespace mmaemu::experiments
