// SPDX-License-Identifier: BSD-3-Clause
// The aligned product sum of one block for 16 lanes, shared by the SIMD
// kernels (re-included once per Highway target; toggle guard).
//
//   E = max(seed, e_a + e_b over nonzero products)
//   S = sum trunc(|a b| * 2^(F - E)) (sign-magnitude), as int32 partials
//
// t = trunc(a*b * 2^(F-E)) is computed in float: with -100 <= E <= 100
// every product that can reach the window is an exact normal float and
// so is 2^(F-E); otherwise from the integer significands with the scale
// 2^(F - 2man - E + e_p) built per product (clamped to 0 below the float
// range, where the term is < 1). cvttps2dq truncates toward zero.
#if defined(MMAEMU_PRODUCT_SUM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MMAEMU_PRODUCT_SUM_INL_H_
#undef MMAEMU_PRODUCT_SUM_INL_H_
#else
#define MMAEMU_PRODUCT_SUM_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline constexpr int32_t kLowExp = -(1 << 30);

// Lane types and conversions the kernels share.
using DI32 = hn::ScalableTag<int32_t>;
using DF32 = hn::Rebind<float, DI32>;
using VI32 = hn::Vec<DI32>;
using VF32 = hn::Vec<DF32>;

// Truncation toward zero of floats inside the int32 range (never NaN): the
// bare cvttps2dq, without the saturation fix-up hn::ConvertTo adds.
HWY_INLINE VI32 TruncToI32(VF32 x) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  return VI32{_mm512_cvttps_epi32(x.raw)};
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
  return VI32{_mm256_cvttps_epi32(x.raw)};
#elif HWY_ARCH_X86 && (HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3)
  return VI32{_mm_cvttps_epi32(x.raw)};
#else
  return hn::ConvertTo(DI32(), x);
#endif
}

// floor(x) as int32 for x inside the int32 range.
HWY_INLINE VI32 FloorToI32(VF32 x) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  return VI32{_mm512_cvt_roundps_epi32(x.raw, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)};
#else
  return TruncToI32(hn::Floor(x));
#endif
}

// f(l) for l = 0 .. len-1; fully unrolled where the length is a constant.
template <int kLen, class Fn>
HWY_INLINE void ForEach(int len, Fn&& f) {
  if constexpr (kLen > 0) {
    HWY_UNROLL(32)
    for (int l = 0; l < kLen; ++l) f(l);
  } else {
    for (int l = 0; l < len; ++l) f(l);
  }
}


// Lanes [v, v + Lanes) of one block, products first, first + stride, ...
// below len (stride 2: the odd/even groups of CDNA3 fp8). `E` holds the
// seed on entry and the alignment exponent on return. `none` is set where no
// product is nonzero. Returns two partial sums (products 0,1 mod 4 and 2,3
// mod 4; each < 2^30 for blocks of up to 32 products and F <= 25).
template <class DI, class V = hn::Vec<DI>>
HWY_INLINE void ProductSum(DI di, int F, int man2, int len, const float* av, const float* af, const int32_t* ae,
                           const float* bv, const float* bf, const int32_t* be, std::size_t v, V& E, V& s01,
                           V& s23, hn::Mask<DI>& none, int first = 0, int stride = 1) {
  const hn::Rebind<float, DI> df;
  auto Ep = hn::Set(di, kLowExp);
  for (int l = first; l < len; l += stride)
    Ep = hn::Max(Ep, hn::Add(hn::Set(di, ae[l]), hn::LoadU(di, be + l * kSimdLanes + v)));
  none = hn::Lt(Ep, hn::Set(di, kNoExp));
  E = hn::Max(E, Ep);

  auto s0 = hn::Zero(di), s1 = hn::Zero(di), s2 = hn::Zero(di), s3 = hn::Zero(di);
  auto add = [&](int l, V t) {
    switch (l & 3) {
      case 0: s0 = hn::Add(s0, t); break;
      case 1: s1 = hn::Add(s1, t); break;
      case 2: s2 = hn::Add(s2, t); break;
      default: s3 = hn::Add(s3, t); break;
    }
  };
  const auto in_window = hn::And(hn::Gt(E, hn::Set(di, -101)), hn::Lt(E, hn::Set(di, 101)));
  if (hn::AllTrue(di, in_window)) {
    const auto scale = hn::BitCast(df, hn::ShiftLeft<23>(hn::Sub(hn::Set(di, F + 127), E)));
    for (int l = first; l < len; l += stride) {
      const auto prod = hn::Mul(hn::Set(df, av[l]), hn::LoadU(df, bv + l * kSimdLanes + v));
      add(l, hn::ConvertTo(di, hn::Mul(prod, scale)));
    }
  } else {
    const auto base = hn::Sub(hn::Set(di, F - man2 + 127), E);
    for (int l = first; l < len; l += stride) {
      const auto ep = hn::Add(hn::Set(di, ae[l]), hn::LoadU(di, be + l * kSimdLanes + v));
      const auto x = hn::Max(hn::Add(ep, base), hn::Zero(di));
      const auto ms = hn::Mul(hn::Set(df, af[l]), hn::LoadU(df, bf + l * kSimdLanes + v));
      add(l, hn::ConvertTo(di, hn::Mul(ms, hn::BitCast(df, hn::ShiftLeft<23>(x)))));
    }
  }
  s01 = hn::Add(s0, s1);
  s23 = hn::Add(s2, s3);
}

// Calls f(len, a_offset, b_offset) for blocks s = 0..steps-1 of `step`
// elements (the last one `last_len`), A contiguous and B lane-interleaved;
// stops when f returns false. Returns the number of blocks done.
template <class F>
HWY_INLINE int RunBlocks(int steps, int step, int last_len, F&& f) {
  for (int s = 0; s < steps; ++s) {
    const std::size_t a = static_cast<std::size_t>(s) * step;
    if (!f(s + 1 == steps ? last_len : step, a, a * kSimdLanes)) return s;
  }
  return steps;
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#endif  // MMAEMU_PRODUCT_SUM_INL_H_ toggle
