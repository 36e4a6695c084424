// SPDX-License-Identifier: BSD-3-Clause
// The reference engine of the block-scaled and narrow-format units
// (docs/block-scaled.md §3, §4): T-FDPA, ST-FDPA and GST-FDPA in exact
// integer arithmetic and the chain of instructions along K with its padding
// (§4.2, §4.3); the GEMM's epilogue (§4.4) is the driver's one Epilogue
// (driver/epilogue.h) for both unit kinds. Written to be read; every faster
// path must return the same bits.
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

/// The chain of instructions for one output element, starting from `acc`
/// (bits of `out`: fp32, or fp16 on T rows): a, b hold k codes, sa, sb
/// k/block scale codes.
uint64_t scaled_chain(const ScaledUnit& unit, Fmt out, Fmt fa, Fmt fb, std::size_t k, const uint8_t* a,
                      const uint8_t* sa, const uint8_t* b, const uint8_t* sb, uint64_t acc);

}  // namespace mmaemu::ref
