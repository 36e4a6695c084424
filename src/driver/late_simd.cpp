// SPDX-License-Identifier: BSD-3-Clause
// SIMD step kernel for CDNA3 (MI300) fp16/bf16/xf32: products aligned to
// their own maximum E_p (F = 24), then c added late with the two-stage
// round-down of PA Algorithm 1 (spec §2.6), RNE to fp32. 16 lanes.
//
// Stage 2 works in double: every quantity is an integer below 2^40 times a
// power of two, so sums, scalings by powers of two and floor() are exact.
//   E_p >= e_c:  S = S_p + floor(s_c / 2^(E_p - e_c)),  value S * 2^(E_p - 24)
//   E_p <  e_c:  S = floor(S_p 2^8 / 2^(e_c - E_p)) + s_c 2^8   (32 bits below 2^e_c)
//                normalise (never below 2^-126), floor to 31 bits below the
//                leading one; value S * 2^lsb
// with s_c = |m_c| 2^24 signed, c = 0 at exponent -126.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "driver/late_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cstdint>
#include <cstring>

#include "driver/simd.h"
#include "driver/product_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One block; returns false (acc untouched) if a lane's products may reach
// 2^128, or c = 0 dominates them (late_exact_zero_c), which the caller then
// runs on the scalar kernel.
bool LateStep16(const SimdParams& p, int len, const float* av, const float* af, const int32_t* ae,
                const float* bv, const float* bf, const int32_t* be, uint32_t* acc) {
  const hn::ScalableTag<int32_t> di;
  const std::size_t N = hn::Lanes(di);
  // Contiguous: one group (partials in s01/s23, exponent in ep). Odd/even:
  // group A (even positions) in s01/ep, group B (odd) in s23/ep2.
  HWY_ALIGN int32_t s01[kSimdLanes], s23[kSimdLanes], ep[kSimdLanes], ep2[kSimdLanes], none[kSimdLanes];
  for (std::size_t v = 0; v < kSimdLanes; v += N) {
    auto E = hn::Set(di, kLowExp), a = hn::Zero(di), b = hn::Zero(di);
    hn::Mask<decltype(di)> empty;
    if (!p.odd_even) {
      ProductSum(di, p.F, p.man2, len, av, af, ae, bv, bf, be, v, E, a, b, empty);
      hn::StoreU(hn::Add(a, b), di, s01 + v);
      hn::StoreU(hn::Zero(di), di, s23 + v);
      hn::StoreU(hn::Set(di, kLowExp), di, ep2 + v);
    } else {
      auto E2 = hn::Set(di, kLowExp), a2 = hn::Zero(di), b2 = hn::Zero(di);
      hn::Mask<decltype(di)> empty2;
      ProductSum(di, p.F, p.man2, len, av, af, ae, bv, bf, be, v, E, a, b, empty, 0, 2);
      ProductSum(di, p.F, p.man2, len, av, af, ae, bv, bf, be, v, E2, a2, b2, empty2, 1, 2);
      if (!hn::AllFalse(di, hn::Gt(E2, hn::Set(di, 125)))) return false;
      empty = hn::And(empty, empty2);
      hn::StoreU(hn::Add(a, b), di, s01 + v);
      hn::StoreU(hn::Add(a2, b2), di, s23 + v);
      hn::StoreU(E2, di, ep2 + v);
    }
    if (!hn::AllFalse(di, hn::Gt(E, hn::Set(di, 125)))) return false;  // |p| near 2^128
    if (p.exact_zero_c) {  // c = 0 dominating every product: the scalar kernel
      const auto c = hn::LoadU(di, reinterpret_cast<const int32_t*>(acc) + v);
      const auto czero = hn::Eq(hn::And(c, hn::Set(di, 0x7FFFFFFF)), hn::Zero(di));
      const auto Emax = p.odd_even ? hn::Max(E, hn::LoadU(di, ep2 + v)) : E;
      if (!hn::AllFalse(di, hn::AndNot(empty, hn::And(czero, hn::Lt(Emax, hn::Set(di, -126)))))) return false;
    }
    hn::StoreU(E, di, ep + v);
    hn::StoreU(hn::VecFromMask(di, empty), di, none + v);
  }

  const hn::ScalableTag<double> dd;
  const hn::Rebind<int32_t, decltype(dd)> d32;
  const hn::Rebind<int64_t, decltype(dd)> d64;
  const hn::Rebind<float, decltype(dd)> dfh;
  const std::size_t M = hn::Lanes(dd);
  // 2^x for integer lanes x (|x| < 1000).
  auto pow2 = [&](hn::Vec<decltype(d64)> x) {
    return hn::BitCast(dd, hn::ShiftLeft<52>(hn::Add(x, hn::Set(d64, 1023))));
  };
  for (std::size_t v = 0; v < kSimdLanes; v += M) {
    // c, decoded in 64-bit lanes (for the arithmetic) ...
    const auto c32 = hn::LoadU(d32, reinterpret_cast<const int32_t*>(acc) + v);
    const auto c = hn::PromoteTo(d64, c32);
    const auto cbexp = hn::And(hn::ShiftRight<23>(c), hn::Set(d64, 255));
    // e_c = max(bexp, 1) - 127: also -126 for c = 0, as CDNA3 treats it.
    const auto e_c = hn::Sub(hn::Max(cbexp, hn::Set(d64, 1)), hn::Set(d64, 127));
    const auto csig = hn::Or(hn::And(c, hn::Set(d64, 0x7FFFFF)),
                             hn::IfThenElseZero(hn::Ne(cbexp, hn::Zero(d64)), hn::Set(d64, 1 << 23)));
    auto s_c = hn::Mul(hn::ConvertTo(dd, csig), hn::Set(dd, 2.0));  // 24 fraction bits
    s_c = hn::IfThenElse(hn::RebindMask(dd, hn::Lt(c, hn::Zero(d64))), hn::Neg(s_c), s_c);

    const auto zero = hn::Zero(d64), hundred = hn::Set(d64, 100);
    // The product sum S_p * 2^(E_p - F): one group, or the odd/even groups
    // combined by rounding the one with the smaller exponent down onto the
    // other's grid (spec §2.7 step 4; an empty group has exponent -2^30).
    const auto EA = hn::PromoteTo(d64, hn::LoadU(d32, ep + v)), EB = hn::PromoteTo(d64, hn::LoadU(d32, ep2 + v));
    const auto Ep = hn::Max(EA, EB);
    const auto SA = hn::PromoteTo(dd, hn::LoadU(d32, s01 + v)), SB = hn::PromoteTo(dd, hn::LoadU(d32, s23 + v));
    const auto Sp = hn::Add(hn::Floor(hn::Mul(SA, pow2(hn::Neg(hn::Min(hn::Sub(Ep, EA), hundred))))),
                            hn::Floor(hn::Mul(SB, pow2(hn::Neg(hn::Min(hn::Sub(Ep, EB), hundred))))));

    // CDNA3 fp8: c more than `cutoff` binades below the products is dropped.
    if (p.cutoff >= 0)
      s_c = hn::IfThenZeroElse(hn::RebindMask(dd, hn::Gt(hn::Sub(Ep, e_c), hn::Set(d64, p.cutoff))), s_c);

    // Products dominate (E_p >= e_c): c rounded down onto the F-bit grid.
    const auto d1 = hn::Min(hn::Max(hn::Sub(Ep, e_c), zero), hundred);
    const auto S1 = hn::Add(Sp, hn::Floor(hn::Mul(s_c, pow2(hn::Neg(d1)))));
    const auto V1 = hn::Mul(S1, pow2(hn::Sub(Ep, hn::Set(d64, 24))));

    // c dominates: round the product sum down to 32 bits below 2^e_c, add,
    // normalise (not below 2^-126), round down to 31 bits below the lead.
    const auto d2 = hn::Min(hn::Max(hn::Sub(e_c, Ep), zero), hundred);
    auto S2 = hn::Add(hn::Floor(hn::Mul(hn::Mul(Sp, hn::Set(dd, 256.0)), pow2(hn::Neg(d2)))),
                      hn::Mul(s_c, hn::Set(dd, 256.0)));
    auto lsb = hn::Sub(e_c, hn::Set(d64, 32));
    const auto mag_exp = hn::Sub(hn::And(hn::ShiftRight<52>(hn::BitCast(d64, hn::Abs(S2))), hn::Set(d64, 0x7FF)),
                                 hn::Set(d64, 1023));  // floor(log2|S2|) for |S2| >= 1
    const auto lead = hn::Max(hn::Add(lsb, mag_exp), hn::Set(d64, -126));
    const auto nonzero = hn::RebindMask(d64, hn::Ne(S2, hn::Zero(dd)));
    const auto cut = hn::IfThenElseZero(nonzero, hn::Max(hn::Sub(hn::Sub(lead, hn::Set(d64, 31)), lsb), zero));
    S2 = hn::Floor(hn::Mul(S2, pow2(hn::Neg(cut))));
    lsb = hn::Add(lsb, cut);
    const auto V2 = hn::Mul(S2, pow2(lsb));

    const auto V = hn::IfThenElse(hn::RebindMask(dd, hn::Lt(Ep, e_c)), V2, V1);
    auto bits = hn::BitCast(d32, hn::DemoteTo(dfh, V));  // RNE
    const auto big = hn::DemoteTo(d32, hn::IfThenElseZero(hn::Ge(hn::Abs(V), hn::Set(dd, 0x1.ffffffp127)),
                                                          hn::Set(dd, 1.0)));
    const auto inf = hn::Or(hn::And(bits, hn::Set(d32, static_cast<int32_t>(0x80000000u))), hn::Set(d32, 0x7F800000));
    bits = hn::IfThenElse(hn::Eq(big, hn::Set(d32, 1)), inf, bits);

    // ... and in 32-bit lanes for the final choices. No product: c itself
    // (+0 for a zero c). NaN c: the unit's NaN; an infinite c stays.
    const auto czero = hn::Eq(hn::And(c32, hn::Set(d32, 0x7FFFFFFF)), hn::Zero(d32));
    const auto no_products = hn::Ne(hn::LoadU(d32, none + v), hn::Zero(d32));
    bits = hn::IfThenElse(no_products, hn::IfThenZeroElse(czero, c32), bits);
    const auto c_nonfinite = hn::Eq(hn::And(c32, hn::Set(d32, 0x7F800000)), hn::Set(d32, 0x7F800000));
    const auto c_nan = hn::And(c_nonfinite, hn::Ne(hn::And(c32, hn::Set(d32, 0x7FFFFF)), hn::Zero(d32)));
    bits = hn::IfThenElse(c_nonfinite, hn::IfThenElse(c_nan, hn::Set(d32, p.nan32), c32), bits);
    hn::StoreU(bits, d32, reinterpret_cast<int32_t*>(acc) + v);
  }
  return true;
}

// Runs up to `steps` blocks; returns how many were done (fewer when a block
// needs the scalar kernel: acc then holds the state before that block).
int LateRun16(const SimdParams& p, int steps, int step, int last_len, const float* av, const float* af,
              const int32_t* ae, const float* bv, const float* bf, const int32_t* be, uint32_t* acc) {
  return RunBlocks(steps, step, last_len, [&](int len, std::size_t a, std::size_t b) {
    return LateStep16(p, len, av + a, af + a, ae + a, bv + b, bf + b, be + b, acc);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace fast {

HWY_EXPORT(LateRun16);

int simd_late_run16(const SimdParams& p, int steps, int step, int last_len, const float* av, const float* af,
                    const int32_t* ae, const float* bv, const float* bf, const int32_t* be, uint32_t* acc) {
  return HWY_DYNAMIC_DISPATCH(LateRun16)(p, steps, step, last_len, av, af, ae, bv, bf, be, acc);
}

}  // namespace fast
}  // namespace mmaemu
#endif  // HWY_ONCE
