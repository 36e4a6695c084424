// SPDX-License-Identifier: BSD-3-Clause
// The reference engine of the block-scaled and narrow-format units
// (docs/block-scaled.md §3, §4): T-FDPA, ST-FDPA and GST-FDPA in exact
// integer arithmetic and the chain of instructions along K with its padding;
// scaled_gemm adds the GEMM driver's epilogue (driver/epilogue.h, one rule
// for both unit kinds). Written to be read; every faster path must return
// the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/format.h"
#include "models/scaled_units.h"

namespace mmaemu::ref {

/// The operands of one instruction of row `unit`: unit.k element codes of A
/// (format fa) and of B (fb), one per byte (fp4 unpacked); unit.k/unit.block
/// scale codes each in unit.scale (ignored by T rows); c as bits of `out`.
struct ScaledStep {
  Fmt fa, fb;
  const uint8_t* a;
  const uint8_t* b;
  const uint8_t* sa;
  const uint8_t* sb;
  uint64_t c;
};

/// Throws std::invalid_argument ("<instruction> does not take e2m1 x e4m3")
/// unless the row takes elements fa x fb and output `out`.
void check_formats(const ScaledUnit& unit, Fmt fa, Fmt fb, Fmt out);

/// d = the instruction's fused dot product of a and b, scaled, plus c;
/// output bits of `out` (fp32, or fp16 for T rows). Throws
/// std::invalid_argument for formats the row does not take.
uint64_t scaled_instruction(const ScaledUnit& unit, Fmt out, const ScaledStep& s);

/// One instruction of a chain whose operands hold len <= unit.k elements
/// (and len/block scales): the last instruction of a chain is padded with
/// zero elements and neutral scales (§4); a full one is scaled_instruction.
uint64_t scaled_step(const ScaledUnit& unit, Fmt out, ScaledStep s, std::size_t len);

/// How the chain along K starts (as mmaemu_accumulate): from +0 with the
/// epilogue adding beta*C (gpu_blas), or from beta*C (into_c).
enum class ScaledAccumulate : uint8_t { gpu_blas, into_c };

/// One GEMM on the unit (docs/block-scaled.md §4), fp32 C and D.
///   A: m rows of k codes, row i at A + i*k;  SA: m rows of k/block codes.
///   B: n columns of k codes, column j at B + j*k;  SB: n columns of k/block.
///   C, D: m x n fp32, row-major, element (i, j) at i*n + j; C may be null
///   when it is not read, and D may be C (each element is read before it is written).
/// k must be a multiple of the block (T rows: any k); the last instruction
/// is padded with zero elements and neutral scales. g_a, g_b are the
/// per-tensor decode scales (1 when unused), folded into alpha by
/// driver::Epilogue (§4.4).
struct ScaledGemm {
  const ScaledUnit* unit;
  Fmt fa, fb;
  std::size_t m, n, k;
  const uint8_t* A;
  const uint8_t* SA;
  const uint8_t* B;
  const uint8_t* SB;
  float alpha, beta, g_a, g_b;
  ScaledAccumulate accumulate;
  const float* C;
  float* D;
};

void scaled_gemm(const ScaledGemm& g);

/// The chain of instructions for one output element, starting from `acc`
/// (bits of `out`: fp32, or fp16 on T rows): a, b hold k codes, sa, sb
/// k/block scale codes.
uint64_t scaled_chain(const ScaledUnit& unit, Fmt out, Fmt fa, Fmt fb, std::size_t k, const uint8_t* a,
                      const uint8_t* sa, const uint8_t* b, const uint8_t* sb, uint64_t acc);

}  // namespace mmaemu::ref
