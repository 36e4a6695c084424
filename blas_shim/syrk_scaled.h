// SPDX-License-Identifier: BSD-3-Clause
// ssyrk under a block-scaled policy (syrk_scaled.cpp): op(A) quantised once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime.h"

namespace mmaemu::shim {

/// op(A) of an ssyrk under a block-scaled policy, quantised once as
/// mmaemu_sgemm_block_scaled quantises both operands of op(A) op(A)^T (rows
/// of kp codes, k padded to whole blocks; kb scales per row; NVFP4: the
/// decode scale of the whole op(A)).
struct ScaledOperand {
  mmaemu_block_scale_desc desc{};
  int n = 0, kp = 0, kb = 0;
  std::vector<uint8_t> codes, scales;
};

/// "" if k, padded to whole blocks of cfg's block-scaled policy, fits the
/// C API's int; else the message.
std::string scaled_k_error(const Config& cfg, int k);

/// Quantises op(A) (n x k: A column-major, n x k for trans 'N', else k x n)
/// into q; returns the C API status (message: mmaemu_last_error()).
int quantise_syrk_operand(const Config& cfg, char trans, int n, int k, const float* A, int lda, ScaledOperand& q);

/// C (rows x cols, column-major, ldc) = alpha op(A)[i0:i0+rows] op(A)[j0:j0+cols]^T
/// + beta C on the block-scaled unit, accumulation as cfg says; each element
/// has the bits of the whole product's. Returns the C API status.
int scaled_syrk_tile(const Config& cfg, const ScaledOperand& q, float alpha, float beta, int i0, int rows, int j0,
                     int cols, float* C, int ldc);

}  // namespace mmaemu::shim
