// SPDX-License-Identifier: BSD-3-Clause
// SIMD step kernel for the NVIDIA block FMA (aligned sum, c early, fp32
// result with RZ or RNE (custom rows: RD, RU), or fp16 result with RNE), 16 output columns at a
// time, one binary compiled for every x86 target Highway knows and
// dispatched at run time.
//
// Per lane (output column) and block, exactly as docs/models.md §2.4:
//
//   E    = max(e_a + e_b over nonzero products, e_c if c != 0, floor)
//   t_l  = trunc(|m_a m_b| * 2^(F - (E - e_p)))      (each term, toward 0)
//   S    = sum t_l + trunc(|m_c| * 2^(F - (E - e_c)))
//   d    = round_fp32(S * 2^(E - F))
//
// A run of blocks is done one vector of lanes at a time, the accumulators
// in a register from block to block; with two A rows in the call
// (RowPanel::rows) both rows' chains at once, their blocks of a step back
// to back. Each block of a row goes on one of two paths:
//
// Fast path (FastBlock): every lane of the vector has E in a window where
// everything is exact in float (F - 125 <= E <= min(100, F + 96)) and the
// sum fits in int32. Then:
//   - each term is trunc(a*b * 2^(F-E)) in float: a*b (two significands of
//     <= 12 bits) is an exact float whenever it can reach the window,
//     2^(F-E) is a normal float, and their product is exact when it is
//     >= 1; cvttps2dq truncates toward zero, i.e. per term in sign-magnitude
//     as the hardware does. Products below the window truncate to 0.
//   - the c term is trunc(c * 2^(F-E)) from c's own fp32 value, likewise.
//   - S is summed in int32 and rounded to a 24-bit float (RZ: AVX-512's
//     embedded rounding, else RNE with a step back), then scaled by
//     2^(E-F), which is exact in the window (the result is normal).
//
// Slow path (SlowBlock, the general kernel), for any other block: no
// nonzero product, NaN/Inf c, subnormal or overflowing results, E outside
// the window, sums near 2^31. The truncations are done by ProductSum
// (product_sum-inl.h), the c term from its integer significand; S is formed
// exactly in double, scaled by 2^(E-F) (exact) and converted to float: RNE
// is the conversion itself; RZ steps back one ulp where the conversion
// rounded up in magnitude and maps |V| >= 2^128 to Inf (docs/models.md §2.9);
// RD/RU (custom rows, this path only) step one ulp the other way where the
// conversion went the wrong way, and overflow also past the largest float
// away from zero.
//
// fp16 results (out16, RNE): inside a run each accumulator is held as the
// fp32 bits of its fp16 value; a subnormal fp16 c aligns at 2^-14, its
// fp16 decomposition (sub_c = emin, docs/models.md §2.4 step 2), or at its
// leading bit (sub_c = lead); the run converts from and to fp16 bits at its
// ends. The fast path rounds S to a 24-bit float *to odd* (RZ, the
// lowest bit set if inexact), scales it exactly and rounds that to fp16 with
// RNE: rounding to odd at 24 bits and then to nearest at <= 11 bits is the
// one rounding of the exact value (Boldo & Melquiond, "Emulation of FMA and
// correctly rounded sums: proved algorithms using rounding to odd", IEEE TC
// 2008: any p >= q + 2). The slow path rounds the exact double V.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/aligned_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/simd.h"
#include "kernels/product_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;


// ---------------------------------------------------------------- fp16 results

// fp16 bits (the low half of each lane) -> fp32 bits, exact.
HWY_INLINE VI32 SingleOfHalf(VI32 h) {
  const DI32 di;
  const DF32 df;
  const auto mag = hn::And(h, hn::Set(di, 0x7FFF));
  const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(di, 0x8000)));
  const auto e = hn::ShiftRight<10>(mag);
  // Normal: the 5-bit exponent and the fraction moved up 13, rebias 15 -> 127.
  auto bits = hn::Add(hn::ShiftLeft<13>(mag), hn::Set(di, 112 << 23));
  bits = hn::IfThenElse(hn::Eq(e, hn::Set(di, 31)), hn::Or(hn::ShiftLeft<13>(mag), hn::Set(di, 0x7F800000)), bits);
  // Subnormal or zero: f * 2^-24.
  const auto sub = hn::BitCast(di, hn::Mul(hn::ConvertTo(df, mag), hn::Set(df, 0x1p-24f)));
  return hn::Or(sign, hn::IfThenElse(hn::Eq(e, hn::Zero(di)), sub, bits));
}

// fp32 bits of an fp16 value, +-Inf or NaN -> fp16 bits (NaN: the unit's).
HWY_INLINE VI32 HalfOfSingle(VI32 x, int32_t nan16) {
  const DI32 di;
  const DF32 df;
  const auto a = hn::And(x, hn::Set(di, 0x7FFFFFFF));
  const auto sign = hn::And(hn::ShiftRight<16>(x), hn::Set(di, 0x8000));
  auto h = hn::Sub(hn::ShiftRight<13>(a), hn::Set(di, 112 << 10));  // normal
  const auto sub = hn::ConvertTo(di, hn::Mul(hn::BitCast(df, a), hn::Set(df, 0x1p24f)));
  h = hn::IfThenElse(hn::Lt(a, hn::Set(di, 0x38800000)), sub, h);  // |x| < 2^-14
  h = hn::IfThenElse(hn::Eq(a, hn::Set(di, 0x7F800000)), hn::Set(di, 0x7C00), h);
  return hn::IfThenElse(hn::Gt(a, hn::Set(di, 0x7F800000)), hn::Set(di, nan16), hn::Or(h, sign));
}

