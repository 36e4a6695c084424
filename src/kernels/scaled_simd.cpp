// SPDX-License-Identifier: BSD-3-Clause
// SIMD kernels of the block-scaled units: T-FDPA, ST-FDPA and GST-FDPA
// (docs/block-scaled.md §3; the reference is src/ref/block_scaled.cpp),
// 16 output columns at a time. Every operation below is exact except the
// one final rounding, so the bits are the reference's.
//
// T / ST (§3.2, §3.3). A product term is (sign, A*B, lsb_a + lsb_b + es,
// e_a + e_b + es) and its truncated value in units of 2^(E-F) is
//
//   t_i = floor(A*B * 2^(lsb_a + lsb_b + es - (E - F)))  (magnitude; sign kept)
//       = trunc(v_i * 2^(F - E + es)),   v_i = a_i * b_i  (the elements' values)
//
// v_i has at most 8 significant bits and lies in [2^-32, 2^32): exact in
// fp32, and so is v_i * 2^(F-E+es) (a power of two; it is >= 2^-92), and
// the truncating conversion to int32 is the per-term floor of §3.1. As
// E >= e_a + e_b + es and A*B < 4 * 2^(m_a + m_b) (§3.5):
//
//      2^(E+2)  2^E                        2^(E-F)
//        |  x  x | x x x x x x  ...  x x x |  . . .  dropped: no guard, no sticky
//        <---------- t_i < 2^(F+2) = 2^27 -->
//
// so 16 terms sum below 2^31: two int32 sums (even and odd i) are exact.
// c's term t_c = trunc(c * 2^(F-E)) < 2^(F+1) is formed in binary64, and
// S = even + odd + t_c is an exact binary64 integer below 2^33. The factor
// exponent F - E + es is clamped to [-60, 60]: it is at most F + 28 when a
// product is nonzero (e_a + e_b >= -28), and below -60 every product is
// under 2^32 * 2^-60 < 1, truncated to 0 either way.
//
// GST (§3.4). The group sums Q_g = sum of (2a)(2b) over 16 products are
// integers, |Q_g| <= 2304: exact in fp32 in any order. The group's term is
//
//   t_g = floor(|Q_g| SA SB 2^(eSA + eSB - fSA - fSB - 2 - (E - F)))
//       = trunc(Q_g * sA * sB * 2^(F - 2 - E)),   sX = the scale's value,
//
// in binary64 with every product exact (sA*sB: at most 8 significant bits
// within [2^-254, 2^254]; times 2^(F-2-E) it stays above 2^-475; times Q_g
// at most 20 bits), and |t_g| < 2^46 as E >= eSA + eSB for a group that has
// a nonzero product (nz masks) and nonzero scales. S = sum t_g + t_c < 2^48.
// E = max(e_zero, those groups' eSA + eSB, e_c): e_zero as a floor is the
// §3.1 simplification.
//
// Final rounding of x = S * 2^(E-F), exact in binary64, to fp32 (§3.1):
//   RNE: |x| >= 2^128 - 2^103 gives +-Inf, else the conversion (one RNE).
//   RZ:  |x| >= 2^128 gives +-Inf (overflow even under RZ, §2.2); in the
//        normal range clear the 29 fraction bits fp32 does not have,
//          binary64: s eeeeeeeeeee fffffffffffffffffffffff|fffff...fffff
//                                  <----- 23 kept ------->|<-29 cleared->
//        below 2^-126 truncate to a multiple of 2^-149; the conversion is
//        then exact. A zero keeps its sign; S = 0 is +0 (sums from +0).
// A NaN c gives 0x7FFFFFFF and an infinite c itself (the driver sends
// steps with NaN/Inf elements or NaN scales to the reference).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/scaled_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/scaled_simd.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t L = kScaledLanes;
constexpr int32_t kNoTerm = 2 * kScaledZeroExp;

