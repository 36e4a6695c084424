// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled input policies as data: the names the C API, the BLAS
// shim, the CLI and Python accept for an fp32 GEMM whose operands are
// quantised per block along k (docs/block-scaled.md): OCP MX (UE8M0 scale
// per 32 elements) and NVFP4 (UE4M3 per 16 and a per-tensor fp32 scale).
#pragma once

#include <span>

#include "formats/format.h"

namespace mmaemu {

/// One policy: its name, element format (A and B), scale format and block size.
struct ScaledPolicy {
  const char* name;
  Fmt element, scale;
  int block;
};

/// Every policy, in the order the C API lists them.
std::span<const ScaledPolicy> scaled_policies();

/// The policy called `name` (exact match); std::invalid_argument listing the
/// valid names for any other (or null) name.
const ScaledPolicy& scaled_policy(const char* name);

}  // namespace mmaemu