// A normal float x rounded to fp16 with RNE, as fp32 bits (+-Inf past the
// largest fp16). On x86 with F16C (AVX2) or AVX-512: the hardware
// conversion to fp16 with RNE given in the instruction (IEEE 754: subnormal
// results, overflow to Inf), and back, exact. Otherwise: in the normal fp16
// range the fp32 bits rounded at bit 13 (a carry moves into the exponent,
// as it should); below 2^-14 one float addition at 2^-1, whose ulp is the
// fp16 subnormal step 2^-24, RNE by the host (the caller holds FpEnvGuard:
// round to nearest, no FTZ).
HWY_INLINE VI32 RoundToHalf(VI32 x) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  const __m256i h = _mm512_cvtps_ph(_mm512_castsi512_ps(x.raw), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return VI32{_mm512_castps_si512(_mm512_cvtph_ps(h))};
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
  const __m128i h = _mm256_cvtps_ph(_mm256_castsi256_ps(x.raw), _MM_FROUND_TO_NEAREST_INT);
  return VI32{_mm256_castps_si256(_mm256_cvtph_ps(h))};
#else
  const DI32 di;
  const DF32 df;
  const auto a = hn::And(x, hn::Set(di, 0x7FFFFFFF));
  auto n = hn::Add(hn::Add(a, hn::Set(di, 0xFFF)), hn::And(hn::ShiftRight<13>(a), hn::Set(di, 1)));
  n = hn::And(n, hn::Set(di, ~0x1FFF));
  n = hn::IfThenElse(hn::Gt(n, hn::Set(di, 0x477FE000)), hn::Set(di, 0x7F800000), n);  // >= 2^16
  const auto half = hn::Set(df, 0.5f);
  const auto sub = hn::BitCast(di, hn::Sub(hn::Add(hn::BitCast(df, a), half), half));
  return hn::Or(hn::IfThenElse(hn::Lt(a, hn::Set(di, 0x38800000)), sub, n),
                hn::And(x, hn::Set(di, static_cast<int32_t>(0x80000000u))));
#endif
}

// A finite double V rounded to fp16 with RNE, as a double (+-Inf past the
// largest fp16): as RoundToHalf, on the binary64 bits (52 - 10 = 42 bits
// dropped) and with the addition at 2^28 (ulp 2^-24) below 2^-14.
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE V HalfOfDoubleT(DD dd, V x) {
  const hn::RebindToSigned<DD> d64;
  const auto ax = hn::Abs(x);
  const auto a = hn::BitCast(d64, ax);
  auto n = hn::Add(hn::Add(a, hn::Set(d64, (int64_t{1} << 41) - 1)), hn::And(hn::ShiftRight<42>(a), hn::Set(d64, 1)));
  auto r = hn::BitCast(dd, hn::And(n, hn::Set(d64, ~((int64_t{1} << 42) - 1))));
  r = hn::IfThenElse(hn::Ge(r, hn::Set(dd, 65536.0)), hn::Set(dd, HUGE_VAL), r);
  const auto big = hn::Set(dd, 0x1p28);
  r = hn::IfThenElse(hn::Lt(ax, hn::Set(dd, 0x1p-14)), hn::Sub(hn::Add(ax, big), big), r);
  return hn::CopySign(r, x);
}
template <class V>
HWY_INLINE V HalfOfDouble(V x) {
  return HalfOfDoubleT(hn::DFromV<V>(), x);
}

// ---------------------------------------------------------------- RD, RU

// bits = RNE(V) as fp32 bits (f its float; Inf or the largest float where a
// target's conversion saturates) turned into RD (rd) or RU: one step toward
// -Inf where f > V (RD), toward +Inf where f < V (RU); a step away from
// zero is +1 on the bits, toward zero -1 (the sign bit decides, so a zero
// of V's sign steps to the smallest subnormal). Overflow is the caller's.
template <class DD, class VD = hn::Vec<DD>, class D32 = hn::Rebind<int32_t, DD>, class V32 = hn::Vec<D32>,
          class VF = hn::Vec<hn::Rebind<float, DD>>>
HWY_INLINE V32 DirectedFixT(DD dd, bool rd, VD V, VF f, V32 bits) {
  const D32 d32;
  const auto F = hn::PromoteTo(dd, f);
  const auto fix = hn::DemoteTo(d32, hn::IfThenElseZero(rd ? hn::Gt(F, V) : hn::Lt(F, V), hn::Set(dd, 1.0)));
  const auto neg = hn::Lt(bits, hn::Zero(d32));  // sign bit
  // RD: away from zero for negative f; RU: for positive f.
  const auto away = rd ? neg : hn::Not(neg);
  return hn::Add(bits, hn::IfThenElse(away, fix, hn::Neg(fix)));
}
template <class VD, class VF, class V32>
HWY_INLINE V32 DirectedFix(bool rd, VD V, VF f, V32 bits) {
  return DirectedFixT(hn::DFromV<VD>(), rd, V, f, bits);
}

// ---------------------------------------------------------------- slow path

