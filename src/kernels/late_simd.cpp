// SPDX-License-Identifier: BSD-3-Clause
// SIMD step kernel for CDNA3 (MI300) fp16/bf16/xf32: products aligned to
// their own maximum E_p (F = 24), then c added late with the two-stage
// round-down of PA Algorithm 1 (docs/models.md §2.6), RNE to fp32. 16 lanes.
//
// A run of blocks is done one vector of lanes at a time, c in a register
// from block to block (LateFastRun; two A rows: both chains at once); each
// block takes the fast path (LateFastBlock: unrolled int32 terms with raw
// cvttps2dq, int32 finish where the products dominate, a short exact double
// finish where c does) unless a lane is outside its window, and then the
// general kernel below (LateSlowBlock), which also returns blocks to the
// caller's scalar kernel.
//
// The general kernel's stage 2 works in double: every quantity is an integer below 2^40 times a
// power of two, so sums, scalings by powers of two and floor() are exact.
//   E_p >= e_c:  S = S_p + floor(s_c / 2^(E_p - e_c)),  value S * 2^(E_p - 24)
//   E_p <  e_c:  S = floor(S_p 2^8 / 2^(e_c - E_p)) + s_c 2^8   (32 bits below 2^e_c)
//                normalise (never below 2^-126), floor to 31 bits below the
//                leading one; value S * 2^lsb
// with s_c = |m_c| 2^24 signed, c = 0 at exponent -126.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/late_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cstdint>
#include <cstring>

#include "kernels/simd.h"
#include "kernels/product_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---------------------------------------------------------------- slow path

