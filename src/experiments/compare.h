// SPDX-License-Identifier: BSD-3-Clause
// `mmaemu compare`: one product C = A*B on several models, errors against
// the exact product.
#pragma once

#include <string>
#include <vector>

#include "driver/schedule.h"
#include "experiments/matrix.h"
#include "models/model.h"

namespace mmaemu::experiments {

struct CompareResult {
  std::string model, instr;
  std::string schedule = "chain";
  double differs = 0;          // fraction of elements whose bits differ from
                               // the model's first schedule
  bool skipped = false;
  std::string reason;          // when skipped
  double normwise = 0;         // ||C - C_ref||_F / ||C_ref||_F
  double componentwise = 0;    // max_ij |C - C_ref|_ij / |C_ref|_ij
  double unit_normwise = 0;    // ||C - C_in||_F / ||C_in||_F, C_in the exact
                               // product of the operands rounded to `in`
  double seconds = 0;
};

/// The input rounding of compare (and of a GPU BLAS): RNE, fp8 formats
/// saturating (__NV_SATFINITE), the others overflowing to Inf.
Overflow compare_overflow(Fmt in);

/// Runs C = A*B on every model's (in, out) unit (gpu-blas semantics: the
/// chain from +0; alpha = 1, beta = 0 gives the unit's results exactly),
/// once per schedule (model-major); models without that unit are returned
/// as skipped with the reason, as is a schedule the unit refuses.
std::vector<CompareResult> run_compare(const Matrix& A, const Matrix& B, const std::vector<Model>& models, Fmt in,
                                       Fmt out, int threads = 0,
                                       const std::vector<driver::Schedule>& schedules = {driver::Schedule{}});

/// A gnuplot script: grouped bars (normwise, componentwise, unit-only) per
/// model, log y; zero, Inf and NaN errors draw no bar.
std::string compare_plot_script(const std::vector<CompareResult>& results, const std::string& title,
                                const std::string& png);

}  // namespace mmaemu::experiments
