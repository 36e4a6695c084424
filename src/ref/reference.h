// SPDX-License-Identifier: BSD-3-Clause
// The scalar reference engine: D = A*B + C of one model row, written to be
// read, in exact integer arithmetic (docs/models.md §2). Every optimised kernel
// must return the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "models/model.h"
#include "models/row_facts.h"

namespace mmaemu::ref {

/// d = c + sum_{i<k} a_i*b_i as the unit computes it: a left-to-right chain
/// along k of the row's blocks (or, for pair_interleave rows, of whole
/// instructions of row.k elements), k zero-padded to a whole step.
/// a, b: bit patterns in row.in (b: in row.in_b, which differs from row.in
/// only for mixed-signedness integer units); c and the result: bit patterns
/// in row.out. Integer rows (accum = integer) step one instruction of row.k
/// products at a time (ref/integer.h).
/// Inputs are taken as the unit reads them (the caller converts to row.in).
uint64_t dot(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b,
             uint64_t c);

/// One step of the chain: the block (or instruction) whose k is
/// step_k(row), with k <= step_k(row) inputs (zero-padded).
uint64_t step(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b,
              uint64_t c);

/// Row facts (models/row_facts.h), also reachable as ref::step_k and
/// ref::nan_result.
using mmaemu::nan_result;
using mmaemu::step_k;

/// One instruction: D (m x n) = A (m x k) * B (k x n) + C with the row's
/// shape, all row-major and contiguous, as bit patterns.
void tile(const ModelRow& row, const uint64_t* A, const uint64_t* B, const uint64_t* C,
          uint64_t* D);

}  // namespace mmaemu::ref
