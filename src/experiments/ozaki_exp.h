// SPDX-License-Identifier: BSD-3-Clause
// `mmaemu experiment ozaki` (docs/ozaki.md, "The experiment"): fp64 GEMM by
// the Ozaki schemes on a grid of units, slice or moduli counts and exponent
// spreads phi, errors against the exact product, the exactness counts, the
// time per run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/matrix.h"
#include "mmaemu/mmaemu.h"

namespace mmaemu::experiments {

/// The papers' test matrix: rows x cols entries (u - 0.5) exp(phi g), u
/// uniform01() and g normal() of rng, drawn in that order element by
/// element, row by row.
Matrix ozaki_test_matrix(std::size_t rows, std::size_t cols, double phi, Rng& rng);

/// A unit of the grid: a model with the scheme's input ("int8", "fp16",
/// "e4m3", ...), or native fp64 (model "native").
struct OzakiUnit {
  std::string model, input;
  std::string label() const { return model == "native" ? "native fp64" : model + " " + input; }
};

/// One run: a scheme ("ozaki1:S", "ozaki2:N", or "native") on a unit.
struct OzakiRun {
  std::string unit, scheme;
  int count = 0;  // S or N (0 for native)
  double phi = 0;
  std::size_t n = 0;
  double componentwise = 0;  // max |C - R| / |R|
  double normwise = 0;       // ||C - R||_F / ||R||_F
  mmaemu_ozaki_stats stats{};
  double seconds = 0;
  std::string error;  // the C API's message when the run was refused
};

/// C = A B by `scheme` on the unit (native: binary64 dot products, l
/// ascending), timed, with the exactness check when `check`; errors
/// against R. threads as mmaemu_dgemm_options.threads.
OzakiRun run_ozaki(const OzakiUnit& unit, const std::string& scheme, const Matrix& A, const Matrix& B,
                   const Matrix& R, bool check, int threads);

}  // namespace mmaemu::experiments