// The general kernel: one block on the lanes [v, v + Lanes) (B operands at
// lane offset v), c in and d out in c[0 .. Lanes) (fp32 bits).
HWY_NOINLINE void SlowBlock(const SimdParams& p, int len, const float* av, const float* af, const int32_t* ae,
                            const float* bv, const float* bf, const int32_t* be, std::size_t v, uint32_t* cio) {
  const DI32 di;
  const DF32 df;
  const std::size_t N = hn::Lanes(di);

  // Stage 1 (int32/float lanes): per lane E, the partial sums, the c term.
  HWY_ALIGN int32_t s01[kSimdLanes], s23[kSimdLanes], sc[kSimdLanes], ee[kSimdLanes], empty[kSimdLanes],
      cin[kSimdLanes];
  std::memcpy(cin, cio, N * sizeof(int32_t));
  const auto c = hn::Load(di, cin);
  const auto cbexp = hn::And(hn::ShiftRight<23>(c), hn::Set(di, 255));
  const auto czero = hn::Eq(hn::And(c, hn::Set(di, 0x7FFFFFFF)), hn::Zero(di));
  const auto e_c = hn::Sub(hn::Max(cbexp, hn::Set(di, 1)), hn::Set(di, 127));
  // c's alignment exponent: e_c, or for a subnormal fp16 c (sub_c = emin) -14.
  const auto e_c_align = p.sub_c_emin ? hn::Max(e_c, hn::Set(di, -14)) : e_c;

  // E = max(products, e_c if c != 0, floor); an empty block with c = 0 is +0.
  auto E = hn::Max(hn::IfThenElse(czero, hn::Set(di, kLowExp), e_c_align), hn::Set(di, p.floor));
  auto a = hn::Zero(di), b = hn::Zero(di);
  hn::Mask<DI32> none;
  ProductSum(di, p.frac, p.man2, len, av, af, ae, bv, bf, be, v, E, a, b, none);
  const auto is_empty = hn::And(none, czero);
  hn::Store(hn::VecFromMask(di, is_empty), di, empty);
  // An empty block or a NaN/Inf accumulator in some lane.
  const bool rare = !hn::AllFalse(di, hn::Or(is_empty, hn::Eq(cbexp, hn::Set(di, 255))));
  // c: |m_c| * 2^(F - (E - e_c)) from its significand (exact for any E).
  const auto csig = hn::Or(hn::And(c, hn::Set(di, 0x7FFFFF)),
                           hn::IfThenElseZero(hn::Ne(cbexp, hn::Zero(di)), hn::Set(di, 1 << 23)));
  const auto xc = hn::Max(hn::Add(hn::Sub(hn::Set(di, p.frac - 23 + 127), E), e_c), hn::Zero(di));
  auto tc = hn::ConvertTo(di, hn::Mul(hn::ConvertTo(df, csig), hn::BitCast(df, hn::ShiftLeft<23>(xc))));
  tc = hn::IfThenElse(hn::Lt(c, hn::Zero(di)), hn::Neg(tc), tc);
  hn::Store(a, di, s01);
  hn::Store(b, di, s23);
  hn::Store(tc, di, sc);
  hn::Store(E, di, ee);

  // Stage 2 (double lanes): exact sum, scale, round to fp32.
  const hn::ScalableTag<double> dd;
  const hn::Rebind<int32_t, decltype(dd)> d32;
  const hn::Rebind<float, decltype(dd)> dfh;
  const hn::Rebind<int64_t, decltype(dd)> d64;
  const std::size_t M = hn::Lanes(dd);
  for (std::size_t u = 0; u < N; u += M) {
    const auto S = hn::Add(hn::Add(hn::PromoteTo(dd, hn::Load(d32, s01 + u)), hn::PromoteTo(dd, hn::Load(d32, s23 + u))),
                           hn::PromoteTo(dd, hn::Load(d32, sc + u)));
    const auto ebits = hn::PromoteTo(d64, hn::Add(hn::Load(d32, ee + u), hn::Set(d32, 1023 - p.frac)));
    const auto V = hn::Mul(S, hn::BitCast(dd, hn::ShiftLeft<52>(ebits)));
    // fp16 results: rounded (and overflowed) in double, then exact in float.
    const auto W = p.out16 ? HalfOfDouble(V) : V;
    const auto f = hn::DemoteTo(dfh, W);  // round to nearest even
    auto bits = hn::BitCast(d32, f);
    const auto aV = hn::Abs(V);
    if (p.rz) {
      const auto up = hn::And(hn::Lt(aV, hn::Abs(hn::PromoteTo(dd, f))), hn::Lt(aV, hn::Set(dd, 0x1p128)));
      bits = hn::Sub(bits, hn::DemoteTo(d32, hn::IfThenElseZero(up, hn::Set(dd, 1.0))));
      bits = hn::And(bits, hn::Set(d32, p.frac_mask));
    } else if (p.rd || p.ru) {
      bits = DirectedFix(p.rd, V, f, bits);
    }
    // Overflow to +-Inf (some targets' conversions saturate instead): RZ
    // from 2^128 on, RNE from the midpoint above the largest float, RD/RU
    // from 2^128 on or past the largest float away from zero.
    auto overflow = p.out16 ? hn::Ge(hn::Abs(W), hn::Set(dd, 65536.0))
                            : hn::Ge(aV, hn::Set(dd, p.rz || p.rd || p.ru ? 0x1p128 : 0x1.ffffffp127));
    if (p.rd) overflow = hn::Or(overflow, hn::Lt(V, hn::Set(dd, -0x1.fffffep127)));
    if (p.ru) overflow = hn::Or(overflow, hn::Gt(V, hn::Set(dd, 0x1.fffffep127)));
    if (!hn::AllFalse(dd, overflow)) {
      const auto big = hn::DemoteTo(d32, hn::IfThenElseZero(overflow, hn::Set(dd, 1.0)));
      const auto inf = hn::Or(hn::And(bits, hn::Set(d32, static_cast<int32_t>(0x80000000u))), hn::Set(d32, 0x7F800000));
      bits = hn::IfThenElse(hn::Eq(big, hn::Set(d32, 1)), inf, bits);
    }
    if (rare) {
      bits = hn::AndNot(hn::Load(d32, empty + u), bits);  // empty block: +0
      // c = NaN gives the unit's NaN, c = +-Inf stays (no NaN/Inf inputs here).
      const auto cu = hn::Load(d32, cin + u);
      const auto c_nonfinite = hn::Eq(hn::And(cu, hn::Set(d32, 0x7F800000)), hn::Set(d32, 0x7F800000));
      const auto c_nan = hn::And(c_nonfinite, hn::Ne(hn::And(cu, hn::Set(d32, 0x7FFFFF)), hn::Zero(d32)));
      bits = hn::IfThenElse(c_nonfinite, hn::IfThenElse(c_nan, hn::Set(d32, p.nan32), cu), bits);
    }
    hn::StoreU(bits, d32, reinterpret_cast<int32_t*>(cio) + u);
  }
}

