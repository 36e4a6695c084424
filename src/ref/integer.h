// SPDX-License-Identifier: BSD-3-Clause
// The reference of the integer matrix units (accum = integer;
// docs/models.md, "Integer units"): exact integer products, summed with the
// accumulator into an s32 result under the row's overflow rule, one
// instruction of row.k products at a time. ref::step and ref::dot
// (reference.h) run it for integer rows; these are its parts, for tests and
// for the engine that will be checked against it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "models/model.h"

namespace mmaemu::ref {

/// The s32 code of v modulo 2^32 (the low 32 bits of its two's complement).
uint64_t wrap_s32(int64_t v);

/// The s32 code of v clamped to MIN_INT32..MAX_INT32.
uint64_t clamp_s32(int64_t v);

/// One instruction of an integer row: d = c + sum_{i<k} a_i*b_i with k <=
/// row.k (zero-padded), a_i in row.in, b_i in row.in_b, c and d s32 codes.
///   overflow = wrap:                   d = (c + sum) mod 2^32
///   satfinite, sat_point = instruction: d = clamp(c + sum), the sum exact
///   satfinite, sat_point = addition:    s = c; s = clamp(s + a_i*b_i) for
///                                       i = 0..k-1; d = s
/// Precondition: row.accum == Accumulation::integer.
uint64_t integer_step(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b, uint64_t c);

}  // namespace mmaemu::ref
