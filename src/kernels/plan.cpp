// SPDX-License-Identifier: BSD-3-Clause
// plan(): the envelopes of the kernels, one predicate per kernel, and the
// order in which they are tried. Everything that decides which kernel
// serves a row is in this file.
#include "kernels/plan.h"

#include "models/row_facts.h"

namespace mmaemu::fast {
namespace {

// The scalar step kernel of the row's accumulation path, or null (the
// reference runs every step).
StepFn scalar_kernel(const ModelRow& row) {
  if (operand_kind(row) == Operand::real64) return nullptr;
  if (step_k(row) > static_cast<std::size_t>(kMaxStep)) return nullptr;
  switch (row.accum) {
    case Accumulation::aligned: return row.product == ProductForm::fp32_rne ? nullptr : aligned_step;
    case Accumulation::exact: return row.product == ProductForm::fp32_rne ? nullptr : exact_step;
    case Accumulation::pairwise: return pairwise_step;
    case Accumulation::fma_chain: return fma_step;
  }
  return nullptr;
}

// The register-blocked FMA-chain tiles: fp32-result chains of operands
// exact in fp32, and binary64 chains.
bool chain_tiles(const ModelRow& row) {
  if (row.accum != Accumulation::fma_chain) return false;
  if (operand_kind(row) == Operand::real64) return row.in == Fmt::fp64 && row.out == Fmt::fp64;
  return row.out == Fmt::fp32 && info(row.in).width <= 32;
}

// The SIMD exact kernel: CDNA1 exact sums with fp32 results, RNE,
// subnormals in and out, no product overflow, inputs whose products are
// exact in binary64.
bool exact_simd(const ModelRow& row) {
  const FormatInfo& in = info(row.in);
  return row.accum == Accumulation::exact && row.out == Fmt::fp32 && row.final_round == Round::rne &&
         row.result_frac_bits() == 23 && !row.product_overflow && row.in_subnormals && row.out_subnormals &&
         !row.inputs_as_fp16 && operand_kind(row) == Operand::integer && row.product != ProductForm::fp32_rne &&
         in.width <= 32 && in.man_bits <= 23 && step_k(row) <= static_cast<std::size_t>(kMaxStep);
}

// CDNA2: the fp32 pairwise tree of fp32-rounded products.
bool pairwise_params(const ModelRow& row, SimdParams& p) {
  if (row.accum != Accumulation::pairwise || row.product != ProductForm::fp32_rne ||
      (row.pair_group != 2 && row.pair_group != 4))
    return false;
  p.kind = SimdKind::pairwise;
  return true;
}

// CDNA3: products aligned alone, c late with the two-stage round-down.
bool late_params(const ModelRow& row, SimdParams& p) {
  if (!(row.accum == Accumulation::aligned && row.c_entry == CEntry::late_rd &&
        (row.grouping == Grouping::contiguous || row.grouping == Grouping::odd_even) &&
        row.late_rd == LateRd::two_stage && row.out == Fmt::fp32 && row.final_round == Round::rne &&
        row.result_frac_bits() == 23 && row.frac_bits == 24 && row.product == ProductForm::denormalised &&
        row.zero_c_is_term && row.zero_c_exp == -126 && row.align_floor == kNoFloor && row.out_subnormals &&
        operand_kind(row) == Operand::integer && row.block <= 32))
    return false;
  p.kind = SimdKind::late;
  p.odd_even = row.grouping == Grouping::odd_even;
  p.exact_zero_c = row.late_exact_zero_c;
  p.cutoff = row.late_c_cutoff;
  return true;
}

// NVIDIA tensor cores with fp32 results: the aligned block FMA, c early.
bool aligned_params(const ModelRow& row, SimdParams& p) {
  if (row.accum != Accumulation::aligned || row.c_entry != CEntry::early ||
      row.grouping != Grouping::contiguous || row.out != Fmt::fp32 ||
      row.product != ProductForm::denormalised || row.zero_c_is_term || !row.out_subnormals ||
      operand_kind(row) != Operand::integer || row.frac_bits > 26 || row.block > 32)
    return false;
  // The general path's int32 partial sums (block/2 terms < 2^(F+2) each)
  // must fit: F = 26 with 32-element blocks (custom rows) would wrap.
  if ((int64_t{row.block} << (row.frac_bits + 1)) > (int64_t{1} << 31)) return false;
  if (row.final_round != Round::rz && !(row.final_round == Round::rne && row.result_frac_bits() == 23))
    return false;
  p.kind = SimdKind::aligned;
  p.floor = row.align_floor == kNoFloor ? -(1 << 30) : row.align_floor;
  p.rz = row.final_round == Round::rz;
  p.frac_mask = static_cast<int32_t>(~((1u << (23 - row.result_frac_bits())) - 1));
  return true;
}

// The interleaved HMMA fp8 path: the products at positions {0,1,4,5,...}
// and then {2,3,6,7,...} of one instruction are two chained aligned blocks
// from +0, and c enters after them by one RNE addition in fp32. The driver
// packs each instruction's k with the two groups contiguous.
bool interleaved_params(const ModelRow& row, SimdParams& p) {
  if (!(row.grouping == Grouping::pair_interleave && row.c_entry == CEntry::late_rne &&
        row.late_round == Round::rne && row.out == Fmt::fp32 && row.result_frac_bits() == 23 &&
        row.out_subnormals && !row.zero_c_is_term))
    return false;
  ModelRow sub = row;
  sub.grouping = Grouping::contiguous;
  sub.c_entry = CEntry::early;
  if (!aligned_params(sub, p)) return false;
  p.kind = SimdKind::interleaved;
  return true;
}

// The parameters of the row's SIMD step kernel, or false (none).
bool simd_params(const ModelRow& row, SimdParams& p) {
  p = SimdParams{};
  p.pair_group = row.pair_group;
  p.keep_sign = row.flush_sign == FlushSign::keep;
  p.out_subnormals = row.out_subnormals;
  p.F = row.frac_bits;
  p.man2 = 2 * unit_man(row);
  p.nan32 = static_cast<int32_t>(row.nan32);
  if (operand_kind(row) == Operand::real)  // (FMA chains run on the chain tiles)
    return row.out == Fmt::fp32 && row.in != Fmt::fp64 && pairwise_params(row, p);
  return interleaved_params(row, p) || late_params(row, p) || aligned_params(row, p);
}

}  // namespace

KernelPlan plan(const ModelRow& row, PlanOptions options) {
  KernelPlan k;
  k.step = options.use_reference ? nullptr : scalar_kernel(row);
  k.fp64 = operand_kind(row) == Operand::real64;
  const bool simd_allowed = !options.use_reference && !options.simd_off;
  if (simd_allowed && chain_tiles(row)) {
    k.macro = Macro::chain;
    k.name = "simd";
    return k;
  }
  if (k.step && !options.simd_off && exact_simd(row)) {
    k.macro = Macro::exact;
    k.name = "simd";
    return k;
  }
  k.macro = Macro::steps;
  k.simd = k.step && !options.simd_off && simd_params(row, k.simd_params);
  k.name = k.simd ? "simd" : k.fp64 ? "fp64" : k.step ? "scalar" : "reference";
  return k;
}

}  // namespace mmaemu::fast
