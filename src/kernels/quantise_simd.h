// SPDX-License-Identifier: BSD-3-Clause
// SIMD block quantisation (Highway, dispatched at run time): the codes and
// scales of quantise_mx() and quantise_nvfp4() (formats/block_quantise.h,
// docs/block-scaled.md §4.6), byte for byte. Each whole block whose length
// is a multiple of the vector lanes and whose values are finite is done
// here; any other block (NaN or Inf inside, a short last block) by the
// scalar quantiser.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/format.h"

namespace mmaemu::kernels {

/// quantise_mx(elem, block, v, n, codes, scales). Needs the host in
/// round-to-nearest without FTZ/DAZ (kernels/fp_env.h).
void quantise_mx_simd(Fmt elem, std::size_t block, const float* v, std::size_t n, uint8_t* codes,
                      uint8_t* scales);

/// quantise_nvfp4(v, n, encode, codes, scales).
void quantise_nvfp4_simd(const float* v, std::size_t n, float encode, uint8_t* codes, uint8_t* scales);

/// The largest |v[i]| over the finite values (0 if none), as the maximum
/// NVFP4's global scale reads (nvfp4_global_scale).
float finite_abs_max(const float* v, std::size_t n);

}  // namespace mmaemu::kernels