// The binary64 half: as many lanes as a double vector has.
using DD = hn::ScalableTag<double>;
using DFH = hn::Rebind<float, DD>;
using DIH = hn::Rebind<int32_t, DD>;
using DI64 = hn::RebindToSigned<DD>;
using VD = hn::Vec<DD>;
using VIH = hn::Vec<DIH>;

// 2^e for e in binary64's normal range.
HWY_INLINE VD Pow2(VIH e) {
  const DD dd;
  const DIH di;
  return hn::BitCast(dd, hn::ShiftLeft<52>(hn::PromoteTo(DI64(), hn::Add(e, hn::Set(di, 1023)))));
}

// x (exact) rounded once to fp32, returned as fp32 bits. An overflow is
// set in the bits (some targets' conversions saturate an infinity).
HWY_INLINE VIH RoundToFp32(bool rne, VD x) {
  const DD dd;
  const DIH di;
  const VD ax = hn::Abs(x);
  VD y = x;
  auto overflow = hn::Ge(ax, hn::Set(dd, 0x1p128 - 0x1p103));
  if (!rne) {
    const VD normal = hn::BitCast(dd, hn::And(hn::BitCast(DI64(), x), hn::Set(DI64(), ~int64_t{0x1FFFFFFF})));
    const VD tiny = hn::Mul(hn::Trunc(hn::Mul(x, hn::Set(dd, 0x1p149))), hn::Set(dd, 0x1p-149));
    y = hn::IfThenElse(hn::Lt(ax, hn::Set(dd, 0x1p-126)), tiny, normal);
    overflow = hn::Ge(ax, hn::Set(dd, 0x1p128));
  }
  y = hn::IfThenElse(overflow, hn::CopySign(hn::Set(dd, 1.0), x), y);
  const VIH bits = hn::BitCast(di, hn::DemoteTo(DFH(), y));
  const VIH over = hn::BitCast(di, hn::DemoteTo(DFH(), hn::IfThenElseZero(overflow, hn::Set(dd, 1.0))));
  const VIH inf = hn::Or(hn::And(bits, hn::Set(di, int32_t(0x80000000u))), hn::Set(di, 0x7F800000));
  return hn::IfThenElse(hn::Eq(over, hn::Set(di, 0x3F800000)), inf, bits);
}

// c's term, the sum S = P + t_c and its rounding for the lanes at acc
// (c in, d out); P: the other terms' exact sum, E: the lanes' E.
HWY_INLINE void Finish(const SimdParams& p, VIH E, VD P, uint32_t* acc) {
  const DD dd;
  const DIH di;
  int32_t* bits = reinterpret_cast<int32_t*>(acc);
  const VIH cb = hn::LoadU(di, bits), cabs = hn::And(cb, hn::Set(di, 0x7FFFFFFF));
  const auto special = hn::Gt(cabs, hn::Set(di, 0x7F7FFFFF));  // NaN or Inf
  const VD c = hn::PromoteTo(dd, hn::BitCast(DFH(), hn::IfThenZeroElse(special, cb)));
  const VIH F = hn::Set(di, p.frac);
  const VD S = hn::Add(P, hn::Trunc(hn::Mul(c, Pow2(hn::Sub(F, E)))));
  VIH d = RoundToFp32(!p.rz, hn::Mul(S, Pow2(hn::Sub(E, F))));
  const VIH nan_or_c = hn::IfThenElse(hn::Gt(cabs, hn::Set(di, 0x7F800000)), hn::Set(di, 0x7FFFFFFF), cb);
  hn::StoreU(hn::IfThenElse(special, nan_or_c, d), di, bits);
}

