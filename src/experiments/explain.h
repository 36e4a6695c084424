// SPDX-License-Identifier: BSD-3-Clause
// mmaemu explain: one output element d = c + sum a_i b_i as a unit computes
// it, stage by stage, recomputed from the model row's parameters (decoded
// operands, exact products, alignment window, carries, normalisation, where c
// enters, rounding, special values). The explanation's d is checked against
// the reference engine (src/ref) and the GEMM engine (docs/explain.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/model.h"

namespace mmaemu::experiments {

/// One stage of the computation: its diagram lines, and `bits`, what the unit
/// holds after it (two units part at the first stage whose bits differ).
struct ExplainStage {
  std::string title;
  std::vector<std::string> lines;
  std::string bits;
};

struct Explanation {
  std::string model;
  const ModelRow* row = nullptr;
  std::size_t k = 0;
  std::vector<ExplainStage> stages;
  uint64_t d = 0;      // the explanation's own result
  uint64_t ref_d = 0;  // ref::dot on the same inputs
};

/// Explains d = c + sum a_i b_i on `row` (a, b: codes of row.in, zero-padded
/// to k >= their length; c: a code of row.out).
Explanation explain_dot(const std::string& model, const ModelRow& row, std::size_t k, std::vector<uint64_t> a,
                        std::vector<uint64_t> b, uint64_t c);

/// The first stage index whose bits differ (stages.size() of the longer
/// when one explanation is a prefix of the other; -1 when none differ).
int first_parting(const Explanation& x, const Explanation& y);

/// The terminal diagram of one explanation, or of two side by side with the
/// first stage where their bits part marked.
std::string render_text(const Explanation& x);
std::string render_text(const Explanation& x, const Explanation& y);

/// The same diagrams as a standalone SVG document.
std::string render_svg(const Explanation& x, const Explanation* y);

}  // namespace mmaemu::experiments
