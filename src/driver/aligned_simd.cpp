// SPDX-License-Identifier: BSD-3-Clause
// SIMD step kernel for the NVIDIA block FMA (aligned sum, c early, fp32
// result with RZ or RNE), 16 output columns at a time, one binary compiled
// for every x86 target Highway knows and dispatched at run time.
//
// Per lane (output column) and block, exactly as spec §2.4:
//
//   E    = max(e_a + e_b over nonzero products, e_c if c != 0, floor)
//   t_l  = trunc(|m_a m_b| * 2^(F - (E - e_p)))      (each term, toward 0)
//   S    = sum t_l + trunc(|m_c| * 2^(F - (E - e_c)))
//   d    = round_fp32(S * 2^(E - F))
//
// The truncations are done in float: m_a*m_b (< 2^22 as an integer) times a
// power of two is exact whenever the result is >= 1, and cvttps2dq truncates
// toward zero, i.e. per term in sign-magnitude as the hardware does; results
// below 1 become 0 either way. A scale whose exponent would fall below the
// float range is clamped to 0 (the term is < 1 then). Partial sums stay in
// int32 (4 accumulators of <= 8 terms < 2^(F+2) each); their sum is formed
// exactly in double, scaled by 2^(E-F) (exact), and converted to float:
// RNE is the conversion itself; RZ steps back one ulp where the conversion
// rounded up in magnitude and maps |V| >= 2^128 to Inf (spec §2.9 step 5).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "driver/aligned_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "driver/simd.h"
#include "driver/product_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void AlignedStep16(const SimdParams& p, int len, const float* av, const float* af, const int32_t* ae,
                   const float* bv, const float* bf, const int32_t* be, uint32_t* acc) {
  const hn::ScalableTag<int32_t> di;
  const hn::Rebind<float, decltype(di)> df;
  const std::size_t N = hn::Lanes(di);

  // Stage 1 (int32/float lanes): per lane E, the partial sums, the c term.
  HWY_ALIGN int32_t s01[kSimdLanes], s23[kSimdLanes], sc[kSimdLanes], ee[kSimdLanes], empty[kSimdLanes],
      cin[kSimdLanes];
  std::memcpy(cin, acc, sizeof cin);
  bool rare = false;  // an empty block or a NaN/Inf accumulator in some lane
  for (std::size_t v = 0; v < kSimdLanes; v += N) {
    const auto c = hn::LoadU(di, reinterpret_cast<const int32_t*>(acc) + v);
    const auto cbexp = hn::And(hn::ShiftRight<23>(c), hn::Set(di, 255));
    const auto czero = hn::Eq(hn::And(c, hn::Set(di, 0x7FFFFFFF)), hn::Zero(di));
    const auto e_c = hn::Sub(hn::Max(cbexp, hn::Set(di, 1)), hn::Set(di, 127));

    // E = max(products, e_c if c != 0, floor); an empty block with c = 0 is +0.
    auto E = hn::Max(hn::IfThenElse(czero, hn::Set(di, kLowExp), e_c), hn::Set(di, p.floor));
    auto a = hn::Zero(di), b = hn::Zero(di);
    hn::Mask<decltype(di)> none;
    ProductSum(di, p.F, p.man2, len, av, af, ae, bv, bf, be, v, E, a, b, none);
    const auto is_empty = hn::And(none, czero);
    hn::StoreU(hn::VecFromMask(di, is_empty), di, empty + v);
    rare = rare || !hn::AllFalse(di, hn::Or(is_empty, hn::Eq(cbexp, hn::Set(di, 255))));
    // c: |m_c| * 2^(F - (E - e_c)) from its significand (exact for any E).
    const auto csig = hn::Or(hn::And(c, hn::Set(di, 0x7FFFFF)),
                             hn::IfThenElseZero(hn::Ne(cbexp, hn::Zero(di)), hn::Set(di, 1 << 23)));
    const auto xc = hn::Max(hn::Add(hn::Sub(hn::Set(di, p.F - 23 + 127), E), e_c), hn::Zero(di));
    auto tc = hn::ConvertTo(di, hn::Mul(hn::ConvertTo(df, csig), hn::BitCast(df, hn::ShiftLeft<23>(xc))));
    tc = hn::IfThenElse(hn::Lt(c, hn::Zero(di)), hn::Neg(tc), tc);
    hn::StoreU(a, di, s01 + v);
    hn::StoreU(b, di, s23 + v);
    hn::StoreU(tc, di, sc + v);
    hn::StoreU(E, di, ee + v);
  }

  // Stage 2 (double lanes): exact sum, scale, round to fp32.
  const hn::ScalableTag<double> dd;
  const hn::Rebind<int32_t, decltype(dd)> d32;
  const hn::Rebind<float, decltype(dd)> dfh;
  const hn::Rebind<int64_t, decltype(dd)> d64;
  const std::size_t M = hn::Lanes(dd);
  for (std::size_t v = 0; v < kSimdLanes; v += M) {
    const auto S = hn::Add(hn::Add(hn::PromoteTo(dd, hn::LoadU(d32, s01 + v)), hn::PromoteTo(dd, hn::LoadU(d32, s23 + v))),
                           hn::PromoteTo(dd, hn::LoadU(d32, sc + v)));
    const auto ebits = hn::PromoteTo(d64, hn::Add(hn::LoadU(d32, ee + v), hn::Set(d32, 1023 - p.F)));
    const auto V = hn::Mul(S, hn::BitCast(dd, hn::ShiftLeft<52>(ebits)));
    const auto f = hn::DemoteTo(dfh, V);  // round to nearest even
    auto bits = hn::BitCast(d32, f);
    const auto aV = hn::Abs(V);
    if (p.rz) {
      const auto up = hn::And(hn::Lt(aV, hn::Abs(hn::PromoteTo(dd, f))), hn::Lt(aV, hn::Set(dd, 0x1p128)));
      bits = hn::Sub(bits, hn::DemoteTo(d32, hn::IfThenElseZero(up, hn::Set(dd, 1.0))));
      bits = hn::And(bits, hn::Set(d32, p.frac_mask));
    }
    // Overflow to +-Inf (some targets' conversions saturate instead): RZ
    // from 2^128 on, RNE from the midpoint above the largest float.
    const auto overflow = hn::Ge(aV, hn::Set(dd, p.rz ? 0x1p128 : 0x1.ffffffp127));
    if (!hn::AllFalse(dd, overflow)) {
      const auto big = hn::DemoteTo(d32, hn::IfThenElseZero(overflow, hn::Set(dd, 1.0)));
      const auto inf = hn::Or(hn::And(bits, hn::Set(d32, static_cast<int32_t>(0x80000000u))), hn::Set(d32, 0x7F800000));
      bits = hn::IfThenElse(hn::Eq(big, hn::Set(d32, 1)), inf, bits);
    }
    if (rare) {
      bits = hn::AndNot(hn::LoadU(d32, empty + v), bits);  // empty block: +0
      // c = NaN gives the unit's NaN, c = +-Inf stays (no NaN/Inf inputs here).
      const auto c = hn::LoadU(d32, cin + v);
      const auto c_nonfinite = hn::Eq(hn::And(c, hn::Set(d32, 0x7F800000)), hn::Set(d32, 0x7F800000));
      const auto c_nan = hn::And(c_nonfinite, hn::Ne(hn::And(c, hn::Set(d32, 0x7FFFFF)), hn::Zero(d32)));
      bits = hn::IfThenElse(c_nonfinite, hn::IfThenElse(c_nan, hn::Set(d32, p.nan32), c), bits);
    }
    hn::StoreU(bits, d32, reinterpret_cast<int32_t*>(acc) + v);
  }
}

