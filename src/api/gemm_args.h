// SPDX-License-Identifier: BSD-3-Clause
// What every GEMM entry of the C API (mmaemu_gemm, mmaemu_gemm_block_scaled,
// mmaemu_sgemm_block_scaled_acc) does alike with its arguments: the CBLAS
// layout and transposes, where the chain starts, and the column-major call
// as a row-major one for driver::gemm.
#pragma once

#include <cstddef>

#include "driver/gemm.h"
#include "mmaemu/mmaemu.h"

namespace mmaemu::api {

/// Throws std::invalid_argument (api/enum_args.h) unless layout, ta and tb
/// are CBLAS values.
void check_layout(int layout, int ta, int tb);

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

}  // namespace mmaemu::api
