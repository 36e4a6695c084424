// SPDX-License-Identifier: BSD-3-Clause
// Fast step kernels: one block (or instruction) of one output element,
// computed from operands decoded once at packing time. Each must return
// exactly the bits of ref::step(); tests/driver proves it on random bit
// patterns for every registry row.
#pragma once

#include <cstdint>

#include "models/model.h"

namespace mmaemu::fast {

/// Exponent given to zero operands: far below any real exponent, so a zero
/// product never wins an alignment maximum.
inline constexpr int32_t kZeroExp = -16384;
/// Any product exponent below this comes from a zero operand.
inline constexpr int32_t kNoExp = -8192;

/// How operands are decoded for a row's kernel (see pack_element()).
enum class Operand : uint8_t {
  integer,  // sig = signed integer significand, exp = decomposition exponent
  real,     // sig = the value's fp32 bits; exp = 1 if FTZ flushes it
  real64,   // fp64 rows: handled by the driver with doubles
};
Operand operand_kind(const ModelRow& row);

/// Decodes one unit-format element (bits in row.in) for the row's kernel.
/// Returns false if it is NaN or Inf (the step then runs on the reference).
bool pack_element(const ModelRow& row, uint64_t bits, int32_t& sig, int32_t& exp);

/// Fraction bits of the significands the unit multiplies (fp8 read as fp16
/// on the interleaved HMMA path).
int unit_man(const ModelRow& row);

/// The fast step: c and the result are bits of row.out (fp32 or fp16).
using StepFn = uint32_t (*)(const ModelRow& row, int len, const int32_t* sa, const int32_t* ea,
                            const int32_t* sb, const int32_t* eb, uint32_t c);
StepFn step_kernel(const ModelRow& row);

/// Rows the driver runs on the register-blocked FMA-chain tiles
/// (simd_chain_tile / simd_chain_tile64): fp32-result chains of operands
/// exact in fp32, and binary64 chains.
bool chain_tiles(const ModelRow& row);

/// Rows the driver runs on the SIMD exact kernel (simd_exact_run16): CDNA1
/// exact sums with fp32 results, RNE, subnormals in and out, no product
/// overflow, inputs whose products are exact in binary64.
bool exact_simd(const ModelRow& row);

/// The fast path of a row as `mmaemu models` reports it: "simd" (Highway
/// kernel: simd_params(), chain_tiles() or exact_simd()), "scalar" (fast
/// scalar kernel), "fp64" (host binary64 FMAs, scalar) or "reference" (the
/// reference engine itself).
const char* kernel_name(const ModelRow& row);

}  // namespace mmaemu::fast