// `steps` consecutive blocks of `step` elements (the last one `last_len`).
void AlignedRun16(const SimdParams& p, int steps, int step, int last_len, const float* av, const float* af,
                  const int32_t* ae, const float* bv, const float* bf, const int32_t* be, uint32_t* acc) {
  RunBlocks(steps, step, last_len, [&](int len, std::size_t a, std::size_t b) {
    AlignedStep16(p, len, av + a, af + a, ae + a, bv + b, bf + b, be + b, acc);
    return true;
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace fast {

HWY_EXPORT(AlignedRun16);

void simd_aligned_run16(const SimdParams& p, int steps, int step, int last_len, const float* av, const float* af,
                        const int32_t* ae, const float* bv, const float* bf, const int32_t* be, uint32_t* acc) {
  HWY_DYNAMIC_DISPATCH(AlignedRun16)(p, steps, step, last_len, av, af, ae, bv, bf, be, acc);
}

const char* simd_target_name() {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  return targets.empty() ? "none" : hwy::TargetName(targets.front());  // best first
}

bool simd_params(const ModelRow& row, SimdParams& p) {
  p = SimdParams{};
  p.pair_group = row.pair_group;
  p.keep_sign = row.flush_sign == FlushSign::keep;
  p.out_subnormals = row.out_subnormals;
  if (operand_kind(row) == Operand::real && row.out == Fmt::fp32 && row.in != Fmt::fp64) {
    if (row.accum == Accumulation::fma_chain) {
      p.kind = SimdKind::fma_chain;
      return true;
    }
    if (row.accum == Accumulation::pairwise && row.product == ProductForm::fp32_rne &&
        (row.pair_group == 2 || row.pair_group == 4)) {
      p.kind = SimdKind::pairwise;
      return true;
    }
    return false;
  }
  p.F = row.frac_bits;
  p.man2 = 2 * info(row.inputs_as_fp16 ? Fmt::fp16 : row.in).man_bits;
  p.nan32 = static_cast<int32_t>(row.nan32);
  // CDNA3: products aligned alone, c late with the two-stage round-down.
  if (row.accum == Accumulation::aligned && row.c_entry == CEntry::late_rd &&
      (row.grouping == Grouping::contiguous || row.grouping == Grouping::odd_even) &&
      row.late_rd == LateRd::two_stage && row.out == Fmt::fp32 &&
      row.final_round == Round::rne && row.result_frac_bits() == 23 && row.frac_bits == 24 &&
      row.product == ProductForm::denormalised && row.zero_c_is_term && row.zero_c_exp == -126 &&
      row.align_floor == kNoFloor && row.out_subnormals &&
      operand_kind(row) == Operand::integer && row.block <= 32) {
    p.kind = SimdKind::late;
    p.odd_even = row.grouping == Grouping::odd_even;
    p.exact_zero_c = row.late_exact_zero_c;
    p.cutoff = row.late_c_cutoff;
    return true;
  }
  // The path of NVIDIA tensor cores with fp32 results; everything else (and
  // custom variants outside this envelope) runs on the scalar kernels.
  p.kind = SimdKind::aligned;
  if (row.accum != Accumulation::aligned || row.c_entry != CEntry::early ||
      row.grouping != Grouping::contiguous || row.out != Fmt::fp32 ||
      row.product != ProductForm::denormalised || row.zero_c_is_term || !row.out_subnormals ||
      operand_kind(row) != Operand::integer || row.frac_bits > 26 || row.block > 32)
    return false;
  if (row.final_round != Round::rz && !(row.final_round == Round::rne && row.result_frac_bits() == 23))
    return false;
  p.F = row.frac_bits;
  p.man2 = 2 * info(row.inputs_as_fp16 ? Fmt::fp16 : row.in).man_bits;
  p.floor = row.align_floor == kNoFloor ? -(1 << 30) : row.align_floor;
  p.rz = row.final_round == Round::rz;
  p.frac_mask = static_cast<int32_t>(~((1u << (23 - row.result_frac_bits())) - 1));
  p.nan32 = static_cast<int32_t>(row.nan32);
  return true;
}

}  // namespace fast
}  // namespace mmaemu
#endif  // HWY_ONCE
