// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled engines' decoding of element and scale codes, once per
// code (the same decode() and docs/block-scaled.md §1.3 split as the
// reference): what the SIMD kernels of kernels/scaled_simd.h read, for the
// block-scaled kind's plug-ins (scaled_kind.cpp: the GEMM's and the batched
// instructions'). And the sgemm policies' quantiser of fp32 operands.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "driver/gemm.h"
#include "formats/format.h"
#include "kernels/scaled_simd.h"
#include "models/scaled_units.h"

namespace mmaemu::driver {

inline constexpr int32_t kScaledZero = kernels::kScaledZeroExp;

struct ElementCode {
  float val = 0;            // the value (GST: twice the value); 0 for a zero or special
  int32_t e = kScaledZero;  // alignment exponent; kScaledZero for a zero or special
  bool special = false;
};
using ElementTable = std::array<ElementCode, 256>;

/// Every code of element format f; doubled: GST's twice the value.
ElementTable element_table(Fmt f, NarrowSubnormals ns, bool doubled);

struct ScaleCode {
  double val = 0;            // GST: the value (0 for a zero scale)
  int32_t e = kScaledZero;   // GST: alignment exponent (kScaledZero for a zero scale)
  int32_t st_exp = 0;        // ST: the exponent the reference adds (decode's exp)
  bool nan = false;
};
using ScaleTable = std::array<ScaleCode, 256>;

/// Every code of scale format f.
ScaleTable scale_table(Fmt f);

/// A scale code that leaves a padded block neutral (docs/block-scaled.md
/// §4.3), as the reference.
inline uint8_t neutral_scale(Fmt scale) { return scale == Fmt::ue8m0 ? 0x7F : 0x38; }

/// How the sgemm policies quantise an fp32 operand (Operand::quantise):
/// OCP MX (UE8M0 per `block`) or NVFP4 (UE4M3 per 16 with the tensor's
/// encode scale), each line's k real elements, zeros past them (the GEMM's
/// k a whole number of blocks: a zero leaves a short block's scale alone).
struct LineQuantiser {
  Fmt element;
  std::size_t block;
  bool nvfp4;
  float encode;   // NVFP4: nvfp4_global_of_amax(operand_amax(...)).encode
  std::size_t k;  // real elements per line
};

/// The largest |x| over the finite elements of op(X) (rows x cols of the
/// row-major view, fp32), read in place: what nvfp4_global_scale() reads
/// of the whole tensor.
float operand_amax(const Operand& X, std::size_t rows, std::size_t cols, int threads);

}  // namespace mmaemu::driver
