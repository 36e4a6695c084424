// SPDX-License-Identifier: BSD-3-Clause
// What every GEMM entry of the C API (mmaemu_gemm, mmaemu_gemm_block_scaled,
// mmaemu_sgemm_ex) does alike with its arguments: the CBLAS layout,
// transposes and leading dimensions, where the chain starts, the
// column-major call as a row-major one for driver::gemm, and the
// block-scaled unit and GEMM both block-scaled entries run.
#pragma once

#include <cstddef>

#include "driver/gemm.h"
#include "mmaemu/mmaemu.h"
#include "models/scaled_units.h"

namespace mmaemu::api {

/// Throws std::invalid_argument (api/enum_args.h) unless layout, ta and tb
/// are CBLAS values.
void check_layout(int layout, int ta, int tb);

/// The leading dimension a stored op(X) of rows x cols needs (CBLAS rule):
/// max(1, stored columns) row-major, max(1, stored rows) column-major.
std::size_t ld_need(bool row_major, bool trans, std::size_t rows, std::size_t cols);

/// Throws std::invalid_argument ("A leading dimension 3 < 4") when ld is
/// short of ld_need.
void check_ld(const char* name, bool row_major, bool trans, std::size_t rows, std::size_t cols, int ld);

/// Whether the chain starts from beta*C (mmaemu.h, mmaemu_accumulate):
/// always under MMAEMU_ACC_INTO_C; under MMAEMU_ACC_BLAS_INTO_C only where
/// that keeps the BLAS contract, an alpha of one (block-scaled: alpha_eff =
/// RNE32(alpha*g_a*g_b)) on a unit that reads its accumulator.
bool chain_from_c(mmaemu_accumulate accumulate, bool alpha_is_one, bool unit_reads_c);

/// A column-major C = op(A) op(B) as the row-major C^T = op(B)^T op(A)^T that
/// driver::gemm computes: A column-major X read row-major is X^T, so op(B)^T
/// keeps B's own transpose flag; swaps a with b and m with n. The units'
/// products are symmetric in their factors: the bits are the same.
void to_row_major(mmaemu_layout layout, driver::Operand& a, driver::Operand& b, std::size_t& m, std::size_t& n);

/// The block-scaled unit `d` selects on `model`, the descriptor checked and
/// its switches applied (api/block_scaled_api.cpp); throws
/// std::invalid_argument, or Unsupported (api_error.h) when the model has none.
ScaledUnit resolve_scaled(const mmaemu_model* model, const mmaemu_block_scale_desc* d);

/// The block-scaled GEMM on fp32 C (in place, in the caller's layout) through
/// driver::gemm, the operands read where they are; the accumulation as
/// chain_from_c says with alpha_eff = RNE32(alpha*g_a*g_b).
void run_scaled_gemm(const ScaledUnit& u, const mmaemu_block_scale_desc& d, mmaemu_layout layout, std::size_t M,
                     std::size_t N, std::size_t K, float alpha, driver::Operand a, driver::Operand b, float beta,
                     float* C, int ldc);

}  // namespace mmaemu::api