// trunc(v) as int32 for |v| < 2^31 (here < 2^27): the x86 conversion
// itself, without the saturation fix-up ConvertTo adds for larger values.
template <class DI, class VF>
HWY_INLINE hn::Vec<DI> TruncToInt(DI di, VF v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  (void)di;
  return hn::Vec<DI>{_mm512_cvttps_epi32(v.raw)};
#elif HWY_ARCH_X86 && HWY_TARGET == HWY_AVX2
  (void)di;
  return hn::Vec<DI>{_mm256_cvttps_epi32(v.raw)};
#elif HWY_ARCH_X86 && (HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SSSE3)
  (void)di;
  return hn::Vec<DI>{_mm_cvttps_epi32(v.raw)};
#else
  return hn::ConvertTo(di, v);
#endif
}

// E's candidates from c: e_c for a finite nonzero c, else kNoTerm.
template <class DI>
HWY_INLINE hn::Vec<DI> CExponent(DI di, const uint32_t* acc) {
  const auto cabs = hn::And(hn::LoadU(di, reinterpret_cast<const int32_t*>(acc)), hn::Set(di, 0x7FFFFFFF));
  const auto ec = hn::Sub(hn::Max(hn::ShiftRight<23>(cabs), hn::Set(di, 1)), hn::Set(di, 127));  // -126 for subnormals
  const auto ok = hn::And(hn::Gt(cabs, hn::Zero(di)), hn::Lt(cabs, hn::Set(di, 0x7F800000)));
  return hn::IfThenElse(ok, ec, hn::Set(di, kNoTerm));
}

// M[v] = the largest e_a + e_b over the step's k products, for the lanes
// of vector v (StLanePanel's layout: exponents in pairs). The sums are
// int16 (>= 2 * kScaledZeroExp), two products per int32 lane.
template <class DI>
HWY_INLINE void MaxProductExp(DI di, int k, const int16_t* HWY_RESTRICT ae, const int16_t* HWY_RESTRICT be,
                              hn::Vec<DI>* M) {
  constexpr std::size_t N = hn::MaxLanes(di), NV = L / N;
#if HWY_TARGET == HWY_SCALAR
  for (std::size_t v = 0; v < NV; ++v) {
    int32_t m = kNoTerm;
    for (int i = 0; i < k; ++i) m = std::max(m, ae[i] + be[(i / 2) * 2 * L + 2 * v + i % 2]);
    M[v] = hn::Set(di, m);
  }
#else
  const hn::Repartition<int16_t, DI> dw;
  using VW = hn::Vec<decltype(dw)>;
  VW W[NV], W1[NV];
  for (std::size_t v = 0; v < NV; ++v) W[v] = W1[v] = hn::Set(dw, int16_t{kNoTerm});
  for (int i = 0; i < k; i += 4) {  // pairs (i, i+1) and (i+2, i+3): two independent maxima
    int32_t pa0, pa1 = 0;
    std::memcpy(&pa0, ae + i, 4);
    if (i + 2 < k) std::memcpy(&pa1, ae + i + 2, 4);
    const VW ea0 = hn::BitCast(dw, hn::Set(di, pa0)), ea1 = hn::BitCast(dw, hn::Set(di, pa1));
    for (std::size_t v = 0; v < NV; ++v) {
      W[v] = hn::Max(W[v], hn::Add(ea0, hn::LoadU(dw, be + i * L + 2 * v * N)));
      if (i + 2 < k) W1[v] = hn::Max(W1[v], hn::Add(ea1, hn::LoadU(dw, be + (i + 2) * L + 2 * v * N)));
    }
  }
  for (std::size_t v = 0; v < NV; ++v) {
    const hn::Vec<DI> w = hn::BitCast(di, hn::Max(W[v], W1[v]));
    M[v] = hn::Max(hn::ShiftRight<16>(w), hn::ShiftRight<16>(hn::ShiftLeft<16>(w)));  // the pair's larger
  }
#endif
}

