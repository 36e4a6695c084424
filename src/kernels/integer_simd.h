// SPDX-License-Identifier: BSD-3-Clause
// The integer units' register-blocked tile (Highway, dispatched at run
// time): the steps nest's fast path for integer rows (driver/integer_kind.cpp),
// many A rows against many lane groups of 16 columns in one call, in the
// panels of simd_integer_run16 (simd.h), with the same bits: ref::step's
// chain (docs/models.md, "Integer units"; the arithmetic and its proofs are
// in integer_simd.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/simd.h"

namespace mmaemu::kernels {

/// One call of simd_integer_tile: `rows` A rows (row r's values at
/// a + r*a_stride, k contiguous, as RowPanel::i16) against `groups` lane
/// groups of 16 columns (group g at b + g*b_stride, in pairs along k as
/// LanePanel::i16); acc: row r, column c (c < 16*groups) at acc[r*ldc + c],
/// s32 codes, c in and d out.
struct IntTile {
  const int16_t* a = nullptr;
  std::size_t a_stride = 0;
  const int16_t* b = nullptr;
  std::size_t b_stride = 0;
  uint32_t* acc = nullptr;
  std::size_t ldc = 0;
  int rows = 0, groups = 0;
};

/// run.steps instructions of run.step elements (even; the panels
/// zero-padded to whole instructions, run.last_len unused) for every row
/// and column of the tile: wrap, or with p.satfinite the clamp per
/// instruction or (p.sat_each) per product in k order, exactly as
/// simd_integer_run16 (p.kind == SimdKind::integer). run.step odd or not
/// positive, rows or groups negative: std::invalid_argument.
void simd_integer_tile(const SimdParams& p, StepRun run, const IntTile& t);

}  // namespace mmaemu::kernels
