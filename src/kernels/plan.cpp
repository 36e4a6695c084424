// SPDX-License-Identifier: BSD-3-Clause
// plan(): the envelopes of the kernels, one predicate per kernel, and the
// order in which they are tried, for block-FMA rows and block-scaled units.
// Everything that decides which kernel serves a row or unit is in this file.
#include "kernels/plan.h"

#include "models/row_facts.h"

namespace mmaemu::kernels {
namespace {

// Each envelope below returns nullptr when the row is inside it, else a
// short reason (what `mmaemu models` prints next to "scalar"/"reference").

// The scalar step kernel of the row's accumulation path, or null (the
// reference runs every step).
ScalarKernel scalar_kernel(const ModelRow& row) {
  if (decoding_of(row) == Decoding::real64) return ScalarKernel::none;
  if (step_k(row) > static_cast<std::size_t>(kMaxStep)) return ScalarKernel::none;
  switch (row.accum) {
    case Accumulation::aligned: return row.product == ProductForm::fp32_rne ? ScalarKernel::none : ScalarKernel::aligned;
    case Accumulation::exact: return row.product == ProductForm::fp32_rne ? ScalarKernel::none : ScalarKernel::exact;
    case Accumulation::pairwise: return ScalarKernel::pairwise;
    case Accumulation::fma_chain: return ScalarKernel::fma;
    case Accumulation::integer: return ScalarKernel::none;  // no integer kernel yet (docs/models.md, Integer units)
  }
  return ScalarKernel::none;
}

const char* no_scalar_kernel(const ModelRow& row) {
  if (step_k(row) > static_cast<std::size_t>(kMaxStep)) return "steps of more than 64 products";
  return "fp32-rounded products on an aligned or exact sum";
}

// The register-blocked FMA-chain tiles: fp32-result chains of operands
// exact in fp32, and binary64 chains.
const char* chain_misfit(const ModelRow& row) {
  if (row.accum != Accumulation::fma_chain) return "not an FMA chain";
  if (decoding_of(row) == Decoding::real64)
    return row.in == Fmt::fp64 && row.out == Fmt::fp64 ? nullptr : "fp64 chain mixing formats";
  if (row.out != Fmt::fp32) return "FMA chain with an fp16 result";
  return info(row.in).width <= 32 ? nullptr : "FMA chain of inputs wider than fp32";
}

// The SIMD exact kernel: CDNA1 exact sums with fp32 results, RNE,
// subnormals in and out, no product overflow, inputs whose products are
// exact in binary64.
const char* exact_misfit(const ModelRow& row) {
  const FormatInfo& in = info(row.in);
  if (row.out != Fmt::fp32) return "exact sum with an fp16 result";
  if (row.round != Round::rne || row.result_frac() != 23) return "exact sum rounded other than RNE to fp32";
  if (row.prd_ovf) return "exact sum with the product-overflow rule";
  if (!row.in_sub || !row.out_sub) return "exact sum with FTZ";
  if (row.as_fp16) return "exact sum of fp8 read as fp16";
  if (decoding_of(row) != Decoding::integer || in.width > 32 || in.man_bits > 23)
    return "exact sum of inputs wider than fp32";
  return nullptr;
}

// CDNA2: the fp32 pairwise tree of fp32-rounded products.
const char* pairwise_misfit(const ModelRow& row, SimdParams& p) {
  if (row.product != ProductForm::fp32_rne) return "pairwise tree of unrounded products";
  if (row.pair_group != 2 && row.pair_group != 4) return "pairwise groups other than 2 or 4";
  if (row.out != Fmt::fp32) return "pairwise tree with an fp16 result";
  p.kind = SimdKind::pairwise;
  // Products of fp16 values (subnormals included) are multiples of 2^-48
  // below 2^32: zero or normal in fp32, and so are their sums.
  p.normal_products = row.in == Fmt::fp16;
  return nullptr;
}

// CDNA3: products aligned alone, c late with the two-stage round-down.
const char* late_misfit(const ModelRow& row, SimdParams& p) {
  if (row.grouping != Grouping::contiguous && row.grouping != Grouping::odd_even)
    return "late c with pair-interleaved groups";
  if (row.late_rd != LateRd::two_stage) return "single-stage late round-down";
  if (row.out != Fmt::fp32) return "late c with an fp16 result";
  if (row.round != Round::rne || row.result_frac() != 23) return "late c rounded other than RNE to fp32";
  if (row.frac != 24) return "late c with F other than 24";
  if (row.product != ProductForm::denormalised) return "late c of normalised products";
  if (!row.zero_c_is_term || row.zero_c_exp != -126) return "late c where c = 0 is no term at 2^-126";
  if (row.floor != kNoFloor) return "late c with an alignment floor";
  if (!row.out_sub) return "late c with FTZ";
  if (row.block > 32) return "late c with blocks over 32";
  p.kind = SimdKind::late;
  p.odd_even = row.grouping == Grouping::odd_even;
  p.exact_zero_c = row.late_exact_zero_c;
  p.cutoff = row.cutoff;
  return nullptr;
}

// NVIDIA tensor cores: the aligned block FMA, c early, fp32 results (RZ
// or RNE; custom rows RD or RU, on the general path) or fp16 results (RNE).
const char* aligned_misfit(const ModelRow& row, SimdParams& p) {
  if (row.grouping != Grouping::contiguous) return "c early with odd/even groups";
  if (row.product != ProductForm::denormalised) return "aligned sum of normalised products";
  if (row.zero_c_is_term) return "c = 0 as a term";
  if (!row.out_sub) return "aligned sum with FTZ";
  if (row.frac > 26 || row.block > 32) return "aligned sum with F over 26 or blocks over 32";
  // The general path's int32 partial sums (block/2 terms < 2^(F+2) each)
  // must fit: F = 26 with 32-element blocks (custom rows) would wrap.
  if ((int64_t{row.block} << (row.frac + 1)) > (int64_t{1} << 31)) return "32-element blocks with F = 26";
  const bool out16 = row.out == Fmt::fp16;
  if (out16) {
    if (row.round != Round::rne || row.result_frac() != 10) return "fp16 result rounded other than RNE";
  } else if (row.round == Round::rna) {
    return "fp32 result rounded to nearest, ties away";
  } else if (row.round != Round::rz && row.result_frac() != 23) {
    return "fp32 result of fewer bits rounded other than RZ";
  }
  p.kind = SimdKind::aligned;
  p.floor = row.floor == kNoFloor ? -(1 << 30) : row.floor;
  p.rz = row.round == Round::rz;
  p.rd = !out16 && row.round == Round::rd;
  p.ru = !out16 && row.round == Round::ru;
  p.out16 = out16;
  p.sub_c_emin = out16 && row.sub_c == SubnormalC::emin;
  p.nan16 = row.nan16;
  p.frac_mask = out16 ? -1 : static_cast<int32_t>(~((1u << (23 - row.result_frac())) - 1));
  return nullptr;
}

// The interleaved HMMA fp8 path: the products at positions {0,1,4,5,...}
// and then {2,3,6,7,...} of one instruction are two chained aligned blocks
// from +0, and c enters after them by one RNE addition in the output
// format (fp32 or fp16: the aligned kernel's out16). The driver
// packs each instruction's k with the two groups contiguous.
const char* interleaved_misfit(const ModelRow& row, SimdParams& p) {
  if (row.c != CEntry::late_rne || row.late_round != Round::rne) return "pair-interleaved groups, c not late RNE";
  if (row.result_frac() != info(row.out).man_bits) return "interleaved HMMA with a reduced-precision result";
  if (!row.out_sub) return "interleaved HMMA with FTZ";
  if (row.zero_c_is_term) return "c = 0 as a term";
  ModelRow sub = row;
  sub.grouping = Grouping::contiguous;
  sub.c = CEntry::early;
  if (const char* why = aligned_misfit(sub, p)) return why;
  p.kind = SimdKind::interleaved;
  return nullptr;
}

// Why the row's SIMD step kernel does not serve it (nullptr: it does, and
// p holds its parameters).
const char* simd_misfit(const ModelRow& row, SimdParams& p) {
  p = SimdParams{};
  p.pair_group = row.pair_group;
  p.keep_sign = row.flush_sign == FlushSign::keep;
  p.pos_zero = row.neg_zero == NegZero::positive;
  p.out_sub = row.out_sub;
  p.frac = row.frac;
  p.man2 = 2 * unit_man(row);
  p.nan32 = static_cast<int32_t>(row.nan32);
  if (decoding_of(row) == Decoding::real) {  // (FMA chains run on the chain tiles)
    if (row.accum != Accumulation::pairwise) return chain_misfit(row);
    return row.in == Fmt::fp64 ? "pairwise tree of fp64 inputs" : pairwise_misfit(row, p);
  }
  if (row.accum == Accumulation::exact) return exact_misfit(row);
  if (row.grouping == Grouping::pair_interleave) return interleaved_misfit(row, p);
  if (row.c == CEntry::late_rd) return late_misfit(row, p);
  if (row.c == CEntry::early) return aligned_misfit(row, p);
  return "aligned sum with c added last";
}

// The step kernel of each SimdKind (one prototype, kernels/simd.h).
StepKernel kernel_of(SimdKind kind) {
  switch (kind) {
    case SimdKind::aligned: return simd_aligned_run16;
    case SimdKind::late: return simd_late_run16;
    case SimdKind::pairwise: return simd_pairwise_run16;
    case SimdKind::interleaved: return simd_interleaved_run16;
    case SimdKind::st: return simd_st_run16;
    case SimdKind::gst: return simd_gst_run16;
    case SimdKind::integer: return simd_integer_run16;
  }
  return nullptr;
}

// ---- block-scaled units (kernels/scaled_simd.cpp: the bounds their exact
// arithmetic rests on) ----

// The kernels take e_zero as an unconditional floor of E. That equals the
// fused sum's rule (zero terms lift E to e_zero, nonzero ones to their own
// exponent) only while e_zero <= -126: c is always a term, a nonzero fp32 c
// has e >= -126 and c = 0 is a zero term, so E >= e_zero either way
// (docs/block-scaled.md §3.1, the simplification). A custom bs_e_zero above
// -126 runs on the reference. The lower bound keeps 2^(E - F), 2^(F - E) in
// binary64's normal range and a zero element or scale (kScaledZeroExp)
// under the floor.
const char* unit_misfit(const ScaledUnit& u) {
  if (u.e_zero < -300 || u.e_zero > -126) return "zero-term exponent outside [-300, -126]";
  if (u.round != Round::rz && u.round != Round::rne) return "fp32 result rounded other than RZ or RNE";
  return nullptr;
}

// T/ST: t_i < 2^(F+2) <= 2^27, so 16 terms sum below 2^31 in each of the
// two int32 halves (k <= 32, even); ST reads one scale per instruction.
const char* st_misfit(const ScaledUnit& u) {
  if (u.group != 0) return "T/ST-FDPA with exact groups";
  if (u.algo == ScaledAlgo::st_fdpa && u.block != u.k) return "ST-FDPA with more than one scale per instruction";
  if (u.algo == ScaledAlgo::t_fdpa && u.block != 0) return "T-FDPA with scales";
  if (u.k <= 0 || u.k > 32 || u.k % 2 != 0) return "T/ST-FDPA with k odd or over 32";
  if (u.frac < 0 || u.frac > 25) return "T/ST-FDPA with F over 25";
  return nullptr;
}

// GST: groups of 16 (|Q| <= 2304, exact in fp32), at most 4 per
// instruction, S < 2^(F+13) <= 2^53.
const char* gst_misfit(const ScaledUnit& u) {
  if (u.group != 16) return "GST-FDPA with groups other than 16";
  if (u.k <= 0 || u.k > 64 || u.k % 16 != 0) return "GST-FDPA with k over 64 or not whole groups";
  if (u.block <= 0 || u.block % 16 != 0 || u.k % u.block != 0) return "GST-FDPA with blocks not whole groups of k";
  if (u.frac < 0 || u.frac > 40) return "GST-FDPA with F over 40";
  return nullptr;
}

// The integer kernel: int16 pairs (k even), partial sums of one
// instruction exact in int32 (k * 255^2 < 2^30: integer_simd.cpp).
const char* integer_misfit(const ModelRow& row) {
  if (row.k <= 0 || row.k % 2 != 0) return "integer unit with k odd";
  if (row.k > (1 << 14)) return "integer unit with k over 2^14";
  return nullptr;
}

// The integer units' plan: macro integer, the SIMD kernel or the reference.
KernelPlan integer_plan(const ModelRow& row, PlanOptions options) {
  KernelPlan k;
  k.macro = Macro::integer;
  const char* misfit = integer_misfit(row);
  if (options.use_reference) k.why = "the use_reference option";
  else if (options.simd_off) k.why = "the simd_off option";
  else if (misfit) k.why = misfit;
  if (*k.why) return k;
  k.simd = true;
  k.simd_params.kind = SimdKind::integer;
  k.simd_params.satfinite = row.overflow == IntOverflow::satfinite;
  k.simd_params.sat_each = k.simd_params.satfinite && row.sat_point == SatPoint::addition;
  k.kernel = kernel_of(SimdKind::integer);
  k.name = "simd";
  return k;
}

}  // namespace

KernelPlan plan(const ScaledUnit& u, PlanOptions options) {
  KernelPlan k;
  k.macro = Macro::scaled;
  const bool gst = u.algo == ScaledAlgo::gst_fdpa;
  const char* misfit = unit_misfit(u);
  if (!misfit) misfit = gst ? gst_misfit(u) : st_misfit(u);
  if (options.use_reference) k.why = "the use_reference option";
  else if (options.simd_off) k.why = "the simd_off option";
  else if (misfit) k.why = misfit;
  if (*k.why) return k;
  k.simd = true;
  k.simd_params.kind = gst ? SimdKind::gst : SimdKind::st;
  k.kernel = kernel_of(k.simd_params.kind);
  k.simd_params.frac = u.frac;
  k.simd_params.floor = u.e_zero;
  k.simd_params.block = u.block;
  k.simd_params.rz = u.round != Round::rne;
  k.name = "simd";
  return k;
}

KernelPlan plan(const ModelRow& row, PlanOptions options) {
  if (row.accum == Accumulation::integer) return integer_plan(row, options);
  KernelPlan k;
  k.step = options.use_reference ? ScalarKernel::none : scalar_kernel(row);
  k.fp64 = decoding_of(row) == Decoding::real64;
  const bool simd_allowed = !options.use_reference && !options.simd_off;
  if (simd_allowed && !chain_misfit(row)) {
    k.macro = Macro::chain;
    k.name = "simd";
    return k;
  }
  const bool scalar = k.step != ScalarKernel::none;
  if (scalar && !options.simd_off && row.accum == Accumulation::exact && !exact_misfit(row)) {
    k.macro = Macro::exact;
    k.name = "simd";
    return k;
  }
  k.macro = Macro::steps;
  const char* misfit = k.fp64 ? chain_misfit(row) : simd_misfit(row, k.simd_params);
  k.simd = scalar && !options.simd_off && !misfit;
  if (k.simd) k.kernel = kernel_of(k.simd_params.kind);
  k.name = k.simd ? "simd" : k.fp64 ? "fp64" : scalar ? "scalar" : "reference";
  if (options.use_reference) k.why = "the use_reference option";
  else if (options.simd_off && !k.fp64) k.why = "the simd_off option";
  else if (!k.simd) k.why = scalar || k.fp64 ? misfit : no_scalar_kernel(row);
  return k;
}

}  // namespace mmaemu::kernels