// The general kernel: one block on the lanes [v, v + Lanes) (B operands at
// lane offset v), c in and d out in acc[0 .. Lanes) (fp32 bits). Returns
// false (acc untouched) if a lane's products may reach 2^128, or c = 0
// dominates them (late_exact_zero_c), which the caller then runs on the
// scalar kernel.
HWY_NOINLINE bool LateSlowBlock(const SimdParams& p, int len, const float* av, const float* af, const int32_t* ae,
                            const float* bv, const float* bf, const int32_t* be, std::size_t v, uint32_t* acc) {
  const hn::ScalableTag<int32_t> di;
  const std::size_t N = hn::Lanes(di);
  // Contiguous: one group (partials in s01/s23, exponent in ep). Odd/even:
  // group A (even positions) in s01/ep, group B (odd) in s23/ep2.
  HWY_ALIGN int32_t s01[kSimdLanes], s23[kSimdLanes], ep[kSimdLanes], ep2[kSimdLanes], none[kSimdLanes];
  {
    auto E = hn::Set(di, kLowExp), a = hn::Zero(di), b = hn::Zero(di);
    hn::Mask<decltype(di)> empty;
    if (!p.odd_even) {
      ProductSum(di, p.frac, p.man2, len, av, af, ae, bv, bf, be, v, E, a, b, empty);
      hn::StoreU(hn::Add(a, b), di, s01);
      hn::StoreU(hn::Zero(di), di, s23);
      hn::StoreU(hn::Set(di, kLowExp), di, ep2);
    } else {
      auto E2 = hn::Set(di, kLowExp), a2 = hn::Zero(di), b2 = hn::Zero(di);
      hn::Mask<decltype(di)> empty2;
      ProductSum(di, p.frac, p.man2, len, av, af, ae, bv, bf, be, v, E, a, b, empty, 0, 2);
      ProductSum(di, p.frac, p.man2, len, av, af, ae, bv, bf, be, v, E2, a2, b2, empty2, 1, 2);
      if (!hn::AllFalse(di, hn::Gt(E2, hn::Set(di, 125)))) return false;
      empty = hn::And(empty, empty2);
      hn::StoreU(hn::Add(a, b), di, s01);
      hn::StoreU(hn::Add(a2, b2), di, s23);
      hn::StoreU(E2, di, ep2);
    }
    if (!hn::AllFalse(di, hn::Gt(E, hn::Set(di, 125)))) return false;  // |p| near 2^128
    if (p.exact_zero_c) {  // c = 0 dominating every product: the scalar kernel
      const auto c = hn::LoadU(di, reinterpret_cast<const int32_t*>(acc));
      const auto czero = hn::Eq(hn::And(c, hn::Set(di, 0x7FFFFFFF)), hn::Zero(di));
      const auto Emax = p.odd_even ? hn::Max(E, hn::LoadU(di, ep2)) : E;
      if (!hn::AllFalse(di, hn::AndNot(empty, hn::And(czero, hn::Lt(Emax, hn::Set(di, -126)))))) return false;
    }
    hn::StoreU(E, di, ep);
    hn::StoreU(hn::VecFromMask(di, empty), di, none);
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
  for (std::size_t u = 0; u < N; u += M) {
    // c, decoded in 64-bit lanes (for the arithmetic) ...
    const auto c32 = hn::LoadU(d32, reinterpret_cast<const int32_t*>(acc) + u);
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
    // other's grid (docs/models.md §2.7; an empty group has exponent -2^30).
    const auto EA = hn::PromoteTo(d64, hn::LoadU(d32, ep + u)), EB = hn::PromoteTo(d64, hn::LoadU(d32, ep2 + u));
    const auto Ep = hn::Max(EA, EB);
    const auto SA = hn::PromoteTo(dd, hn::LoadU(d32, s01 + u)), SB = hn::PromoteTo(dd, hn::LoadU(d32, s23 + u));
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
    const auto no_products = hn::Ne(hn::LoadU(d32, none + u), hn::Zero(d32));
    bits = hn::IfThenElse(no_products, hn::IfThenZeroElse(czero, c32), bits);
    const auto c_nonfinite = hn::Eq(hn::And(c32, hn::Set(d32, 0x7F800000)), hn::Set(d32, 0x7F800000));
    const auto c_nan = hn::And(c_nonfinite, hn::Ne(hn::And(c32, hn::Set(d32, 0x7FFFFF)), hn::Zero(d32)));
    bits = hn::IfThenElse(c_nonfinite, hn::IfThenElse(c_nan, hn::Set(d32, p.nan32), c32), bits);
    hn::StoreU(bits, d32, reinterpret_cast<int32_t*>(acc) + u);
  }
  return true;
}


// ---------------------------------------------------------------- fast path

#if HWY_TARGET != HWY_SCALAR





// Per-run constants of the fast path (F = p.frac = 24), read from memory
// so that the compiler folds them into the vector instructions (AVX-512:
// embedded broadcasts) instead of rebuilding them in registers per block.
struct LateConsts {
  int32_t f127;      // F + 127: 2^(F - E) has the biased exponent F + 127 - E
  int32_t c_top;     // F + 101: 2^(F - (e_c + 26)) has the biased exponent F + 101 - e_c
  int32_t f135;      // F + 135: 2^(F + 8 - e) has the biased exponent F + 135 - e
  int32_t one;       // 1
  int32_t bias;      // 127
  int32_t w100, w200;  // products' window: E + 100 <= 200 (unsigned)
  int32_t c60, c180;   // c's window where c dominates: e_c + 60 <= 180 (unsigned)
  int32_t eight, k31;  // 8; 31: the largest shift
  int32_t half_bits;   // 127 << 23: the exponent field of 1.0
  int32_t cutoff;      // drop c more than this many binades below (fp8); -1: never
  int64_t low21;       // 0x1FFFFF: the 21 fraction bits below 32 significant bits in binary64
};

// One block on one vector of lanes, c in a register (fp32 bits). Returns
// false, c untouched, unless every lane has
//   - every group's exponent E (E_A, E_B for odd/even) in [-100, 100]: each
//     term trunc(a*b * 2^(24-E)) is then exact in float (as in ProductSum:
//     the products that reach the window are exact normal floats, the scale
//     a normal float, cvttps2dq truncates toward zero), and the group sums
//     fit int32 (the caller checks the block length);
//   - where c dominates (E_p < e_c), e_c in [-60, 120]: the result is then
//     normal and finite, and c is finite.
// Per lane, with E_p = max(E_A, E_B), S_p = sum_X floor(S_X / 2^(E_p - E_X)):
//   E_p >= e_c: S = S_p + floor(c * 2^(24 - E_p)) (|S| < 2^31); the c term
//     is exact in float where E_p - e_c <= 26, else it is in (-1/2, 1/2)
//     and only its sign matters: it is then formed at E_p = e_c + 26 (zero
//     where the cut-off drops c). d = RNE24(S) * 2^(E_p - 24).
//   E_p < e_c, d = e_c - E_p >= 1: the reference's sum at 32 bits below
//     2^e_c is Y = floor(S_p * 2^(8 - d)) + c * 2^(32 - e_c), rounded down
//     to 31 fraction bits below its leading one, then RNE24.
// Both as one computation: with e_g = max(E_p + 8, e_c) and
//   W = floor(S_p / 2^max(d - 8, 0)) + floor(c * 2^(32 - e_g))
// (products dominate: e_g - 32 = E_p - 24, no shift, W = S; c dominates:
// W = Y / 2^g, g = e_g - e_c = max(8 - d, 0), since for d < 8 the floor of
// S_p * 2^(8-d) is exact and c * 2^(32 - e_g) is an integer), in binary64
// (|W| < 2^34, exact; the floor of S_p is an arithmetic shift). The
// round-down to 32 significant bits is relative, the same on W as on Y,
// and does nothing to |W| < 2^32: clear the low 21 of the 52 fraction bits
// (a negative W rounds its magnitude up). Then RNE to float by the
// conversion, and the scaling by 2^(e_g - 32) as an add to the exponent
// field (|d| in [2^-92, 2^125): normal).
template <int kLen, bool kOddEven>
HWY_INLINE bool LateFastBlock(const LateConsts& q, int len, const float* av, const int32_t* ae, const float* bv,
                              const int32_t* be, VI32& c) {
  const DI32 di;
  const DF32 df;
  const hn::RebindToUnsigned<DI32> du;

  // The groups' exponents (A: from the first product on; an odd group
  // without products has -2^30, outside the window).
  if (kLen == 0 && len < 1) return false;
  auto EA = hn::Add(hn::Set(di, ae[0]), hn::LoadU(di, be)), EB = hn::Set(di, kLowExp);
  ForEach<kLen>(len, [&](int l) {
    if (l == 0) return;
    const auto e = hn::Add(hn::Set(di, ae[l]), hn::LoadU(di, be + l * kSimdLanes));
    if (kOddEven && (l & 1)) EB = hn::Max(EB, e);
    else EA = hn::Max(EA, e);
  });
  const auto out_of_window = [&](VI32 e) {
    return hn::Gt(hn::BitCast(du, hn::Add(e, hn::Set(di, q.w100))), hn::BitCast(du, hn::Set(di, q.w200)));
  };
  auto bad = out_of_window(EA);
  if (kOddEven) bad = hn::Or(bad, out_of_window(EB));
  const auto Ep = kOddEven ? hn::Max(EA, EB) : EA;
  // e_c = max(biased exponent, 1) - 127: -126 for c = 0, as CDNA3 treats it.
  const auto e_c = hn::Sub(hn::Max(hn::BitCast(di, hn::ShiftRight<24>(hn::ShiftLeft<1>(hn::BitCast(du, c)))),
                                   hn::Set(di, q.one)),
                           hn::Set(di, q.bias));
  const auto caseA = hn::Not(hn::Lt(Ep, e_c));
  const auto badB = hn::Gt(hn::BitCast(du, hn::Add(e_c, hn::Set(di, q.c60))), hn::BitCast(du, hn::Set(di, q.c180)));
  if (!hn::AllFalse(du, hn::Or(bad, hn::AndNot(hn::RebindMask(du, caseA), badB)))) return false;

  // The terms, each group at its own scale 2^(24 - E_X).
  const auto scaleA = hn::ShiftLeft<23>(hn::Sub(hn::Set(di, q.f127), EA));
  const auto scaleB = kOddEven ? hn::ShiftLeft<23>(hn::Sub(hn::Set(di, q.f127), EB)) : scaleA;
  auto S0 = hn::Zero(di), S1 = hn::Zero(di);
  ForEach<kLen>(len, [&](int l) {
    const auto prod = hn::Mul(hn::Set(df, av[l]), hn::LoadU(df, bv + l * kSimdLanes));
    const auto t = TruncToI32(hn::Mul(prod, hn::BitCast(df, (kOddEven && (l & 1)) ? scaleB : scaleA)));
    if (l & 1) S1 = hn::Add(S1, t);
    else S0 = hn::Add(S0, t);
  });
  VI32 Sp;
  if (kOddEven) {
    const auto k31 = hn::Set(di, q.k31);
    Sp = hn::Add(S0 >> hn::Min(hn::Sub(Ep, EA), k31), S1 >> hn::Min(hn::Sub(Ep, EB), k31));
  } else {
    Sp = hn::Add(S0, S1);
  }

  // Both cases at once: W at 2^(e_g - 32), e_g = max(E_p + 8, e_c) (E_p >= e_c:
  // e_g - 32 = E_p - 24, the products' grid; no shift of S_p).
  const auto t8 = hn::Add(Ep, hn::Set(di, q.eight));
  const auto eg = hn::Max(t8, e_c);
  const auto Sq = Sp >> hn::Min(hn::Sub(eg, t8), hn::Set(di, q.k31));  // floor(S_p / 2^max(d - 8, 0))
  const auto wscale = hn::ShiftLeft<23>(hn::Sub(hn::Set(di, q.f135), eg));  // 2^(32 - e_g)
  // c's term: at 2^(32 - e_g) (E_p >= e_c: 2^(24 - min(E_p, e_c + 26)),
  // floored; E_p < e_c: an integer), exact in float.
  const auto cscale = hn::Max(wscale, hn::ShiftLeft<23>(hn::Sub(hn::Set(di, q.c_top), e_c)));
  auto ct = hn::Floor(hn::Mul(hn::BitCast(df, c), hn::BitCast(df, cscale)));
  if (q.cutoff >= 0) ct = hn::IfThenZeroElse(hn::RebindMask(df, hn::Gt(hn::Sub(Ep, e_c), hn::Set(di, q.cutoff))), ct);
  const hn::Half<DI32> dih;
  const hn::Half<DF32> dfh;
  const hn::Rebind<double, decltype(dih)> dd;
  const hn::RebindToSigned<decltype(dd)> d64;
  const auto low21 = hn::Set(d64, q.low21);
  auto half = [&](hn::Vec<decltype(dih)> sq, hn::Vec<decltype(dfh)> x) {
    const auto W = hn::BitCast(d64, hn::Add(hn::PromoteTo(dd, sq), hn::PromoteTo(dd, x)));
    const auto up = hn::IfThenElse(hn::Lt(W, hn::Zero(d64)), hn::Add(W, low21), W);
    return hn::DemoteTo(dfh, hn::BitCast(dd, hn::AndNot(low21, up)));
  };
  const auto lo = half(hn::LowerHalf(dih, Sq), hn::LowerHalf(dfh, ct));
  const auto hi = half(hn::UpperHalf(dih, Sq), hn::UpperHalf(dfh, ct));
  const auto m = hn::BitCast(di, hn::Combine(df, hi, lo));
  // * 2^(e_g - 32): the exponent field of 2^(e_g - 32) is 127 - (159 - e_g).
  const auto res = hn::IfThenElseZero(hn::Ne(m, hn::Zero(di)), hn::Add(m, hn::Sub(hn::Set(di, q.half_bits), wscale)));
  c = res;
  return true;
}

// One block of one row on one vector of lanes (B at lane offset v): the
// fast path, else the general kernel. Returns false, c untouched, where the
// general kernel hands the block back.
template <int kLen, bool kOddEven>
HWY_INLINE bool LateAnyBlock(const SimdParams& p, const LateConsts& q, int len, const float* av, const float* af,
                             const int32_t* ae, const float* bv, const float* bf, const int32_t* be, std::size_t v,
                             VI32& c) {
  const bool done = kLen > 0 && len == kLen ? LateFastBlock<kLen, kOddEven>(q, len, av, ae, bv + v, be + v, c)
                                             : LateFastBlock<0, kOddEven>(q, len, av, ae, bv + v, be + v, c);
  if (done) return true;
  const DI32 di;
  HWY_ALIGN uint32_t cl[kSimdLanes];
  hn::Store(c, di, reinterpret_cast<int32_t*>(cl));
  if (!LateSlowBlock(p, len, av, af, ae, bv, bf, be, v, cl)) return false;
  c = hn::Load(di, reinterpret_cast<const int32_t*>(cl));
  return true;
}

// Blocks on the fast path where they can be, c in registers throughout (one
// vector of lanes at a time), for kRows A rows against the same lanes (row
// r's A at r*as, its accumulators at acc + 16*r): a step's blocks of both
// rows back to back, both c in registers, so that the CPU overlaps the two
// independent chains. A block handed back in either row stops both rows
// before it. Returns the number of blocks done, as LateRun16.
template <int kLen, bool kOddEven, int kRows>
HWY_NOINLINE int LateFastRun(const SimdParams& p, const LateConsts& q, int steps, int step, int last_len, const float* av, const float* af,
                             const int32_t* ae, std::size_t as, const float* bv, const float* bf, const int32_t* be,
                             uint32_t* acc) {
  const DI32 di;
  const std::size_t N = hn::Lanes(di);
  int32_t* io = reinterpret_cast<int32_t*>(acc);
  HWY_ALIGN uint32_t orig[kRows * kSimdLanes];
  std::memcpy(orig, acc, sizeof orig);
  int limit = steps;
  for (;;) {
    int stop = limit;
    bool behind = false;  // an earlier vector ran past `stop`
    for (std::size_t v = 0; v < kSimdLanes; v += N) {
      auto c0 = hn::LoadU(di, io + v);
      auto c1 = kRows > 1 ? hn::LoadU(di, io + kSimdLanes + v) : c0;
      int s = 0;
      for (; s < limit; ++s) {
        const int len = s + 1 == steps ? last_len : step;
        const std::size_t a = static_cast<std::size_t>(s) * step, b = a * kSimdLanes;
        const auto before0 = c0;
        if (!LateAnyBlock<kLen, kOddEven>(p, q, len, av + a, af + a, ae + a, bv + b, bf + b, be + b, v, c0)) break;
        if constexpr (kRows > 1) {
          const std::size_t a1 = as + a;
          if (!LateAnyBlock<kLen, kOddEven>(p, q, len, av + a1, af + a1, ae + a1, bv + b, bf + b, be + b, v, c1)) {
            c0 = before0;  // row 0 stops before the block too
            break;
          }
        }
      }
      hn::StoreU(c0, di, io + v);
      if constexpr (kRows > 1) hn::StoreU(c1, di, io + kSimdLanes + v);
      if (s < stop) {
        behind = behind || v > 0;
        stop = s;
      } else if (s > stop) {
        behind = true;
      }
    }
    if (!behind) return stop;
    // Some vector stopped at a block that earlier ones did: redo them all
    // up to it (blocks before it are all done by every vector).
    std::memcpy(acc, orig, sizeof orig);
    limit = stop;
  }
}

template <int kLen, bool kOddEven>
HWY_INLINE int LateFastRows(const SimdParams& p, const LateConsts& q, int steps, int step, int last_len, const float* av, const float* af,
                            const int32_t* ae, int rows, std::size_t as, const float* bv, const float* bf,
                            const int32_t* be, uint32_t* acc) {
  if (rows == 2) return LateFastRun<kLen, kOddEven, 2>(p, q, steps, step, last_len, av, af, ae, as, bv, bf, be, acc);
  return LateFastRun<kLen, kOddEven, 1>(p, q, steps, step, last_len, av, af, ae, as, bv, bf, be, acc);
}

#endif  // HWY_TARGET != HWY_SCALAR

// Runs up to `steps` blocks for `rows` A rows (row r at r*as, its
// accumulators at acc + 16*r); returns how many were done for every row
// (fewer when a block of some row needs the scalar kernel: every row's acc
// then holds the state before that block).
int LateRun16(const SimdParams& p, int steps, int step, int last_len, const float* av, const float* af,
              const int32_t* ae, int rows, std::size_t as, const float* bv, const float* bf, const int32_t* be,
              uint32_t* acc) {
#if HWY_TARGET != HWY_SCALAR
  // |S| < step * 2^26 + 2^25 (each term < 2^26, the c term <= 2^25) in int32.
  if ((int64_t{step} << 26) + (int64_t{1} << 25) < (int64_t{1} << 31)) {
    LateConsts q;
    q.f127 = p.frac + 127;
    q.c_top = p.frac + 101;
    q.f135 = p.frac + 135;
    q.one = 1;
    q.bias = 127;
    q.w100 = 100;
    q.w200 = 200;
    q.c60 = 60;
    q.c180 = 180;
    q.eight = 8;
    q.k31 = 31;
    q.half_bits = 127 << 23;
    q.cutoff = p.cutoff;
    q.low21 = 0x1FFFFF;
    if (p.odd_even) {
      if (step == 16) return LateFastRows<16, true>(p, q, steps, step, last_len, av, af, ae, rows, as, bv, bf, be, acc);
      return LateFastRows<0, true>(p, q, steps, step, last_len, av, af, ae, rows, as, bv, bf, be, acc);
    }
    switch (step) {
      case 4: return LateFastRows<4, false>(p, q, steps, step, last_len, av, af, ae, rows, as, bv, bf, be, acc);
      case 8: return LateFastRows<8, false>(p, q, steps, step, last_len, av, af, ae, rows, as, bv, bf, be, acc);
      default: return LateFastRows<0, false>(p, q, steps, step, last_len, av, af, ae, rows, as, bv, bf, be, acc);
    }
  }
#endif
  // The general path throughout, all lanes and rows of a block or none.
  const std::size_t N = hn::Lanes(hn::ScalableTag<int32_t>());
  const std::size_t lanes = static_cast<std::size_t>(rows) * kSimdLanes;
  return RunBlocks(steps, step, last_len, [&](int len, std::size_t a, std::size_t b) {
    HWY_ALIGN uint32_t next[kMaxRows * kSimdLanes];
    for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) {
      const std::size_t o = r * as + a;
      for (std::size_t v = 0; v < kSimdLanes; v += N) {
        uint32_t* c = next + r * kSimdLanes + v;
        std::memcpy(c, acc + r * kSimdLanes + v, N * sizeof(uint32_t));
        if (!LateSlowBlock(p, len, av + o, af + o, ae + o, bv + b, bf + b, be + b, v, c)) return false;
      }
    }
    std::memcpy(acc, next, lanes * sizeof(uint32_t));
    return true;
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace kernels {

HWY_EXPORT(LateRun16);

int simd_late_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc) {
  check_rows(a);
  return HWY_DYNAMIC_DISPATCH(LateRun16)(p, run.steps, run.step, run.last_len, a.val, a.sig, a.exp, a.rows, a.stride,
                                         b.val, b.sig, b.exp, acc);
}

}  // namespace kernels
}  // namespace mmaemu
#endif  // HWY_ONCE
