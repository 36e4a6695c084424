// SPDX-License-Identifier: BSD-3-Clause
// The multi-word experiment exactly as the MATLAB toolbox ran it for the
// papers' figures (Khattak and Mikaitis, NVIDIA paper §5 Figs. 6-8, AMD paper
// §8.1; the toolbox's experiments.m, matmul_test.m and their CDNA versions,
// docs/tools.md), so that the
// published data files (`matmul_test_<in>_binary32_words_<p>_model_<gpu>.dat`)
// come out digit for digit (`mmaemu experiment multiword --toolbox`).
//
// What differs from `mmaemu experiment multiword` (multiword.h):
//  * the matrices come from MATLAB's rng(1) stream (MatlabRng), drawn in the
//    order of experiments.m: for each model, rng(1), then p = 1, 4, 6 (or
//    1, 2, 3) in turn, each over the whole grid n = floor(logspace(1, 6, 20))
//    (points beyond --nmax are drawn and thrown away, so later sets keep
//    their place in the stream);
//  * the words are truncated (Round::rz), not rounded to nearest:
//    matmul_test.m calls CPFloat with options that name only the format,
//    and CPFloat keeps the rounding mode of its previous call, the toolbox
//    GEMM's round-toward-zero output rounding. (Only the very first split
//    of a MATLAB session gets CPFloat's default RNE.)
//  * the reference and the error follow matmul_test.m:
//    norm(C - Ctrue, inf) / norm(A, inf) / norm(B, inf).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <random>
#include <string>
#include <vector>

#include "experiments/matrix.h"
#include "formats/format.h"
#include "models/model.h"

namespace mmaemu::experiments {

/// MATLAB's default generator after rng(seed) ("twister"): MT19937 seeded
/// by init_genrand(seed), which is what std::mt19937 does with a 32-bit
/// seed; rand() is genrand_res53, a 53-bit value from two 32-bit outputs:
///   (a * 2^26 + b) * 2^-53,  a = first >> 5 (27 bits), b = second >> 6 (26 bits).
class MatlabRng {
 public:
  explicit MatlabRng(uint32_t seed) : g_(seed) {}
  double rand() {
    const uint32_t a = static_cast<uint32_t>(g_()) >> 5, b = static_cast<uint32_t>(g_()) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }
  /// randi(2): floor(2 * rand) + 1, one rand per value.
  int randi2() { return rand() < 0.5 ? 1 : 2; }
  /// Skips `count` rand() values.
  void discard(uint64_t count) { g_.discard(2 * count); }

 private:
  std::mt19937 g_;
};

/// matmul_test.m's A (m x n) and B (n x q) for one n, in its draw order:
/// rand(m,n), rand(n,q), randi(2,m,n), randi(2,n,q), each filled
/// column-major; a = 10.^(rand*2*l - l) .* (randi*2 - 3) with l = 10.
void toolbox_matrices(MatlabRng& rng, std::size_t m, std::size_t n, std::size_t q, Matrix& A, Matrix& B);
/// The number of rand() values toolbox_matrices draws.
uint64_t toolbox_draws(std::size_t m, std::size_t n, std::size_t q);

/// One model's run in experiments.m: its input format, the word counts in
/// the order run, and how many whole grids were drawn before its first
/// (experiments.m omits one rng(seed), so b200rn e5m2 follows b200's three).
struct ToolboxSeries {
  Fmt in;
  const char* model;  // the toolbox's name (file names; lookup_model knows it)
  std::vector<int> words;
  int grids_before;
  // The unit's input format where it is not `in`: the toolbox's MI300 model
  // takes 'fp8-e5m2' words (OCP) and rounds them, RNE and saturating, to
  // its FNUZ format (GEMM.m's fp8_fnuz case: precision 3, emin -15, emax 15).
  Fmt unit_in = Fmt::fp64;  // fp64: the same as `in`
  // The model that computes like the toolbox's, where ours differs: the
  // toolbox's MI300 model (as it made the published files) rounds the late
  // c down in one stage, where CDNA3 rounds in two (PA Algorithm 1, K15;
  // docs/models.md §2.6). Null: the model named `model`.
  const char* toolbox_model = nullptr;
  Fmt unit() const { return unit_in == Fmt::fp64 ? in : unit_in; }
  Model model_used() const { return lookup_model(toolbox_model ? toolbox_model : model); }
};
const std::vector<ToolboxSeries>& toolbox_series();
/// CPFloat's name of an input format (binary16, bfloat16, fp8-e5m2).
const char* toolbox_format_name(Fmt in);
/// matmul_test_<in>_binary32_words_<p>_model_<model>.dat
std::string toolbox_file_name(Fmt in, const std::string& model, int p);

struct ToolboxPoint {
  std::size_t n = 0;
  double error = 0, bound = 0;
};

/// The published files of one series, each with its points n <= nmax: the
/// word counts `words` (empty: all the series runs), drawn from rng(seed) in
/// the script's order (a word count not asked for is drawn and skipped), on
/// the unit `row`. Progress lines (one per point) go to `progress` if set.
/// session_start: the series was the first run of its MATLAB session, so
/// its first point (p = words[0], n = 10) has words rounded to nearest.
struct ToolboxSet {
  int words = 0;
  std::vector<ToolboxPoint> points;
};
std::vector<ToolboxSet> run_toolbox_series(const ToolboxSeries& series, const ModelRow& row,
                                           const std::vector<int>& words, std::size_t nmax, uint32_t seed, int threads,
                                           std::ostream* progress, bool session_start = false);

/// The file's text: "n error bound \n", then "%d %e %e \n" per point.
std::string toolbox_dat(const std::vector<ToolboxPoint>& points);

}  // namespace mmaemu::experiments