void StRun16(const SimdParams& p, int k, int steps, const float* HWY_RESTRICT aval, const int16_t* HWY_RESTRICT aexp,
             const int32_t* HWY_RESTRICT ascale, const float* HWY_RESTRICT bval, const int16_t* HWY_RESTRICT bexp,
             const int32_t* HWY_RESTRICT bscale, uint32_t* HWY_RESTRICT acc) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  using VF = hn::Vec<decltype(df)>;
  using VI = hn::Vec<decltype(di)>;
  constexpr std::size_t N = hn::MaxLanes(df), NV = L / N, ND = hn::MaxLanes(DD());
  HWY_ALIGN int32_t even[L], odd[L], Ebuf[L];
  for (int s = 0; s < steps; ++s) {
    const std::size_t l0 = static_cast<std::size_t>(s) * k;
    const float* av = aval + l0;
    const int16_t* ae = aexp + l0;
    const float* bv = bval + l0 * L;
    const int16_t* be = bexp + l0 * L;
    // E: the largest product exponent, the scales, c and the floor.
    VI M[NV];
    MaxProductExp(di, k, ae, be, M);
    VF f[NV];
    for (std::size_t v = 0; v < NV; ++v) {
      const VI es = hn::Add(hn::Set(di, ascale[s]), hn::LoadU(di, bscale + s * L + v * N));
      VI E = hn::Max(hn::Set(di, p.floor), hn::Add(M[v], es));
      E = hn::Max(E, CExponent(di, acc + v * N));
      hn::StoreU(E, di, Ebuf + v * N);
      const VI fe = hn::Min(hn::Max(hn::Add(hn::Sub(hn::Set(di, p.frac), E), es), hn::Set(di, -60)), hn::Set(di, 60));
      f[v] = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(fe, hn::Set(di, 127))));
    }
    // The truncated product terms, summed exactly in two int32 halves.
    VI s0[NV], s1[NV];
    for (std::size_t v = 0; v < NV; ++v) s0[v] = s1[v] = hn::Zero(di);
    for (int i = 0; i < k; i += 2) {
      const VF a0 = hn::Set(df, av[i]), a1 = hn::Set(df, av[i + 1]);
      for (std::size_t v = 0; v < NV; ++v) {
        const VF p0 = hn::Mul(hn::Mul(a0, hn::LoadU(df, bv + i * L + v * N)), f[v]);
        const VF p1 = hn::Mul(hn::Mul(a1, hn::LoadU(df, bv + (i + 1) * L + v * N)), f[v]);
        s0[v] = hn::Add(s0[v], TruncToInt(di, p0));
        s1[v] = hn::Add(s1[v], TruncToInt(di, p1));
      }
    }
    for (std::size_t v = 0; v < NV; ++v) {
      hn::StoreU(s0[v], di, even + v * N);
      hn::StoreU(s1[v], di, odd + v * N);
    }
    for (std::size_t j = 0; j < L; j += ND) {
      const DIH dih;
      const VD P = hn::Add(hn::PromoteTo(DD(), hn::LoadU(dih, even + j)), hn::PromoteTo(DD(), hn::LoadU(dih, odd + j)));
      Finish(p, hn::LoadU(dih, Ebuf + j), P, acc + j);
    }
  }
}

