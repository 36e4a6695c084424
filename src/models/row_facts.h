// SPDX-License-Identifier: BSD-3-Clause
// Facts derived from a model row that every engine (reference, kernels,
// driver) needs: the length of one step of the k chain and the unit's NaN.
#pragma once

#include <cstddef>
#include <cstdint>

#include "models/model.h"

namespace mmaemu {

/// Number of k elements consumed by one step of the chain: the FMA chain's
/// and the integer units' instruction k, the pairwise tree's group, or the block (two blocks for
/// the interleaved HMMA path, whose step is one whole instruction).
std::size_t step_k(const ModelRow& row);

/// The NaN a row produces in format f (vendor convention): nan32 / nan16,
/// for fp64 the fp32 pattern widened, otherwise the format's default NaN.
uint64_t nan_of(const ModelRow& row, Fmt f);

/// The NaN a row produces in its output format.
inline uint64_t nan_result(const ModelRow& row) { return nan_of(row, row.out); }

}  // namespace mmaemu