// ---------------------------------------------------------------- fast path


// |S| below which the fast path converts S without a range check: AVX-512
// converts any int32 with RZ natively; the emulation below needs |S| < 2^30.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
inline constexpr int64_t kSumLimit = int64_t{1} << 31;
#else
inline constexpr int64_t kSumLimit = int64_t{1} << 30;
#endif

// S (int32, |S| < kSumLimit) to the float of its top 24 significant bits,
// rounded toward zero (rz) or to nearest even.
HWY_INLINE VF32 RoundToFloat(VI32 s, bool rz) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  return rz ? VF32{_mm512_cvt_roundepi32_ps(s.raw, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)}
            : VF32{_mm512_cvt_roundepi32_ps(s.raw, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
#else
  const DI32 di;
  const DF32 df;
  if (!rz) return hn::ConvertTo(df, s);
  // RZ from RNE on the magnitude a < 2^30: where the conversion rounded up
  // (f > a, exactly comparable: f <= 2^30 is an integer), the float one ulp
  // below f, i.e. its bits - 1, is the truncation. Example, a = 2^25 - 1:
  //   a           = 1111111111111111111111111   (25 ones)
  //   f = RNE(a)  = 2^25                        (carries into a new binade)
  //   bits(f) - 1 = 1.11111111111111111111111 x 2^24 (24 ones)
  //               = 1111111111111111111111110   = RZ(a)
  const VI32 a = hn::Abs(s);
  const VF32 f = hn::ConvertTo(df, a);
  const VI32 mag = hn::Add(hn::BitCast(di, f), hn::VecFromMask(di, hn::Gt(TruncToI32(f), a)));
  return hn::BitCast(df, hn::Or(mag, hn::And(s, hn::Set(di, static_cast<int32_t>(0x80000000u)))));
#endif
}


// Per-run constants of the fast path.
struct FastConsts {
  int32_t e_lo;     // max(floor, F - 126): products' E clamped to [e_lo, e_hi]
  int32_t e_hi;     // hi + 1, hi = min(100, F + 96): the window's top
  int32_t f127;     // F + 127
  uint32_t x_top;   // (F + 254) << 23
  uint32_t w_lo;    // (F + 127 - hi) << 23: smallest scale field in the window
  uint32_t w_span;  // ((F + 127 - lo) << 23) - w_lo: largest minus smallest
  uint32_t w_span_wide;  // (252 << 23) - w_lo: the same for lo = F - 125
  bool check;       // |S| may reach kSumLimit
  bool mask;        // frac_mask clears bits (fewer than 23 result bits)
  // fp16 results: 1, read from here so that AVX-512 code takes it as a
  // broadcast operand instead of re-creating it in the loop.
  int32_t one = 1;
};

// The fast path's fp16 result: RNE_fp16(S * 2^(E-F)) as fp32 bits, +0 for
// S = 0: round24(S) to odd (RZ, the lowest bit set if inexact; the float
// is an integer below 2^31 in magnitude), scaled exactly by adding ebits =
// (E - F) << 23 to its exponent field, then RNE to fp16 (RoundToHalf).
// AVX-512 (the kernel is bound by instruction throughput there): the
// lowest bit set by a masked OR, the zero of S = 0 by the masked
// conversion back from fp16.
HWY_INLINE VI32 HalfOfSum(const FastConsts& q, VI32 S, VI32 ebits, hn::Mask<DI32> nonzero) {
  const DI32 di;
  const auto f = RoundToFloat(S, true);
  const auto inexact = hn::Ne(TruncToI32(f), S);
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  const __m512i x = _mm512_add_epi32(hn::BitCast(di, f).raw, ebits.raw);
  const __m512i odd = _mm512_mask_or_epi32(x, inexact.raw, x, _mm512_set1_epi32(q.one));
  const __m256i h = _mm512_cvtps_ph(_mm512_castsi512_ps(odd), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return VI32{_mm512_castps_si512(_mm512_maskz_cvtph_ps(nonzero.raw, h))};
#else
  const auto odd = hn::And(hn::VecFromMask(di, inexact), hn::Set(di, q.one));
  return hn::IfThenElseZero(nonzero, RoundToHalf(hn::Add(hn::Or(hn::BitCast(di, f), odd), ebits)));
#endif
}

// One block on one vector of lanes whose E lies in the window
//   F - 125 <= E <= hi = min(100, F + 96)
// (fp16 results with sub_c = emin: E >= -14 checked first, the alignment
// of a subnormal c at 2^-14 formed only where some lane is below)
// where everything is exact in float (per lane):
//   2^(F-E) in [2^(F-hi), 2^125]: the term scale, a normal float;
//   a product below 2^(E-F) (a float subnormal at worst, <= 2^-126) scales
//     to <= 2^-126 * 2^125 < 1 and truncates to 0, as the exact term does;
//   1 <= |S| < 2^31, 2^(E-F) >= 2^-125: d = round24(S) * 2^(E-F) is normal.
// Returns false, c untouched, where some lane is outside the window or
// (q.check) where |S| may not fit the conversion. len is kLen where kLen > 0;
// av/ae: A's block; bv/be: B's block at the lanes' offset.
//
// The block chain runs through c (c -> E -> scale -> terms -> S -> d = next
// c), so c's part is kept short: the scale's bits are formed from c's
// exponent field directly and the result's exponent is added as an integer.
template <int kLen, bool kOut16>
HWY_INLINE bool FastBlock(const SimdParams& p, const FastConsts& q, int len, const float* av, const int32_t* ae,
                          const float* bv, const int32_t* be, VI32& c) {
  const DI32 di;
  const DF32 df;
  const hn::RebindToUnsigned<DI32> du;

  // Products' E with the floor, clamped to [F - 126, hi + 1] (off the chain).
  auto Ep = hn::Set(di, q.e_lo);
  ForEach<kLen>(len, [&](int l) { Ep = hn::Max(Ep, hn::Add(hn::Set(di, ae[l]), hn::LoadU(di, be + l * kSimdLanes))); });
  Ep = hn::Min(Ep, hn::Set(di, q.e_hi));
  // 2^(F-E) as bits, E = max(e_c, Ep): the biased exponent F + 127 - E is
  // the smaller of the two candidates (unsigned, the field shifted up 23):
  //   c:        s eeeeeeee mmm...m    e_c = eeeeeeee - 127
  //   from c:   ((F + 254) << 23) - (c & 0x7F800000)   in [F-1, F+254] << 23
  //   products: (F + 127 - Ep) << 23                   in [F+126-hi, 253] << 23
  // A zero or subnormal c acts as e_c = -127 (true: none, or -126), an
  // Inf/NaN c as e_c = 128; either only matters outside the window. Inside
  // it, E is exactly max(e_c, e_a + e_b, floor).
  const auto c_field = hn::And(c, hn::Set(di, 0x7F800000));
  const auto from_c = hn::Sub(hn::Set(du, q.x_top), hn::BitCast(du, c_field));
  const auto from_p = hn::BitCast(du, hn::ShiftLeft<23>(hn::Sub(hn::Set(di, q.f127), Ep)));
  auto sb = hn::Min(from_c, from_p);
  // Window: F + 127 - E in [F + 127 - hi, F + 127 - lo] (lo: F - 125, or
  // -14 with fp16 results and sub_c = emin, FastConstsFor: there a
  // subnormal fp16 c, e_c <= -15 here, cannot decide E).
  const auto outside = [&](hn::Vec<decltype(du)> b, uint32_t span) {
    return !hn::AllFalse(du, hn::Gt(hn::Sub(b, hn::Set(du, q.w_lo)), hn::Set(du, span)));
  };
  if (HWY_UNLIKELY(outside(sb, q.w_span))) {
    if (!(kOut16 && p.sub_c_emin)) return false;
    // E below -14 in some lane: a subnormal fp16 c (the fp32 field below
    // 113 = -14 + 127, never 0 but for c = 0) aligns at 2^-14; the window
    // down to F - 125.
    const auto c_emin = hn::IfThenZeroElse(hn::Eq(c_field, hn::Zero(di)), hn::Max(c_field, hn::Set(di, 113 << 23)));
    sb = hn::Min(hn::Sub(hn::Set(du, q.x_top), hn::BitCast(du, c_emin)), from_p);
    if (outside(sb, q.w_span_wide)) return false;
  }

  const auto sbits = hn::BitCast(di, sb);
  const auto scale = hn::BitCast(df, sbits);
  // S = trunc(c * 2^(F-E)) + sum trunc(a_l b_l * 2^(F-E)), wrapping int32.
  auto S = TruncToI32(hn::Mul(hn::BitCast(df, c), scale));
  auto S1 = hn::Zero(di);
  ForEach<kLen>(len, [&](int l) {
    const auto t = TruncToI32(hn::Mul(hn::Mul(hn::Set(df, av[l]), hn::LoadU(df, bv + l * kSimdLanes)), scale));
    if (l & 1) S1 = hn::Add(S1, t);
    else S = hn::Add(S, t);
  });
  S = hn::Add(S, S1);
  // The caller guarantees |S| < 3 * 2^30 (true sum), so a wrapped sum never
  // lands in [-2^30, 2^30): S + 2^30 >= 0 (as int32) proves |S| < 2^30.
  if (q.check && !hn::AllFalse(di, hn::Lt(hn::Add(S, hn::Set(di, 1 << 30)), hn::Zero(di)))) return false;

  // d = round24(S) * 2^(E-F), the scaling as an add to the exponent field:
  //   round24(S), S != 0:  s eeeeeeee mmm...m   eeeeeeee in [127, 158]
  //   + (E - F) << 23 = (127 << 23) - sbits     eeeeeeee + E - F in [2, 254]
  // (E - F in [-125, 96]), so no carry leaves the field; S = 0 gives +0.
  const auto ebits = hn::Sub(hn::Set(di, 127 << 23), sbits);
  const auto nonzero = hn::Ne(S, hn::Zero(di));
  if constexpr (kOut16) {
    c = HalfOfSum(q, S, ebits, nonzero);
    return true;
  }
  const auto m = hn::BitCast(di, RoundToFloat(S, p.rz));
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  c = VI32{_mm512_maskz_add_epi32(nonzero.raw, m.raw, ebits.raw)};  // one op on the chain
#else
  c = hn::IfThenElseZero(nonzero, hn::Add(m, ebits));
#endif
  if (q.mask) c = hn::And(c, hn::Set(di, p.frac_mask));
  return true;
}

// One block of one row on one vector of lanes (B at lane offset v): the
// fast path, else the general kernel; c in a register.
template <int kLen, bool kOut16>
HWY_INLINE void AnyBlock(const SimdParams& p, const FastConsts& q, int len, const float* av, const float* af,
                         const int32_t* ae, const float* bv, const float* bf, const int32_t* be, std::size_t v,
                         VI32& c) {
  const bool done = kLen > 0 && len == kLen ? FastBlock<kLen, kOut16>(p, q, len, av, ae, bv + v, be + v, c)
                                             : FastBlock<0, kOut16>(p, q, len, av, ae, bv + v, be + v, c);
  if (done) return;
  const DI32 di;
  HWY_ALIGN uint32_t cl[kSimdLanes];
  hn::Store(c, di, reinterpret_cast<int32_t*>(cl));
  SlowBlock(p, len, av, af, ae, bv, bf, be, v, cl);
  c = hn::Load(di, reinterpret_cast<const int32_t*>(cl));
}

// Blocks on the fast path where they can be, c in registers throughout,
// for kRows A rows against the same lanes (row r's A at r*as, its
// accumulators at acc + 16*r). The rows' chains are independent: a step's
// blocks of both rows are done back to back, both c in registers, so the
// CPU overlaps one chain's latency with the other's work; a block that
// leaves the fast path does so for its own row only.
template <int kLen, bool kOut16, int kRows>
HWY_NOINLINE void FastRun(const SimdParams& p, const FastConsts& q, int steps, int step, int last_len, const float* av,
                          const float* af, const int32_t* ae, std::size_t as, const float* bv, const float* bf,
                          const int32_t* be, uint32_t* acc) {
  const DI32 di;
  const std::size_t N = hn::Lanes(di);
  int32_t* io = reinterpret_cast<int32_t*>(acc);
  for (std::size_t v = 0; v < kSimdLanes; v += N) {
    auto c0 = hn::LoadU(di, io + v);
    auto c1 = kRows > 1 ? hn::LoadU(di, io + kSimdLanes + v) : c0;
    for (int s = 0; s < steps; ++s) {
      const int len = s + 1 == steps ? last_len : step;
      const std::size_t a = static_cast<std::size_t>(s) * step, b = a * kSimdLanes;
      AnyBlock<kLen, kOut16>(p, q, len, av + a, af + a, ae + a, bv + b, bf + b, be + b, v, c0);
      if constexpr (kRows > 1) {
        const std::size_t a1 = as + a;
        AnyBlock<kLen, kOut16>(p, q, len, av + a1, af + a1, ae + a1, bv + b, bf + b, be + b, v, c1);
      }
    }
    hn::StoreU(c0, di, io + v);
    if constexpr (kRows > 1) hn::StoreU(c1, di, io + kSimdLanes + v);
  }
}

template <int kLen, bool kOut16>
HWY_INLINE void FastRows(const SimdParams& p, const FastConsts& q, int steps, int step, int last_len, const float* av,
                         const float* af, const int32_t* ae, int rows, std::size_t as, const float* bv,
                         const float* bf, const int32_t* be, uint32_t* acc) {
  if (rows == 2) return FastRun<kLen, kOut16, 2>(p, q, steps, step, last_len, av, af, ae, as, bv, bf, be, acc);
  FastRun<kLen, kOut16, 1>(p, q, steps, step, last_len, av, af, ae, as, bv, bf, be, acc);
}

// `steps` consecutive blocks of `step` elements (the last one `last_len`)
// for `rows` A rows (row r at r*as); acc as fp32 bits (fp16 results: of the
// fp16 values), row r's at acc + 16*r.
// The fast path's constants for blocks of `step` products, or false where
// it cannot serve them: block sums that may pass 3 * 2^30 (32-element
// blocks with F = 25, and F = 26), and RD/RU.
inline bool FastConstsFor(const SimdParams& p, int step, FastConsts& q) {
  // |S| < step * 2^(F+2) + 2^(F+1): each term < 2^(F+2) (|m_a m_b| <
  // 2^(man2+2), E >= e_p), the c term < 2^(F+1) (|m_c| < 2^24, E >= e_c).
  const int64_t bound = (int64_t{step} << (p.frac + 2)) + (int64_t{1} << (p.frac + 1));
  if (bound > 3 * (int64_t{1} << 30) || p.rd || p.ru) return false;
  const int32_t hi = HWY_MIN(100, p.frac + 96);
  q.e_lo = HWY_MAX(p.floor, p.frac - 126);
  q.e_hi = hi + 1;
  q.f127 = p.frac + 127;
  q.x_top = static_cast<uint32_t>(p.frac + 254) << 23;
  q.w_lo = static_cast<uint32_t>(p.frac + 127 - hi) << 23;
  // E's lowest value in the window: F - 125; with fp16 results and sub_c =
  // emin first -14, so that a subnormal fp16 c (aligned at 2^-14,
  // docs/models.md §2.4, its own exponent below) cannot decide E: where E
  // >= -14 it is the products' E either way. A block whose E would be
  // lower aligns such a c at 2^-14 and is checked against the window down
  // to F - 125 (w_span_wide).
  const int32_t lo = p.sub_c_emin ? HWY_MAX(p.frac - 125, -14) : p.frac - 125;
  q.w_span = (static_cast<uint32_t>(p.frac + 127 - lo) << 23) - q.w_lo;
  q.w_span_wide = (252u << 23) - q.w_lo;
  q.check = bound > kSumLimit;
  q.mask = p.rz && p.frac_mask != -1;
  return true;
}

template <bool kOut16>
void AlignedRun(const SimdParams& p, int steps, int step, int last_len, const float* av, const float* af,
                const int32_t* ae, int rows, std::size_t as, const float* bv, const float* bf, const int32_t* be,
                uint32_t* acc) {
  FastConsts q;
  if (FastConstsFor(p, step, q)) {
    switch (step) {
      case 4: return FastRows<4, kOut16>(p, q, steps, step, last_len, av, af, ae, rows, as, bv, bf, be, acc);
      case 8: return FastRows<8, kOut16>(p, q, steps, step, last_len, av, af, ae, rows, as, bv, bf, be, acc);
      case 16: return FastRows<16, kOut16>(p, q, steps, step, last_len, av, af, ae, rows, as, bv, bf, be, acc);
      default: return FastRows<0, kOut16>(p, q, steps, step, last_len, av, af, ae, rows, as, bv, bf, be, acc);
    }
  }
  // Block sums that may pass 3 * 2^30 (32-element blocks with F = 25, and
  // F = 26), and RD/RU: the general path throughout, row after row.
  const std::size_t N = hn::Lanes(DI32());
  for (int r = 0; r < rows; ++r) {
    const std::size_t o = static_cast<std::size_t>(r) * as;
    for (std::size_t v = 0; v < kSimdLanes; v += N)
      RunBlocks(steps, step, last_len, [&](int len, std::size_t a, std::size_t b) {
        SlowBlock(p, len, av + o + a, af + o + a, ae + o + a, bv + b, bf + b, be + b, v, acc + r * kSimdLanes + v);
        return true;
      });
  }
}

// ---------------------------------------------------------------- interleaved HMMA fp8

// c + t, the late addition of the interleaved path: fp32 results, host
// arithmetic (RNE; NaN bits are the host's, the epilogue stores the unit's);
// fp16 results (both the fp32 bits of fp16 values), the exact sum in
// binary64 (two fp16 values: at most 40 significant bits) rounded once to
// fp16 with RNE (overflow to Inf; Inf + -Inf and NaN give a NaN, which the
// run's end turns into the unit's; x + (-x) = +0, -0 + -0 = -0).
template <bool kOut16>
HWY_INLINE VI32 LateAdd(VI32 c, VI32 t) {
  const DI32 di;
  const DF32 df;
  if constexpr (!kOut16) {
    return hn::BitCast(di, hn::Add(hn::BitCast(df, c), hn::BitCast(df, t)));
  } else {
#if HWY_TARGET == HWY_SCALAR
    // One lane; the cast keeps an Inf (Highway's scalar DemoteTo saturates it).
    const hn::Rebind<double, DF32> dd;
    const double w = hn::GetLane(
        HalfOfDouble(hn::Add(hn::PromoteTo(dd, hn::BitCast(df, c)), hn::PromoteTo(dd, hn::BitCast(df, t)))));
    return hn::Set(di, std::bit_cast<int32_t>(static_cast<float>(w)));
#else
    const hn::Half<DF32> dfh;
    const hn::Rebind<double, decltype(dfh)> dd;
    auto half = [&](hn::Vec<decltype(dfh)> x, hn::Vec<decltype(dfh)> y) {
      return hn::DemoteTo(dfh, HalfOfDouble(hn::Add(hn::PromoteTo(dd, x), hn::PromoteTo(dd, y))));
    };
    const auto fc = hn::BitCast(df, c), ft = hn::BitCast(df, t);
    const auto lo = half(hn::LowerHalf(dfh, fc), hn::LowerHalf(dfh, ft));
    const auto hi = half(hn::UpperHalf(dfh, fc), hn::UpperHalf(dfh, ft));
    return hn::BitCast(di, hn::Combine(df, hi, lo));
#endif
  }
}

// One instruction of k = step per row (its two groups of `half` contiguous:
// the packing's order), c in registers: each group an aligned block, the
// first from +0 and the second from the first's result, then c + t.
// kRows A rows as FastRun.
template <int kLen, bool kOut16, int kRows>
HWY_NOINLINE void InterleavedRun(const SimdParams& p, const FastConsts& q, int steps, int step, const float* av,
                                 const float* af, const int32_t* ae, std::size_t as, const float* bv, const float* bf,
                                 const int32_t* be, uint32_t* acc) {
  const DI32 di;
  const std::size_t N = hn::Lanes(di), half = static_cast<std::size_t>(step) / 2;
  const int len = static_cast<int>(half);
  int32_t* io = reinterpret_cast<int32_t*>(acc);
  for (std::size_t v = 0; v < kSimdLanes; v += N) {
    auto c0 = hn::LoadU(di, io + v);
    auto c1 = kRows > 1 ? hn::LoadU(di, io + kSimdLanes + v) : c0;
    for (int s = 0; s < steps; ++s) {
      auto t0 = hn::Zero(di), t1 = hn::Zero(di);
      for (std::size_t g = 0; g < 2; ++g) {
        const std::size_t a = static_cast<std::size_t>(s) * static_cast<std::size_t>(step) + g * half,
                          b = a * kSimdLanes;
        AnyBlock<kLen, kOut16>(p, q, len, av + a, af + a, ae + a, bv + b, bf + b, be + b, v, t0);
        if constexpr (kRows > 1) {
          const std::size_t a1 = as + a;
          AnyBlock<kLen, kOut16>(p, q, len, av + a1, af + a1, ae + a1, bv + b, bf + b, be + b, v, t1);
        }
      }
      c0 = LateAdd<kOut16>(c0, t0);
      if constexpr (kRows > 1) c1 = LateAdd<kOut16>(c1, t1);
    }
    hn::StoreU(c0, di, io + v);
    if constexpr (kRows > 1) hn::StoreU(c1, di, io + kSimdLanes + v);
  }
}

template <bool kOut16>
void InterleavedRows(const SimdParams& p, int steps, int step, const float* av, const float* af, const int32_t* ae,
                     int rows, std::size_t as, const float* bv, const float* bf, const int32_t* be, uint32_t* acc) {
  const int half = step / 2;
  FastConsts q;
  if (FastConstsFor(p, half, q)) {
    if (half == 16)
      return rows == 2 ? InterleavedRun<16, kOut16, 2>(p, q, steps, step, av, af, ae, as, bv, bf, be, acc)
                       : InterleavedRun<16, kOut16, 1>(p, q, steps, step, av, af, ae, as, bv, bf, be, acc);
    return rows == 2 ? InterleavedRun<0, kOut16, 2>(p, q, steps, step, av, af, ae, as, bv, bf, be, acc)
                     : InterleavedRun<0, kOut16, 1>(p, q, steps, step, av, af, ae, as, bv, bf, be, acc);
  }
  // The general kernel throughout, row after row.
  const DI32 di;
  const std::size_t N = hn::Lanes(di), hs = static_cast<std::size_t>(half);
  for (int r = 0; r < rows; ++r) {
    const std::size_t o = static_cast<std::size_t>(r) * as;
    int32_t* io = reinterpret_cast<int32_t*>(acc + static_cast<std::size_t>(r) * kSimdLanes);
    for (std::size_t v = 0; v < kSimdLanes; v += N)
      for (int s = 0; s < steps; ++s) {
        HWY_ALIGN uint32_t t[kSimdLanes] = {};
        for (std::size_t g = 0; g < 2; ++g) {
          const std::size_t a = static_cast<std::size_t>(s) * static_cast<std::size_t>(step) + g * hs,
                            b = a * kSimdLanes;
          SlowBlock(p, half, av + o + a, af + o + a, ae + o + a, bv + b, bf + b, be + b, v, t);
        }
        hn::StoreU(LateAdd<kOut16>(hn::LoadU(di, io + v), hn::Load(di, reinterpret_cast<const int32_t*>(t))), di,
                   io + v);
      }
  }
}

// ---------------------------------------------------------------- the runs

// run(acc) on the run's accumulators: with fp16 results, held as the fp32
// bits of their values inside the run and converted at its two ends.
template <class Run>
HWY_INLINE void WithRunAccumulators(const SimdParams& p, int rows, uint32_t* acc, Run&& run) {
  if (!p.out16) return run(acc);
  const DI32 di;
  const std::size_t N = hn::Lanes(di), lanes = static_cast<std::size_t>(rows) * kSimdLanes;
  HWY_ALIGN uint32_t c32[kMaxRows * kSimdLanes];
  int32_t* io = reinterpret_cast<int32_t*>(acc);
  for (std::size_t v = 0; v < lanes; v += N)
    hn::Store(SingleOfHalf(hn::LoadU(di, io + v)), di, reinterpret_cast<int32_t*>(c32) + v);
  run(c32);
  for (std::size_t v = 0; v < lanes; v += N)
    hn::StoreU(HalfOfSingle(hn::Load(di, reinterpret_cast<const int32_t*>(c32) + v), p.nan16), di, io + v);
}

void AlignedRun16(const SimdParams& p, int steps, int step, int last_len, const float* av, const float* af,
                  const int32_t* ae, int rows, std::size_t as, const float* bv, const float* bf, const int32_t* be,
                  uint32_t* acc) {
  WithRunAccumulators(p, rows, acc, [&](uint32_t* c) {
    if (p.out16) AlignedRun<true>(p, steps, step, last_len, av, af, ae, rows, as, bv, bf, be, c);
    else AlignedRun<false>(p, steps, step, last_len, av, af, ae, rows, as, bv, bf, be, c);
  });
}

void InterleavedRun16(const SimdParams& p, int steps, int step, const float* av, const float* af, const int32_t* ae,
                      int rows, std::size_t as, const float* bv, const float* bf, const int32_t* be, uint32_t* acc) {
  WithRunAccumulators(p, rows, acc, [&](uint32_t* c) {
    if (p.out16) InterleavedRows<true>(p, steps, step, av, af, ae, rows, as, bv, bf, be, c);
    else InterleavedRows<false>(p, steps, step, av, af, ae, rows, as, bv, bf, be, c);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace kernels {

HWY_EXPORT(AlignedRun16);

int simd_aligned_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc) {
  check_rows(a);
  HWY_DYNAMIC_DISPATCH(AlignedRun16)(p, run.steps, run.step, run.last_len, a.val, a.sig, a.exp, a.rows, a.stride,
                                     b.val, b.sig, b.exp, acc);
  return run.steps;
}

HWY_EXPORT(InterleavedRun16);

int simd_interleaved_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc) {
  check_rows(a);
  HWY_DYNAMIC_DISPATCH(InterleavedRun16)(p, run.steps, run.step, a.val, a.sig, a.exp, a.rows, a.stride, b.val, b.sig,
                                         b.exp, acc);
  return run.steps;
}

const char* simd_target_name() {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  return targets.empty() ? "none" : hwy::TargetName(targets.front());  // best first
}

}  // namespace kernels
}  // namespace mmaemu
#endif  // HWY_ONCE