void GstRun16(const SimdParams& p, int k, int steps, const float* HWY_RESTRICT aval, const uint32_t* HWY_RESTRICT anz,
              const double* HWY_RESTRICT ascale, const int32_t* HWY_RESTRICT aexp, const float* HWY_RESTRICT bval,
              const uint32_t* HWY_RESTRICT bnz, const double* HWY_RESTRICT bscale, const int32_t* HWY_RESTRICT bexp,
              uint32_t* HWY_RESTRICT acc) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  using VF = hn::Vec<decltype(df)>;
  using VI = hn::Vec<decltype(di)>;
  constexpr std::size_t N = hn::MaxLanes(df), NV = L / N, ND = hn::MaxLanes(DD());
  constexpr int kGroup = 16, kMaxGroups = 4;
  const int groups = k / kGroup, blocks = k / p.block;
  HWY_ALIGN float Q[kMaxGroups][L];
  HWY_ALIGN int32_t Ebuf[L];
  for (int s = 0; s < steps; ++s) {
    // The exact group sums.
    for (int g = 0; g < groups; ++g) {
      const std::size_t l0 = (static_cast<std::size_t>(s) * groups + g) * kGroup;
      VF q[NV];
      for (std::size_t v = 0; v < NV; ++v) q[v] = hn::Zero(df);
      for (int i = 0; i < kGroup; ++i) {
        const VF a = hn::Set(df, aval[l0 + i]);
        for (std::size_t v = 0; v < NV; ++v) q[v] = hn::MulAdd(a, hn::LoadU(df, bval + (l0 + i) * L + v * N), q[v]);
      }
      for (std::size_t v = 0; v < NV; ++v) hn::StoreU(q[v], df, Q[g] + v * N);
    }
    // E: the scale exponents of the groups that are terms, c and the floor.
    const std::size_t t0 = static_cast<std::size_t>(s) * blocks, g0 = static_cast<std::size_t>(s) * groups;
    for (std::size_t v = 0; v < NV; ++v) {
      VI E = hn::Max(hn::Set(di, p.floor), CExponent(di, acc + v * N));
      for (int g = 0; g < groups; ++g) {
        const std::size_t t = t0 + static_cast<std::size_t>(g * kGroup / p.block);
        const VI nz = hn::And(hn::Set(di, static_cast<int32_t>(anz[g0 + g])),
                              hn::LoadU(di, reinterpret_cast<const int32_t*>(bnz) + (g0 + g) * L + v * N));
        const VI eg = hn::Add(hn::Set(di, aexp[t]), hn::LoadU(di, bexp + t * L + v * N));
        E = hn::Max(E, hn::IfThenElse(hn::Eq(nz, hn::Zero(di)), hn::Set(di, kNoTerm), eg));
      }
      hn::StoreU(E, di, Ebuf + v * N);
    }
    // The group terms in binary64, then c and the rounding.
    for (std::size_t j = 0; j < L; j += ND) {
      const DD dd;
      const VIH E = hn::LoadU(DIH(), Ebuf + j);
      const VD w = Pow2(hn::Sub(hn::Set(DIH(), p.frac - 2), E));
      VD P = hn::Zero(dd);
      for (int g = 0; g < groups; ++g) {
        const std::size_t t = t0 + static_cast<std::size_t>(g * kGroup / p.block);
        const VD sc = hn::Mul(hn::Mul(hn::Set(dd, ascale[t]), hn::LoadU(dd, bscale + t * L + j)), w);
        P = hn::Add(P, hn::Trunc(hn::Mul(hn::PromoteTo(dd, hn::LoadU(DFH(), Q[g] + j)), sc)));
      }
      Finish(p, E, P, acc + j);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace kernels {

HWY_EXPORT(StRun16);
HWY_EXPORT(GstRun16);

// The scaled kernels take one A row (docs/kernels.md, the prototype).
void check_one_row(const RowPanel& a) {
  if (a.rows != 1) throw std::invalid_argument("block-scaled step kernel: " + std::to_string(a.rows) + " A rows (1)");
}

int simd_st_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc) {
  check_one_row(a);
  HWY_DYNAMIC_DISPATCH(StRun16)(p, run.step, run.steps, a.val, a.exp16, a.scale_exp, b.val, b.exp16, b.scale_exp, acc);
  return run.steps;
}

int simd_gst_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc) {
  check_one_row(a);
  HWY_DYNAMIC_DISPATCH(GstRun16)(p, run.step, run.steps, a.val, a.nz, a.scale, a.scale_exp, b.val, b.nz, b.scale,
                                 b.scale_exp, acc);
  return run.steps;
}

}  // namespace kernels
}  // namespace mmaemu
#endif  // HWY_ONCE
