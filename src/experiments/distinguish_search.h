// SPDX-License-Identifier: BSD-3-Clause
// The parts of distinguish() (distinguish.h) that differ between unit
// kinds: how a random sample of a distribution is drawn, the moves that
// shrink a separating vector, and the order in which a vector is shorter.
// The search itself (batches on both units, the bound when nothing
// separates them, the shrinking loop) is one, in distinguish.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "experiments/distinguish.h"

namespace mmaemu::experiments {

struct SearchKind {
  std::vector<std::string> distributions;                             // valid names, in turn order
  std::function<TestVector(const std::string& dist)> draw;            // one random sample
  std::function<std::vector<TestVector>(const TestVector&)> moves;    // candidates one step smaller
  std::function<VectorSize(const TestVector&)> size;                  // the shorter-vector order
};

/// The integer units' kind (distinguish_int.cpp): codes of the first row's
/// operand widths (both rows read the same codes, each under its own
/// formats), c an s32 code. Throws std::invalid_argument where the rows'
/// operands differ in width.
SearchKind integer_search(const ModelRow& first, const ModelRow& second, uint64_t seed, std::size_t k);

}  // namespace mmaemu::experiments
