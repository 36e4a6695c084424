// SPDX-License-Identifier: BSD-3-Clause
// `mmaemu compare --input mxfp8|mxfp8:e5m2|mxfp6|mxfp6:e3m2|mxfp4|nvfp4`:
// the block-scaled sgemm policies (docs/block-scaled.md §4.6), run through
// the public C API exactly as the BLAS shim runs them.
#pragma once

#include <string>
#include <vector>

#include "experiments/compare.h"
#include "experiments/matrix.h"
#include "models/model.h"

namespace mmaemu::experiments {

/// True for a block-scaled policy name (mmaemu_parse_block_scaled_policy).
bool is_block_scaled_input(const std::string& policy);

/// Why `text` is not a block-scaled policy, listing the valid ones.
std::string block_scaled_error(const std::string& text);

/// The operands as the policy's quantisation leaves them, exactly (binary64):
/// op(A)'s rows and op(B)'s columns quantised per block along k (NVFP4 with
/// the per-tensor scale of each operand), then element * scale * global.
struct Dequantised {
  Matrix A, B;
};
Dequantised dequantise_operands(const Matrix& A, const Matrix& B, const std::string& policy);

/// The block-scaled counterpart of run_compare: result 0 is the
/// quantisation's own share (the exact product of the dequantised operands
/// against the exact product; model "quantisation", unit_normwise 0), then
/// one result per model: mmaemu_sgemm_block_scaled (alpha 1, beta 0) against
/// the exact product, and (unit-only) against the dequantised operands'
/// exact product. A model without the unit is skipped with the reason.
std::vector<CompareResult> run_compare_scaled(const Matrix& A, const Matrix& B, const std::vector<Model>& models,
                                              const std::string& policy, int threads = 0);

}  // namespace mmaemu::experiments
