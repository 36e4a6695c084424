// SPDX-License-Identifier: BSD-3-Clause
// Scalar step kernels: one block (or instruction) of one output element,
// computed from operands decoded once at packing time, and that decoding.
// Each must return exactly the bits of ref::step(); tests/kernels proves it
// on random bit patterns for every registry row. Contract: docs/kernels.md.
#pragma once

#include <cstddef>
#include <cstdint>

#include "models/model.h"

namespace mmaemu::kernels {

/// Exponent given to zero operands: far below any real exponent, so a zero
/// product never wins an alignment maximum.
inline constexpr int32_t kZeroExp = -16384;
/// Any product exponent below this comes from a zero operand.
inline constexpr int32_t kNoExp = -8192;

/// How operands are decoded for a row's kernel (see pack_element()).
enum class Decoding : uint8_t {
  integer,  // sig = signed integer significand, exp = decomposition exponent
  real,     // sig = the fp32 bits of the value as the unit reads it (a flushed
            // input: its zero); exp = 0
  real64,   // fp64 rows: handled by the driver with doubles
};
Decoding decoding_of(const ModelRow& row);

/// Decodes one unit-format element (bits in row.in) for the row's kernel.
/// Returns false if it is NaN or Inf (the driver then runs the step on the
/// reference: the special-value fallback).
bool pack_element(const ModelRow& row, uint64_t bits, int32_t& sig, int32_t& exp);

/// Fraction bits of the significands the unit multiplies (fp8 read as fp16
/// on the interleaved HMMA path).
int unit_man(const ModelRow& row);

/// The scalar step kernels, one per accumulation path, named as data:
/// plan() puts the row's in KernelPlan::step, scalar_step() runs it (the
/// one kernel-pointer type of kernels/ is simd.h's StepKernel).
enum class ScalarKernel : uint8_t {
  none,  // no scalar kernel: the reference runs every step
  aligned,
  exact,
  pairwise,
  fma,
};

/// Each returns exactly the bits of ref::step() for len <= kMaxStep
/// operands none of which is NaN or Inf (docs/kernels.md); c and the
/// result are bits of row.out (fp32 or fp16). kernel is not none.
inline constexpr int kMaxStep = 64;
uint32_t scalar_step(ScalarKernel kernel, const ModelRow& row, int len, const int32_t* sa, const int32_t* ea,
                     const int32_t* sb, const int32_t* eb, uint32_t c);
uint32_t aligned_step(const ModelRow& row, int len, const int32_t* sa, const int32_t* ea, const int32_t* sb,
                      const int32_t* eb, uint32_t c);
uint32_t exact_step(const ModelRow& row, int len, const int32_t* sa, const int32_t* ea, const int32_t* sb,
                    const int32_t* eb, uint32_t c);
uint32_t pairwise_step(const ModelRow& row, int len, const int32_t* sa, const int32_t* ea, const int32_t* sb,
                       const int32_t* eb, uint32_t c);
uint32_t fma_step(const ModelRow& row, int len, const int32_t* sa, const int32_t* ea, const int32_t* sb,
                  const int32_t* eb, uint32_t c);

/// The fp64 chain (DMMA, f64 MFMA) on bit patterns: d = fma(a_i, b_i, d)
/// in binary64, NaN results as the row's NaN. NaN/Inf need no fallback.
uint64_t fp64_chain(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b, uint64_t c);

}  // namespace mmaemu::kernels
