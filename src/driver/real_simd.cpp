// SPDX-License-Identifier: BSD-3-Clause
// SIMD step kernels for the paths that are IEEE binary32 arithmetic per
// output element (spec §2.8 PW, §2.11): the fp32 FMA chain of CDNA1/2/3 and
// the CDNA2 pairwise tree. Each lane is one output column; the operations
// and their order are exactly those of the scalar kernels, so the bits are
// the same. Fused multiply-add is used only on targets where it is native
// (HWY_NATIVE_FMA); elsewhere the chain runs on std::fma per lane.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "driver/real_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cmath>
#include <cstdint>

#include "driver/simd.h"
#include "driver/product_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// acc[j] = fma(a_l, b_lj, acc[j]) for l = 0..len-1, in order.
void FmaChain16(int len, const float* av, const float* bv, float* acc) {
#if HWY_NATIVE_FMA
  const hn::ScalableTag<float> df;
  const std::size_t N = hn::Lanes(df);
  for (std::size_t v = 0; v < kSimdLanes; v += N) {
    auto d = hn::LoadU(df, acc + v);
    for (int l = 0; l < len; ++l) d = hn::MulAdd(hn::Set(df, av[l]), hn::LoadU(df, bv + l * kSimdLanes + v), d);
    hn::StoreU(d, df, acc + v);
  }
#else
  for (std::size_t j = 0; j < kSimdLanes; ++j)
    for (int l = 0; l < len; ++l) acc[j] = std::fma(av[l], bv[l * kSimdLanes + j], acc[j]);
#endif
}

// CDNA2: products rounded to fp32 (a zero if either factor was flushed),
// FTZ of products and c (sign per `keep`), pairwise sums with FTZ keeping
// the sign, c added last.
void Pairwise16(const SimdParams& p, int len, const float* av, const int32_t* af, const float* bv,
                const int32_t* bf, float* acc) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<int32_t, decltype(df)> di;
  const std::size_t N = hn::Lanes(df);
  const auto tiny = hn::Set(df, 0x1p-126f);
  // |x| < 2^-126 and x != 0 -> a zero (signed if keep_sign); NaN stays.
  auto flush = [&](decltype(hn::Zero(df)) x, bool keep_sign) {
    if (p.out_subnormals) return x;
    const auto small = hn::Lt(hn::Abs(x), tiny);
    return hn::IfThenElse(small, keep_sign ? hn::And(x, hn::Set(df, -0.0f)) : hn::Zero(df), x);
  };
  for (std::size_t v = 0; v < kSimdLanes; v += N) {
    decltype(hn::Zero(df)) prod[4];
    for (int i = 0; i < p.pair_group; ++i) {
      if (i >= len) {
        prod[i] = hn::Zero(df);
        continue;
      }
      const auto b = hn::LoadU(df, bv + i * kSimdLanes + v);
      const auto flushed = hn::Ne(hn::Or(hn::Set(di, af[i]), hn::LoadU(di, bf + i * kSimdLanes + v)), hn::Zero(di));
      const auto x = hn::IfThenZeroElse(hn::RebindMask(df, flushed), hn::Mul(hn::Set(df, av[i]), b));
      prod[i] = flush(x, p.keep_sign);
    }
    const auto c = flush(hn::LoadU(df, acc + v), p.keep_sign);
    auto t = flush(hn::Add(prod[0], prod[1]), true);
    if (p.pair_group == 4) t = flush(hn::Add(t, flush(hn::Add(prod[2], prod[3]), true)), true);
    hn::StoreU(flush(hn::Add(c, t), true), df, acc + v);
  }
}

void PairwiseRun16(const SimdParams& p, int steps, int step, int last_len, const float* av, const int32_t* af,
                   const float* bv, const int32_t* bf, float* acc) {
  RunBlocks(steps, step, last_len, [&](int len, std::size_t a, std::size_t b) {
    Pairwise16(p, len, av + a, af + a, bv + b, bf + b, acc);
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

HWY_EXPORT(FmaChain16);
HWY_EXPORT(PairwiseRun16);

void simd_fma_chain16(int len, const float* av, const float* bv, float* acc) {
  HWY_DYNAMIC_DISPATCH(FmaChain16)(len, av, bv, acc);
}

void simd_pairwise_run16(const SimdParams& p, int steps, int step, int last_len, const float* av, const int32_t* af,
                         const float* bv, const int32_t* bf, float* acc) {
  HWY_DYNAMIC_DISPATCH(PairwiseRun16)(p, steps, step, last_len, av, af, bv, bf, acc);
}

}  // namespace fast
}  // namespace mmaemu
#endif  // HWY_ONCE
