// SPDX-License-Identifier: BSD-3-Clause
// SIMD step kernels for the paths that are IEEE arithmetic per output
// element (docs/models.md §2.8, pairwise, §2.11): the fp32 FMA chain of CDNA1/2/3, the fp64
// chain of DMMA / f64 MFMA and the CDNA2 pairwise tree. Each lane is one
// output element; the operations and their order are exactly those of the
// scalar kernels, so the bits are the same. Fused multiply-add is used only on targets where it is native
// (HWY_NATIVE_FMA); elsewhere the chain runs on std::fma per lane.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/real_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cmath>
#include <cstdint>

#include "kernels/simd.h"
#include "kernels/product_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Register-blocked FMA chain (BLIS-style micro-kernel) for a kChainMR x
// kChainNR tile (fp64: kChainMR x kChainNR64) over kc steps of k:
//
//   a: packed A micro-panel, a[l*MR + r]  (row r, step l; broadcast)
//   b: packed B micro-panel, b[l*NR + j]  (column j, step l; vector loads)
//   c: accumulators, c[r*ldc + j], read at the start, written at the end
//
//   for l = 0..kc-1:  c[r][j] = fma(a[l][r], b[l][j], c[r][j])   (in order)
//
// Each accumulator is one output element's chain, updated once per l in the
// model's order with one fused multiply-add: exactly fma_step() of the
// reference, whatever the tile shape. R rows x V vectors of accumulators
// stay in registers over the whole kc loop; wider tiles are swept in
// sub-tiles of that size (fewer registers on AVX2 and below).
template <int R, int V, class D, typename T = hn::TFromD<D>>
HWY_INLINE void ChainSub(D d, int kc, std::size_t mr, std::size_t nr, const T* HWY_RESTRICT a,
                         const T* HWY_RESTRICT b, T* HWY_RESTRICT c, std::size_t ldc) {
  const std::size_t N = hn::Lanes(d);
  using VT = hn::Vec<D>;
  VT acc[R][V];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = hn::LoadU(d, c + r * ldc + v * N);
  for (int l = 0; l < kc; ++l) {
    const T* al = a + static_cast<std::size_t>(l) * mr;
    const T* bl = b + static_cast<std::size_t>(l) * nr;
    VT bv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) bv[v] = hn::LoadU(d, bl + v * N);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const VT ar = hn::Set(d, al[r]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[r][v] = hn::MulAdd(ar, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) hn::StoreU(acc[r][v], d, c + r * ldc + v * N);
}

template <typename T, std::size_t MR, std::size_t NR>
HWY_INLINE void ChainTile(int kc, const T* HWY_RESTRICT a, const T* HWY_RESTRICT b, T* HWY_RESTRICT c,
                          std::size_t ldc) {
#if HWY_NATIVE_FMA
  const hn::ScalableTag<T> d;
  const std::size_t N = hn::Lanes(d);
  if (N <= NR / 2 && NR % (2 * N) == 0) {
    // 32 vector registers (AVX-512): all MR rows at once; else 4 rows.
    constexpr int R = HWY_TARGET <= HWY_AVX3 ? static_cast<int>(MR) : 4;
    static_assert(MR % R == 0);
    for (std::size_t r0 = 0; r0 < MR; r0 += R)
      for (std::size_t j0 = 0; j0 < NR; j0 += 2 * N)
        ChainSub<R, 2>(d, kc, MR, NR, a + r0, b + j0, c + r0 * ldc + j0, ldc);
    return;
  }
#endif
  // Targets without a native FMA (MulAdd would round twice): std::fma.
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t j = 0; j < NR; ++j) {
      T x = c[r * ldc + j];
      for (int l = 0; l < kc; ++l) x = std::fma(a[l * MR + r], b[l * NR + j], x);
      c[r * ldc + j] = x;
    }
}

void ChainTile32(int kc, const float* a, const float* b, float* c, std::size_t ldc) {
  ChainTile<float, kChainMR, kChainNR>(kc, a, b, c, ldc);
}
void ChainTile64(int kc, const double* a, const double* b, double* c, std::size_t ldc) {
  ChainTile<double, kChainMR, kChainNR64>(kc, a, b, c, ldc);
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
  // |x| < 2^-126 and x != 0 -> a zero (signed if keep_sign); NaN and +-0
  // stay (a -0 c or sum is -0 in the reference too).
  auto flush = [&](decltype(hn::Zero(df)) x, bool keep_sign) {
    if (p.out_subnormals) return x;
    const auto small = hn::And(hn::Lt(hn::Abs(x), tiny), hn::Ne(x, hn::Zero(df)));
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

HWY_EXPORT(PairwiseRun16);
HWY_EXPORT(ChainTile32);
HWY_EXPORT(ChainTile64);

void simd_chain_tile(int kc, const float* a, const float* b, float* c, std::size_t ldc) {
  HWY_DYNAMIC_DISPATCH(ChainTile32)(kc, a, b, c, ldc);
}
void simd_chain_tile64(int kc, const double* a, const double* b, double* c, std::size_t ldc) {
  HWY_DYNAMIC_DISPATCH(ChainTile64)(kc, a, b, c, ldc);
}

void simd_pairwise_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, float* acc) {
  HWY_DYNAMIC_DISPATCH(PairwiseRun16)(p, run.steps, run.step, run.last_len, a.val, a.exp, b.val, b.exp, acc);
}

}  // namespace fast
}  // namespace mmaemu
#endif  // HWY_ONCE
