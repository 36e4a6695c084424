// SPDX-License-Identifier: BSD-3-Clause
// The Blackwell narrow-format and block-scaled matrix units as data: one row
// per (GPU, instruction), with the parameters of docs/block-scaled.md §2.
// These rows follow the specification; no hardware has checked them.
//
// The reference engine (ref/block_scaled.h) reads every field; a field a
// path does not use is 0 / none in the row.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "formats/format.h"

namespace mmaemu {

/// The three fused dot-product-add algorithms (docs/block-scaled.md §3).
enum class ScaledAlgo : uint8_t {
  t_fdpa,    // unscaled: products aligned to the largest exponent, F bits kept
  st_fdpa,   // one scale per operand per instruction, added to every exponent
  gst_fdpa,  // exact groups of 16 products, aligned by their scale exponents
};

/// How fp6/fp4 subnormal elements are split for alignment in T/ST units
/// (docs/block-scaled.md §1.3): clamped at emin (the default), or renormalised.
enum class NarrowSubnormals : uint8_t { clamp, normalize };

/// Bit i set: format static_cast<Fmt>(i) is allowed.
using FmtMask = uint32_t;
constexpr FmtMask fmt_bit(Fmt f) { return FmtMask{1} << static_cast<int>(f); }
inline constexpr FmtMask kF8F6F4 = fmt_bit(Fmt::e4m3) | fmt_bit(Fmt::e5m2) | fmt_bit(Fmt::e3m2) |
                                   fmt_bit(Fmt::e2m3) | fmt_bit(Fmt::e2m1);
inline constexpr FmtMask kFp4Only = fmt_bit(Fmt::e2m1);
inline constexpr FmtMask kF32 = fmt_bit(Fmt::fp32);
inline constexpr FmtMask kF32F16 = fmt_bit(Fmt::fp32) | fmt_bit(Fmt::fp16);

/// One block-scaled or narrow-format instruction of one GPU.
struct ScaledUnit {
  const char* gpu;          // registry model name
  const char* instruction;  // validation-set name (docs/block-scaled.md §5)
  ScaledAlgo algo;
  FmtMask elements;  // formats allowed for A and, independently, for B
  Fmt scale;         // ue8m0 or ue4m3; fp32 for the unscaled T rows (unused)
  int block;         // elements per scale; 0: unscaled
  int k;             // elements per instruction (one fused step)
  int group;         // GST: products summed exactly per group; 0 otherwise
  int frac;          // F: fraction bits of the alignment window
  int e_zero;        // alignment exponent of a zero term, fp32 output
  int e_zero_f16;    // the same for fp16 output (T rows); 0 otherwise
  FmtMask outputs;   // fp32, and fp16 for the T rows
  Round round;       // final rounding to fp32 (RZ; RNE on the B200-RN variant)
  Round round16;     // final rounding to fp16 (RNE)
  int m, n_min, n_max, n_step;  // tile shape (m x n x k)
  bool hw_checked;   // MMA-Sim compared this instruction with hardware
  NarrowSubnormals subnormals;
};

/// The rows the table states for one GPU (docs/block-scaled.md §2); empty
/// if none. A variant such as B200-RN has none there: its units are its
/// base's with its overrides (the registry, model.h's Gpu::overrides).
std::span<const ScaledUnit> table_units_of(std::string_view gpu);

/// Every unit of every registered GPU, in the registry's order.
std::span<const ScaledUnit> scaled_units();

/// The units of one registered GPU (model name as in the registry); empty if none.
std::span<const ScaledUnit> scaled_units_of(std::string_view gpu);

/// The row with this validation-set instruction name on this GPU; throws
/// std::invalid_argument naming the valid instructions if there is none.
const ScaledUnit& scaled_unit(std::string_view gpu, std::string_view instruction);

/// Which unit the caller asks for (docs/block-scaled.md §4.1): auto picks the
/// only unit the operands fit, and GST for MXFP4 (e2m1 x e2m1, ue8m0, 32).
enum class UnitChoice : uint8_t { automatic, t, st, gst };

/// The unit of `gpu` for these operands; throws std::invalid_argument with
/// the reason (unknown GPU, formats no unit takes, a block or scale format
/// the unit does not have), listing what is valid.
const ScaledUnit& select_scaled_unit(std::string_view gpu, Fmt fa, Fmt fb, bool scaled, Fmt scale,
                                     int block, UnitChoice choice);

/// The same among `units` (a model's, e.g. a custom model's with its bs_
/// keys applied); `model` names it in the messages.
const ScaledUnit& select_scaled_unit(std::string_view model, std::span<const ScaledUnit> units, Fmt fa, Fmt fb,
                                     bool scaled, Fmt scale, int block, UnitChoice choice);

/// Output formats of a row and its e_zero for one of them.
int e_zero_for(const ScaledUnit& u, Fmt out);

const char* algo_name(ScaledAlgo a);

}  // namespace mmaemu
