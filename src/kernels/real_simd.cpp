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
#include <type_traits>

#include "kernels/simd.h"
#include "kernels/product_sum-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace kernels {
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

// CDNA2 pairwise tree (docs/models.md §2.8), the operations of
// pairwise_step() per lane in the same order:
//
//   x_i = a_i * b_i          FTZ (sign per keep_sign); a flushed input is
//                            already its zero (pack_element): x_i a signed zero
//   t   = x_0 + x_1          FTZ keeping the sign     (groups of 4: + (x_2 + x_3))
//   d   = c + t              FTZ keeping the sign     (c flushed per keep_sign first)
//
// One vector of lanes at a time, d in a register from step to step. Where
// FTZ cannot fire it is left out (kFlush):
//   kNoFlush    rows with subnormal outputs: no FTZ at all;
//   kFlushC     fp16 inputs: a product of two fp16 values (subnormals
//               included) is a multiple of 2^-48 below 2^32, so the products
//               and their sums are zero or normal fp32; only c + t can be
//               subnormal;
//   kFlushAll   every FTZ of the scalar kernel.
// c is flushed once at the start of the run: every later c is a d, which is
// zero or normal, and on which FTZ is the identity. With neg_zero = positive
// (kPosZero) each step reads a -0 c as +0: c + (+0).
enum PairFlush { kNoFlush, kFlushC, kFlushAll };

// x where it is not subnormal; else x & zsign (zsign = -0.0f: the signed
// zero; +0.0f: +0). Zeros, NaN and Inf stay.
HWY_INLINE VF32 FlushSubnormal(VF32 x, VF32 zsign) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  const __mmask16 sub = _mm512_fpclass_ps_mask(x.raw, 0x20);  // 0x20: denormal
  return VF32{_mm512_mask_and_ps(x.raw, sub, x.raw, zsign.raw)};
#else
  const DF32 df;
  const auto sub = hn::And(hn::Lt(hn::Abs(x), hn::Set(df, 0x1p-126f)), hn::Ne(x, hn::Zero(df)));
  return hn::IfThenElse(sub, hn::And(x, zsign), x);
#endif
}

// One step (G products at av, bv of the lanes' offset, `len` of them
// present) on the d of one vector of lanes; kFull: len == G (the step is G
// products: step_k = pair_group).
template <int G, PairFlush kFlush, bool kPosZero, bool kFull>
HWY_INLINE VF32 PairStep(int len, const float* av, const float* bv, VF32 c, VF32 product_zero) {
  const DF32 df;
  const auto signed_zero = hn::Set(df, -0.0f);
  if (kPosZero) c = hn::Add(c, hn::Zero(df));
  VF32 x[G];
  HWY_UNROLL(4)
  for (int i = 0; i < G; ++i) {
    if (!kFull && i >= len) {  // past the step: +0
      x[i] = hn::Zero(df);
      continue;
    }
    x[i] = hn::Mul(hn::Set(df, av[i]), hn::LoadU(df, bv + i * kSimdLanes));
    if (kFlush == kFlushAll) x[i] = FlushSubnormal(x[i], product_zero);
  }
  auto t = hn::Add(x[0], x[1]);
  if (kFlush == kFlushAll) t = FlushSubnormal(t, signed_zero);
  if constexpr (G == 4) {
    auto u = hn::Add(x[2], x[3]);
    if (kFlush == kFlushAll) u = FlushSubnormal(u, signed_zero);
    t = hn::Add(t, u);
    if (kFlush == kFlushAll) t = FlushSubnormal(t, signed_zero);
  }
  c = hn::Add(c, t);
  return kFlush != kNoFlush ? FlushSubnormal(c, signed_zero) : c;
}

template <int G, PairFlush kFlush, bool kPosZero>
HWY_NOINLINE void PairwiseSteps(const SimdParams& p, int steps, int last_len, const float* av, const float* bv,
                                float* acc) {
  const DF32 df;
  const std::size_t N = hn::Lanes(df);
  const auto product_zero = p.keep_sign ? hn::Set(df, -0.0f) : hn::Zero(df);
  for (std::size_t v = 0; v < kSimdLanes; v += N) {
    auto c = hn::LoadU(df, acc + v);
    if (kFlush != kNoFlush) c = FlushSubnormal(c, product_zero);
    int s = 0;
    for (; s + 1 < steps; ++s) {
      const std::size_t a0 = static_cast<std::size_t>(s) * G, b0 = a0 * kSimdLanes + v;
      c = PairStep<G, kFlush, kPosZero, true>(G, av + a0, bv + b0, c, product_zero);
    }
    if (s < steps) {  // the last step, maybe short
      const std::size_t a0 = static_cast<std::size_t>(s) * G, b0 = a0 * kSimdLanes + v;
      c = PairStep<G, kFlush, kPosZero, false>(last_len, av + a0, bv + b0, c, product_zero);
    }
    hn::StoreU(c, df, acc + v);
  }
}

void PairwiseRun16(const SimdParams& p, int steps, int step, int last_len, const float* av, const float* bv,
                   float* acc) {
  const PairFlush mode = p.out_sub ? kNoFlush : p.normal_products ? kFlushC : kFlushAll;
  auto run = [&](auto g, auto flush) {
    constexpr int G = decltype(g)::value;
    constexpr PairFlush kFlush = static_cast<PairFlush>(decltype(flush)::value);
    if (p.pos_zero) return PairwiseSteps<G, kFlush, true>(p, steps, last_len, av, bv, acc);
    PairwiseSteps<G, kFlush, false>(p, steps, last_len, av, bv, acc);
  };
  auto by_mode = [&](auto g) {
    switch (mode) {
      case kNoFlush: return run(g, std::integral_constant<int, kNoFlush>());
      case kFlushC: return run(g, std::integral_constant<int, kFlushC>());
      case kFlushAll: return run(g, std::integral_constant<int, kFlushAll>());
    }
  };
  // step_k = pair_group on the pairwise path: a step is one tree.
  if (step == 4) by_mode(std::integral_constant<int, 4>());
  else by_mode(std::integral_constant<int, 2>());
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace kernels {

HWY_EXPORT(PairwiseRun16);
HWY_EXPORT(ChainTile32);
HWY_EXPORT(ChainTile64);

void simd_chain_tile(int kc, const float* a, const float* b, float* c, std::size_t ldc) {
  HWY_DYNAMIC_DISPATCH(ChainTile32)(kc, a, b, c, ldc);
}
void simd_chain_tile64(int kc, const double* a, const double* b, double* c, std::size_t ldc) {
  HWY_DYNAMIC_DISPATCH(ChainTile64)(kc, a, b, c, ldc);
}

int simd_pairwise_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc) {
  check_rows(a);
  for (int r = 0; r < a.rows; ++r)  // row after row
    HWY_DYNAMIC_DISPATCH(PairwiseRun16)(p, run.steps, run.step, run.last_len, a.val + r * a.stride, b.val,
                                        reinterpret_cast<float*>(acc + r * kSimdLanes));
  return run.steps;
}

}  // namespace kernels
}  // namespace mmaemu
#endif  // HWY_ONCE
